"""A round, replayed from its events: every play ruled, the end of the round, the score.

Like python-chess's board and its move stack, a :class:`Round` is its history: it holds the
events pushed so far and derives everything (foundations, rulings, result) by replaying
them in time order. Pushing an event that happened earlier than the last one (a late
report from the tracker) simply changes the replay; nothing is lost or ruled twice.

The rules applied (``shared/RULES.md``), in the order of event times ``t`` (log order only
breaks exact ties of ``t``):

- **Plays.** A play to a foundation is accepted when the card follows suit and rank
  (:mod:`nertz.referee.foundations`); else rejected with a reason. A player's copy of a card
  can lie on the foundations only once (``duplicate``).
- **Collisions.** A play of the same card to the same pile as another owner's accepted copy,
  while a copy of that card is still the pile's top, loses (``collision_loser``) when it
  arrived later by more than ``rules.tie_window`` (once the pile has moved on, the card is
  simply of the wrong rank there); within
  the window it is a tie: both stay (``tie: both_stay``), or under ``tie: strict`` the later
  one is provisionally taken back and a review item ``tie:<pile>:<card>`` waits for a
  ``resolve`` event naming the winner.
- **End of the round.** A ``call`` by an owner whose Nertz pile is empty ends the round (the
  count is the last ``nertz_left`` at or before the call, else the first after it; none
  means the caller's word is taken). A call with cards left is a ``false_call`` and play
  goes on. After a valid call, plays up to ``in_air_grace`` seconds later count when
  ``in_air`` is ``count``; later ones (or all, under ``return``) are ``late``. A
  ``round_end`` event ends the round with no caller; later plays are ``late``.
- **Jokers** (``rules.jokers``): a joker declared with ``"as"`` is that card, and an illegal
  declaration is an illegal play. An undeclared joker on an existing pile is the only legal
  card (the next of the pile's suit); starting a pile it is an ace of the suit declared later
  (a ``declare`` event, or a ``resolve`` of ``joker:<pile>``); until then a ``declare`` ruling
  asks for it, and the first real card on the pile decides the suit.
- **Take-backs.** A rejected card taken back is ``returned``; a card that stood and is taken
  back is ``taken_back`` (illegal) and no longer counts; a take-back matching no play is
  ``unmatched_take_back`` and changes nothing.
- **Scoring** per :mod:`nertz.referee.scoring`.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from nertz.referee.cards import Card, Rank
from nertz.referee.errors import EventError
from nertz.referee.events import (
    Call,
    Declare,
    NertzLeft,
    Play,
    Resolve,
    ResultLine,
    RoundEnd,
    RulingLine,
    Stuck,
    TakeBack,
    parse_event,
)
from nertz.referee.foundations import Foundations, PlacedCard, Reason
from nertz.referee.rulings import Ruling
from nertz.referee.scoring import PlayerScore, RoundResult, player_score
from nertz.referee.table import Table

__all__ = ["Round", "Replay", "score"]

_EPS = 1e-9
_MAX_JOKERS = 2


@dataclass(frozen=True)
class Replay:
    """Everything derived from a round's events.

    Attributes:
        rulings: every ruling, in time order.
        foundations: the foundations as they lie after the last event.
        result: the scores (provisional while the round has not ended).
        unused_answers: the ids of ``resolve`` answers (and ``joker:<pile>`` of ``declare``
            events) that no review item of the round has asked for so far (``"tie:99:AS"``:
            a typing mistake, or an answer given ahead of its question), sorted.
    """

    rulings: tuple[Ruling, ...]
    foundations: Foundations
    result: RoundResult
    unused_answers: tuple[str, ...] = ()


class Round:
    """One round at one table, as the history of its events.

    Args:
        table: the validated table (players, rules).
        events: events to start with (models from :mod:`nertz.referee.events` or dicts in
            the contract format).

    Raises:
        EventError: an event that does not validate, or that names a player not at the table.
    """

    def __init__(self, table: Table, events: Iterable[Any] = ()) -> None:
        self.table = table
        self._events: list[Any] = []
        self._replay: Replay | None = None
        self._state: _Referee | None = None
        for e in events:
            self.push(e)

    @property
    def events(self) -> tuple[Any, ...]:
        """The events pushed so far, in the order they were pushed."""
        return tuple(self._events)

    def push(self, event: Any) -> None:
        """Add one event (a model or a contract dict) to the round's history.

        Raises:
            EventError: the event does not validate or names an unknown player.
        """
        ev = parse_event(event)
        self._check_names(ev)
        self._events.append(ev)
        self._replay = None
        if self._state is not None and self._state.can_step(ev):
            # The usual live case: an event later than everything so far is ruled on top of
            # the current state, which is exactly what a full replay would do.
            self._state.step(ev)
        else:
            self._state = None

    def replay(self) -> Replay:
        """Replay the history (cached until the next :meth:`push`)."""
        if self._state is None:
            self._state = _Referee(self.table)
            self._state.run(self._events)
        if self._replay is None:
            self._replay = self._state.snapshot()
        return self._replay

    @property
    def rulings(self) -> tuple[Ruling, ...]:
        """Every ruling so far, in time order."""
        return self.replay().rulings

    @property
    def result(self) -> RoundResult:
        """The round's result (provisional while it has not ended)."""
        return self.replay().result

    def _check_names(self, ev: Any) -> None:
        names: list[str] = []
        if isinstance(ev, (Play, Call, NertzLeft, TakeBack)):
            names.append(ev.player)
        if isinstance(ev, Declare) and ev.player is not None:
            names.append(ev.player)
        if isinstance(ev, Resolve) and ev.winner is not None:
            names.append(ev.winner)
        for name in names:
            if self.table.owner_of(name) is None:
                raise EventError(f"unknown player {name!r} (the table has: {', '.join(self.table.names)})")
        if isinstance(ev, Resolve):  # its shape is known without the round: say so at its line
            _answer_of(ev)
        if isinstance(ev, Declare) and not self.table.rules.jokers:
            raise EventError(f"declare on pile {ev.pile}: no jokers are played at this table (the table's "
                             "rules.jokers is off), so there is nothing to declare")
        if isinstance(ev, NertzLeft) and ev.count > self.table.rules.nertz_pile:
            raise EventError(
                f"nertz_left count {ev.count} for {ev.player!r} is more than the Nertz pile size "
                f"({self.table.rules.nertz_pile})"
            )


