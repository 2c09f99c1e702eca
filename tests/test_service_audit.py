"""The back count in the service (issue 7): recorded after the call, it scores the round (the
page, ``GET /api/round``, the match, ``round_close``), the live figures beside it; it survives
a restart; hostile bodies and photos are refused with nothing stored. FastAPI TestClient, no
network; one browser check of the page's panel (Playwright + Debian's chromium)."""

from __future__ import annotations

import json
import zlib
import urllib.request
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from nertz.referee.service.app import create_app
from nertz.referee.service.live import Conflict, LiveReferee
from nertz.referee.service.photo import PhotoError, decode_photo, image_size
from nertz.referee.service.views import match_view, round_view
from nertz.referee.store import EventStore

from conftest import make_table
from test_service_browser import browser_page, server  # noqa: F401  (the fixture)


def play(t: float, player: str, card: str, pile: int, **extra: Any) -> dict[str, Any]:
    return {"type": "play", "t": t, "player": player, "card": card, "pile": pile, **extra}


# red plays AH, 3H and AS; blue's 2H was seen with confidence 0.5 (it was red's, say); red calls.
ROUND = [
    play(1.0, "red", "AH", 1),
    play(2.0, "blue", "2H", 1, confidence=0.5),
    play(3.0, "red", "3H", 1),
    play(4.0, "red", "AS", 2),
    play(5.0, "green", "AC", 3),
    {"type": "nertz_left", "t": 8.0, "player": "green", "count": 2},
    {"type": "call", "t": 9.0, "player": "red"},
]
COUNT = {"counts": {"red": 4, "blue": 0, "green": 1}, "nertz_left": {"blue": 4}}


def _live(path: Path, **rules: Any) -> LiveReferee:
    return LiveReferee(EventStore(path), make_table(("red", "blue", "green"), **rules))


def _client(live: LiveReferee, **kw: Any) -> TestClient:
    return TestClient(create_app(live, **kw))


def _post(c: TestClient, *events: dict[str, Any], **kw: Any) -> None:
    for ev in events:
        r = c.post("/api/events", json=ev, **kw)
        assert r.status_code == 200, r.text


def _state(live: LiveReferee) -> dict[str, Any]:
    view = round_view(live)
    view.pop("clock")
    return {"round": view, "match": match_view(live)}


def _kinds(live: LiveReferee) -> list[str]:
    return [e.kind for e in live.store.entries()]


def test_a_recorded_count_scores_the_round_with_the_live_figures_beside_it(tmp_path: Path) -> None:
    live = _live(tmp_path / "r.db")
    c = _client(live)
    _post(c, *ROUND)
    live_before = {p["name"]: p["score"] for p in c.get("/api/round").json()["players"]}
    assert live_before == {"red": 3, "blue": 1, "green": -3}  # caller red 3; blue 1 - 0; green 1 - 4

    r = c.post("/api/round/audit", json=COUNT)
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["scored_by"] == "audit" and out["audits"] == 1 and out["seq"] == live.current.audit.seq
    assert out["players"] == {"red": {"foundation": 4, "nertz_left": 0, "score": 4},
                              "blue": {"foundation": 0, "nertz_left": 4, "score": -8},
                              "green": {"foundation": 1, "nertz_left": 2, "score": -3}}

    body = c.get("/api/round").json()
    players = {p["name"]: p for p in body["players"]}
    assert {n: (p["foundation"], p["nertz_left"], p["score"], p["total"]) for n, p in players.items()} == {
        "red": (4, 0, 4, 4), "blue": (0, 4, -8, -8), "green": (1, 2, -3, -3)}
    assert {n: (p["live_foundation"], p["live_score"]) for n, p in players.items()} == {
        "red": (3, 3), "blue": (1, 1), "green": (1, -3)}  # live: blue's Nertz count was not known
    assert players["blue"]["nertz_known"] is True  # given by the count
    assert body["result"]["scored_by"] == "audit" and body["result"]["ended"] == "call"
    assert body["result"]["players"]["blue"]["score"] == -8 and body["result"]["live"]["blue"]["score"] == 1
    a = body["audit"]
    assert (a["seq"], a["source"], a["audits"], a["agrees"], a["has_photo"]) == (out["seq"], "json", 1, False, False)
    assert a["counts"] == COUNT["counts"] and a["nertz_left"] == {"blue": 4}
    assert [(o["name"], o["audit"], o["live"], o["difference"], o["score"], o["live_score"]) for o in a["owners"]] == [
        ("red", 4, 3, 1, 4, 3), ("blue", 0, 1, -1, -8, 1), ("green", 1, 1, 0, -3, -3)]
    assert a["suspects"] == [{"t": 2.0, "card": "2H", "pile": 1, "credited": "blue", "likely": "red", "confidence": 0.5}]
    # the match counts the round by the back count, before and after it is closed
    assert c.get("/api/match").json()["rounds"] == [{"red": 4, "blue": -8, "green": -3}]
    assert c.post("/api/round/next").status_code == 200
    assert c.get("/api/match").json()["totals"] == {"red": 4, "blue": -8, "green": -3}
    close = [e for e in live.store.entries() if e.kind == "round_close"][-1]
    assert close.data["result"]["scored_by"] == "audit" and close.data["result"]["players"]["red"]["score"] == 4
    assert close.data["result"]["live"]["red"] == {"foundation": 3, "nertz_left": 0, "score": 3}
    (stored,) = [e for e in live.store.entries() if e.kind == "audit"]
    assert stored.data == {"counts": COUNT["counts"], "nertz_left": {"blue": 4}, "unknown": None, "face_up": None,
                           "zones": None, "method": None, "source": "json"}
    assert (stored.match, stored.round, stored.origin) == (1, 1, "api")
    # the new round has no count; the page shows none
    body2 = c.get("/api/round").json()
    assert body2["round"] == 2 and body2["audit"] is None and body2["players"][0]["live_score"] is None
    export = c.get("/api/match/export.json").json()
    assert export["rounds"][0]["audits"][0]["counts"] == COUNT["counts"]
    assert export["rounds"][0]["result"]["scored_by"] == "audit" and "scored_by" not in export["rounds"][1]["result"]


