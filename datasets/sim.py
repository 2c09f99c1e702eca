"""The round simulator of the synthetic data engine: bots play one Nertz round at the same
time, in continuous time, with the real rules, and the round is written as the ground-truth
event log of ``shared/DESIGN.md``.

How it works (a discrete-event simulation, one priority queue of timed events):

- Each player (or partnership: one deck, one layout, one hand) repeats *look, decide, reach,
  carry, release*. It decides on what it saw when it looked (a reaction time earlier than
  the hand starts), so its picture of the foundations is stale by the time the card lands.
- A player resting (or finishing a move) with a pile's next card in view, when that pile's
  card lands, pounces on it with a short simple reaction time (``Timing.watch``): this shared
  stimulus is what makes several players race for one pile, as at a real table.
- A foundation play is checked again ``commit_window`` before release (at pick-up when the
  reach is shorter): if the target pile has moved on, the hand turns back (no event). After
  that the release can no longer be stopped, so two players whose copies of the same card
  reach a pile close together **collide**: the first released stays, the later is taken
  back by its owner (``ruling`` ``collision``, then ``take_back``); released within
  ``tie_window`` of each other both stay (the ``both_stay`` tie rule) or only the first
  (``strict``). Every play is ruled by :class:`nertz.referee.round.Round` as it is
  released (the project's one rules model): its rulings go into the log, and the result
  is the referee's, checked against the cards that lie on the simulated table.
- Legality is decided by :class:`nertz.referee.foundations.Foundations` (the project's one
  rules model). The work-pile rule is in :mod:`nertz.datasets.bots`.
- A player whose Nertz pile is empty calls a moment later; cards already in the air finish
  if they land within ``in_air_grace`` of the call and count; nothing else is picked up after
  the call (a move chosen before it and not yet picked up is dropped, layout moves included).
  Then each player's Nertz count is logged: the cards on their Nertz pile at the call. When everybody has gone through their stock without any progress the
  stuck procedure of RULES.md runs; stuck a second time, the round ends with no caller.
- Every change to what lies where is recorded as a timed operation, so :meth:`SimRound.state_at`
  answers "what lies where at time t" (cards in flight included) from checkpoints, without
  simulating again.

Public API: :class:`SimSettings`, :func:`simulate_round`, :class:`SimRound` (``state_at``,
``write``), :func:`simulate_round_between` and :func:`speed_for_duration` (rounds of a chosen
length), :func:`measure` (batch figures; ``python -m nertz.datasets.sim PLAYERS SPEED ROUNDS``).
"""

from __future__ import annotations

import bisect
import heapq
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from nertz.datasets.bots import Move, Timing, card_of, choose_move, illegal_move
from nertz.datasets.state import FoundationState, InFlight, LayoutState, Slot, TableState, Withdrawing
from nertz.referee.cards import Card, Rank, standard_deck
from nertz.referee.foundations import Foundations, PlacedCard, Reason
from nertz.referee.round import Round
from nertz.referee.rulings import Ruling
from nertz.referee.table import Table

__all__ = ["DEFAULT_NAMES", "DEFAULT_BACKS", "SimSettings", "SimRound", "simulate_round", "minimum_jerk", "measure",
           "speed_for_duration", "simulate_round_between", "REFERENCE_DURATION"]

DEFAULT_NAMES = ("red", "blue", "green", "yellow", "purple", "orange")
"""Owner names, in seating order."""

DEFAULT_BACKS = ("#b3261e", "#1e4bb3", "#1e8a3a", "#d4a017", "#6a1b9a", "#e65100")
"""Back colours (hex sRGB) matching :data:`DEFAULT_NAMES`."""


