"""The errors the rules engine raises for bad input (never for a rules violation,
which is a ruling, not an error).

Every error carries a message meant for a person: what is wrong and, where it comes from a
file, which file and line. The CLI prints it and exits with status 2.
"""

from __future__ import annotations

__all__ = ["NertzError", "CardError", "TableError", "EventError", "EventLogError"]


class NertzError(Exception):
    """Base class of every user-facing input error of the project."""


class CardError(NertzError, ValueError):
    """A card written in a notation that is not the project's (``"7S"``, ``"TH"``, ``"JK"``)."""


class TableError(NertzError, ValueError):
    """A table file (players, colours, zones, rules settings) that does not validate."""


class EventError(NertzError, ValueError):
    """One event that does not validate (unknown type, missing field, unknown player or card)."""


class EventLogError(NertzError, ValueError):
    """An event log with a bad line.

    Attributes:
        path: the file, as given.
        line: the 1-based line number.
    """

    def __init__(self, path: str, line: int, message: str) -> None:
        super().__init__(f"{path}, line {line}: {message}")
        self.path = path
        self.line = line
