"""The replay source: events at their times, and the round's video as the camera view."""

import threading
from pathlib import Path

import cv2
import numpy as np
import pytest

from nertz.referee.errors import NertzError
from nertz.referee.service.cli import sample_round_dir
from nertz.referee.service.sources import LogReplaySource

SAMPLE = Path(__file__).resolve().parents[1] / "datasets" / "samples" / "round-3p"


def test_default_source_is_the_bundled_sample_round():
    assert sample_round_dir().resolve() == SAMPLE.resolve()


def test_replay_shows_the_video_frame_at_the_round_clock():
    src = LogReplaySource(SAMPLE / "events.jsonl", speed=1000, video=SAMPLE / "clip.mp4")
    assert src.frame() is None  # no clock before the round starts
    now = {"t": 5.0}  # the round clock, seconds: past the first play
    events = src.events(0, lambda: now["t"], threading.Event())
    first = next(events)
    assert first[0] == 0 and first[1]["type"] == "play"

    def decoded(t):
        now["t"] = t
        jpeg = src.frame()
        assert jpeg is not None and jpeg[:2] == b"\xff\xd8"
        return cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)

    a, b, a_again = decoded(10.0), decoded(40.0), decoded(10.0)  # forward, then a seek back
    # the video's own size: the table's polygons, drawn and clicked on the camera tab, are in its pixels
    assert a.shape == (720, 1280, 3)
    assert np.abs(a.astype(int) - b.astype(int)).mean() > 1  # the table changed in 30 s
    assert np.abs(a.astype(int) - a_again.astype(int)).mean() < 1  # same media time, same frame


def test_a_broken_video_is_a_clear_error(tmp_path):
    bad = tmp_path / "clip.mp4"
    bad.write_bytes(b"not a video")
    with pytest.raises(NertzError, match="cannot be opened as a video"):
        LogReplaySource(SAMPLE / "events.jsonl", video=bad)


def _renamed_table(tmp_path: Path) -> Path:
    """The sample round's table with its players renamed anna, ben and cleo."""
    import json

    data = json.loads((SAMPLE / "table.json").read_text())
    names = dict(zip((p["name"] for p in data["players"]), ("anna", "ben", "cleo")))
    for p in data["players"]:
        p["name"] = names[p["name"]]
    data["zones"] = {names[k]: v for k, v in data.get("zones", {}).items()}
    path = tmp_path / "t_abc.json"
    path.write_text(json.dumps(data))
    return path


def test_serve_refuses_a_log_of_other_players_as_score_does(tmp_path, monkeypatch):
    import uvicorn
    from typer.testing import CliRunner

    from nertz.cli import app

    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)  # never serve here

    table = _renamed_table(tmp_path)
    db = tmp_path / "fresh.sqlite3"
    args = ["--source", str(SAMPLE / "events.jsonl"), "--table", str(table)]
    runner = CliRunner()
    served = runner.invoke(app, ["serve", *args, "--db", str(db), "--port", "0"])
    scored = runner.invoke(app, ["score", str(SAMPLE / "events.jsonl"), "--table", str(table)])
    assert served.exit_code == 2 and scored.exit_code == 2
    assert "Traceback" not in served.output
    line = f"error: {SAMPLE / 'events.jsonl'}, line 1: unknown player 'green'"
    assert served.output.splitlines()[0].startswith(line), served.output
    assert scored.output.splitlines()[0].startswith(line), scored.output
    assert not db.exists()  # refused before the store is made


def test_serve_on_a_port_in_use_says_so_and_makes_no_store(tmp_path):
    import socket

    from typer.testing import CliRunner

    from nertz.cli import app

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        db = tmp_path / "new.sqlite3"
        r = CliRunner().invoke(app, ["serve", "--source", str(SAMPLE / "events.jsonl"), "--db", str(db),
                                     "--port", str(taken.getsockname()[1])])
    finally:
        taken.close()
    assert r.exit_code == 2 and "already in use" in r.output, r.output
    assert not db.exists() and not list(tmp_path.iterdir())


def test_serve_takes_an_event_log_of_any_name_as_a_log(tmp_path, monkeypatch):
    """A log named round.log or EVENTS.JSONL is replayed, not taken for a camera (which asked
    for a table file and then said the log could not be opened as a video)."""
    import uvicorn
    from typer.testing import CliRunner

    from nertz.cli import app

    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)  # never serve here
    for i, name in enumerate(("round.log", "EVENTS.JSONL")):
        log = tmp_path / name
        log.write_bytes((SAMPLE / "events.jsonl").read_bytes())
        r = CliRunner().invoke(app, ["serve", "--source", str(log), "--db", str(tmp_path / f"s{i}.db"), "--port", "0"])
        assert r.exit_code == 0, r.output
        assert f"source: log-replay {log} at speed 1" in r.output, r.output


