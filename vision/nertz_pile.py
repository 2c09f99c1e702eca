"""Each player's Nertz pile followed through the round: the cards left, from its top card's changes.

``shared/RULES.md``: the Nertz pile holds 13 cards (``table.rules.nertz_pile``), the top one
face up; only the top card is playable, and when it leaves the next one is turned face up. So
each new card seen on top means the one before it has left, and at the call the cards left are
``nertz_pile`` less the cards gone (:func:`cards_gone`). :class:`NertzPileWatch` counts them
from the looks of the round until shortly after the call (``after_call``), with the plays and
take-backs the tracker reported (:meth:`~NertzPileWatch.played`,
:meth:`~NertzPileWatch.taken_back`). The count from the face-down spread after the call
(:mod:`nertz.vision.spread_count`) is its cross-check.

**Where the pile lies.** In the first looks of the source (``locate_s`` seconds, the deal) the
whole face-up cards in a player's zone are the dealt row: the Nertz pile and four work piles,
with the waste and the stock beside (``nertz calibrate``'s layout: Nertz pile, four work piles,
waste, stock, from the player's left, :data:`nertz.vision.calibrate.SLOTS`). The Nertz pile is
the card at the player's left end of the row: the farthest along *left* = ``(d_y, -d_x)``,
where ``d`` is the unit vector from the zone's centre to the shared area's centre (image
pixels, y down: for a player at the bottom of the picture, facing up, left is the picture's
left; the picture must not be mirrored).

**Its top card.** In each look, the one whole face-up card whose centre lies within
``radius`` card widths of that place, read with probability at least ``min_prob`` and
covered by a hand less than ``max_hidden`` of its box (a joker only when the rules deal jokers).
A look with none or several says nothing.

**Misreadings.** The classifier reads an 8H as a 7H now and then, or names a card under a
passing arm; left alone, each would count as a card gone. The readings are segmented into runs
of one card by a Viterbi pass (:func:`top_cards`): each new run costs ``switch_cost``, each
reading that disagrees with its run costs its probability, and the cheapest segmentation wins
(a few weak readings in a row of strong ones are misreadings; a card read for a second or more
is a new top). It also reads a card as one of the same rank and colour for seconds on end (a JC
as a JS): a card read on top after its player played it to a foundation is another card (a
token ``"JS#2"``), and a card that had left and shows on top again is the same card only when
its player was seen taking it back (a collision's loser), else another.

Hesitations count for little: a reading costs a run the probability of its card less the
probability it gives the run's card (its runners-up, ``Sighting.alts``), so a 4S read as 4C at
0.5 with 4S the runner-up at 0.48 barely breaks the 4S run (r9353's yellow: such readings made
three cards of one, 2 left counted for 5).

Measured with the shipped models' looks (session 58; counts exact / cards off in all): rounds
9324-9344 (74 counts, where it was made) **73 / 1** (the spread count: 50 / 79); 9345-9354 (35
counts, rendered while it was made; the take-back condition was chosen there) 32 / 3; 9355-9358
(14 counts, rendered at the end, measured once) 12 / 3 (the spread: 8 exact). Without the
runners-up: 71 / 4, 31 / 6, 12 / 3; without the plays and take-backs: 72 / 4, 31 / 4, 10 / 7.
``min_prob`` and ``switch_cost`` were chosen on 9324-9344 with the first version (every
different top a card gone), ``after_call`` on 9324-9350 (see its note); those sweeps read, for
r9326-r9333, the looks of an earlier observer (a stale cache file), so their figures are not
the ones above. What it still loses: a card seen on top for less than about 0.3 s (among the
misreadings), a card read for seconds as one of the same rank and colour that its player had
moved to a work pile.

What it cannot see at all: the cards gone before the source started (it must start at the
deal), a Nertz pile laid at the player's right. The referee therefore also counts the spread
and reports a disagreement for review (:class:`nertz.vision.pipeline.RefereePipeline`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from nertz.referee.table import Table

from .tracker import Look, quad_pose

__all__ = ["NertzPileWatch", "PileWatchSettings", "cards_gone", "player_left", "top_cards"]


def player_left(table: Table, player: str) -> np.ndarray | None:
    """``(2,)`` unit vector, image pixels: the direction of ``player``'s left, ``(d_y, -d_x)``
    where ``d`` is the unit vector from the centre of their zone to the shared area's (module
    docstring, "Where the pile lies"); None when the player has no zone or the two centres
    coincide."""
    zone = table.zones.get(player)
    if zone is None:
        return None
    d = np.asarray(table.shared_area, np.float64).mean(axis=0) - np.asarray(zone, np.float64).mean(axis=0)
    norm = float(np.linalg.norm(d))
    if not norm:
        return None
    return np.array([d[1], -d[0]]) / norm


@dataclass(frozen=True)
class PileWatchSettings:
    """Tuning of :class:`NertzPileWatch` (module docstring; chosen on rounds 9324-9350).

    Attributes:
        locate_s: seconds from the first look in which the dealt rows locate the Nertz piles.
            2 since session 64 (1 before): r9385's blue Nertz pile, a face the detector did
            not find in the first second, was taken for the first work pile beside it (the
            pile counted 11 left for 1); once that card was played, the next one on the pile
            was found. The located place against the true one (the row's end in the first
            labelled frame; the models' looks), zones off by more than half a card width: 2
            of 189 at 1 s (r9385's blue, r9356's red), none at 2 or 3 s (rounds 9324-9360 and
            9383-9387). With the Nertz counts from the video, rounds 9324-9360 came out the
            same (122 of 130 counts exact); held out, 9383-9390: r9385's blue 11 -> 5 (true
            1), points off 46 -> 34, nothing else changed.
        radius: a card is the pile's top when its centre lies within this many card widths
            of the pile's place.
        left_band: cards of the dealt row within this many card widths of the leftmost one
            (along the player's left) are the Nertz pile's (its place is their mean centre).
        min_prob: least classifier probability of a reading of the top. 0.3 since session 73
            (0.5 before): a card read the same weak way in every look for seconds is a top all
            the same (r9700's red QC at 0.36 for 5.6 s, green's JC as JS at 0.44 for 18 s, in
            ``kde-oxygen``, which the classifier reads worst), and the segmentation
            (:func:`top_cards`) weighs each reading by its probability, so a few weak
            misreadings still cost less than a new run. Dev rounds 9700-9711 (session 73, the
            shipped models' looks, 42 counts): exact 39 / 42 / 42 / 42 and cards off 5 / 0 / 0
            / 0 at 0.5 / 0.3 / 0.2 / 0 (the three wrong at 0.5: r9700's red 7 for 4 and green
            10 for 9, r9710's blue 7 for 6); 0.3, the tracker's own ``min_prob``, rather than
            lower, as no round told the lower values apart.
        max_hidden: readings covered by a hand box more than this share of their box are left out.
        switch_cost: the cost of a new run in :func:`top_cards`, in units of probability.
        after_call: seconds after the call during which the piles are still read: a card
            turned up just before the call shows a moment longer; nothing leaves a Nertz pile
            after the call (``RULES.md``: only cards already in a hand finish their move), and
            the players then gather their piles to spread them. 0.3 since 2026-12-07 (session
            68): the renders before then let a Nertz card picked up after the call go to a work
            pile and left it out of the true count (15 of 61 rounds), and 1 s, chosen on those
            counts (rounds 9324-9350, exact with 0 / 0.3 / 0.6 / 1 / 1.5-3 s: 85 / 86 / 87 / 88
            / 88), followed such moves. Against the counts at the call (the simulator mended,
            the rounds' truth re-simulated; 190 counts of rounds 9324-9360 and 9390-9406, the
            looks of the shipped models, pile counts alone): exact with 0 / 0.3 / 0.5 / 1 s:
            176 / **183** / 182 / 173, cards off 18 / 11 / 12 / 21.
        empty_after: seconds the place must have shown no card (and no hand over it) until the
            last look for a pile counted down to its last card to be empty
            (:meth:`NertzPileWatch.counts`; 0: the last look shows it bare). A non-caller whose
            pile is empty played its last card a moment before the call (r9342's green, the
            sample round's green: one look before the call); 0 and 0.1 on rounds 9324-9344
            (the earlier looks for r9326-r9333): 68 counts exact, 0.3 and 1: 67.
        shown_every: :meth:`NertzPileWatch.counts_so_far` (the overlay's counts) is computed
            again at most once per this many seconds of looks, and at once after a play or
            take-back: a count is the Viterbi pass of :func:`top_cards` over every reading so
            far, 25 ms for five players late in a round (r9340), which the service's camera
            view and ``--out`` paid in every look (14 ms median) when it followed each reading.
    """

    locate_s: float = 2.0
    radius: float = 0.5
    left_band: float = 0.3
    min_prob: float = 0.3
    max_hidden: float = 0.3
    switch_cost: float = 2.0
    empty_after: float = 0.0
    after_call: float = 0.3
    shown_every: float = 0.5


def top_cards(readings: list[tuple], switch_cost: float = 2.0) -> list[str]:
    """The cards that lay on top, in order, from noisy readings of the top.

    Args:
        readings: ``(card, probability)`` or ``(card, probability, runners_up)`` per look, in
            time order (looks without a reading left out); ``runners_up``: ``((card,
            probability), ...)``, the classifier's other names for it.
        switch_cost: the cost of starting a new run (a new top card). A reading costs the run it
            falls in the probability of its card less the probability it gives the run's card
            (nothing when it names that card; little when it hesitates between the two).

    Returns:
        The runs' cards, first to last (a card may come back: a card taken back onto the pile);
        empty for no readings. The segmentation is the cheapest one (Viterbi over the cards read,
        ``O(len(readings) x cards)``).
    """
    if not readings:
        return []
    cards = sorted({r[0] for r in readings})
    index = {c: i for i, c in enumerate(cards)}
    cost = np.zeros(len(cards))
    came_from: list[np.ndarray] = []  # per reading: the previous run's card index, -1 to stay
    for card, prob, *rest in readings:
        best = int(cost.argmin())
        switch = cost[best] + switch_cost
        came_from.append(np.where(cost <= switch, -1, best))
        cost = np.minimum(cost, switch) + prob
        cost[index[card]] -= prob  # agreeing costs nothing
        for alt, q in (rest[0] if rest else ()):
            if alt in index and alt != card:
                cost[index[alt]] -= min(q, prob)
    state = int(cost.argmin())
    path = []
    for back in reversed(came_from):
        path.append(cards[state])
        if back[state] >= 0:
            state = int(back[state])
    path.reverse()
    return [c for i, c in enumerate(path) if i == 0 or path[i - 1] != c]


def cards_gone(tops: list[str], taken_back: set[str] | frozenset[str] = frozenset()) -> int:
    """How many cards have left a Nertz pile whose top cards were ``tops``, in order.

    From one top ``x`` to the next ``y``, ``x`` has left (``y`` is new, or lay under ``x``),
    unless ``y`` had left before and is in ``taken_back``: a collision's loser taken back onto
    the pile, over ``x``, which is still there. A card that had left and shows on top again
    without a take-back is another card read as it (a JC read as the JS played before it), so
    it counts as a card of its own.
    """
    gone: set[str] = set()
    name: dict[str, str] = {}  # a top's card -> the card it stands for now ("7H", "7H'", ...)
    for x, y in zip(tops, tops[1:]):
        x, now = name.get(x, x), name.get(y, y)
        if now in gone and y in taken_back:
            gone.discard(now)
            continue
        if now in gone:  # another card read as one that had gone
            name[y] = now + "'"
        gone.add(x)
    return len(gone)


@dataclass
class _Pile:
    place: np.ndarray  # (2,) pixels
    width: float  # card width, pixels
    readings: list[tuple] = field(default_factory=list)  # (t, card, probability, runners-up)
    bare_since: float | None = None  # seconds: the place has shown no card (and no hand) since


class NertzPileWatch:
    """Follows each zoned player's Nertz pile through the looks of a round (module docstring).

    Feed every look of the round to :meth:`push`, the call to :meth:`call`, the tracker's plays
    and take-backs to :meth:`played` and :meth:`taken_back` (any time before counting), then
    read :meth:`counts` (``{player: cards left}``) or :meth:`tops` (the cards seen on top).

    Args:
        table: the table (zones, shared area, ``rules.nertz_pile``, ``rules.jokers``).
        settings: :class:`PileWatchSettings` (default: the defaults).
    """

    def __init__(self, table: Table, settings: PileWatchSettings | None = None) -> None:
        self.table = table
        self.settings = settings or PileWatchSettings()
        self._t0: float | None = None
        self._deal_looks: list[Look] = []  # the looks until the piles are located
        self.piles: dict[str, _Pile] = {}
        """``{player: pile}`` once located: ``place`` ``(2,)`` pixels, ``width`` pixels, ``readings``."""
        self._located = False
        self.empty_zones: list[str] | None = None
        """Once the piles are located: the players in whose zone the deal's looks showed no
        face-up card at all (a dealt row shows five): a table file of another table, or a
        player the table file names who is not at this one."""
        self._last_t: float | None = None  # the last look read before the call, seconds
        self._call_t: float | None = None  # the first call, seconds
        self._moves: dict[str, list[tuple[float, str, int]]] = {}  # player -> (t, card, +1 play / -1 take-back)
        self._shown: tuple[tuple, dict[str, int]] = ((), {})  # counts_so_far's cache: (inputs' sizes, counts)

    def call(self, t: float) -> None:
        """The round was called at ``t`` seconds: the piles are read for ``after_call`` seconds
        more (their last tops), whether a place is bare is judged at the call."""
        if self._call_t is None:
            self._call_t = t

    def push(self, look: Look) -> None:
        """Take one look (time order); looks from ``after_call`` seconds after the call on are
        the spreads', not the piles', and are ignored."""
        if self._call_t is not None and look.t >= self._call_t + self.settings.after_call:
            return
        if self._t0 is None:
            self._t0 = look.t
        if not self._located:
            self._deal_looks.append(look)
            if look.t <= self._t0 + self.settings.locate_s:
                return
            self._locate()  # and read the deal's looks too: a top may go within the first seconds
            return
        self._read(look)

    def _read(self, look: Look) -> None:
        s = self.settings
        before_call = self._call_t is None or look.t < self._call_t
        if before_call:
            self._last_t = look.t
        hands = np.asarray(look.hands, np.float64).reshape(-1, 4)
        centres = np.array([f.pose[0] for f in look.faces], np.float64).reshape(-1, 2)
        for pile in self.piles.values():
            dist = np.linalg.norm(centres - pile.place, axis=1)
            at = [f for f, d in zip(look.faces, dist) if d < s.radius * pile.width]
            near = [f for f in at
                    if f.whole and f.prob >= s.min_prob and f.hidden < s.max_hidden
                    and (self.table.rules.jokers or f.label != "JK")]
            if len(near) == 1:
                pile.readings.append((look.t, near[0].label, float(near[0].prob), tuple(near[0].alts)))
            if not before_call:
                continue  # bare or not is judged at the call
            x, y = pile.place
            covered = bool(((hands[:, 0] <= x) & (x <= hands[:, 2]) & (hands[:, 1] <= y) & (y <= hands[:, 3])).any())
            if at:
                pile.bare_since = None
            elif not covered and pile.bare_since is None:
                pile.bare_since = look.t

    def _locate(self) -> None:
        self._located = True
        self.empty_zones = []
        looks, self._deal_looks = self._deal_looks, []
        deal = [lk for lk in looks if lk.t <= self._t0 + self.settings.locate_s]
        for player, zone in self.table.zones.items():
            poly = np.asarray(zone, np.float32)
            seen = [(c, w) for lk in deal for f in lk.faces if f.whole
                    for c, _, w in [quad_pose(f.quad)] if cv2.pointPolygonTest(poly, (float(c[0]), float(c[1])), False) >= 0]
            left = player_left(self.table, player)
            if not seen:
                self.empty_zones.append(player)
            if not seen or left is None:
                continue  # no dealt row seen: this player's pile is not followed
            centres = np.array([c for c, _ in seen])
            width = float(np.median([w for _, w in seen]))
            along = centres @ left
            place = centres[along >= along.max() - self.settings.left_band * width].mean(axis=0)
            self.piles[player] = _Pile(place, width)
        for lk in looks:
            self._read(lk)

    def played(self, player: str, card: str, t: float) -> None:
        """A play of ``player``'s ``card`` to a foundation, landed at ``t`` seconds (the tracker's
        ``play`` event): the card has left the layout, so a card read as ``card`` at the Nertz
        pile after ``t`` is another card (unless taken back)."""
        self._moves.setdefault(player, []).append((t, card, 1))

    def taken_back(self, player: str, card: str, t: float) -> None:
        """``player`` took ``card`` back from a foundation at ``t`` seconds (a ``take_back``
        event): it may lie on the Nertz pile again."""
        self._moves.setdefault(player, []).append((t, card, -1))

    def _tokens(self, player: str, pile: _Pile) -> list[tuple[str, float, tuple[tuple[str, float], ...]]]:
        """The readings as ``(token, probability, runners_up)``: a card read after its ``k``-th
        play (less its take-backs by then) is the token ``"card#k+1"``, another card read as it."""
        moves = self._moves.get(player, [])

        def token(card: str, t: float) -> str:
            k = max(0, sum(sign for tm, c, sign in moves if c == card and tm < t))
            return card if k == 0 else f"{card}#{k + 1}"

        return [(token(card, t), prob, tuple((token(a, t), q) for a, q in alts))
                for t, card, prob, alts in pile.readings]

    def tops(self, player: str) -> list[str]:
        """The cards seen on top of ``player``'s Nertz pile so far, in order (:func:`top_cards`;
        ``"7H#2"``: a second card read as 7H, after the 7H was played); empty when the pile was
        not located or never read."""
        pile = self.piles.get(player)
        if pile is None:
            return []
        return top_cards(self._tokens(player, pile), self.settings.switch_cost)

    @property
    def located(self) -> bool:
        """Whether the piles have been located (``locate_s`` seconds of looks seen)."""
        return self._located

    def counts_so_far(self) -> dict[str, int]:
        """:meth:`counts` as the looks, plays and take-backs seen so far give them, for display
        during the round (the overlay): empty until the piles are located (it does not locate
        them early, as :meth:`counts` would), and computed again only after a play or
        take-back, or once ``shown_every`` seconds of looks have passed (a new top shows up to
        that much later)."""
        if not self._located:
            return {}
        every, last = self.settings.shown_every, self._last_t  # the last look read before the call
        key = (tuple(len(m) for m in self._moves.values()), self._call_t,
               None if last is None else (int(last // every) if every > 0 else last))
        if key != self._shown[0]:
            self._shown = (key, self.counts())
        return self._shown[1]

    def snapshot(self) -> dict[str, tuple[np.ndarray, float, int | None]]:
        """Each located pile as the overlay draws it: ``{player: (place, width, left)}``, the
        place a ``(2,)`` float copy in pixels, the card width in pixels and the cards left
        counted so far (:meth:`counts_so_far`; None when not counted yet); empty until the
        piles are located. A copy, safe to hand to another thread."""
        left = self.counts_so_far()
        return {name: (pile.place.copy(), float(pile.width), left.get(name)) for name, pile in self.piles.items()}

    def counts(self) -> dict[str, int]:
        """``{player: cards left}`` for every player whose pile was located and read:
        ``nertz_pile`` less the cards gone (:func:`cards_gone`), less one more when the last
        top was played to a foundation (a ``play`` of that card by that player, not taken
        back: the pile's last card, or one in the air at the call), at least 0. With one card
        left by that count, a place that has shown no card and no hand over it for the last
        ``empty_after`` seconds (at least in the last look) means the last card has gone too: 0."""
        if not self._located:
            self._locate()
        out = {}
        for player, pile in self.piles.items():
            seen = self.tops(player)
            if not seen:
                continue
            moves = self._moves.get(player, [])
            back = {c for _, c, sign in moves if sign < 0}
            card, _, k = seen[-1].partition("#")
            last_played = sum(sign for _, c, sign in moves if c == card) >= int(k or 1)
            left = max(0, self.table.rules.nertz_pile - cards_gone(seen, back) - last_played)
            if (left == 1 and pile.bare_since is not None and self._last_t is not None
                    and self._last_t - pile.bare_since >= self.settings.empty_after):
                left = 0
            out[player] = left
        return out