def test_a_restart_replays_the_count_and_gives_the_same_state(tmp_path: Path) -> None:
    live = _live(tmp_path / "r.db")
    c = _client(live)
    _post(c, *ROUND)
    assert c.post("/api/round/audit", json=COUNT).status_code == 200
    before = _state(live)
    live.store.close()
    again = _live(tmp_path / "r.db")
    assert again.resumed and _state(again) == before
    # closing after the restart adds the counted scores; a second restart still agrees
    again.next_round()
    closed = _state(again)
    again.store.close()
    third = _live(tmp_path / "r.db")
    assert _state(third) == closed and third.match().rounds == [{"red": 4, "blue": -8, "green": -3}]


def test_the_latest_count_scores_and_every_count_stays_in_the_store(tmp_path: Path) -> None:
    live = _live(tmp_path / "r.db")
    c = _client(live)
    _post(c, *ROUND)
    first = c.post("/api/round/audit", json=COUNT).json()
    second = c.post("/api/round/audit", json={"counts": {"red": 3, "blue": 1, "green": 1}}).json()
    assert second["seq"] > first["seq"] and second["audits"] == 2
    body = c.get("/api/round").json()
    assert body["audit"]["seq"] == second["seq"] and body["audit"]["audits"] == 2 and body["audit"]["agrees"] is True
    assert body["audit"]["suspects"] == []
    # the second count gave no Nertz counts: the round's own (green 2, blue none) stand
    assert {p["name"]: p["score"] for p in body["players"]} == {"red": 3, "blue": 1, "green": -3}
    assert [e.data["counts"] for e in live.store.entries() if e.kind == "audit"] == [
        COUNT["counts"], {"red": 3, "blue": 1, "green": 1}]
    live.store.close()
    assert _live(tmp_path / "r.db").current.audit.seq == second["seq"]  # type: ignore[union-attr]


def test_a_correction_after_the_count_moves_the_live_figures_not_the_score(tmp_path: Path) -> None:
    live = _live(tmp_path / "r.db")
    c = _client(live)
    _post(c, *ROUND)
    assert c.post("/api/round/audit", json=COUNT).status_code == 200
    seq = next(e["seq"] for e in c.get("/api/round").json()["events"] if e["event"].get("card") == "2H")
    r = c.post(f"/api/round/events/{seq}/correct", json={"action": "change_owner", "player": "red"})
    assert r.status_code == 200, r.text
    a = c.get("/api/round").json()["audit"]
    assert a["agrees"] is True and a["suspects"] == []  # the person's correction settled it
    assert [(o["name"], o["audit"], o["live"], o["score"]) for o in a["owners"]] == [
        ("red", 4, 4, 4), ("blue", 0, 0, -8), ("green", 1, 1, -3)]


