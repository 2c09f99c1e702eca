"""The web page in a real browser: Playwright driving Debian's chromium (headless).

CI installs chromium with apt-get (``.ci/run``); without it this test fails with a message
saying so, rather than skipping.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from nertz.referee.service.app import create_app
from nertz.referee.service.live import LiveReferee
from nertz.referee.store import EventStore

from conftest import make_table

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """The app served by uvicorn in a thread on a free loopback port; yields the base URL."""
    yield from _serve(LiveReferee(EventStore(tmp_path / "ref.db"), make_table(("red", "blue", "green"))))


def _serve(live: LiveReferee, token: str | None = None) -> Iterator[str]:
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(create_app(live, token=token), log_level="warning", access_log=False)
    srv = uvicorn.Server(config)
    th = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    th.start()
    deadline = time.monotonic() + 20
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert srv.started, "uvicorn did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        th.join(timeout=10)
        sock.close()


def _post(base: str, path: str, body: Any) -> Any:
    req = urllib.request.Request(
        base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def _need_chromium() -> None:
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: the browser test drives Debian's chromium "
            "(install it with `apt-get install -y chromium`; .ci/run does)"
        )


@contextmanager
def browser_page(url: str, init_script: str | None = None,
                 console: list[str] | None = None) -> Iterator[tuple[Any, list[str]]]:
    """A page of headless chromium (1280 x 900) opened at ``url``, with ``init_script`` run
    before the page's own; yields ``(page, errors)``, ``errors`` collecting the page's script
    errors; ``console``, when given, collects its console messages (``"type: text"``) from the
    first load on. The browser is closed after. Fails (not skips) without chromium."""
    _need_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            if init_script is not None:
                page.add_init_script(init_script)
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            if console is not None:
                page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
            page.goto(url)
            yield page, errors
        finally:
            browser.close()


def test_posted_events_reach_the_scoreboard_and_the_nertz_button_ends_the_round(server: str) -> None:
    from playwright.sync_api import expect

    # record what the page would say (headless chromium has no voices)
    spoken = ("window.__spoken = [];"
              "window.SpeechSynthesisUtterance = function (text) { this.text = text; };"
              "Object.defineProperty(window, 'speechSynthesis', {configurable: true,"
              " value: {speak: (u) => window.__spoken.push(u.text), cancel: () => {}}});")
    with browser_page(server + "/", init_script=spoken) as (page, errors):
        red = page.locator('.player[data-player="red"] .score')
        blue = page.locator('.player[data-player="blue"] .score')
        expect(red).to_have_text("0")
        expect(page.locator("#conn.live")).to_have_count(1)  # the WebSocket is up

        for ev in (  # no "t": the service stamps them with the round clock, as a live source would
            {"type": "play", "player": "red", "card": "AS", "pile": 1},
            {"type": "play", "player": "red", "card": "2S", "pile": 1},
            {"type": "play", "player": "blue", "card": "AH", "pile": 2},
            {"type": "play", "player": "blue", "card": "3H", "pile": 2},  # wrong rank
            {"type": "nertz_left", "player": "blue", "count": 2},
        ):
            _post(server, "/api/events", ev)
        expect(red).to_have_text("2")
        expect(blue).to_have_text("-3")
        expect(page.locator('.pile[data-pile="1"] .card')).to_have_text("2♠")
        expect(page.locator('.pile[data-pile="1"] .dot')).to_have_count(2)
        expect(page.locator("#log")).to_contain_text("blue, take back your 3H")
        page.wait_for_function("window.__spoken.length > 0")
        assert page.evaluate("window.__spoken") == [
            "Blue, take back your three of hearts: pile 2 shows ace of hearts and takes two of hearts"
        ]
        # muted (and remembered), nothing more is said
        page.locator("#mute").check()
        assert page.evaluate("localStorage.getItem('nertz-mute')") == "1"
        _post(server, "/api/events", {"type": "play", "player": "green", "card": "5C", "pile": 3})
        expect(page.locator("#log")).to_contain_text("green, take back your 5C")
        assert len(page.evaluate("window.__spoken")) == 1

        page.get_by_role("button", name="Nertz! red").click()
        expect(page.locator("#banner")).to_have_text("Nertz! red ends the round")
        expect(page.locator('.player[data-player="red"] .called')).to_have_text("CALLED")
        expect(page.get_by_role("button", name="Nertz! blue")).to_be_disabled()
        expect(page.locator("#btn-next")).to_be_enabled()

        with urllib.request.urlopen(server + "/api/round", timeout=10) as r:
            state = json.loads(r.read())
        assert state["ended"] == "call" and state["caller"] == "red"
        assert {p["name"]: p["score"] for p in state["players"]} == {"red": 2, "blue": -3, "green": 0}

        # the back-count form: fields nobody typed in follow what still comes in after the
        # call (a camera's late report, its Nertz counts); what was typed is kept
        green_count = page.locator('#audit-inputs input[data-count="green"]')
        green_left = page.locator('#audit-inputs input[data-left="green"]')
        expect(green_count).to_have_value("0")
        page.locator('#audit-inputs input[data-count="blue"]').fill("7")
        _post(server, "/api/events", {"t": 0.01, "type": "play", "player": "green", "card": "AC", "pile": 4})
        _post(server, "/api/events", {"type": "nertz_left", "player": "green", "count": 4})
        expect(green_count).to_have_value("1")
        expect(green_left).to_have_value("4")
        expect(page.locator('#audit-inputs input[data-count="blue"]')).to_have_value("7")

        page.locator("#btn-next").click()
        expect(page.locator("#round-label")).to_have_text("Round 2")
        expect(red).to_have_text("0")
        expect(page.locator('.player[data-player="red"] .total')).to_have_text("Match 2 / 100 after round 1")
        assert errors == []


def test_a_tiles_match_total_and_the_match_tabs_total_row_agree(server: str) -> None:
    """A tile's "Match N / target" counted the round under way (its score so far, before
    anyone's Nertz count) while the Match tab's total row did not: two totals on one page.
    Both now count the rounds scored, the round under way once it has ended, and the tile
    says after which round; the Match tab says the round under way is added when it ends."""
    from playwright.sync_api import expect

    with browser_page(server + "/") as (page, errors):
        red_total = page.locator('.player[data-player="red"] .total')
        total_row = page.locator("#history tr.total")
        expect(red_total).to_have_text("Match 0 / 100 before round 1")
        _post(server, "/api/events", {"type": "play", "player": "red", "card": "AS", "pile": 1})
        _post(server, "/api/events", {"type": "play", "player": "red", "card": "2S", "pile": 1})
        expect(page.locator('.player[data-player="red"] .score')).to_have_text("2")
        expect(red_total).to_have_text("Match 0 / 100 before round 1")  # under way: not yet counted
        _post(server, "/api/round/call", {"player": "red"})
        expect(red_total).to_have_text("Match 2 / 100 after round 1")
        _post(server, "/api/round/next", {})
        expect(page.locator("#round-label")).to_have_text("Round 2")
        for card in ("AH", "2H", "3H"):
            _post(server, "/api/events", {"type": "play", "player": "red", "card": card, "pile": 2})
        expect(page.locator('.player[data-player="red"] .score')).to_have_text("3")
        expect(red_total).to_have_text("Match 2 / 100 after round 1")
        bar = page.locator('.player[data-player="red"] .progress > div')
        assert bar.evaluate("e => e.style.width") == "2%"
        page.locator('.tab[data-tab="history"]').click()
        expect(total_row).to_have_text(re.compile(r"^total\s*2\s*0\s*0$"))
        expect(page.locator("#match-summary")).to_contain_text("Round 2, under way, is added when it ends.")
        _post(server, "/api/round/call", {"player": "red"})
        expect(total_row).to_have_text(re.compile(r"^total\s*5\s*0\s*0$"))
        expect(page.locator("#match-summary")).not_to_contain_text("under way")
        page.locator('.tab[data-tab="board"]').click()
        expect(red_total).to_have_text("Match 5 / 100 after round 2")
        # on a phone "after round 2" goes under the total, which is not broken across lines
        page.set_viewport_size({"width": 360, "height": 740})
        assert red_total.locator(".sum").evaluate(LINES) == 1
        assert red_total.locator(".after").evaluate(LINES) == 1
        assert errors == []


def test_a_back_count_typed_but_not_sent_survives_a_reload(server: str) -> None:
    """The back-count form after a call: what was typed and not recorded was lost on a reload
    (a phone that locked and reloaded the page, a slip of the finger); it is kept for the round
    in the tab's sessionStorage, the fields nobody typed in still follow the live round, and it
    is cleared once the count is recorded."""
    from playwright.sync_api import expect

    for ev in ({"type": "play", "player": "red", "card": "AS", "pile": 1},
               {"type": "play", "player": "blue", "card": "AH", "pile": 2}):
        _post(server, "/api/events", ev)
    _post(server, "/api/round/call", {"player": "red"})
    with browser_page(server + "/") as (page, errors):
        field = lambda kind, name: page.locator(f'#audit-inputs input[data-{kind}="{name}"]')  # noqa: E731
        expect(field("count", "blue")).to_have_value("1")
        field("count", "blue").fill("3")
        field("left", "blue").fill("5")
        field("count", "green").fill("")  # emptied: kept empty, not taken for 0 nor refilled
        page.reload()
        expect(field("count", "red")).to_have_value("1")  # untyped: the live figure
        expect(field("count", "blue")).to_have_value("3")
        expect(field("left", "blue")).to_have_value("5")
        expect(field("count", "green")).to_have_value("")
        expect(field("left", "green")).to_have_value("")
        # a late report still reaches the fields nobody typed in, not the kept ones
        _post(server, "/api/events", {"t": 0.01, "type": "play", "player": "red", "card": "AD", "pile": 3})
        _post(server, "/api/events", {"type": "nertz_left", "player": "green", "count": 4})
        expect(field("count", "red")).to_have_value("2")
        expect(field("left", "green")).to_have_value("4")
        expect(field("count", "blue")).to_have_value("3")
        expect(field("count", "green")).to_have_value("")
        field("count", "green").fill("0")
        page.locator("#audit-record").click()
        expect(page.locator('[data-testid="audit-score-blue"]')).to_have_text("-7")  # 3 - 2 x 5
        assert page.evaluate("Object.keys(sessionStorage).filter((k) => k.startsWith('nertz-audit'))") == []
        page.reload()  # the recorded count, not the draft, fills the form to count again
        expect(page.locator("#audit-form-title")).to_have_text("Count again (the latest count scores)")
        expect(field("count", "blue")).to_have_value("3")
        expect(field("count", "green")).to_have_value("0")
        expect(field("count", "red")).to_have_value("2")
        assert errors == []


def test_source_events_that_do_not_apply_are_shown_on_the_page(tmp_path: Path) -> None:
    """A source event the round refuses (a player not at the table) is in the rulings log and
    the status line, not only in a WebSocket message the page ignored."""
    from playwright.sync_api import expect

    from nertz.referee.service.sources import LogReplaySource

    log = tmp_path / "events.jsonl"
    log.write_text(json.dumps({"t": 0.0, "type": "play", "player": "zed", "card": "AS", "pile": 1}) + "\n")
    live = LiveReferee(EventStore(tmp_path / "ref.db"), make_table(("red", "blue", "green")),
                       LogReplaySource(log, speed=1000))  # not checked against the table, as a camera's report
    gen = _serve(live)
    base = next(gen)
    try:
        with browser_page(base + "/") as (page, errors):
            expect(page.locator("#log .k-source_error")).to_contain_text("not applied: unknown player 'zed'")
            expect(page.locator("#status")).to_contain_text("1 event(s) of the source not applied")
            assert errors == []
    finally:
        gen.close()


DROPPED = ("camera 0 dropped out and could not be reopened after 5 attempts 2 s apart: "
           "check the cable, power or network")  # CameraSource's SourceError, word for word


# how many lines an element's text takes on the page
LINES = ("e => { const r = document.createRange(); r.selectNodeContents(e);"
         " return new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size; }")


class _FakeCamera:
    """A live source named as the camera (``nertz serve --source 0``): reports red's AS on
    pile 1, then waits for ``let_go``; then either drops out for good, raising the
    ``SourceError`` a :class:`~nertz.vision.camera_source.CameraSource` raises after its
    reopen attempts (``drops=True``), or ends as a video file does. A later run (the next
    round) watches quietly until stopped."""

    name = "camera"
    speed = 1.0

    def __init__(self, drops: bool) -> None:
        self.drops = drops
        self.let_go = threading.Event()
        self.runs = 0

    def events(self, skip: int, clock: Any, stop: threading.Event) -> Iterator[tuple[int, dict[str, Any]]]:
        from nertz.vision.sources import SourceError

        self.runs += 1
        if self.runs > 1:
            stop.wait()
            return
        if skip <= 0:
            yield 0, {"t": 0.0, "type": "play", "player": "red", "card": "AS", "pile": 1}
        while not self.let_go.is_set():
            if stop.wait(0.05):
                return
        if self.drops:
            raise SourceError(DROPPED)

    def frame(self) -> bytes | None:
        return None


def test_a_camera_that_stops_mid_round_is_shown_once_and_the_page_keeps_working(tmp_path: Path) -> None:
    """The camera drops out for good mid-round (ee2cd1a: the service goes on; the page is told
    by ``source_error`` (stopped) then ``source_end``): the status line says the camera
    stopped and why, once; the rulings log lists it once; the camera's play before it stays on
    the scoreboard; after a reload too; events posted by hand and the Nertz button still work;
    no script error or console error."""
    from playwright.sync_api import expect

    camera = _FakeCamera(drops=True)
    live = LiveReferee(EventStore(tmp_path / "ref.db"), make_table(("red", "blue", "green")), camera)
    gen = _serve(live)
    base = next(gen)
    console: list[str] = []
    try:
        with browser_page(base + "/", console=console) as (page, errors):
            red = page.locator('.player[data-player="red"] .score')
            blue = page.locator('.player[data-player="blue"] .score')
            status = page.locator("#status")
            stopped = page.locator("#log .k-source_error")
            expect(red).to_have_text("1")  # the camera's play
            expect(page.locator("#conn.live")).to_have_count(1)
            expect(status).to_contain_text("playing")

            camera.let_go.set()  # the camera drops out while the page watches (the WebSocket's news)
            expect(status).to_contain_text("the camera stopped: " + DROPPED)
            # the flash holds the line 5 s, then the round's status says what to do
            expect(status).to_contain_text("call Nertz, declare everyone stuck or end the round", timeout=8000)
            expect(stopped).to_have_count(1)
            expect(stopped).to_have_text(re.compile(r"the camera stopped: " + re.escape(DROPPED) + "$"))
            for _ in range(2):  # as the WebSocket left it, then as a fresh load shows it
                assert status.inner_text().count("stopped") == 1
                assert "event(s) of the source not applied" not in status.inner_text()
                # the long message wraps in the status line, not the round's label beside it
                assert page.locator("#round-label").evaluate(LINES) == 1
                expect(red).to_have_text("1")
                expect(page.locator('.pile[data-pile="1"] .card')).to_have_text("A♠")
                page.wait_for_timeout(1200)  # the status line's clock ticks: still said once
                assert status.inner_text().count("stopped") == 1
                page.reload()
                expect(stopped).to_have_count(1)
                expect(status).to_contain_text("the camera stopped: " + DROPPED)

            # on a phone the message takes the header's width, under "Nertz Round 1"
            page.set_viewport_size({"width": 360, "height": 740})
            assert page.locator("#round-label").evaluate(LINES) == 1
            assert page.locator("#status").bounding_box()["width"] > 300
            assert page.evaluate("document.documentElement.scrollWidth") == 360
            page.set_viewport_size({"width": 1280, "height": 900})

            # the page goes on without the camera
            _post(base, "/api/events", {"type": "play", "player": "blue", "card": "AH", "pile": 2})
            expect(blue).to_have_text("1")
            page.get_by_role("button", name="Nertz! red").click()
            expect(page.locator("#banner")).to_have_text("Nertz! red ends the round")
            expect(status).to_contain_text("red called Nertz")
            expect(stopped).to_have_count(1)  # still in the rulings
            expect(red).to_have_text("1")
            page.locator("#btn-next").click()  # the next round watches the camera again
            expect(page.locator("#round-label")).to_have_text("Round 2")
            expect(status).to_contain_text("playing · ")
            expect(status).to_contain_text("camera")
            expect(stopped).to_have_count(0)
            assert "stopped" not in status.inner_text()
            assert errors == []
            assert [m for m in console if m.startswith(("error", "warning"))] == []
    finally:
        camera.let_go.set()
        gen.close()


def test_a_camera_whose_video_ends_is_no_false_alarm(tmp_path: Path) -> None:
    """A source that ends as a video does (no failure): the status line says the video has
    ended, and nothing on the page says the camera stopped."""
    from playwright.sync_api import expect

    camera = _FakeCamera(drops=False)
    camera.let_go.set()
    live = LiveReferee(EventStore(tmp_path / "ref.db"), make_table(("red", "blue", "green")), camera)
    gen = _serve(live)
    base = next(gen)
    console: list[str] = []
    try:
        with urllib.request.urlopen(base + "/api/round", timeout=10) as r:
            state = json.loads(r.read())
        deadline = time.monotonic() + 20
        while not state["source_ended"] and time.monotonic() < deadline:
            time.sleep(0.05)
            with urllib.request.urlopen(base + "/api/round", timeout=10) as r:
                state = json.loads(r.read())
        assert state["source_ended"] and state["source_errors"] == []
        with browser_page(base + "/", console=console) as (page, errors):
            expect(page.locator('.player[data-player="red"] .score')).to_have_text("1")
            expect(page.locator("#status")).to_contain_text("the video has ended")
            page.wait_for_timeout(1200)
            assert "stopped" not in page.locator("body").inner_text()
            expect(page.locator("#log .k-source_error")).to_have_count(0)
            assert errors == []
            assert [m for m in console if m.startswith(("error", "warning"))] == []
    finally:
        gen.close()


def test_a_flash_on_the_status_line_is_not_wiped_by_the_clock_tick(tmp_path: Path) -> None:
    """A message flashed on the status line (here the refusal of a request without the table's
    token) stays its 5 s: the once-a-second clock tick of a round under way wrote the status
    over it within a second, so a refusal or a "back count recorded" was hardly seen."""
    from playwright.sync_api import expect

    live = LiveReferee(EventStore(tmp_path / "ref.db"), make_table(("red", "blue", "green")))
    gen = _serve(live, token="the-table-token")
    base = next(gen)
    try:
        with browser_page(base + "/") as (page, errors):  # opened without the token
            status = page.locator("#status")
            expect(status).to_contain_text("playing")
            page.get_by_role("button", name="Nertz! red").click()
            expect(status).to_contain_text("token")
            page.wait_for_timeout(2500)  # two ticks of the round clock
            expect(status).to_contain_text("token")
            expect(status).not_to_contain_text("playing")
            expect(status).to_contain_text("playing", timeout=6000)  # back to the round's status after 5 s
    finally:
        gen.close()


def test_the_review_queue_of_a_closed_round_offers_no_answer_the_service_refuses(tmp_path: Path) -> None:
    """When the match is over (its last round closed), the plays still listed for review can
    no longer be corrected (409 "the round is closed"): their Confirm, Change owner and
    Reject buttons were enabled, and a click only flashed the refusal."""
    from playwright.sync_api import expect

    live = LiveReferee(EventStore(tmp_path / "ref.db"), make_table(("red", "blue", "green"), target=2))
    gen = _serve(live)
    base = next(gen)
    console: list[str] = []
    try:
        _post(base, "/api/events", {"type": "play", "player": "red", "card": "AS", "pile": 1})
        _post(base, "/api/events", {"type": "play", "player": "red", "card": "2S", "pile": 1, "confidence": 0.5})
        with browser_page(base + "/", console=console) as (page, errors):
            page.locator('.tab[data-tab="review"]').click()
            review = page.locator(".review")
            expect(review).to_have_count(1)
            expect(review.get_by_role("button", name="Confirm")).to_be_enabled()  # the round is open
            _post(base, "/api/round/call", {"player": "red"})
            expect(review.get_by_role("button", name="Confirm")).to_be_enabled()  # ended, not closed: still answered
            _post(base, "/api/round/next", {})  # red reaches the target: the match is over
            expect(page.locator("#status")).to_have_text("red wins the match")
            expect(review).to_have_count(1)  # still shown, for the record
            for name in ("Confirm", "Change owner", "Reject"):
                expect(review.get_by_role("button", name=name)).to_be_disabled()
            expect(review.locator("select")).to_be_disabled()
            expect(page.locator("#tab-review")).to_contain_text("The match is over: these can no longer be answered")
            assert errors == []
            assert [m for m in console if m.startswith("error")] == []
    finally:
        gen.close()


def test_a_click_while_the_service_is_down_says_so(tmp_path: Path) -> None:
    """With the service stopped (restarted, the machine asleep), a button's request cannot
    be sent: the click did nothing visible (the fetch's network error was swallowed, the
    status line went on saying "playing"). Now the status line says the referee is out of
    reach."""
    from playwright.sync_api import expect

    live = LiveReferee(EventStore(tmp_path / "ref.db"), make_table(("red", "blue", "green")))
    gen = _serve(live)
    base = next(gen)
    try:
        with browser_page(base + "/") as (page, errors):
            status = page.locator("#status")
            expect(status).to_contain_text("playing")
            expect(page.locator("#conn.live")).to_have_count(1)
            gen.close()  # the service stops
            expect(page.locator("#conn.live")).to_have_count(0)
            page.get_by_role("button", name="Nertz! red").click()
            expect(status).to_contain_text("no connection to the referee service")
            assert errors == []
    finally:
        gen.close()


# the bounding boxes of the match chart's labels that overlap another's (pairs of texts)
CHART_OVERLAPS = ("() => { const t = [...document.querySelectorAll('#chart text')].map((e) => [e.textContent, e.getBoundingClientRect()]);"
                  " const out = []; for (let i = 0; i < t.length; i++) for (let j = i + 1; j < t.length; j++) {"
                  " const a = t[i][1], b = t[j][1];"
                  " if (Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1)"
                  " out.push(t[i][0] + ' / ' + t[j][0]); } return out; }")


def test_the_match_chart_labels_do_not_overlap(tmp_path: Path) -> None:
    """The name and total written at the end of each player's line in the match chart: players
    with equal or close totals (every player at the start of a match, 2 and 1 points after a
    round) had their labels written over each other, unreadable; they are now moved apart."""
    from playwright.sync_api import expect

    live = LiveReferee(EventStore(tmp_path / "ref.db"), make_table(("red", "blue", "green")))
    gen = _serve(live)
    base = next(gen)
    try:
        with browser_page(base + "/") as (page, errors):
            page.locator('.tab[data-tab="history"]').click()
            expect(page.locator("#chart text", has_text="green 0")).to_have_count(1)
            for width in (1280, 360):
                page.set_viewport_size({"width": width, "height": 800})
                assert page.evaluate(CHART_OVERLAPS) == []
            page.set_viewport_size({"width": 1280, "height": 900})
            for ev in ({"type": "play", "player": "red", "card": "AS", "pile": 1},
                       {"type": "play", "player": "red", "card": "2S", "pile": 1},
                       {"type": "play", "player": "green", "card": "AH", "pile": 2}):
                _post(base, "/api/events", ev)
            _post(base, "/api/round/call", {"player": "red"})
            _post(base, "/api/round/next", {})
            expect(page.locator("#chart text", has_text="red 2")).to_have_count(1)
            expect(page.locator("#chart text", has_text="green 1")).to_have_count(1)
            for width in (1280, 360):
                page.set_viewport_size({"width": width, "height": 800})
                assert page.evaluate(CHART_OVERLAPS) == []
            assert errors == []
    finally:
        gen.close()


SIX = ("Margaret", "Christopher", "Bob", "Anne-Sophie", "Maximilian", "Jo")


def test_the_match_history_of_six_players_fits_a_phone(tmp_path: Path) -> None:
    """On a phone (360 px) the match tab's round-by-round table of six players is wider than
    the screen: it pushed the whole page sideways (755 px to scroll); it now scrolls in its
    own box, the page keeps the screen's width."""
    from playwright.sync_api import expect

    live = LiveReferee(EventStore(tmp_path / "ref.db"), make_table(SIX))
    gen = _serve(live)
    base = next(gen)
    try:
        with browser_page(base + "/") as (page, errors):
            page.set_viewport_size({"width": 360, "height": 740})
            page.locator('.tab[data-tab="history"]').click()
            expect(page.locator("#history th", has_text="Maximilian")).to_have_count(1)
            assert page.evaluate("document.documentElement.scrollWidth") == 360
            box = page.locator("#history").evaluate("e => { const s = e.parentElement; return [s.clientWidth, s.scrollWidth]; }")
            assert box[0] <= 360 < box[1]  # the table scrolls inside its box
            assert errors == []
    finally:
        gen.close()


