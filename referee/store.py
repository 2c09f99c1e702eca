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

Between checkpoints the newest entries live in the WAL file beside the store (``<db>-wal``),
not in the main file: a copy of the main file alone (a backup) lacks them. The WAL is
checkpointed into the main file when the store is closed (:meth:`EventStore.close`) and right
after every ``round_close`` entry, so a copy of the main file alone, even one taken after the
process was killed between rounds, holds every closed round.

Entry kinds (``data`` is a JSON object):

=================  ===========================================================================
``match_start``    ``{"table": {...table file...}}``: a new match starts at this table
``table``          ``{"table": {...}}``: the table changed (calibration); same players and rules
``round_start``    ``{"number": n, "wall_start": unix seconds, "speed": clock factor}``
``event``          ``{"event": {...contract event...}}``; ``origin`` says who reported it
``ruling``         ``{"ruling": {...ruling json...}}``: announced (record only; never replayed)
``correction``     ``{"target": seq, "action": "confirm" | "change_owner" | "replace" | "reject",
                   ...}``: a person's correction of an earlier ``event`` entry
``audit``          the back count of the round's end (``shared/RULES.md``, "Scoring a
                   round"): ``{"counts": {player: n}, "nertz_left": {player: n} | null,
                   "unknown": n | null, "face_up": n | null, "zones": {zone: {player or
                   "unknown": n}} | null, "method": str | null, "source": "json" | "photo"}``;
                   ``counts`` are face-down cards per back in the shared area, ``nertz_left``
                   the Nertz cards left per player (``null``: the round's own ``nertz_left``
                   events stand); the rest is kept for the record. A photo's JPEG, when there
                   was one, is the entry's frame. The latest ``audit`` of a round is the one
                   that scores it; earlier ones stay in the store
``round_close``    ``{"result": {...}}``: the round was closed and added to the match (record
                   only: the match is rebuilt from the rounds' inputs)
=================  ===========================================================================

Schema versions (``PRAGMA user_version``, :data:`SCHEMA_VERSION`):

- **1**: the kinds above without ``audit``.
- **2**: adds the ``audit`` kind. A version-1 file is upgraded in place when opened
  (:func:`_migrate_1_to_2`): SQLite cannot alter a ``CHECK`` constraint, so ``log`` is rebuilt
  in one transaction (a new table with the new constraint, every row copied with its ``seq``,
  the old one dropped, the new one renamed, the ``AUTOINCREMENT`` counter and the append-only
  triggers restored, ``user_version`` set to 2); ``frames`` is left as it is. SQLite's schema
  changes are transactional, so a failed (or killed) upgrade leaves the file at version 1.

A file of a newer version than :data:`SCHEMA_VERSION` is refused with :class:`StoreError`.
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

KINDS = ("match_start", "table", "round_start", "event", "ruling", "correction", "round_close", "audit")
"""The entry kinds the store accepts."""

SCHEMA_VERSION = 2
"""The store layout this code writes (``PRAGMA user_version``); older files are upgraded."""

_KINDS_V1 = KINDS[:7]


def _log_ddl(name: str, kinds: tuple[str, ...]) -> str:
    kind_list = ", ".join(repr(k) for k in kinds)
    return f"""CREATE TABLE IF NOT EXISTS {name} (
    seq    INTEGER PRIMARY KEY AUTOINCREMENT,
    wall   REAL    NOT NULL,
    match  INTEGER NOT NULL,
    round  INTEGER NOT NULL,
    kind   TEXT    NOT NULL CHECK (kind IN ({kind_list})),
    origin TEXT    NOT NULL,
    data   TEXT    NOT NULL
)"""


_FRAMES_DDL = """CREATE TABLE IF NOT EXISTS frames (
    seq  INTEGER PRIMARY KEY REFERENCES log(seq),
    jpeg BLOB    NOT NULL
)"""

_TRIGGERS = [
    f"""CREATE TRIGGER IF NOT EXISTS {table}_no_{op.lower()} BEFORE {op} ON {table}
    BEGIN SELECT RAISE(ABORT, 'the event store is append-only'); END"""
    for table in ("log", "frames")
    for op in ("UPDATE", "DELETE")
]

_SCHEMA_STATEMENTS = [_log_ddl("log", KINDS), _FRAMES_DDL, *_TRIGGERS]
"""The current schema, one statement each (run inside one transaction)."""


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

    A version-1 file is upgraded to :data:`SCHEMA_VERSION` in place (``migrated_from`` then
    says from which version).

    Raises:
        StoreError: the file cannot be created or opened, is not a SQLite database, is the
            SQLite database of something else (tables but no ``log``; left as it was), was
            written by a newer version of the referee, or an upgrade failed (the file is then
            left as it was).
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
        self._closed = False
        self.migrated_from: int | None = None
        """The schema version the file was upgraded from when it was opened (``None``: none)."""
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=10)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path}: cannot be used as the referee's store ({exc})") from None
        try:
            self._refuse_foreign()
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._open_schema()
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise StoreError(f"{path}: cannot be used as the referee's store ({exc})") from None
        except StoreError:
            self._db.close()
            raise

    def _refuse_foreign(self) -> None:
        """Refuse, before anything is written to it (its journal mode included), an SQLite file
        of something else: one with tables but no ``log`` (another program's database given
        by mistake would get the referee's tables and its WAL mode).

        Raises:
            StoreError: the file holds tables and none of them is the store's ``log``.
        """
        names = [r[0] for r in self._db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        if names and "log" not in names:
            shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
            raise StoreError(f"{self.path}: cannot be used as the referee's store (an SQLite database of something "
                             f"else, with the tables {shown}; nothing was written to it)")

    def _open_schema(self) -> None:
        """Create the schema in a new file, upgrade an older one, refuse a newer one (all in
        one ``BEGIN IMMEDIATE`` transaction, so two processes opening the same old file do
        not both upgrade it).

        Raises:
            StoreError: the file was written by a newer version of the referee.
            sqlite3.DatabaseError: not a database, or the upgrade failed (rolled back).
        """
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            version = int(db.execute("PRAGMA user_version").fetchone()[0])
            has_log = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'log'").fetchone()
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path}: written by a newer version of the referee (store schema {version}; "
                    f"this one reads up to {SCHEMA_VERSION}): upgrade nertz to open it"
                )
            if has_log and version < 2:  # version 0 with a log: a store from before the version was kept
                _migrate_1_to_2(db)
                self.migrated_from = max(version, 1)
            for sql in _SCHEMA_STATEMENTS:
                db.execute(sql)
            if version != SCHEMA_VERSION:
                db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    @property
    def schema_version(self) -> int:
        """The file's schema version (``PRAGMA user_version``; :data:`SCHEMA_VERSION` once open)."""
        with self._lock:
            return int(self._db.execute("PRAGMA user_version").fetchone()[0])

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
            if kind == "round_close":  # a closed round goes into the main file at once
                self._checkpoint()
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

    def _checkpoint(self) -> bool:
        """Copy the WAL into the main database file, with the lock held: a passive checkpoint,
        which waits for no one (pages another connection is still reading stay in the WAL).
        Returns whether the whole WAL made it (``PRAGMA wal_checkpoint`` answers busy, frames
        in the WAL, frames copied; -1s for ``":memory:"``)."""
        try:
            busy, frames, done = self._db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        except sqlite3.DatabaseError:
            return False  # the data is safe in the WAL; the next checkpoint copies it
        return not busy and done == frames

    def close(self) -> None:
        """Checkpoint the WAL into the main file and close the database (closing twice is
        harmless). SQLite also checkpoints, and removes the WAL file, when the last connection
        to the file closes."""
        with self._lock:
            if self._closed:
                return
            self._checkpoint()
            self._db.close()
            self._closed = True


