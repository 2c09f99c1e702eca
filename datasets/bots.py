"""Human-like Nertz bots for the simulator: which move a player makes next, and how long
the hand takes to make it.

The bots only *choose*; the simulator (:mod:`nertz.datasets.sim`) owns the clock, applies
moves and rules on collisions. Foundation legality always comes from the project's one
rules model, :class:`nertz.referee.foundations.Foundations`; only the work-pile rule
(down by one in alternating colour, ``shared/RULES.md``) is checked here, because the
referee never needs it (work piles are private).

Move priority (what a practised player does, in this order):

1. a card to a foundation: the Nertz pile's top first, then the work piles' exposed cards,
   then the waste's top (an ace starts a new foundation; a joker is declared as the next
   card of the most advanced open pile);
2. the Nertz pile's top to a work pile: onto a fitting exposed card, into an empty work
   pile, or slid *under* a whole work pile (the shortcut of RULES.md);
3. a part of a work pile moved onto another, when that exposes a card that goes to a
   foundation; a whole work pile moved onto another to free a place for the Nertz top;
4. the waste's top onto a fitting work pile;
5. otherwise the stock is turned (3 cards, or 1), or the waste turned over into a new
   stock when the stock is empty.

Timing follows Fitts' law, ``MT = a + b * log2(D / W + 1)`` (Fitts 1954; the
Shannon form of MacKenzie 1992), with ``D`` the hand's travel in table millimetres and
``W`` the card's width; reaction times are log-normal, as measured human choice reaction
times are (e.g. Luce 1986). Every duration is divided by the player's speed factor.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np

from nertz.datasets.state import LayoutState, Slot
from nertz.referee.cards import Card, Rank, Suit
from nertz.referee.foundations import Foundations

__all__ = ["Timing", "Move", "card_of", "fits_on_work", "choose_move", "illegal_move"]

MoveKind = Literal["foundation", "illegal", "to_work", "block", "turn", "turnover"]


@lru_cache(maxsize=None)
def card_of(text: str) -> Card:
    """The :class:`Card` for a notation string (cached; the simulator keeps cards as text)."""
    return Card.parse(text)


def fits_on_work(card: str, onto: str) -> bool:
    """Whether ``card`` may be built on ``onto`` on a work pile: one rank lower, opposite
    colour (RULES.md, "Work piles"). Jokers are never built on or with by the bots."""
    a, b = card_of(card), card_of(onto)
    if a.is_joker or b.is_joker:
        return False
    return int(a.rank) + 1 == int(b.rank) and a.is_red != b.is_red


@dataclass(frozen=True)
class Timing:
    """The human timing model of one player at speed 1.0 (seconds and table millimetres).

    Attributes:
        reaction_median: median time from looking at the table to the hand starting, s.
        reaction_sigma: log-normal sigma of that time (natural-log units).
        scan_median: median time spent looking for a play before turning the stock, s.
        grasp: time to reach a card of one's own layout and pick it up, s.
        fitts_a: Fitts' law intercept, s.
        fitts_b: Fitts' law slope, s per bit.
        card_width_mm: the target width W of Fitts' law, mm.
        foundation_mm: range of hand travel from the layout to a foundation, mm (uniform).
        layout_mm: range of hand travel within one's own layout, mm (uniform).
        stock_turn: range of the time to thumb off and turn a packet from the stock, s.
        turnover: range of the time to turn the waste over into a new stock, s.
        notice: range of the time until a collision's loser (or an illegal player) notices
            and starts taking the card back, s.
        call_delay: range of the time from emptying the Nertz pile to calling, s.
        commit_window: the last part of a reach to a foundation during which a change at
            the target can no longer stop the release (seeing a card land, recognising it
            and stopping the arm takes about this long), s. Plays by two players released
            within this window of each other on one pile collide.
        attention: probability of noticing each available foundation play at a glance.
        watch: probability that a player who holds the next card of a pile in view is
            watching that pile when its card lands (a player resting between actions);
            such a player reacts with a simple reaction time instead of a choice reaction.
            Shared stimuli like this are what make two players race for one pile.
        primed_median: median simple reaction time of a watching player, s.
    """

    reaction_median: float = 0.80
    reaction_sigma: float = 0.30
    scan_median: float = 0.45
    grasp: float = 0.20
    fitts_a: float = 0.12
    fitts_b: float = 0.16
    card_width_mm: float = 60.0
    foundation_mm: tuple[float, float] = (250.0, 550.0)
    layout_mm: tuple[float, float] = (70.0, 220.0)
    stock_turn: tuple[float, float] = (0.6, 1.0)
    turnover: tuple[float, float] = (0.9, 1.5)
    notice: tuple[float, float] = (0.35, 0.9)
    call_delay: tuple[float, float] = (0.25, 0.7)
    commit_window: float = 0.50
    attention: float = 0.6
    watch: float = 0.9
    primed_median: float = 0.28

    def reaction(self, rng: np.random.Generator, speed: float) -> float:
        """A reaction time, s (log-normal around ``reaction_median``)."""
        return float(self.reaction_median * np.exp(self.reaction_sigma * rng.standard_normal())) / speed

    def scan(self, rng: np.random.Generator, speed: float) -> float:
        """Time spent looking before turning the stock, s (log-normal around ``scan_median``)."""
        return float(self.scan_median * np.exp(self.reaction_sigma * rng.standard_normal())) / speed

    def primed(self, rng: np.random.Generator, speed: float) -> float:
        """A simple reaction time to an awaited card, s (log-normal around ``primed_median``)."""
        return float(self.primed_median * np.exp(0.2 * rng.standard_normal())) / speed

    def fitts(self, distance_mm: float, speed: float) -> float:
        """Fitts' law movement time for a travel of ``distance_mm``, s."""
        return (self.fitts_a + self.fitts_b * float(np.log2(distance_mm / self.card_width_mm + 1.0))) / speed

    def to_foundation(self, rng: np.random.Generator, speed: float) -> float:
        """Hand travel from the layout to a foundation (or back), s."""
        return self.fitts(float(rng.uniform(*self.foundation_mm)), speed)

    def in_layout(self, rng: np.random.Generator, speed: float) -> float:
        """Hand travel within one's own layout, s."""
        return self.fitts(float(rng.uniform(*self.layout_mm)), speed)

    def uniform(self, rng: np.random.Generator, span: tuple[float, float], speed: float) -> float:
        """A duration drawn uniformly from ``span``, s, scaled by speed."""
        return float(rng.uniform(*span)) / speed