def test_long_player_names_fit_their_tiles_on_a_phone(tmp_path: Path) -> None:
    """On a phone (360 px, two tiles a row) a long name ("Christopher") squeezed the colour
    chip beside it to a sliver (7 px of 22), the one mark of the player's back colour by the
    name; the chip keeps its size and the name wraps inside the tile."""
    from playwright.sync_api import expect

    names = ("Christopher", "Bob", "Anne-Sophie Lefebvre", "Maximiliano")
    live = LiveReferee(EventStore(tmp_path / "ref.db"), make_table(names))
    gen = _serve(live)
    base = next(gen)
    try:
        with browser_page(base + "/") as (page, errors):
            page.set_viewport_size({"width": 360, "height": 740})
            expect(page.locator(".player")).to_have_count(4)
            # measured in one go: the scoreboard is drawn afresh on every update
            fits = page.evaluate("""() => [...document.querySelectorAll('.player')].map((t) => {
                const chip = t.querySelector('.chip').getBoundingClientRect();
                const name = t.querySelector('.name > span:not(.chip)');
                return [t.dataset.player, chip.width, name.getBoundingClientRect().right <= t.getBoundingClientRect().right,
                        name.scrollWidth <= name.clientWidth]; })""")
            bob = next(f for f in fits if f[0] == "Bob")
            for n, chip, inside, whole in fits:
                assert chip >= bob[1] - 0.5 and inside and whole, (n, chip, inside, whole)
            assert page.evaluate("document.documentElement.scrollWidth") == 360
            assert errors == []
    finally:
        gen.close()


