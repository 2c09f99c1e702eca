"""The shared foundations: piles started by an ace and built up by suit to the king.

Rules (``shared/RULES.md``, "Foundations"):

- a foundation is started only by an ace; any ace may start a new one, so several piles of
  one suit may exist at once;
- it is built upward by suit, one rank at a time, up to the king;
- a completed foundation (king on top) is turned face down and set aside; its cards still
  count for their owners.

Pile numbers are identifiers chosen by whoever writes the event log (the tracker numbers
piles as they appear). A number never seen before names a new pile, which only an ace may
start (else :attr:`Reason.NOT_AN_ACE`); a number seen before whose start was rejected names
no foundation (:attr:`Reason.UNKNOWN_PILE`); a completed pile takes nothing more
(:attr:`Reason.PILE_COMPLETE`).

This module is pure state and rules; the simulator of ``datasets/`` uses it too, so there is
one rules model in the project.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from nertz.referee.cards import Card, Rank, Suit

__all__ = ["Reason", "PlacedCard", "Pile", "Foundations"]


class Reason(enum.StrEnum):
    """Why a play is rejected. The value is the reason's name in rulings (JSON)."""

    WRONG_SUIT = "wrong_suit"
    """The card is not of the pile's suit."""
    WRONG_RANK = "wrong_rank"
    """The card is of the pile's suit but not one rank above its top card."""
    NOT_AN_ACE = "not_an_ace"
    """A card other than an ace started a new foundation."""
    UNKNOWN_PILE = "unknown_pile"
    """The pile number names no foundation: it was seen only in rejected plays."""
    PILE_COMPLETE = "pile_complete"
    """The pile was completed with its king and set aside."""
    LATE = "late"
    """The card was played after the round ended (beyond the in-the-air grace)."""
    COLLISION_LOSER = "collision_loser"
    """Another player's copy of the same card reached the pile first."""
    DUPLICATE = "duplicate"
    """This player's copy of the card already lies on a foundation (one deck holds one of each)."""
    JOKERS_OFF = "jokers_off"
    """A joker was played at a table that plays without jokers."""
    TOO_MANY_JOKERS = "too_many_jokers"
    """The player has no joker left: both of the deck's jokers are already on foundations."""


@dataclass(frozen=True)
class PlacedCard:
    """A card lying on a foundation.

    Attributes:
        card: the physical card (:data:`~nertz.referee.cards.JOKER` for a joker).
        owner: the player (or partnership) whose deck it comes from.
        t: when it arrived, seconds from the start of the source.
        rank: the rank it stands for on the pile (a joker's inferred or declared rank).
        suit: the suit it stands for, or ``None`` while a joker's suit is undecided (a joker
            that started a pile undeclared, until a card of known suit lands on it).
    """

    card: Card
    owner: str
    t: float
    rank: Rank
    suit: Suit | None

    @property
    def identity(self) -> Card | None:
        """The card this stands for, or ``None`` while a joker's suit is undecided."""
        if self.suit is None:
            return None
        return Card(self.rank, self.suit)


@dataclass
class Pile:
    """One foundation.

    Attributes:
        number: its identifier in the event log.
        cards: the cards from the bottom (an ace or a joker standing for one) to the top.
        suit: the pile's suit, or ``None`` while it is undecided (only jokers and no
            declaration so far).
    """

    number: int
    cards: list[PlacedCard] = field(default_factory=list)
    suit: Suit | None = None

    @property
    def top(self) -> PlacedCard | None:
        """The top card, or ``None`` for an empty pile."""
        return self.cards[-1] if self.cards else None

    @property
    def rank(self) -> int:
        """The rank of the top card (1 for ace ... 13 for king), 0 when empty."""
        return int(self.cards[-1].rank) if self.cards else 0

    @property
    def completed(self) -> bool:
        """True once a king (or a joker standing for one) lies on top."""
        return self.rank == int(Rank.KING)

    @property
    def next_card(self) -> Card | None:
        """The only card that may go on this pile next, or ``None`` when completed or
        when the suit is still undecided (then any suit of the next rank fits)."""
        if self.completed or self.suit is None or not self.cards:
            return None
        return Card(Rank(self.rank + 1), self.suit)

    def check(self, card: Card) -> Reason | None:
        """Whether a (non-joker) card may go on this pile now.

        Returns:
            ``None`` if legal, else the :class:`Reason` it is not. Jokers are handled by
            :meth:`joker_options`.
        """
        if card.is_joker:
            raise ValueError("Pile.check takes a real card; use joker_options for a joker")
        if self.completed:
            return Reason.PILE_COMPLETE
        if not self.cards:
            return None if card.is_ace else Reason.NOT_AN_ACE
        if self.suit is not None and card.suit is not self.suit:
            return Reason.WRONG_SUIT
        if card.rank != self.rank + 1:
            return Reason.WRONG_RANK
        return None

    def joker_options(self) -> tuple[Rank, Suit | None] | None:
        """What a joker placed on this pile would stand for: ``(rank, suit)``, the suit
        ``None`` when it is not decided by the pile, or ``None`` if the pile is completed."""
        if self.completed:
            return None
        return Rank(self.rank + 1), self.suit

    def _settle_suit(self, suit: Suit) -> None:
        """Fix an undecided suit: every undecided joker below takes it."""
        self.suit = suit
        self.cards = [
            c if c.suit is not None else PlacedCard(c.card, c.owner, c.t, c.rank, suit) for c in self.cards
        ]


