"""Arrival times at frame resolution: when did a new card land on a pile?

The tracker confirms a change on a pile only at a look (every ``stride``-th frame) and only once
hands are out of the way, which is later than the landing. :class:`ArrivalTimer` keeps every
frame of the last few seconds, small and grey, and walks back from the confirming frame (and
from the first look that showed the card; the earlier arrival wins) over the new card's quad:
a pixel that changed between the pile's old state and its new one votes
"new" in a frame when it is closer there to the new state than to the old one. The arrival is
the earliest frame of the last run of frames in which at least ``on`` of those pixels vote
"new" (gaps of up to ``gap`` frames allowed, for the hand that lets go of the card; a frame in
which, of the changed pixels that look as before or as after, most look as after counts as
"new" too: the card lies under the hand going back from it). This is
the "first frame in which the new card is seen on the pile" of ``shared/DESIGN.md``. For a new
pile the old state is the last look that showed its place bare (no hand, no card over it).
An arm passing over the card just after it was let go (another player reaching for a pile)
would hold the vote under ``on`` until it has gone; so in a frame that falls short, the pixels
under a hand box (the detector's, from the looks on either side of the frame) abstain, and the
vote of the others counts when they are at least ``free`` of the changed pixels.

The second card of a contested pair may lie exactly where the first lies (the first is not
covered in a way the pixels show), so :meth:`ArrivalTimer.second_landing` reads motion instead:
the hand that brings the second copy, slows to a stop, lets go and leaves, before the hand that
takes it back. A card the next one covered before a look could confirm it (the tracker infers
it from the pile's suit) is timed by :meth:`ArrivalTimer.covered_landing`: the walk back from
the last still frame before the hand bringing the next card came over the pile; the card over
it, by :meth:`ArrivalTimer.covering_landing`, a walk back that this hand ends (the covered card
looks like the new one to the walk, which would run on to the covered card's landing). A card
let go under the hand that brought it, hidden until that hand has gone, is timed by the hand's
stop over the pile (``hand_lull``).
"""

from __future__ import annotations

from collections import deque
from itertools import groupby

import cv2
import numpy as np

from .tracker import PlayCandidate

__all__ = ["ArrivalTimer"]