def score(table: Table | dict[str, Any] | None, events: Sequence[Any]) -> dict[str, Any]:
    """Score a round from its events: the contract's result line as a dict.

    Args:
        table: a :class:`Table`, a table-file dict, or ``None`` (then the players are the
            names found in the events, in order of appearance, with default rules).
        events: contract event dicts or event models.

    Raises:
        TableError, EventError: input that does not validate.
    """
    parsed = [parse_event(e) for e in events]
    if table is None:
        table = Table.default(players_in(parsed))
    elif isinstance(table, dict):
        table = Table.from_dict(table)
    return Round(table, parsed).result.to_json()


def players_in(events: Iterable[Any]) -> list[str]:
    """The player names that events mention, in order of first appearance.

    Raises:
        EventError: fewer than two players are named (a table file is then needed).
    """
    names: list[str] = []
    for ev in events:
        name = getattr(ev, "player", None) if not isinstance(ev, (RulingLine, ResultLine)) else None
        if isinstance(name, str) and name not in names:
            names.append(name)
    if len(names) < 2:
        raise EventError(
            f"the log names {len(names)} player(s); without a table file the players are the names in the log, "
            "and a round needs at least two (give --table)"
        )
    return names


@dataclass
class _PlayRecord:
    """Book-keeping for one play during a replay."""

    play: Play
    owner: str
    ruling_index: int
    placed: PlacedCard | None = None
    returned: bool = False