def test_a_change_the_count_no_longer_fits_is_refused_and_stores_nothing(tmp_path: Path) -> None:
    # the count gives blue 4 Nertz cards left; a correction making blue the valid caller (or a
    # call reported after a round ended stuck) was stored, and then every GET /api/round was
    # a 422 and the store was refused at start-up
    live = _live(tmp_path / "r.db")
    c = _client(live)
    _post(c, *ROUND)
    assert c.post("/api/round/audit", json=COUNT).status_code == 200
    before, kinds = _state(live), _kinds(live)
    call = next(e["seq"] for e in c.get("/api/round").json()["events"] if e["event"]["type"] == "call")
    r = c.post(f"/api/round/events/{call}/correct", json={"action": "change_owner", "player": "blue"})
    assert r.status_code == 409 and "back count" in r.json()["detail"], r.text
    assert c.get("/api/round").status_code == 200 and _state(live) == before and _kinds(live) == kinds
    assert c.post("/api/round/next").status_code == 200
    _post(c, play(1.0, "red", "AH", 1), {"type": "round_end", "t": 5.0, "reason": "ended"})
    assert c.post("/api/round/audit", json=COUNT).status_code == 200
    before, kinds = _state(live), _kinds(live)
    r = c.post("/api/events", json={"type": "call", "t": 4.0, "player": "blue"})
    assert r.status_code == 409, r.text
    assert _state(live) == before and _kinds(live) == kinds
    live.store.close()
    assert _state(LiveReferee(EventStore(tmp_path / "r.db"))) == before


def test_the_count_is_for_an_ended_round_that_is_not_closed(tmp_path: Path) -> None:
    live = _live(tmp_path / "r.db", target=3)
    c = _client(live)
    _post(c, play(1.0, "red", "AH", 1))
    r = c.post("/api/round/audit", json=COUNT)
    assert r.status_code == 409 and "has not ended" in r.json()["detail"]
    _post(c, {"type": "call", "t": 2.0, "player": "red"})
    _post(c, play(2.5, "red", "2H", 1))  # in the air: counts
    assert c.post("/api/round/audit", json={"counts": {"red": 3, "blue": 0, "green": 0}}).status_code == 200  # red: 3, the target
    nxt = c.post("/api/round/next").json()["detail"]
    assert nxt["over"] is True and nxt["winner"] == "red"
    r = c.post("/api/round/audit", json={"counts": {"red": 1, "blue": 0, "green": 0}})
    assert r.status_code == 409 and "closed" in r.json()["detail"]
    assert _kinds(live).count("audit") == 1
    with pytest.raises(Conflict, match="match 1 round 7"):
        live.record_audit({"red": 1}, expect=(1, 7))


def test_a_round_ended_with_no_caller_is_counted_with_the_penalty_for_everyone(tmp_path: Path) -> None:
    c = _client(_live(tmp_path / "r.db"))
    _post(c, play(1.0, "red", "AH", 1))
    assert c.post("/api/round/end").status_code == 200
    out = c.post("/api/round/audit", json={"counts": {"red": 1, "blue": 0, "green": 0},
                                           "nertz_left": {"red": 3, "blue": 1}}).json()
    assert out["caller"] is None
    assert {n: p["score"] for n, p in out["players"].items()} == {"red": 1 - 6, "blue": -2, "green": 0}


def test_a_count_that_leaves_a_player_out_is_refused_naming_them(tmp_path: Path) -> None:
    # a field left out must not score a player 0 foundation cards: a player with none is sent as 0
    live = _live(tmp_path / "r.db")
    c = _client(live)
    _post(c, *ROUND)
    kinds = _kinds(live)
    for path in ("/api/round/audit", "/api/round/audit/preview"):
        for body, missing in (({"counts": {"red": 20}}, "blue, green"), ({"counts": {}}, "red, blue, green"),
                              ({"counts": {"red": 4, "green": 1}, "nertz_left": {"blue": 4}}, "blue")):
            r = c.post(path, json=body)
            assert r.status_code == 422, (path, body, r.text)
            assert r.json()["detail"].startswith(f"the back count leaves out {missing}:"), r.text
            assert "0 for a back with no card" in r.json()["detail"]
    assert _kinds(live) == kinds and c.get("/api/round").json()["audit"] is None  # nothing stored
    # every player counted, blue's 0 given: previewed and recorded
    r = c.post("/api/round/audit/preview", json=COUNT)
    assert r.status_code == 200, r.text
    assert {n: p["foundation"] for n, p in r.json()["players"].items()} == {"red": 4, "blue": 0, "green": 1}
    assert _kinds(live) == kinds
    r = c.post("/api/round/audit", json=COUNT)
    assert r.status_code == 200, r.text
    assert c.post("/api/round/next").status_code == 200
    assert match_view(live)["rounds"][0] == {"red": 4, "blue": -8, "green": -3}