# the caller's tile measured in one go (the scoreboard is drawn afresh on every update): how
# many lines the name's text and the CALLED badge's take, whether the badge lies inside the
# tile, and the widths of the chips beside the caller's and blue's names
CALLER_TILE = """(caller) => {
    const lines = (n) => { const r = document.createRange(); r.selectNodeContents(n);
        return new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size; };
    const tile = document.querySelector(`.player[data-player="${caller}"]`);
    const w = document.createTreeWalker(tile.querySelector('.name'), NodeFilter.SHOW_TEXT);
    let n, nameLines = -1;
    while ((n = w.nextNode())) if (n.data.trim() === caller) nameLines = lines(n);
    const badge = tile.querySelector('.called');
    const chip = (t) => t.querySelector('.chip').getBoundingClientRect().width;
    return { name: nameLines, badge: lines(badge.firstChild),
             inside: badge.getBoundingClientRect().right <= tile.getBoundingClientRect().right,
             chip: chip(tile), other_chip: chip(document.querySelector('.player[data-player="blue"]')) };
}"""


@pytest.mark.parametrize("caller", ["red", "Sophie"])
def test_the_callers_name_and_badge_are_not_broken_on_a_phone(tmp_path: Path, caller: str) -> None:
    """On a phone (360 px, two tiles a row) the caller's tile showed "re / d" and "CALLE / D":
    the CALLED badge beside the name was squeezed with it, both broken mid-word. The badge
    now goes under the name when the two do not fit on one line; neither is broken."""
    from playwright.sync_api import expect

    live = LiveReferee(EventStore(tmp_path / "ref.db"), make_table((caller, "blue", "green")))
    gen = _serve(live)
    base = next(gen)
    try:
        _post(base, "/api/events", {"type": "play", "player": caller, "card": "AS", "pile": 1})
        _post(base, "/api/round/call", {"player": caller})
        with browser_page(base + "/") as (page, errors):
            page.set_viewport_size({"width": 360, "height": 740})
            expect(page.locator(f'.player[data-player="{caller}"] .called')).to_have_text("CALLED")
            m = page.evaluate(CALLER_TILE, caller)
            assert (m["name"], m["badge"], m["inside"]) == (1, 1, True), m
            assert m["chip"] >= m["other_chip"] - 0.5, m
            assert page.evaluate("document.documentElement.scrollWidth") == 360
            assert errors == []
    finally:
        gen.close()