@dataclass
class Move:
    """One hand action chosen by a bot.

    Attributes:
        kind: ``foundation`` (a legal play), ``illegal`` (a deliberately illegal foundation
            play, by the ``illegal_rate`` setting), ``to_work`` (a single card onto a work
            pile), ``block`` (a part or all of a work pile onto another), ``turn`` (stock to
            waste), ``turnover`` (waste back into stock).
        src: where the cards are picked up.
        dst: where they go (for a new foundation, ``index`` is set when it lands).
        cards: the carried cards, bottom to top.
        pile: the target foundation's number; ``None`` for a new pile.
        ident: the card the play stands for on the foundation (the card itself, or what a
            joker is declared as); ``None`` for layout moves.
        under: slide the card under the whole work pile (RULES.md's shortcut).
    """

    kind: MoveKind
    src: Slot
    dst: Slot | None
    cards: tuple[str, ...]
    pile: int | None = None
    ident: str | None = None
    under: bool = False

    @property
    def productive(self) -> bool:
        """Everything but turning the stock and the waste counts as progress."""
        return self.kind not in ("turn", "turnover")

    @property
    def to_foundation(self) -> bool:
        """True for a play into the shared area (legal or not)."""
        return self.kind in ("foundation", "illegal")


def _exposed(layout: LayoutState, owner: str) -> list[tuple[Slot, str]]:
    """The cards a player may play, in the bots' order of preference: Nertz top, work
    pile ends, waste top."""
    out: list[tuple[Slot, str]] = []
    if layout.nertz:
        out.append((Slot("nertz", owner), layout.nertz[-1]))
    for i, pile in enumerate(layout.work):
        if pile:
            out.append((Slot("work", owner, i), pile[-1]))
    if layout.waste:
        out.append((Slot("waste", owner), layout.waste[-1]))
    return out


def _foundation_target(
    card: str, found: Foundations, disputed: set[int], rng: np.random.Generator
) -> tuple[int | None, str] | None:
    """Where ``card`` can legally go now: ``(pile or None for a new pile, identity)``."""
    c = card_of(card)
    if c.is_joker:
        open_piles = [
            (p.rank, n) for n, p in found.piles.items() if p.cards and not p.completed and n not in disputed and p.suit
        ]
        if open_piles:
            best = max(r for r, _ in open_piles)
            choices = [n for r, n in open_piles if r == best]
            n = choices[int(rng.integers(len(choices)))]
            return n, str(found.piles[n].next_card)
        suit = list(Suit)[int(rng.integers(4))]
        return None, str(Card(Rank.ACE, suit))
    if c.is_ace:
        return None, card
    piles = [n for n in found.playable_piles(c) if n not in disputed]
    if not piles:
        return None
    return piles[int(rng.integers(len(piles)))], card