def test_a_refused_partial_count_leaves_the_live_scores_to_the_match(tmp_path: Path) -> None:
    live = _live(tmp_path / "r.db")
    c = _client(live)
    _post(c, *ROUND)
    assert c.post("/api/round/audit", json={"counts": {"red": 20}}).status_code == 422
    assert c.post("/api/round/next").status_code == 200
    assert match_view(live)["rounds"][0] == {"red": 3, "blue": 1, "green": -3}  # the live round, nobody zeroed


HOSTILE = [
    ({"counts": {"purple": 1}}, "not at the table"),
    ({"counts": {"red": -1}}, "greater than or equal to 0"),
    ({"counts": {"red": 10**6}}, "less than or equal to 10000"),
    ({"counts": {"red": 53}}, "whose deck holds 52"),
    ({"counts": {"red": 1.5}}, "valid integer"),
    ({"counts": {"red": 1.0}}, "valid integer"),
    ({"counts": {"red": "1"}}, "valid integer"),
    ({"counts": {"red": True}}, "valid integer"),
    ({"counts": {"red": None}}, "valid integer"),
    ({"counts": [1, 2]}, "valid dictionary"),
    ({"counts": None}, "valid dictionary"),
    ({}, "Field required"),
    ({"counts": {"red": 1}, "x": 1}, "Extra inputs"),
    ({"counts": {"red": 1}, "type": "result"}, "'audit'"),
    ({"counts": {"red": 1}, "nertz_left": {"red": 14}}, "less than or equal to 13"),
    ({"counts": {"red": 1}, "nertz_left": {"purple": 1}}, "not at the table"),
    ({"counts": {"x" * 41: 1}}, "at most 40"),
    ({"counts": {"": 1}}, "at least 1"),
    ({"counts": {f"p{i}": 0 for i in range(65)}}, "at most 64"),
    ({"counts": {"red": 1}, "unknown": -3}, "greater than or equal to 0"),
    ({"counts": {"red": 1}, "zones": {"red": {"red": 2**70}}}, "less than or equal to 10000"),
]


@pytest.mark.parametrize("body,message", HOSTILE, ids=[str(i) for i in range(len(HOSTILE))])
def test_a_hostile_count_is_422_and_stores_nothing(tmp_path: Path, body: Any, message: str) -> None:
    live = _live(tmp_path / "r.db")
    c = _client(live)
    _post(c, *ROUND)
    before, kinds = _state(live), _kinds(live)
    for path in ("/api/round/audit", "/api/round/audit/preview"):
        r = c.post(path, json=body)
        assert r.status_code == 422, (path, r.text)
        assert message in json.dumps(r.json()["detail"]), r.text
    assert _kinds(live) == kinds and _state(live) == before


def test_a_body_that_is_not_json_is_422(tmp_path: Path) -> None:
    live = _live(tmp_path / "r.db")
    c = _client(live)
    _post(c, *ROUND)
    for data in (b"{", b"\xff\xfe", b"[]", b"null", b'"counts"'):
        r = c.post("/api/round/audit", content=data, headers={"Content-Type": "application/json"})
        assert r.status_code == 422, (data, r.text)
    assert "audit" not in _kinds(live)


def test_partners_counts_add_up_and_the_deck_limit_is_per_deck(tmp_path: Path) -> None:
    from nertz.referee.errors import EventError
    from nertz.referee.table import Table

    data = {"players": [{"name": "north", "back": "#b3261e", "members": ["ann", "bob"]},
                        {"name": "south", "back": "#1e4bb3", "members": ["cat", "dan"]}],
            "rules": {"partnerships": True, "jokers": True}}
    live = LiveReferee(EventStore(tmp_path / "p.db"), Table.from_dict(data))
    live.push_event(play(1.0, "ann", "AH", 1))
    live.push_event({"type": "call", "t": 2.0, "player": "bob"})
    with pytest.raises(EventError, match="whose deck holds 54"):
        live.record_audit({"ann": 30, "bob": 25})
    with pytest.raises(EventError, match="leaves out south"):  # a partner's name counts for the partnership
        live.record_audit({"ann": 1, "bob": 1})
    out = live.record_audit({"ann": 1, "bob": 1, "cat": 0})
    assert out["players"]["north"]["foundation"] == 2 and out["live"]["north"]["foundation"] == 1


