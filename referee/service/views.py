"""JSON views of the live referee's state (the bodies of the ``GET`` endpoints)."""

from __future__ import annotations

import csv
import io
from typing import Any

from nertz.referee.service.live import LiveReferee

__all__ = ["round_view", "audit_view", "match_view", "table_view", "match_csv", "match_export"]


def table_view(live: LiveReferee) -> dict[str, Any]:
    """The table: players with back colours, rules settings, calibrated regions."""
    with live.lock:
        assert live.table is not None
        d = live.table.to_dict()
    return {
        "players": [{"name": p["name"], "back": p["back"], "members": list(p.get("members", []))} for p in d["players"]],
        "rules": d.get("rules", {}),
        "shared_area": d.get("shared_area"),
        "zones": d.get("zones", {}),
    }


def audit_view(live: LiveReferee) -> dict[str, Any] | None:
    """The current round's back count beside the live attribution, or ``None`` without one.

    Returns:
        ``{"seq", "origin", "wall" (Unix seconds), "source" ("json" | "photo"), "method",
        "counts", "nertz_left", "unknown", "face_up", "zones"`` (the stored count),
        ``"has_photo"``, ``"audits"`` (counts recorded for this round; the latest scores),
        ``"agrees"`` (the count equals the live attribution for every owner), ``"owners"``
        (per owner, in seating order: ``name``, ``back``, ``audit`` and ``live`` foundation
        cards, ``difference`` = audit - live, ``nertz_left``, ``score`` (by the count, the one
        that counts) and ``live_score``, points) and ``"suspects"`` (live plays that may have
        gone to the wrong owner, least confident first: ``t`` seconds, ``card``, ``pile``,
        ``credited`` (the live owner), ``likely`` (the owner the count found short, or
        ``None``), ``confidence`` 0..1)}``.
    """
    with live.lock:
        assert live.table is not None
        rd = live.current
        a = rd.audit
        rec = live.reconciliation(rd)
        if a is None or rec is None:
            return None
        owners = []
        for p in live.table.players:
            o = rec.owners[p.name]
            owners.append({"name": p.name, "back": p.back, "audit": o.audit, "live": o.live, "difference": o.difference,
                           "nertz_left": o.nertz_left, "score": o.score, "live_score": o.live_score})
        return {
            "seq": a.seq,
            "origin": a.origin,
            "wall": a.wall,
            "source": a.data.get("source", "json"),
            "method": a.data.get("method"),
            "counts": a.data["counts"],
            "nertz_left": a.data.get("nertz_left"),
            "unknown": a.data.get("unknown"),
            "face_up": a.data.get("face_up"),
            "zones": a.data.get("zones"),
            "has_photo": live.store.frame(a.seq) is not None,
            "audits": len(rd.audits),
            "agrees": rec.agrees,
            "owners": owners,
            "suspects": [{"t": s.t, "card": s.card, "pile": s.pile, "credited": s.credited, "likely": s.likely,
                          "confidence": s.confidence} for s in rec.suspects],
        }