@dataclass(frozen=True)
class SimSettings:
    """Settings of one simulated round.

    Attributes:
        players: number of players, 2..6.
        partnerships: partners share one deck, layout, hand and score (needs an even
            ``players`` >= 4; 6 players make 3 partnerships).
        nertz_pile: Nertz pile size, 11, 12 or 13.
        stock_turn: cards turned from the stock at a time, 3 or 1.
        jokers: add 2 jokers to each deck.
        illegal_rate: fraction of foundation plays that are deliberately illegal (a wrong
            suit, a skipped rank or a non-ace starting a pile), taken back by the player.
        speed: overall speed factor (1.0 is a practised adult; durations are divided by it).
        speeds: per-owner speed factors (overrides ``speed`` and ``speed_spread``).
        speed_spread: log-normal sigma of the per-owner speed around ``speed``.
        max_duration: the round is stopped after this many seconds, with no caller
            (``{"type": "round_end", "reason": "ended"}``).
        tie: ``both_stay`` (releases within ``tie_window`` both stay) or ``strict``.
        tie_window: seconds; one video frame at 30 fps, as in the table file.
        in_air_grace: seconds after the call during which cards in the air still land.
        nertz_penalty, nertz_bonus, target: scoring rules, as in the table file.
        names: owner names (default :data:`DEFAULT_NAMES`).
        backs: owner back colours, hex (default :data:`DEFAULT_BACKS`).
        timing: the human timing model (see :class:`nertz.datasets.bots.Timing`).
        withdraw_s: seconds an empty hand takes to go back to rest after it lets go of cards,
            as drawn (:attr:`TableState.withdrawing <nertz.datasets.state.TableState>`); the
            bots' timing does not wait for it (a hand whose next reach starts sooner starts it
            from where it is drawn). 0: the hand is drawn at rest from the frame after the
            release, as every render before 2026-12-05 (session 47) was: a jump of a median
            282 px (101-483 px, all 50 plays of rendered round 9256), so a card was never
            covered by the hand that laid it once let go, as it is at a real table. 0.3: about
            a reach's own time back (Fitts' law of :class:`~nertz.datasets.bots.Timing` gives
            0.4-0.6 s for 25-55 cm; a hand going back is not aiming). Rendering only: the
            round's events are the same whatever it is.
    """

    players: int = 3
    partnerships: bool = False
    nertz_pile: int = 13
    stock_turn: int = 3
    jokers: bool = False
    illegal_rate: float = 0.0
    speed: float = 1.0
    speeds: tuple[float, ...] | None = None
    speed_spread: float = 0.15
    max_duration: float = 900.0
    tie: str = "both_stay"
    tie_window: float = 0.034
    in_air_grace: float = 1.0
    nertz_penalty: int = 2
    nertz_bonus: int = 0
    target: int = 100
    names: tuple[str, ...] | None = None
    backs: tuple[str, ...] | None = None
    timing: Timing = field(default_factory=Timing)
    withdraw_s: float = 0.3

    @property
    def owners(self) -> int:
        """Number of decks (players, or partnerships)."""
        return self.players // 2 if self.partnerships else self.players

    def validate(self) -> None:
        """Check the settings.

        Raises:
            ValueError: a setting out of range, with the reason.
        """
        if not 2 <= self.players <= 6:
            raise ValueError(f"players must be 2..6, not {self.players}")
        if not 0.0 <= self.withdraw_s <= 2.0:
            raise ValueError(f"withdraw_s must be 0..2 seconds, not {self.withdraw_s}")
        if self.partnerships and (self.players % 2 or self.players < 4):
            raise ValueError(f"partnerships need an even number of players >= 4, not {self.players}")
        if self.nertz_pile not in (11, 12, 13):
            raise ValueError(f"nertz_pile must be 11, 12 or 13, not {self.nertz_pile}")
        if self.stock_turn not in (1, 3):
            raise ValueError(f"stock_turn must be 1 or 3, not {self.stock_turn}")
        if not 0.0 <= self.illegal_rate < 1.0:
            raise ValueError(f"illegal_rate must be in [0, 1), not {self.illegal_rate}")
        if self.speed <= 0:
            raise ValueError(f"speed must be positive, not {self.speed}")
        if self.speeds is not None and (len(self.speeds) != self.owners or min(self.speeds) <= 0):
            raise ValueError(f"speeds needs {self.owners} positive factors, got {self.speeds}")
        if self.tie not in ("both_stay", "strict"):
            raise ValueError(f"tie must be 'both_stay' or 'strict', not {self.tie!r}")
        for label, seq, default in (("names", self.names, DEFAULT_NAMES), ("backs", self.backs, DEFAULT_BACKS)):
            if seq is not None and len(seq) < self.owners:
                raise ValueError(f"{label} needs {self.owners} entries, got {len(seq)}")
        names = (self.names or DEFAULT_NAMES)[: self.owners]
        if len(set(names)) != len(names):
            raise ValueError(f"owner names must differ: {names}")
        if self.max_duration <= 0:
            raise ValueError("max_duration must be positive")

    def rules(self) -> dict[str, Any]:
        """The ``rules`` object of the table file (shared/DESIGN.md)."""
        return {
            "target": self.target,
            "nertz_pile": self.nertz_pile,
            "nertz_penalty": self.nertz_penalty,
            "nertz_bonus": self.nertz_bonus,
            "stock_turn": self.stock_turn,
            "jokers": self.jokers,
            "partnerships": self.partnerships,
            "tie": self.tie,
            "tie_window": self.tie_window,
            "in_air": "count",
            "in_air_grace": self.in_air_grace,
        }


def minimum_jerk(tau: float) -> float:
    """Position fraction of a minimum-jerk reach (Flash & Hogan 1985) at time fraction
    ``tau`` in [0, 1]: ``10 tau^3 - 15 tau^4 + 6 tau^5``."""
    tau = min(1.0, max(0.0, tau))
    return tau * tau * tau * (10.0 + tau * (-15.0 + 6.0 * tau))


# --------------------------------------------------------------------------- physical state


class _Phys:
    """What lies where (cards in hands excluded): layouts and the physical foundations
    (which, unlike the rules' :class:`Foundations`, also hold cards waiting to be taken back)."""

    __slots__ = ("layouts", "piles")

    def __init__(self, layouts: dict[str, LayoutState], piles: dict[int, FoundationState]) -> None:
        self.layouts = layouts
        self.piles = piles

    def copy(self) -> "_Phys":
        return _Phys(
            {
                o: LayoutState(list(l.nertz), [list(w) for w in l.work], list(l.stock), list(l.waste), list(l.spread))
                for o, l in self.layouts.items()
            },
            {n: FoundationState(p.pile, list(p.cards), p.completed) for n, p in self.piles.items()},
        )

    def _list(self, slot: Slot) -> list[str]:
        lay = self.layouts[slot.owner]  # type: ignore[index]
        if slot.kind == "work":
            return lay.work[slot.index]
        return getattr(lay, slot.kind)

    def apply(self, op: tuple) -> None:
        kind = op[0]
        if kind == "take":  # ("take", slot, n) from the top
            lst = self._list(op[1])
            del lst[len(lst) - op[2] :]
        elif kind == "put":  # ("put", slot, cards, under)
            lst = self._list(op[1])
            if op[3]:
                lst[0:0] = op[2]
            else:
                lst.extend(op[2])
        elif kind == "fput":  # ("fput", pile, card, owner)
            p = self.piles.get(op[1])
            if p is None:
                p = self.piles[op[1]] = FoundationState(op[1])
            p.cards.append((op[2], op[3]))
        elif kind == "fremove":  # ("fremove", pile, card, owner): the topmost such card
            p = self.piles[op[1]]
            for i in range(len(p.cards) - 1, -1, -1):
                if p.cards[i] == (op[2], op[3]):
                    del p.cards[i]
                    break
            else:
                raise AssertionError(f"fremove: {op[2]} of {op[3]} not on pile {op[1]}")
            if not p.cards:
                del self.piles[op[1]]
        elif kind == "fcomplete":
            self.piles[op[1]].completed = True
        elif kind == "spread":
            lay = self.layouts[op[1]]
            lay.spread.extend(lay.nertz)
            lay.nertz.clear()
        else:  # pragma: no cover
            raise AssertionError(f"unknown op {op!r}")


