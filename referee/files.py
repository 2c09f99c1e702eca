"""Reading event logs and table files from disk, with errors that name the file and line.

The only module of :mod:`nertz.referee` that does I/O; the rules themselves never do.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from nertz.referee.errors import EventError, EventLogError, NertzError, TableError
from nertz.referee.events import parse_event
from nertz.referee.round import Round, players_in
from nertz.referee.table import Table

__all__ = ["read_table", "read_event_log", "load_round", "same_file", "check_not_an_input", "MAX_LOG_BYTES"]

MAX_LOG_BYTES = 64 * 1024 * 1024
"""The largest event log or table file read (bytes); a round's log is a few hundred kB."""


def _read_text(path: str | Path, what: str) -> str:
    p = Path(path)
    try:
        if p.is_dir():
            raise NertzError(f"{path}: is a folder, not {what}")
        if p.stat().st_size > MAX_LOG_BYTES:
            raise NertzError(f"{path}: larger than {MAX_LOG_BYTES // 2**20} MiB, not {what}")
        return p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise NertzError(f"{path}: no such file") from None
    except PermissionError:
        raise NertzError(f"{path}: permission denied") from None
    except UnicodeDecodeError:
        raise NertzError(f"{path}: not UTF-8 text, so not {what}") from None
    except OSError as exc:
        raise NertzError(f"{path}: cannot be read ({exc.strerror or exc})") from None


def read_table(path: str | Path) -> Table:
    """Read and validate a table file (JSON, the contract of ``shared/DESIGN.md``).

    Raises:
        NertzError: the file cannot be read.
        TableError: it is not JSON or does not validate; the message names the file.
    """
    text = _read_text(path, "a table file")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TableError(f"{path}, line {exc.lineno}: not valid JSON ({exc.msg})") from None
    return Table.from_dict(data, source=str(path))


def read_event_log(path: str | Path) -> list[tuple[int, Any]]:
    """Read an event log: one JSON object per line; blank lines are skipped.

    Returns:
        ``(line number, event model)`` pairs in file order.

    Raises:
        NertzError: the file cannot be read.
        EventLogError: a line that is not JSON or not a valid event, naming file and line.
    """
    text = _read_text(path, "an event log")
    events: list[tuple[int, Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise EventLogError(str(path), number, f"not valid JSON ({exc.msg} at column {exc.colno})") from None
        try:
            events.append((number, parse_event(data)))
        except EventError as exc:
            raise EventLogError(str(path), number, str(exc)) from None
    return events


def load_round(log_path: str | Path, table_path: str | Path | None = None) -> Round:
    """Read an event log (and a table file) into a replayable :class:`Round`.

    Without a table file, the players are the names the log mentions and the rules are the
    defaults.

    Raises:
        NertzError: any unreadable or invalid input; event errors name the file and line.
    """
    events = read_event_log(log_path)
    if table_path is not None:
        table = read_table(table_path)
    else:
        try:
            table = Table.default(players_in(ev for _, ev in events))
        except EventError as exc:
            raise NertzError(f"{log_path}: {exc}") from None
    game = Round(table)
    for number, ev in events:
        try:
            game.push(ev)
        except EventError as exc:
            raise EventLogError(str(log_path), number, str(exc)) from None
    try:
        game.replay()
    except EventError as exc:
        raise NertzError(f"{log_path}: {exc}") from None
    return game


def same_file(a: str | Path, b: str | Path) -> bool:
    """True when the paths ``a`` and ``b`` name one file: :func:`os.path.samefile` (same device
    and inode: ``x.mp4`` and ``./x.mp4``, a hard link, a symbolic link) when both exist, else
    their resolved absolute paths (symbolic links followed, ``..`` removed) compare equal.
    A path that cannot be examined (no permission) compares by its resolved path."""
    try:
        if os.path.exists(a) and os.path.exists(b):
            return os.path.samefile(a, b)
        return Path(a).resolve() == Path(b).resolve()
    except (OSError, RuntimeError):  # (RuntimeError: a symbolic link loop, before Python 3.13)
        return os.path.abspath(a) == os.path.abspath(b)


def check_not_an_input(out: str | Path, inputs: Iterable[tuple[str, str | Path | None]],
                       option: str = "--out") -> None:
    """Refuse an output path that is one of the command's input files, before anything is
    opened: writing it would destroy the input while it is read (``nertz referee --source
    round.mp4 --out round.mp4`` overwrote the recording it was refereeing).

    Args:
        out: the file the command would write (as the user typed it).
        inputs: ``(what, path)`` pairs, ``what`` naming the input for the message
            (``"--source"``, ``"the image"``); a None path (not given, or not a file: a
            camera, a URL) is skipped.
        option: the option that named ``out``, for the message.

    Raises:
        NertzError: ``out`` is the same file as an input (:func:`same_file`); the message names
            both and says to give another name.
    """
    for what, path in inputs:
        if path is not None and same_file(out, path):
            raise NertzError(f"{option} {out} is the same file as {what} {path}: writing it would destroy "
                             f"that input while it is read; give {option} another file name")