def _answer_of(ev: Resolve) -> tuple[str, Any]:
    """What a ``resolve`` answers: ``("tie", its id)`` (with a ``winner``) or ``("joker", pile
    number)`` (with an ``as``).

    Raises:
        EventError: an id of neither kind, or the answer's field missing.
    """
    if ev.id.startswith("tie:"):
        if ev.winner is None:
            raise EventError(f"resolve {ev.id!r}: a tie is resolved with 'winner'")
        return "tie", ev.id
    if ev.id.startswith("joker:"):
        if ev.as_ is None:
            raise EventError(f"resolve {ev.id!r}: a joker is resolved with 'as'")
        try:
            return "joker", int(ev.id.split(":", 1)[1])
        except ValueError:
            raise EventError(f"resolve {ev.id!r}: expected 'joker:<pile number>'") from None
    raise EventError(f"resolve {ev.id!r}: unknown review item (ids start with 'tie:' or 'joker:')")


class _Referee:
    """One replay of a round's events (internal: build a :class:`Round` instead)."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.rules = table.rules
        self.foundations = Foundations()
        self.rulings: list[Ruling] = []
        self.end_t: float | None = None
        self.ended: str | None = None
        self.caller: str | None = None
        self.records: list[_PlayRecord] = []
        # (pile, card) -> the record of the accepted copy holding that place on the pile
        self.holders: dict[tuple[int, str], _PlayRecord] = {}
        self.on_foundation: set[tuple[str, str]] = set()
        self.jokers_used: dict[str, int] = defaultdict(int)
        self.tie_decisions: dict[str, str] = {}
        self.joker_decisions: dict[int, Card] = {}
        self.answers_asked: set[str] = set()  # review ids whose answer was looked up
        self.reviews_open: dict[str, Ruling] = {}
        self.counts: dict[str, list[tuple[float, int, int]]] = defaultdict(list)
        self.last_t = -math.inf

    # -- driver ---------------------------------------------------------------------------

    def run(self, events: Sequence[Any]) -> None:
        """Rule a whole history: global answers (resolve, declare) first, then every timed
        event in the order of its time (log order breaks exact ties)."""
        timed: list[tuple[float, int, Any]] = []
        for i, ev in enumerate(events):
            if isinstance(ev, Resolve):
                self._take_resolve(ev)
            elif isinstance(ev, Declare):
                self.joker_decisions[ev.pile] = ev.as_
            elif isinstance(ev, (RulingLine, ResultLine)):
                continue
            else:
                t = ev.t if ev.t is not None else math.inf
                timed.append((t, i, ev))
                if isinstance(ev, NertzLeft):
                    self.counts[self._owner(ev.player)].append((t, i, ev.count))
        timed.sort(key=lambda x: (x[0], x[1]))
        for owner_counts in self.counts.values():
            owner_counts.sort()
        for t, _, ev in timed:
            self._dispatch(ev)
            self.last_t = t

    def can_step(self, ev: Any) -> bool:
        """Whether ``ev``, pushed after the events already ruled, can be ruled on top of
        this state with the same outcome as a full replay: a timed event no earlier than
        any so far, of a kind that changes no earlier ruling (a Nertz count or a person's
        answer can change an earlier call or tie, so those replay everything)."""
        if isinstance(ev, (RulingLine, ResultLine)):
            return True
        if isinstance(ev, (Play, Call, TakeBack, Stuck)) or (isinstance(ev, RoundEnd) and ev.t is not None):
            return ev.t is not None and ev.t >= self.last_t
        return False

    def step(self, ev: Any) -> None:
        """Rule one more event (see :meth:`can_step`)."""
        if isinstance(ev, (RulingLine, ResultLine)):
            return
        self._dispatch(ev)
        self.last_t = ev.t

    def _dispatch(self, ev: Any) -> None:
        if isinstance(ev, Play):
            self._play(ev)
        elif isinstance(ev, Call):
            self._call(ev)
        elif isinstance(ev, RoundEnd):
            self._round_end(ev)
        elif isinstance(ev, TakeBack):
            self._take_back(ev)
        # NertzLeft and Stuck change nothing as they pass.

    def snapshot(self) -> Replay:
        """The rulings, foundations and result as of the events ruled so far."""
        result, closing = self._result()
        answers = set(self.tie_decisions) | {f"joker:{pile}" for pile in self.joker_decisions}
        return Replay(tuple(self.rulings + closing), self.foundations.copy(), result,
                      tuple(sorted(answers - self.answers_asked)))

    def _owner(self, name: str) -> str:
        owner = self.table.owner_of(name)
        if owner is None:  # Round.push checks names; this guards direct use.
            raise EventError(f"unknown player {name!r}")
        return owner

    def _take_resolve(self, ev: Resolve) -> None:
        kind, key = _answer_of(ev)
        if kind == "tie":
            self.tie_decisions[key] = self._owner(ev.winner)
        else:
            self.joker_decisions[key] = ev.as_

    def _rule(self, ruling: Ruling) -> int:
        self.rulings.append(ruling)
        return len(self.rulings) - 1

    # -- plays ----------------------------------------------------------------------------

    def _reject(self, ev: Play, owner: str, reason: Reason, message: str) -> None:
        idx = self._rule(
            Ruling("rejected", ev.t, owner, str(ev.card), ev.pile, reason=reason.value, message=message)
        )
        self.records.append(_PlayRecord(ev, owner, idx))
        self.foundations.mark_seen(ev.pile)

    def _accept(self, ev: Play, owner: str, rank: Rank, suit: Any, note: str = "", at: int | None = None) -> _PlayRecord:
        placed = self.foundations.place(ev.pile, ev.card, owner, ev.t, rank, suit)
        if at is not None:  # a tie: the second copy lies right above the first
            pile = self.foundations.piles[ev.pile]
            pile.cards.remove(placed)
            pile.cards.insert(at, placed)
        as_ = str(placed.identity) if ev.card.is_joker and placed.identity is not None else None
        message = f"{owner}'s {_card_name(ev.card, as_)} stands on pile {ev.pile}" + (f" ({note})" if note else "")
        idx = self._rule(Ruling("accepted", ev.t, owner, str(ev.card), ev.pile, as_=as_, message=message))
        rec = _PlayRecord(ev, owner, idx, placed)
        self.records.append(rec)
        if ev.card.is_joker:
            self.jokers_used[owner] += 1
        else:
            self.on_foundation.add((owner, str(ev.card)))
            self.holders.setdefault((ev.pile, str(ev.card)), rec)
        return rec

    def _play(self, ev: Play) -> None:
        owner = self._owner(ev.player)
        if self.ended is not None:
            grace = self.rules.in_air_grace if (self.ended == "call" and self.rules.in_air == "count") else 0.0
            assert self.end_t is not None
            if ev.t > self.end_t + grace + _EPS:
                self._reject(ev, owner, Reason.LATE, f"{owner}, take back your {_card_name(ev.card)}: the round had ended")
                return
        if ev.card.is_joker:
            self._play_joker(ev, owner)
            return
        card = str(ev.card)
        if (owner, card) in self.on_foundation:
            self._reject(
                ev, owner, Reason.DUPLICATE, f"{owner}'s {_card_name(ev.card)} already lies on a foundation"
            )
            return
        reason = self.foundations.check(ev.card, ev.pile)
        holder = self.holders.get((ev.pile, card))
        if holder is not None and holder.owner != owner and holder.placed is not None and (
            _same_card(self.foundations.piles[ev.pile].top, ev.card) or ev.t - holder.play.t <= self.rules.tie_window + _EPS
        ):
            # Another owner's copy reached this pile and nothing has been played on it since
            # (or it is a tie): a collision. Once the pile has moved on, the card is simply
            # the wrong rank there.
            self._collision(ev, owner, holder)
            return
        if reason is None:
            self._accept(ev, owner, ev.card.rank, ev.card.suit)  # type: ignore[arg-type]
            return
        self._reject(ev, owner, reason, _reject_message(owner, ev, reason, self.foundations))

    def _collision(self, ev: Play, owner: str, holder: _PlayRecord) -> None:
        """Another owner's copy of this card already lies on this pile."""
        card = str(ev.card)
        dt = ev.t - holder.play.t
        if dt > self.rules.tie_window + _EPS:
            self._reject(
                ev,
                owner,
                Reason.COLLISION_LOSER,
                f"{owner}, take back your {_card_name(ev.card)}: {holder.owner}'s reached pile {ev.pile} first",
            )
            self._rule(
                Ruling(
                    "collision",
                    ev.t,
                    card=card,
                    pile=ev.pile,
                    winner=holder.owner,
                    loser=owner,
                    message=f"{holder.owner}'s {_card_name(ev.card)} was first on pile {ev.pile}; {owner} takes theirs back",
                )
            )
            return
        assert holder.placed is not None
        pile = self.foundations.piles[ev.pile]
        at = pile.cards.index(holder.placed) + 1
        if self.rules.tie == "both_stay":
            self._accept(ev, owner, ev.card.rank, ev.card.suit, note="a tie: both stay", at=at)  # type: ignore[arg-type]
            self._rule(
                Ruling(
                    "tie",
                    ev.t,
                    card=card,
                    pile=ev.pile,
                    players=(holder.owner, owner),
                    message=f"{holder.owner} and {owner} played the {_card_name(ev.card)} to pile {ev.pile} at the same moment: both stay",
                )
            )
            return
        review_id = f"tie:{ev.pile}:{card}"
        self.answers_asked.add(review_id)
        decided = self.tie_decisions.get(review_id)
        if decided is not None and decided not in (holder.owner, owner):
            raise EventError(f"resolve {review_id!r}: winner {decided!r} did not play that card to that pile")
        if decided == owner:
            # The person ruled for the later play: it takes the first one's place.
            first_idx = holder.ruling_index
            first = self.rulings[first_idx]
            self.rulings[first_idx] = Ruling(
                "rejected",
                first.t,
                holder.owner,
                card,
                ev.pile,
                reason=Reason.COLLISION_LOSER.value,
                message=f"{holder.owner}, take back your {_card_name(ev.card)}: the review gave pile {ev.pile} to {owner}",
            )
            pile.cards.remove(holder.placed)
            self.on_foundation.discard((holder.owner, card))
            holder.placed = None
            del self.holders[(ev.pile, card)]
            rec = self._accept(ev, owner, ev.card.rank, ev.card.suit, note="tie resolved by review", at=at - 1)  # type: ignore[arg-type]
            self.holders[(ev.pile, card)] = rec
            winner, loser = owner, holder.owner
        else:
            self._reject(
                ev,
                owner,
                Reason.COLLISION_LOSER,
                (
                    f"{owner}, take back your {_card_name(ev.card)}: the review gave pile {ev.pile} to {holder.owner}"
                    if decided
                    else f"{owner}'s {_card_name(ev.card)} tied with {holder.owner}'s on pile {ev.pile}: "
                    f"{holder.owner}'s counts until the review decides"
                ),
            )
            winner, loser = holder.owner, owner
        if decided is None:
            review = Ruling(
                "review",
                ev.t,
                card=card,
                pile=ev.pile,
                players=(holder.owner, owner),
                id=review_id,
                reason="tie",
                message=f"{holder.owner} and {owner} played the {_card_name(ev.card)} to pile {ev.pile} at the same moment: who was first?",
            )
            self._rule(review)
            self.reviews_open[review_id] = review
        self._rule(
            Ruling(
                "collision",
                ev.t,
                card=card,
                pile=ev.pile,
                winner=winner,
                loser=loser,
                message=f"{winner}'s {_card_name(ev.card)} stays on pile {ev.pile}; {loser} takes theirs back",
            )
        )

    def _play_joker(self, ev: Play, owner: str) -> None:
        if not self.rules.jokers:
            self._reject(ev, owner, Reason.JOKERS_OFF, f"{owner}, take back the joker: this table plays without jokers")
            return
        if self.jokers_used[owner] >= _MAX_JOKERS:
            self._reject(ev, owner, Reason.TOO_MANY_JOKERS, f"{owner}'s two jokers already lie on foundations")
            return
        pile = self.foundations.piles.get(ev.pile)
        if pile is None or not pile.cards:
            self.answers_asked.add(f"joker:{ev.pile}")
            declared = ev.as_ or self.joker_decisions.get(ev.pile)
            if declared is not None and not declared.is_ace:
                self._reject(
                    ev, owner, Reason.NOT_AN_ACE, f"{owner}, take back the joker: declared {declared}, but only an ace starts a foundation"
                )
                return
            suit = declared.suit if declared is not None else None
            self._accept(ev, owner, Rank.ACE, suit, note="a joker as an ace")
            if declared is None:
                review_id = f"joker:{ev.pile}"
                ask = Ruling(
                    "declare",
                    ev.t,
                    owner,
                    "JK",
                    ev.pile,
                    id=review_id,
                    message=f"{owner}, which ace is your joker on pile {ev.pile}?",
                )
                self._rule(ask)
                self.reviews_open[review_id] = ask
            return
        options = pile.joker_options()
        if options is None:
            self._reject(ev, owner, Reason.PILE_COMPLETE, f"{owner}, take back the joker: pile {ev.pile} is complete")
            return
        rank, suit = options
        declared = ev.as_
        if declared is None:
            self._accept(ev, owner, rank, suit, note="the only card it can be")
            return
        # A heard declaration is the joker's identity (RULES.md); inference is only for
        # jokers nobody declared. An illegal declaration is an illegal play.
        reason = pile.check(declared)
        if reason is not None:
            self._reject(
                ev,
                owner,
                reason,
                f"{owner}, take back the joker: declared {declared}, but pile {ev.pile} takes "
                + (str(pile.next_card) if pile.next_card is not None else f"a {Rank(pile.rank + 1).letter}"),
            )
            return
        self._accept(ev, owner, declared.rank, declared.suit, note="as declared")  # type: ignore[arg-type]

    def _take_back(self, ev: TakeBack) -> None:
        owner = self._owner(ev.player)
        card = str(ev.card)
        for rec in reversed(self.records):
            if rec.owner != owner or str(rec.play.card) != card or rec.play.pile != ev.pile or rec.returned:
                continue
            if rec.play.t > ev.t + _EPS:
                continue
            rec.returned = True
            if rec.placed is None:
                self._rule(
                    Ruling("returned", ev.t, owner, card, ev.pile, message=f"{owner} took back the {_card_name(ev.card)}, as ruled")
                )
                return
            pile = self.foundations.piles[ev.pile]
            pile.cards.remove(rec.placed)
            if not pile.cards:
                pile.suit = None
            self.on_foundation.discard((owner, card))
            if self.holders.get((ev.pile, card)) is rec:
                del self.holders[(ev.pile, card)]
            if ev.card.is_joker:
                self.jokers_used[owner] -= 1
            rec.placed = None
            self._rule(
                Ruling(
                    "taken_back",
                    ev.t,
                    owner,
                    card,
                    ev.pile,
                    message=f"{owner} took the {_card_name(ev.card)} out of the shared area: not allowed, and it no longer counts",
                )
            )
            return
        self._rule(
            Ruling(
                "unmatched_take_back",
                ev.t,
                owner,
                card,
                ev.pile,
                message=f"{owner} took a {_card_name(ev.card)} from pile {ev.pile}, but no such play was seen: ignored",
            )
        )

    # -- end of the round -----------------------------------------------------------------

    def _count_at(self, owner: str, t: float) -> int:
        """The owner's Nertz pile count at time ``t`` (see the module docstring)."""
        counts = self.counts.get(owner, [])
        before = [c for c in counts if c[0] <= t + _EPS]
        if before:
            return before[-1][2]
        return counts[0][2] if counts else 0

    def _call(self, ev: Call) -> None:
        owner = self._owner(ev.player)
        if self.ended is not None:
            self._rule(Ruling("call_after_end", ev.t, owner, message=f"{owner} called after the round had ended"))
            return
        left = self._count_at(owner, ev.t)
        if left > 0:
            self._rule(
                Ruling(
                    "false_call",
                    ev.t,
                    owner,
                    message=f"{owner} called Nertz with {left} card{'s' if left != 1 else ''} left in the Nertz pile: play on",
                )
            )
            return
        self.ended, self.end_t, self.caller = "call", ev.t, owner
        self._rule(Ruling("round_end", ev.t, reason="call", caller=owner, message=f"Nertz! {owner} ends the round"))

    def _round_end(self, ev: RoundEnd) -> None:
        if self.ended is not None:
            return
        t = ev.t if ev.t is not None else max((r.play.t for r in self.records), default=0.0)
        reason = "ended" if ev.reason == "call" else ev.reason
        self.ended, self.end_t = reason, t
        text = "everyone is stuck: the round ends with no caller" if reason == "stuck" else "the round ends with no caller"
        self._rule(Ruling("round_end", t, reason=reason, message=text))

    def _result(self) -> tuple[RoundResult, list[Ruling]]:
        """The result, and the end-of-log rulings that go with it (``no_count``)."""
        closing: list[Ruling] = []
        on_piles: dict[str, int] = self.foundations.cards_by_owner()
        players: dict[str, PlayerScore] = {}
        for name in self.table.names:
            counts = self.counts.get(name)
            if counts:
                left = counts[-1][2]
            else:
                left = 0
                if name != self.caller and self.ended is not None:
                    closing.append(
                        Ruling("no_count", self.end_t, name, message=f"no Nertz pile count for {name}: scored as 0 left")
                    )
            foundation = on_piles.get(name, 0)
            players[name] = PlayerScore(
                foundation, left, player_score(foundation, left, is_caller=name == self.caller, rules=self.rules)
            )
        open_reviews = tuple(
            rid
            for rid in self.reviews_open
            if not (rid.startswith("joker:") and self._joker_settled(int(rid.split(":")[1])))
        )
        return RoundResult(self.caller, self.ended, self.end_t, players, open_reviews), closing

    def _joker_settled(self, pile: int) -> bool:
        p = self.foundations.piles.get(pile)
        return p is None or p.suit is not None