class ArrivalTimer:
    """A ring buffer of small grey frames and the look-back of the module docstring.

    Args:
        scale: frames are kept at this scale (0.5: a 1280 x 720 frame is kept as 640 x 360).
        seconds: how much history to keep, seconds.
        fps: the source's frame rate (frames per second), to size the buffer.
        on: fraction of the changed pixels that must vote "new" in a frame (0.9: with 0.6 the
            card still in the hand, a few pixels off its place, already voted "new"; tuning
            rounds, perfect eyes: plays within two frames 0.953 -> 0.964 at 0.8. At 0.8 a new
            pile's ace, a large change sliding in slowly at the end of its reach, still voted
            "new" two or three frames before it was let go. 20 tuning rounds of 2026-12-02,
            982 plays, plays all right at 0.8 / 0.9 / 0.95: models 866 / 869 / 871, perfect
            eyes 930 / 930 / 925 (0.95 waits out arms that pass over the card just after);
            12 clean rounds, models: 515 / 518 / 518 of 570).
        gap: frames in a row below ``on`` that end the walk back.
        free: in a frame below ``on``, the share of the changed pixels outside the hand boxes
            (:meth:`push_hands`) that may vote alone (0.3 at first; 20 tuning rounds of
            2026-12-02, plays all right: perfect eyes 930 -> 939 of 982, models 869 -> 870; 12
            clean rounds: perfect eyes 541 -> 544, models 518 -> 519 of 570; 0.5: 936 and
            869). 0.15 since 2026-12-03: another player's arm reaching past the pile just
            after the landing often covers 80-90 % of the card's changed pixels, and the
            arrival then waited for it to go (20 tuning rounds of 2026-12-03, 995 plays, all
            right 0.3 -> 0.15: perfect eyes 946 -> 951, models 900 -> 902; 0.1 and 0.05 the
            same as 0.15). 0.05 since 2026-12-05 (session 51): with hands going back to rest
            after a release, the hand box of the looks on either side of a frame often covers
            85-90 % of the card (r9268's green 6D, landed in frame 1245: 13 % of its changed
            pixels outside the box in frames 1245-1247, 84-100 % of them voting "new"; timed
            1248 at 0.15). 18 tuning rounds 9268-9285 (845 plays), plays all right 0.15 / 0.1 /
            0.05 / 0.02: models 786 / 787 / 789 / 789, perfect eyes (0.15 / 0.05) 804 / 806;
            older rounds 9250-9267 with the models 899 / 899 (0.05); rounds 9286-9297 582 /
            585 of 651. None: hands never abstain.
        both: walk back from the first look that showed the new card too (``frame_seen``), not
            only from the latest frame, and take the earlier arrival: by the confirming look the
            next card or hand may already lie over the new one, and the walk from there then
            stops at that hand (perfect eyes, 12 rendered rounds: plays timed within two frames
            535 -> 539 of 564; with the models' looks on 18 rounds, no play's time changed).
        grow: the walk back reads the pixels of the new card's quad scaled by this factor
            about its centre: a rim of cloth around the card, which a card still held a few
            pixels off its place leaves uncovered, so it does not vote "new" before it is let
            go (a detector's quad often lies a little inside the card). 24 rendered rounds
            (2026-12-04, session 44), plays all right at 0.8 / 1.0 (before) / 1.1 / 1.2:
            models 1144 / 1153 / 1156 / 1155 of 1209 (plays more than two frames off 39 / 30 /
            27 / 28); perfect eyes (1.0 / 1.1) 1185 / 1188.
        gone: in a frame below ``on``, the card counts as down when at most this share of the
            changed pixels still looks as before (grey level within 18 of the old state) and
            at least ``seen`` of them already look as after: the old state has gone from the
            card's place, and what is not the new card yet is neither (a hand still over it,
            which the looks' hand boxes, a look every third frame, miss as it moves). A card
            released under a hand then arrives in its first frame, not when the hand has left
            it (r9256's yellow 5D: released at frame 575.7, 24 % of it showing in 576, 39 % in
            577, 86 % in 578, under red's hand carrying its 5H past to pile 2; 9 % of its
            changed pixels still looked as before in 577, so the arrival is 577, no longer
            578). 12 tuning rounds 9250-9261 (2026-12-05, session 47; 629 plays), plays all
            right with perfect eyes None / 0.05 / 0.1 / 0.12 (with ``seen`` 0.3): 613 / 614 /
            616 / 614 (0.1 with ``seen`` 0.2 or 0.4: 614 and 614; 0.15 worse on five of them);
            with the models' looks, None / 0.1: 283 / 285 of
            300 on 9256-9261 and 319 / 319 of 329 on 9250-9255 (extra plays 3 -> 4 there: a
            misread second 2C turned into a collision's loser). It moves answers earlier on the
            whole: median time error +0.15 -> +0.03 frames, 16 -> 24 plays 1-2 frames early.
            Measured once on six new rounds, 9262-9267 (310 plays): no difference, with the
            models (293 all right) or perfect eyes (301); they had no play 2-3 frames late to
            win back. None: never; None since 2026-12-05 (session 48), when ``decided`` 0.75
            took its place: it takes every frame ``gone`` 0.1 takes (at most 10 % as before
            and at least 30 % as after is at least 75 % as after of the pixels that are either).
        seen: see ``gone`` and ``decided``: the least share of the changed pixels that must
            already look as after.
        decided: in a frame below ``on``, the card counts as down when, of the changed pixels
            that look either as before or as after (grey level within 18 of the old state or of
            the new one), at least this share look as after (and at least ``seen`` of all of
            them), and at least as many are neither as look as before: what is neither is the
            hand that laid the card going back over it, and the few pixels that still look as
            before are under it, where the hand and the old state are alike in grey (with no
            hand over the card, pixels that look as before are cloth the card does not cover
            yet: a card still held a few pixels off its place). Made for rounds rendered with
            hands going back to rest after a release (2026-12-05; before, a hand vanished from
            over the card the frame after it let go): r9271's yellow AD lands in frame 225.7
            under its hand, 61 % and 72 % of it showing in frames 226 and 227; of its changed
            pixels 18 % and 12 % still look as before there (over ``gone``'s 10 %), 48 and
            61 % as after; the arrival was frame 228, it is 227 at 0.75 (226 at 0.7). 24 rendered
            rounds 9250-9273 (2026-12-05, session 48; 1215 plays), plays all right with perfect
            eyes, ``gone`` 0.1 (before) / ``decided`` 0.7 / 0.75 / 0.8 / 0.85: 1173 / 1175 /
            1180 / 1178 / 1173; on the six rounds drawn with hands going back (9268-9273, 276
            plays): 256 / 263 / 264 / 261 / 256. With the models' looks, before / 0.75 / 0.8:
            1144 / 1151 / 1149 (9268-9273: 247 / 251 / 249), extra plays 23 / 24 / 23, points
            off 38 at each (these without the "neither" condition; with it at 0.75, the same
            totals, one play fewer 2-3 frames early). Answers move earlier: median time error
            -0.02 -> -0.13 frames, plays 2-3 frames early 2 -> 3 with the models (2 -> 4 with
            perfect eyes). Measured once on six new rounds drawn with hands going back,
            9274-9279 (259 plays): no gain, models 235 -> 234 (a play now within two frames, two
            now 2.1 frames early), perfect eyes 235 -> 235; then on six more, 9280-9285 (310
            plays): models 278 -> 284, perfect eyes 282 -> 286. None: never.
        dip: :meth:`second_landing` reads the hand letting go of its card in the run of motion
            that brought it as the frame before the run's last lull: the last frame, neither
            the run's first nor its last, whose motion share is at most ``dip`` times the
            largest share both before it and after it in the run (a hand placing a card slows
            to a stop, lets go, and speeds up again going back; the lull is the frame in which
            it barely moved since the one before, so it let go in that one). Without a lull,
            and with None, the run's last moving frame, which with the hand going back to rest
            is the frame in which it has cleared the pile, two or three frames after it let
            go: on 18 tuning rounds drawn with hands going back (9268-9285, 2026-12-05,
            session 49; 845 plays, 34 collisions) the losers of collisions were timed +1.8 to
            +5 frames late, median about +2.7. Plays all right with perfect eyes, None / 0.5 /
            0.7 / 0.85 / 1.0: 785 / 798 / 800 / 803 / 803 (plays 2-3 frames late 21 -> 9);
            with the models' looks, None / 0.7 / 0.85: 769 / 780 / 783. Reading the lull
            frame itself rather than the one before: the same totals at 0.5 and 0.85, answers
            0.3 to 1 frame later. On the 18 older rounds drawn with hands vanishing after a
            release (9250-9267, no slowing down going back) it costs 3 plays of 939 with
            perfect eyes (917 -> 914).
        lull: in :meth:`second_landing`, runs of motion (those that count, see ``strong``)
            apart by at most this many still frames are one run, and the still frames are its
            lull (``dip``): a hand that stops dead to let go moves less than ``moving`` in that
            frame, which split its run in two, and the landing was read at the end of the
            second half, the hand going back (r9276's red 6D: let go in frame 919, frame 920
            still, read as 923; now 919). 18 tuning rounds 9268-9285 (2026-12-05, session 53),
            perfect eyes, plays all right with 0 / 1 / 2: 810 / 811 / 808 (2: three plays of
            two collisions read 2 to 8 frames early, where the first hand's leaving and the
            second's coming were two runs).
        open_take_back: in :meth:`second_landing`, a run of motion still going on at
            ``until`` is the take-back after all when it is the second of only two runs: the
            take-back, then another hand passing (or the taker's hand still over the pile)
            before the copy was seen back in its zone, made one long run, and the one run
            left could not be told apart (r9337's blue 3S, a collision's loser, was missed:
            the tracker's ``_second_seen`` asks :meth:`second_landing` too, whether a second
            hand came and went at all). 37 rendered rounds 9324-9360 (2026-12-06, session
            62): with the models, plays all right level (1852; r9357's green 4H now 3.4 frames
            late), collisions right 98 -> 99 of 108; perfect eyes 1894 -> 1898 (with the
            tracker's ``loser_hand``).
        run_start: in :meth:`second_landing`, when the run before the take-back is already
            going on in the first buffered frame after ``t_first`` (the second hand was over
            the pile as the first let go) and :meth:`_release` finds no ``dip`` in it (its
            answer is the run's last moving frame, the hands leaving), the second copy landed
            with the first: the answer is that first frame. The losers of the collisions whose
            copies landed 1-2 frames apart were read 2.5-4 frames late. 37 rounds above
            (session 62): plays all right with the models 1852 -> 1859, perfect eyes 1898 ->
            1910, no play lost.
        cover_gap: the frames in a row below ``on`` that end the walk back of
            :meth:`covering_landing` (``gap`` for :meth:`__call__`).
        hand_lull: a card let go under the hand that brought it is hidden until that hand has
            gone, and the walk back (which reads the card's pixels) finds it only then: when at
            least this share of the changed pixels lay under a hand box (or forearm) in the
            frame before the walk's answer, the landing is read from the hand's motion over the
            pile instead, as :meth:`second_landing` reads a collision loser's: the frame before
            the last lull (``dip``) of the run of motion through that frame (one still frame
            inside the run is a hand stopped dead to let go), when that lull comes before the
            walk's answer and no more than ``hand_old`` of the changed pixels still look as
            before in it (the hand is over the card's place, not pausing on its way there).
            None: never. 37 rendered rounds 9324-9360 (2026-12-07, session 65; 2066 plays),
            perfect eyes: plays all right 1979 -> 1991, plays more than two frames late 54 -> 38,
            early 20 -> 24 (r9340's KS, let go in frame 1856.4 under purple's hand, which
            stayed over it until 1859: 1859 -> 1856; the first version, without the still
            frames and ``hand_old``, 1992 with 27 early); with the models' looks 1915 -> 1924
            (late 58 -> 45, early 44 -> 48), extra plays, collisions and scores unchanged.
            Measured once on the held-out rounds 9387-9390 (268 plays): models 249 -> 249 (one
            play fixed, one now 3.7 frames early), perfect eyes 260 -> 261.
        hand_old: see ``hand_lull``. 0.7: 1991 as well, one more play early (r9340's 4S on
            pile 12: the hand slowed over the pile's edge in frame 1562, 66 % of the changed
            pixels still as before, 3.7 frames before it let go); without it (the first
            version) the lull of a hand waiting beside the pile was read as the landing
            (r9340's 4S on pile 7, frame 1498: 83 % still as before).
    """

    MOVING = 0.03
    """A frame "moves" over a card when more than this share of its pixels changed by more
    than 18 grey levels since the frame before (:meth:`second_landing`, :meth:`covered_landing`,
    ``hand_lull``)."""

    def __init__(self, scale: float = 0.5, seconds: float = 4.0, fps: float = 30.0,
                 on: float = 0.9, gap: int = 9, both: bool = True, free: float | None = 0.05,
                 grow: float = 1.1, gone: float | None = None, seen: float = 0.3,
                 decided: float | None = 0.75, dip: float | None = 0.85, lull: int = 1,
                 cover_gap: int = 1, open_take_back: bool = True, run_start: bool = True,
                 hand_lull: float | None = 0.5, hand_old: float = 0.6) -> None:
        self.scale = float(scale)
        self.frames: deque[tuple[int, float, np.ndarray]] = deque(maxlen=max(int(seconds * fps), 8))
        self.hands: deque[tuple[int, np.ndarray, np.ndarray]] = deque(maxlen=max(int(seconds * fps), 8))
        self.free = free
        self.on = on
        self.gap = gap
        self.both = both
        self.grow = float(grow)
        self.gone = gone
        self.seen = float(seen)
        self.decided = decided
        self.dip = dip
        self.lull = int(lull)
        self.cover_gap = int(cover_gap)
        self.open_take_back = bool(open_take_back)
        self.run_start = bool(run_start)
        self.hand_lull = hand_lull
        self.hand_old = float(hand_old)

    def push(self, index: int, t: float, frame: np.ndarray) -> None:
        """Keep frame ``index`` (time ``t`` seconds; ``(H, W, 3) uint8`` BGR)."""
        small = cv2.resize(frame, None, fx=self.scale, fy=self.scale, interpolation=cv2.INTER_AREA)
        self.frames.append((index, t, cv2.cvtColor(small, cv2.COLOR_BGR2GRAY).astype(np.int16)))

    def push_hands(self, index: int, boxes: np.ndarray, arms: np.ndarray | None = None) -> None:
        """Keep the hand boxes seen in the look at frame ``index`` (``(M, 4)`` xyxy frame
        pixels) and their forearms (``(K, 4, 2)`` convex polygons, pixels:
        :func:`nertz.vision.hands.forearm`); give them before the look's arrivals are asked
        for."""
        self.hands.append((index, np.asarray(boxes, np.float32).reshape(-1, 4),
                           np.zeros((0, 4, 2), np.float32) if arms is None else np.asarray(arms, np.float32)))

    def _under_hands(self, index: int) -> np.ndarray | None:
        """``(h, w)`` bool: the buffered frames' pixels inside the hand boxes and forearms of
        the looks just before and just after frame ``index`` (a hand moves between looks); None
        when neither look saw a hand."""
        before = max((h for h in self.hands if h[0] <= index), key=lambda h: h[0], default=None)
        after = min((h for h in self.hands if h[0] >= index), key=lambda h: h[0], default=None)
        boxes = [h[1] for h in (before, after) if h is not None and len(h[1])]
        if not boxes:
            return None
        under = np.zeros(self.frames[-1][2].shape, np.uint8)
        for x0, y0, x1, y1 in np.round(np.concatenate(boxes) * self.scale).astype(int):
            under[max(y0, 0):max(y1, 0), max(x0, 0):max(x1, 0)] = 1
        for h in (before, after):
            for arm in (h[2] if h is not None else ()):
                cv2.fillConvexPoly(under, np.round(arm * self.scale).astype(np.int32), 1)
        return under > 0

    def _mask(self, quad: np.ndarray, eroded: bool = True) -> np.ndarray:
        """``(h, w)`` bool: the buffered frames' pixels inside ``quad`` (``(4, 2)`` frame
        pixels), shrunk by one pixel with ``eroded`` (the card's edge blends into the cloth)."""
        mask = np.zeros(self.frames[-1][2].shape, np.uint8)
        cv2.fillConvexPoly(mask, np.round(np.asarray(quad, np.float32).reshape(4, 2) * self.scale).astype(np.int32), 1)
        if eroded:
            mask = cv2.erode(mask, np.ones((3, 3), np.uint8))
        return mask > 0

    def _at(self, index: int) -> int | None:
        for i, (fi, _, _) in enumerate(self.frames):
            if fi >= index:
                return i
        return None

    def changed(self, cand: PlayCandidate, threshold: int = 18) -> float | None:
        """Fraction 0..1 of the new card's quad whose grey level differs by more than
        ``threshold`` (0..255) between the pile's old state (``cand.frame_before``) and now: a
        card laid on a pile changes much of it, the same card read differently changes little.
        None when the buffer no longer holds the old frame."""
        if not self.frames:
            return None
        i_old = self._at(max(cand.frame_before, 0))
        if i_old is None or i_old >= len(self.frames) - 1:
            return None
        mask = self._mask(cand.quad)
        if not mask.any():
            return None
        return self._changed_share(len(self.frames) - 1, i_old, mask, threshold)

    def _changed_share(self, i: int, j: int, mask: np.ndarray, threshold: int) -> float:
        """Fraction 0..1 of the ``mask`` pixels whose grey level differs by more than
        ``threshold`` (0..255) between buffered frames ``i`` and ``j`` (buffer indices)."""
        return float(np.mean(np.abs(self.frames[i][2][mask] - self.frames[j][2][mask]) > threshold))

    def __call__(self, cand: PlayCandidate) -> float:
        """The arrival time (seconds) of the change ``cand`` describes; its ``t_seen`` when the
        buffer no longer holds the frames needed."""
        return self._arrival(cand, self.gap)

    def covering_landing(self, cand: PlayCandidate) -> float | None:
        """When ``cand``'s card landed on cards it covers that no look confirmed (seconds; None
        when the buffer no longer holds the frames needed): the walk back of :meth:`__call__`
        ended by ``cover_gap`` frames in a row below ``on``, not ``gap``. The covered card
        looks as much like ``cand``'s in grey as the old top does not, so it votes "new" too,
        and the walk, bridging the hand that brought ``cand`` over it, ran on to the covered
        card's own landing; that hand stops it here."""
        if not self.frames:
            return None
        return self._arrival(cand, self.cover_gap)

    def _arrival(self, cand: PlayCandidate, gap: int, on: float | None = None) -> float:
        """:meth:`__call__` with the walk back ended by ``gap`` frames below ``on`` (default:
        ``self.on``)."""
        if not self.frames:
            return cand.t_seen
        t = self._walk(cand, len(self.frames) - 1, gap, on)
        if self.both:
            i_first = self._at(cand.frame_seen)
            if i_first is not None and i_first < len(self.frames) - 1:
                t = min(t, self._walk(cand, i_first, gap, on))
        return t

    def pair_landing(self, cand: PlayCandidate, on: float) -> float:
        """The arrival of :meth:`__call__` (seconds) with ``on`` (0..1) in place of the timer's
        own: for the first copy of a contested pair, which the second copy, the same face laid
        on it a little off its place, leaves voting "new" with fewer of its pixels
        (``TrackerSettings.pair_on``)."""
        return self._arrival(cand, self.gap, on)

    def _walk(self, cand: PlayCandidate, i_new: int, gap: int | None = None, on: float | None = None) -> float:
        """The walk back of the module docstring from buffer index ``i_new`` (the new state),
        ended by ``gap`` frames in a row below ``on`` (defaults: ``self.gap``, ``self.on``)."""
        gap = self.gap if gap is None else gap
        on = self.on if on is None else on
        i_old = self._at(max(cand.frame_before, 0))
        if i_old is None or i_old >= i_new:
            return cand.t_seen
        ref, old = self.frames[i_new][2], self.frames[i_old][2]
        quad = np.asarray(cand.quad, np.float32).reshape(4, 2)
        mask = self._mask(quad.mean(0) + self.grow * (quad - quad.mean(0)))
        changed = mask & (np.abs(ref - old) > 18)
        if changed.sum() < 8:
            changed = mask
        if not changed.any():
            return cand.t_seen
        r, o = ref[changed], old[changed]
        earliest = i_new
        misses = 0
        for i in range(i_new, i_old, -1):
            g = self.frames[i][2][changed]
            to_new, to_old = np.abs(g - r), np.abs(g - o)
            votes = to_new < to_old
            vote = float(np.mean(votes))
            if vote < on and self.free is not None:
                under = self._under_hands(self.frames[i][0])
                if under is not None:
                    out = ~under[changed]
                    if self.free <= out.mean() < 1.0:
                        vote = float(np.mean(votes[out]))  # the pixels under a hand abstain
            if vote < on and (self.gone is not None or self.decided is not None):
                near_old = float(np.mean(to_old <= 18))
                near_new = float(np.mean(to_new <= 18))
                if near_new >= self.seen and (
                        (self.gone is not None and near_old <= self.gone)
                        or (self.decided is not None and near_new >= self.decided * (near_new + near_old)
                            and 1.0 - near_new - near_old >= near_old)):
                    vote = 1.0
            if vote >= on:
                earliest, misses = i, 0
            else:
                misses += 1
                if misses >= gap:
                    break
        if self.hand_lull is not None and earliest > i_old + 1:
            earliest = self._let_go_under_hand(changed, mask, o, i_old, earliest)
        return float(self.frames[earliest][1])

    def _let_go_under_hand(self, changed: np.ndarray, mask: np.ndarray, old: np.ndarray, i_old: int,
                           earliest: int) -> int:
        """The walk back's answer ``earliest`` (a buffer index) read again from the motion of
        the hand over the card (``hand_lull`` in the class docstring); ``changed`` and ``mask``
        are the walk's ``(h, w)`` bool pixel masks, ``old`` the old state's grey levels at the
        ``changed`` pixels, ``i_old`` the old state's buffer index."""
        under = self._under_hands(self.frames[earliest - 1][0])
        if under is None or float(under[changed].mean()) < self.hand_lull:
            return earliest
        cache: dict[int, float] = {}

        def share(i: int) -> float:
            if i not in cache:
                cache[i] = self._changed_share(i, i - 1, mask, 18)
            return cache[i]

        moving = lambda i: share(i) > self.MOVING
        n = len(self.frames)
        start = earliest - 1  # the run of motion through it; one still frame inside is a dead stop
        while start - 1 > i_old and (moving(start - 1) or (start - 2 > i_old and moving(start - 2))):
            start -= 1
        end = earliest
        while end < n and (moving(end) or (end + 1 < n and moving(end + 1))):
            end += 1
        shares = [share(i) for i in range(start, end)]
        if len(shares) < 3:
            return earliest
        k = self._release(shares, 0, len(shares))
        if k >= len(shares) - 1 or start + k >= earliest:
            return earliest
        near_old = float(np.mean(np.abs(self.frames[start + k + 1][2][changed] - old) <= 18))
        return start + k if near_old <= self.hand_old else earliest

    def covered_landing(self, cand: PlayCandidate, until: float, threshold: int = 18,
                        moving: float = MOVING, least: float = 0.1) -> float | None:
        """When a card landed that ``cand``'s card covered (laid on the pile at ``until``
        seconds, before any look showed the card under it), seconds; None when the frames
        cannot tell.

        The last still frame before ``until`` (fewer than ``moving`` of the quad's pixels
        changed by more than ``threshold`` grey levels since the frame before) in which the
        pile differs from its old state (``cand.frame_before``) in at least ``least`` of the
        quad's pixels shows the covered card on the pile, before the hand bringing the next
        one came over it; the covered card's arrival is read from there as :meth:`__call__`
        reads a confirmed one (the walk back of the module docstring). None when no such frame
        is buffered (the hand came straight back with the next card, or the frames are gone).
        """
        if not self.frames:
            return None
        i_old = self._at(max(cand.frame_before, 0))
        if i_old is None:
            return None
        mask = self._mask(cand.quad)
        if not mask.any():
            return None
        ends = [i for i, (_, t, _) in enumerate(self.frames) if i > i_old + 1 and t < until - 1e-6]
        for i in reversed(ends):
            if self._changed_share(i, i - 1, mask, threshold) >= moving:
                continue
            if self._changed_share(i, i_old, mask, threshold) >= least:
                t = self._walk(cand, i)
                return t if t < until else None
        return None

    def second_landing(self, quad: np.ndarray, t_first: float, until: float,
                       threshold: int = 18, moving: float = MOVING, taken_back: bool = True,
                       strong: float = 0.15) -> float | None:
        """When a second copy of a card landed on a pile whose copy landed at ``t_first``
        (seconds), from the motion over the pile's ``(4, 2)`` quad (pixels) up to ``until``
        seconds: None when the buffer no longer holds those frames or nothing moved there.

        Called once the second copy has been taken back (its owner's zone shows it again), so
        the last run of motion over the pile is the take-back. A frame "moves" when more than
        ``moving`` of the quad's pixels changed by more than ``threshold`` grey levels since the
        frame before. Before the take-back come the first player's hand leaving and the second
        hand bringing its card, as one run when they overlap in time or as two; the landing is
        read in the run just before the take-back: the hand letting go, the frame before the
        run's last lull (``dip``) or else its last moving frame, but, with no lull, the run's
        first frame when it was already going on at ``t_first`` (``run_start``); a run still going on at
        ``until`` is not the take-back, which has ended by then, unless it is the second of
        only two (``open_take_back``). The
        second copy may lie exactly as the first, so the state after the landing need not differ
        from the state before it: motion, not the state, is read. None also when fewer than two
        runs are seen.

        A run counts only when, in one of its frames, more than ``strong`` of the quad's
        pixels changed: the fingertips of the hand that let go, still brushing the pile's edge
        a few frames after, move a few per cent of them, and were read as the letting go
        (0: every run counts; 12 tuning rounds, perfect eyes: two losers' landings 4 and 5
        frames late now right, nothing else changed).

        With ``taken_back=False``, ``until`` comes before the take-back (another card was laid
        on the pile first, at ``until`` or just after, and the loser's copy was pulled out from
        under it later): the landing is then read, as above, in the last run that ended by
        ``until``, and one run is enough.
        """
        idx = [i for i, (_, t, _) in enumerate(self.frames) if t_first < t <= until]
        if len(idx) < 3 or idx[0] == 0:
            return None
        mask = self._mask(quad, eroded=False)
        if not mask.any():
            return None
        shares = [self._changed_share(i, i - 1, mask, threshold) for i in idx]
        moves = [x > moving for x in shares]
        runs: list[tuple[int, int]] = []  # [start, end) positions in idx of runs of motion
        k = 0
        for moving_run, group in groupby(moves):
            n = len(list(group))
            if moving_run and max(shares[k:k + n]) > strong:
                if runs and k - runs[-1][1] <= self.lull:
                    runs[-1] = (runs[-1][0], k + n)  # a hand that stopped dead to let go
                else:
                    runs.append((k, k + n))
            k += n
        if runs and runs[-1][1] == len(moves) and not (self.open_take_back and taken_back and len(runs) == 2):
            runs.pop()  # still moving at ``until``: another hand passing, not the take-back done
        if not taken_back:
            # no take-back in the window: the last run that ended is the second hand's
            return float(self.frames[idx[self._release(shares, *runs[-1])]][1]) if runs else None
        if len(runs) < 2:
            return None  # no take-back seen apart from the landing: cannot tell
        end = self._release(shares, *runs[-2])  # the run before the take-back: the hand letting go
        if self.run_start and runs[-2][0] == 0 and end == runs[-2][1] - 1:
            end = 0
        return float(self.frames[idx[end]][1])

    def _release(self, shares: list[float], start: int, end: int) -> int:
        """The position in ``shares`` (per-frame motion over a pile, as in
        :meth:`second_landing`) of the frame in which the hand of the run of motion
        ``[start, end)`` let go of its card: the frame before the last lull of the run (see
        ``dip`` in the class docstring), else the run's last moving frame."""
        if self.dip is not None:
            for k in range(end - 2, start, -1):
                if shares[k] <= self.dip * min(max(shares[start:k]), max(shares[k + 1:end])):
                    return k - 1
        return end - 1