def round_view(live: LiveReferee) -> dict[str, Any]:
    """The current round: per-player scores and match totals, the foundations with each
    card's owner, the events (with their ``seq`` and corrections), rulings and reviews.

    A player's ``total`` is the match's (:func:`match_view`'s ``totals``): the closed rounds,
    and this one once it has ended, not while it is under way (its score is not settled
    before the call and the Nertz counts); ``counted_rounds`` says how many rounds it counts.

    When the round has a back count (:func:`audit_view`, under ``"audit"``), the players'
    ``foundation``, ``nertz_left``, ``score`` and ``total`` and the ``result`` are the
    count's (the rules score by the back), and each player also carries ``live_foundation``
    and ``live_score`` (``None`` without a count)."""
    with live.lock:
        assert live.table is not None
        rd = live.current
        replay = live.round.replay()
        res = replay.result
        rec = live.reconciliation(rd)
        scores = live.round_scores(rd)
        match = live.match()
        totals = match.totals  # the rounds the match counts: this one once it has ended
        counted_owners = {
            live.table.owner_of(ev["player"]) for _, ev in live.effective_events(rd) if ev.get("type") == "nertz_left"
        }
        if rd.audit is not None and rd.audit.data.get("nertz_left"):
            counted_owners |= {live.table.owner_of(n) for n in rd.audit.data["nertz_left"]}
        players = []
        for p in live.table.players:
            s = res.players[p.name]
            o = rec.owners[p.name] if rec is not None else None
            players.append(
                {
                    "name": p.name,
                    "back": p.back,
                    "foundation": o.audit if o is not None else s.foundation,
                    "nertz_left": o.nertz_left if o is not None else s.nertz_left,
                    "nertz_known": p.name in counted_owners,
                    "score": scores[p.name],
                    "called": res.caller == p.name,
                    "total": totals[p.name],
                    "live_foundation": s.foundation if o is not None else None,
                    "live_score": o.live_score if o is not None else None,
                }
            )
        piles = []
        for number, pile in sorted(replay.foundations.piles.items()):
            top = pile.top
            piles.append(
                {
                    "pile": number,
                    "top": str(top.identity) if top is not None and top.identity is not None else (str(top.card) if top else None),
                    "suit": pile.suit.value if pile.suit is not None else None,
                    "complete": pile.completed,
                    "cards": [
                        {
                            "card": str(c.card),
                            "owner": c.owner,
                            "t": c.t,
                            "as": str(c.identity) if c.card.is_joker and c.identity is not None else None,
                        }
                        for c in pile.cards
                    ],
                }
            )
        events = [
            {"seq": se.seq, "origin": se.origin, "event": se.event, "corrections": rd.corrections.get(se.seq, [])}
            for se in rd.events
        ]
        return {
            "match": live.match_no,
            "round": rd.number,
            "closed": rd.closed,
            "clock": round(live.clock(), 3),
            "speed": rd.speed,
            "source": live.source.name if live.source is not None else None,
            "source_ended": live.source_ended,
            "source_errors": live.source_errors,
            "source_error_count": live.source_error_count,
            "ended": res.ended,
            "end_t": res.end_t,
            "caller": res.caller,
            "target": live.table.rules.target,
            "counted_rounds": len(match.rounds),
            "players": players,
            "piles": piles,
            "events": events,
            "rulings": [r.to_json() for r in replay.rulings],
            "reviews": live.reviews(),
            "result": live.scored_result(rd),
            "audit": audit_view(live),
        }


def match_view(live: LiveReferee) -> dict[str, Any]:
    """The match: every counted round's scores, totals, progress, winner and settlement."""
    with live.lock:
        m = live.match()
        closed = sum(1 for r in live.rounds if r.closed)
        return {
            "match": live.match_no,
            "players": list(m.players),
            "target": m.target,
            "rounds": m.rounds,
            "current_counted": len(m.rounds) > closed,
            "totals": m.totals,
            "rounds_won": m.rounds_won,
            "over": m.is_over,
            "winner": m.winner,
            "leaders": m.leaders,
            "settlement": m.settlement(),
        }


def match_csv(live: LiveReferee) -> str:
    """The match history as CSV: one row per round, a total row, then the settlement."""
    mv = match_view(live)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["round", *mv["players"]])
    for i, r in enumerate(mv["rounds"], start=1):
        w.writerow([i, *(r[n] for n in mv["players"])])
    w.writerow(["total", *(mv["totals"][n] for n in mv["players"])])
    if mv["winner"]:
        w.writerow([])
        w.writerow(["pays", "to", "amount"])
        for n, amount in mv["settlement"].items():
            w.writerow([n, mv["winner"], amount])
    return buf.getvalue()


def match_export(live: LiveReferee) -> dict[str, Any]:
    """The match as one JSON object: table, match summary, and every round's events,
    corrections and rulings (enough to replay it with ``nertz score``), its back counts
    (``audits``: the stored data with ``seq``; the last one scores) and its ``result`` as
    scored (the count's when there is one, with the live figures under ``live``)."""
    with live.lock:
        rounds = []
        for rd in live.rounds:
            game = live.round_of(rd)
            rounds.append(
                {
                    "round": rd.number,
                    "closed": rd.closed,
                    "events": [se.event for se in rd.events],
                    "corrections": [c for cs in rd.corrections.values() for c in cs],
                    "effective_events": [ev for _, ev in live.effective_events(rd)],
                    "rulings": [r.to_json() for r in game.rulings],
                    "audits": [{"seq": a.seq, "origin": a.origin, **a.data} for a in rd.audits],
                    "result": live.scored_result(rd),
                }
            )
        return {"table": live.table.to_dict(), "match": match_view(live), "rounds": rounds}  # type: ignore[union-attr]
