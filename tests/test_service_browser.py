"""The web page in a real browser: Playwright driving Debian's chromium (headless).

CI installs chromium with apt-get (``.ci/run``); without it this test fails with a message
saying so, rather than skipping.
"""

from __future__ import annotations

import json
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


def _serve(live: LiveReferee) -> Iterator[str]:
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(create_app(live), log_level="warning", access_log=False)
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
def browser_page(url: str, init_script: str | None = None) -> Iterator[tuple[Any, list[str]]]:
    """A page of headless chromium (1280 x 900) opened at ``url``, with ``init_script`` run
    before the page's own; yields ``(page, errors)``, ``errors`` collecting the page's script
    errors. The browser is closed after. Fails (not skips) without chromium."""
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
        expect(page.locator('.player[data-player="red"] .total')).to_have_text("Match 2 / 100")
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