def test_the_token_is_needed_to_record_but_not_to_preview(tmp_path: Path) -> None:
    live = _live(tmp_path / "r.db")
    c = _client(live, token="s3cret")
    auth = {"headers": {"X-Table-Token": "s3cret"}}
    _post(c, *ROUND, **auth)
    assert c.post("/api/round/audit", json=COUNT).status_code == 401
    assert c.post("/api/round/audit", json=COUNT, headers={"X-Table-Token": "wrong"}).status_code == 401
    assert c.post("/api/round/audit/photo", content=b"x", headers={"Content-Type": "image/jpeg"}).status_code == 401
    assert "audit" not in _kinds(live)
    preview = c.post("/api/round/audit/preview", json=COUNT)
    assert preview.status_code == 200 and preview.json()["players"]["red"]["score"] == 4
    assert "audit" not in _kinds(live) and c.get("/api/round").json()["audit"] is None
    assert c.post("/api/round/audit", json=COUNT, **auth).status_code == 200
    assert _kinds(live).count("audit") == 1


def test_the_line_nertz_audit_prints_can_be_posted_as_it_is(tmp_path: Path) -> None:
    live = _live(tmp_path / "r.db")
    c = _client(live)
    _post(c, *ROUND)
    line = {"type": "audit", "counts": {"red": 4, "blue": 0, "green": 1}, "unknown": 1, "face_up": 0,
            "zones": {"red": {}, "blue": {"blue": 5, "unknown": 1}, "green": {"green": 2}}}
    out = c.post("/api/round/audit", json=line).json()
    # each player's own back in their own zone is their Nertz count
    assert {n: (p["nertz_left"], p["score"]) for n, p in out["players"].items()} == {
        "red": (0, 4), "blue": (5, -10), "green": (2, -3)}
    a = c.get("/api/round").json()["audit"]
    assert (a["unknown"], a["face_up"], a["zones"]) == (1, 0, line["zones"])


def test_the_websocket_announces_the_count_and_the_new_score(tmp_path: Path) -> None:
    live = _live(tmp_path / "r.db")
    _post(_client(live), *ROUND)
    with _client(live) as c, c.websocket_connect("/ws") as ws:
        assert ws.receive_json()["type"] == "hello"
        assert c.post("/api/round/audit", json=COUNT).status_code == 200
        msg = ws.receive_json()
        assert msg["type"] == "audit" and msg["audit"]["counts"] == COUNT["counts"] and msg["round"] == 1
        score = ws.receive_json()
        assert score["type"] == "score" and score["result"]["scored_by"] == "audit"
        assert score["result"]["players"]["red"]["score"] == 4


# -- photos -----------------------------------------------------------------------------------

SCENE = dict(resolution=(1920, 1080), n_players=2, max_per_player=8, arrangements=("row",), hands=False,
             extras=False)


@pytest.fixture(scope="module")
def scene() -> Any:
    """A rendered end-of-round photo: two rows of 8 face-down cards (teal, gold) in the shared
    area, none in the zones (seed 2: one the classical count gets exact, see test_audit.py)."""
    from nertz.datasets.audit_scenes import make_audit_scene

    sc = make_audit_scene(2, **SCENE)
    assert sc.truth.shared == {"teal": 8, "gold": 8}
    return sc


def _scene_round(tmp_path: Path, sc: Any) -> LiveReferee:
    """teal plays A-8 of spades, gold A-8 of hearts; gold's 5H was credited live to teal."""
    from nertz.referee.table import Table

    live = LiveReferee(EventStore(tmp_path / "photo.db"), Table.from_dict(sc.table))
    t = 1.0
    for i, rank in enumerate("A2345678"):
        live.push_event(play(t, "teal", rank + "S", 1))
        live.push_event(play(t + 0.5, "teal" if rank == "5" else "gold", rank + "H", 2,
                             **({"confidence": 0.4} if rank == "5" else {})))
        t += 1.0
    live.push_event({"type": "call", "t": t, "player": "teal"})
    return live


def _jpeg(img: np.ndarray, **kw: Any) -> bytes:
    params = [cv2.IMWRITE_JPEG_QUALITY, 92] + [x for k, v in kw.items() for x in (getattr(cv2, k), v)]
    return cv2.imencode(".jpg", img, params)[1].tobytes()