def test_a_reload_opens_the_tab_that_was_open(tmp_path: Path) -> None:
    """A reload (a phone waking up, F5) always opened the scoreboard, whichever tab was open:
    the open tab is now named in the address (``#review``, ``#history``, ``#camera``; none for
    the scoreboard) and opened again, the camera's calibration set up with it; a link with
    ``?token=`` keeps the tab it names when the token is taken out of the address."""
    from playwright.sync_api import expect

    live = LiveReferee(EventStore(tmp_path / "ref.db"), make_table(("red", "blue", "green")))
    gen = _serve(live, token="the-table-token")
    base = next(gen)
    try:
        with browser_page(base + "/?token=the-table-token#history") as (page, errors):
            expect(page.locator("#tab-history")).to_be_visible()
            expect(page.locator(".tab.active")).to_have_attribute("data-tab", "history")
            assert page.url == base + "/#history"
            expect(page.locator("#history tr.total")).to_have_count(1)
            page.locator('.tab[data-tab="review"]').click()
            assert page.url == base + "/#review"
            page.reload()
            expect(page.locator("#tab-review")).to_be_visible()
            expect(page.locator("#tab-board")).to_be_hidden()
            page.locator('.tab[data-tab="camera"]').click()
            page.reload()
            expect(page.locator("#tab-camera")).to_be_visible()
            expect(page.locator("#cal-mode option")).to_have_count(7)  # the calibration is set up: 1 + 3 zones + 3 backs
            assert page.locator("#video").get_attribute("src") == "/api/video/stream.mjpg"
            page.locator('.tab[data-tab="board"]').click()
            assert page.url == base + "/"
            assert page.locator("#video").get_attribute("src") == ""
            page.reload()
            expect(page.locator("#tab-board")).to_be_visible()
            expect(page.locator("#conn.live")).to_have_count(1)  # the token was kept: the WebSocket is up
            assert errors == []
    finally:
        gen.close()


