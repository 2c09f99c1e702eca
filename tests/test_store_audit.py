"""The store's ``audit`` kind and the schema upgrade from version 1 (issue 7).

A version-1 file is built here with raw :mod:`sqlite3` and the version-1 DDL exactly as the
store wrote it before the upgrade, so the test does not depend on the code under test to make
its input.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from nertz.referee.store import KINDS, SCHEMA_VERSION, EventStore, StoreError

V1_DDL = """
CREATE TABLE IF NOT EXISTS log (
    seq    INTEGER PRIMARY KEY AUTOINCREMENT,
    wall   REAL    NOT NULL,
    match  INTEGER NOT NULL,
    round  INTEGER NOT NULL,
    kind   TEXT    NOT NULL CHECK (kind IN ('match_start', 'table', 'round_start', 'event', 'ruling', 'correction', 'round_close')),
    origin TEXT    NOT NULL,
    data   TEXT    NOT NULL
);
CREATE TABLE IF NOT EXISTS frames (
    seq  INTEGER PRIMARY KEY REFERENCES log(seq),
    jpeg BLOB    NOT NULL
);
CREATE TRIGGER IF NOT EXISTS log_no_update BEFORE UPDATE ON log
    BEGIN SELECT RAISE(ABORT, 'the event store is append-only'); END;
CREATE TRIGGER IF NOT EXISTS log_no_delete BEFORE DELETE ON log
    BEGIN SELECT RAISE(ABORT, 'the event store is append-only'); END;
CREATE TRIGGER IF NOT EXISTS frames_no_update BEFORE UPDATE ON frames
    BEGIN SELECT RAISE(ABORT, 'the event store is append-only'); END;
CREATE TRIGGER IF NOT EXISTS frames_no_delete BEFORE DELETE ON frames
    BEGIN SELECT RAISE(ABORT, 'the event store is append-only'); END;
PRAGMA user_version=1;
"""

V1_ROWS = [
    (1000.0, 1, 0, "match_start", "service", '{"table":{"players":[{"name":"red","back":"#b3261e"}]}}'),
    (1001.0, 1, 1, "round_start", "service", '{"number":1,"wall_start":1001.0,"speed":1.0}'),
    (1002.0, 1, 1, "event", "api", '{"event":{"type":"play","t":1.0,"player":"red","card":"AS","pile":1}}'),
    (1003.0, 1, 1, "ruling", "referee", '{"ruling":{"kind":"accepted"}}'),
    (1004.0, 1, 1, "event", "api", '{"event":{"type":"call","t":2.0,"player":"red"}}'),
]


def _v1_file(path: Path, *, gap: bool = False) -> list[tuple]:
    """A version-1 store with five entries and a frame; with ``gap`` its AUTOINCREMENT
    counter is ahead of its last row (as after a rolled-back insert on some SQLite builds)."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(V1_DDL)
    for row in V1_ROWS:
        db.execute("INSERT INTO log (wall, match, round, kind, origin, data) VALUES (?, ?, ?, ?, ?, ?)", row)
    db.execute("INSERT INTO frames (seq, jpeg) VALUES (3, x'ffd8ff00')")
    if gap:
        db.execute("UPDATE sqlite_sequence SET seq = 40 WHERE name = 'log'")
    with pytest.raises(sqlite3.IntegrityError):  # version 1 refuses the new kind
        db.execute("INSERT INTO log (wall, match, round, kind, origin, data) VALUES (1, 1, 1, 'audit', 'api', '{}')")
    rows = db.execute("SELECT * FROM log ORDER BY seq").fetchall()
    assert db.execute("PRAGMA user_version").fetchone()[0] == 1
    db.close()
    return rows