def test_a_photo_is_counted_recorded_and_kept(tmp_path: Path, scene: Any) -> None:
    live = _scene_round(tmp_path, scene)
    c = _client(live)
    jpeg = _jpeg(scene.frame)
    assert len(jpeg) > 64 * 1024  # over the JSON limit: the photo path has its own
    r = c.post("/api/round/audit/photo?method=classical", content=jpeg, headers={"Content-Type": "image/jpeg"})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["stored"] is True and out["audits"] == 1
    assert out["count"]["counts"] == {"teal": 8, "gold": 8} and out["count"]["nertz_left"] == {"gold": 0}  # teal called
    assert (out["count"]["width"], out["count"]["height"], out["count"]["method"]) == (1920, 1080, "classical")
    res = out["result"]
    assert res["live"] == {"teal": {"foundation": 9, "nertz_left": 0, "score": 9},
                           "gold": {"foundation": 7, "nertz_left": 0, "score": 7}}
    assert {n: p["score"] for n, p in res["players"].items()} == {"teal": 8, "gold": 8}
    assert [(s["card"], s["credited"], s["likely"], s["confidence"]) for s in res["suspects"]] == [
        ("5H", "teal", "gold", 0.4)]
    a = c.get("/api/round").json()["audit"]
    assert (a["source"], a["method"], a["has_photo"], a["origin"]) == ("photo", "classical", True, "photo")
    got = c.get("/api/round/audit/photo.jpg")
    assert got.status_code == 200 and got.headers["content-type"] == "image/jpeg" and got.content == jpeg
    (entry,) = [e for e in live.store.entries() if e.kind == "audit"]
    assert entry.data["zones"] == {"teal": {}, "gold": {}} and live.store.frame(entry.seq) == jpeg


def test_a_photo_counts_every_registered_player_even_one_with_no_card_in_it(tmp_path: Path, scene: Any) -> None:
    # the photo's count names every player (0 for a back not found), so it is never a count that
    # leaves a player out (which the JSON endpoints refuse)
    from nertz.referee.table import Table

    data = {**scene.table, "players": [*scene.table["players"], {"name": "plum", "back": "#6a1b9a"}]}
    live = LiveReferee(EventStore(tmp_path / "plum.db"), Table.from_dict(data))
    live.push_event(play(1.0, "teal", "AS", 1))
    live.push_event({"type": "call", "t": 2.0, "player": "teal"})
    r = _client(live).post("/api/round/audit/photo?method=classical", content=_jpeg(scene.frame),
                           headers={"Content-Type": "image/jpeg"})
    assert r.status_code == 200, r.text
    assert r.json()["count"]["counts"] == {"teal": 8, "gold": 8, "plum": 0}
    assert r.json()["result"]["players"]["plum"]["foundation"] == 0


def test_a_photo_before_the_round_ended_is_409_and_not_counted(tmp_path: Path, scene: Any) -> None:
    from nertz.referee.table import Table

    live = LiveReferee(EventStore(tmp_path / "early.db"), Table.from_dict(scene.table))
    c = _client(live)
    r = c.post("/api/round/audit/photo?method=classical", content=_jpeg(scene.frame), headers={"Content-Type": "image/jpeg"})
    assert r.status_code == 409 and "has not ended" in r.json()["detail"]
    assert "audit" not in _kinds(live)


def test_a_png_photo_dry_run_stores_nothing(tmp_path: Path, scene: Any) -> None:
    live = _scene_round(tmp_path, scene)
    c = _client(live)
    png = cv2.imencode(".png", scene.frame)[1].tobytes()
    kinds = _kinds(live)
    r = c.post("/api/round/audit/photo?method=classical&dry_run=true", content=png, headers={"Content-Type": "image/png"})
    assert r.status_code == 200, r.text
    out = r.json()
    assert (out["stored"], out["seq"]) == (False, None) and out["count"]["counts"] == {"teal": 8, "gold": 8}
    assert out["result"]["players"]["gold"]["score"] == 8
    assert _kinds(live) == kinds and c.get("/api/round").json()["audit"] is None
    assert c.get("/api/round/audit/photo.jpg").status_code == 404


