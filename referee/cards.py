"""Cards, ranks, suits and decks, in the project's card notation.

Notation (the contract of ``shared/DESIGN.md``): a rank ``A 2 3 4 5 6 7 8 9 T J Q K``
followed by a suit ``S H D C``, e.g. ``"7S"``, ``"TH"``, ``"AD"``. A joker is ``"JK"``;
once declared it stands for a card given separately (``"as": "5H"`` in an event).

Like python-chess's ``Piece``, a :class:`Card` is a small immutable value: it can be a
dict key, compared, and round-tripped through its notation with :meth:`Card.parse` and
``str(card)``.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from nertz.referee.errors import CardError

__all__ = ["Suit", "Rank", "Card", "JOKER", "standard_deck", "parse_card"]


class Suit(enum.Enum):
    """A suit, valued by its notation letter."""

    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def is_red(self) -> bool:
        """True for hearts and diamonds (the colours matter on work piles, RULES.md)."""
        return self in (Suit.HEARTS, Suit.DIAMONDS)

    @property
    def symbol(self) -> str:
        """The Unicode suit symbol, for display only."""
        return {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}[self.value]


class Rank(enum.IntEnum):
    """A rank, ace low (1) to king high (13), as foundations are built (RULES.md)."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def letter(self) -> str:
        """The notation letter: ``A``, ``2`` ... ``9``, ``T``, ``J``, ``Q``, ``K``."""
        return _RANK_LETTERS[self.value - 1]

    @classmethod
    def from_letter(cls, letter: str) -> "Rank":
        """The rank for a notation letter (``"T"`` or ``"10"`` for ten).

        Raises:
            CardError: the letter is not a rank.
        """
        key = letter.upper()
        if key == "10":
            key = "T"
        index = _RANK_LETTERS.find(key) if len(key) == 1 else -1
        if index < 0:
            raise CardError(f"unknown rank {letter!r} (expected one of A23456789TJQK)")
        return cls(index + 1)


_RANK_LETTERS = "A23456789TJQK"
_NOTATION = re.compile(r"[A2-9TJQK][SHDC]|JK")


@dataclass(frozen=True, order=True)
class Card:
    """One playing card: a rank and a suit, or a joker.

    Attributes:
        rank: the rank, or ``None`` for a joker.
        suit: the suit, or ``None`` for a joker.

    A joker is ``Card(None, None)`` (the constant :data:`JOKER`); what it stands for once
    declared is kept beside it by whoever plays it, not in the card itself, because the
    physical card is the same joker whatever it is declared as.
    """

    rank: Rank | None
    suit: Suit | None

    def __post_init__(self) -> None:
        if (self.rank is None) != (self.suit is None):
            raise CardError("a card has both a rank and a suit, or neither (a joker)")

    @property
    def is_joker(self) -> bool:
        """True for a joker."""
        return self.rank is None

    @property
    def is_ace(self) -> bool:
        """True for an ace (never for a joker)."""
        return self.rank is Rank.ACE

    @property
    def is_king(self) -> bool:
        """True for a king (never for a joker)."""
        return self.rank is Rank.KING

    @property
    def is_red(self) -> bool:
        """True for hearts and diamonds; False for black cards and jokers."""
        return self.suit is not None and self.suit.is_red

    def next_up(self) -> "Card | None":
        """The card that goes on this one on a foundation (same suit, one rank up).

        Returns ``None`` for a king (a completed foundation) and for a joker.
        """
        if self.rank is None or self.suit is None or self.rank is Rank.KING:
            return None
        return Card(Rank(self.rank + 1), self.suit)

    @classmethod
    def parse(cls, text: str) -> "Card":
        """Parse card notation leniently: ``"7S"``, ``"TH"``, and also ``"10H"``, ``"ad"``,
        ``" QS "`` and ``"JOKER"`` (labels written by other tools). Files of the contract
        (event logs) are read with the strict :meth:`from_notation`.

        Raises:
            CardError: the text is not a card, with the reason.
        """
        if not isinstance(text, str):
            raise CardError(f"a card is written as text such as '7S', not {text!r}")
        s = text.strip().upper()
        if s in ("JK", "JOKER"):
            return JOKER
        if len(s) < 2:
            raise CardError(f"{text!r} is not a card (expected rank and suit, e.g. '7S')")
        suit_letter = s[-1]
        try:
            suit = Suit(suit_letter)
        except ValueError:
            raise CardError(f"{text!r} is not a card: unknown suit {suit_letter!r} (expected S, H, D or C)") from None
        try:
            rank = Rank.from_letter(s[:-1])
        except CardError as exc:
            raise CardError(f"{text!r} is not a card: {exc}") from None
        return cls(rank, suit)

    @classmethod
    def from_notation(cls, text: str) -> "Card":
        """Parse the contract's card notation exactly (``shared/DESIGN.md``): a rank
        ``A 2 3 4 5 6 7 8 9 T J Q K`` then a suit ``S H D C``, upper case, nothing around it
        (``"7S"``, ``"TH"``); ``"JK"`` for a joker. ``str(card)`` writes it back.

        Raises:
            CardError: anything else; where :meth:`parse` would read the text as a card
                (``"as"``, ``"10H"``, ``"JOKER"``), the message gives its notation.
        """
        if isinstance(text, str) and _NOTATION.fullmatch(text):
            return cls.parse(text)
        card = cls.parse(text)  # not a card at all: its own reason
        raise CardError(f"{text!r} is not in the card notation: write {str(card)!r} (rank A23456789TJQK, "
                        "then suit S, H, D or C, in upper case; JK for a joker)")

    def __str__(self) -> str:
        if self.rank is None or self.suit is None:
            return "JK"
        return self.rank.letter + self.suit.value

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


JOKER = Card(None, None)
"""The joker (``"JK"``)."""


def parse_card(text: str) -> Card:
    """Shorthand for :meth:`Card.parse`."""
    return Card.parse(text)


def standard_deck(jokers: int = 0) -> list[Card]:
    """One deck: the 52 cards in suit order S, H, D, C and rank order A..K, then jokers.

    Args:
        jokers: how many jokers to add (the jokers variant of RULES.md adds 2).

    Returns:
        A new list of ``52 + jokers`` cards.
    """
    cards = [Card(rank, suit) for suit in Suit for rank in Rank]
    cards.extend([JOKER] * jokers)
    return cards