def choose_move(
    layout: LayoutState,
    owner: str,
    found: Foundations,
    disputed: set[int],
    rng: np.random.Generator,
    timing: Timing,
    stock_turn: int,
    attention: float | None = None,
) -> Move | None:
    """The move a bot makes next, by the priority of this module's docstring.

    Args:
        layout: the bot's own layout (exact: only the bot moves it).
        owner: the bot's (deck owner's) name.
        found: the foundations as the bot sees them (legal state).
        disputed: pile numbers with a card waiting to be taken back (the bots leave them
            alone until they are cleared).
        rng: the round's random generator.
        timing: for ``attention`` (the chance of noticing each foundation play).
        stock_turn: 3 or 1 cards per turn of the stock.
        attention: overrides ``timing.attention`` (1.0 for a player watching for a card).

    Returns:
        The move, or ``None`` when the bot can do nothing at all (no play, and stock and
        waste both empty).
    """
    exposed = _exposed(layout, owner)
    p_notice = timing.attention if attention is None else attention
    # 1. foundations
    for slot, card in exposed:
        if rng.random() > p_notice:
            continue
        target = _foundation_target(card, found, disputed, rng)
        if target is not None:
            pile, ident = target
            return Move("foundation", slot, Slot("foundation", None, pile or 0), (card,), pile, ident)
    # 2. Nertz top to a work pile
    if layout.nertz:
        top = layout.nertz[-1]
        nslot = Slot("nertz", owner)
        if not card_of(top).is_joker:
            for i, pile in enumerate(layout.work):
                if not pile:
                    return Move("to_work", nslot, Slot("work", owner, i), (top,))
            for i, pile in enumerate(layout.work):
                if fits_on_work(top, pile[-1]):
                    return Move("to_work", nslot, Slot("work", owner, i), (top,))
            for i, pile in enumerate(layout.work):
                if fits_on_work(pile[0], top):
                    return Move("to_work", nslot, Slot("work", owner, i), (top,), under=True)
    # 3. work pile blocks
    for i, pile in enumerate(layout.work):
        for k in range(1, len(pile)):
            below = card_of(pile[k - 1])
            if not (below.is_ace or (not below.is_joker and found.playable_piles(below))):
                continue
            for j, other in enumerate(layout.work):
                if j != i and other and fits_on_work(pile[k], other[-1]):
                    return Move("block", Slot("work", owner, i), Slot("work", owner, j), tuple(pile[k:]))
    if layout.nertz and all(layout.work):
        for i, pile in enumerate(layout.work):
            for j, other in enumerate(layout.work):
                if j != i and fits_on_work(pile[0], other[-1]):
                    return Move("block", Slot("work", owner, i), Slot("work", owner, j), tuple(pile))
    # 4. waste top to a work pile
    if layout.waste:
        top = layout.waste[-1]
        for i, pile in enumerate(layout.work):
            if (pile and fits_on_work(top, pile[-1])) or (not pile and not layout.nertz and not card_of(top).is_joker):
                return Move("to_work", Slot("waste", owner), Slot("work", owner, i), (top,))
    # 5. the stock
    if layout.stock:
        n = min(stock_turn, len(layout.stock))
        return Move("turn", Slot("stock", owner), Slot("waste", owner), tuple(layout.stock[-n:]))
    if layout.waste:
        return Move("turnover", Slot("waste", owner), Slot("stock", owner), tuple(layout.waste))
    return None


def illegal_move(
    layout: LayoutState, owner: str, found: Foundations, disputed: set[int], rng: np.random.Generator
) -> Move | None:
    """A deliberately illegal foundation play (for referee tests): one of the player's
    playable real cards onto an open pile where it does not fit (most often the right rank
    in the wrong suit, the common slip), or a non-ace starting a new pile.

    Returns:
        The move, or ``None`` when no playable real card exists.
    """
    cards = [(s, c) for s, c in _exposed(layout, owner) if not card_of(c).is_joker]
    if not cards:
        return None
    slot, card = cards[int(rng.integers(len(cards)))]
    c = card_of(card)
    open_piles = [n for n, p in found.piles.items() if p.cards and not p.completed and n not in disputed]
    wrong_suit = [n for n in open_piles if found.piles[n].rank + 1 == int(c.rank) and found.check(c, n) is not None]
    other = [n for n in open_piles if found.check(c, n) is not None]
    if wrong_suit and rng.random() < 0.7:
        pile: int | None = wrong_suit[int(rng.integers(len(wrong_suit)))]
    elif other and (c.is_ace or rng.random() < 0.7):
        pile = other[int(rng.integers(len(other)))]
    elif not c.is_ace:
        pile = None
    else:
        return None
    return Move("illegal", slot, Slot("foundation", None, pile or 0), (card,), pile, card)