def _raw(path: Path, sql: str) -> list[tuple]:
    db = sqlite3.connect(path, isolation_level=None)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def test_a_version_1_file_is_upgraded_in_place_without_losing_anything(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    rows = _v1_file(path)
    store = EventStore(path)
    assert (store.migrated_from, store.schema_version, SCHEMA_VERSION) == (1, 2, 2)
    assert [(e.seq, e.wall, e.match, e.round, e.kind, e.origin) for e in store.entries()] == [r[:6] for r in rows]
    assert [e.data for e in store.entries()][2] == {"event": {"type": "play", "t": 1.0, "player": "red", "card": "AS", "pile": 1}}
    assert store.frame(3) == b"\xff\xd8\xff\x00"
    data = {"counts": {"red": 2}, "nertz_left": None, "unknown": 0, "face_up": None}
    e = store.append("audit", data, match=1, round=1, origin="api", jpeg=b"\xff\xd8photo")
    assert e.seq == 6  # seq continues after the old rows
    assert [x.kind for x in store.entries()][-1] == "audit" and store.frame(6) == b"\xff\xd8photo"
    store.close()
    # the upgraded file is plain version 2: opened again, nothing more to do
    again = EventStore(path)
    assert again.migrated_from is None and len(list(again.entries())) == 6
    again.close()
    assert _raw(path, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") == [
        ("frames",), ("log",), ("sqlite_sequence",)]
    assert _raw(path, "SELECT name, seq FROM sqlite_sequence") == [("log", 6)]
    assert sorted(_raw(path, "SELECT name FROM sqlite_master WHERE type = 'trigger'")) == [
        ("frames_no_delete",), ("frames_no_update",), ("log_no_delete",), ("log_no_update",)]
    assert _raw(path, "PRAGMA integrity_check") == [("ok",)]
    assert _raw(path, "PRAGMA foreign_key_check") == []


def test_the_upgraded_file_is_still_append_only(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    _v1_file(path)
    EventStore(path).close()
    db = sqlite3.connect(path, isolation_level=None)
    try:
        for sql in ("UPDATE log SET data = '{}'", "DELETE FROM log", "DELETE FROM log WHERE kind = 'event'",
                    "UPDATE frames SET jpeg = x'00'", "DELETE FROM frames"):
            with pytest.raises(sqlite3.DatabaseError, match="append-only"):
                db.execute(sql)
        with pytest.raises(sqlite3.IntegrityError):  # the CHECK still refuses unknown kinds
            db.execute("INSERT INTO log (wall, match, round, kind, origin, data) VALUES (1, 1, 1, 'nonsense', 'x', '{}')")
        assert db.execute("SELECT count(*) FROM log").fetchone()[0] == 5
    finally:
        db.close()


def test_the_upgrade_keeps_the_autoincrement_counter(tmp_path: Path) -> None:
    path = tmp_path / "gap.db"
    _v1_file(path, gap=True)
    store = EventStore(path)
    assert store.append("audit", {"counts": {}}, match=1, round=1, origin="api").seq == 41  # never reuses a seq
    store.close()


def test_a_failed_upgrade_leaves_the_version_1_file_untouched(tmp_path: Path) -> None:
    path = tmp_path / "odd.db"
    db = sqlite3.connect(path, isolation_level=None)
    # a version-1 file whose CHECK was loosened by hand: a row the version-2 table refuses
    db.executescript(V1_DDL.replace("CHECK (kind IN ('match_start', 'table', 'round_start', 'event', 'ruling', "
                                    "'correction', 'round_close'))", ""))
    db.execute("INSERT INTO log (wall, match, round, kind, origin, data) VALUES (1, 1, 0, 'mystery', 'x', '{}')")
    db.close()
    before = _raw(path, "SELECT sql FROM sqlite_master ORDER BY name")
    with pytest.raises(StoreError, match="cannot be used"):
        EventStore(path)
    assert _raw(path, "SELECT sql FROM sqlite_master ORDER BY name") == before
    assert _raw(path, "PRAGMA user_version") == [(1,)]
    assert _raw(path, "SELECT kind FROM log") == [("mystery",)]


def test_a_file_newer_than_the_code_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    EventStore(path).close()
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA user_version=3")
    db.close()
    with pytest.raises(StoreError, match=r"newer version of the referee \(store schema 3; this one reads up to 2\)"):
        EventStore(path)
    assert _raw(path, "PRAGMA user_version") == [(3,)]


def test_a_new_file_is_version_2_and_takes_every_kind(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "new.db")
    assert store.schema_version == 2 and store.migrated_from is None
    for i, kind in enumerate(KINDS):
        assert store.append(kind, {"i": i}, match=1, round=1, origin="api").seq == i + 1
    assert [e.kind for e in store.entries()] == list(KINDS) and "audit" in KINDS
    store.close()
    mem = EventStore(":memory:")
    assert mem.append("audit", {"counts": {"red": 1}}, match=1, round=1, origin="api").data == {"counts": {"red": 1}}
