"""The append-only event store: every event, ruling, correction and round boundary of every
match, in one SQLite file (standard library :mod:`sqlite3`, WAL journal).

Nothing here knows the rules. The store keeps the *inputs* of the referee (contract events,
people's corrections, table changes, round and match boundaries) and, for the record, the
rulings as they were announced; the live service rebuilds its state by replaying the inputs
through :class:`nertz.referee.round.Round` and :class:`nertz.referee.match.Match`, so the
rules have a single home.

Layout: one table ``log`` (one row per entry, ``seq`` ascending in the order written) and one
table ``frames`` (a JPEG kept with an entry, e.g. the camera frame of a low-confidence play).
Triggers refuse every ``UPDATE`` and ``DELETE``: the store can only grow. Each append is
its own committed transaction with ``synchronous=FULL``, so a process killed at any moment
loses nothing it had acknowledged.

Entry kinds (``data`` is a JSON object):

=================  ===========================================================================
``match_start``    ``{"table": {...table file...}}``: a new match starts at this table
``table``          ``{"table": {...}}``: the table changed (calibration); same players and rules
``round_start``    ``{"number": n, "wall_start": unix seconds, "speed": clock factor}``
``event``          ``{"event": {...contract event...}}``; ``origin`` says who reported it
``ruling``         ``{"ruling": {...ruling json...}}``: announced (record only; never replayed)
``correction``     ``{"target": seq, "action": "confirm" | "change_owner" | "replace" | "reject",
                   ...}``: a person's correction of an earlier ``event`` entry
``round_close``    ``{"result": {...}}``: the round was closed and added to the match
=================  ===========================================================================
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nertz.referee.errors import NertzError

__all__ = ["EventStore", "Entry", "KINDS", "StoreError"]

KINDS = ("match_start", "table", "round_start", "event", "ruling", "correction", "round_close")
"""The entry kinds the store accepts."""

SCHEMA_VERSION = 1

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS log (
    seq    INTEGER PRIMARY KEY AUTOINCREMENT,
    wall   REAL    NOT NULL,
    match  INTEGER NOT NULL,
    round  INTEGER NOT NULL,
    kind   TEXT    NOT NULL CHECK (kind IN ({", ".join(repr(k) for k in KINDS)})),
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
"""


class StoreError(NertzError):
    """The store file cannot be opened or is not a referee store."""


@dataclass(frozen=True)
class Entry:
    """One row of the log.

    Attributes:
        seq: position in the store (ascending in the order written, never reused).
        wall: when it was written, Unix seconds.
        match: the match number (1-based).
        round: the round number within the match (1-based; 0 for match-level entries).
        kind: one of :data:`KINDS`.
        origin: who wrote it (``"source:log-replay"``, ``"api"``, ``"button"``, ``"service"``).
        data: the decoded JSON payload.
    """

    seq: int
    wall: float
    match: int
    round: int
    kind: str
    origin: str
    data: dict[str, Any]


class EventStore:
    """An append-only SQLite store of referee entries, safe to share between threads.

    Args:
        path: the database file (created if missing; its folder must exist), or
            ``":memory:"`` for a throw-away store.

    Raises:
        StoreError: the file cannot be created or opened, or is not a SQLite database.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            p = Path(self.path)
            if p.is_dir():
                raise StoreError(f"{path}: is a folder, not a database file")
            if not p.parent.is_dir():
                raise StoreError(f"{path}: the folder {p.parent} does not exist")
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=10)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path}: cannot be used as the referee's store ({exc})") from None

    @property
    def journal_mode(self) -> str:
        """The SQLite journal mode in use (``"wal"``; ``"memory"`` for ``":memory:"``)."""
        with self._lock:
            return str(self._db.execute("PRAGMA journal_mode").fetchone()[0])

    def append(
        self,
        kind: str,
        data: dict[str, Any],
        *,
        match: int,
        round: int,
        origin: str,
        jpeg: bytes | None = None,
        wall: float | None = None,
    ) -> Entry:
        """Write one entry (and optionally a JPEG frame with it) in one transaction.

        Raises:
            ValueError: an unknown ``kind``.
        """
        if kind not in KINDS:
            raise ValueError(f"unknown store entry kind {kind!r}")
        wall = time.time() if wall is None else wall
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                cur = self._db.execute(
                    "INSERT INTO log (wall, match, round, kind, origin, data) VALUES (?, ?, ?, ?, ?, ?)",
                    (wall, match, round, kind, origin, text),
                )
                seq = int(cur.lastrowid or 0)
                if jpeg is not None:
                    self._db.execute("INSERT INTO frames (seq, jpeg) VALUES (?, ?)", (seq, jpeg))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return Entry(seq, wall, match, round, kind, origin, data)

    def entries(self, *, match: int | None = None, after: int = 0) -> Iterator[Entry]:
        """The entries in the order written (optionally of one match, after a ``seq``)."""
        sql = "SELECT seq, wall, match, round, kind, origin, data FROM log WHERE seq > ?"
        args: list[Any] = [after]
        if match is not None:
            sql += " AND match = ?"
            args.append(match)
        with self._lock:
            rows = self._db.execute(sql + " ORDER BY seq", args).fetchall()
        for seq, wall, m, r, kind, origin, data in rows:
            yield Entry(seq, wall, m, r, kind, origin, json.loads(data))

    def frame(self, seq: int) -> bytes | None:
        """The JPEG kept with entry ``seq``, or ``None``."""
        with self._lock:
            row = self._db.execute("SELECT jpeg FROM frames WHERE seq = ?", (seq,)).fetchone()
        return bytes(row[0]) if row else None

    def close(self) -> None:
        """Close the database (the WAL is checkpointed by SQLite)."""
        with self._lock:
            self._db.close()