def test_serve_on_every_address_prints_a_link_with_the_host_name(tmp_path, monkeypatch):
    """--host "" listens on every address, as 0.0.0.0 does: the link shown names this machine
    (it was http://:PORT/, no link at all)."""
    import socket

    import uvicorn
    from typer.testing import CliRunner

    from nertz.cli import app

    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)  # never serve here
    r = CliRunner().invoke(app, ["serve", "--source", str(SAMPLE / "events.jsonl"), "--db", str(tmp_path / "s.db"),
                                 "--host", "", "--port", "0"])
    assert r.exit_code == 0, r.output
    assert "table token: " in r.output and f"open http://{socket.gethostname()}:" in r.output, r.output


def test_log_check_passes_the_sample_against_its_own_table():
    from nertz.referee.files import read_table

    LogReplaySource(SAMPLE / "events.jsonl").check(read_table(SAMPLE / "table.json"))  # no error


def test_source_events_that_do_not_apply_are_printed_kept_and_shown(tmp_path, capsys):
    """An event the round refuses at run time (here a log checked against no table: as a
    camera's report of a player not at the table) is not silent: console, GET /api/round,
    the WebSocket."""
    import time

    from fastapi.testclient import TestClient

    from nertz.referee.files import read_table
    from nertz.referee.service.app import create_app
    from nertz.referee.service.live import SOURCE_ERRORS_KEPT, LiveReferee
    from nertz.referee.store import EventStore

    src = LogReplaySource(SAMPLE / "events.jsonl", speed=5000)
    n = len(src)
    live = LiveReferee(EventStore(tmp_path / "ref.db"), read_table(_renamed_table(tmp_path)), src)
    msgs: list = []
    live.subscribe(msgs.append)  # what the WebSocket sends
    with TestClient(create_app(live)) as c:
        deadline = time.monotonic() + 30
        while not c.get("/api/round").json()["source_ended"] and time.monotonic() < deadline:
            time.sleep(0.05)
        body = c.get("/api/round").json()
    assert body["source_ended"] and body["events"] == []
    assert body["source_error_count"] == n > SOURCE_ERRORS_KEPT
    assert len(body["source_errors"]) == SOURCE_ERRORS_KEPT  # capped: the latest ones
    last = body["source_errors"][-1]
    assert last["index"] == n - 1 and "unknown player" in last["message"]
    assert last["t"] == src.contract_events[-1].get("t")
    err = capsys.readouterr().err
    assert err.count("source error: log-replay event") == n
    assert "unknown player 'green'" in err
    errors = [m for m in msgs if m["type"] == "source_error"]
    assert len(errors) == n and all("unknown player" in m["message"] for m in errors)
    assert errors[-1]["count"] == n


def test_a_logs_answer_ahead_of_its_question_is_replayed_as_score_reads_it(tmp_path):
    """A resolve line before the tie it answers (answers hold for the whole round in `nertz
    score`) was a source error in the service: the tie stayed open, scored otherwise."""
    import json
    import time

    from nertz.referee.files import read_event_log, read_table
    from nertz.referee.round import Round
    from nertz.referee.service.live import LiveReferee
    from nertz.referee.store import EventStore

    table = tmp_path / "table.json"
    table.write_text(json.dumps({"players": [{"name": "red", "back": "#b3261e"}, {"name": "blue", "back": "#1e4bb3"}],
                                 "rules": {"tie": "strict"}}))
    log = tmp_path / "events.jsonl"
    log.write_text("\n".join(json.dumps(e) for e in (
        {"type": "resolve", "id": "tie:1:2S", "winner": "blue"},
        {"t": 0.5, "type": "play", "player": "red", "card": "AS", "pile": 1},
        {"t": 1.0, "type": "play", "player": "red", "card": "2S", "pile": 1},
        {"t": 1.01, "type": "play", "player": "blue", "card": "2S", "pile": 1},
        {"t": 2.0, "type": "call", "player": "red"})) + "\n")
    tbl = read_table(table)
    scored = Round(tbl, [ev for _, ev in read_event_log(log)]).result.to_json()
    live = LiveReferee(EventStore(tmp_path / "ref.db"), tbl, LogReplaySource(log, speed=1000))
    live.start()
    try:
        deadline = time.monotonic() + 30
        while not live.source_ended and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        live.stop()
    assert live.source_errors == []
    assert live.scored_result() == scored and scored["players"]["blue"]["foundation"] == 1


def test_serve_says_a_folder_it_may_not_read_cannot_be_read(tmp_path, monkeypatch):
    """A folder source this user may not read was reported as 'DIR/events.jsonl: Permission
    denied', a file the user never named (serve looks in a folder for a round's log first)."""
    import uvicorn
    from conftest import make_unreadable
    from typer.testing import CliRunner

    from nertz.cli import app

    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)  # never serve here
    folder = tmp_path / "frames"
    folder.mkdir()
    cv2.imwrite(str(folder / "f0.png"), np.zeros((720, 1280, 3), np.uint8))
    make_unreadable(folder, monkeypatch)
    try:
        r = CliRunner().invoke(app, ["serve", "--source", str(folder), "--table", str(SAMPLE / "table.json"),
                                     "--db", str(tmp_path / "s.db"), "--port", "0"])
    finally:
        folder.chmod(0o755)
    assert r.exit_code == 2, (r.output, r.exception)
    assert r.stderr == f"error: {folder}: the folder cannot be read (Permission denied)\n", r.stderr