def _same_card(top: PlacedCard | None, card: Card) -> bool:
    """Whether the pile's top card is a copy of ``card`` (so the pile has not moved on)."""
    return top is not None and top.identity == card


def _card_name(card: Card, as_: str | None = None) -> str:
    if card.is_joker:
        return f"joker (as {as_})" if as_ else "joker"
    return str(card)


def _reject_message(owner: str, ev: Play, reason: Reason, foundations: Foundations) -> str:
    pile = foundations.piles.get(ev.pile)
    top = pile.top.identity if pile is not None and pile.top is not None else None
    head = f"{owner}, take back your {_card_name(ev.card)}"
    if reason is Reason.NOT_AN_ACE:
        return f"{head}: only an ace starts a foundation"
    if reason is Reason.UNKNOWN_PILE:
        return f"{head}: there is no foundation {ev.pile}"
    if reason is Reason.PILE_COMPLETE:
        return f"{head}: pile {ev.pile} is complete"
    if reason in (Reason.WRONG_SUIT, Reason.WRONG_RANK) and pile is not None:
        wanted = pile.next_card
        want = str(wanted) if wanted is not None else f"a {Rank(pile.rank + 1).letter}"
        return f"{head}: pile {ev.pile} shows {top or 'a joker'} and takes {want}"
    return head