def test_times_on_the_page_are_minutes_and_seconds_throughout(server: str) -> None:
    """The rulings listed their times in seconds ("59.1s", "120.0s") while the status line
    gave the clock in minutes and seconds ("0:59"): two formats for one round. Every time on
    the page is now minutes:seconds, with tenths where plays need telling apart (the rulings,
    the moment of the call): "0:59.1"."""
    from playwright.sync_api import expect

    with browser_page(server + "/") as (page, errors):
        expect(page.locator("#status")).to_have_text(re.compile(r"^playing · 0:\d\d$"))
        _post(server, "/api/events", {"t": 58.0, "type": "play", "player": "red", "card": "AS", "pile": 1})
        # two plays of the 2S on pile 1 a third of a second apart: the tenths tell which came first
        _post(server, "/api/events", {"t": 59.14, "type": "play", "player": "red", "card": "2S", "pile": 1})
        _post(server, "/api/events", {"t": 59.43, "type": "play", "player": "blue", "card": "2S", "pile": 1})
        _post(server, "/api/events", {"t": 119.97, "type": "play", "player": "green", "card": "AH", "pile": 2})
        _post(server, "/api/events", {"t": 125.0, "type": "call", "player": "red"})
        expect(page.locator("#status")).to_have_text("red called Nertz at 2:05.0")
        times = page.locator("#log .t")
        expect(times).to_have_count(8)  # four plays, blue's taken back, the call, two Nertz counts missing
        assert times.all_text_contents() == ["2:05.0"] * 3 + ["2:00.0", "0:59.4", "0:59.4", "0:59.1", "0:58.0"]
        expect(page.locator("#log li").nth(5)).to_contain_text("blue, take back your 2S")
        expect(page.locator("#log li").nth(6)).to_contain_text("red's 2S stands on pile 1")
        assert errors == []