class Foundations:
    """Every foundation of a round, by pile number.

    Mutable state, changed only through :meth:`place` and :meth:`remove_top`; the checks
    never change it. The :class:`~nertz.referee.round.Round` replays events through one
    of these; the simulator plays through one too.
    """

    def __init__(self) -> None:
        self.piles: dict[int, Pile] = {}
        self.seen: set[int] = set()

    def copy(self) -> "Foundations":
        """An independent copy (placed cards are immutable and shared)."""
        other = Foundations()
        other.piles = {n: Pile(p.number, list(p.cards), p.suit) for n, p in self.piles.items()}
        other.seen = set(self.seen)
        return other

    def check(self, card: Card, pile: int) -> Reason | None:
        """Whether ``card`` (a real card, not a joker) may be played to pile ``pile`` now.

        Returns:
            ``None`` when legal, else the :class:`Reason`.
        """
        existing = self.piles.get(pile)
        if existing is None or not existing.cards:
            if card.is_ace:
                return None
            return Reason.UNKNOWN_PILE if pile in self.seen else Reason.NOT_AN_ACE
        return existing.check(card)

    def mark_seen(self, pile: int) -> None:
        """Record that a play named ``pile`` (accepted or not)."""
        self.seen.add(pile)

    def place(self, pile: int, card: Card, owner: str, t: float, rank: Rank, suit: Suit | None) -> PlacedCard:
        """Put a card on a pile (starting it if needed), with the identity it stands for.

        The caller has checked legality; this only records. A card of known suit landing on
        a pile of undecided suit decides the suit for the jokers under it.

        Returns:
            The placed card as it lies on the pile.
        """
        self.seen.add(pile)
        target = self.piles.setdefault(pile, Pile(pile))
        if target.suit is None and suit is not None:
            target._settle_suit(suit)
        placed = PlacedCard(card, owner, t, rank, target.suit if suit is None else suit)
        target.cards.append(placed)
        return placed

    def remove_top(self, pile: int) -> PlacedCard:
        """Take the top card off a pile (a card taken back).

        Raises:
            KeyError: the pile has no card.
        """
        target = self.piles.get(pile)
        if target is None or not target.cards:
            raise KeyError(pile)
        placed = target.cards.pop()
        if not target.cards:
            target.suit = None
        return placed

    def playable_piles(self, card: Card) -> list[int]:
        """The open piles on which ``card`` (a real card) is the next card, by number.

        An ace fits no existing pile (it starts a new one): the list is empty for it.
        """
        return [n for n, p in sorted(self.piles.items()) if p.cards and p.check(card) is None]

    def new_pile_number(self) -> int:
        """The smallest pile number above every number seen so far (1 for the first)."""
        return max(self.seen, default=0) + 1

    def cards_by_owner(self) -> dict[str, int]:
        """How many cards of each owner lie on the foundations (completed piles included)."""
        counts: dict[str, int] = {}
        for p in self.piles.values():
            for c in p.cards:
                counts[c.owner] = counts.get(c.owner, 0) + 1
        return counts
