"""Rulings: what the referee decides, one immutable value per decision.

A ruling is printed as a JSON line ``{"t": ..., "type": "ruling", "kind": ..., ...}``. Kinds:

==================  ==========================================================================
``accepted``        a play stands (``player``, ``card``, ``pile``; ``as`` for a joker)
``rejected``        a play must be taken back (``reason``: a :class:`~nertz.referee.foundations.Reason`)
``collision``       two copies of one card reached one pile; ``winner`` stays, ``loser`` takes back
``tie``             two copies arrived within the tie window and both stay (``players``)
``review``          a person must decide (``id``; ``about``: ``tie`` or ``joker``); answered by a
                    ``resolve`` event with that ``id``
``declare``         an undeclared joker could be several cards: its player must declare it
``false_call``      a call by a player whose Nertz pile is not empty; the round goes on
``call_after_end``  a call after the round had ended; ignored
``round_end``       the round ends (``reason``: ``call`` with ``caller``, or ``stuck``/``ended``)
``taken_back``      a card that stood was lifted out of the shared area (illegal; it no longer counts)
``returned``        a rejected card was taken back, as it had to be
``unmatched_take_back`` a take-back of a card no play put there (a tracker glitch); ignored
``no_count``        no Nertz pile count was reported for a player; scored as 0 left
==================  ==========================================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Ruling"]


@dataclass(frozen=True)
class Ruling:
    """One decision of the referee.

    Attributes:
        kind: see the module docstring.
        t: the time of the event ruled on, seconds (``None`` for end-of-log rulings).
        player: the player concerned, if one.
        card: the card, in notation (``"5H"``, ``"JK"``).
        pile: the foundation's number.
        reason: why a play was rejected, or why the round ended.
        winner: who keeps the card (collision, tie review).
        loser: who takes the card back (collision).
        players: several players concerned (a tie).
        id: a review item's identifier (stable across replays of the same log).
        as_: a joker's identity (``"as"`` in JSON).
        caller: who ended the round with a valid call.
        message: one sentence for people ("blue, take back your 5H: red's reached pile 3 first").
    """

    kind: str
    t: float | None = None
    player: str | None = None
    card: str | None = None
    pile: int | None = None
    reason: str | None = None
    winner: str | None = None
    loser: str | None = None
    players: tuple[str, ...] | None = None
    id: str | None = None
    as_: str | None = None
    caller: str | None = None
    message: str = ""

    def to_json(self) -> dict[str, Any]:
        """The ruling as a JSON-ready dict (``None`` fields left out)."""
        out: dict[str, Any] = {"type": "ruling", "kind": self.kind}
        if self.t is not None:
            out = {"t": round(self.t, 4), **out}
        for key in ("player", "card", "pile", "reason", "winner", "loser", "players", "id", "as_", "caller"):
            value = getattr(self, key)
            if value is not None:
                out["as" if key == "as_" else key] = list(value) if isinstance(value, tuple) else value
        if self.message:
            out["message"] = self.message
        return out