def test_a_round_ended_without_a_call_says_how_in_plain_words(server: str) -> None:
    """A round ended with the "End round" button said "round over (ended)" on the status line,
    and one ended by everyone being stuck twice "round over (stuck)": the service's code word in
    brackets. They now say what happened as the call does ("red called Nertz at 0:59.1"), in
    the words of the round's ruling: "round ended with no caller at 0:03.2"."""
    from playwright.sync_api import expect

    with browser_page(server + "/") as (page, errors):
        status = page.locator("#status")
        expect(status).to_contain_text("playing")
        page.on("dialog", lambda d: d.accept())  # "End the round now with no caller?"
        page.locator("#btn-end").click()
        expect(status).to_have_text(re.compile(r"^round ended with no caller at 0:\d\d\.\d$"))
        expect(page.locator("#banner")).to_have_text("The round is over")
        page.locator("#btn-next").click()
        expect(page.locator("#round-label")).to_have_text("Round 2")
        page.locator("#btn-stuck").click()  # the first time: everyone turns the waste over
        expect(page.locator("#log")).to_contain_text("everyone stuck: turn your wastes over and play on")
        expect(status).to_contain_text("playing")
        page.locator("#btn-stuck").click()  # the second: the round ends
        expect(status).to_have_text(re.compile(r"^everyone stuck: round ended with no caller at 0:\d\d\.\d$"))
        expect(page.locator("#banner")).to_have_text("Everyone stuck: the round is over")
        assert errors == []