def _png_header(w: int, h: int) -> bytes:
    """A well-formed PNG declaring ``w`` x ``h`` pixels and holding none (an empty IDAT): what a
    decompression bomb's header looks like, and a file that cannot be decoded."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")

    ihdr = w.to_bytes(4, "big") + h.to_bytes(4, "big") + b"\x08\x02\x00\x00\x00"
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b"")


@pytest.mark.parametrize(
    "ctype,body,status,message",
    [
        ("image/jpeg", b"", 422, "empty"),
        ("image/jpeg", b"GIF89a" + b"\x00" * 100, 422, "not a JPEG or PNG"),
        ("image/png", b"hello, not a picture", 422, "not a JPEG or PNG"),
        ("image/png", _png_header(100_000, 100_000), 422, "too large"),
        ("image/png", _png_header(5000, 9000), 422, "too large"),
        ("image/png", _png_header(20, 20), 422, "too small"),
        ("image/png", _png_header(640, 360) + b"\x00" * 50, 422, "could not be decoded"),
        ("image/jpeg", b"\xff\xd8\xff\xe0\x00\x10JFIF", 422, "damaged or cut short"),
        ("text/plain", b"\xff\xd8\xff", 415, "image/jpeg or image/png"),
        ("", b"\xff\xd8\xff", 415, "no content type"),
        ("image/jpeg", "blank", 422, "no face-down card"),
        ("image/jpeg", "bare", 422, "no shared area"),
        ("image/jpeg", "cut", 422, "cut short"),
    ],
)
def test_a_bad_photo_is_refused_and_stores_nothing(tmp_path: Path, ctype: str, body: Any, status: int, message: str) -> None:
    table = make_table(("red", "blue", "green"))
    if body == "blank":  # (the photo audit needs a shared area: a table without one is refused, "bare")
        table = table.model_copy(update={"shared_area": ((40.0, 40.0), (600.0, 40.0), (600.0, 320.0), (40.0, 320.0))})
    live = LiveReferee(EventStore(tmp_path / "r.db"), table)
    c = _client(live)
    _post(c, *ROUND)
    if body in ("blank", "bare"):  # a real photo of an empty grey table: nothing to count
        body = _jpeg(np.full((360, 640, 3), 128, np.uint8))
    elif body == "cut":  # a real JPEG cut in the middle of its scan
        img = np.random.default_rng(0).integers(0, 255, (360, 640, 3), dtype=np.uint8)
        body = _jpeg(img)[:600]
    kinds = _kinds(live)
    r = c.post("/api/round/audit/photo?method=classical", content=body, headers={"Content-Type": ctype} if ctype else {})
    assert r.status_code == status, r.text
    assert message in r.json()["detail"], r.text
    assert _kinds(live) == kinds


def test_a_photo_over_the_size_limit_is_413(tmp_path: Path) -> None:
    live = _live(tmp_path / "r.db")
    c = _client(live, max_photo=10_000)
    _post(c, *ROUND)
    big = _jpeg(np.random.default_rng(1).integers(0, 255, (360, 640, 3), dtype=np.uint8))
    assert len(big) > 10_000
    r = c.post("/api/round/audit/photo", content=big, headers={"Content-Type": "image/jpeg"})
    assert r.status_code == 413 and "10000 bytes" in r.json()["detail"]
    # the JSON endpoints keep their own (smaller) limit
    r = c.post("/api/round/audit", content=b"{" + b" " * 70_000 + b"}", headers={"Content-Type": "application/json"})
    assert r.status_code == 413
    assert "audit" not in _kinds(live)


def test_image_size_reads_jpeg_and_png_headers() -> None:
    img = np.zeros((37, 71, 3), np.uint8)
    assert image_size(_jpeg(img)) == ("jpeg", 71, 37)
    assert image_size(_jpeg(img, IMWRITE_JPEG_PROGRESSIVE=1)) == ("jpeg", 71, 37)
    assert image_size(cv2.imencode(".png", img)[1].tobytes()) == ("png", 71, 37)
    with pytest.raises(PhotoError, match="too small"):
        decode_photo(_jpeg(np.zeros((30, 71, 3), np.uint8)))
    png = cv2.imencode(".png", np.full((40, 80, 3), 200, np.uint8))[1].tobytes()
    decoded, kept = decode_photo(png)
    assert decoded.shape == (40, 80, 3) and kept[:3] == b"\xff\xd8\xff"  # kept as a JPEG


# -- the page ---------------------------------------------------------------------------------


def _http_post(base: str, path: str, body: Any) -> Any:
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def test_the_page_shows_the_back_count_panel(server: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    with browser_page(server + "/") as (page, errors):
        expect(page.locator("#conn.live")).to_have_count(1)
        expect(page.locator("#audit")).to_be_hidden()  # no count while the round is played
        for ev in ROUND:
            _http_post(server, "/api/events", ev)
        # the round has ended: the panel offers the count, prefilled with the live figures
        expect(page.locator("#audit-form")).to_be_visible()
        expect(page.locator('#audit-inputs input[data-count="red"]')).to_have_value("3")
        # a field left empty is asked for, not sent as 0; a validation error shows its messages
        blue = page.locator('#audit-inputs input[data-count="blue"]')
        blue.fill("")
        page.locator("#audit-record").click()
        expect(page.locator("#status")).to_have_text("give blue's count (0 if no card of their back is on the foundations)")
        blue.fill("-1")
        page.locator("#audit-record").click()
        expect(page.locator("#status")).to_have_text("counts.blue: Input should be greater than or equal to 0")
        with urllib.request.urlopen(server + "/api/round", timeout=10) as r:
            assert json.loads(r.read())["audit"] is None
        page.locator('#audit-inputs input[data-count="red"]').fill("4")
        page.locator('#audit-inputs input[data-count="blue"]').fill("0")
        page.locator('#audit-inputs input[data-left="blue"]').fill("4")
        page.locator("#audit-record").click()
        expect(page.locator('[data-testid="audit-score-red"]')).to_have_text("4")
        expect(page.locator('[data-testid="audit-diff-blue"]')).to_have_text("-1")
        expect(page.locator('[data-testid="audit-score-blue"]')).to_have_text("-8")
        expect(page.locator("#audit-note")).to_contain_text("differs from the live count")
        suspect = page.locator('#audit-suspects tr[data-card="2H"]')
        expect(suspect).to_contain_text("2♥")
        expect(suspect).to_contain_text("blue")
        expect(suspect).to_contain_text("0.50")
        expect(suspect).to_contain_text("0:02")
        # the scoreboard scores by the count, the live figure beside it
        expect(page.locator('.player[data-player="red"] .score')).to_have_text("4")
        expect(page.locator('.player[data-player="blue"] .sub')).to_contain_text("0 counted (live 1)")
        with urllib.request.urlopen(server + "/api/round", timeout=10) as r:
            assert json.loads(r.read())["audit"]["counts"] == {"red": 4, "blue": 0, "green": 1}
        page.locator("#btn-next").click()
        expect(page.locator("#round-label")).to_have_text("Round 2")
        expect(page.locator("#audit")).to_be_hidden()
        expect(page.locator('.player[data-player="red"] .total')).to_have_text("Match 4 / 100 after round 1")
        assert errors == []


def test_counts_that_contradict_the_deck_or_the_call_are_refused_and_ending_twice_is_a_conflict(tmp_path: Path) -> None:
    live = _live(tmp_path / "r.db")
    c = _client(live)
    _post(c, *ROUND)
    kinds = _kinds(live)
    # 45 on the foundations and 13 left in the Nertz pile: 58 cards of a 52-card deck
    r = c.post("/api/round/audit", json={"counts": {"red": 4, "blue": 45, "green": 1}, "nertz_left": {"blue": 13}})
    assert r.status_code == 422 and "58 cards counted for blue" in r.json()["detail"], r.text
    # red called validly: their Nertz pile was empty
    r = c.post("/api/round/audit/preview", json={"counts": {"red": 4}, "nertz_left": {"red": 5}})
    assert r.status_code == 422 and "valid call" in r.json()["detail"], r.text
    # zones counted in a photo: what lies in the caller's zone is not a Nertz pile
    r = c.post("/api/round/audit/preview", json={"counts": {"red": 4, "blue": 0, "green": 1},
                                                 "zones": {"red": {"red": 6}, "blue": {"blue": 3}, "green": {"green": 2}}})
    assert r.status_code == 200, r.text
    assert {n: p["nertz_left"] for n, p in r.json()["players"].items()} == {"red": 0, "blue": 3, "green": 2}
    r = c.post("/api/round/end")
    assert r.status_code == 409 and "already ended" in r.json()["detail"], r.text
    assert _kinds(live) == kinds


def test_a_photo_taken_during_play_is_refused_and_stores_nothing(tmp_path: Path, scene: Any) -> None:
    # a frame of the bundled sample round mid-play, under the sample's table: face-up foundations
    from nertz.referee.files import read_table

    sample = Path(__file__).resolve().parent.parent / "datasets" / "samples" / "round-3p"
    cap = cv2.VideoCapture(str(sample / "clip.mp4"))
    cap.set(cv2.CAP_PROP_POS_FRAMES, 1200)
    ok, frame = cap.read()
    cap.release()
    live = LiveReferee(EventStore(tmp_path / "mid.db"), read_table(sample / "table.json"))
    live.push_event({"type": "call", "t": 1.0, "player": "red"})
    kinds = _kinds(live)
    r = _client(live).post("/api/round/audit/photo", content=_jpeg(frame), headers={"Content-Type": "image/jpeg"})
    assert r.status_code == 422 and "not a photo of the round's end" in r.json()["detail"], r.text
    assert _kinds(live) == kinds
