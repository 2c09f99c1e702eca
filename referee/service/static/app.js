// Nertz referee page: plain JavaScript, no build step, no network beyond this server.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };

  // -- the table token (remote mode): taken from ?token= once, then kept ---------------------
  const params = new URLSearchParams(location.search);
  if (params.get("token")) {
    localStorage.setItem("nertz-token", params.get("token"));
    params.delete("token");
    history.replaceState(null, "", location.pathname + (params.toString() ? "?" + params : "") + location.hash);
  }
  const token = () => localStorage.getItem("nertz-token") || "";

  // what a refusal says: the service's own `detail` (a string), or the messages of a
  // validation error's list (each item's `msg`, after its `loc` joined: "counts.red: Input
  // should be greater than or equal to 0"), else the HTTP status
  function problem(res, data) {
    const d = data && data.detail;
    if (typeof d === "string" && d) return d;
    if (Array.isArray(d) && d.length) {
      return d.map((e) => {
        const loc = (Array.isArray(e && e.loc) ? e.loc : []).filter((p, i) => !(i === 0 && p === "body")).join(".");
        const msg = e && typeof e.msg === "string" ? e.msg : JSON.stringify(e);
        return loc ? loc + ": " + msg : msg;
      }).join("; ");
    }
    return res.status + " " + res.statusText;
  }

  const NO_CONNECTION = "no connection to the referee service: is nertz serve running?";
  async function api(method, path, body) {
    const headers = {};
    if (token()) headers["X-Table-Token"] = token();
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let res;
    try {
      res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (e) {  // the service is down (restarted, the network): said, not a click that does nothing
      flash(NO_CONNECTION);
      throw e;
    }
    const data = await res.json().catch(() => ({}));
    if (!res.ok) {
      const msg = problem(res, data);
      flash(msg);
      throw new Error(msg);
    }
    return data;
  }

  let flashTimer = null;
  // a flashed message holds the status line for 5 s: renderStatus (the clock's tick, a state
  // update) leaves it alone meanwhile and writes the round's status after
  function flash(msg) {
    const s = $("status");
    s.textContent = msg;
    s.style.color = "#ffd866";
    clearTimeout(flashTimer);
    flashTimer = setTimeout(() => { flashTimer = null; s.style.color = ""; renderStatus(); }, 5000);
  }

  // -- speech: rulings spoken by the browser, with a mute switch kept in localStorage ---------
  const RANKS = { A: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
    T: "ten", J: "jack", Q: "queen", K: "king" };
  const SUITS = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
  const SPOKEN = new Set(["rejected", "collision", "false_call", "round_end", "taken_back", "review", "declare", "call_after_end"]);
  const mute = $("mute");
  mute.checked = localStorage.getItem("nertz-mute") === "1";
  mute.addEventListener("change", () => {
    localStorage.setItem("nertz-mute", mute.checked ? "1" : "0");
    if (mute.checked && window.speechSynthesis) speechSynthesis.cancel();
  });
  function speakable(text) {
    let s = text.replace(/\b([A2-9TJQK])([SHDC])\b/g, (m, r, su) => RANKS[r] + " of " + SUITS[su]).replace(/\bJK\b/g, "joker");
    return s.charAt(0).toUpperCase() + s.slice(1);
  }
  function speak(ruling) {
    if (mute.checked || !window.speechSynthesis || !ruling.message || !SPOKEN.has(ruling.kind)) return;
    const u = new SpeechSynthesisUtterance(speakable(ruling.message));
    u.rate = 1.05;
    speechSynthesis.speak(u);
  }

  // -- state -------------------------------------------------------------------------------
  let round = null, match = null, table = null;
  const colour = (name) => {
    const p = table && table.players.find((q) => q.name === name);
    return p ? p.back : "#888";
  };

  async function refresh() {
    try {
      const [r, m] = await Promise.all([api("GET", "/api/round"), api("GET", "/api/match")]);
      if (!table || (round && r.match !== round.match)) table = await api("GET", "/api/table");
      round = r; match = m;
      render();
    } catch (e) { /* shown by flash */ }
  }
  let pending = null;
  function scheduleRefresh() {
    if (pending) return;
    pending = setTimeout(() => { pending = null; refresh(); }, 80);
  }

  // -- live connection: WebSocket, polling while it is down (or without a token) --------------
  let ws = null, pollTimer = null, retry = 1500;
  function connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const q = token() ? "?token=" + encodeURIComponent(token()) : "";
    ws = new WebSocket(proto + "//" + location.host + "/ws" + q);
    ws.onopen = () => {
      retry = 1500; $("conn").classList.add("live"); clearInterval(pollTimer); pollTimer = null;
      if (flashTimer !== null && $("status").textContent === NO_CONNECTION) {  // back: the round's status at once
        clearTimeout(flashTimer); flashTimer = null; $("status").style.color = "";
      }
      scheduleRefresh();  // what changed while the connection was down
    };
    ws.onmessage = (ev) => {
      const msg = JSON.parse(ev.data);
      if (msg.type === "ruling") speak(msg.ruling);
      if (msg.type === "source_error") flash((msg.stopped ? "the " + ((round && round.source) || "source") + " stopped: " : "not applied: ") + msg.message);
      if (msg.type === "table") table = null;
      scheduleRefresh();
    };
    ws.onclose = () => {
      $("conn").classList.remove("live");
      if (!pollTimer) pollTimer = setInterval(refresh, 2000);
      retry = Math.min(retry * 2, 30000);  // no token on a remote table: keep polling, retry seldom
      setTimeout(connect, retry);
    };
  }

  // -- rendering ---------------------------------------------------------------------------
  // one time format across the page, minutes:seconds as a player reads a clock: the running
  // clock to the second ("0:59"), the moment of a play, a ruling or the call to the tenth
  // ("0:59.1"), where two plays a fraction of a second apart need telling apart
  function fmtClock(t) {
    if (t === null || t === undefined) return "";
    const s = Math.max(0, Math.floor(t));
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }
  function fmtT(t) {
    if (t === null || t === undefined) return "";
    const d = Math.max(0, Math.round(t * 10));  // tenths, rounded once: 59.96 is 1:00.0, not 0:60.0
    return Math.floor(d / 600) + ":" + String(Math.floor((d % 600) / 10)).padStart(2, "0") + "." + (d % 10);
  }

  // the source's own failure (a camera that could not be reopened), listed last in source_errors
  function stopped() { return (round.source_errors || []).find((e) => e.stopped); }

  function renderStatus() {
    if (!round || flashTimer !== null) return;
    const s = $("status");
    if (round.closed) s.textContent = match && match.winner ? match.winner + " wins the match" : "match over";
    else if (round.ended === "call") s.textContent = round.caller + " called Nertz at " + fmtT(round.end_t);
    // with no caller: everyone stuck (a second time) or ended by a person, said as the round's
    // ruling says it, not by the service's code word ("round over (ended)")
    else if (round.ended) s.textContent = (round.ended === "stuck" ? "everyone stuck: " : "")
      + "round ended with no caller at " + fmtT(round.end_t);
    else if (stopped()) s.textContent = "the " + round.source + " stopped: " + stopped().message
      + " · call Nertz, declare everyone stuck or end the round; restart nertz serve to watch again";
    else if (round.source_ended) s.textContent = "the " + (round.source === "camera" ? "video" : "event log")
      + " has ended · call Nertz, declare everyone stuck or end the round";
    else s.textContent = "playing · " + fmtClock(round.clock) + (round.source ? " · " + round.source : "");
    if (round.source_error_count) s.textContent += " · " + round.source_error_count + " event(s) of the source not applied (see the rulings)";
  }

  function render() {
    $("round-label").textContent = "Round " + round.round;
    renderStatus();
    renderBanner();
    renderScoreboard();
    renderControls();
    renderAudit();
    renderPiles();
    renderLog();
    renderReviews();
    renderHistory();
  }

  function renderBanner() {
    const b = $("banner");
    let text = "", winner = false;
    if (round.closed || (match && match.over)) { winner = !!match.winner; text = winner ? match.winner + " wins the match!" : "The match is over"; }
    else if (round.ended === "call") text = "Nertz! " + round.caller + " ends the round";
    else if (round.ended === "stuck") text = "Everyone stuck: the round is over";
    else if (round.ended) text = "The round is over";
    b.classList.toggle("hidden", !text);
    const shown = (winner ? "trophy:" : "") + text;
    if (b.dataset.shown === shown) return;  // unchanged: left as it is, not rebuilt on every update
    b.dataset.shown = shown;
    b.replaceChildren();
    // the winner's trophy is drawn by CSS: an emoji (U+1F3C6) is an empty box in a browser
    // without an emoji font (many Linux desktops, headless chromium)
    if (winner) { const t = el("span", "trophy"); t.setAttribute("aria-hidden", "true"); b.append(t); }
    b.append(text);
  }

  function renderScoreboard() {
    const box = $("scoreboard");
    box.replaceChildren();
    const target = round.target;
    for (const p of round.players) {
      const tile = el("div", "player" + (p.called ? " caller" : ""));
      tile.dataset.player = p.name;
      tile.style.borderColor = p.called ? "" : p.back;
      const stripe = el("div", "stripe"); stripe.style.background = p.back; tile.append(stripe);
      const body = el("div", "body");
      const name = el("div", "name");
      const chip = el("span", "chip"); chip.style.background = p.back;
      // the CALLED badge follows the name in its line, and goes under it (whole) when both do
      // not fit: squeezed beside it, the two were broken mid-word on a phone
      const who = el("span", "who", p.name);
      if (p.called) who.append(" ", el("span", "called", "CALLED"));
      name.append(chip, who);
      const score = el("div", "score" + (p.score < 0 ? " neg" : ""), String(p.score));
      score.dataset.testid = "score-" + p.name;
      const left = p.nertz_known || p.called ? String(p.nertz_left) : "?";
      const live = p.live_foundation !== null && p.live_foundation !== undefined && p.live_foundation !== p.foundation
        ? " (live " + p.live_foundation + ")" : "";
      const sub = el("div", "sub", p.foundation + (round.audit ? " counted" : " on foundations") + live + " · " + left + " in Nertz pile");
      // the match total counts the rounds the Match tab lists (the round under way once it has
      // ended: its score is not settled before), and says which
      const total = el("div", "total");
      total.append(el("span", "sum", "Match " + p.total + " / " + target), " ",
        el("span", "after", round.counted_rounds ? "after round " + round.counted_rounds : "before round 1"));
      const prog = el("div", "progress");
      const bar = el("div"); bar.style.width = Math.max(0, Math.min(100, (100 * p.total) / target)) + "%"; bar.style.background = p.back;
      prog.append(bar);
      const btn = el("button", "nertz", "Nertz!");
      btn.style.background = p.back;
      btn.dataset.player = p.name;
      btn.setAttribute("aria-label", "Nertz! " + p.name);
      btn.disabled = !!round.ended || round.closed;
      btn.addEventListener("click", () => api("POST", "/api/round/call", { player: p.name }).then(scheduleRefresh, () => {}));
      body.append(name, score, sub, total, prog, btn);
      tile.append(body);
      box.append(tile);
    }
  }

  function renderControls() {
    const over = round.closed || (match && match.over && round.ended);
    $("btn-stuck").disabled = !!round.ended || round.closed;
    $("btn-end").disabled = !!round.ended || round.closed;
    $("btn-next").disabled = !round.ended || round.closed;
    $("btn-next").classList.toggle("hidden", !!(round.closed));
    $("btn-next").textContent = over ? "Close round (match over)" : "Next round";
    $("btn-new-match").classList.toggle("hidden", !round.closed);
  }

  // -- the back count: the round scored by the backs, the live count beside it ----------------
  let auditFormKey = null;
  const signed = (n) => (n > 0 ? "+" + n : String(n));
  function cells(tr, values, tag) { for (const v of values) tr.append(el(tag || "td", null, String(v))); return tr; }

  function renderAudit() {
    const a = round.audit;
    const canRecord = !!round.ended && !round.closed;
    $("audit").classList.toggle("hidden", !a && !canRecord);
    $("audit-hint").classList.toggle("hidden", !!a || !canRecord);
    $("audit-form").classList.toggle("hidden", !canRecord);
    if (canRecord) buildAuditForm(a);
    $("audit-form-title").textContent = a ? "Count again (the latest count scores)" : "Count each back";
    $("audit-result").classList.toggle("hidden", !a);
    if (!a) { $("audit-note").textContent = ""; return; }
    const how = a.source === "photo" ? "from a photo" : "entered";
    $("audit-note").textContent = (a.agrees ? "agrees with the live count" : "differs from the live count: scored by the count")
      + " · " + how + (a.audits > 1 ? " · count " + a.audits + " of this round (the latest counts)" : "");
    $("audit-note").classList.toggle("bad", !a.agrees);
    const tbl = $("audit-table");
    tbl.replaceChildren(cells(el("tr"), ["player", "count", "live", "difference", "Nertz left", "score", "live score"], "th"));
    for (const o of a.owners) {
      const tr = el("tr");
      tr.dataset.player = o.name;
      const name = el("td");
      const chip = el("span", "chip"); chip.style.background = o.back;
      name.append(chip, el("span", null, o.name));
      tr.append(name);
      cells(tr, [o.audit, o.live]);
      const diff = el("td", o.difference > 0 ? "up" : o.difference < 0 ? "down" : null, o.difference ? signed(o.difference) : "0");
      diff.dataset.testid = "audit-diff-" + o.name;
      tr.append(diff);
      cells(tr, [o.nertz_left]);
      const score = el("td", "strong", String(o.score)); score.dataset.testid = "audit-score-" + o.name;
      tr.append(score);
      cells(tr, [o.live_score]);
      tbl.append(tr);
    }
    const st = $("audit-suspects");
    st.replaceChildren();
    $("audit-suspects-title").classList.toggle("hidden", !a.suspects.length);
    if (a.suspects.length) {
      st.append(cells(el("tr"), ["time", "card", "pile", "live owner", "likely owner", "confidence"], "th"));
      for (const s of a.suspects) {
        const tr = el("tr"); tr.dataset.card = s.card;
        cells(tr, [fmtT(s.t), cardText(s.card), s.pile, s.credited, s.likely || "?", s.confidence.toFixed(2)]);
        st.append(tr);
      }
    }
    $("audit-photo").classList.toggle("hidden", !a.has_photo);
    $("audit-photo-link").href = "/api/round/audit/photo.jpg?seq=" + a.seq;
  }

  // what was typed in the form and not sent yet is kept in sessionStorage (this tab's), under
  // the form's key (match, round, latest count), so that a reload does not lose it; cleared
  // once a count is recorded
  const DRAFT = "nertz-audit-draft:";
  function saveDraft() {
    if (auditFormKey === null) return;
    const draft = { count: {}, left: {} };
    for (const i of document.querySelectorAll("#audit-inputs input[data-typed]")) {
      if (i.dataset.count !== undefined) draft.count[i.dataset.count] = i.value;
      else draft.left[i.dataset.left] = i.value;
    }
    try { sessionStorage.setItem(DRAFT + auditFormKey, JSON.stringify(draft)); } catch (e) { /* storage off: not kept */ }
  }
  function loadDraft(key) {
    try {
      for (const k of Object.keys(sessionStorage)) if (k.startsWith(DRAFT) && k !== DRAFT + key) sessionStorage.removeItem(k);
      const d = JSON.parse(sessionStorage.getItem(DRAFT + key) || "null");
      return d && typeof d === "object" ? d : null;
    } catch (e) { return null; }
  }
  function clearDraft() {
    try { for (const k of Object.keys(sessionStorage)) if (k.startsWith(DRAFT)) sessionStorage.removeItem(k); } catch (e) { /* */ }
  }

  function buildAuditForm(a) {
    const key = round.match + ":" + round.round + ":" + (a ? a.seq : 0);
    if (key === auditFormKey) { followLiveRound(a); return; }  // keep what is being typed across refreshes
    auditFormKey = key;
    const draft = loadDraft(key);
    const box = $("audit-inputs");
    box.replaceChildren();
    for (const p of round.players) {
      const lab = el("label", "audit-input");
      const chip = el("span", "chip"); chip.style.background = p.back;
      const count = el("input"); count.type = "number"; count.min = "0"; count.max = "54"; count.dataset.count = p.name;
      count.value = a ? String(a.counts[p.name] ?? 0) : String(p.live_foundation ?? p.foundation);
      const left = el("input"); left.type = "number"; left.min = "0"; left.max = "13"; left.dataset.left = p.name;
      left.placeholder = "?"; left.title = "cards left in " + p.name + "'s Nertz pile";
      if (p.nertz_known || p.called) left.value = String(p.nertz_left);
      for (const [input, typed] of [[count, draft && draft.count], [left, draft && draft.left]]) {
        if (typed && typeof typed[p.name] === "string") { input.value = typed[p.name]; input.dataset.typed = "1"; }
        input.addEventListener("input", () => { input.dataset.typed = "1"; saveDraft(); });
      }
      lab.append(chip, el("span", null, p.name), count, el("span", "hint", "Nertz"), left);
      box.append(lab);
    }
  }

  // the fields nobody has typed in follow the live round: the camera's plays and Nertz counts
  // still come in after the call (the count took the live figures of the moment the round ended)
  function followLiveRound(a) {
    for (const p of round.players) {
      const count = document.querySelector('#audit-inputs input[data-count="' + CSS.escape(p.name) + '"]');
      if (count && !count.dataset.typed && !a) count.value = String(p.live_foundation ?? p.foundation);
      const left = document.querySelector('#audit-inputs input[data-left="' + CSS.escape(p.name) + '"]');
      if (left && !left.dataset.typed && (p.nertz_known || p.called)) left.value = String(p.nertz_left);
    }
  }

  $("audit-record").onclick = () => {
    const counts = {}, nertz = {};
    // every player's count is sent (the service refuses a count that leaves one out): a field
    // left empty (or not a number) is not taken for 0, it is asked for
    for (const i of document.querySelectorAll("#audit-inputs input[data-count]")) {
      if (i.value.trim() === "") {
        flash("give " + i.dataset.count + "'s count (0 if no card of their back is on the foundations)");
        i.focus();
        return;
      }
      counts[i.dataset.count] = Number(i.value);
    }
    for (const i of document.querySelectorAll("#audit-inputs input[data-left]")) if (i.value !== "") nertz[i.dataset.left] = Number(i.value);
    const body = { counts };
    if (Object.keys(nertz).length) body.nertz_left = nertz;
    api("POST", "/api/round/audit", body).then(() => { clearDraft(); flash("back count recorded"); scheduleRefresh(); }, () => {});
  };
  $("audit-file").addEventListener("change", async (ev) => {
    const file = ev.target.files[0];
    ev.target.value = "";
    if (!file) return;
    const headers = { "Content-Type": file.type || "image/jpeg" };
    if (token()) headers["X-Table-Token"] = token();
    flash("counting the photo…");
    const res = await fetch("/api/round/audit/photo", { method: "POST", headers, body: file });
    const data = await res.json().catch(() => ({}));
    if (!res.ok) { flash(problem(res, data)); return; }
    clearDraft();
    flash("back count recorded from the photo");
    scheduleRefresh();
  });

  function cardText(code) {
    if (!code) return "–";
    if (code === "JK") return "🃏";
    const r = code[0] === "T" ? "10" : code[0];
    const s = { S: "♠", H: "♥", D: "♦", C: "♣" }[code[1]];
    return r + s;
  }

  function renderPiles() {
    const box = $("piles");
    box.replaceChildren();
    if (!round.piles.length) box.append(el("p", "hint", "No foundation yet."));
    for (const p of round.piles) {
      const d = el("div", "pile" + (p.complete ? " complete" : ""));
      d.dataset.pile = p.pile;
      d.append(el("div", "no", "pile " + p.pile + " · " + p.cards.length + (p.complete ? " · done" : "")));
      const top = el("div", "card" + (p.top && /[HD]$/.test(p.top) ? " red" : ""), cardText(p.top));
      d.append(top);
      const owners = el("div", "owners");
      for (const c of p.cards) {
        const dot = el("span", "dot");
        dot.style.background = colour(c.owner);
        dot.title = c.owner + ": " + c.card + (c.as ? " as " + c.as : "");
        owners.append(dot);
      }
      d.append(owners);
      box.append(d);
    }
  }

  function renderLog() {
    const box = $("log");
    box.replaceChildren();
    const items = round.rulings.map((r) => ({ t: r.t, kind: r.kind, text: r.message || r.kind }));
    for (const e of round.events) {
      if (e.event.type === "stuck") items.push({ t: e.event.t, kind: "event", text: "everyone stuck: turn your wastes over and play on" });
      if (e.corrections.length) {
        const c = e.corrections[e.corrections.length - 1];
        items.push({ t: e.event.t, kind: "event", text: "corrected (" + c.action + "): " + (e.event.player || "") + " " + (e.event.card || "") });
      }
    }
    // events of the source that were not applied (an unknown player, ...): shown, not dropped
    for (const e of round.source_errors || []) items.push({ t: e.t, kind: "source_error", text: (e.stopped ? "the " + round.source + " stopped: " : "not applied: ") + e.message });
    items.sort((a, b) => (a.t ?? 1e9) - (b.t ?? 1e9));
    for (const it of items.reverse()) {
      const li = el("li", "k-" + it.kind);
      li.append(el("span", "t", it.t === undefined || it.t === null ? "end" : fmtT(it.t)), el("span", null, it.text));
      box.append(li);
    }
  }

  function renderReviews() {
    const box = $("reviews");
    const n = round.reviews.length;
    $("review-count").textContent = String(n);
    $("review-count").classList.toggle("hidden", n === 0);
    box.replaceChildren();
    if (!n) box.append(el("p", "hint", "Nothing to check."));
    // a closed round (the match is over) takes no more corrections (409): listed, not answered
    else if (round.closed) {
      const note = el("p", "hint", "The match is over: these can no longer be answered.");
      note.style.gridColumn = "1 / -1";
      box.append(note);
    }
    for (const item of round.reviews) {
      const card = el("div", "review");
      card.dataset.review = item.id;
      if (item.kind === "low_confidence") {
        const img = el("img");
        img.alt = "the frame of the play";
        img.src = "/api/review/" + encodeURIComponent(item.id) + "/frame.jpg";
        card.append(img);
      }
      card.append(el("div", "msg", item.message));
      if (item.ruling && item.ruling.message && item.ruling.message !== item.message) card.append(el("div", "hint", "Ruling: " + item.ruling.message));
      const actions = el("div", "actions");
      const post = (body) => api("POST", "/api/review/" + encodeURIComponent(item.id), body).then(scheduleRefresh, () => {});
      if (item.kind === "low_confidence") {
        const ok = el("button", "ctl small primary", "Confirm"); ok.onclick = () => post({ action: "confirm" });
        const sel = el("select");
        for (const p of table.players) if (p.name !== item.event.player) sel.append(new Option(p.name, p.name));
        const ch = el("button", "ctl small", "Change owner"); ch.onclick = () => post({ action: "change_owner", player: sel.value });
        const no = el("button", "ctl small", "Reject"); no.onclick = () => post({ action: "reject" });
        actions.append(ok, sel, ch, no);
      } else if (item.kind === "tie") {
        for (const p of (item.ruling && item.ruling.players) || []) {
          const b = el("button", "ctl small", p + " was first"); b.onclick = () => post({ action: "resolve", player: p });
          actions.append(b);
        }
      } else {
        const sel = el("select");
        for (const s of ["S", "H", "D", "C"]) sel.append(new Option("A" + s, "A" + s));
        const b = el("button", "ctl small", "Declare"); b.onclick = () => post({ action: "resolve", as: sel.value });
        actions.append(sel, b);
      }
      if (round.closed) for (const c of actions.children) c.disabled = true;
      card.append(actions);
      box.append(card);
    }
  }

  function renderHistory() {
    if (!match) return;
    $("match-no").textContent = match.match;
    const sum = $("match-summary");
    sum.textContent = match.winner ? match.winner + " wins the match." :
      match.over ? "The match is over, tied." : "First to " + match.target + ". Leading: " + match.leaders.join(", ") + "."
      + (round && !round.ended && !round.closed ? " Round " + round.round + ", under way, is added when it ends." : "");
    const hist = $("history");
    hist.replaceChildren();
    const head = el("tr"); head.append(el("th", null, "round"));
    for (const n of match.players) { const th = el("th", null, n); th.style.color = colour(n); head.append(th); }
    hist.append(head);
    match.rounds.forEach((r, i) => {
      const tr = el("tr"); tr.append(el("td", null, String(i + 1)));
      for (const n of match.players) tr.append(el("td", null, String(r[n])));
      hist.append(tr);
    });
    const tot = el("tr", "total"); tot.append(el("td", null, "total"));
    for (const n of match.players) tot.append(el("td", null, String(match.totals[n])));
    hist.append(tot);
    const st = $("settlement");
    st.replaceChildren();
    if (match.winner) {
      const h = el("tr"); h.append(el("th", null, "pays"), el("th", null, "to"), el("th", null, "points")); st.append(h);
      for (const [n, amount] of Object.entries(match.settlement)) {
        const tr = el("tr"); tr.append(el("td", null, n), el("td", null, match.winner), el("td", null, String(amount))); st.append(tr);
      }
    } else {
      const tr = el("tr"); tr.append(el("td", null, "settled when the match has a winner")); st.append(tr);
    }
    drawChart();
  }

  function drawChart() {
    const svg = $("chart");
    const NS = "http://www.w3.org/2000/svg";
    svg.replaceChildren();
    const W = 640, H = 260, L = 40, R = 90, T = 15, B = 30;
    const series = {};
    for (const n of match.players) {
      let acc = 0; series[n] = [0];
      for (const r of match.rounds) { acc += r[n]; series[n].push(acc); }
    }
    const all = Object.values(series).flat().concat([0, match.target]);
    const lo = Math.min(...all), hi = Math.max(...all);
    const nx = Math.max(1, match.rounds.length);
    const x = (i) => L + ((W - L - R) * i) / nx;
    const y = (v) => T + ((H - T - B) * (hi - v)) / Math.max(1, hi - lo);
    const line = (x1, y1, x2, y2, stroke, dash) => {
      const l = document.createElementNS(NS, "line");
      l.setAttribute("x1", x1); l.setAttribute("y1", y1); l.setAttribute("x2", x2); l.setAttribute("y2", y2);
      l.setAttribute("stroke", stroke); if (dash) l.setAttribute("stroke-dasharray", dash);
      svg.append(l);
    };
    const text = (tx, ty, s, fill) => {
      const t = document.createElementNS(NS, "text");
      t.setAttribute("x", tx); t.setAttribute("y", ty); t.textContent = s; if (fill) t.setAttribute("style", "fill:" + fill);
      svg.append(t);
    };
    line(L, y(0), W - R, y(0), "#555");
    line(L, y(match.target), W - R, y(match.target), "#d29922", "6 4");
    text(4, y(match.target) + 4, String(match.target));
    text(4, y(0) + 4, "0");
    for (let i = 0; i <= nx; i++) text(x(i) - 3, H - 8, String(i));
    for (const n of match.players) {
      const pl = document.createElementNS(NS, "polyline");
      pl.setAttribute("points", series[n].map((v, i) => x(i) + "," + y(v)).join(" "));
      pl.setAttribute("fill", "none"); pl.setAttribute("stroke", colour(n)); pl.setAttribute("stroke-width", "4");
      svg.append(pl);
    }
    // each line's name and total at its end, moved apart where totals are equal or close
    // (14 units a label, the font being 12): written over each other they could not be read
    const GAP = 14;
    const labels = match.players.map((n) => { const last = series[n][series[n].length - 1]; return { n, last, ly: y(last) + 4 }; })
      .sort((a, b) => a.ly - b.ly);
    labels.forEach((l, i) => { if (i) l.ly = Math.max(l.ly, labels[i - 1].ly + GAP); });
    const over = labels.length ? labels[labels.length - 1].ly - (H - 4) : 0;
    if (over > 0) for (const l of labels) l.ly -= over;  // kept inside the chart, at the bottom
    for (const l of labels) text(x(series[l.n].length - 1) + 6, l.ly, l.n + " " + l.last, colour(l.n));
  }

  // -- buttons -----------------------------------------------------------------------------
  $("btn-stuck").onclick = () => api("POST", "/api/round/stuck").then(scheduleRefresh, () => {});
  $("btn-end").onclick = () => { if (confirm("End the round now with no caller?")) api("POST", "/api/round/end").then(scheduleRefresh, () => {}); };
  $("btn-next").onclick = () => api("POST", "/api/round/next").then(scheduleRefresh, () => {});
  $("btn-new-match").onclick = () => api("POST", "/api/match/new").then(() => { table = null; scheduleRefresh(); }, () => {});

  // -- tabs: the open one named in the address (#review, #history, #camera), so that a reload
  // (or a link) opens it again rather than the scoreboard ------------------------------------
  function openTab(b) {
    for (const o of document.querySelectorAll(".tab")) o.classList.toggle("active", o === b);
    for (const p of document.querySelectorAll(".panel")) p.classList.toggle("active", p.id === "tab-" + b.dataset.tab);
    // The MJPEG stream runs only while its tab is open.
    $("video").src = b.dataset.tab === "camera" ? "/api/video/stream.mjpg" : "";
    if (b.dataset.tab === "camera") setupCalibration();
    const hash = b.dataset.tab === "board" ? "" : "#" + b.dataset.tab;
    if (location.hash !== hash) history.replaceState(null, "", location.pathname + location.search + hash);
  }
  for (const b of document.querySelectorAll(".tab")) b.addEventListener("click", () => openTab(b));
  const tabOfHash = () => document.querySelector('.tab[data-tab="' + CSS.escape(location.hash.slice(1)) + '"]');
  window.addEventListener("hashchange", () => { if (tabOfHash()) openTab(tabOfHash()); });

  // -- calibration: regions and back colours clicked on a live frame --------------------------
  const cal = { img: null, regions: {}, backs: {} };
  function setupCalibration() {
    const sel = $("cal-mode");
    if (!table) return;
    if (!sel.options.length) {
      sel.append(new Option("shared area (corners)", "shared"));
      for (const p of table.players) sel.append(new Option(p.name + ": zone (corners)", "zone:" + p.name));
      for (const p of table.players) sel.append(new Option(p.name + ": back colour (one click)", "back:" + p.name));
      cal.regions.shared = table.shared_area ? table.shared_area.map((q) => q.slice()) : [];
      for (const p of table.players) cal.regions["zone:" + p.name] = (table.zones[p.name] || []).map((q) => q.slice());
    }
    if (!cal.img) grabFrame();
  }
  function grabFrame() {
    const img = new Image();
    img.onload = () => { cal.img = img; const c = $("cal-canvas"); c.width = img.naturalWidth; c.height = img.naturalHeight; drawCal(); };
    img.src = "/api/video/frame.jpg?ts=" + Date.now();
  }
  function drawCal() {
    const c = $("cal-canvas"), g = c.getContext("2d");
    if (cal.img) g.drawImage(cal.img, 0, 0);
    for (const [key, pts] of Object.entries(cal.regions)) {
      if (!pts.length) continue;
      g.strokeStyle = key === "shared" ? "#ffd866" : colour(key.slice(5));
      g.lineWidth = 3;
      g.beginPath();
      pts.forEach(([px, py], i) => (i ? g.lineTo(px, py) : g.moveTo(px, py)));
      if (pts.length > 2) g.closePath();
      g.stroke();
    }
    $("cal-info").textContent = Object.entries(cal.backs).map(([n, h]) => n + " back " + h).join(" · ");
  }
  $("cal-grab").onclick = grabFrame;
  $("cal-clear").onclick = () => { const m = $("cal-mode").value; if (m.startsWith("back:")) delete cal.backs[m.slice(5)]; else cal.regions[m] = []; drawCal(); };
  $("cal-canvas").addEventListener("click", (ev) => {
    const c = $("cal-canvas"), r = c.getBoundingClientRect();
    const px = Math.round(((ev.clientX - r.left) * c.width) / r.width), py = Math.round(((ev.clientY - r.top) * c.height) / r.height);
    const m = $("cal-mode").value;
    if (m.startsWith("back:")) {
      const d = c.getContext("2d").getImageData(Math.max(0, px - 4), Math.max(0, py - 4), 9, 9).data;
      let rs = 0, gs = 0, bs = 0, k = 0;
      for (let i = 0; i < d.length; i += 4) { rs += d[i]; gs += d[i + 1]; bs += d[i + 2]; k++; }
      const hex = "#" + [rs, gs, bs].map((v) => Math.round(v / k).toString(16).padStart(2, "0")).join("");
      cal.backs[m.slice(5)] = hex;
    } else {
      cal.regions[m].push([px, py]);
    }
    drawCal();
  });
  $("cal-save").onclick = () => {
    const body = { zones: {}, backs: cal.backs };
    if (cal.regions.shared && cal.regions.shared.length >= 3) body.shared_area = cal.regions.shared;
    for (const [k, pts] of Object.entries(cal.regions)) if (k.startsWith("zone:") && pts.length >= 3) body.zones[k.slice(5)] = pts;
    // the answer says when the camera takes it (from the next round while a round is watched)
    api("PUT", "/api/table/calibration", body).then((t) => { table = t; flash(t.message || "calibration saved"); scheduleRefresh(); }, () => {});
  };

  // -- start ---------------------------------------------------------------------------------
  setInterval(() => { if (round && !round.ended) { round.clock += round.speed || 1; renderStatus(); } }, 1000);
  if (tabOfHash()) openTab(tabOfHash());
  refresh().then(() => {
    if ($("tab-camera").classList.contains("active")) setupCalibration();  // it needs the table
    connect();
  });
})();
