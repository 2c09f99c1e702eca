"""Round scoring (``shared/RULES.md``, "Scoring a round").

- each owner gets +1 per own card on the foundations (completed, set-aside piles included);
- every owner except the caller gets ``-nertz_penalty`` (2) per card left in their own Nertz
  pile; when the round ended with nobody calling (everyone stuck), everyone does;
- the caller gets ``nertz_bonus`` (0 by default);
- cards in work piles, stock and waste score nothing; scores may be negative.

Worked example (RULES.md): A calls with 20 cards on the foundations and scores 20; B has 15
on the foundations and 4 left in the Nertz pile and scores 15 - 2 * 4 = 7.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from nertz.referee.table import Rules

__all__ = ["PlayerScore", "RoundResult", "player_score"]


def player_score(foundation: int, nertz_left: int, *, is_caller: bool, rules: Rules) -> int:
    """One owner's round score.

    Args:
        foundation: the owner's accepted cards still on the foundations.
        nertz_left: cards left in the owner's Nertz pile.
        is_caller: whether this owner ended the round with a valid call.
        rules: the table's settings (``nertz_penalty``, ``nertz_bonus``).

    Returns:
        ``foundation + nertz_bonus`` for the caller, else
        ``foundation - nertz_penalty * nertz_left`` (points).
    """
    if is_caller:
        return foundation + rules.nertz_bonus
    return foundation - rules.nertz_penalty * nertz_left


@dataclass(frozen=True)
class PlayerScore:
    """One owner's line of the round result (points and card counts)."""

    foundation: int
    nertz_left: int
    score: int


@dataclass(frozen=True)
class RoundResult:
    """The result of a round, as far as its events go.

    Attributes:
        caller: the owner whose valid call ended the round, or ``None``.
        ended: how the round ended: ``"call"``, ``"stuck"``, ``"ended"``, or ``None`` while
            it has not ended (the result is then provisional).
        end_t: when it ended, seconds, or ``None``.
        players: each owner's :class:`PlayerScore`, in seating order.
        reviews: ids of review items still waiting for a person.
    """

    caller: str | None
    ended: str | None
    end_t: float | None
    players: dict[str, PlayerScore] = field(default_factory=dict)
    reviews: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The contract's result line: ``{"type": "result", "caller": ..., "players": {...}}``
        plus the additive keys ``ended``, ``end_t`` and ``reviews``."""
        return {
            "type": "result",
            "caller": self.caller,
            "players": {
                name: {"foundation": s.foundation, "nertz_left": s.nertz_left, "score": s.score}
                for name, s in self.players.items()
            },
            "ended": self.ended,
            "end_t": self.end_t,
            "reviews": list(self.reviews),
        }
