"""The append-only event store and recovery: restart restores the match and the round; a real
``kill -9`` of ``nertz serve`` loses nothing that was acknowledged."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from nertz.referee.service.live import LiveReferee
from nertz.referee.service.sources import LogReplaySource
from nertz.referee.service.views import match_view, round_view
from nertz.referee.store import EventStore

from conftest import make_table

EXAMPLE = Path(__file__).resolve().parents[1] / "datasets" / "examples" / "club-night"
NERTZ = Path(sys.executable).with_name("nertz")


def _state(live: LiveReferee) -> dict[str, Any]:
    view = round_view(live)
    view.pop("clock")
    return {"round": view, "match": match_view(live)}


def test_store_is_append_only_and_in_wal_mode(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "s.db")
    assert store.journal_mode == "wal"
    e = store.append("event", {"event": {"type": "call", "t": 1.0, "player": "red"}}, match=1, round=1, origin="api", jpeg=b"\xff\xd8x")
    assert [x.data for x in store.entries()] == [{"event": {"type": "call", "t": 1.0, "player": "red"}}]
    assert store.frame(e.seq) == b"\xff\xd8x"
    store.close()
    db = sqlite3.connect(tmp_path / "s.db", isolation_level=None)
    for sql in ("UPDATE log SET data = '{}'", "DELETE FROM log", "UPDATE frames SET jpeg = x'00'", "DELETE FROM frames"):
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            db.execute(sql)
    db.close()
    with pytest.raises(ValueError):
        EventStore(tmp_path / "s.db").append("nonsense", {}, match=1, round=1, origin="api")


def test_store_refuses_a_bad_path(tmp_path: Path) -> None:
    from nertz.referee.store import StoreError

    with pytest.raises(StoreError, match="does not exist"):
        EventStore(tmp_path / "missing" / "s.db")
    with pytest.raises(StoreError, match="folder"):
        EventStore(tmp_path)
    (tmp_path / "junk.db").write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="cannot be used"):
        EventStore(tmp_path / "junk.db")


def test_store_refuses_the_database_of_another_program_and_leaves_it_as_it_was(tmp_path: Path) -> None:
    from nertz.referee.store import StoreError

    other = tmp_path / "notes.db"  # --db given another program's SQLite file by mistake
    db = sqlite3.connect(other, isolation_level=None)
    db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    db.execute("INSERT INTO notes (body) VALUES ('keep me')")
    db.close()
    with pytest.raises(StoreError, match="something else, with the tables notes"):
        EventStore(other)
    db = sqlite3.connect(other, isolation_level=None)
    assert [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")] == ["notes"]
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert db.execute("SELECT body FROM notes").fetchall() == [("keep me",)]
    db.close()
    # an empty SQLite file, and a store, still open
    sqlite3.connect(tmp_path / "empty.db").close()
    EventStore(tmp_path / "empty.db").close()
    EventStore(tmp_path / "empty.db").close()


def test_restart_restores_match_round_corrections_and_calibration(tmp_path: Path) -> None:
    table = make_table(("red", "blue", "green"))
    live = LiveReferee(EventStore(tmp_path / "r.db"), table)
    live.push_event({"type": "play", "t": 1.0, "player": "red", "card": "AS", "pile": 1})
    live.push_event({"type": "call", "t": 2.0, "player": "red"})
    live.next_round()
    live.push_event({"type": "play", "t": 1.0, "player": "blue", "card": "AH", "pile": 1})
    low = live.push_event({"type": "play", "t": 2.0, "player": "blue", "card": "2H", "pile": 1, "confidence": 0.3})
    live.push_event({"type": "play", "t": 3.0, "player": "green", "card": "3S", "pile": 1})  # wrong suit
    live.resolve_review(f"play:{low['seq']}", "change_owner", player="green")
    live.set_table(table.model_copy(update={"shared_area": ((0.0, 0.0), (10.0, 0.0), (10.0, 10.0))}))
    before = _state(live)
    live.store.close()

    again = LiveReferee(EventStore(tmp_path / "r.db"), make_table(("x", "y")))  # the stored table wins
    assert again.resumed
    assert _state(again) == before
    assert before["round"]["round"] == 2 and before["match"]["rounds"] == [{"red": 1, "blue": 0, "green": 0}]
    assert {p["name"]: p["foundation"] for p in before["round"]["players"]} == {"red": 0, "blue": 1, "green": 1}
    assert again.table is not None and again.table.shared_area == ((0.0, 0.0), (10.0, 0.0), (10.0, 10.0))


def test_restart_finishes_a_step_cut_in_two_by_a_kill(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "r.db")
    live = LiveReferee(store, make_table(("red", "blue")))
    live.push_event({"type": "call", "t": 1.0, "player": "red"})
    # killed after the round was closed, before the next one was started
    store.append("round_close", {"result": live.round.result.to_json()}, match=1, round=1, origin="button")
    # and a second match whose first round never started
    again = LiveReferee(EventStore(tmp_path / "r.db"))
    assert (again.current.number, again.current.closed) == (2, False)
    assert again.match().rounds == [{"red": 0, "blue": 0}]
    again.push_event({"type": "play", "t": 1.0, "player": "red", "card": "AS", "pile": 1})
    again.store.append("match_start", {"table": again.table.to_dict()}, match=2, round=0, origin="button")  # type: ignore[union-attr]
    third = LiveReferee(EventStore(tmp_path / "r.db"))
    assert (third.match_no, third.current.number, third.current.events) == (2, 1, [])


def test_replay_source_resumes_where_it_stopped(tmp_path: Path) -> None:
    table_path, log = EXAMPLE / "table.json", EXAMPLE / "events.jsonl"
    from nertz.referee.files import read_table

    store = EventStore(tmp_path / "r.db")
    live = LiveReferee(store, read_table(table_path), LogReplaySource(log, speed=1.0))
    live.rounds[-1].wall_start -= 12.0  # the round started 12 s ago: events up to t=12 are due
    live.start()
    deadline = time.monotonic() + 10
    while len(live.current.events) < 14 and time.monotonic() < deadline:
        time.sleep(0.02)
    live.stop()
    done = len(live.current.events)
    assert 14 <= done < 45
    store.close()
    store2 = EventStore(tmp_path / "r.db")
    again = LiveReferee(store2, None, LogReplaySource(log, speed=1.0))
    again.rounds[-1].wall_start -= 100.0  # as if the service had been down long enough for all to be due
    again.start()
    deadline = time.monotonic() + 20
    while len(again.current.events) < 45 and time.monotonic() < deadline:
        time.sleep(0.02)
    again.stop()
    assert [se.index for se in again.current.events] == list(range(45))
    assert {n: s.score for n, s in again.round.result.players.items()} == {"red": 12, "blue": 2, "green": -4}


# -- the real kill ------------------------------------------------------------------------------


def _two_player_files(tmp_path: Path) -> tuple[Path, Path]:
    """A two-player table file (red, blue) and an event log of one play (red's AS) in
    ``tmp_path``: ``(table, log)``."""
    table = tmp_path / "table.json"
    table.write_text(json.dumps({"players": [{"name": "red", "back": "#b3261e"}, {"name": "blue", "back": "#1e4bb3"}]}))
    log = tmp_path / "source.jsonl"
    log.write_text('{"t": 0.0, "type": "play", "player": "red", "card": "AS", "pile": 1}\n')
    return table, log


def _start(db: Path, log: Path, table: Path) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [str(NERTZ), "serve", "--port", "0", "--db", str(db), "--source", str(log), "--table", str(table)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    lines = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        if line.startswith("open http://"):
            base = line.split()[1].rstrip("/")
            # the socket is bound before this line is printed; wait until the app answers
            while time.monotonic() < deadline:
                try:
                    _get(base, "/api/round")
                    return proc, base
                except (urllib.error.URLError, ConnectionError):
                    time.sleep(0.05)
    proc.kill()
    raise AssertionError("nertz serve did not start:\n" + "".join(lines))


def _get(base: str, path: str) -> Any:
    with urllib.request.urlopen(base + path, timeout=10) as r:
        return json.loads(r.read())


def _post(base: str, path: str, body: Any = None) -> Any:
    req = urllib.request.Request(
        base + path,
        data=json.dumps(body).encode() if body is not None else b"",
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def _comparable(state: dict[str, Any]) -> dict[str, Any]:
    state = dict(state)
    state.pop("clock")
    state.pop("source")
    state.pop("source_ended")  # the running service's source, not the stored round
    return state


def test_kill_9_and_restart_loses_nothing(tmp_path: Path) -> None:
    table = _two_player_files(tmp_path)[0]
    log = tmp_path / "source.jsonl"  # a short source: two plays right at the start
    log.write_text(
        '{"t": 0.0, "type": "play", "player": "red", "card": "AS", "pile": 1, "confidence": 0.95}\n'
        '{"t": 0.1, "type": "play", "player": "blue", "card": "AH", "pile": 2, "confidence": 0.97}\n'
    )
    db = tmp_path / "referee.db"
    proc, base = _start(db, log, table)
    try:
        deadline = time.monotonic() + 10
        while len(_get(base, "/api/round")["events"]) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        # round 1: ended by a call, closed into the match; round 2 under way
        _post(base, "/api/events", {"type": "call", "player": "red"})
        _post(base, "/api/round/next")
        acknowledged = []
        cards = ["AC", "2C", "3C", "4C", "5C", "6C"]
        for i, card in enumerate(cards):
            who = "red" if i % 2 == 0 else "blue"
            r = _post(base, "/api/events", {"type": "play", "t": 10.0 + i, "player": who, "card": card, "pile": 7})
            acknowledged.append(r["detail"]["seq"])

        # keep posting from another thread and kill the process in the middle of it
        acked_during: list[int] = []

        def hammer() -> None:
            for i in range(200):
                try:
                    r = _post(base, "/api/events", {"type": "nertz_left", "t": 20.0 + i, "player": "blue", "count": i % 13})
                    acked_during.append(r["detail"]["seq"])
                except Exception:
                    return

        th = threading.Thread(target=hammer)
        th.start()
        while len(acked_during) < 5:
            time.sleep(0.01)
        before_kill = _get(base, "/api/round")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        th.join(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL

    proc2, base2 = _start(db, log, table)
    try:
        after = _get(base2, "/api/round")
        match = _get(base2, "/api/match")
        time.sleep(0.3)  # the restarted source must not report its two plays again
        after_wait = _get(base2, "/api/round")
    finally:
        proc2.terminate()
        proc2.wait(timeout=10)
    seqs = [e["seq"] for e in after["events"]]
    # every acknowledged event is back, in order
    assert [s for s in seqs if s in acknowledged] == acknowledged
    assert set(acked_during) <= set(seqs)
    # what was there before the kill is a prefix of what came back
    assert after["events"][: len(before_kill["events"])] == before_kill["events"]
    assert (after["match"], after["round"], after["closed"]) == (1, 2, False)
    # round 2: the source's two plays again (it replays its log each round), then ours on pile 7
    assert [p["pile"] for p in after["piles"]] == [1, 2, 7]
    assert [c["card"] for c in after["piles"][2]["cards"]] == cards
    assert {p["name"]: p["foundation"] for p in after["players"]} == {"red": 4, "blue": 4}
    assert sum(e["origin"] == "source:log-replay" for e in after["events"]) == 2
    assert match["rounds"] == [{"red": 1, "blue": 1}]
    assert len(after_wait["events"]) == len(after["events"])
    # the state computed right after the restart equals a fresh replay of the same store
    store = EventStore(db)
    offline = LiveReferee(store)
    assert _comparable(round_view(offline)) == _comparable(after)


def test_a_second_server_on_the_same_store_is_refused(tmp_path: Path) -> None:
    table, log = _two_player_files(tmp_path)
    db = tmp_path / "referee.db"
    proc, _ = _start(db, log, table)
    try:
        second = subprocess.run([str(NERTZ), "serve", "--port", "0", "--db", str(db), "--source", str(log),
                                 "--table", str(table)], capture_output=True, text=True, timeout=60)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert second.returncode == 2 and "in use by another nertz serve" in second.stderr
    assert "Traceback" not in second.stderr


def test_serve_with_a_db_in_a_missing_folder_names_the_folder(tmp_path: Path) -> None:
    # the message named the lock file beside the store, which the user never typed
    r = subprocess.run([str(NERTZ), "serve", "--port", "0", "--db", str(tmp_path / "nowhere" / "x.sqlite3")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert f"no folder {tmp_path / 'nowhere'}" in r.stderr and ".lock" not in r.stderr


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc, where no file can be made")
def test_serve_with_a_db_where_no_file_can_be_made_names_the_db_and_why() -> None:
    # "error: /proc/x.sqlite3.lock: No such file or directory": the lock file, not the store
    r = subprocess.run([str(NERTZ), "serve", "--port", "0", "--db", "/proc/x.sqlite3"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr and r.stderr.count("\n") == 1
    assert r.stderr.startswith("error: --db /proc/x.sqlite3: the store cannot be kept there (")


# -- the main file alone (a backup copy) ------------------------------------------------------


def _copy_main_file_alone(db: Path, dest: Path) -> list[tuple[str, int, str]]:
    """Copy only ``db`` (not its ``-wal``/``-shm``) into ``dest`` and read its log there:
    ``(kind, round, data)`` per entry."""
    dest.mkdir()
    copy = dest / db.name
    copy.write_bytes(db.read_bytes())
    con = sqlite3.connect(copy)
    try:
        return [(k, r, d) for k, r, d in con.execute("SELECT kind, round, data FROM log ORDER BY seq")]
    finally:
        con.close()


def test_a_closed_round_is_in_the_main_file_at_once(tmp_path: Path) -> None:
    # a crash (kill -9) between rounds leaves the WAL beside the store; a backup of the main
    # file alone must still hold every closed round, so closing a round checkpoints the WAL
    live = LiveReferee(EventStore(tmp_path / "r.db"), make_table(("red", "blue")))
    live.push_event({"type": "play", "t": 1.0, "player": "red", "card": "AS", "pile": 1})
    live.push_event({"type": "call", "t": 2.0, "player": "red"})
    live.next_round()
    try:
        entries = _copy_main_file_alone(tmp_path / "r.db", tmp_path / "backup")
        assert live.store.journal_mode == "wal"  # still in WAL mode after the checkpoint
    finally:
        live.store.close()
    kinds = [(k, r) for k, r, _ in entries]
    assert ("round_close", 1) in kinds and kinds.count(("event", 1)) == 2
    assert live.store.close() is None  # closing twice is harmless


def test_sigterm_closes_the_store_into_the_main_file(tmp_path: Path) -> None:
    # `kill -TERM` stopped the server without closing the store: the main file stayed at
    # 4096 bytes with everything in the WAL (Ctrl-C closed it cleanly)
    table, log = _two_player_files(tmp_path)
    db = tmp_path / "w3.sqlite3"
    proc, base = _start(db, log, table)
    try:
        _post(base, "/api/events", {"type": "call", "player": "red"})
        _post(base, "/api/round/next")
        _post(base, "/api/events", {"type": "play", "t": 5.0, "player": "blue", "card": "AH", "pile": 7})
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGTERM, out  # still ends as a SIGTERM ends a process
    assert "Traceback" not in out
    assert not Path(f"{db}-wal").exists()  # closed: SQLite removes the WAL after its checkpoint
    entries = _copy_main_file_alone(db, tmp_path / "backup")
    kinds = [(k, r) for k, r, _ in entries]
    assert ("round_close", 1) in kinds and ("round_start", 2) in kinds
    # the play of round 2, written after the round-close checkpoint, is in the main file too
    assert any(k == "event" and r == 2 and '"AH"' in d for k, r, d in entries)


def test_ctrl_c_stops_the_server_while_the_camera_view_streams(tmp_path: Path) -> None:
    # uvicorn waits for every response to end before it stops: with the page's camera tab
    # open (an endless MJPEG stream) Ctrl-C hung, silently, until the page was closed
    table, log = _two_player_files(tmp_path)
    proc, base = _start(tmp_path / "s.sqlite3", log, table)
    try:
        stream = urllib.request.urlopen(base + "/api/video/stream.mjpg?fps=0.01", timeout=30)
        assert stream.read(20).startswith(b"--nertzframe")
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=10)
        stream.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "Traceback" not in out


def test_a_refused_db_leaves_no_lock_file_beside_it(tmp_path: Path) -> None:
    # `--db README.md` (or a folder) was refused, but README.md.lock stayed beside it
    other = tmp_path / "notes.txt"
    other.write_text("not a store\n")
    for db in (other, tmp_path):
        r = subprocess.run([str(NERTZ), "serve", "--port", "0", "--db", str(db)], capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
        assert not Path(f"{db}.lock").exists()
    assert other.read_text() == "not a store\n"