@dataclass
class _Flight:
    """A card (or block) in a hand over ``[start, end)``; progress follows a minimum-jerk
    profile from ``p0`` at ``prof0`` to ``p1`` at ``prof1``."""

    start: float
    end: float
    prof0: float
    prof1: float
    p0: float
    p1: float
    cards: tuple[str, ...]
    owner: str
    src: Slot
    dst: Slot
    face_up: bool

    def progress(self, t: float) -> float:
        span = self.prof1 - self.prof0
        tau = (t - self.prof0) / span if span > 0 else 1.0
        return self.p0 + (self.p1 - self.p0) * minimum_jerk(tau)


# --------------------------------------------------------------------------- the round


@dataclass
class SimRound:
    """One simulated round.

    Attributes:
        settings: what it was simulated with.
        seed: the random seed.
        table: the table file (``players`` with ``name`` and ``back``, ``rules``); the
            renderer adds ``shared_area`` and ``zones``.
        events: the ground-truth event log, contract dicts in time order (ties of ``t`` in
            the order they happened):

            - ``play`` ``{"t", "player", "card", "pile"}``: ``t`` is the exact release time,
              ``player`` the owner; a joker carries ``"as"`` (what it stands for as it lands);
            - ``ruling``, dated like the referee's own (the ruled play's ``t``): ``rejected``
              (``player``, ``card``, ``pile``, ``reason``: a
              :class:`~nertz.referee.foundations.Reason` value), ``collision`` (``card``,
              ``pile``, ``winner``, ``loser``), ``tie`` (``card``, ``pile``, ``players``);
            - ``take_back`` ``{"t", "player", "card", "pile"}``: a rejected card lifted back;
            - ``stuck`` ``{"t"}``: the whole table ran the stuck procedure;
            - ``call`` ``{"t", "player"}``, or ``round_end`` ``{"t", "reason"}`` with reason
              ``stuck`` (stuck twice) or ``ended`` (``max_duration`` reached);
            - then one ``nertz_left`` ``{"t", "player", "count"}`` per owner, in seating order.

            Rulings are the referee's output, ignored when a log is scored; they are here as
            ground truth for testing the referee.
        result: the contract result line ``{"type": "result", "caller", "players"}``, which
            :func:`nertz.referee.round.score` reproduces from ``table`` and ``events``.
        duration: seconds from the deal to the end of the Nertz count (the state is static
            after it).
        stats: counts for reports: ``plays`` (releases into the shared area), ``collisions``
            (losers of a collision), ``ties``, ``beaten`` (a play that arrived after the pile
            had moved on), ``illegal`` (deliberate slips), ``aborted`` (reaches turned back),
            ``stuck_procedures``, ``layout_moves``, ``stock_turns``, ``ending`` (``call``,
            ``stuck`` or ``ended``).
    """

    settings: SimSettings
    seed: int
    table: dict[str, Any]
    events: list[dict[str, Any]]
    result: dict[str, Any]
    duration: float
    stats: dict[str, Any]
    _initial: _Phys = field(repr=False)
    _ops: list[tuple[float, tuple]] = field(repr=False)
    _flights: list[_Flight] = field(repr=False)
    _checkpoint_every: int = field(default=32, repr=False)
    _checkpoints: list[_Phys] = field(default_factory=list, repr=False)
    _op_times: list[float] = field(default_factory=list, repr=False)
    _flight_starts: list[float] = field(default_factory=list, repr=False)
    _max_flight: float = field(default=0.0, repr=False)

    def __post_init__(self) -> None:
        self._flights.sort(key=lambda f: f.start)
        self._flight_starts = [f.start for f in self._flights]
        self._max_flight = max((f.end - f.start for f in self._flights), default=0.0)
        self._op_times = [t for t, _ in self._ops]
        phys = self._initial.copy()
        self._checkpoints = [phys.copy()]
        for i, (_, op) in enumerate(self._ops, 1):
            phys.apply(op)
            if i % self._checkpoint_every == 0:
                self._checkpoints.append(phys.copy())

    @property
    def owners(self) -> list[str]:
        """The deck owners' names, in seating order."""
        return [p["name"] for p in self.table["players"]]

    def state_at(self, t: float) -> TableState:
        """Exactly what lies where at time ``t`` (seconds from the deal).

        Operations at exactly ``t`` have happened (a card released at ``t`` lies on its pile);
        a flight is in the air over ``[pick-up, release)``. Cost: one bisection, at most
        ``_checkpoint_every`` replayed operations and a scan of the flights that could be in
        the air, independent of the round's length.

        Returns:
            A new :class:`TableState` (the caller may change it). ``in_flight`` progress runs
            0 to 1 from pick-up to release along a minimum-jerk profile (a reach that turns
            back falls again towards 0); ``withdrawing`` the hands going back to rest for
            ``settings.withdraw_s`` after they let go (``progress`` 0 to 1, minimum jerk);
            ``idle_hands`` lists the other owners whose hand carries nothing.
        """
        n = bisect.bisect_right(self._op_times, t)
        k = min(n // self._checkpoint_every, len(self._checkpoints) - 1)
        phys = self._checkpoints[k].copy()
        for i in range(k * self._checkpoint_every, n):
            phys.apply(self._ops[i][1])
        flights = []
        hi = bisect.bisect_right(self._flight_starts, t)
        lo = bisect.bisect_left(self._flight_starts, t - self._max_flight - 1e-9)
        for f in self._flights[lo:hi]:
            if f.start <= t < f.end:
                flights.append(
                    InFlight(f.cards, f.owner, f.src, f.dst, float(min(1.0, max(0.0, f.progress(t)))), f.face_up)
                )
        busy = {f.owner for f in flights}
        back_s = self.settings.withdraw_s
        last: dict[str, _Flight] = {}  # each free hand's flight that ended within back_s
        lo = bisect.bisect_left(self._flight_starts, t - back_s - self._max_flight - 1e-9)
        for f in self._flights[lo:hi] if back_s > 0 else []:
            if f.owner not in busy and f.cards and t - back_s < f.end <= t:
                if f.owner not in last or f.end > last[f.owner].end:
                    last[f.owner] = f
        withdrawing = [Withdrawing(o, f.dst if f.p1 >= 0.5 else f.src, f.cards[-1],
                                   minimum_jerk((t - f.end) / back_s))
                       for o, f in last.items()]
        return TableState(
            t=t,
            layouts=phys.layouts,
            foundations=list(phys.piles.values()),
            in_flight=flights,
            idle_hands=[o for o in self.owners if o not in busy and o not in last],
            withdrawing=withdrawing,
        )

    def write(self, out_dir: str | Path) -> Path:
        """Write ``table.json``, ``events.jsonl`` (one event per line) and ``result.json``.

        Returns:
            The folder (created if needed).
        """
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        (out / "table.json").write_text(json.dumps(self.table, indent=2) + "\n")
        with open(out / "events.jsonl", "w") as fh:
            for ev in self.events:
                fh.write(json.dumps(ev) + "\n")
        (out / "result.json").write_text(json.dumps(self.result) + "\n")
        return out


class _Bot:
    __slots__ = ("name", "speed", "busy", "stuck", "cycle_fv", "cycle_prod", "move", "token", "flight", "pick_t",
                 "rel_t", "aborted", "calling", "act", "primed_at")

    def __init__(self, name: str, speed: float) -> None:
        self.name = name
        self.speed = speed
        self.busy = False
        self.stuck = False
        self.cycle_fv = 0
        self.cycle_prod = False
        self.move: Move | None = None
        self.token = 0
        self.flight: _Flight | None = None
        self.pick_t = 0.0
        self.rel_t = 0.0
        self.aborted = False
        self.calling = False
        self.act = 0
        self.primed_at: float | None = None


class _Engine:
    def __init__(self, s: SimSettings, seed: int) -> None:
        s.validate()
        self.s = s
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.tm = s.timing
        names = list((s.names or DEFAULT_NAMES)[: s.owners])
        backs = list((s.backs or DEFAULT_BACKS)[: s.owners])
        if s.speeds is not None:
            speeds = [float(x) for x in s.speeds]
        else:
            speeds = [s.speed * float(np.exp(s.speed_spread * self.rng.standard_normal())) for _ in names]
            if s.partnerships:  # two people at one layout find moves faster
                speeds = [x * 1.2 for x in speeds]
        self.bots = {n: _Bot(n, v) for n, v in zip(names, speeds)}
        self.table = {"players": [{"name": n, "back": b} for n, b in zip(names, backs)], "rules": s.rules()}
        self.deck_size = 52 + (2 if s.jokers else 0)
        layouts = {}
        for n in names:
            cards = [str(c) for c in standard_deck(2 if s.jokers else 0)]
            order = self.rng.permutation(len(cards))
            cards = [cards[i] for i in order]
            k = s.nertz_pile
            layouts[n] = LayoutState(nertz=cards[:k], work=[[c] for c in cards[k : k + 4]], stock=cards[k + 4 :])
        self.phys = _Phys(layouts, {})
        self.initial = self.phys.copy()
        self.found = Foundations()
        self.referee = Round(Table.from_dict(self.table))
        self.fv = 0  # foundation version: legal placements so far
        self.prod = 0  # productive moves by all
        self.disputed: dict[int, int] = {}
        self.ops: list[tuple[float, tuple]] = []
        self.flights: list[_Flight] = []
        self.events: list[dict[str, Any]] = []
        self.heap: list[tuple[float, int, str, tuple]] = []
        self.seq = 0
        self.ended = False
        self.end_t: float | None = None
        self.caller: str | None = None
        self.counted = False
        self.final_t = 0.0
        self.stuck_procs = 0
        self.prod_at_proc = -1
        self.stuck_token = 0
        self.stats: dict[str, Any] = {
            "plays": 0, "collisions": 0, "ties": 0, "beaten": 0, "illegal": 0, "aborted": 0, "stuck_procedures": 0,
            "layout_moves": 0, "stock_turns": 0, "ending": None,
        }

    # -- plumbing
    def at(self, t: float, kind: str, *data: Any) -> None:
        self.seq += 1
        heapq.heappush(self.heap, (round(t, 4), self.seq, kind, data))

    def op(self, t: float, op: tuple) -> None:
        self.phys.apply(op)
        self.ops.append((t, op))

    def emit(self, ev: dict[str, Any]) -> None:
        self.events.append(ev)
        if ev["type"] != "ruling":
            self.referee.push(ev)

    def rulings_of(self, play: dict[str, Any]) -> list[Ruling]:
        """The referee's rulings of a play just emitted: its verdict first (accepted or
        rejected), then a ``collision`` or ``tie`` ruling if there is one."""
        t, card, pile = play["t"], play["card"], play["pile"]
        mine = [r for r in self.referee.rulings if r.t == t and r.card == card and r.pile == pile]
        verdict = [r for r in mine if r.kind in ("accepted", "rejected") and r.player == play["player"]]
        others = [r for r in mine if r.kind in ("collision", "tie")]
        return verdict + others

    def layout(self, name: str) -> LayoutState:
        return self.phys.layouts[name]

    # -- main loop
    def run(self) -> SimRound:
        for b in self.bots.values():
            self.at(self.tm.reaction(self.rng, b.speed) + 0.3, "observe", b.name, b.token)
        self.at(self.s.max_duration, "timeout")
        while self.heap:
            t, _, kind, data = heapq.heappop(self.heap)
            getattr(self, "on_" + kind)(t, *data)
        assert self.counted, "the round ended without a Nertz count"
        self.events.sort(key=lambda e: e["t"])
        result = self.tally()
        return SimRound(
            settings=self.s, seed=self.seed, table=self.table, events=self.events, result=result,
            duration=self.final_t, stats=self.stats, _initial=self.initial, _ops=self.ops, _flights=self.flights,
        )

    def tally(self) -> dict[str, Any]:
        """The referee's result of the round; checked against what lies on the table."""
        result = self.referee.result
        on = self.found.cards_by_owner()
        for name in self.bots:
            line = result.players[name]
            if line.foundation != on.get(name, 0) or line.nertz_left != len(self.layout(name).spread):
                raise AssertionError(f"the referee's count for {name} differs from the simulated table")
        return result.to_json()

    # -- a bot looks and decides
    def schedule_observe(self, b: _Bot, t: float, primed: bool = False) -> None:
        b.token += 1
        self.at(t, "observe", b.name, b.token, primed)

    def on_observe(self, t: float, name: str, token: int, primed: bool = False) -> None:
        b = self.bots[name]
        if self.ended or b.busy or b.calling or token != b.token:
            return
        lay = self.layout(name)
        disputed = {p for p, n in self.disputed.items() if n > 0}
        move = choose_move(lay, name, self.found, disputed, self.rng, self.tm, self.s.stock_turn,
                           attention=1.0 if primed else None)
        if move is not None and move.kind == "foundation" and self.s.illegal_rate > 0:
            if self.rng.random() < self.s.illegal_rate:
                move = illegal_move(lay, name, self.found, disputed, self.rng) or move
        if move is None or (move.kind == "turnover" and not (b.cycle_prod or self.fv != b.cycle_fv)):
            # a whole pass through the stock without progress (or nothing at all to do):
            # wait, looking again now and then, until the foundations change
            if not b.stuck:
                b.stuck = True
                self.check_all_stuck(t)
            self.schedule_observe(b, t + float(self.rng.uniform(0.5, 1.0)))
            return
        if move.kind == "turnover":
            b.cycle_fv, b.cycle_prod = self.fv, False
        b.stuck = False
        b.busy = True
        b.move = move
        if move.kind in ("turn", "turnover"):
            delay = self.tm.scan(self.rng, b.speed)
        elif primed:
            delay = self.tm.grasp / b.speed
        else:
            delay = self.tm.reaction(self.rng, b.speed) + self.tm.grasp / b.speed
        b.act += 1
        self.at(t + delay, "pickup", name, b.act)

    def on_pickup(self, t: float, name: str, act: int) -> None:
        b = self.bots[name]
        if act != b.act:
            return
        move = b.move
        assert move is not None
        if self.ended:
            # the round is over: nothing may be played any more (RULES.md, "End of a round"), to
            # a foundation or in the layout; only cards already in a hand may finish their move.
            # (Before 2026-12-07 a layout move picked up after the call went on, so a Nertz card
            # moved to a work pile after the call was left out of the Nertz count: r9403's
            # green counted 0 with an 8D on its Nertz pile at the call.)
            b.busy = False
            b.move = None
            return
        n = len(move.cards)
        self.op(t, ("take", move.src, n))
        if move.kind == "turn":
            dur = self.tm.uniform(self.rng, self.tm.stock_turn, b.speed) * (0.75 if n == 1 else 1.0)
            face_up = False
        elif move.kind == "turnover":
            dur = self.tm.uniform(self.rng, self.tm.turnover, b.speed)
            face_up = False
        elif move.to_foundation:
            dur = self.tm.to_foundation(self.rng, b.speed)
            face_up = True
        else:
            dur = self.tm.in_layout(self.rng, b.speed)
            face_up = True
        t_rel = round(t + dur, 4)
        assert move.dst is not None
        fl = _Flight(t, t_rel, t, t_rel, 0.0, 1.0, move.cards, name, move.src, move.dst, face_up)
        self.flights.append(fl)
        b.flight, b.pick_t, b.rel_t, b.aborted = fl, t, t_rel, False
        if move.kind == "foundation":
            self.at(max(t, t_rel - self.tm.commit_window), "commit", name, b.act)
        self.at(t_rel, "release", name, b.act)

    def abort(self, t: float, b: _Bot) -> None:
        """Turn the hand back: the card returns to where it came from (no event)."""
        fl = b.flight
        assert fl is not None and b.move is not None
        b.aborted = True
        fl.end = t
        if b.move.to_foundation and b.move.pile is None:  # it was heading for a new pile
            fl.dst = Slot("foundation", None, self.found.new_pile_number())
        back = max(0.1, (t - b.pick_t) * 0.8)
        p = fl.progress(t)
        ret = _Flight(t, round(t + back, 4), t, round(t + back, 4), p, 0.0, fl.cards, b.name, fl.src, fl.dst, True)
        self.flights.append(ret)
        self.stats["aborted"] += 1
        self.at(t + back, "returned", b.name, b.act)

    def on_commit(self, t: float, name: str, act: int) -> None:
        b = self.bots[name]
        if act != b.act:
            return
        move = b.move
        if b.aborted or move is None or move.pile is None:
            return
        if self.disputed.get(move.pile, 0) > 0:
            self.abort(t, b)
        elif card_of(move.cards[0]).is_joker:
            if self.found.piles[move.pile].completed:
                self.abort(t, b)
        elif self.found.check(card_of(move.cards[0]), move.pile) is not None:
            self.abort(t, b)

    def on_returned(self, t: float, name: str, act: int) -> None:
        b = self.bots[name]
        if act != b.act:
            return
        move = b.move
        assert move is not None
        self.op(t, ("put", move.src, list(move.cards), False))
        self.done(t, b, 0.05)

    def on_release(self, t: float, name: str, act: int) -> None:
        b = self.bots[name]
        if act != b.act:
            return
        move = b.move
        if b.aborted or move is None:
            return
        lay = self.layout(name)
        if move.kind == "turn":
            self.op(t, ("put", move.dst, list(move.cards[::-1]), False))
            self.stats["stock_turns"] += 1
            self.done(t, b, 0.05)
            return
        if move.kind == "turnover":
            self.op(t, ("put", move.dst, list(move.cards[::-1]), True))
            self.done(t, b, 0.1)
            return
        if not move.to_foundation:
            self.op(t, ("put", move.dst, list(move.cards), move.under))
            self.stats["layout_moves"] += 1
            self.progress(b)
            if move.src.kind == "nertz" and not lay.nertz:
                self.start_call(t, b)
            else:
                self.done(t, b, 0.08)
            return
        # a play into the shared area
        grace = self.s.in_air_grace if self.stats["ending"] == "call" else 0.0
        if self.ended and t > self.end_t + grace:  # type: ignore[operator]
            self.abort(t, b)
            return
        card = move.cards[0]
        c = card_of(card)
        pile = move.pile if move.pile is not None else self.found.new_pile_number()
        fl = b.flight
        assert fl is not None
        if move.pile is None:
            fl.dst = Slot("foundation", None, pile)
            move.dst = fl.dst
        target = self.found.piles.get(pile)
        reason = None
        if c.is_joker:
            # declared as it lands: an ace for a new pile, else the only card it can be
            if target is None or not target.cards:
                ident = card_of(move.ident)  # type: ignore[arg-type]
            elif target.completed:
                ident, reason = c, Reason.PILE_COMPLETE
            else:
                rank, suit = target.joker_options()  # type: ignore[misc]
                ident = Card(rank, suit)
        else:
            ident = c
            reason = self.found.check(c, pile)
        ev: dict[str, Any] = {"t": t, "type": "play", "player": name, "card": card, "pile": pile}
        if c.is_joker and reason is None:
            ev["as"] = str(ident)
        self.emit(ev)
        self.stats["plays"] += 1
        self.op(t, ("fput", pile, card, name))
        # The referee rules the play (the project's one rules model): accepted, a tie, or
        # rejected (illegal, a collision, or beaten by another card that fits there).
        rulings = self.rulings_of(ev)
        for r in rulings:
            if r.kind != "accepted":
                self.emit(r.to_json())
        verdict = rulings[0]
        if verdict.kind == "accepted":
            holder = None
            if any(r.kind == "tie" for r in rulings):
                self.stats["ties"] += 1
                assert target is not None
                holder = next(pc for pc in target.cards if pc.card == c and pc.owner != name)
            self.place(t, b, pile, card_of(verdict.as_) if verdict.as_ else ident, after=holder)
            return
        self.found.mark_seen(pile)
        if move.kind == "illegal":
            self.stats["illegal"] += 1
        elif any(r.kind == "collision" for r in rulings):
            self.stats["collisions"] += 1
        else:
            self.stats["beaten"] += 1
        self.dispute(t, b, pile, None)

    def place(self, t: float, b: _Bot, pile: int, ident: Card, after: PlacedCard | None = None) -> None:
        placed = self.found.place(pile, card_of(b.move.cards[0]), b.name, t, ident.rank, ident.suit)  # type: ignore[union-attr]
        if after is not None:  # a tie: the second copy lies right above the first, as the referee has it
            cards = self.found.piles[pile].cards
            cards.remove(placed)
            cards.insert(cards.index(after) + 1, placed)
        self.fv += 1
        self.progress(b)
        if placed.rank is Rank.KING:
            self.at(t + 1.0, "complete", pile)
        else:
            self.alert(t, b, pile)
        if b.move.src.kind == "nertz" and not self.layout(b.name).nertz:  # type: ignore[union-attr]
            self.start_call(t, b)
            return
        nxt = self.found.piles[pile].next_card
        lay = self.layout(b.name)
        if nxt is not None and [str(nxt)] in ([lay.nertz[-1:], lay.waste[-1:]] + [w[-1:] for w in lay.work]):
            # the follow-up card is in view: a planned chain, no new choice to make
            b.primed_at = t + self.tm.primed(self.rng, b.speed) * 0.5
        self.done(t, b, 0.15)

    def alert(self, t: float, b: _Bot, pile: int) -> None:
        """Players resting with the pile's next card in view may pounce on it."""
        nxt = self.found.piles[pile].next_card
        if nxt is None:
            return
        want = str(nxt)
        for o in self.bots.values():
            if o is b or o.calling:
                continue
            lay = self.layout(o.name)
            ends = [lay.nertz[-1:], lay.waste[-1:]] + [w[-1:] for w in lay.work]
            if any(e == [want] for e in ends) and self.rng.random() < self.tm.watch:
                when = t + self.tm.primed(self.rng, o.speed)
                if o.busy:  # seen while busy: goes for it as soon as the hand is free
                    o.primed_at = when if o.primed_at is None else min(o.primed_at, when)
                else:
                    o.stuck = False
                    self.schedule_observe(o, when, primed=True)

    def dispute(self, t: float, b: _Bot, pile: int, ruling: dict[str, Any] | None) -> None:
        """The card lies on the pile until its owner notices and takes it back; ``ruling``
        (if given) is logged with the play's time, as the referee dates its rulings."""
        if ruling is not None:
            self.emit(ruling)
        self.disputed[pile] = self.disputed.get(pile, 0) + 1
        self.at(t + self.tm.uniform(self.rng, self.tm.notice, b.speed), "takeback", b.name, b.act, pile)

    def on_takeback(self, t: float, name: str, act: int, pile: int) -> None:
        b = self.bots[name]
        if act != b.act:
            return
        move = b.move
        assert move is not None
        self.emit({"t": t, "type": "take_back", "player": name, "card": move.cards[0], "pile": pile})
        self.disputed[pile] -= 1
        self.op(t, ("fremove", pile, move.cards[0], name))
        dur = self.tm.to_foundation(self.rng, b.speed)
        self.flights.append(_Flight(t, round(t + dur, 4), t, round(t + dur, 4), 0.0, 1.0, move.cards, name,
                                    Slot("foundation", None, pile), move.src, True))
        self.at(t + dur, "returned", name, b.act)

    def progress(self, b: _Bot) -> None:
        b.cycle_prod = True
        self.prod += 1

    def done(self, t: float, b: _Bot, gap: float) -> None:
        b.busy = False
        b.move = None
        if b.primed_at is not None:
            self.schedule_observe(b, max(b.primed_at, t + gap / b.speed), primed=True)
            b.primed_at = None
        else:
            self.schedule_observe(b, t + gap / b.speed)

    def on_complete(self, t: float, pile: int) -> None:
        self.op(t, ("fcomplete", pile))

    # -- the end of the round
    def start_call(self, t: float, b: _Bot) -> None:
        b.busy = False
        b.move = None
        b.calling = True
        self.at(t + self.tm.uniform(self.rng, self.tm.call_delay, b.speed), "call", b.name)

    def on_call(self, t: float, name: str) -> None:
        if self.ended:
            return
        self.emit({"t": t, "type": "call", "player": name})
        self.caller = name
        self.finish(t, "call")

    def finish(self, t: float, ending: str) -> None:
        self.ended = True
        self.end_t = t
        self.stats["ending"] = ending
        for b in self.bots.values():
            fl = b.flight
            if b.busy and b.move is not None and b.move.to_foundation and not b.aborted and fl is not None:
                grace = self.s.in_air_grace if ending == "call" else 0.0
                if fl.start <= t < fl.end and b.rel_t > t + grace:
                    self.abort(t, b)
        self.at(t + 3.0, "count")

    def on_count(self, t: float) -> None:
        if any(b.busy for b in self.bots.values()):
            self.at(t + 0.3, "count")
            return
        for name in self.bots:
            self.emit({"t": t, "type": "nertz_left", "player": name, "count": len(self.layout(name).nertz)})
            self.op(t, ("spread", name))
        self.counted = True
        self.final_t = round(t + 1.0, 4)

    def on_timeout(self, t: float) -> None:
        if self.ended:
            return
        self.emit({"t": t, "type": "round_end", "reason": "ended"})
        self.finish(t, "ended")

    # -- stuck
    def check_all_stuck(self, t: float) -> None:
        if all(b.stuck and not b.busy for b in self.bots.values()):
            self.stuck_token += 1
            self.at(t + 2.0, "stuck", self.stuck_token)

    def on_stuck(self, t: float, token: int) -> None:
        if self.ended or token != self.stuck_token:
            return
        if not all(b.stuck and not b.busy for b in self.bots.values()):
            return
        if self.stuck_procs > 0 and self.prod == self.prod_at_proc:
            self.emit({"t": t, "type": "round_end", "reason": "stuck"})
            self.finish(t, "stuck")
            return
        self.stuck_procs += 1
        self.stats["stuck_procedures"] += 1
        self.emit({"t": t, "type": "stuck"})
        self.prod_at_proc = self.prod
        for b in self.bots.values():
            b.stuck = False
            b.cycle_fv, b.cycle_prod = self.fv, False
            b.busy = True
            b.act += 1
            self.at(t + self.tm.uniform(self.rng, self.tm.notice, b.speed), "stuck_turn", b.name, b.act)

    def on_stuck_turn(self, t: float, name: str, act: int) -> None:
        """The stuck procedure, one player: the waste turned over under the stock..."""
        b = self.bots[name]
        lay = self.layout(name)
        if not lay.waste:
            self.on_stuck_rotate(t, name, act)
            return
        cards = tuple(lay.waste)
        self.op(t, ("take", Slot("waste", name), len(cards)))
        dur = self.tm.uniform(self.rng, self.tm.turnover, b.speed)
        self.flights.append(_Flight(t, round(t + dur, 4), t, round(t + dur, 4), 0.0, 1.0, cards, name,
                                    Slot("waste", name), Slot("stock", name), False))
        self.at(t + dur, "stuck_put", name, act, cards)

    def on_stuck_put(self, t: float, name: str, act: int, cards: tuple[str, ...]) -> None:
        self.op(t, ("put", Slot("stock", name), list(cards[::-1]), True))
        self.on_stuck_rotate(t, name, act)

    def on_stuck_rotate(self, t: float, name: str, act: int) -> None:
        """...then the stock's top card moved to its bottom."""
        b = self.bots[name]
        lay = self.layout(name)
        if len(lay.stock) < 2:
            self.done(t, b, 0.3)
            return
        card = (lay.stock[-1],)
        slot = Slot("stock", name)
        self.op(t, ("take", slot, 1))
        dur = self.tm.in_layout(self.rng, b.speed)
        self.flights.append(_Flight(t, round(t + dur, 4), t, round(t + dur, 4), 0.0, 1.0, card, name, slot, slot,
                                    False))
        self.at(t + dur, "stuck_bottom", name, act, card)

    def on_stuck_bottom(self, t: float, name: str, act: int, card: tuple[str, ...]) -> None:
        self.op(t, ("put", Slot("stock", name), list(card), True))
        self.done(t, self.bots[name], 0.3)


def simulate_round(settings: SimSettings | None = None, seed: int = 0) -> SimRound:
    """Simulate one Nertz round.

    Args:
        settings: the round's settings (default :class:`SimSettings()`: 3 players, 13-card
            Nertz piles, stock by three).
        seed: the random seed; the same settings and seed give the same round.

    Returns:
        The :class:`SimRound` (event log, table file, result, and :meth:`SimRound.state_at`).

    Raises:
        ValueError: settings out of range.
    """
    return _Engine(settings or SimSettings(), seed).run()


REFERENCE_DURATION = {2: 178.0, 3: 129.0, 4: 95.0, 5: 82.0, 6: 72.0}
"""Median round length in simulated seconds at speed 1.0 by number of owners (decks), over
50 seeds each (``python -m nertz.datasets.sim N 1.0 50``; 5 interpolated). Rounds scale
about as ``1 / speed``."""


def speed_for_duration(owners: int, seconds: float) -> float:
    """The ``speed`` that makes a round with ``owners`` decks last about ``seconds`` (median).

    Raises:
        ValueError: ``owners`` outside 2..6 or a non-positive duration.
    """
    if owners not in REFERENCE_DURATION or seconds <= 0:
        raise ValueError(f"owners must be 2..6 and seconds positive, got {owners}, {seconds}")
    return REFERENCE_DURATION[owners] / seconds


def simulate_round_between(
    settings: SimSettings, seed: int, min_s: float, max_s: float, tries: int = 64
) -> SimRound:
    """A round whose :attr:`SimRound.duration` lies in ``[min_s, max_s]``: rounds are drawn
    from seeds derived from ``seed`` until one fits (about 15 ms each), so the choice is
    reproducible. Set ``settings.speed`` near :func:`speed_for_duration` first.

    Raises:
        ValueError: no round of ``tries`` fits.
    """
    for k in range(tries):
        sub = int(np.random.SeedSequence([seed, k]).generate_state(1)[0])
        r = simulate_round(settings, sub)
        if min_s <= r.duration <= max_s:
            return r
    raise ValueError(f"no round of {tries} lasted {min_s}..{max_s} s at speed {settings.speed}; adjust the speed")


def measure(settings: SimSettings, seeds: range | list[int]) -> dict[str, float]:
    """Medians and means over a batch of rounds, for reports (never used by tests as timing).

    Returns:
        ``duration_median``/``_p10``/``_p90`` (simulated seconds), ``plays_median``,
        ``collisions_mean``, ``ties_mean``, ``beaten_mean``, ``aborted_mean`` (see
        :attr:`SimRound.stats`), ``illegal_share`` (illegal plays / plays),
        ``stuck_share`` (rounds ending stuck), ``cpu_median`` (CPU seconds per round).
    """
    import time

    dur, plays, cols, ties, cpu, stuck, beaten, aborted = [], [], [], [], [], [], [], []
    illegal = total = 0
    for seed in seeds:
        t0 = time.process_time()
        r = simulate_round(settings, seed)
        cpu.append(time.process_time() - t0)
        dur.append(r.duration)
        plays.append(r.stats["plays"])
        cols.append(r.stats["collisions"])
        ties.append(r.stats["ties"])
        beaten.append(r.stats["beaten"])
        aborted.append(r.stats["aborted"])
        stuck.append(r.stats["ending"] == "stuck")
        illegal += r.stats["illegal"]
        total += r.stats["plays"]
    p10, p50, p90 = np.percentile(dur, [10, 50, 90])
    return {
        "duration_median": float(p50), "duration_p10": float(p10), "duration_p90": float(p90),
        "plays_median": float(np.median(plays)), "collisions_mean": float(np.mean(cols)),
        "ties_mean": float(np.mean(ties)), "beaten_mean": float(np.mean(beaten)),
        "aborted_mean": float(np.mean(aborted)), "illegal_share": illegal / max(1, total),
        "stuck_share": float(np.mean(stuck)), "cpu_median": float(np.median(cpu)),
    }


if __name__ == "__main__":  # python -m nertz.datasets.sim [players] [speed] [rounds]
    import sys

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    speed = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 50
    stats = measure(SimSettings(players=n, speed=speed), range(rounds))
    print(f"players={n} speed={speed} rounds={rounds}")
    for key, value in stats.items():
        print(f"  {key:16s} {value:.3f}")