# the characters of an element's text that the browser draws as the missing-glyph box (no
# installed font has them): each drawn on a canvas in the element's own font and compared
# with U+0378, a code point no font draws (unassigned)
BOXED_CHARS = """e => {
  const font = getComputedStyle(e).font;
  const c = document.createElement('canvas'); c.width = 160; c.height = 120;
  const g = c.getContext('2d');
  const img = (ch) => { g.clearRect(0, 0, c.width, c.height); g.font = font; g.textBaseline = 'top';
    g.fillText(ch, 10, 10); return g.getImageData(0, 0, c.width, c.height).data.join(','); };
  const box = img('\\u0378');
  if (img('W') === box) return ['the missing-glyph box cannot be told from a letter'];
  return [...new Set(e.textContent)].filter((ch) => ch.trim() && img(ch) === box);
}"""


def test_the_match_over_banner_draws_without_an_emoji_font(tmp_path: Path) -> None:
    """The match-over banner began with the trophy emoji, which a browser without an emoji font
    (headless chromium here, many Linux desktops) draws as an empty box: "[] red wins the
    match!". The trophy is now drawn by CSS, and every character of the banner is one an
    installed font draws."""
    from playwright.sync_api import expect

    live = LiveReferee(EventStore(tmp_path / "ref.db"), make_table(("red", "blue", "green"), target=2))
    gen = _serve(live)
    base = next(gen)
    try:
        for card in ("AS", "2S"):
            _post(base, "/api/events", {"type": "play", "player": "red", "card": card, "pile": 1})
        _post(base, "/api/round/call", {"player": "red"})
        _post(base, "/api/round/next", {})  # red reaches the target: the match is over
        with browser_page(base + "/") as (page, errors):
            banner = page.locator("#banner")
            expect(banner).to_contain_text("red wins the match!")
            assert banner.evaluate(BOXED_CHARS) == []
            trophy = banner.locator(".trophy")
            expect(trophy).to_have_attribute("aria-hidden", "true")
            box = trophy.bounding_box()
            assert box is not None and box["width"] > 20 and box["height"] > 20, box
            # drawn: gold on the banner's dark ground, a good part of its box
            import cv2
            import numpy as np

            shot = cv2.imdecode(np.frombuffer(trophy.screenshot(), np.uint8), cv2.IMREAD_COLOR)
            gold = np.all(np.abs(shot.astype(int) - (0x66, 0xD8, 0xFF)) < 40, axis=2)  # #ffd866, BGR
            assert 0.2 < gold.mean() < 0.8, gold.mean()
            expect(banner).to_have_text("red wins the match!")
            assert errors == []
    finally:
        gen.close()
