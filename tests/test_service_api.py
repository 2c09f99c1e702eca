"""The referee service's API and WebSocket (FastAPI TestClient, no network, no real server)."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from nertz.referee.files import read_table
from nertz.referee.service.app import create_app
from nertz.referee.service.live import LiveReferee
from nertz.referee.service.sources import LogReplaySource
from nertz.referee.store import EventStore

from conftest import make_table

EXAMPLE = Path(__file__).resolve().parents[1] / "datasets" / "examples" / "club-night"


def _client(tmp_path: Path, token: str | None = None, source: Any = None, **rules: Any) -> TestClient:
    live = LiveReferee(EventStore(tmp_path / "ref.db"), make_table(("red", "blue", "green"), **rules), source)
    return TestClient(create_app(live, token=token))


def _post(c: TestClient, *events: dict[str, Any], **kw: Any) -> list[dict[str, Any]]:
    out = []
    for ev in events:
        r = c.post("/api/events", json=ev, **kw)
        assert r.status_code == 200, r.text
        out.append(r.json())
    return out


def play(t: float, player: str, card: str, pile: int, **extra: Any) -> dict[str, Any]:
    return {"type": "play", "t": t, "player": player, "card": card, "pile": pile, **extra}


def test_get_round_starts_empty(tmp_path: Path) -> None:
    with _client(tmp_path) as c:
        body = c.get("/api/round").json()
    assert (body["match"], body["round"], body["ended"], body["closed"]) == (1, 1, None, False)
    assert [p["name"] for p in body["players"]] == ["red", "blue", "green"]
    assert all(p["score"] == 0 and p["total"] == 0 for p in body["players"])
    assert body["piles"] == [] and body["events"] == []
    assert body["source_ended"] is False  # no source at all: nothing has ended


def test_posted_plays_are_ruled_and_a_call_ends_the_round(tmp_path: Path) -> None:
    with _client(tmp_path) as c:
        _post(
            c,
            play(1.0, "red", "AS", 1),
            play(2.0, "blue", "2S", 1),
            play(3.0, "green", "3H", 1),  # wrong suit: rejected
            {"type": "nertz_left", "t": 4.0, "player": "blue", "count": 3},
            {"type": "nertz_left", "t": 4.0, "player": "green", "count": 5},
            {"type": "call", "t": 5.0, "player": "red"},
        )
        body = c.get("/api/round").json()
        match = c.get("/api/match").json()
    assert body["ended"] == "call" and body["caller"] == "red" and body["end_t"] == 5.0
    scores = {p["name"]: (p["foundation"], p["nertz_left"], p["score"], p["called"]) for p in body["players"]}
    assert scores == {"red": (1, 0, 1, True), "blue": (1, 3, -5, False), "green": (0, 5, -10, False)}
    assert body["piles"] == [
        {
            "pile": 1,
            "top": "2S",
            "suit": "S",
            "complete": False,
            "cards": [
                {"card": "AS", "owner": "red", "t": 1.0, "as": None},
                {"card": "2S", "owner": "blue", "t": 2.0, "as": None},
            ],
        }
    ]
    rejected = [r for r in body["rulings"] if r["kind"] == "rejected"]
    assert [(r["player"], r["card"], r["reason"]) for r in rejected] == [("green", "3H", "wrong_suit")]
    assert match["rounds"] == [{"red": 1, "blue": -5, "green": -10}] and match["current_counted"]


def test_call_button_fills_in_the_round_clock(tmp_path: Path) -> None:
    with _client(tmp_path) as c:
        _post(c, play(0.0, "red", "AS", 1))
        r = c.post("/api/round/call", json={"player": "blue"})
        assert r.status_code == 200
        t = r.json()["detail"]["event"]["t"]
        body = c.get("/api/round").json()
    assert 0 <= t < 30
    assert body["ended"] == "call" and body["caller"] == "blue"


def test_websocket_receives_every_event_and_score_in_order(tmp_path: Path) -> None:
    with _client(tmp_path) as c, c.websocket_connect("/ws") as ws:
        hello = ws.receive_json()
        assert hello["type"] == "hello" and hello["state"]["round"] == 1
        posted = _post(c, play(1.0, "red", "AS", 1), play(2.0, "blue", "2S", 1), {"type": "call", "t": 3.0, "player": "red"})
        msgs = []
        while not any(m["type"] == "ruling" and m["ruling"]["kind"] == "round_end" for m in msgs):
            msgs.append(ws.receive_json())
    assert [m["n"] for m in msgs] == sorted(m["n"] for m in msgs)
    assert len({m["n"] for m in msgs}) == len(msgs)
    events = [m for m in msgs if m["type"] == "event"]
    assert [m["seq"] for m in events] == [p["detail"]["seq"] for p in posted]
    assert [m["event"]["type"] for m in events] == ["play", "play", "call"]
    scores = [m["result"]["players"]["red"]["score"] for m in msgs if m["type"] == "score"]
    assert scores[:2] == [1, 1] and [m["result"]["players"]["blue"]["score"] for m in msgs if m["type"] == "score"][:2] == [0, 1]
    kinds = [m["ruling"]["kind"] for m in msgs if m["type"] == "ruling"]
    assert kinds == ["accepted", "accepted", "round_end"]
    # each ruling follows the event it rules on
    order = [m["type"] for m in msgs]
    assert order[:3] == ["event", "ruling", "score"]


def test_a_late_report_withdraws_a_ruling_on_the_websocket(tmp_path: Path) -> None:
    with _client(tmp_path) as c, c.websocket_connect("/ws") as ws:
        ws.receive_json()
        _post(c, play(7.0, "green", "AD", 3), play(9.14, "red", "2D", 3))
        _post(c, play(9.10, "green", "2D", 3))  # reported late, but it was first
        msgs = []
        while not any(m["type"] == "ruling" and m["ruling"]["kind"] == "collision" for m in msgs):
            msgs.append(ws.receive_json())
    withdrawn = [m["ruling"] for m in msgs if m["type"] == "ruling_withdrawn"]
    assert [(r["kind"], r["player"], r["card"]) for r in withdrawn] == [("accepted", "red", "2D")]
    last = [m["ruling"] for m in msgs if m["type"] == "ruling"][-3:]
    assert [(r["kind"], r.get("player")) for r in last] == [("accepted", "green"), ("rejected", "red"), ("collision", None)]


def test_sample_replay_source_scores_the_example_round(tmp_path: Path) -> None:
    live = LiveReferee(
        EventStore(tmp_path / "ref.db"), read_table(EXAMPLE / "table.json"), LogReplaySource(EXAMPLE / "events.jsonl", speed=2000)
    )
    with TestClient(create_app(live)) as c:
        deadline = time.monotonic() + 20
        while len(c.get("/api/round").json()["events"]) < 45 and time.monotonic() < deadline:
            time.sleep(0.05)
        while not c.get("/api/round").json()["source_ended"] and time.monotonic() < deadline:
            time.sleep(0.05)  # the page says so once the log has played to its end
        body = c.get("/api/round").json()
    assert body["source_ended"]
    expected = LogReplaySource(EXAMPLE / "events.jsonl").contract_events
    assert len(expected) == 45  # 46 lines less the ruling line
    assert [e["event"] for e in body["events"]] == expected  # in log order, none twice
    assert {p["name"]: p["score"] for p in body["players"]} == {"red": 12, "blue": 2, "green": -4}
    assert body["caller"] == "red"
    assert all(e["origin"] == "source:log-replay" for e in body["events"])


@pytest.mark.parametrize(
    "body",
    [
        {"type": "dance", "player": "red"},
        {"type": "play", "player": "red", "card": "1S", "pile": 1},
        {"type": "play", "player": "red", "card": "AS", "pile": -1},
        {"type": "play", "card": "AS", "pile": 1},
        {"type": "play", "player": "red", "card": "AS", "pile": 1, "confidence": 2},
        {"type": "play", "player": "nobody", "card": "AS", "pile": 1},
        {"type": "resolve", "id": "tie:9:AS", "winner": "red"},
        {"type": "ruling", "kind": "accepted"},
        {"type": "call", "player": "red", "extra": 1},
        [1, 2],
        "call",
    ],
)
def test_invalid_events_are_422_not_500(tmp_path: Path, body: Any) -> None:
    with _client(tmp_path) as c:
        r = c.post("/api/events", json=body)
        assert r.status_code == 422, r.text
        assert c.get("/api/round").json()["events"] == []


@pytest.mark.parametrize(
    "field, value, says",
    [("pile", "1", "not the text '1'"), ("pile", True, "not true"), ("pile", 1.0, "whole number"),
     ("t", "2", "must be a number"), ("confidence", True, "must be a number")],
)
def test_event_values_must_have_their_json_types(tmp_path: Path, field: str, value: Any, says: str) -> None:
    # as in an event log (nertz score): "1" and true are no pile number (a newcomer's second
    # pass, 2026-12-07: the service stored them as pile 1)
    with _client(tmp_path) as c:
        r = c.post("/api/events", json={"type": "play", "player": "red", "card": "AS", "pile": 1, field: value})
        assert r.status_code == 422 and says in r.text, r.text
        assert c.get("/api/round").json()["events"] == []


def test_non_json_body_is_422(tmp_path: Path) -> None:
    with _client(tmp_path) as c:
        r = c.post("/api/events", content=b"{not json", headers={"content-type": "application/json"})
        assert r.status_code == 422


@pytest.mark.parametrize(
    "path, method, body",
    [
        ("/api/events", "post", b'{"t": NaN, "type": "nertz_left", "player": "blue", "count": 3}'),
        ("/api/events", "post", b'{"t": Infinity, "type": "call", "player": "blue"}'),
        ("/api/round/audit/preview", "post", b'{"counts": {"red": 1e400}}'),
        ("/api/round/audit/preview", "post", b'{"counts": {"red": NaN}}'),
        ("/api/table/calibration", "put", b'{"shared_area": [[0, 0], [1e400, 1], [5, 5]]}'),
        ("/api/round/events/1/correct", "post", b'{"action": "replace", "t": -Infinity}'),
    ],
)
def test_a_nan_or_an_infinity_in_a_body_is_422_not_500(tmp_path: Path, path: str, method: str, body: bytes) -> None:
    # Python's JSON reader takes NaN, Infinity and 1e400 (inf); the answer that names the bad
    # value must still be JSON
    with _client(tmp_path) as c:
        r = c.request(method.upper(), path, content=body, headers={"content-type": "application/json"})
        assert r.status_code == 422, r.text
        assert r.json()["detail"]
        assert c.get("/api/round").json()["events"] == []


class _Ears:
    """A source that only listens: what the live referee passes on to it (``heard``)."""

    name, speed = "ears", 1.0

    def __init__(self) -> None:
        self.heard_events: list[dict[str, Any]] = []

    def new_round(self, events: list[dict[str, Any]]) -> None:
        self.heard_events = list(events)

    def heard(self, event: dict[str, Any]) -> None:
        self.heard_events.append(event)

    def events(self, skip, clock, stop):
        return iter(())

    def frame(self) -> None:
        return None


def test_a_source_hears_the_pages_counts_and_only_the_call_that_ended_the_round(tmp_path: Path) -> None:
    # the camera counts the Nertz cards left after the call that ends the round; a false call
    # (red still has 3) must not end its watch of the play that goes on
    ears = _Ears()
    live = LiveReferee(EventStore(tmp_path / "ears.db"), make_table(("red", "blue", "green")), ears)
    for ev in ({"t": 1.0, "type": "nertz_left", "player": "red", "count": 3}, {"t": 2.0, "type": "call", "player": "red"},
               {"t": 3.0, "type": "nertz_left", "player": "blue", "count": 0}, {"t": 4.0, "type": "call", "player": "blue"}):
        live.push_event(ev)
    assert [(e["type"], e["player"]) for e in ears.heard_events] == [
        ("nertz_left", "red"), ("nertz_left", "blue"), ("call", "blue")]
    assert live.round.result.caller == "blue"


class _Eyes(_Ears):
    """A source that is told what lies on the foundations before each run (``round_piles``)."""

    name = "eyes"

    def __init__(self) -> None:
        super().__init__()
        self.piles: list[tuple[dict[int, str], int]] = []

    def round_piles(self, piles: dict[int, str], next_pile: int) -> None:
        self.piles.append((dict(piles), next_pile))


def test_a_source_started_again_mid_round_is_told_the_piles_already_down(tmp_path: Path) -> None:
    # a webcam opened again in a round under way (the service restarted) reported the cards it
    # found on the foundations as new plays, on its own pile numbers: it is told the round's
    # (corrections and take-backs applied) and the next new pile's number
    store = EventStore(tmp_path / "eyes.db")
    first = LiveReferee(store, make_table(("red", "blue", "green")), _Eyes())
    for ev in (play(1.0, "red", "AS", 1), play(2.0, "blue", "AH", 2), play(3.0, "green", "2S", 1),
               play(4.0, "red", "2H", 2), {"t": 5.0, "type": "take_back", "player": "red", "card": "2H", "pile": 2},
               play(6.0, "red", "AD", 3)):
        first.push_event(ev)
    eyes = _Eyes()
    again = LiveReferee(store, make_table(("red", "blue", "green")), eyes)
    again.start()
    deadline = time.monotonic() + 10
    while not eyes.piles and time.monotonic() < deadline:
        time.sleep(0.01)
    again.stop()
    assert eyes.piles == [({1: "2S", 2: "AH", 3: "AD"}, 4)]


def test_body_size_limit(tmp_path: Path) -> None:
    with _client(tmp_path) as c:
        big = {"type": "resolve", "id": "x" * 70_000}
        assert c.post("/api/events", json=big).status_code == 413

        def chunks():  # no Content-Length: streamed
            for _ in range(100):
                yield b" " * 1000

        assert c.post("/api/events", content=chunks(), headers={"content-type": "application/json"}).status_code == 413


def test_remote_mode_needs_the_token_for_changes_and_the_websocket(tmp_path: Path) -> None:
    with _client(tmp_path, token="s3cret-token") as c:
        assert c.get("/api/round").status_code == 200  # the scoreboard is open to all
        assert c.get("/").status_code == 200
        assert c.post("/api/events", json=play(1, "red", "AS", 1)).status_code == 401
        assert c.post("/api/events", json=play(1, "red", "AS", 1), headers={"X-Table-Token": "wrong"}).status_code == 401
        assert c.post("/api/round/call", json={"player": "red"}).status_code == 401
        assert c.post("/api/round/next").status_code == 401
        ok = c.post("/api/events", json=play(1, "red", "AS", 1), headers={"X-Table-Token": "s3cret-token"})
        assert ok.status_code == 200
        bearer = c.post("/api/events", json=play(2, "blue", "2S", 1), headers={"Authorization": "Bearer s3cret-token"})
        assert bearer.status_code == 200
        with pytest.raises(WebSocketDisconnect) as exc, c.websocket_connect("/ws") as ws:
            ws.receive_json()
        assert exc.value.code == 1008
        with c.websocket_connect("/ws?token=s3cret-token") as ws:
            assert ws.receive_json()["type"] == "hello"


def test_remote_mode_answers_401_before_judging_a_malformed_body(tmp_path: Path) -> None:
    # FastAPI decodes the body before the token dependency runs: without the token a broken body
    # must still be 401 (nothing learnt about the route), with it the usual 422
    bad = {"content": b"{not json", "headers": {"content-type": "application/json"}}
    with _client(tmp_path, token="s3cret-token") as c:
        refused = c.post("/api/events", **bad)
        assert refused.status_code == 401 and "token" in refused.json()["detail"]
        assert c.post("/api/round/call", json={"player": 3}).status_code == 401
        with_token = c.post("/api/events", content=bad["content"],
                            headers={**bad["headers"], "X-Table-Token": "s3cret-token"})
        assert with_token.status_code == 422
        assert c.post("/api/round/audit/preview", **bad).status_code == 422  # read-only: no token needed


def test_local_mode_refuses_foreign_hosts_and_cross_site_sockets(tmp_path: Path) -> None:
    with _client(tmp_path) as c:
        assert c.get("/api/round", headers={"host": "evil.example"}).status_code == 400
        with pytest.raises(WebSocketDisconnect), c.websocket_connect("/ws", headers={"origin": "http://evil.example"}) as ws:
            ws.receive_json()
        with c.websocket_connect("/ws", headers={"origin": "http://testserver"}) as ws:
            assert ws.receive_json()["type"] == "hello"
        with pytest.raises(WebSocketDisconnect), c.websocket_connect("/ws", headers={"sec-fetch-site": "cross-site"}) as ws:
            ws.receive_json()


CROSS_FORM = {"origin": "http://evil.example", "content-type": "application/x-www-form-urlencoded"}
"""What an HTML form on a page of another site sends (no CORS preflight for it)."""
SAME_ORIGIN = {"origin": "http://testserver", "sec-fetch-site": "same-origin"}
"""What the service's own page sends with fetch() (TestClient's host is ``testserver``)."""


def _table_state(c: TestClient) -> dict[str, Any]:
    return {"round": {k: v for k, v in c.get("/api/round").json().items() if k != "clock"},
            "match": c.get("/api/match").json()}


def test_a_page_of_another_site_cannot_change_the_table(tmp_path: Path) -> None:
    # a cross-site form POST needs no preflight: any page open on the table's screen could
    # otherwise end the round, close it or start a new match
    with _client(tmp_path) as c:
        _post(c, play(1.0, "red", "AS", 1), play(2.0, "red", "2S", 1, confidence=0.5))
        before = _table_state(c)
        for path in ("/api/round/stuck", "/api/round/end", "/api/round/next", "/api/match/new",  # the body-less ones
                     "/api/round/call", "/api/events", "/api/round/audit", "/api/round/audit/preview", "/api/review/play:2",
                     "/api/round/events/2/correct"):
            r = c.post(path, content=b"x=1", headers=CROSS_FORM)
            assert r.status_code == 403, (path, r.text)
            assert "another site" in r.json()["detail"]
        r = c.post("/api/round/audit/photo", content=b"\xff\xd8",
                   headers={"origin": "http://evil.example", "content-type": "image/jpeg"})
        assert r.status_code == 403, r.text
        assert c.put("/api/table/calibration", json={}, headers={"origin": "http://evil.example"}).status_code == 403
        assert c.post("/api/round/call", json={"player": "red"}, headers={"origin": "http://evil.example"}).status_code == 403
        # Sec-Fetch-Site: cross-site is refused even without an Origin; origins that only look like ours too
        assert c.post("/api/round/end", headers={"sec-fetch-site": "cross-site"}).status_code == 403
        for origin in ("null", "http://testserver:8080", "https://testserver", "http://testserver.evil.example",
                       "http://evil.example#testserver", "http://user@testserver", "http://testserver/x", "testserver", ""):
            assert c.post("/api/round/end", headers={"origin": origin}).status_code == 403, origin
        assert _table_state(c) == before
        # the service's own page, and requests without Origin (curl, scripts), keep working
        assert c.post("/api/round/stuck", headers=SAME_ORIGIN).status_code == 200
        assert c.post("/api/round/audit/preview", json={"counts": {"red": 2, "blue": 0, "green": 0}},
                      headers=SAME_ORIGIN).status_code == 200
        assert c.post("/api/round/call", json={"player": "red"}, headers=SAME_ORIGIN).status_code == 200
        # the round has ended: another site's form still cannot close it or start a new match
        for path in ("/api/round/next", "/api/match/new"):
            assert c.post(path, content=b"x=1", headers=CROSS_FORM).status_code == 403
        state = c.get("/api/round").json()
        assert (state["match"], state["round"], state["ended"], state["closed"]) == (1, 1, "call", False)
        assert c.post("/api/round/next", headers={"origin": "http://TestServer:80"}).status_code == 200  # default port
        assert c.post("/api/round/end").status_code == 200
        assert c.post("/api/round/next", headers={"sec-fetch-site": "none"}).status_code == 200  # typed by a person
        assert c.post("/api/match/new", headers=SAME_ORIGIN).status_code == 200
        # the origin is the Host the request was sent to, port included
        assert c.post("http://127.0.0.1:8000/api/round/end", headers={"origin": "http://127.0.0.1:8000"}).status_code == 200
        assert c.post("http://[::1]:8000/api/round/next", headers={"origin": "http://[::1]:8000"}).status_code == 200
        assert c.post("http://127.0.0.1:8000/api/round/end", headers={"origin": "http://localhost:8000"}).status_code == 403


def test_the_cross_site_check_comes_before_the_token(tmp_path: Path) -> None:
    with _client(tmp_path, token="s3cret") as c:
        token = {"X-Table-Token": "s3cret"}
        r = c.post("/api/round/end", headers={**CROSS_FORM, **token})
        assert r.status_code == 403 and "another site" in r.json()["detail"]
        bad_json = {**CROSS_FORM, "content-type": "application/json"}
        assert c.post("/api/events", content=b"{not json", headers=bad_json).status_code == 403  # before the 422
        assert c.post("/api/round/end", headers=SAME_ORIGIN).status_code == 401
        assert c.post("/api/round/end", headers={**SAME_ORIGIN, **token}).status_code == 200


def test_every_state_changing_route_checks_the_origin() -> None:
    import importlib
    import pkgutil

    from fastapi.routing import APIRoute

    from nertz.referee.service import routers
    from nertz.referee.service.deps import require_same_origin, require_token

    def calls(route: APIRoute) -> set[Any]:
        found, pending = set(), list(route.dependant.dependencies)
        while pending:
            dep = pending.pop()
            found.add(dep.call)
            pending.extend(dep.dependencies)
        return found

    app = create_app(LiveReferee(EventStore(":memory:"), make_table(("red", "blue"))), start_source=False)
    routes = list(app.routes)  # the app's own, and every router module's (FastAPI wraps included ones)
    for mod in pkgutil.iter_modules(routers.__path__):
        routes += importlib.import_module(f"{routers.__name__}.{mod.name}").router.routes
    writes = [r for r in routes if isinstance(r, APIRoute) and r.methods - {"GET", "HEAD", "OPTIONS"}]
    assert len(writes) >= 12
    for route in writes:
        assert require_same_origin in calls(route), route.path
        if route.path != "/api/round/audit/preview":  # it changes nothing
            assert require_token in calls(route), route.path


def test_review_of_a_low_confidence_play(tmp_path: Path) -> None:
    with _client(tmp_path) as c:
        _post(c, play(1.0, "red", "AS", 1), play(2.0, "red", "2S", 1, confidence=0.5), play(3.0, "blue", "AH", 2, confidence=0.4))
        items = c.get("/api/review").json()
        assert [i["kind"] for i in items] == ["low_confidence", "low_confidence"]
        first, second = items
        assert first["event"]["card"] == "2S" and first["ruling"]["kind"] == "accepted"
        frame = c.get(f"/api/review/{first['id']}/frame.jpg")
        assert frame.status_code == 200 and frame.content[:2] == b"\xff\xd8"
        # it was blue's 2S, not red's
        assert c.post(f"/api/review/{first['id']}", json={"action": "change_owner", "player": "blue"}).status_code == 200
        # blue's AH was a misread: it did not happen
        assert c.post(f"/api/review/{second['id']}", json={"action": "reject"}).status_code == 200
        body = c.get("/api/round").json()
        assert c.get("/api/review").json() == []
        assert c.post(f"/api/review/{first['id']}", json={"action": "confirm"}).status_code == 404
    assert {p["name"]: p["foundation"] for p in body["players"]} == {"red": 1, "blue": 1, "green": 0}
    assert [c["owner"] for c in body["piles"][0]["cards"]] == ["red", "blue"]
    assert len(body["piles"]) == 1
    # the original events are kept, with their corrections beside them
    assert [e["event"]["player"] for e in body["events"]] == ["red", "red", "blue"]
    assert [e["corrections"][0]["action"] for e in body["events"][1:]] == ["change_owner", "reject"]


def test_correct_a_play_and_refuse_a_correction_that_does_not_replay(tmp_path: Path) -> None:
    with _client(tmp_path) as c:
        posted = _post(c, play(1.0, "red", "AS", 1), play(2.0, "blue", "3S", 1))
        seq = posted[1]["detail"]["seq"]
        body = c.get("/api/round").json()
        assert body["players"][1]["foundation"] == 0  # 3S on the AS: wrong rank
        r = c.post(f"/api/round/events/{seq}/correct", json={"action": "replace", "card": "2S"})
        assert r.status_code == 200, r.text
        assert c.get("/api/round").json()["players"][1]["foundation"] == 1
        assert c.post(f"/api/round/events/{seq}/correct", json={"action": "replace", "player": "zed"}).status_code == 422
        assert c.post(f"/api/round/events/{seq}/correct", json={"action": "replace", "count": 3}).status_code == 422
        assert c.post("/api/round/events/999/correct", json={"action": "reject"}).status_code == 404


def test_change_owner_of_an_event_with_no_player_is_refused(tmp_path: Path) -> None:
    # a tie's answer names a winner, not a player: change_owner was stored (200) and changed
    # nothing, the tie's winner stayed as answered
    with _client(tmp_path, tie="strict") as c:
        _post(c, play(1.0, "red", "AS", 1), play(2.0, "red", "2S", 1), play(2.01, "blue", "2S", 1))
        assert c.post("/api/review/tie:1:2S", json={"action": "resolve", "player": "blue"}).status_code == 200
        events = c.get("/api/round").json()["events"]
        seq = next(e["seq"] for e in events if e["event"]["type"] == "resolve")
        r = c.post(f"/api/round/events/{seq}/correct", json={"action": "change_owner", "player": "red"})
        assert r.status_code == 422 and "no player" in r.json()["detail"], r.text
        assert c.get("/api/round").json()["events"] == events  # nothing stored


def test_confirm_after_reject_restores_the_play_as_logged(tmp_path: Path) -> None:
    with _client(tmp_path) as c:
        posted = _post(c, play(1.0, "red", "AS", 1), play(2.0, "blue", "2S", 1))
        seq = posted[1]["detail"]["seq"]
        scores = lambda: {p["name"]: p["score"] for p in c.get("/api/round").json()["players"]}  # noqa: E731
        assert scores() == {"red": 1, "blue": 1, "green": 0}
        assert c.post(f"/api/round/events/{seq}/correct", json={"action": "reject"}).status_code == 200
        assert scores() == {"red": 1, "blue": 0, "green": 0}
        assert c.post(f"/api/round/events/{seq}/correct", json={"action": "confirm"}).status_code == 200
        body = c.get("/api/round").json()
    assert {p["name"]: p["score"] for p in body["players"]} == {"red": 1, "blue": 1, "green": 0}
    assert [(c["card"], c["owner"]) for c in body["piles"][0]["cards"]] == [("AS", "red"), ("2S", "blue")]
    assert [c["action"] for c in body["events"][1]["corrections"]] == ["reject", "confirm"]
    # a restart folds the store's corrections the same way
    again = LiveReferee(EventStore(tmp_path / "ref.db"))
    assert {n: s.score for n, s in again.round.result.players.items()} == {"red": 1, "blue": 1, "green": 0}


def test_stuck_twice_ends_the_round_and_next_round_needs_an_end(tmp_path: Path) -> None:
    with _client(tmp_path) as c:
        assert c.post("/api/round/next").status_code == 409
        assert c.post("/api/round/stuck").json()["detail"]["event"]["type"] == "stuck"
        assert c.get("/api/round").json()["ended"] is None
        assert c.post("/api/round/stuck").json()["detail"]["event"]["type"] == "round_end"
        assert c.get("/api/round").json()["ended"] == "stuck"
        assert c.post("/api/round/stuck").status_code == 409  # ended: nothing more to be stuck in
        r = c.post("/api/round/next")
        assert r.status_code == 200 and r.json()["detail"]["round"] == 2
        body = c.get("/api/round").json()
        assert (body["round"], body["events"], body["ended"]) == (2, [], None)
        assert c.get("/api/match").json()["rounds"] == [{"red": 0, "blue": 0, "green": 0}]


def test_a_players_match_total_counts_the_rounds_the_match_counts(tmp_path: Path) -> None:
    """Each player's ``total`` in ``GET /api/round`` (the page's "Match N / target") is the
    match's total (``GET /api/match``'s ``totals``, the Match tab's total row), and
    ``counted_rounds`` says how many rounds it counts: the round under way is added once it
    has ended (its score is not settled before: the Nertz counts come after the call). It
    counted the round under way while the match did not, so the two said different things."""

    def totals(c: TestClient) -> tuple[dict[str, int], int, dict[str, int]]:
        r = c.get("/api/round").json()
        return {p["name"]: p["total"] for p in r["players"]}, r["counted_rounds"], c.get("/api/match").json()["totals"]

    with _client(tmp_path) as c:
        assert totals(c) == ({"red": 0, "blue": 0, "green": 0}, 0, {"red": 0, "blue": 0, "green": 0})
        _post(c, play(1.0, "red", "AS", 1), play(2.0, "red", "2S", 1), play(3.0, "blue", "AH", 2))
        assert totals(c) == ({"red": 0, "blue": 0, "green": 0}, 0, {"red": 0, "blue": 0, "green": 0})  # under way
        _post(c, {"type": "call", "t": 4.0, "player": "red"})
        assert totals(c) == ({"red": 2, "blue": 1, "green": 0}, 1, {"red": 2, "blue": 1, "green": 0})  # ended
        assert c.post("/api/round/next").status_code == 200
        _post(c, play(1.0, "green", "AD", 1), play(2.0, "green", "2D", 1), play(3.0, "green", "3D", 1))
        assert totals(c) == ({"red": 2, "blue": 1, "green": 0}, 1, {"red": 2, "blue": 1, "green": 0})
        _post(c, {"type": "nertz_left", "t": 4.0, "player": "green", "count": 2}, {"type": "call", "t": 5.0, "player": "red"})
        assert totals(c) == ({"red": 2, "blue": 1, "green": -1}, 2, {"red": 2, "blue": 1, "green": -1})


def test_the_match_ends_at_the_target_and_a_new_one_starts(tmp_path: Path) -> None:
    with _client(tmp_path, target=2) as c:
        for _ in range(2):
            _post(c, play(1.0, "red", "AS", 1), {"type": "call", "t": 2.0, "player": "red"})
            assert c.post("/api/round/next").status_code == 200
        m = c.get("/api/match").json()
        assert m["over"] and m["winner"] == "red" and m["totals"] == {"red": 2, "blue": 0, "green": 0}
        assert m["settlement"] == {"blue": 2, "green": 2}
        assert c.get("/api/round").json()["closed"] is True
        assert c.post("/api/events", json=play(1, "red", "AS", 1)).status_code == 409
        csv = c.get("/api/match/export.csv").text.splitlines()
        assert csv[:4] == ["round,red,blue,green", "1,1,0,0", "2,1,0,0", "total,2,0,0"]
        assert "blue,red,2" in csv
        export = c.get("/api/match/export.json").json()
        assert [r["result"]["caller"] for r in export["rounds"]] == ["red", "red"]
        assert c.post("/api/match/new").json()["detail"] == {"match": 2, "round": 1}
        assert c.get("/api/match").json()["rounds"] == []


def test_calibration_sets_regions_and_backs(tmp_path: Path) -> None:
    with _client(tmp_path) as c:
        body = {"shared_area": [[100, 100], [500, 100], [500, 300], [100, 300]], "zones": {"red": [[0, 0], [50, 0], [50, 50]]}, "backs": {"green": "#00AA00"}}
        r = c.put("/api/table/calibration", json=body)
        assert r.status_code == 200, r.text
        t = c.get("/api/table").json()
        assert t["shared_area"][1] == [500.0, 100.0] and t["zones"]["red"][2] == [50.0, 50.0]
        assert [p["back"] for p in t["players"]][2] == "#00aa00"
        assert c.put("/api/table/calibration", json={"backs": {"nobody": "#123456"}}).status_code == 422
        # a back too close to red's
        assert c.put("/api/table/calibration", json={"backs": {"blue": "#b3261f"}}).status_code == 422
        assert c.put("/api/table/calibration", json={"shared_area": [[0, 0], [1, 1]]}).status_code == 422


def test_video_stream_serves_a_placeholder_without_a_camera(tmp_path: Path) -> None:
    with _client(tmp_path) as c:
        r = c.get("/api/video/stream.mjpg?frames=2&fps=30")
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("multipart/x-mixed-replace; boundary=")
        parts = r.content.split(b"--nertzframe\r\n")[1:]
        assert len(parts) == 2 and all(b"\r\n\r\n\xff\xd8" in p for p in parts)
        one = c.get("/api/video/frame.jpg")
        assert one.headers["content-type"] == "image/jpeg" and one.content[:2] == b"\xff\xd8"


def test_page_and_static_files_are_served_with_a_security_policy(tmp_path: Path) -> None:
    with _client(tmp_path) as c:
        page = c.get("/")
        assert page.status_code == 200 and "Nertz" in page.text and "/static/app.js" in page.text
        assert "script-src 'self'" in page.headers["content-security-policy"]
        assert c.get("/static/app.js").status_code == 200
        assert c.get("/static/../store.py").status_code == 404
        assert "http" not in "".join(
            line for line in page.text.splitlines() if "src=" in line or "href=" in line
        ), "the page must load nothing from another site"
        assert "/api/round" in c.get("/openapi.json").json()["paths"]
        docs = c.get("/docs")  # Swagger UI from this machine, not from a CDN
        assert docs.status_code == 200 and "/static/swagger/swagger-ui-bundle.js" in docs.text
        assert c.get("/static/swagger/swagger-ui-bundle.js").status_code == 200


class _CameraSource:
    """A source with camera frames and no events of its own (as the vision pipeline will be)."""

    name = "fake-camera"
    speed = 1.0

    def __init__(self) -> None:
        import cv2
        import numpy as np

        img = np.zeros((48, 64, 3), np.uint8)
        img[:, :, 2] = 200  # a red frame
        self.jpeg = cv2.imencode(".jpg", img)[1].tobytes()

    def events(self, skip: int, clock: Any, stop: Any) -> Any:
        return iter(())

    def frame(self) -> bytes:
        return self.jpeg


def test_camera_frames_reach_the_stream_and_the_review_item(tmp_path: Path) -> None:
    from nertz.referee.service.sources import Source, placeholder_jpeg

    src = _CameraSource()
    assert isinstance(src, Source)
    with _client(tmp_path, source=src) as c:
        parts = c.get("/api/video/stream.mjpg?frames=1").content.split(b"\r\n\r\n", 1)
        assert parts[1].rstrip(b"\r\n") == src.jpeg
        assert c.get("/api/video/frame.jpg").content == src.jpeg
        _post(c, play(1.0, "red", "AS", 1, confidence=0.6), play(2.0, "red", "2S", 1))
        (item,) = c.get("/api/review").json()
        assert item["has_frame"] is True
        assert c.get(f"/api/review/{item['id']}/frame.jpg").content == src.jpeg
        other = c.get("/api/review/play:99/frame.jpg").content
        assert other == placeholder_jpeg("no frame kept")


def test_a_back_count_is_compared_with_the_live_round_without_changing_it(tmp_path: Path) -> None:
    c = _client(tmp_path)
    _post(c, play(1.0, "red", "AH", 1), play(2.0, "blue", "2H", 1, confidence=0.5), play(3.0, "red", "AS", 2),
          {"type": "call", "t": 9.0, "player": "red"})
    before = {k: v for k, v in c.get("/api/round").json().items() if k != "clock"}
    r = c.post("/api/round/audit/preview", json={"counts": {"red": 3, "blue": 0, "green": 0}, "nertz_left": {"blue": 4}})
    assert r.status_code == 200, r.text
    rec = r.json()
    assert rec["scored_by"] == "audit" and rec["caller"] == "red"
    assert rec["players"]["red"]["foundation"] == 3 and rec["players"]["blue"]["score"] == -8
    assert rec["live"]["blue"] == {"foundation": 1, "nertz_left": 0, "score": 1}  # as the live round had it
    assert [(s["card"], s["credited"], s["likely"]) for s in rec["suspects"]] == [("2H", "blue", "red")]
    assert {k: v for k, v in c.get("/api/round").json().items() if k != "clock"} == before


@pytest.mark.parametrize("body", [{"counts": {"purple": 1}}, {"counts": {"red": -1}}, {"counts": {}, "x": 1},
                                  {"counts": {"red": 1}, "nertz_left": {"red": 99}}])
def test_a_bad_back_count_is_422(tmp_path: Path, body: Any) -> None:
    r = _client(tmp_path).post("/api/round/audit", json=body)
    assert r.status_code == 422, r.text


def test_the_pages_answer_head_as_get_without_a_body(tmp_path: Path) -> None:
    """HEAD / (link checkers, uptime probes, curl -I) was 405 while GET / worked."""
    with _client(tmp_path) as c:
        for path in ("/", "/docs"):
            get, head = c.get(path), c.head(path)
            assert get.status_code == 200 and head.status_code == 200, path
            assert head.headers["content-type"] == get.headers["content-type"] and head.content == b""


class _Lens:
    """A source that takes a table, as the camera does: it watches with the table it holds when
    a run starts (``new_round``); ``set_table`` refuses a region beyond its 640 x 480 frames."""

    name, speed = "lens", 1.0

    def __init__(self) -> None:
        self.table: Any = None
        self.runs: list[Any] = []  # the table each run took
        self.started = threading.Event()

    def set_table(self, table: Any) -> None:
        if any(x > 640 or y > 480 for poly in table.zones.values() for x, y in poly):
            raise ValueError("a zone reaches outside this source's 640x480 frames")
        self.table = table

    def new_round(self, events: list[dict[str, Any]]) -> None:
        self.runs.append(self.table)
        self.started.set()

    def events(self, skip, clock, stop):
        return iter(())

    def frame(self) -> None:
        return None


ZONE = {"red": [[0, 0], [50, 0], [50, 50]]}


def test_a_calibration_reaches_the_camera_from_the_round_its_run_has_not_started(tmp_path: Path) -> None:
    """The page's calibration used to change only the service's copy of the table: the camera's
    pipeline kept watching with --table's regions, silently. Now the source gets it and the
    answer says from which round it watches with it."""
    lens = _Lens()
    c = _client(tmp_path, source=lens)  # not started: no run has taken a table yet
    r = c.put("/api/table/calibration", json={"zones": ZONE})
    assert r.status_code == 200, r.text
    assert lens.table is not None and lens.table.zones["red"][1] == (50.0, 0.0)
    assert r.json()["camera_from_round"] == 1 and r.json()["zones"]["red"][1] == [50.0, 0.0]
    assert "from this round (round 1)" in r.json()["message"]
    with c:  # the lifespan starts the source: round 1's run takes the calibrated table
        assert lens.started.wait(10)
        assert lens.runs == [lens.table]


def test_a_calibration_during_a_watched_round_reaches_the_camera_from_the_next_round(tmp_path: Path) -> None:
    lens = _Lens()
    with _client(tmp_path, source=lens) as c:
        assert lens.started.wait(10)
        first = lens.runs[0]
        r = c.put("/api/table/calibration", json={"zones": ZONE})
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["camera_from_round"] == 2
        assert "from round 2 on" in body["message"] and "round 1 keeps" in body["message"]
        assert lens.runs == [first] and lens.table.zones["red"] == ((0.0, 0.0), (50.0, 0.0), (50.0, 50.0))
        lens.started.clear()
        assert c.post("/api/round/end").status_code == 200
        assert c.post("/api/round/next").status_code == 200
        assert lens.started.wait(10)
        assert lens.runs[1] is lens.table  # round 2 watches with the calibration


def test_a_calibration_the_camera_cannot_use_is_422_and_changes_nothing(tmp_path: Path) -> None:
    lens = _Lens()
    with _client(tmp_path, source=lens) as c:
        before = c.get("/api/table").json()
        held = lens.table
        r = c.put("/api/table/calibration", json={"zones": {"red": [[0, 0], [900, 0], [900, 50]]}})
        assert r.status_code == 422 and "the camera cannot use this table" in r.json()["detail"]
        assert "outside this source's 640x480 frames" in r.json()["detail"]
        assert c.get("/api/table").json() == before and lens.table is held
    live = LiveReferee(EventStore(tmp_path / "ref.db"))
    assert not [e for e in live.store.entries() if e.kind == "table"]  # nothing stored


def test_a_calibration_without_a_camera_says_who_uses_it(tmp_path: Path) -> None:
    r = _client(tmp_path).put("/api/table/calibration", json={"zones": ZONE})
    assert r.status_code == 200, r.text
    assert r.json()["camera_from_round"] is None and "back count of a photo" in r.json()["message"]


def test_a_count_or_round_end_posted_without_t_is_stamped_now(tmp_path: Path) -> None:
    # untimed, they were ruled after every timed event: a round ended from the API went on
    # taking plays, and a count of 0 typed after one of 2 left the 2 standing at the call
    with _client(tmp_path) as c:
        _post(c, {"type": "nertz_left", "player": "red", "count": 2})
        time.sleep(0.01)
        _post(c, {"type": "nertz_left", "player": "red", "count": 0})
        time.sleep(0.01)
        assert c.post("/api/round/call", json={"player": "red"}).status_code == 200
        body = c.get("/api/round").json()
        assert body["ended"] == "call" and body["caller"] == "red", body["rulings"]
        assert c.post("/api/round/next").status_code == 200
        _, end = _post(c, play(0.0, "blue", "AS", 1), {"type": "round_end"})
        assert isinstance(end["detail"]["event"]["t"], float)
        time.sleep(0.01)
        _post(c, {"type": "play", "player": "blue", "card": "2S", "pile": 1})
        body = c.get("/api/round").json()
    assert body["ended"] == "stuck"
    assert [(r["kind"], r.get("card"), r.get("reason")) for r in body["rulings"][:3]] == [
        ("accepted", "AS", None), ("round_end", None, "stuck"), ("rejected", "2S", "late")]


def test_a_calibration_beyond_the_tables_own_frames_is_422_without_a_camera(tmp_path: Path) -> None:
    """Without a camera anything was stored: a shared area at (5000, 5000) of a table calibrated on
    1280 x 720 frames answered 200. The table's calibration.frame_size bounds the regions as a
    camera's frames do (the same slack); a table that names no frame size stays unbounded."""
    data = make_table(("red", "blue", "green")).to_dict()
    data["calibration"] = {"method": "manual", "frame_size": [1280, 720]}
    from nertz.referee.table import Table

    live = LiveReferee(EventStore(tmp_path / "ref.db"), Table.from_dict(data))
    with TestClient(create_app(live)) as c:
        before = c.get("/api/table").json()
        r = c.put("/api/table/calibration", json={"shared_area": [[3000, 3000], [5000, 3000], [5000, 5000]]})
        assert r.status_code == 422, r.text
        assert "outside the 1280x720 frames the table was calibrated on" in r.json()["detail"]
        r = c.put("/api/table/calibration", json={"zones": {"red": [[0, 600], [400, 600], [400, 1000]]}})
        assert r.status_code == 422 and "red's zone reaches (400, 1000)" in r.json()["detail"], r.text
        assert c.get("/api/table").json() == before
        r = c.put("/api/table/calibration", json={"shared_area": [[100, 100], [1300, 100], [1300, 700]]})
        assert r.status_code == 200, r.text  # a little beyond the edge, as the camera allows
    live.store.close()
    stored = [e for e in EventStore(tmp_path / "ref.db").entries() if e.kind == "table"]
    assert [e.data["table"]["shared_area"] for e in stored] == [[[100, 100], [1300, 100], [1300, 700]]]
    far = {"shared_area": [[3000, 3000], [5000, 3000], [5000, 5000]]}
    (tmp_path / "unsized").mkdir()
    assert _client(tmp_path / "unsized").put("/api/table/calibration", json=far).status_code == 200