def _migrate_1_to_2(db: sqlite3.Connection) -> None:
    """Rebuild ``log`` with the version-2 ``CHECK`` (the ``audit`` kind), inside the caller's
    transaction, following SQLite's procedure for schema changes ALTER TABLE cannot make
    (https://www.sqlite.org/lang_altertable.html, "Making Other Kinds Of Table Schema
    Changes"): create ``log_v2``, copy every row with its ``seq``, drop ``log`` (its triggers
    go with it), rename ``log_v2`` to ``log``; the ``AUTOINCREMENT`` counter is set back to what
    it was (so a ``seq`` is never reused) and the caller recreates the triggers. ``frames``
    keeps its rows and its reference to ``log(seq)`` (foreign keys are not enforced here, so
    the drop does not touch it).

    Raises:
        sqlite3.DatabaseError: a row the new table refuses (an unknown kind), or I/O errors;
            the caller rolls the transaction back.
    """
    counter = db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'log'").fetchone()
    before = db.execute("SELECT count(*) FROM log").fetchone()[0]
    db.execute("DROP TABLE IF EXISTS log_v2")
    db.execute(_log_ddl("log_v2", KINDS))
    db.execute("INSERT INTO log_v2 (seq, wall, match, round, kind, origin, data) "
               "SELECT seq, wall, match, round, kind, origin, data FROM log ORDER BY seq")
    for trigger in ("log_no_update", "log_no_delete"):
        db.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    db.execute("DROP TABLE log")
    db.execute("ALTER TABLE log_v2 RENAME TO log")
    after = db.execute("SELECT count(*) FROM log").fetchone()[0]
    if after != before:  # cannot happen with a plain copy; a guard against losing anything
        raise sqlite3.DatabaseError(f"the upgrade copied {after} of {before} entries")
    if counter is not None:
        db.execute("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'log'", (int(counter[0]),))
        if db.execute("SELECT changes()").fetchone()[0] == 0:
            db.execute("INSERT INTO sqlite_sequence (name, seq) VALUES ('log', ?)", (int(counter[0]),))