@pytest.mark.parametrize("event", [{"type": "stuck"}, {"type": "round_end"}, {"type": "round_end", "t": 0.5},
                                   {"type": "round_end", "reason": "stuck"}])
@pytest.mark.parametrize("how", ["call", "end", "stuck"])
def test_stuck_or_round_end_posted_after_the_round_ended_is_409_as_the_buttons(tmp_path: Path, how: str,
                                                                                event: dict[str, Any]) -> None:
    """POST /api/events stored a stuck or round_end after the round had ended (with no effect),
    while the page's buttons for the same answered 409."""
    with _client(tmp_path) as c:
        if how == "call":
            _post(c, {"type": "call", "t": 1.0, "player": "red"})
        else:
            for _ in range(2 if how == "stuck" else 1):
                assert c.post(f"/api/round/{how}").status_code == 200
        state = lambda: {k: v for k, v in c.get("/api/round").json().items() if k != "clock"}  # noqa: E731
        before = state()
        assert before["ended"] is not None
        r = c.post("/api/events", json=event)
        assert r.status_code == 409 and "already ended" in r.json()["detail"], r.text
        # in plain words, not the result's code word ("(call)", "(ended)")
        said = {"call": "(red called Nertz)", "end": "(it was ended with no caller)", "stuck": "(everyone was stuck)"}[how]
        assert said in r.json()["detail"], r.text
        assert state() == before
        assert c.post("/api/round/next").status_code == 200
        _post(c, {"type": "stuck"}, {"type": "round_end"})  # a round not ended takes them
        assert c.get("/api/round").json()["ended"] == "stuck"


def test_a_sources_round_end_after_the_end_is_still_stored_as_its_log_says(tmp_path: Path) -> None:
    """A source's log is replayed as nertz score rules it: its events stay stored after the end."""
    live = LiveReferee(EventStore(tmp_path / "ref.db"), make_table(("red", "blue", "green")))
    live.end_round()
    out = live.push_event({"type": "round_end", "t": 9.0, "reason": "stuck"}, origin="source:log-replay", index=0)
    assert out["event"]["type"] == "round_end" and live.round.result.ended == "ended"
