"""From card sightings over time to play events: foundation piles, layout zones, owners.

This is the part of the referee that is ours (``shared/DESIGN.md``, "Owner attribution" and
"Contested plays"); it never applies scoring rules (the referee in :mod:`nertz.referee.round`
rules the events it emits) and it never touches pixels (arrival times are refined by
:mod:`nertz.vision.arrival`, which does).

The pipeline calls :meth:`RoundTracker.update` once per *look* (a processed frame: every
``stride``-th frame of the source) with the face-up cards seen in it (:class:`Sighting`) and the
hand boxes. Three state machines run on these looks:

* :class:`PileTracker` (shared area): a pile is a place on the table with a top card. A sighting
  that matches no pile and stays put for ``confirm`` looks, away from hands, opens a pile; a
  different top card on a pile, seen the same way, is a new card on it; the card that was under
  the top coming back is a take-back. A pile whose place shows no card (however weakly read)
  for ``gone_after`` seconds while nothing hides it has left the area (a completed pile set
  aside). The rules are a prior on what
  is read there, never a substitute (``shared/DESIGN.md``): a reading whose runner-up is the
  card that may legally come next (an ace, for a new pile; on a pile, only for a new card: one
  lying differently from the top, or squared on it with its place changed, ``min_change_squared``)
  becomes that card only when the runner-up's probability times
  ``rules_prior`` beats the reading's (3 by default: see
  :class:`TrackerSettings`); at a table without jokers a pile card read as the joker is its
  runner-up. A new top card whose place barely changed in the frames
  (``min_change``, measured by the arrival buffer) is the old top read differently, not a play.
  The zones are a second prior (:meth:`RoundTracker._legal_from_zones`, ``zone_legal``): a new
  card read weakly as an illegal one that no zone lost, while the one legal card did leave a
  zone, is that card. A clearly read card that skips cards of its suit (a 5D on a 3D) whose
  skipped cards all just left zones (``max_skipped``) means they went on the pile and were
  covered before a look could confirm them: they are inferred as plays, under it. A change
  read weakly (mean probability under ``weak_change``) needs ``weak_confirm`` looks, not
  ``confirm``; with ``unlikely_confirm`` (off by default) so does a new top that may not
  lawfully come next. A card no foundation
  starts with, lying still on no pile for ``late_open`` looks, opens one late: a pile whose
  first cards no look showed.
* :class:`ZoneTracker` (each player's layout zone): which face-up cards each zone shows, when
  each was last seen, and the first unhidden look in which it was gone.
* :class:`~nertz.vision.hands.HandTracker`: hand boxes linked over looks, each track with the
  zone it was last in outside the shared area, or the player its arm was read to reach back to
  over the shared area (:attr:`Look.hand_players`, read from the pixels by the pipeline).
* attribution (:meth:`RoundTracker._attribute`, recorded in :attr:`RoundTracker.attributions`):
  the owner of a new foundation card is the player from whose zone that same card vanished just
  before it landed (confidence 0.97 x the classifier's; the latest of several, 0.9 x; a copy
  gone at most ``stale_vanish`` seconds before the landing before one gone earlier, a copy
  that had left by the landing before one still seen in its zone after it
  (``seen_after_landing``), and a copy seen in several looks before one seen once). A copy gone long before, read weakly or seen
  in one look only loses to the hand track when the hand that laid the card down came from
  another zone (0.6 x); a copy gone long before also loses to one that a hand has hidden since
  just before the landing (0.6 x). A copy a hand has hidden, since long before or just
  before, loses to the hand track from another zone likewise (a player's own hand over their
  layout hides cards they are not playing). When no zone saw it
  vanish, in this order: a zone that has not shown it since a hand covered its place (0.9 x),
  the zone the hand's track came from (0.6 x), a zone card whose runner-up reading was this
  card (0.7 x at most; off by default, ``TrackerSettings.runner_up``), the zone nearest to
  where the card was seen on its way, outside the zones and the shared area (0.6 x,
  ``flight_window``), a low-confidence card
  that left a zone just before (0.6 x), a copy seen in one look only, long before (0.5 x),
  the zone nearest the hand that was over the pile (0.4 x at most), and, so that the pile
  does not lose the card, the zone nearest the pile
  (0.2 x, for review). These weaker rules skip a player who has another play landing within
  ``one_hand`` seconds (one hand moves cards, one card at a time: ``RULES.md``); the vanished
  copies skip one whose play that close was a sure one (``busy_vanished``), and the plays
  of a look whose card left a zone are attributed before the others. No rule names a player
  already credited with a copy of the card on a foundation (one deck each, ``one_copy``).
* contested plays: the same card leaving two zones at once gives two plays, both held
  (``hold_both``) until one copy comes back to its zone (that player was second: a collision
  and a take-back, the second landing timed from the motion over the pile,
  ``second_landing``; a copy seen back in one look before a hand covered it again counts,
  ``settle_seen_once``) or ``hold`` seconds pass (a tie, both at the same time). A copy back in
  its zone sooner than ``return_after`` after the landing was only hidden (an arm over it),
  not played: no play for it. When ``hold`` passes with neither copy back and the hand that
  laid the card down came surely from one of the two zones (``contest_track``), only that
  player played it (the other copy was covered where it lay, moved within its zone, or
  misread), unless the other copy left its zone about as late (``track_gap``: both players
  reached for the pile, a tie). Without such a hand, when one copy was still in its zone at
  the landing (``still_there``), only the other was played; when that hand came surely from
  one of the two zones, no hand from the other's (nor one of unknown origin) came over the
  card and the other's hand stayed at their layout (``lone_hand``: a tie needs both hands at
  the pile), only that player played it; with ``contest_later``, only the
  copy that left its zone last. Pairs still held when the source ends are settled the same way
  (:meth:`flush`). A copy read weakly that keeps coming back to its zone (``flicker``) is a
  card read on and off, never a collision's loser.
  A loser may pull their copy out from under the next card laid on the pile: its return
  still counts, and its landing is read before that card's. A loser's copy may never be seen
  leaving its zone (the arm that carries it to the pile and back hides its place
  throughout): a copy seen again after being hidden across another player's landing of the
  same card, while a hand from its zone went over that pile, was played second and taken back
  (``hidden_return``).
* doubtful plays: a play of confidence under ``doubt_below`` is reported ``doubt_hold``
  seconds late (at its own time); taken back by its pile meanwhile, it was the top misread
  for a moment, and neither is reported.

All positions are frame pixels; all times are seconds of media time (or of the live clock).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace
from typing import Any, Callable, NamedTuple, Sequence

import cv2
import numpy as np

from nertz.referee.cards import Card, Rank
from nertz.referee.table import Table

from .boxes import boxes_overlap, polygons_overlap
from .hands import HandTracker

__all__ = ["Sighting", "Look", "PileTracker", "ZoneTracker", "RoundTracker", "TrackerSettings",
           "PlayCandidate", "Returned", "quad_pose", "boxes_overlap"]


def quad_pose(quad: np.ndarray) -> tuple[np.ndarray, float, float]:
    """Centre ``(2,)`` (pixels), angle of the long side (degrees, modulo 180) and short-side
    length (pixels) of a card quad ``(4, 2)``; from ``cv2.minAreaRect``."""
    (cx, cy), (w, h), ang = cv2.minAreaRect(np.asarray(quad, np.float32).reshape(4, 2))
    if w > h:
        w, h = h, w
        ang += 90.0
    return np.array([cx, cy], np.float32), float(ang % 180.0), float(max(w, 1.0))


def _angle_diff(a: float, b: float) -> float:
    d = abs(a - b) % 180.0
    return min(d, 180.0 - d)


@dataclass(frozen=True)
class Sighting:
    """One face-up card seen in one look.

    Attributes:
        label: the card in notation (``"7S"``, ``"JK"``).
        prob: the classifier's probability of ``label``, 0..1.
        quad: ``(4, 2) float32`` corners in frame pixels.
        hidden: fraction 0..1 of the card's box covered by a hand box.
        whole: the whole card shows (False: a strip of a covered card, e.g. in a cascaded
            work pile; such sightings count for a zone's presence, not for piles).
        alts: the classifier's runners-up, ``(card, probability)``, best first (may be empty).
    """

    label: str
    prob: float
    quad: np.ndarray
    hidden: float = 0.0
    whole: bool = True
    alts: tuple[tuple[str, float], ...] = ()

    @property
    def box(self) -> np.ndarray:
        """``(4,)`` xyxy bounding box in pixels."""
        q = np.asarray(self.quad, np.float32).reshape(4, 2)
        return np.array([q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()], np.float32)

    @property
    def pose(self) -> tuple[np.ndarray, float, float]:
        """:func:`quad_pose` of :attr:`quad`."""
        return quad_pose(self.quad)


@dataclass
class Look:
    """What one processed frame showed.

    Attributes:
        frame: the frame's index in the source.
        t: its time, seconds.
        faces: the face-up cards seen.
        hands: ``(M, 4) float32`` hand boxes, xyxy pixels.
        hand_players: per hand box, the player its arm reaches back to
            (:meth:`nertz.vision.arms.ArmReader.owners`) or None; None: arms not read.
    """

    frame: int
    t: float
    faces: list[Sighting]
    hands: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), np.float32))
    hand_players: list[str | None] | None = None


@dataclass(frozen=True)
class TrackerSettings:
    """Tuning of the state machines (defaults measured on rendered rounds, see the notes).

    Attributes:
        confirm: looks in a row a change must be seen the same way before it counts.
        same_place: a sighting belongs to a pile when its centre is within this many card
            widths of the pile's top card.
        still: between two looks a settled card moves less than this many card widths.
        open_reach: a card no foundation starts with (not an ace, a two or a joker:
            :func:`_may_open`) that lies too far from every pile for ``same_place`` belongs to
            the nearest pile whose top card it goes on, when its centre is within this many card
            widths of that top's; else it opens no pile and is no play (a card in a hand over
            the shared area, or misread; the reading is taken as it is, with no prior, and a
            pile topped by a joker, whose identity is not known, is followed by none). None:
            any card may open a pile. A pile's own sighting in a look comes first. 37 rendered rounds
            9324-9360 (2026-12-06, session 62), models: 5 piles had been opened by a 6, a queen
            or a king, each play on them extra; extra plays 15 -> 8 at 1.5, nothing else changed
            (r9356's QH, laid on its JH further off than ``same_place``, is still not found
            on that pile; why not was not looked into); perfect eyes opened none.
        max_hidden: sightings covered by a hand more than this (fraction of the box) are not
            used to confirm a change.
        gone_after: seconds a pile's place is seen empty (no hand over it) before the pile has
            left the area.
        gone_unchanged: ... unless less than this share of its top card's pixels changed since
            the last look that showed a face there (a card the detector lost, still lying
            there; :meth:`PileTracker._place_unchanged`). None: the looks alone decide. Dev
            9324-9360 (2026-12-07): models 1924 -> 1926 plays all right (r9356's QH and KH),
            points off 44 -> 42, nothing else changed; perfect eyes unchanged.
        weak_reads_occupy: a face seen at a pile's place keeps the pile there however weakly it
            is read (below ``min_prob``, or not whole); False: only the sightings that may
            confirm a change do (as before 2026-12-01, when a pile whose new top was read at
            about 0.3 for 1.5 s was set aside and its card opened a new pile at its place).
        vanish_window: seconds before a landing in which the card must have vanished from a
            zone to be that zone's player's.
        min_prob: sightings whose label probability is below this are ignored.
        zone_strips: zones track strips of covered cards too (False: whole cards only, the
            ones a play can come from; strips are named by a weaker classifier).
        same_card_is_same: the pile's top card seen again, moved, is the same card (True), not
            a second copy put on it (False; with measured quads the pose jitter made false
            second copies, and contested copies are found from the zones anyway).
        zone_confirm: a card seen in a zone in fewer looks than this may be a misreading: it
            loses to better-seen candidates and cannot make a contested play.
        contest_window: two zones whose copies of a card were last seen within this many
            seconds of each other before it landed both played it (a contested play, reported
            as simultaneous: the order is not seen).
        return_window: a card seen again in its zone within this many seconds after the same
            card landed for another player was that player's contested copy, taken back.
        infer_take_backs: use that inference (:meth:`RoundTracker._taken_back`).
        return_prob: a card back in its zone counts for that inference only when read there
            with at least this probability (tuning rounds with the models: 8 of 12 wrong
            inferences came from cards read at 0.36-0.62, another card misread; the 3 right
            ones were read at 0.81 or more).
        return_after: ... and only when first seen back at least this many seconds after the
            play it answers landed (lifting a card off a pile and carrying it back takes
            longer; a copy seen back sooner had never left, only been hidden). The same bound
            says that the held copy of a contested pair seen back sooner was no play.
        one_hand: two plays of one player land at least this many seconds apart (``RULES.md``,
            "Play": one hand moves cards, one card at a time; in the rendered rounds the
            closest were 0.21 s apart): the weak attribution rules (all but a copy that
            vanished from a zone) skip a player who already has a play that close in time;
            so do the vanished copies (``busy_vanished``) when that play is a sure one.
        hold: seconds the second play of a contested pair is held back, waiting for one of the
            two copies to come back to its zone (which says who was second).
        contest_track: when ``hold`` passes with neither copy of a contested pair back and a
            sure hand track (confidence >= 0.8) named one of its two players, only that
            player's copy is a play (12 rendered rounds with the models: 8 of the 11 pairs that
            reached the end of the hold had one true play only; the track named the player
            reported at once in 2 of them, and in none of the 3 true pairs). Without
            ``hold_both`` only a track naming the copy reported at once counts.
        pair_on: a contested pair's first landing is also read with this share of the changed
            pixels voting "new" (``on`` of :class:`nertz.vision.arrival.ArrivalTimer`, 0.9),
            and the earlier of the two readings taken (``pair_landing``): the second copy lands
            a few frames after the first, on it and about where it lies, and the walk back
            from the look that confirmed the pair, both copies down, stopped at the second
            copy's landing (the first, the same face a little off its place, voted "new" with
            60-85 % of the pixels); the first copy's time was the second's (r9358's 5S: the
            winner landed in frame 1470.6, the loser in 1477.6; the pair read 1478 and 1481).
            Session 61, 37 rendered rounds 9324-9360, plays all right at None / 0.75 / 0.6:
            models 1843 / 1852 / 1853 of 1989 (extra 20 / 20 / 21), perfect eyes 1892 / 1894
            / 1901; on the 14 held-out rounds 9361-9374 with the models 681 / 683 / 682 of 750
            (0.6: 5 plays right, 4 now 2-3 frames early, a copy still in its hand over the
            pile; 0.75: 2 right, none lost; the choice of 0.75 looked at these rounds). No
            ruling changed. None: off.
        hold_both: hold both copies of a contested pair, not only the second, until it is
            settled (a copy back in its zone, or ``hold`` passed): a copy reported at once can
            no longer be withdrawn. 18 rendered rounds with the models (799 plays): of the 15
            pairs whose hold passed with neither copy back, 12 had one true play only and in 11
            of them the copy that left its zone first (the one reported at once before) was
            the one never played (covered in its zone). With the hand track deciding as
            ``contest_track`` says, extra plays 24 -> 18 and plays all right 740 -> 739 (a true
            tie whose track named one player). Costs latency: a contested pair is reported when
            settled, up to ``hold`` seconds after the landing.
        contest_later: with ``hold_both``, a pair whose hold passed with neither copy back
            and no sure hand track is one play, by the copy that left its zone last (same 18
            rounds: extra plays 18 -> 13, plays all right 739 -> 735: true ties lost, and one
            pair whose later copy was the unplayed one). Off: both are played (a tie).
        runner_up: the ``runner_up`` owner rule (:meth:`RoundTracker._by_runner_up`: a zone
            card read as another, with this card among its runners-up, that just left). Off
            since the rectified-card classifier of 2026-12-01 (stage B, ``models/MODEL_CARD.md``):
            with it the rule named the right owner 9 times and a wrong one 11 times on 22
            rendered rounds, and without it plays all right went 912 -> 917 of 992 (the
            weaker rules after it decide those plays).
        hidden_return: a zone card never seen gone but hidden (a hand over its place) for at
            least this many seconds and then seen again where it lay is reported as a possible
            return (:class:`Returned` ``hidden``): when the same card landed on a pile for
            another player meanwhile and a hand from this player's zone went over that pile,
            this player's copy went there second and was taken back under the arm (the
            contest's loser, :meth:`RoundTracker._taken_back`). 0 turns it off. 32 rendered
            rounds (2026-12-01): perfect eyes, collisions ruled right 56 -> 57 of 66, nothing
            else changed; with the models no change. Without the hand over the pile the same
            inference made an extra play with the models (a hand rests over its own layout
            often).
        min_gone: a held copy of a contested pair seen back in its zone after being gone
            from it for less than this many seconds was only hidden (covered, or missed by the
            detector in a look or two), not played, however long after the landing it came
            back: carrying a card to a pile, letting go and lifting it back takes longer. 32
            rendered rounds with the models: of the held copies settled as losers, the 3 gone
            0.1-0.3 s were no plays, the 50 true losers were gone 0.6-1.7 s (perfect eyes:
            0.5 s and more; 2 copies gone 0.5 s with the models were no plays either, left
            in). 0 turns it off. 0.45 -> 0.35 (2026-12-03): a loser who took the card back
            0.15 s after it landed was gone 0.4 s (r9203, twice); 20 rendered rounds, perfect
            eyes: collisions right 46 -> 48 of 51, one false collision more (extra plays 1 ->
            2); models: collisions 42 -> 43, plays all right 899 -> 900 of 995.
        orphan_take_back: when the one player credited with a pile's card is seen with that
            card back in their zone and nobody else can be named for the pile's copy (no other
            zone lost it, no hand track), report their take-back anyway (the pile then shows
            the card under it to the referee, which rejects every later play there). False:
            their copy never left; the card seen is another one misread. 32 rendered rounds
            (2026-12-02), models: rounds scored exactly 5 -> 6, score error 82 -> 79 points
            (r9002: a 7H read in red's zone after red's 7H landed; the referee then rejected
            the 8H and 9H on that pile), nothing else changed; perfect eyes: no change.
        alias_of: a zone card read under one label is another reading of a card the same zone
            showed under another label at the same place (centres within 0.2 card widths)
            from before it appeared until it was last seen (0.5 s slack), in at least this
            many times as many looks: its leaving is not a copy of its own leaving
            (:meth:`ZoneTracker.alias`; a JD read QD now and then must not make a QD vanish).
            0 turns it off. 32 rendered rounds (2026-12-02), models: extra plays 28 -> 24,
            collisions right 53 -> 54, plays all right 1397 -> 1398, score error 79 -> 74
            points, events later than 0.5 s 139 -> 133; perfect eyes: no change. A ratio of
            4 gave 1396 / 23 / 72 points; a place test of 0.35 card widths took cascaded
            work-pile cards for readings of one card (perfect eyes lost a play).
        busy_vanished: a copy that vanished from the zone of a player credited with another
            play of confidence at least this, landing within ``one_hand`` seconds, was only
            covered (their own hand, reaching for that other card), not played: it makes no
            ``vanished`` attribution and no contested pair; nor does a copy back in the zone of
            a player with any play that close make an inferred collision (:meth:`_taken_back`).
            Over 1 turns it off. 20 rendered rounds (2026-12-03), models: extra plays 17 -> 14
            (three false collisions), plays all right 894 -> 897 of 995, points off 47 -> 45;
            perfect eyes: extra 4 -> 1, points 14 -> 13, nothing lost. 0.5: 896, 47 points
            (a wrong weak hand-track play kept a surely vanished copy out); 0.85 as 0.7. In
            the 20 rounds every pair of one player's plays under 0.15 s apart held a false
            one (8 pairs); the closest true pair was 0.30 s apart.
        keep_first_leaving: a card that left a zone, was seen there again in fewer than
            ``zone_confirm`` looks (a glimpse of it in the hand bringing it back, often read
            weakly) and left again keeps its first leaving time when it is back for good
            (:class:`Returned` ``gone_t``); False: the glimpse starts a new stay, and a
            collision's loser back 0.3 s after the glimpse was taken for a copy only hidden
            (``min_gone``). 20 rendered rounds (2026-12-03), models: collisions right 40 -> 42
            of 51, plays all right 897 -> 899 of 995, points off 45 -> 43; perfect eyes: no
            change.
        second_until_back: the motion over a pile that times a collision loser's landing
            (:meth:`_second_arrival`, :meth:`_second_seen`) is read up to the first look that
            showed the copy back in its zone (:class:`Returned` ``back_t``), when the
            take-back over the pile has ended; False: up to the look that confirmed the return,
            and a hand passing over the pile in between was taken for the take-back (its
            landing then timed at the take-back). 20 tuning rounds of 2026-12-03 (995 plays),
            plays all right: models 902 -> 903, perfect eyes 951 -> 952 (one loser 14 and one
            17 frames late, both right now).
        loser_second: when the copy of a held contested pair (both held) that comes back is
            the one credited first (:meth:`_settle_held`), the other is reported at the
            landing and the returning one at its second landing, as when the other comes
            back; False: the other just before the landing and the returning one at it (both
            early when the loser landed well after the winner). When no second landing shows
            in the motion after the first, both landed before the pile was read and the False
            timing is kept. Same 20 rounds: models 903 -> 903 (a pair 2.5 and 8 frames early
            now right; a triple collision whose third copy was taken for one of the pair now
            wrong), perfect eyes 952 -> 950 (that triple collision).
        second_unseen_at_landing: when the held copy of a contested pair (both held) comes
            back and no second landing shows in the motion over the pile after the first
            (:meth:`_second_arrival`), both copies were down by the landing the pixels gave:
            that time is the returning copy's and the other's is just before it
            (``winner_margin`` past the tie window; one frame before session 59), as with
            ``loser_second``; False: the other at the landing and the returning one just after
            it. The second hand often covers the first copy
            from its release until its own card lies there, about 2 frames later, so the
            pixels give the second landing. 20 tuning rounds of 2026-12-03 (995 plays), plays
            all right: models 903 -> 914 (11 plays of 6 collisions were 2 to 4 frames late),
            perfect eyes 950 -> 956, nothing else changed; 6 held-out rounds (9232-9237): no
            such collision, no change.
        new_grace: looks in which a new pile's unconfirmed card may go unseen (hidden by an
            arm or a sleeve, which the hand box does not cover) and still be the same pending
            card when it shows again; 0: it must show in every look. Without it the card's
            first sighting and its "before" look were taken again after the arm had gone, and
            the look under the arm (no card, no hand box) passed for the bare table, so the
            arrival came out as the frame after the arm. 12 tuning rounds (9201-9212, 621
            plays), plays all right with this, ``second_landing``'s ``strong`` and
            ``track_picks_fresh`` together: perfect eyes 599 -> 606, models 582 -> 585; this
            one alone: one ace 5 frames late now right (both ways). Measured once after on 6
            new rounds (9238-9243, 277 plays), the three together: perfect eyes 264 -> 267,
            models 255 -> 257, but points off with the models 10 -> 14 (two owners made
            wrong, see ``docs/MEASUREMENTS.md``). 5 since 2026-12-05 (session 53; 2 before):
            an arm reaching past to another pile hid r9284's new AH for three looks, the
            pending card was forgotten, and its arrival came out 20 frames late, as the frame
            after the arm. 18 tuning rounds 9268-9285 (845 plays), plays all right with 2 / 3 /
            5 / 8: perfect eyes 810 / 810 / 811 / 811; models 788 / - / 789 / -, extra plays
            the same; 18 older rounds 9250-9267 with the models: 900 at 2 and 5.
        late_open: looks (0: off) in which a card no foundation starts with, on no pile,
            must be read the same way, lying still (``new_grace`` looks unseen allowed), read
            clearly on average (``weak_read``) and shaped like a whole card
            (:func:`_card_shaped`), before it opens a pile whose first cards no look showed
            (:meth:`PileTracker._open_late`): its play at its first sighting, the cards under it
            inferred from the zones as for any new card (``max_skipped``). A card in a hand
            moves; a card lying there for 1.5 s is on a foundation. r9408 (2026-12-07, session
            70, design ``kde-oxygen``, white pips on dark red): the detector never saw blue's
            AH or 2H on their pile, only the 3H laid on them, which opened no pile (only an
            ace or a two does), so that pile's 13 cards (14 plays with a collision's loser)
            were all lost; with 15, 47 of its 60 plays right (38 before), points off 26 -> 13.
            37 dev rounds 9324-9360 and the 31 other held-out rounds 9383-9414: no change (one
            phantom "6H" between two piles' cards opened a pile before the shape test).
        track_picks_fresh: when at least two zones lost this card in the last
            ``stale_vanish`` seconds and the hand track (confidence 0.8 or more) names one
            whose copy left at most this many seconds before the landing, that zone is the
            owner, not the one that lost its copy last; 0: off. Two players laying the same
            card on two piles at once were given each other's copy (two aces at the start of
            a round). Same 12 rounds: perfect eyes +4 plays, models +1 (as many made right
            as made wrong but one: where two hands crossed, their tracks were swapped; at
            0.5 s, models +1 and perfect eyes +2). The 6 new rounds: perfect eyes +2, models
            +1, points off with the models 12 -> 14.
        track_picks_confirmed: ``track_picks_fresh`` does not pick a copy seen in fewer than
            ``zone_confirm`` looks over the copy it would replace, when that one was seen in
            more (a card read once, often another card misread). r9354's 4H (2026-12-07,
            models): green's, seen in 126 looks, against yellow's "4H" read once at 0.82, with
            a hand track from yellow's zone (crossed tracks). Dev 9324-9360 with
            ``glimpse_keeps``: models owners right +1, nothing else changed; without it
            (the copy glimpsed in the hand counts as seen once) -2. False: off.
        settle_seen_once: a held contested pair whose ``hold`` passed is settled by a copy
            seen back in its zone in one look only (clearly, ``return_prob``), when a hand
            covered it again before the ``zone_confirm`` looks that report a return; False:
            such a pair is a tie. 26 rendered rounds, perfect eyes: collisions right 37 -> 39
            of 44 (two losers seen back once 1.2 s after the landing, then under a hand),
            exact rounds 22 -> 23; 32 rounds with the models: collisions 52 -> 53 of 66,
            nothing else changed.
        zone_legal: a new pile card read under ``weak_read`` as a card that may not go
            there, which no zone lost, is the one card that may go there when that card just
            left a zone (:meth:`RoundTracker._legal_from_zones`; 12 rendered rounds with the
            models: 3 plays more right, 3 extra plays fewer; with clear readings the same rule
            was wrong both times it fired, so it is for weak readings only).
        one_copy: a player credited with a copy of the card on a foundation is no candidate
            owner of another (``RULES.md``: each player plays their own deck; a second copy
            from their zone is another card misread). 12 rendered rounds, models: 2 owners more
            right, 1 extra play fewer, exact rounds 2 -> 4 (an owner named twice made the
            referee reject the pile and every card on it after).
        max_skipped: at most this many cards skipped by a clearly read new pile card are
            inferred as covered plays (:meth:`RoundTracker._skipped`; 0: none; 12 rounds:
            4 plays more found with the models, 2 with perfect eyes, none wrongly).
        cover_contest: a card that covers skipped cards is timed again
            (:meth:`RoundTracker._skipped`) unless at least two zones lost a copy of it, each
            last seen there at most this many seconds before its landing: a collision, in
            which the hand over the pile after it may be the other copy's (r9275's yellow 7S
            came 5 frames after red's; their zones showed them 0.1 and 0.3 s before red's
            landed). Copies last seen earlier are mostly misreadings that left a zone (r9270's
            "3D" in green's zone, 1.9 s before).
        rules_prior: how many times likelier the card that may legally land on a pile (the
            next of its suit; an ace for a new pile) is than any one other card, before the
            classifier's reading (``shared/DESIGN.md``: the rules as a prior, never as a
            substitute for seeing). A reading switches to that card only when the card is among
            its runners-up with ``probability * rules_prior`` above the reading's own; an
            illegal card read clearly stays illegal. On a pile it applies only to a card lying
            differently from the top (the top read anew must not become the next card). 1 turns
            the prior off. Measured with the shipped models on the 8 tuning rounds: an earlier
            10 found 3 more plays and 8 more extra plays than no prior, most of the extras
            through take-backs inferred from misread cards; once those were filtered
            (``return_prob``), 3, 10 and 30 all found 2 more plays right and 1 extra fewer
            (a 5H read as 6H, the prior's case), so the default is the weakest of them, 3.
        min_change: a new top card on a pile whose place changed in less than this fraction of
            its pixels since the pile's last settled look is the same card read differently,
            not a play (needs the ``changed`` callback of :class:`RoundTracker`; 0 turns it off).
            Rendered rounds, perfect eyes: every real play changed at least 0.065 of its place
            (1st percentile 0.084).
        min_change_squared: the rules' prior (``rules_prior``) applies to a card read on a
            pile where it lies exactly as the top card does, or read as the top card itself,
            only when its place changed by at least this fraction of its pixels since the
            pile's last settled look (a new card squared on the pile, not the top read anew);
            0 keeps the prior off for such cards.
            With the models, plays all right at 0 / 0.1: 20 tuning rounds 896 / 896 of 982
            (1 play more found, 1 extra fewer), rounds 9161-9168 386 / 388 of 427, 12 older
            rounds 524 / 525 of 570 (points off 41 -> 34); 0.05 as 0.1 on the tuning rounds.
        top_changed: a look that reads a pile's top card again, where the top's place changed
            by at least this fraction of its pixels since the pile's last settled look, does
            not settle the pile (needs the ``changed`` callback; 0: every such look settles):
            the next card, misread as the top for a few looks, already lies there, and the
            walk back for its arrival (:mod:`nertz.vision.arrival`) must start before it
            (r9281's yellow 3C, read as the 2C under it until frame 513, landed in frame 503:
            timed 13 frames late from there). 18 tuning rounds 9268-9285 (2026-12-05, session
            53), plays all right with 0 / 0.1 / 0.3: models 796 / 798 / 798, perfect eyes 813
            / 815 / 813 (0.1: one extra play and a collision ruled wrong); older rounds
            9250-9267, models 900 / 898 / 900; 9304-9309 295 / 299 / 296.
        carried: a zone card whose centre moved more than this many card widths between two
            looks was carried (lifted to be played), not only covered where it lay: a copy that
            comes back to its zone without ever having been seen moving, while the other copy
            of a contested card was seen carried, was covered (an arm), not played and taken
            back.
        bare_within: a new pile's "before" look is the latest of this many looks before its
            card was first seen that showed its place bare (a hand over the new card hides
            its landing; :mod:`nertz.vision.arrival` walks back from there).
        stale_vanish: a zone's copy last seen more than this many seconds before the landing
            loses to the hand track when the hand that laid the card down came from another
            zone (:mod:`nertz.vision.hands`).
        weak_read: a zone's copy whose best label probability is under this loses to the
            hand track in the same way (a misreading of another card, often, on small cards).
            So does a copy seen in fewer than ``zone_confirm`` looks, unless read with at
            least ``sure_once`` (a card uncovered for one look, read clearly: 20 tuning rounds
            with the models, 2 owners more right, both one purple 4S and the red 4S it kept
            off the foundations under ``one_copy``; at 0.8, 2 others wrong).
        hidden_loses_to_track: a zone's copy that a hand hides (not seen since before the
            landing) loses to a sure hand track from another zone however recently it was
            seen (False: only when seen more than ``stale_vanish`` seconds before). The hand
            over a layout is often its owner's, busy with other cards.
        hidden_contest: a card whose zone copy left just before the landing (within
            ``contest_window``), laid down by a sure hand track from another zone whose own
            copy a hand has hidden since just as recently (seen there in ``zone_confirm``
            looks), was played by both: a contested pair, held as :meth:`RoundTracker._by_contest`
            holds one (then a tie unless a copy comes back; the track is not used to drop
            one, since it named only the hidden one). 18 rendered rounds with the models
            (2026-12-04, session 43): one such pair, a tie in r9207, both owners right (one
            play short before); all right 846 -> 847 of 898, no other play changed.
        covered_unless_second: a copy back in its zone that was never seen moving while
            the credited copy was seen carried (``carried``) was covered where it lay, not
            played, unless the motion over the pile shows a second landing after the first
            (``second_landing``: then it is a collision's loser, played and taken back). 18
            rendered rounds with the models (2026-12-04, session 43): r9203's blue 4D found,
            collisions right 49 -> 50 of 57, no other play changed.
        contest_prob: two copies that left their zones together make a contested pair only
            when both were read with at least this probability; else only the one read better
            was played (:meth:`RoundTracker._by_contest`). 18 rendered rounds with the models
            (2026-12-04, session 43): 0.5 (``weak_read``, before) -> 0.7: extra plays 7 -> 4
            of 898, all right level (847), one collision fewer predicted that was none;
            points off 26 -> 28 (two extra plays had made up for missed ones).
        gone_overlap: a zone card not seen in a look is marked gone (:meth:`ZoneTracker.update`)
            only when no hand box covers this share of its box or more; over that, a hand may
            hide it. A hand box is larger than the hand: one that only grazes a card's corner
            hides nothing. 24 rendered rounds with the models (2026-12-04, session 44), plays
            all right at 0.05 (before) / 0.1 / 0.15 / 0.25: 1147 / 1150 / 1149 / 1147 of 1209;
            perfect eyes 1180 / 1181 (0.05 / 0.1). The copy of the player who laid the card
            down, grazed by the arm going back, was marked gone too late and the card went to
            a zone that had only misread it.
        track_gap: a sure hand track decides a contested pair (``contest_track``) only when
            the other player's copy left its zone at least this many seconds before the
            track's copy; when both left about together (or the other later, but before the
            landing), both players reached for the pile and it is a tie, whichever hand the
            tracks saw (two hands arriving together often make one box). A copy still seen in
            its zone after the landing cannot have tied: the track decides. 0 turns it off.
            The expired pairs with a sure track on 24 rendered rounds (2026-12-04, session
            44): the other copy left 0.3-0.4 s before the track's in all 4 (models) / 4
            (perfect eyes) that were one play, and 0.1 s before to 0.4 s after in all 5 / 4
            true ties but one, a collision whose loser's copy was seen at the landing (r9205's
            2H). Plays all right at 0 / 0.1 / 0.2 / 0.3: models 1150 / 1151 / 1153 / 1153 of
            1209 (0.3: one extra play more), perfect eyes (0 / 0.2) 1181 / 1185; the bundled
            sample round 59 -> 60 of 64 and its scores exact. The landing condition, later
            the same session: models 1156 -> 1157 (r9205's 2H no longer a tie 10 frames
            early), perfect eyes and the sample unchanged.
        flicker: a card back in its zone that was read under ``sure_once`` and has come back
            to that zone this many times or more within ``flicker_window`` seconds is a card
            read on and off (a misreading of another card, often), not a collision's loser
            taken back from a pile (:meth:`RoundTracker._taken_back`); 0 turns it off. 24
            rendered rounds (2026-12-04, session 44), models: one extra play and one wrong
            collision ruling fewer (r9244's 4C, a "4C" in green's zone read at 0.6-0.85 that
            came and went some fifteen times), nothing else changed (2 and 3 alike; without
            the ``sure_once`` condition, 3 lost 4 true collision losers).
        flicker_window: see ``flicker``, seconds.
        left_before_landing: a copy back in its zone that was never seen moving makes no
            collision's loser when it was last seen in the zone later than this many seconds
            before the second landing read from the motion over the pile
            (:meth:`RoundTracker._second_arrival`): a card cannot land before it has left
            (0.05 s is far below any reach; it only absorbs the looks' rounding). Found on
            the first rounds rendered with hands going back to rest after a release (seeds
            9268-9273, 2026-12-05, session 48), where an arm passing back over a layout or a
            hand withdrawing over the pile made both a copy that left and came back and a
            "second landing" (r9271: blue's 2D, unseen in blue's zone 8.5-8.9 s while blue
            laid its 3C elsewhere, after red's and yellow's 2D had landed on pile 4 by 8.3 s,
            was inferred as a third copy, played and taken back). 24 rendered rounds
            9250-9273, extra plays with the models 29 -> 23 (9268-9273: 18 -> 14), with
            perfect eyes 9 -> 4 (8 -> 3); no play, collision or point changed otherwise.
            Held out: 9274-9279 extra plays 10 -> 9 (models), 4 -> 3 (perfect eyes);
            9280-9285 14 -> 12 (models). None turns it off.
        min_round_trip: a copy back in its zone that was last seen there less than this many
            seconds before it was seen back makes no collision's loser (a second copy played
            and taken back, :meth:`RoundTracker._taken_back`): going to a foundation, seeing
            the other copy there first and bringing the card back is two reaches and a
            reaction (``datasets/bots.py``: each reach 0.5-0.7 s over the 250-550 mm to the
            foundations at speed 1, the reaction 0.8 s median; a person's are alike), so such
            a copy was read off and on where it lay, under a passing hand, while another
            player's copy landed. Found on held-out rounds (session 71): of the second
            copies that path inferred on 41 rendered rounds, the three phantoms (r9384's
            purple 4H, r9388's yellow 5D, r9409's yellow 4C: "take back your card" rulings for
            cards that never left) had come back 0.3-0.4 s after last seen, the true losers
            1.6-2.2 s. Seconds; None turns it off.
        seen_after_landing: a zone's copy last seen there more than this many seconds after
            the landing is taken for the owner only after the copies that had left by then
            (:meth:`RoundTracker._by_vanished`): a card still in a zone after it landed is not
            the card that landed. Two players laying the same ace at once on two new piles
            were given each other's (r9339's AH: blue's landed at 1.93 s, yellow's, still seen
            in yellow's zone at 2.2 s, at 2.40 s; the copy that left last was taken for the
            first landing). 17 rounds 9324-9340 (session 57, 877 plays), with the models 0.05 /
            0.15 / 0.3 against None: plays all right 786 -> 788 / 788 / 786, nothing else
            changed; perfect eyes 0.05 / 0.15 against None: owners right 870 -> 871 (r9340's
            5D), points off 6 -> 4. None turns it off.
        carry_min: nor is a copy last seen in its zone less than this many seconds before the
            landing (a card is not carried from a zone to a pile that fast; the rendered
            players take 0.4 s and more): the copies that had left earlier come first. r9340's
            5D (2026-12-07, models): green's copy, read at 0.5 and missed in one look, was last
            seen 0.07 s before the landing, red's (the card played) 0.6 s before; green was
            credited. Dev 9324-9360: with the models owners right +1 (that play's time is 4
            frames off, so all right 1926 either way; points off 42 -> 44, the round's other
            errors no longer cancelling), nothing else changed; 0.3 the same; perfect eyes
            unchanged. None turns it off.
        glimpse_keeps: a card that left its zone and is seen there again within this many
            seconds, in fewer than ``zone_confirm`` looks (a glimpse, most often of it in the
            hand carrying it to a pile), keeps the looks it was seen in and its best reading
            from before it left as evidence of its owner (:meth:`ZoneTracker.vanished`,
            :meth:`ZoneTracker.read_prob`); and a glimpse at least a card's width from where it
            lay (:meth:`ZoneTracker.carried_glimpse`) is the card being carried, so ``carry_min``
            does not put it last. Before, the glimpse started a stay of its own, seen in one
            look and read weakly (the card tilted in a hand), and lost to a copy misread in
            another zone (r9354's 4H, r9339's 4H, r9340's 6H, r9341's 3S: all seen in the hand
            0.1-0.2 s before the landing). Dev rounds 9324-9360 (2026-12-07, 2,066 plays), with
            ``glimpse_contest`` and ``track_picks_confirmed``: models plays all right 1,926 ->
            1,931, owners wrong 32 -> 27, collisions right 112 -> 113 of 122, exact rounds 21 ->
            22, points off 44 -> 40, extra plays 15 the same; perfect eyes all right 1,991 ->
            1,992. Held out 9399-9402 (222 plays, measured once): models 215 -> 214, extra 2 ->
            3 (r9401's 2D: red's copy, missed in one look and seen again in place, kept its 6
            looks and made a contested pair with another card read "2D" in green's zone);
            perfect eyes 215 both. None: off.
        glimpse_contest: a copy seen since it left only in a glimpse (``glimpse_keeps``) makes a
            contested pair only when that glimpse was read at least this probably: a weak
            reading in a hand is as often another card (r9346's 9C: green's, covered in its
            zone, "seen" at 0.35 and 0.23 in green's hand carrying another card, made a false
            pair with yellow's, the card played: one extra play). r9350's 4H, glimpsed at 0.67,
            is the collision's loser. None: every glimpse counts.
        split_by_track: a held contested pair whose card then shows on another pile (two
            players laid the same card on two piles at once) leaves on the held pile the copy
            that left second, and sends the first to the other pile, when the sure hand track
            of the held pile's landing came from the second copy's zone and the other pile's
            does not name that zone surely too (:meth:`RoundTracker._split`); False,
            or no such track: ``split_by_landing``, else the copy that left first stays on
            the pile seen first. r9332's
            and r9336's two AH were swapped (in both the copy that left first landed second).
            17 rounds 9324-9340 (session 57, 877 plays, 8 such splits): models plays all right
            788 -> 792, nothing else changed; perfect eyes the same either way. Since
            session 64 a sure track over the other pile's landing counts too: naming the
            first copy's zone, it splits the pair; naming the second's, it keeps it (r9326's
            two AH crossed: red's carried to the far pile, yellow's to the near one; only the
            far pile's track was sure). When the tracks say nothing, or one says "split" and
            the other "keep", ``split_by_landing`` decides.
        split_by_landing: with no sure hand track to split a pair as ``split_by_track`` does,
            the copy that left its zone first goes to the pile whose card landed first when
            the two landings are more than this many seconds apart (r9327's two 4C: blue's
            left first and landed on pile 3 0.1 s before red's on pile 2, but pile 2 was seen
            first); else the copy that left first stays on the pile seen first. With the
            sure track over the other pile (``split_by_track``), dev rounds 9324-9360 (session
            64, 2066 plays, 17 such splits): perfect eyes plays all right 1975 -> 1979
            (r9326's AH, r9327's 4C), the models' unchanged (1911). None: never.
        contest_fresh: a contested pair (:meth:`RoundTracker._by_contest`) is made only of
            copies that had left their zones by ``seen_after_landing`` seconds after the
            landing: a copy still seen there later is not one of the two that landed (with the
            models, r9340's purple "JH", a misreading seen 0.17 s after blue's and red's JH
            landed, was paired with blue's; r9353's 4D likewise). Dev rounds 9324-9360
            (session 64, 2066 plays), models: plays all right 1911 -> 1915, collisions right
            109 -> 112 of 122, rounds exact 20 -> 21; perfect eyes unchanged. False: every copy
            that left within ``contest_window``.
        left_when_carried: ``min_gone`` counts a held copy's absence from its last sighting
            in the zone (:class:`Returned` ``left_t``) when it was seen carried (``moved``),
            not from the first look that missed it: a hand over its place (the player's own
            arm, reaching) keeps a card from being marked gone, and a collision's loser
            taking its card straight back was then "gone" 0.3 s and taken for a copy only
            hidden (r9279's red 6H: last seen 40.6 s, marked gone 40.9 s, back 41.2 s). A copy
            never seen carried keeps the first look that missed it (with the models, a copy
            unseen 0.7 s with no hand box over it, then gone 0.3 s, was no play: r9272's
            purple 5S). 30 rendered rounds 9250-9279 (2026-12-05, session 48): collisions
            right 12 of 14 on 9274-9279 with the models (11 before) and perfect eyes (10
            before), r9275's blue 3H and r9279's red 6H found; nothing else changed (their
            plays are timed 2.5 and 3.3 frames late). Counting from ``left_t`` for every copy:
            with the models r9272's purple 5S became a false loser. Six new rounds 9280-9285:
            no change with the models.
        weak_change: a new card on a pile (a new top, or a new pile's first card) whose
            confirming looks read it with a mean label probability under this is not
            confirmed yet: it stays pending until the mean reaches this or it has been seen in
            ``weak_confirm`` looks (0 turns it off). On the 18 tuning rounds 9268-9285 with the
            models (2026-12-05, session 50), all 9 plays confirmed under 0.75 were extra plays
            (another card read for a moment: a club ace read as the two, a 3C pile top read as
            a 2S while an arm crossed it) and 4 of the 12 confirmed at 0.75-0.9; on the older
            rounds 9250-9267 the 17 confirmed under 0.75 were true plays but 1 (one round,
            r9263, reads every card weakly), which the looks they stay in confirm. At 0.75:
            tuning rounds plays all right 783 -> 785 of 845, extra plays 35 -> 23; older
            rounds 897 -> 896 of 939 (r9265's JC, read at 0.34, confirmed 12 s late), extra
            10 -> 11. 0.8 lost 2 plays on the tuning rounds; a ``weak_confirm`` of 4 or 100
            changed nothing there.
        weak_confirm: see ``weak_change``, looks.
        unlikely_confirm: a pile's new top that may not lawfully come next (``RULES.md``: the
            next card of the pile's suit; neither a higher card of its suit, which covered
            cards may explain, nor the card under the top, a take-back, nor the top's own card
            in another pose, a collision's second copy) must be seen in this
            many looks, not ``confirm``, before it is a change: an illegal play is still
            reported (the referee rules it), a moment later. Misreadings of a top half under an
            arm seldom last so long (r9702's 6S read as 3S at 0.9 in two looks made three extra
            plays and put the 6S 19 frames late). Session 73, dev rounds 9700-9707 with the
            models (467 plays, true Nertz counts), off / 3 / 4 / 6 looks: plays all right 443 /
            445 / 445 / 445, extra plays 9 / 5 / 5 / 5, exact rounds 4 / 5 / 5 / 5, latency
            unchanged; 9708-9709: no change. **Off by default** (0) since the end of session
            73: on a round rendered with illegal plays (r9715i, ``--illegal-rate 0.2``, 17
            illegal plays, each taken back 0.2-0.45 s after it landed) 4 looks lost 4 of them
            (plays all right 60 -> 53 of 69); catching illegal plays is the referee's job, so
            the rule waits for a way to tell a slip from a misreading. 0: off.
        still_there: a held contested pair whose hold passed with neither copy back
            (:meth:`RoundTracker._expired`) is one play, the other copy's, when one copy was
            last seen in its zone less than this many seconds before the landing (or after
            it): too late to have been carried to the pile (the played copy leaves its zone
            0.15 s or more before its landing in 686 of 704 plays of the tuning rounds; the
            late one was covered where it lay). 0 turns it off. Tuning rounds 9268-9285 with
            the models: extra plays 35 -> 32 (three false ties: r9269's 4S and TH, r9278's
            2C), points off 28 -> 25, nothing else changed; older rounds: no change. At 0.18
            two true plays were lost.
        lone_hand: a held contested pair (two copies that left their zones together, not a
            ``hidden_contest`` one) whose hold passed with neither copy back and no hand
            track kept (``track_gap`` dropped it) is one play when the sure hand track over the
            card names one of the two players and no hand from the other's zone came over the
            card in the looks around the landing (:meth:`RoundTracker._lone_hand`): a tie needs
            both hands at the pile; the other copy was only covered in its zone. ``(before,
            after)`` looks: from this many looks before the pile's last settled look to this
            many after the first look that showed the card; None turns it off. 37 rendered
            rounds 9324-9360 (2026-12-06, session 59, 1989 plays): with the models 23 pairs
            expired as ties, 15 of them one play (a copy covered in its zone); with the rule
            extra plays 31 -> 24, plays all right 1814 -> 1815, rounds exact 16 -> 18 of 37
            and points off 61 -> 54 (true Nertz counts given), none of the 8 true ties
            touched; perfect eyes: extra 14 -> 7, all right 1874 -> 1873, exact 24 -> 26,
            points off 21 -> 18 (two phantom ties became the wrong player's play).
        lone_unknown: with ``lone_hand``, a hand of unknown origin over the card (a track that
            had been in no zone: the linking lost a hand on its way and found it again) may be
            the other player's, so the pair stays a tie. r9365's 2D (rendered after
            ``lone_hand`` was chosen): a true tie, blue's hand lost between blue's zone and
            the pile, made green's play alone without this; on the 37 rounds above nothing
            changed.
        lone_home: with ``lone_hand``, the other player's hand must also have been seen in
            their zone in every look of that window (:meth:`nertz.vision.hands.HandTracker.stayed_in`:
            busy at their own layout, where their copy vanished under it); a hand missed by
            the detector for a look, or linked to another track, may have been on its way to
            the pile. The bundled sample round's blue 4C at 15.35 s (a true tie; blue's hand,
            missed by its own track for the look over the pile, was linked to red's) was made
            red's play alone without this (the sample's score off by one). On the 37 rounds
            above, the three together against none: models extra plays 31 -> 25, all right
            1814 -> 1815, points off 61 -> 55 (this one kept r9356's phantom 6D tie); perfect
            eyes extra 14 -> 11, points off 21 -> 18.
        settle_lone: a held contested pair (both held) whose copy comes back to its zone is
            one play, not a collision, when :meth:`RoundTracker._lone_hand` (with
            ``lone_hand``'s window and ``lone_home``) finds only one of the two players'
            hands came to the pile: the returning copy had been covered where it lay (a card
            laid on it in its work pile or waste, r9361's yellow 6H; an arm) or was another
            card misread (then it may be the lone hand's own). The lone hand's play is
            reported alone, at the landing, with no take-back. Not for pairs made by
            ``hidden_contest`` (as ``lone_hand``), nor for a copy back too soon
            (``return_after``, ``min_gone``: only hidden, handled first); nothing without
            ``lone_hand``. 37 rendered rounds 9324-9360
            (2026-12-06, session 62), with the models: extra plays 20 -> 19 (r9352's 2C),
            nothing else changed; perfect eyes: no change. Without ``lone_home`` here: extra
            17 but collisions right 98 -> 94 of 108 (perfect eyes 108 -> 106): the loser's
            hand, missed or linked to another track, was not seen coming.
        loser_hand: a copy back in its zone after another player's copy landed is taken for a
            collision's loser (:meth:`RoundTracker._taken_back`) only when, of the hands seen
            over the pile card since the pile's state before it, one came from that player's
            zone or from none known (:meth:`nertz.vision.hands.HandTracker.origins`); when
            all came from other zones, the copy was covered where it lay. No hand seen over
            the card at all decides nothing. 37 rounds above (session 62), with the models:
            extra plays 19 -> 18 (r9354's blue 5D), nothing else changed.
        settle_unseen: a held contested pair (both held) whose copy comes back to its zone
            with no second landing in the motion over the pile (``second_landing`` None; read
            when the returning copy is the one held second, or with ``loser_second``) is
            one play, the other copy's, at the landing, with no take-back, when the hands seen
            over the card since the pile's state before it all came from other zones than the
            returning player's (:meth:`RoundTracker._hands_from_elsewhere`); otherwise
            the other rules of :meth:`RoundTracker._settle_held` hold (for the copy held second,
            ``second_unseen_at_landing``: both copies down by the landing read). On the
            37 rounds above with the models (session 62), the settled pairs with no second
            landing: 3 were one play, none of whose hands came from the returning zone (r9325's
            7C, r9333's 3S, r9344's 6H), 1 a true collision, whose loser's hand was seen; the
            returning player's hand unseen over the pile with a second landing read happened
            in 2 true collisions (r9345's 2D, r9352's 9D), which is why the motion must agree.
            Extra plays 18 -> 15, nothing else changed; perfect eyes 7 -> 5 (r9325, r9344).
        contest_third: a contested pair (:meth:`RoundTracker._by_contest`) remembers a third
            copy of the card, read surely (``zone_confirm`` looks, ``contest_prob``), that left
            its zone within ``contest_window`` of the pair's (the three left together: a
            three-way collision, the first to leave the likelier winner). When one of the pair's
            copies comes back (a loser: its play timed as a held copy's, its take-back), the
            other is not reported at the landing at once but held again against the third
            (:meth:`RoundTracker._hold_third`): if it comes back too, it lost as well, timed at
            the first loser's landing (the motion after that is the first take-back), and the
            third copy's play is the winner's, at the landing; if neither comes back within
            ``hold``, the pair's copy alone, at the landing (:meth:`RoundTracker._expired`).
            Before, the pair's copy was reported at the landing, and when it came back, the
            third copy was found as the winner by :meth:`RoundTracker._taken_back` but the
            loser's play, already out, kept the winner's time (all 9 three-way collisions of
            rounds 9324-9360 had a loser timed 2.5 to 12 frames off). 37 rounds 9324-9360
            rendered on session 63's machine (2066 plays; with the models' looks 9 pairs had a
            third copy, all three-way collisions or a tie and a loser): plays all right with
            the models 1906 -> 1911, perfect eyes 1967 -> 1975, nothing
            else changed. Held out, 9383-9386: models 208 -> 209 of 221, perfect eyes 214 ->
            215. Reporting the two at the landing (a tie) on expiry instead: two cases of two
            copies tied and a third lost found (r9333's 6C, r9340's 6S), but two false thirds
            (copies covered in their zones: r9350's purple 6S with perfect eyes, r9383's
            green 9S with the models) made extra plays and wrong rulings; the held-out round
            chose the copy alone.
        winner_margin: a collision's winner whose own landing the pixels did not give (the
            loser's copy was credited at the landing they gave and then came back,
            :meth:`RoundTracker._taken_back`; or a held pair's copies were both down by the
            landing read, :meth:`RoundTracker._settle_held`) is reported this many seconds
            beyond the tie window before that landing: first, as the loser's return shows,
            and as close to the landing as the referee's tie rule allows (the landing read is
            mostly the winner's own: the loser's came over it). 37 rendered rounds 9324-9360
            (session 59), plays all right at one frame (1/30 s, before) / 0.004 s: models
            1815 / 1823 of 1989, perfect eyes 1873 / 1881, nothing else changed.
        doubt_hold: a play of confidence under ``doubt_below`` is kept back this many
            seconds before it is reported (at its own time, as a held contested pair is);
            when the pile's card under it shows again meanwhile (the pile's take-back), the
            new top was another card misread for a moment, and the play and the take-back are
            both dropped. 0 turns it off. On the tuning rounds with the models, 17 of the 35
            extra plays were taken back 0.13-0.6 s after their landing, with confidence
            0.14-0.82 (7 owners named by the ``uncertain`` rule, 4 by a vanished copy read
            weakly; the 2S of r9270 three times on a 3C pile); the true plays taken back that
            soon were collision losers (confidence 0.8, held as pairs anyway) and one inferred
            owner (0.68, whose take-back is another player's). Tuning rounds, with
            ``weak_change`` and ``still_there``: extra plays 23 -> 15 at 0.6 s under 0.75, plays
            all right unchanged (785); older rounds: no change. It costs latency: plays
            reported more than 0.5 s after the hand left the card, tuning rounds 57 -> 90,
            older rounds 75 -> 132 (r9263 reads every card weakly). Kept to 0.3 s under 0.6:
            extra plays 16, late plays 58 and 79; 0.6 s under 0.5: 16, 59 and 85.
        doubt_below: see ``doubt_hold``.
        flight_window: a card no zone saw leave, and no sure hand track, is owned by the
            player whose zone is nearest to where the card was seen on its way (a face read
            outside every zone and the shared area, at ``flight_prob`` or more) in this many
            seconds before the landing, before the weaker rules (``_by_misread``, the hands
            over the pile, the nearest zone). 0 turns it off. Measured on every play of the
            tuning rounds 9268-9285 with the models (2026-12-05, session 51; 0.6 s, 0.5),
            such sightings name the right player for 71 of the 78 plays that have them. Where
            it decides (after the zones, hidden copies and sure hand tracks), tuning rounds
            plays all right 785 -> 786 of 845, points off 25 -> 23; older rounds 9250-9267
            896 -> 899 of 939 (the ``uncertain`` rule wrong 7 -> 4 times), points off 25 -> 23;
            rounds 9286-9297 no change (582 of 651). 0.6 s at 0.5 gave 897 on the older rounds;
            placed before the sure hand track, no change.
        flight_prob: see ``flight_window``.
        arm_width: the hand detector boxes hands, not the forearms behind them; a hand's
            forearm is taken to run from its box towards the centre of the zone its track was
            last in (:func:`nertz.vision.hands.forearm`), this many times the box's smaller side
            wide. A look in which a forearm covers a new pile's place is not its "before"
            look (``bare_within``), and the arrival look-back lets the pixels under a forearm
            abstain as it does those under a hand box
            (:meth:`nertz.vision.arrival.ArrivalTimer.push_hands`). None: hand boxes only.
    """

    confirm: int = 2
    same_place: float = 0.6
    open_reach: float | None = 1.5
    still: float = 0.08
    max_hidden: float = 0.15
    gone_after: float = 1.5
    gone_unchanged: float | None = 0.25
    weak_reads_occupy: bool = True
    vanish_window: float = 4.0
    min_prob: float = 0.3
    same_card_is_same: bool = True
    zone_strips: bool = False
    zone_confirm: int = 2
    contest_window: float = 0.5
    return_window: float = 2.0
    hold: float = 1.5
    contest_track: bool = True
    zone_legal: bool = True
    one_copy: bool = True
    max_skipped: int = 2
    cover_contest: float = 1.0
    infer_take_backs: bool = True
    return_prob: float = 0.75
    return_after: float = 0.3
    one_hand: float = 0.15
    stale_vanish: float = 1.5
    weak_read: float = 0.5
    sure_once: float = 0.95
    rules_prior: float = 3.0
    min_change: float = 0.03
    min_change_squared: float = 0.1
    top_changed: float = 0.3
    carried: float = 0.3
    bare_within: int = 10
    hidden_loses_to_track: bool = True
    hold_both: bool = True
    pair_on: float | None = 0.75
    contest_later: bool = False
    runner_up: bool = False
    hidden_return: float = 0.5
    settle_seen_once: bool = True
    min_gone: float = 0.35
    orphan_take_back: bool = False
    alias_of: float = 10.0
    busy_vanished: float = 0.7
    keep_first_leaving: bool = True
    second_until_back: bool = True
    loser_second: bool = True
    second_unseen_at_landing: bool = True
    new_grace: int = 5
    late_open: int = 15
    track_picks_fresh: float = 1.0
    track_picks_confirmed: bool = True
    covered_unless_second: bool = True
    hidden_contest: bool = True
    contest_prob: float = 0.7
    gone_overlap: float = 0.1
    track_gap: float = 0.2
    flicker: int = 3
    flicker_window: float = 10.0
    left_before_landing: float | None = 0.05
    min_round_trip: float | None = 0.6
    seen_after_landing: float | None = 0.15
    carry_min: float | None = 0.2
    glimpse_keeps: float | None = 0.5
    glimpse_contest: float | None = 0.5
    split_by_track: bool = True
    split_by_landing: float | None = 0.05
    contest_fresh: bool = True
    left_when_carried: bool = True
    weak_change: float = 0.75
    weak_confirm: int = 5
    unlikely_confirm: int = 0
    still_there: float = 0.12
    lone_hand: tuple[int, int] | None = (10, 5)
    lone_unknown: bool = True
    lone_home: bool = True
    settle_lone: bool = True
    loser_hand: bool = True
    settle_unseen: bool = True
    contest_third: bool = True
    winner_margin: float = 0.004
    doubt_hold: float = 0.3
    doubt_below: float = 0.6
    flight_window: float = 1.0
    flight_prob: float = 0.4
    arm_width: float | None = 0.8


@dataclass
class _Card:
    label: str
    quad: np.ndarray
    t: float
    frame: int
    read_as: str | None = None  # what the classifier calls it, when the zones said otherwise

    def is_(self, label: str) -> bool:
        """Whether a reading ``label`` is this card (its label, or what it is read as)."""
        return label == self.label or label == self.read_as


@dataclass
class _Pending:
    label: str
    quad: np.ndarray
    first_frame: int
    first_t: float
    count: int = 1
    probs: list[float] = field(default_factory=list)
    before_frame: int = -1
    unseen: int = 0


@dataclass
class _Pile:
    id: int
    cards: list[_Card]
    last_seen_t: float
    last_state_frame: int  # the last look in which the pile showed its current top, settled
    pending: _Pending | None = None
    empty_since: float | None = None
    gone: bool = False
    last_seen_frame: int = -1  # the last look that showed a face at the pile's place

    @property
    def top(self) -> _Card:
        return self.cards[-1]


@dataclass(frozen=True)
class PlayCandidate:
    """A change on a foundation seen by :class:`PileTracker`.

    Attributes:
        kind: ``"play"`` (a new card on ``pile``) or ``"take_back"`` (the top card lifted, the
            card under it showing again).
        pile: the tracker's pile number (1, 2, ... in order of appearance).
        label: the card.
        quad: ``(4, 2)`` where it lies (pixels).
        t_seen: time of the first look that showed the change, seconds.
        frame_seen: that look's frame index.
        frame_before: the last look's frame index that showed the pile as it was before.
        prob: mean classifier probability over the confirming looks.
    """

    kind: str
    pile: int
    label: str
    quad: np.ndarray
    t_seen: float
    frame_seen: int
    frame_before: int
    prob: float

    @property
    def box(self) -> np.ndarray:
        """``(4,)`` xyxy bounding box of ``quad`` in pixels (as :attr:`Sighting.box`)."""
        return Sighting(self.label, self.prob, self.quad).box


@dataclass(frozen=True, eq=False)
class _HeldPair:
    """A contested pair held back (:meth:`RoundTracker._report`): two copies of ``card`` left
    two zones and one landed on ``pile``; which came first is settled when one comes back to
    its zone (:meth:`RoundTracker._settle_held`) or ``until`` passes
    (:meth:`RoundTracker._expired`). Compared by identity."""

    pile: int
    card: str
    player: str  # the copy credited second (held when only one copy is held)
    first: str  # the copy credited first (its copy left its zone first)
    t: float  # the landing, seconds
    confidence: float  # the second copy's play's, 0..1
    first_confidence: float
    until: float  # the hold ends, seconds (look time)
    cand: PlayCandidate  # the pile change that showed the card
    both: bool  # both copies held (``hold_both``), not only the second
    track: tuple[str, float] | None  # the sure hand track kept for the expiry (``contest_track``)
    how: str  # the attribution rule; "third": held again against a third copy (``contest_third``)
    third: str | None  # a third copy's player that left with the two (``contest_third``)
    t2: float | None = None  # "third" pairs: the first loser's landing, seconds


def _with_prior(s: Sighting, expected: Sequence[str], ratio: float) -> Sighting:
    """``s`` read as the likeliest of ``expected`` (cards that may legally come next) when its
    runner-up probability times ``ratio`` beats the reading's own probability (Bayes with a
    prior ``ratio`` times higher for the expected cards); else ``s`` unchanged. The returned
    probability is the posterior share of the two."""
    if ratio <= 1.0 or not expected or s.label in expected:
        return s
    best = max(((q, a) for a, q in s.alts if a in expected), default=None)
    if best is None or best[0] * ratio <= s.prob:
        return s
    q, label = best
    alts = tuple((a, x) for a, x in ((s.label, s.prob), *s.alts) if a != label)
    return Sighting(label, q * ratio / (q * ratio + s.prob), s.quad, s.hidden, s.whole, alts)


_ACES = ("AS", "AH", "AD", "AC")
_SURE_TRACK = 0.8
"""A hand track at least this sure names the zone the hand that laid a card down came from."""


def _sure_track(track: tuple[str, float] | None) -> bool:
    """Whether ``track`` (``(player, confidence)`` or None) is sure (:data:`_SURE_TRACK`)."""
    return track is not None and track[1] >= _SURE_TRACK


def _without_joker(s: Sighting) -> Sighting | None:
    """A pile card read as the joker at a table without jokers (``Rules.jokers`` off: no
    such card exists there) is its likeliest runner-up, the probabilities renormalised
    without the joker's; None when it has none. 20 tuning rounds with the models: two
    joker plays gone (one misreading became another extra); 12 clean rounds: one gone."""
    alts = [(a, p) for a, p in s.alts if a != "JK"]
    if not alts:
        return None
    rest = max(1.0 - s.prob, 1e-6)
    (label, p), others = alts[0], alts[1:]
    return replace(s, label=label, prob=min(p / rest, 1.0), alts=tuple((a, min(q / rest, 1.0)) for a, q in others))


def _next_on(label: str) -> tuple[str, ...]:
    """The cards that may legally go on a foundation showing ``label`` (none on a king, or on a
    joker whose declared identity the tracker does not know)."""
    try:
        nxt = Card.parse(label).next_up()
    except ValueError:
        return ()
    return (str(nxt),) if nxt is not None else ()


_CARD_ASPECT = (0.55, 0.9)
"""The shorter side over the longer of a quad that may be a whole card lying on the table, for
:meth:`PileTracker._open_late` (a card is 63 x 88 mm: 0.72; a slanted camera foreshortens one
side a little). r9340's "6H" (0.51) was a box between two piles' cards, the AC's lower edge and
the 3S's upper one, read the same for 2 s."""


def _card_shaped(quad: np.ndarray) -> bool:
    """Whether ``quad`` ``(4, 2)`` pixels has a whole card's proportions (:data:`_CARD_ASPECT`)."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    e = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
    a, b = (e[0] + e[2]) / 2, (e[1] + e[3]) / 2
    return max(a, b) > 0 and _CARD_ASPECT[0] <= min(a, b) / max(a, b) <= _CARD_ASPECT[1]


def _may_open(label: str) -> bool:
    """Whether a card read as ``label`` may be the first seen on a new foundation: an ace, a
    two (laid on an ace before a look showed it), or a joker (RULES.md: a joker may start a
    foundation as an ace). False for a label that is no card."""
    try:
        c = Card.parse(label)
    except ValueError:
        return False
    return c.is_joker or c.rank in (Rank.ACE, Rank.TWO)


class PileTracker:
    """The foundations in the shared area (see the module docstring).

    Args:
        settings: :class:`TrackerSettings`.
        changed: optional ``f(candidate) -> fraction | None``: how much of a new card's place
            changed in the frames (:meth:`nertz.vision.arrival.ArrivalTimer.changed`), for
            ``min_change``.
    """

    def __init__(self, settings: TrackerSettings | None = None,
                 changed: Callable[[PlayCandidate], float | None] | None = None) -> None:
        self.settings = settings or TrackerSettings()
        self.changed = changed
        self.piles: list[_Pile] = []
        self._new: list[_Pending] = []
        self._late: list[_Pending] = []  # cards on no pile that no foundation starts with
        self._last_frame = -1
        # recent looks ``(frame, (M, 4) xyxy hand boxes, [(label, (4,) box)] of cards on no
        # pile, (K, 4, 2) forearms)``, to find when a new pile's place was last seen empty (the
        # arrival look-back needs the bare table as its "before")
        self._recent: deque[tuple[int, np.ndarray, list[tuple[str, np.ndarray]], np.ndarray]] = deque(maxlen=48)

    def pile(self, pile_id: int) -> _Pile | None:
        """The pile numbered ``pile_id`` when it holds a card, else None."""
        return next((p for p in self.piles if p.id == pile_id and p.cards), None)

    def _match(self, s: Sighting) -> _Pile | None:
        """The pile ``s`` belongs to: the nearest (not gone) within ``same_place`` card widths."""
        return self._nearest(s, self.settings.same_place)

    def _pile_followed_by(self, s: Sighting, reach: float) -> _Pile | None:
        """The nearest pile (not gone) whose top card ``s``'s card goes on (:func:`_next_on`),
        with its top's centre within ``reach`` card widths of ``s``'s; None if none."""
        return self._nearest(s, reach, lambda p: s.label in _next_on(p.top.label))

    def _nearest(self, s: Sighting, reach: float, accept: Callable[[_Pile], bool] | None = None,
                 gone: bool = False) -> _Pile | None:
        """The pile (not gone, or with ``gone`` one that left the area; and ``accept``-ed) whose
        top card's centre lies nearest ``s``'s, within ``reach`` card widths (the larger of the
        two cards' widths); None if none."""
        c, _, w = s.pose
        best, best_d = None, reach
        for p in self.piles:
            if p.gone != gone or (accept is not None and not accept(p)):
                continue
            pc, _, pw = quad_pose(p.top.quad)
            d = float(np.linalg.norm(c - pc)) / max(pw, w)
            if d < best_d:
                best, best_d = p, d
        return best

    def _same_pose(self, a: np.ndarray, b: np.ndarray) -> bool:
        ca, aa, wa = quad_pose(a)
        cb, ab, wb = quad_pose(b)
        return float(np.linalg.norm(ca - cb)) / max(wa, wb) < self.settings.still and _angle_diff(aa, ab) < 6.0

    def update(self, look: Look, faces: Sequence[Sighting],
               arms: np.ndarray | None = None) -> list[PlayCandidate]:
        """Feed one look's face-up cards in the shared area; return the confirmed changes.

        Args:
            look: the look (its frame, time and hand boxes).
            faces: the sightings inside the shared area.
            arms: ``(K, 4, 2)`` the look's forearms, pixels (``arm_width``), or None.
        """
        st = self.settings
        out: list[PlayCandidate] = []
        seen: dict[int, Sighting] = {}
        unmatched: list[Sighting] = []
        followers: list[tuple[_Pile, Sighting]] = []  # cards that go on a pile, off its place
        late: list[Sighting] = []  # cards no foundation starts with, on no pile (``late_open``)
        # piles whose place shows a face however it is read (a card read weakly in every look
        # is still a card there: a pile leaves the area only when its place is bare)
        occupied: set[int] = set()
        # the most visible sighting per pile (a pile shows one top card)
        for s in sorted(faces, key=lambda s: s.hidden):
            p = self._match(s)
            if p is not None and st.weak_reads_occupy:
                occupied.add(p.id)
            if s.prob < st.min_prob or not s.whole:
                continue
            if p is None:
                opening = _with_prior(s, _ACES, st.rules_prior)
                if st.open_reach is None or _may_open(opening.label):
                    unmatched.append(opening)
                    continue
                # no foundation starts with this card: the pile whose top it goes on, a little
                # further off than ``same_place`` (``open_reach``), or none; read after the
                # piles' own sightings, which it does not displace
                p = self._pile_followed_by(s, st.open_reach)
                if p is not None:
                    followers.append((p, s))
                else:
                    late.append(s)
                continue
            if p.id not in seen:
                seen[p.id] = self._read_on(p, s, look)
        for p, s in followers:
            if p.id not in seen:
                seen[p.id] = self._read_on(p, s, look)
        for p in self.piles:
            if p.gone:
                continue
            s = seen.get(p.id)
            if s is None:
                hidden = boxes_overlap(Sighting(p.top.label, 1.0, p.top.quad).box, look.hands)
                if p.id in occupied:
                    p.empty_since = None
                elif hidden < 0.05:
                    p.empty_since = p.empty_since if p.empty_since is not None else look.t
                    if look.t - p.empty_since >= st.gone_after:
                        if self._place_unchanged(p, look):
                            p.last_seen_frame = look.frame  # the card still lies there, unseen
                        else:
                            p.gone = True
                continue
            p.empty_since = None
            p.last_seen_t = look.t
            p.last_seen_frame = look.frame
            if s.hidden > st.max_hidden:
                continue
            if p.top.is_(s.label) and (self.settings.same_card_is_same or self._same_pose(s.quad, p.top.quad)):
                # the same card on top (a second copy of it is not told apart by its pose: see
                # ``same_card_is_same``; contested copies are found from the zones)
                p.pending = None
                if not self._top_changed(p, s, look):
                    p.last_state_frame = look.frame
                p.top.quad = s.quad
                continue
            pend = p.pending
            if pend is not None and pend.label == s.label and self._same_pose(s.quad, pend.quad):
                pend.count += 1
                pend.probs.append(s.prob)
                pend.quad = s.quad
            else:
                p.pending = pend = _Pending(s.label, s.quad, look.frame, look.t, 1, [s.prob])
            below = p.cards[-2] if len(p.cards) >= 2 else None
            if pend.count < st.confirm or self._weakly_read(pend) or self._unlikely_change(p, pend, below):
                continue
            p.pending = None
            prob = float(np.mean(pend.probs))
            if p.top.is_(s.label):
                # the same card again, moved: a second copy on top (or the top squared up)
                if below is not None and below.label == s.label and self._same_pose(s.quad, below.quad):
                    out.append(self._take_back(p, look, pend, prob))
                    continue
                out.extend(self._new_top(p, look, pend, prob))
            elif below is not None and below.label == s.label and self._same_pose(s.quad, below.quad):
                out.append(self._take_back(p, look, pend, prob))
            else:
                out.extend(self._new_top(p, look, pend, prob))
        out.extend(self._open_piles(look, unmatched))
        out.extend(self._open_late(look, late))
        self._last_frame = look.frame
        self._recent.append((look.frame, np.asarray(look.hands, np.float32).reshape(-1, 4),
                             [(u.label, u.box) for u in unmatched],
                             np.zeros((0, 4, 2), np.float32) if arms is None else np.asarray(arms, np.float32)))
        return out

    def _place_unchanged(self, p: _Pile, look: Look) -> bool:
        """Whether pile ``p``'s place, where no face has been seen for ``gone_after`` seconds,
        still shows what it showed in the last look that saw a face there: less than
        ``gone_unchanged`` of its top card's pixels changed since (the ``changed`` callback).
        The detector can lose a card for seconds (r9356: a JH between two aces, missed from
        41.9 s on, its pile set aside, so the QH and KH laid on it were never played); a pile
        that has really left changed its place. Each look that finds the place unchanged stands
        for a sighting (the next compares with it). False without the callback, with the
        setting off, or when the frames cannot tell (the last sighting no longer buffered)."""
        st = self.settings
        if st.gone_unchanged is None or self.changed is None or p.last_seen_frame < 0:
            return False
        frac = self.changed(PlayCandidate("play", p.id, p.top.label, p.top.quad, look.t, look.frame,
                                          p.last_seen_frame, 1.0))
        return frac is not None and frac < st.gone_unchanged

    def _unlikely_change(self, p: _Pile, pend: _Pending, below: _Card | None) -> bool:
        """Whether the change ``pend`` of pile ``p``'s top is a card that cannot lawfully come
        next and has been seen in fewer than ``unlikely_confirm`` looks (see
        :class:`TrackerSettings`): neither a higher card of the pile's suit (the next one, or
        one over cards covered before a look confirmed them), nor the card under the top (a
        take-back), nor the top's own card in another pose (a collision's second copy). Jokers
        and unreadable labels are never unlikely."""
        st = self.settings
        if pend.count >= st.unlikely_confirm or pend.label == p.top.label:
            return False  # seen long enough; or the same card again (a collision's second copy)
        if below is not None and below.label == pend.label:
            return False
        try:
            top, card = Card.parse(p.top.label), Card.parse(pend.label)
        except ValueError:
            return False
        if top.rank is None or card.rank is None:
            return False
        return not (card.suit == top.suit and card.rank > top.rank)

    def _weakly_read(self, pend: _Pending) -> bool:
        """Whether the change ``pend`` is read too weakly so far to confirm: its mean label
        probability is under ``weak_change`` and it has been seen in fewer than
        ``weak_confirm`` looks (see :class:`TrackerSettings`)."""
        st = self.settings
        return pend.count < st.weak_confirm and float(np.mean(pend.probs)) < st.weak_change

    def _top_changed(self, p: _Pile, s: Sighting, look: Look) -> bool:
        """Whether the place of ``s``, read as pile ``p``'s top again, changed by at least
        ``top_changed`` of its pixels since the pile's last settled look (False without the
        ``changed`` callback or when the frames cannot tell): see :class:`TrackerSettings`."""
        st = self.settings
        return st.top_changed > 0 and self._changed_since_settled(p, s, s.label, look) >= st.top_changed

    def _changed_since_settled(self, p: _Pile, s: Sighting, label: str, look: Look) -> float:
        """Fraction 0..1 of the pixels of sighting ``s`` (read as ``label``) on pile ``p`` that
        changed since the pile's last settled look (the ``changed`` callback); 0 without the
        callback or when the frames cannot tell."""
        if self.changed is None:
            return 0.0
        frac = self.changed(PlayCandidate("play", p.id, label, s.quad, look.t, look.frame,
                                          p.last_state_frame, s.prob))
        return 0.0 if frac is None else frac

    def _read_on(self, p: _Pile, s: Sighting, look: Look) -> Sighting:
        """``s``, a face seen on pile ``p``, with the rules' prior (``rules_prior``) for the
        card that may legally come next on ``p``. The prior applies to a new card only: the top
        itself read differently in another look must not become the next card. A card read as
        another than the top is new when it lies differently from the top; one that lies as
        the top does (a card squared exactly on the pile) or is read as the top itself is new
        only when its place changed by at least ``min_change_squared`` of its pixels since the
        pile's last settled look (needs the ``changed`` callback)."""
        st = self.settings
        read = _with_prior(s, _next_on(p.top.label), st.rules_prior)
        if read is s:
            return s
        if not p.top.is_(s.label) and not self._same_pose(s.quad, p.top.quad):
            return read
        if st.min_change_squared <= 0 or self.changed is None:
            return s
        return read if self._changed_since_settled(p, s, read.label, look) >= st.min_change_squared else s

    def _last_clear(self, s: Sighting) -> int:
        """The latest of the last ``bare_within`` looks in which neither a hand (nor its
        forearm, ``arm_width``) nor the card covered ``s``'s box (its place showed the table as
        it was before the card), else the last look: a new pile's "before" state."""
        box = s.box
        for frame, hands, cards, arms in list(reversed(self._recent))[:self.settings.bare_within]:
            if boxes_overlap(box, hands) >= 0.05 or polygons_overlap(box, arms) >= 0.05:
                continue
            if any(label == s.label and boxes_overlap(box, b[None]) > 0.5 for label, b in cards):
                continue
            return frame
        return self._last_frame

    def _new_top(self, p: _Pile, look: Look, pend: _Pending, prob: float) -> list[PlayCandidate]:
        """The play of a new top card on ``p``; none when its place barely changed in the frames
        (``min_change``): the old top read differently, which the pile keeps."""
        cand = self._push(p, look, pend, prob)
        if self.settings.min_change > 0 and self.changed is not None:
            frac = self.changed(cand)
            if frac is not None and frac < self.settings.min_change:
                p.cards.pop()
                return []
        return [cand]

    def _push(self, p: _Pile, look: Look, pend: _Pending, prob: float) -> PlayCandidate:
        before = p.last_state_frame
        p.cards.append(_Card(pend.label, pend.quad, pend.first_t, pend.first_frame))
        p.last_state_frame = look.frame
        return PlayCandidate("play", p.id, pend.label, pend.quad, pend.first_t, pend.first_frame, before, prob)

    def _take_back(self, p: _Pile, look: Look, pend: _Pending, prob: float) -> PlayCandidate:
        before = p.last_state_frame
        gone = p.cards.pop()
        p.last_state_frame = look.frame
        return PlayCandidate("take_back", p.id, gone.label, gone.quad, pend.first_t, pend.first_frame, before, prob)

    def _open_piles(self, look: Look, unmatched: list[Sighting]) -> list[PlayCandidate]:
        """New piles: a card that may open one (``unmatched``), seen the same way in ``confirm``
        looks (``weak_confirm`` when read weakly)."""
        st = self.settings

        def verdict(pend: _Pending, s: Sighting) -> str:
            return "open" if pend.count >= st.confirm and not self._weakly_read(pend) else "keep"

        self._new, out = self._follow(self._new, unmatched, look, verdict)
        return out

    def _open_late(self, look: Look, late: list[Sighting]) -> list[PlayCandidate]:
        """Piles whose first cards no look showed (``late_open``): a card no foundation starts
        with, on no pile, read the same way and lying still in ``late_open`` looks (it may go
        unseen for ``new_grace`` looks in a row: an arm over it), read clearly on average
        (``weak_read``) and shaped like a whole card, opens a pile, with its play at its first
        sighting. :meth:`RoundTracker._skipped` infers the cards under it from the zones; when
        it cannot, the card is an illegal play, for the referee. None at the place of a pile
        that left the area. ``late`` holds this look's such sightings."""
        st = self.settings
        if st.late_open < 1:
            self._late = []
            return []

        def verdict(pend: _Pending, s: Sighting) -> str:
            if pend.count < st.late_open or float(np.mean(pend.probs)) < st.weak_read:
                return "keep"
            return "open" if _card_shaped(s.quad) and not self._at_gone_pile(s) else "drop"

        self._late, out = self._follow(self._late, late, look, verdict)
        return out

    def _follow(self, pendings: list[_Pending], sightings: list[Sighting], look: Look,
                verdict: Callable[[_Pending, Sighting], str]) -> tuple[list[_Pending], list[PlayCandidate]]:
        """Match this look's ``sightings`` (not hidden beyond ``max_hidden``) to the pending
        cards that would open piles: the same label lying still (``still``) counts one look
        more, and ``verdict(pending, sighting)`` says whether it now opens a pile (``"open"``:
        its play at its first sighting), waits (``"keep"``) or is forgotten (``"drop"``). A
        sighting that matches none starts a pending card; one unseen for more than
        ``new_grace`` looks is forgotten. Returns the pending cards kept and the plays."""
        st = self.settings
        out: list[PlayCandidate] = []
        kept: list[_Pending] = []
        used: set[int] = set()
        for s in sightings:
            if s.hidden > st.max_hidden:
                continue
            for i, pend in enumerate(pendings):
                if i not in used and pend.label == s.label and self._same_pose(s.quad, pend.quad):
                    pend.unseen = 0
                    pend.count += 1
                    pend.probs.append(s.prob)
                    pend.quad = s.quad
                    used.add(i)
                    v = verdict(pend, s)
                    if v == "open":
                        pile = _Pile(len(self.piles) + 1, [], look.t, pend.before_frame, last_seen_frame=look.frame)
                        self.piles.append(pile)
                        out.append(self._push(pile, look, pend, float(np.mean(pend.probs))))
                    elif v == "keep":
                        kept.append(pend)
                    break
            else:
                kept.append(_Pending(s.label, s.quad, look.frame, look.t, 1, [s.prob], self._last_clear(s)))
        for i, pend in enumerate(pendings):
            if i not in used and pend.unseen < st.new_grace:
                pend.unseen += 1
                kept.append(pend)
        return kept, out

    def _at_gone_pile(self, s: Sighting) -> bool:
        """Whether ``s`` lies within ``same_place`` card widths of a pile that left the area."""
        return self._nearest(s, self.settings.same_place, gone=True) is not None


class Returned(NamedTuple):
    """A card seen back in a zone it had left (:meth:`ZoneTracker.update`).

    Attributes:
        player: the zone's player.
        card: the card.
        gone_t: when it was marked gone, seconds.
        seen: looks it had been seen in before it left.
        moved: it was seen moving before it left (carried, not only covered).
        back_t: the first look that showed it back, seconds.
        prob: the best label probability it has been seen back with, 0..1.
        hidden: it was never seen gone, only hidden (a hand over its place) for at least
            ``hidden_return`` seconds; ``gone_t`` is then the last look that showed it before.
        left_t: the last look that showed it in the zone before it left, seconds (None: not
            known, as ``gone_t``).
    """

    player: str
    card: str
    gone_t: float
    seen: int
    moved: bool
    back_t: float
    prob: float
    hidden: bool = False
    left_t: float | None = None


def _returned(name: str, label: str, came_back: tuple[float, int, bool, float], back_t: float,
              prob: float) -> Returned:
    """The :class:`Returned` of a card back in ``name``'s zone after leaving it
    (``came_back``: its ``(gone_t, seen, moved, left_t)``)."""
    gone_t, seen, moved, left_t = came_back
    return Returned(name, label, gone_t, seen, moved, back_t, prob, left_t=left_t)


@dataclass
class _ZoneCard:
    quad: np.ndarray
    last_seen_t: float
    last_seen_frame: int
    gone_t: float | None = None
    used: bool = False
    seen: int = 1
    # (gone_t, looks seen, moved, last seen) before it came back
    came_back: tuple[float, int, bool, float] | None = None
    prob: float = 1.0  # the best label probability it was seen with
    alts: tuple[tuple[str, float], ...] = ()  # runners-up of its latest reading
    moved: bool = False  # seen in two places in a row (lifted and carried, not only covered)
    first_seen_t: float = 0.0  # the first look of this stay in the zone
    backs: tuple[float, ...] = ()  # when it came back to the zone before, seconds (this stay included)
    # (looks seen, best probability) of the stays before, and how far this one began from
    # where the last of them ended (card widths), when this stay began as a glimpse within
    # ``glimpse_keeps`` seconds of that one's end (the card in the hand carrying it)
    before: tuple[int, float, float] | None = None

    def __post_init__(self) -> None:
        self.first_seen_t = self.last_seen_t


class ZoneTracker:
    """The face-up cards each player's layout zone shows over time (see the module docstring).

    Args:
        settings: :class:`TrackerSettings`.
    """

    def __init__(self, names: Sequence[str], settings: TrackerSettings | None = None) -> None:
        self.settings = settings or TrackerSettings()
        self.cards: dict[str, dict[str, _ZoneCard]] = {n: {} for n in names}

    def update(self, look: Look, faces_by_zone: dict[str, list[Sighting]]) -> list[Returned]:
        """Feed one look's face-up cards per zone (sightings update presence; a card not seen
        where it lay, with no hand over that place, is marked gone at this look).

        Returns:
            a :class:`Returned` for each card back in a zone it had left (for instance a card
            taken back from a foundation), once it has been seen there again in
            ``zone_confirm`` looks; and (``hidden``) for each card seen in ``zone_confirm``
            looks before, seen again after a hand hid its place for ``hidden_return`` seconds
            or more.
        """
        back: list[Returned] = []
        for name, zone in self.cards.items():
            faces = [s for s in faces_by_zone.get(name, []) if s.prob >= self.settings.min_prob]
            labels = {s.label for s in faces}
            for s in faces:
                zc = zone.get(s.label)
                if zc is None or zc.gone_t is not None or zc.used:
                    came_back = None
                    if zc is not None and zc.gone_t is not None:
                        came_back = (zc.gone_t, zc.seen, zc.moved, zc.last_seen_t)
                        if self.settings.keep_first_leaving and zc.came_back is not None:
                            # seen back in fewer than zone_confirm looks (a glimpse of it in
                            # the hand bringing it back), then gone again: it left at its
                            # first leaving, not at the glimpse
                            came_back = zc.came_back
                    backs = (*zc.backs, look.t) if zc is not None and zc.gone_t is not None else ()
                    before = None
                    keep = self.settings.glimpse_keeps
                    if keep is not None and zc is not None and zc.gone_t is not None and look.t - zc.last_seen_t <= keep:
                        # a glimpse just after it left: the same card, most often in the hand
                        seen, prob, _ = zc.before or (0, 0.0, 0.0)
                        c0, _, w0 = quad_pose(zc.quad)
                        c1, _, _ = quad_pose(s.quad)
                        before = (zc.seen + seen, max(zc.prob, prob), float(np.linalg.norm(c1 - c0)) / max(w0, 1e-6))
                    zone[s.label] = zc = _ZoneCard(s.quad, look.t, look.frame, came_back=came_back, prob=s.prob,
                                                   alts=s.alts, backs=backs, before=before)
                else:
                    if (self.settings.hidden_return and zc.seen >= self.settings.zone_confirm
                            and look.t - zc.last_seen_t >= self.settings.hidden_return):
                        # hidden by a hand for a while, never seen gone: perhaps carried to a
                        # pile and brought back under the hand (RoundTracker._taken_back decides)
                        back.append(Returned(name, s.label, zc.last_seen_t, zc.seen, zc.moved, look.t, s.prob,
                                             hidden=True, left_t=zc.last_seen_t))
                    c0, _, w0 = quad_pose(zc.quad)
                    c1, _, _ = quad_pose(s.quad)
                    zc.moved = zc.moved or float(np.linalg.norm(c1 - c0)) > self.settings.carried * w0
                    zc.quad, zc.last_seen_t, zc.last_seen_frame = s.quad, look.t, look.frame
                    zc.seen += 1
                    zc.prob = max(zc.prob, s.prob)
                    zc.alts = s.alts or zc.alts
                if zc.came_back is not None and zc.seen >= self.settings.zone_confirm:
                    # back for good (seen in enough looks): report it once
                    back.append(_returned(name, s.label, zc.came_back, zc.first_seen_t, zc.prob))
                    zc.came_back = zc.before = None
            for label, zc in zone.items():
                if label in labels or zc.gone_t is not None:
                    continue
                if boxes_overlap(Sighting(label, 1.0, zc.quad).box, look.hands) < self.settings.gone_overlap:
                    zc.gone_t = look.t
        return back

    def seen_back_once(self, name: str, label: str, least: float) -> Returned | None:
        """``label`` back in ``name``'s zone but seen there in fewer looks than
        ``zone_confirm`` (a hand over it again), with a probability of at least ``least``: its
        :class:`Returned` (see :meth:`take_return`); else None."""
        zc = self.cards.get(name, {}).get(label)
        if zc is None or zc.came_back is None or zc.prob < least:
            return None
        return _returned(name, label, zc.came_back, zc.first_seen_t, zc.prob)

    def take_return(self, name: str, label: str) -> None:
        """The return of ``label`` to ``name``'s zone is accounted for: :meth:`update` will not
        report it."""
        zc = self.cards.get(name, {}).get(label)
        if zc is not None:
            zc.came_back = None

    def alias(self, name: str, label: str) -> bool:
        """Whether ``name``'s zone card ``label`` is another reading of a card the zone showed
        under another label at the same place over the same time, in ``alias_of`` times as
        many looks or more (a misreading of that card, not a card of its own; see
        :class:`TrackerSettings`). Such a card is left out of :meth:`vanished`."""
        k = self.settings.alias_of
        zone = self.cards.get(name, {})
        zc = zone.get(label)
        if k <= 0 or zc is None:
            return False
        c0, _, w0 = quad_pose(zc.quad)
        for other, oc in zone.items():
            if other == label or oc.seen < k * zc.seen:
                continue
            if not (oc.first_seen_t <= zc.first_seen_t + 0.05 and oc.last_seen_t >= zc.last_seen_t - 0.5):
                continue
            c1, _, _ = quad_pose(oc.quad)
            if float(np.linalg.norm(c1 - c0)) < 0.2 * w0:
                return True
        return False

    def vanished(self, label: str, t: float, window: float) -> list[tuple[str, float, int]]:
        """Players whose zone lost ``label`` in ``[t - window, t + 0.5]``: ``(player, time it
        was last seen, looks it was seen in)``, latest first (cards already used by an
        attribution excluded, and readings of another card, :meth:`alias`)."""
        out = []
        for name, zone in self.cards.items():
            zc = zone.get(label)
            if zc is None or zc.used or zc.gone_t is None or self.alias(name, label):
                continue
            if t - window <= zc.gone_t <= t + 0.5:
                out.append((name, zc.last_seen_t, zc.seen + (zc.before[0] if zc.before else 0)))
        return sorted(out, key=lambda x: -x[1])

    def glimpse(self, name: str, label: str) -> bool:
        """Whether ``name``'s zone card ``label`` is seen now only in a glimpse (fewer than
        ``zone_confirm`` looks) that followed a stay it had left (``glimpse_keeps``)."""
        zc = self.cards[name][label]
        return zc.before is not None and zc.seen < self.settings.zone_confirm

    def carried_glimpse(self, name: str, label: str) -> bool:
        """Whether ``name``'s zone card ``label`` is seen now only in a glimpse (:meth:`glimpse`)
        at least a card's width from where it lay: the card in the hand carrying it."""
        zc = self.cards[name][label]
        return self.glimpse(name, label) and zc.before[2] >= 1.0

    def read_prob(self, name: str, label: str) -> float:
        """The best probability ``name``'s zone card ``label`` was read with, over this stay and,
        when this stay began as a glimpse of it in the hand carrying it (``glimpse_keeps``), the
        stay before. KeyError when the zone never showed it."""
        zc = self.cards[name][label]
        return max(zc.prob, zc.before[1]) if zc.before else zc.prob

    def runner_up_vanished(self, label: str, t: float, window: float, least: float) -> list[tuple[str, str, float]]:
        """Cards read as something else but with ``label`` among their runners-up (probability
        at least ``least``) that left a zone in ``[t - window, t + 0.5]``: ``(player, label
        read, probability of ``label``)``, likeliest first."""
        out = []
        for name, zone in self.cards.items():
            for read, zc in zone.items():
                if zc.used or zc.gone_t is None or not (t - window <= zc.gone_t <= t + 0.5):
                    continue
                p = next((q for a, q in zc.alts if a == label), 0.0)
                if p >= least:
                    out.append((name, read, p))
        return sorted(out, key=lambda x: -x[2])

    def uncertain_vanished(self, t: float, window: float, below: float,
                           like: str | None = None) -> list[tuple[str, str, float]]:
        """Cards read with a probability under ``below`` (whatever their label) that left a
        zone in ``[t - window, t + 0.5]``: ``(player, label read, time last seen)``, latest
        first. A misread card leaving just before an unexplained landing is its likely source.
        With ``like`` (the card that landed), the cards whose runners-up include it come
        first, likeliest first."""
        out = []
        for name, zone in self.cards.items():
            for label, zc in zone.items():
                if zc.used or zc.gone_t is None or zc.prob >= below:
                    continue
                if t - window <= zc.gone_t <= t + 0.5:
                    p = next((q for a, q in zc.alts if a == like), 0.0) if like is not None else 0.0
                    out.append((name, label, zc.last_seen_t, p))
        return [x[:3] for x in sorted(out, key=lambda x: (-x[3], -x[2]))]

    def unseen_since(self, label: str, t: float, window: float) -> list[tuple[str, float, int]]:
        """Players whose zone showed ``label`` in ``[t - window, t]`` and has not shown it
        since, though a hand may hide its place (weaker than :meth:`vanished`); same tuples."""
        out = []
        for name, zone in self.cards.items():
            zc = zone.get(label)
            if zc is None or zc.used or zc.gone_t is not None:
                continue
            if t - window <= zc.last_seen_t <= t:
                out.append((name, zc.last_seen_t, zc.seen))
        return sorted(out, key=lambda x: -x[1])

    def backs(self, name: str, label: str, since: float) -> int:
        """How many times ``label`` came back to ``name``'s zone from ``since`` seconds on (a
        card read on and off, often a misreading, comes back again and again)."""
        zc = self.cards.get(name, {}).get(label)
        return 0 if zc is None else sum(1 for b in zc.backs if b >= since)

    def moved(self, name: str, label: str) -> bool:
        """Whether ``label`` in ``name``'s zone was seen moving before it left (carried)."""
        zc = self.cards[name].get(label)
        return zc is not None and zc.moved

    def looks_seen(self, name: str, label: str) -> int:
        """The looks that showed ``label`` in ``name``'s zone in its last stay there and, when
        it was seen back in fewer than ``zone_confirm`` looks since, the stay before (a card
        hidden a while by an arm, which no hand box marks, is gone and back to the zone)."""
        zc = self.cards[name].get(label)
        if zc is None:
            return 0
        return zc.seen + (zc.came_back[1] if zc.came_back is not None else 0)

    def use(self, name: str, label: str) -> None:
        """Mark ``label`` in ``name``'s zone as accounted for by a play."""
        zc = self.cards[name].get(label)
        if zc is not None:
            zc.used = True


@dataclass(frozen=True)
class _Evidence:
    """What the attribution rules of :meth:`RoundTracker._attribute` weigh for one new
    foundation card: the change, its landing time (seconds), the classifier's probability,
    the zones' vanished copies (:meth:`ZoneTracker.vanished`) and those of them seen in at
    least ``zone_confirm`` looks (``sure``), the hand track's ``(player, confidence)`` (None
    when unsure or busy) and the players busy laying another card down."""

    cand: PlayCandidate
    t: float
    prob: float
    found: list[tuple[str, float, int]]
    sure: list[tuple[str, float, int]]
    track: tuple[str, float] | None
    busy: set[str]


_Ruled = tuple[str, list[tuple[str, float, float]]] | None
"""What an attribution rule returns: ``(rule name, [(player, confidence, dt)])``, or None
when the rule names nobody."""


def _inside(point: np.ndarray, polygon: np.ndarray | None) -> bool:
    if polygon is None:
        return False
    return cv2.pointPolygonTest(polygon, (float(point[0]), float(point[1])), False) >= 0


class RoundTracker:
    """Turns looks into play and take-back events for the referee (the contract's event dicts).

    Args:
        table: the table file (``shared_area`` and ``zones`` are needed, in frame pixels).
        settings: :class:`TrackerSettings`.
        arrival: optional ``f(candidate) -> t`` that refines the arrival time of a confirmed
            change from the frames (see :mod:`nertz.vision.arrival`); by default the time of
            the first look that showed it.
        hand_owner: optional ``f(candidate) -> (name, confidence) | None`` used when no zone
            saw the card vanish.
        changed: optional ``f(candidate) -> fraction | None``: how much of a new card's place
            changed in the frames (:meth:`nertz.vision.arrival.ArrivalTimer.changed`), for
            ``min_change``.
        second_landing: optional ``f(quad, t_first, until, taken_back=True) -> t | None``:
            when the second copy of a contested pair landed
            (:meth:`nertz.vision.arrival.ArrivalTimer.second_landing`; ``taken_back=False``
            when another card was laid on the pile before the take-back); without it, or when
            it cannot tell, one frame past the tie window after the first.
        covered_landing: optional ``f(candidate, until) -> t | None``: when a card landed
            that the candidate's card, laid at ``until`` seconds, covered before a look could
            confirm it (:meth:`nertz.vision.arrival.ArrivalTimer.covered_landing`), for the
            skipped cards (``max_skipped``); without it, or when it cannot tell, 0.2 s before
            the card over it.
        covering_landing: optional ``f(candidate) -> t | None``: when the candidate's card,
            which covers skipped cards, landed, read so that the covered card does not pass
            for it (:meth:`nertz.vision.arrival.ArrivalTimer.covering_landing`).
        hands_seen: optional ``f(frame, (M, 4) hand boxes, (K, 4, 2) forearms)``, called with
            each look's hands once they are tracked, before its arrivals are asked for
            (:meth:`nertz.vision.arrival.ArrivalTimer.push_hands`).
        pair_landing: optional ``f(candidate, on) -> t``: the arrival read with ``on`` in place
            of the timer's own (:meth:`nertz.vision.arrival.ArrivalTimer.pair_landing`), for
            ``pair_on``; without it a contested pair's first landing is the arrival's.

    Raises:
        ValueError: the table has no shared area.
    """

    def __init__(self, table: Table, settings: TrackerSettings | None = None,
                 arrival: Callable[[PlayCandidate], float] | None = None,
                 hand_owner: Callable[[PlayCandidate], tuple[str, float] | None] | None = None,
                 changed: Callable[[PlayCandidate], float | None] | None = None,
                 second_landing: Callable[[np.ndarray, float, float], float | None] | None = None,
                 covered_landing: Callable[[PlayCandidate, float], float | None] | None = None,
                 covering_landing: Callable[[PlayCandidate], float | None] | None = None,
                 hands_seen: Callable[[int, np.ndarray, np.ndarray], None] | None = None,
                 pair_landing: Callable[[PlayCandidate, float], float] | None = None) -> None:
        if table.shared_area is None:
            raise ValueError("the table file has no shared_area: run nertz calibrate first")
        self.table = table
        self.settings = settings or TrackerSettings()
        self.shared = np.asarray(table.shared_area, np.float32).reshape(-1, 1, 2)
        self.zones = {n: np.asarray(z, np.float32).reshape(-1, 1, 2) for n, z in table.zones.items()}
        self.piles = PileTracker(self.settings, changed)
        self.zone_cards = ZoneTracker(list(self.zones), self.settings)
        self.arrival = arrival
        self.hand_owner = hand_owner
        self.second_landing = second_landing
        self.covered_landing = covered_landing
        self.covering_landing = covering_landing
        self.hands_seen = hands_seen
        self.pair_landing = pair_landing
        self._owner_of_pile_card: dict[tuple[int, str], list[str]] = {}
        self._plays: deque[dict[str, Any]] = deque(maxlen=32)
        self._held: list[_HeldPair] = []
        self._doubtful: list[tuple[float, dict[str, Any]]] = []  # (until, play) held (``doubt_hold``)
        self._took_back: set[tuple[str, str, int]] = set()  # (player, card, pile) of the inferred take-backs
        self._contest_track: tuple[str, float] | None = None  # set by _by_contest: the sure hand track
        self._contest_how = ""  # set by _contested: the rule that made the pair
        self._contest_third: str | None = None  # set by _by_contest: a third copy that left with the pair's
        self._flight: deque[tuple[float, str, float, np.ndarray]] = deque()  # (t, card, prob, centre): ``flight_window``
        self.ended_at: float | None = None
        """When the round ended (:meth:`end`), seconds; None while it goes on."""
        self.hand_tracks = HandTracker(table.zones, table.shared_area, arm_width=self.settings.arm_width)
        self.attributions: list[tuple[float, str, int, str, str]] = []
        """Every attribution made: ``(t, card, pile, player, how)``, ``how`` naming the rule of
        the attribution order (module docstring) that decided it; for evaluation and review."""

    def pile_tops(self) -> list[tuple[int, str, np.ndarray, str | None]]:
        """The piles still in the shared area: ``(pile, top card, (4, 2) quad in pixels, owner
        of the top card or None)``."""
        out = []
        for p in self.piles.piles:
            if p.gone or not p.cards:
                continue
            owners = self._owner_of_pile_card.get((p.id, p.top.label)) or [None]
            out.append((p.id, p.top.label, p.top.quad, owners[-1]))
        return out

    def _hand_from(self, name: str, ev: dict[str, Any], frame_to: int) -> bool:
        """Whether a hand from ``name``'s zone was over the pile card of play ``ev`` between the
        pile's state before it and the look of frame ``frame_to`` (:meth:`HandTracker.came_from`)."""
        cand = ev["_cand"]
        return self.hand_tracks.came_from(name, cand.box, cand.frame_before, frame_to)

    def _hands_from_elsewhere(self, name: str, cand: PlayCandidate, frame_to: int) -> bool:
        """Whether hands were seen over ``cand``'s card between the pile's state before it and
        the look of frame ``frame_to`` and all of them came from zones other than ``name``'s
        (none of unknown origin; :meth:`nertz.vision.hands.HandTracker.origins`): no hand of
        ``name``'s went to the pile then. False when no hand was seen over it."""
        came = self.hand_tracks.origins(cand.box, cand.frame_before, frame_to)
        return bool(came) and name not in came and None not in came

    def where(self, s: Sighting) -> str | None:
        """``"shared"``, a zone's name, or None for a sighting's centre."""
        c, _, _ = s.pose
        if _inside(c, self.shared):
            return "shared"
        for name, poly in self.zones.items():
            if _inside(c, poly):
                return name
        return None

    def end(self, t: float) -> None:
        """The round ended at ``t`` seconds (a call): from ``in_air_grace`` seconds later, cards
        back in the zones are the players tidying up, not take-backs (:meth:`_taken_back`)."""
        if self.ended_at is None:
            self.ended_at = t

    def flush(self) -> list[dict[str, Any]]:
        """The source ended: the plays of every contested pair still held, as if its hold had
        passed, and the doubtful plays still kept back (``doubt_hold``) (play dicts as
        :meth:`update` returns, in time order)."""
        events = [ev for h in self._held for ev in self._expired(h)]
        events += [ev for _, ev in self._doubtful]
        self._held, self._doubtful = [], []
        return sorted(events, key=lambda e: e["t"])

    def update(self, look: Look) -> list[dict[str, Any]]:
        """Feed one look; return the events confirmed by it (``play`` / ``take_back`` dicts of
        the contract, in time order; ``confidence`` on plays)."""
        shared: list[Sighting] = []
        by_zone: dict[str, list[Sighting]] = {}
        for s in look.faces:
            s = Sighting(s.label, s.prob, s.quad, boxes_overlap(s.box, look.hands), s.whole, s.alts)
            w = self.where(s)
            if w == "shared":
                if s.label == "JK" and not self.table.rules.jokers:
                    s = _without_joker(s)
                    if s is None:
                        continue
                shared.append(s)
            elif w is not None and (s.whole or self.settings.zone_strips):
                by_zone.setdefault(w, []).append(s)
            elif w is None and s.prob >= self.settings.flight_prob:
                self._flight.append((look.t, s.label, s.prob, s.pose[0]))  # a card on its way
        while self._flight and self._flight[0][0] < look.t - self.settings.flight_window - 1.0:
            self._flight.popleft()
        self.hand_tracks.update(look.frame, look.t, look.hands, look.hand_players)
        if self.hands_seen is not None:
            self.hands_seen(look.frame, look.hands, self.hand_tracks.arms)
        returned = self.zone_cards.update(look, by_zone)
        events: list[dict[str, Any]] = []
        cands = self.piles.update(look, shared, self.hand_tracks.arms)
        # the plays whose card left a zone are attributed first, so that the weaker rules
        # know who is busy (``one_hand``)
        cands.sort(key=lambda c: not self.zone_cards.vanished(c.label, c.t_seen, self.settings.vanish_window))
        for cand in cands:
            t = self.arrival(cand) if self.arrival else cand.t_seen
            if cand.kind == "take_back":
                owners = self._owner_of_pile_card.get((cand.pile, cand.label)) or []
                if self._withdraw_doubtful(cand, owners):
                    continue
                player = owners.pop() if owners else None
                if player is not None:
                    events.append({"t": round(t, 4), "type": "take_back", "player": player,
                                   "card": cand.label, "pile": cand.pile})
                continue
            cand = self._legal_from_zones(cand, t)
            skipped, t = self._skipped(cand, t)
            for covered, t_covered in skipped:
                self._report(covered, t_covered, look, events, 0.7)
            self._report(cand, t, look, events)
        returned = [r for r in returned if not self._settle_held(r, look, events)]
        for h in [h for h in self._held if look.t >= h.until]:
            if self.settings.settle_seen_once and self._settle_seen_once(h, look, events):
                continue
            self._held.remove(h)
            events.extend(self._expired(h))
        if self.settings.infer_take_backs:
            events.extend(self._taken_back(returned, look))
        events = self._hold_doubtful(events, look.t)
        return sorted(events, key=lambda e: e["t"])

    def _hold_doubtful(self, events: list[dict[str, Any]], now: float) -> list[dict[str, Any]]:
        """``events`` less the plays of confidence under ``doubt_below`` (kept back for
        ``doubt_hold`` seconds from ``now``, the look's time: :meth:`_withdraw_doubtful`), plus
        the plays kept back before whose time is up or whose card another event takes back
        (reported first, so the take-back has its play)."""
        st = self.settings
        if st.doubt_hold <= 0:
            return events
        out = []
        for ev in events:
            if ev["type"] == "play" and ev.get("confidence", 1.0) < st.doubt_below:
                self._doubtful.append((now + st.doubt_hold, ev))
            else:
                out.append(ev)
        backs = {(ev["pile"], ev["card"], ev["player"]) for ev in out if ev["type"] == "take_back"}
        for item in list(self._doubtful):
            until, ev = item
            if now >= until or (ev["pile"], ev["card"], ev["player"]) in backs:
                self._doubtful.remove(item)
                out.append(ev)
        return out

    def _withdraw_doubtful(self, cand: PlayCandidate, owners: list[str]) -> bool:
        """Whether the pile's take-back ``cand`` (its top card gone, the card under it seen
        again) undoes a play still kept back as doubtful (:meth:`_hold_doubtful`): the top was
        another card misread for a moment, not a play; the play is dropped with its owner
        (``owners``, the pile card's credited players, loses it) and nothing is reported."""
        for item in reversed(self._doubtful):
            _, ev = item
            if ev["pile"] == cand.pile and ev["card"] == cand.label and owners and owners[-1] == ev["player"]:
                self._doubtful.remove(item)
                owners.pop()
                for p in reversed(self._plays):
                    if p["pile"] == ev["pile"] and p["card"] == ev["card"] and p["player"] == ev["player"]:
                        self._plays.remove(p)
                        break
                return True
        return False

    def _report(self, cand: PlayCandidate, t: float, look: Look, events: list[dict[str, Any]],
                scale: float = 1.0) -> None:
        """Attribute the new pile card ``cand``, landed at ``t`` seconds, and append its play
        event(s) to ``events`` (a contested pair's second copy is held); ``scale`` multiplies
        the confidence (plays inferred rather than seen)."""
        held = next((h for h in self._held if h.card == cand.label and h.pile != cand.pile), None)
        if held is not None and held.how == "third":
            # the third copy of a collision went to another pile: the copy that stayed alone
            self._held.remove(held)
            events.append(self._held_play(held, held.t))
            attributed = self._attribute(cand, t)
        elif held is not None:
            # the held copy of a "contested pair" went to another pile: no contest after all
            self._held.remove(held)
            if held.both and self._split(held, cand, t):
                # the hand tracks, or the landings' order, put the first copy on the other pile
                held = replace(held, first=held.player, player=held.first,
                               first_confidence=held.confidence, confidence=held.first_confidence)
            if held.both:
                events.append(self._held_play(held, held.t, first=True))
            attributed = [(held.player, held.confidence, 0.0)]
        else:
            attributed = self._attribute(cand, t)
        if len(attributed) == 2:
            # a contested pair: hold both (``hold_both``; else report the one whose copy left
            # first now and hold the other) until one of the two copies comes back to its
            # zone (the loser) or ``hold`` passes (:meth:`_expired`)
            both = self.settings.hold_both
            if self.settings.pair_on is not None and self.pair_landing is not None:
                t = min(t, self.pair_landing(cand, self.settings.pair_on))
            self._held.append(_HeldPair(cand.pile, cand.label, attributed[1][0], attributed[0][0], t,
                                        attributed[1][1] * scale, attributed[0][1] * scale,
                                        look.t + self.settings.hold, cand, both, self._contest_track,
                                        self._contest_how, self._contest_third))
            attributed = [] if both else attributed[:1]
        for player, conf, dt in attributed:
            self._owner_of_pile_card.setdefault((cand.pile, cand.label), []).append(player)
            ev = {"t": round(t + dt, 4), "type": "play", "player": player, "card": cand.label,
                  "pile": cand.pile, "confidence": round(conf * scale, 3)}
            self._plays.append(dict(ev, _cand=cand))
            events.append(ev)

    def _skipped(self, cand: PlayCandidate, t: float) -> tuple[list[tuple[PlayCandidate, float]], float]:
        """The cards a clearly read new pile card ``cand`` (landed at ``t`` seconds) skips, when
        each of them left a zone (seen there in at least ``zone_confirm`` looks, counting the
        stay before a glimpse of it back: :meth:`ZoneTracker.looks_seen`; r9280's yellow 5S,
        hidden by an arm, seen once more, then played, was missed with perfect eyes: tuning
        rounds 812 -> 813 of 845 that way, models level on every set) within
        ``vanish_window`` seconds: they went on the pile and were covered before a look could
        confirm them (``RULES.md``: a foundation is built up in suit from the ace, so a 5D on
        a 3D means a 4D under it). At most ``max_skipped`` cards, inferred as plays under
        ``cand`` on the pile: the last one landed when the frames show it (``covered_landing``:
        the still pile before the hand bringing ``cand`` came over it), else 0.2 s before
        ``cand`` (0.21 s was the closest two plays of one hand came in the rendered rounds of
        2026-12-02), and each one before it 0.2 s before the next. On the 18 tuning rounds
        9268-9285 (2026-12-05, session 51), all 4 skipped cards with perfect eyes were timed
        3.8 to 12.5 frames late at 0.2 s (the next card came 0.34-0.62 s later); read from
        the frames, all within half a frame (with the models, 5 of 6: the sixth's covering
        card was itself timed 9.6 frames early). Plays all right, models: tuning rounds
        789 -> 794 of 845, older rounds 9250-9267 899 -> 900 of 939, rounds 9286-9297
        585 -> 589 of 651. None when a skipped card left no zone: then ``cand`` is an illegal
        play, for the referee to rule.

        ``t`` itself may be the skipped card's landing: the walk back for ``cand``'s arrival
        takes the covered card, as like it in grey as the old top is unlike it, for ``cand``
        (r9270's red 3D over the 2D no look confirmed, with the models: both timed at the
        2D's landing, 5 and 10 frames early). With skipped cards, ``cand``'s arrival is read
        again by ``covering_landing`` (a walk back that the hand bringing ``cand`` over the
        covered card stops), and the later of the two is kept; not when two zones showed
        ``cand``'s card at most ``cover_contest`` seconds before (a collision: the hand may be
        the other copy's). 18 tuning rounds 9268-9285 (2026-12-05, session 53), models, plays
        all right 794 -> 796 of 845 (re-read on contested cards too: also 796, with two plays
        of r9275 made 5 frames late and two others of r9284 made right); perfect eyes: no
        change (812).

        Returns:
            ``([(candidate, t)], t_cand)``: the skipped cards, in the order they landed (times
            in seconds; the pile's cards gain them under its top), and ``cand``'s arrival,
            seconds (``t`` unless read again)."""
        st = self.settings
        if st.max_skipped < 1 or cand.kind != "play" or cand.prob < st.weak_read:
            return [], t
        p = self.piles.pile(cand.pile)
        if p is None or p.top.label != cand.label:
            return [], t
        try:
            card = Card.parse(cand.label)
            below = Card.parse(p.cards[-2].label) if len(p.cards) >= 2 else None
        except ValueError:
            return [], t
        if card.rank is None or (below is not None and (below.rank is None or below.suit != card.suit)):
            return [], t
        nxt = below.next_up() if below is not None else Card.parse(f"A{cand.label[-1]}")
        missing: list[str] = []
        while nxt is not None and nxt != card and len(missing) <= st.max_skipped:
            missing.append(str(nxt))
            nxt = nxt.next_up()
        if nxt != card or not missing or len(missing) > st.max_skipped:
            return [], t
        for label in missing:
            if not any(self.zone_cards.looks_seen(f[0], label) >= st.zone_confirm
                       for f in self.zone_cards.vanished(label, t, st.vanish_window)):
                return [], t
        # read ``cand``'s arrival again, unless another zone lost its card too: the hand over
        # the pile after it may then be the other copy's (a collision), not the one that
        # brought it (r9275's red 7S: yellow's came 5 frames after)
        contested = sum(t - last <= st.cover_contest for _, last, _ in
                        self.zone_cards.vanished(cand.label, t, st.vanish_window)) > 1
        again = self.covering_landing(cand) if self.covering_landing is not None and not contested else None
        if again is not None and again > t:
            t = again
        # the last skipped card's landing read from the frames (the still pile before the
        # next hand came over it), else 0.2 s before the card over it; one before another 0.2 s
        last = self.covered_landing(cand, t) if self.covered_landing is not None else None
        last = t - 0.2 if last is None else last
        out = []
        for k, label in enumerate(missing):
            tk = last - (len(missing) - 1 - k) * 0.2
            p.cards.insert(len(p.cards) - 1, _Card(label, cand.quad, tk, cand.frame_seen))
            out.append((replace(cand, label=label, t_seen=tk), tk))
        return out, t

    def _legal_from_zones(self, cand: PlayCandidate, t: float) -> PlayCandidate:
        """A new pile card read weakly (under ``weak_read``) as one that may not legally go
        there (``RULES.md``: the next card of the pile's suit; an ace for a new pile), of which
        no zone lost a copy in the last ``stale_vanish`` seconds, while exactly one card that
        may go there left a zone (seen there in at least ``zone_confirm`` looks) within
        ``vanish_window`` seconds before the landing at ``t``: it is that card, misread on the
        pile (the rules and the zones agree, the classifier alone disagrees; ``zone_legal``).
        The pile keeps the reading as the card's other name (:meth:`_Card.is_`), so the same
        misreading in later looks is the same card. A card read as illegal that did leave a
        zone stays illegal, for the referee. Returns ``cand``, or a copy with the new label."""
        st = self.settings
        if not st.zone_legal or cand.kind != "play" or cand.prob >= st.weak_read:
            return cand  # read clearly: an illegal card, or a card on one the pile never showed
        p = self.piles.pile(cand.pile)
        if p is None or p.top.label != cand.label:
            return cand
        legal = _next_on(p.cards[-2].label) if len(p.cards) >= 2 else _ACES
        if not legal or cand.label in legal:
            return cand
        if any(t - f[1] <= st.stale_vanish for f in self.zone_cards.vanished(cand.label, t, st.vanish_window)):
            return cand  # a copy of what was read just left a zone: perhaps an illegal play
        left = [c for c in legal
                if any(f[2] >= st.zone_confirm for f in self.zone_cards.vanished(c, t, st.vanish_window))]
        if len(left) != 1:
            return cand
        p.top.read_as, p.top.label = cand.label, left[0]
        return replace(cand, label=left[0])

    def _second_arrival(self, pile: int, label: str, t_first: float, until: float) -> float | None:
        """When the second copy of ``label`` landed on ``pile``, the first having landed at
        ``t_first`` and the second been taken back by ``until`` (seconds): read from the
        motion over the pile (``second_landing``), and never less than one frame past the tie
        window after the first (the copy came back, so it was second).

        When another card was laid on the pile in between (the loser's copy pulled out from
        under it afterwards; that card's play may itself be a held contested pair), the second
        copy landed before that card: the motion is read up to one frame before it (the last
        hand that came and went), and the time is never later. Read up to the take-back
        instead, that card's landing was taken for the copy's, and the referee, seeing the
        copy after the pile had moved on, ruled no collision (20 tuning rounds, perfect eyes:
        4 such plays, 2 collisions).

        None when no second landing shows in the motion (or there is none to read); callers
        then use one frame past the tie window after the first (:meth:`_after_tie`) or, for a
        held pair, the landing itself (``second_unseen_at_landing``)."""
        least = self._after_tie(t_first)
        p = self.piles.pile(pile)
        if p is None or self.second_landing is None:
            return None
        landed = [(e["pile"], e["card"], e["t"]) for e in self._plays]
        landed += [(h.pile, h.card, h.t) for h in self._held]  # another contested pair's landing
        later = [t for p_, c, t in landed if p_ == pile and c != label and t_first + 1e-3 < t < until]
        t = None
        if later:
            before = min(later) - 1 / 30
            t = self.second_landing(p.top.quad, t_first, before, taken_back=False)
        if t is None:
            t = self.second_landing(p.top.quad, t_first, until)
        if t is None:
            return None
        return max(min(t, before) if later else t, least)

    def _after_tie(self, t: float) -> float:
        """One frame past the tie window after ``t`` seconds: the earliest a copy that lost a
        collision to a card landed at ``t`` can have landed."""
        return t + self.table.rules.tie_window + 1 / 30

    def _second_seen(self, pile: int, t_first: float, until: float) -> bool:
        """Whether the motion over ``pile`` between ``t_first`` and ``until`` seconds shows a
        second landing before a take-back (``second_landing`` finds one); True when there are
        no frames to read it from. A copy back in its zone with no such motion was carried
        and brought back without reaching the pile (a reach that turned back) or misread:
        12 rendered rounds with the models: the two such inferences without it were both
        wrong, and none of the right ones lacked it."""
        p = self.piles.pile(pile)
        if p is None or self.second_landing is None:
            return True
        return self.second_landing(p.top.quad, t_first, until) is not None

    def _track_of(self, cand: PlayCandidate) -> tuple[str, float] | None:
        """The hand that laid ``cand``'s card down, ``(player, confidence)`` or None
        (:meth:`nertz.vision.hands.HandTracker.owner_of` over the looks between the pile's last
        settled state, ``frame_before``, and the first look that showed the card)."""
        return self.hand_tracks.owner_of(cand.box, cand.frame_before, cand.frame_seen)

    def _split(self, held: _HeldPair, cand: PlayCandidate, t: float) -> bool:
        """Whether a held contested pair ``held``, whose card ``cand`` shows on another pile
        (landed at ``t`` seconds), splits the other way round: the copy that left second stays
        on the held pile and the first goes to ``cand``'s. Sure hand tracks decide
        (``split_by_track``): the held pile's naming the second copy's zone or the other
        pile's naming the first's says "split", the held pile's naming the first's or the
        other's naming the second's says "keep"; when they say neither, or both, the landings'
        order (``split_by_landing``): the copy that left first landed first. Otherwise the
        copy that left first stays on the held pile."""
        st = self.settings
        if st.split_by_track:
            on_held, on_new = self._track_of(held.cand), self._track_of(cand)
            first, second = held.first, held.player
            split = (_sure_track(on_held) and on_held[0] == second) or (_sure_track(on_new) and on_new[0] == first)
            keep = (_sure_track(on_held) and on_held[0] == first) or (_sure_track(on_new) and on_new[0] == second)
            if split != keep:
                return split
        return st.split_by_landing is not None and t < held.t - st.split_by_landing

    def _held_play(self, h: _HeldPair, t: float, first: bool = False) -> dict[str, Any]:
        """The held play of a contested pair ``h`` (its first copy's with ``first``),
        reported at ``t`` seconds."""
        who, conf = (h.first, h.first_confidence) if first else (h.player, h.confidence)
        self._owner_of_pile_card.setdefault((h.pile, h.card), []).append(who)
        ev = {"t": round(t, 4), "type": "play", "player": who, "card": h.card,
              "pile": h.pile, "confidence": round(conf, 3)}
        self._plays.append(dict(ev, _cand=h.cand))
        return ev

    def _expired(self, h: _HeldPair) -> list[dict[str, Any]]:
        """The plays of a held contested pair ``h`` whose hold passed with neither copy back:
        both, at the landing (a tie), unless a sure hand track named one of the two players
        (``contest_track``: then only that one; while the first copy is reported at once,
        only when it names the first), one copy was still in its zone at the landing
        (``still_there``: only the other), only one of the two players' hands came over the
        card (``lone_hand``: only that one) or, with ``contest_later``, only the copy that left
        its zone last."""
        st = self.settings
        if h.how == "third":
            return [self._held_play(h, h.t)]  # the copy that stayed; the third may never have left
        track = h.track[0] if st.contest_track and h.track is not None else None
        if not h.both:
            return [] if track == h.first else [self._held_play(h, h.t)]
        if track in (h.first, h.player):
            return [self._held_play(h, h.t, first=track == h.first)]
        if st.still_there > 0:
            late = [name for name in (h.first, h.player) if self._still_there(name, h.card, h.t)]
            if len(late) == 1:
                return [self._held_play(h, h.t, first=late[0] == h.player)]
        lone = self._lone_hand(h) if st.lone_hand is not None and h.how == "contested" else None
        if lone is not None:
            return [self._held_play(h, h.t, first=lone == h.first)]
        if st.contest_later:
            return [self._held_play(h, h.t)]
        return [self._held_play(h, h.t, first=True), self._held_play(h, h.t)]

    def _lone_hand(self, h: _HeldPair) -> str | None:
        """The one player of the held contested pair ``h`` whose hand laid its card down, when
        the sure hand track over the card (:meth:`_track_of`) names one of the two and no hand
        from the other's zone (nor, with ``lone_unknown``, of unknown origin) came over the
        card between ``lone_hand[0]`` looks before the pile's last settled look and
        ``lone_hand[1]`` looks after the first look that showed the card
        (:meth:`nertz.vision.hands.HandTracker.origins`), and (``lone_home``) the other's
        hand was seen in their zone in every look of that window; else None (a tie stays
        possible). See :class:`TrackerSettings` ``lone_hand``."""
        cand: PlayCandidate = h.cand
        track = self._track_of(cand)
        if not _sure_track(track) or track[0] not in (h.first, h.player):
            return None
        other = h.player if track[0] == h.first else h.first
        before, after = self.settings.lone_hand
        frames = [f for f, _ in self.hand_tracks.looks]
        earlier = [f for f in frames if f <= cand.frame_before]
        later = [f for f in frames if f >= cand.frame_seen]
        lo = earlier[-1 - before] if len(earlier) > before else (frames[0] if frames else cand.frame_before)
        hi = later[after] if len(later) > after else (frames[-1] if frames else cand.frame_seen)
        box = cand.box
        if self.hand_tracks.origins(box, lo, hi) & ({other, None} if self.settings.lone_unknown else {other}):
            return None  # a hand from the other's zone, or of unknown origin, came over the card
        if self.settings.lone_home and not self.hand_tracks.stayed_in(other, lo, hi):
            return None  # the other's hand was not seen at home throughout: it may have come
        return track[0]

    def _still_there(self, name: str, label: str, t: float) -> bool:
        """Whether ``name``'s copy of ``label`` was last seen in its zone less than
        ``still_there`` seconds before the landing at ``t`` (or after it, in the same stay in
        the zone: a copy seen back later is a return, not this): too late to have been carried
        to the pile (see :class:`TrackerSettings`)."""
        zc = self.zone_cards.cards.get(name, {}).get(label)
        return zc is not None and zc.first_seen_t <= t and zc.last_seen_t > t - self.settings.still_there

    def _covered_only(self, name: str, label: str, moved: bool, others: Sequence[str]) -> bool:
        """``name``'s copy of ``label``, back in its zone, was never seen moving while one of
        ``others``' copies was seen carried: it was covered where it lay (an arm, a card passing
        over it), not played and taken back."""
        return not moved and any(self.zone_cards.moved(o, label) for o in others if o != name)

    def _settle_held(self, ret: Returned, look: Look, events: list[dict[str, Any]]) -> bool:
        """A copy of a held contested pair back in its zone: that player lost. Their play is
        reported just after the other's (beyond the tie window) and then their take-back; but a
        held copy seen back sooner than ``return_after`` after the landing was only hidden, no
        play at all (12 rendered rounds: of the held copies the older rule, "never seen moving
        while the other was seen carried", called covered, 1 was and 5 were true collisions,
        all 5 back 0.5 s or more after the landing, the hidden one after 0.1 s); so was one
        gone from its zone for less than ``min_gone``. True when ``ret`` settled a held pair."""
        name, label = ret[0], ret[1]
        if ret.hidden:
            return False
        gap = self.table.rules.tie_window + self.settings.winner_margin
        for h in self._held:
            if h.card != label or name not in (h.player, h.first):
                continue
            self._held.remove(h)
            held_back = name == h.player
            carried = self.settings.left_when_carried and ret.moved and ret.left_t is not None
            left = ret.left_t if carried else ret.gone_t
            brief = (ret.back_t - h.t < self.settings.return_after
                     or ret.back_t - left < self.settings.min_gone)
            lone = (self._lone_hand(h) if not brief and h.both and h.how == "contested"
                    and self.settings.settle_lone and self.settings.lone_hand is not None else None)
            if lone is not None:
                # only one of the two players' hands came to the pile (``settle_lone``): the
                # copy back in its zone had been covered there, or was another card misread;
                # the lone hand's play alone, at the landing, and no take-back
                events.append(self._held_play(h, h.t, first=lone == h.first))
                return True
            if brief and (held_back or h.both):
                # back too soon: only hidden, no play for it; the other copy alone was played,
                # at the landing (already reported unless both were held)
                if h.both:
                    events.append(self._held_play(h, h.t, first=held_back))
                return True
            # that player was second (a collision) and took the card back: the held copy's
            # play is timed by the second landing, or the first copy's just before the other's
            until = ret.back_t if self.settings.second_until_back else look.t
            if h.how == "third":
                t2 = h.t2  # the first loser's landing (later motion over the pile is its take-back)
            else:
                t2 = (self._second_arrival(h.pile, h.card, h.t, until)
                      if held_back or (h.both and self.settings.loser_second) else None)
            if (t2 is None and h.both and self.settings.settle_unseen
                    and (held_back or self.settings.loser_second)
                    and self._hands_from_elsewhere(name, h.cand, look.frame)):
                # no second landing in the motion, and the hands over the card came from other
                # zones: the returning copy never went (covered where it lay); the other's play alone
                events.append(self._held_play(h, h.t, first=held_back))
                return True
            if h.third is not None and h.both:
                # a third copy left with the pair's (``contest_third``): the returning copy
                # lost, timed as a held copy is; the pile's card is the other's or the
                # third's, held again until one of them comes back (or its hold passes: the
                # other's alone)
                t2 = self._after_tie(h.t) if t2 is None else t2
                events.append(self._held_play(h, t2, first=not held_back))
                self._hold_third(h, held_back, t2, look)
            elif held_back and t2 is None and h.both and self.settings.second_unseen_at_landing:
                # no second landing in the motion after the first: both copies were down by the
                # landing read from the pixels, which is then the second copy's; the first
                # landed just before it
                events.append(self._held_play(h, h.t - gap, first=True))
                events.append(self._held_play(h, h.t))
            elif held_back:
                if h.both:
                    events.append(self._held_play(h, h.t, first=True))
                events.append(self._held_play(h, self._after_tie(h.t) if t2 is None else t2))
            elif h.both and self.settings.loser_second and t2 is not None:
                # the copy credited first came back: the other landed first (at the landing),
                # the returning one second, timed as above (when its landing shows in the
                # motion after the first; else both landed before the pile was read, as below)
                events.append(self._held_play(h, h.t))
                events.append(self._held_play(h, t2, first=True))
            else:
                events.append(self._held_play(h, h.t - gap))
                if h.both:
                    events.append(self._held_play(h, h.t, first=True))
            owners = self._owner_of_pile_card.get((h.pile, label), [])
            if name in owners:
                owners.remove(name)
            events.append(self._take_back(look.t, name, label, h.pile))
            return True
        return False

    def _hold_third(self, h: _HeldPair, held_back: bool, t2: float, look: Look) -> None:
        """Hold a new contested pair after one copy of the held pair ``h`` came back, when a
        third copy left with the two (``contest_third``): the copy that stays (``h``'s first
        when ``held_back``, else its second) and the third, credited first (it left first, so
        it is the likelier winner), held ``hold`` seconds from ``look``. :meth:`_settle_held`
        settles it as any pair, a loser timed at ``t2`` (seconds), the landing read for the
        first loser (the motion over the pile after it is that loser's take-back); when its
        hold passes with neither back, :meth:`_expired` reports the copy that stayed alone,
        at the landing (the third copy may never have left for the pile)."""
        stay, conf = (h.first, h.first_confidence) if held_back else (h.player, h.confidence)
        self.zone_cards.use(h.third, h.card)
        self._held.append(replace(h, first=h.third, first_confidence=conf, player=stay, confidence=conf,
                                  until=look.t + self.settings.hold, track=None, how="third", third=None, t2=t2))

    def _settle_seen_once(self, h: _HeldPair, look: Look, events: list[dict[str, Any]]) -> bool:
        """A held contested pair ``h`` whose hold passed: if one of its copies has been seen
        back in its zone in one look (clearly, ``return_prob``) though not yet in the
        ``zone_confirm`` looks that report a return (a hand over the zone again), settle it by
        that copy as :meth:`_settle_held` does (the return is then not reported again). When
        both were seen back, the one seen first. True when settled."""
        pending = [r for r in (self.zone_cards.seen_back_once(n, h.card, self.settings.return_prob)
                               for n in (h.player, h.first)) if r is not None]
        if not pending:
            return False
        ret = min(pending, key=lambda r: (r.back_t, r.player))
        self.zone_cards.take_return(ret.player, ret.card)
        return self._settle_held(ret, look, events)

    def _take_back(self, t: float, name: str, label: str, pile: int) -> dict[str, Any]:
        """The take-back event of ``name``'s ``label`` from ``pile`` at ``t`` seconds, inferred
        from the copy back in their zone (recorded: one copy comes back once)."""
        self._took_back.add((name, label, pile))
        return {"t": round(t, 4), "type": "take_back", "player": name, "card": label, "pile": pile}

    def _still_on_pile(self, ev: dict[str, Any], tops: dict[int, str]) -> bool:
        """Whether the card of play ``ev`` may still lie on its pile (``tops``: pile -> top
        card): it is the top, or the top was laid there after it (a collision's loser may pull
        their copy out from under the next card: 9 of the 79 take-backs of the 32 rendered
        rounds)."""
        top = tops.get(ev["pile"])
        if top is None:
            return False
        return top == ev["card"] or any(p["pile"] == ev["pile"] and p["card"] == top and p["t"] > ev["t"]
                                        for p in self._plays)

    def _taken_back(self, returned: list[Returned], look: Look) -> list[dict[str, Any]]:
        """A card back in its player's zone shortly after the same card landed on a pile that
        still holds it (:meth:`_still_on_pile`; read back clearly, ``return_prob``, and first
        seen back no sooner than ``return_after`` after the landing): that player's copy went on the pile and was taken
        back (the loser of a contested play). If another player was credited with the pile's
        card, the returning player played second: their play (just after the other, beyond the tie window) and the
        take-back are reported. If the returning player was the one credited, theirs was the
        second copy: the take-back is reported, and the card left on the pile is given to the
        other player whose copy vanished (or, weakly, whose hand was over the pile); when there
        is none, nothing is reported (``orphan_take_back``). A copy
        that was only hidden (:class:`Returned` ``hidden``, ``hidden_return``) counts only for
        a player not credited with the pile's card and only when a hand from their zone went
        over the pile after its state before the landing."""
        st = self.settings
        out: list[dict[str, Any]] = []
        tops = {pile: label for pile, label, _, _ in self.pile_tops()}
        if self.ended_at is not None and look.t > self.ended_at + self.table.rules.in_air_grace:
            return out
        for name, label, gone_t, seen, moved, back_t, prob, hidden, left_t in returned:
            if seen < st.zone_confirm or not (0.25 <= look.t - gone_t <= st.return_window):
                continue
            if prob < st.return_prob:
                continue
            if (st.flicker and prob < st.sure_once
                    and self.zone_cards.backs(name, label, look.t - st.flicker_window) >= st.flicker):
                continue  # read on and off in that zone: not a card taken back from a pile
            until = back_t if st.second_until_back else look.t
            for ev in reversed(self._plays):
                if ev["card"] != label or ev.get("_answered") or not self._still_on_pile(ev, tops):
                    continue
                if (name, label, ev["pile"]) in self._took_back:
                    continue  # that copy's take-back was reported (a held pair settled by it)
                if not (gone_t - 1.0 <= ev["t"] <= back_t - st.return_after):
                    continue
                owners = self._owner_of_pile_card.setdefault((ev["pile"], label), [])
                if hidden and name in owners:
                    continue  # a credited copy seen again in its zone was never carried off
                if hidden and not self._hand_from(name, ev, look.frame):
                    continue  # no hand of theirs went over the pile while their copy was hidden
                covered = self._covered_only(name, label, moved, owners)
                # a covered copy is a collision's loser after all when the motion shows its landing
                t2 = self._second_arrival(ev["pile"], label, ev["t"], until) if covered and st.covered_unless_second else None
                if covered and t2 is None:
                    continue
                if st.one_copy and name not in owners and name in self._on_foundations(label):
                    continue  # their copy lies on another foundation: this one is another card misread
                if st.loser_hand and name not in owners and self._hands_from_elsewhere(name, ev["_cand"], look.frame):
                    continue  # the hands over the pile since came from other zones: theirs was covered
                if name not in owners and not self._second_seen(ev["pile"], ev["t"], until):
                    continue  # no second hand came and went over the pile: the copy never left for it
                if not covered:  # (else read above: the same landing)
                    t2 = self._second_arrival(ev["pile"], label, ev["t"], until) if name not in owners else None
                t_play = None if name in owners else round(self._after_tie(ev["t"]) if t2 is None else t2, 4)
                if t_play is not None and st.busy_vanished <= 1.0 and name in self._busy(t_play):
                    continue  # their hand was laying another card down then: their copy was only covered
                if (st.left_before_landing is not None and t2 is not None and not moved
                        and left_t is not None and left_t > t2 - st.left_before_landing):
                    continue  # never seen carried, and still in its zone when the second copy landed
                if (st.min_round_trip is not None and t_play is not None and left_t is not None
                        and back_t - left_t < st.min_round_trip):
                    continue  # back too soon after it was last seen there to have gone to the pile and back
                ev["_answered"] = True
                if t_play is not None:
                    out.append({"t": t_play, "type": "play", "player": name, "card": label, "pile": ev["pile"],
                                "confidence": round(0.7 * ev["confidence"], 3)})
                    out.append(self._take_back(look.t, name, label, ev["pile"]))
                    break
                # the credited player took theirs back: the pile's copy is someone else's, laid
                # before that player's own (not before the latest copy: of three copies, the
                # second's play may be the latest on the pile)
                own = next((p for p in reversed(self._plays) if p["card"] == label and p["pile"] == ev["pile"]
                            and p["player"] == name), ev)
                guess = None
                if owners == [name]:
                    skip = {name} | (self._on_foundations(label) if st.one_copy else set())
                    others = [f for f in self.zone_cards.vanished(label, own["t"], st.vanish_window) if f[0] not in skip]
                    others.sort(key=lambda f: f[2] < st.zone_confirm)  # copies seen in several looks first
                    guess = (others[0][0], 0.8) if others else self._hand_guess(own["_cand"], exclude=skip)
                    if guess is None and not st.orphan_take_back:
                        break  # nobody else can own the pile's copy: theirs never came back
                if name in owners:
                    owners.remove(name)
                out.append(self._take_back(look.t, name, label, ev["pile"]))
                if owners:
                    break  # a contested pair: the other one is already reported
                if guess is not None:
                    if others:
                        self.zone_cards.use(guess[0], label)
                    owners.append(guess[0])
                    t_first = own["t"] - self.table.rules.tie_window - st.winner_margin
                    out.append({"t": round(t_first, 4), "type": "play",
                                "player": guess[0], "card": label, "pile": ev["pile"],
                                "confidence": round(min(guess[1], 0.7) * own["confidence"], 3)})
                break
        return out

    def _attribute(self, cand: PlayCandidate, t: float) -> list[tuple[str, float, float]]:
        """The owner(s) of a new foundation card landed at ``t`` seconds: ``[(player,
        confidence, seconds to add to t)]``, two for a contested pair, none when the table has
        no zone. The rules of the module docstring are tried in order, the first that names
        someone decides (recorded in :attr:`attributions`)."""
        st = self.settings
        track = self._track_of(cand)
        busy = self._busy(t)
        if track is not None and track[0] in busy:
            track = None  # that player's hand was laying another card down
        # one deck each (RULES.md): a player whose copy of this card lies on a foundation has
        # no other to play; their zone's "copy" was another card misread
        owned = self._on_foundations(cand.label) if st.one_copy else set()
        busy |= owned
        if track is not None and track[0] in owned:
            track = None
        found = [f for f in self.zone_cards.vanished(cand.label, t, st.vanish_window) if f[0] not in owned]
        sure_busy = self._busy(t, st.busy_vanished)  # empty when busy_vanished is over 1 (off)
        found = [f for f in found if f[0] not in sure_busy]
        sure = [f for f in found if f[2] >= st.zone_confirm]
        ev = _Evidence(cand, t, cand.prob, found, sure, track, busy)
        for rule in (self._by_contest, self._by_vanished, self._by_hidden, self._by_track, self._by_runner_up,
                     self._by_flight, self._by_misread, self._by_seen_once, self._by_hand):
            found = rule(ev)
            if found is not None:
                return self._how(cand, t, *found)
        # nobody seen: still report the card (the pile must not lose it), for review
        near = self._nearest_zone(cand.quad, busy)
        return self._how(cand, t, "nearest", [(near, 0.2 * cand.prob, 0.0)] if near is not None else [])

    def _busy(self, t: float, least: float = 0.0) -> set[str]:
        """The players with a reported play (of confidence at least ``least``) within
        ``one_hand`` seconds of ``t`` (seconds): busy laying another card down."""
        return {p["player"] for p in self._plays
                if abs(p["t"] - t) < self.settings.one_hand and p["confidence"] >= least}

    def _on_foundations(self, label: str) -> set[str]:
        """The players credited with a copy of ``label`` still on a foundation."""
        return {name for (_, card), owners in self._owner_of_pile_card.items() if card == label for name in owners}

    def _by_contest(self, ev: _Evidence) -> _Ruled:
        """The same card left two zones at about the same time and the pile showed it only
        once it was down: which copy came first cannot be seen at this look rate, so both are
        reported at the same time (the referee's tie rule decides; both go to review). When
        one of the two copies was read under ``contest_prob``, only the other is reported. A
        copy still seen in its zone well after the landing is none of the two
        (``contest_fresh``)."""
        sure = ev.sure
        if self.settings.glimpse_contest is not None:
            # a copy seen since it left only in a glimpse read weakly (perhaps another card in
            # the hand) is not known to be in flight
            sure = [f for f in sure if not self.zone_cards.glimpse(f[0], ev.cand.label)
                    or self.zone_cards.cards[f[0]][ev.cand.label].prob >= self.settings.glimpse_contest]
        if self.settings.contest_fresh and self.settings.seen_after_landing is not None:
            sure = [f for f in sure if f[1] <= ev.t + self.settings.seen_after_landing]
        if len(sure) < 2 or sure[0][1] - sure[1][1] > self.settings.contest_window:
            return None
        probs = [self.zone_cards.read_prob(name, ev.cand.label) for name, _, _ in sure[:2]]
        if min(probs) < self.settings.contest_prob:
            # one copy was read weakly (a misreading of another card, often): no contest, the
            # copy read surely left (20 tuning rounds with the models: extra plays 10 -> 8,
            # all right 877 -> 878 of 982; 12 clean rounds: extra 9 -> 6, all right level;
            # that was at 0.5, ``weak_read``: ``contest_prob`` has its own figures)
            name = sure[0][0] if probs[0] >= probs[1] else sure[1][0]
            self.zone_cards.use(name, ev.cand.label)
            return "vanished", [(name, 0.8 * ev.prob, 0.0)]
        ruled = self._contested(ev, (sure[1][0], sure[0][0]), "contested", ev.track if _sure_track(ev.track) else None)
        if self.settings.contest_third:
            third = next((f for f in sure[2:] if sure[0][1] - f[1] <= self.settings.contest_window
                          and self.zone_cards.read_prob(f[0], ev.cand.label) >= self.settings.contest_prob), None)
            if third is not None:
                self._contest_third = third[0]
        return ruled

    def _contested(self, ev: _Evidence, names: tuple[str, str], how: str,
                   track: tuple[str, float] | None) -> _Ruled:
        """Both ``names``' copies of the card went (the one that left first first): a contested
        pair (:meth:`_report` holds it), both copies used; ``track`` is the sure hand track
        kept with the pair for :meth:`_expired` (None: not to drop either copy), and is not
        kept when the other copy left its zone less than ``track_gap`` seconds before the
        track's, by the landing."""
        gap = self.settings.track_gap
        if track is not None and gap > 0 and track[0] in names:
            other = names[0] if names[1] == track[0] else names[1]
            left = {n: self.zone_cards.cards[n][ev.cand.label].last_seen_t for n in names}
            if left[track[0]] - left[other] < gap and left[other] <= ev.t:
                # the other copy left about when the track's did (or after, but before the
                # landing): both players reached for the pile, a tie the hand tracks saw only
                # one hand of (a copy still in its zone at the landing cannot have tied)
                track = None
        for name in names:
            self.zone_cards.use(name, ev.cand.label)
        self._contest_track = track  # read by _report() for the held pair
        self._contest_how = how
        self._contest_third = None  # set by _by_contest when a third copy left with the two
        return how, [(name, 0.8 * ev.prob, 0.0) for name in names]

    def _by_vanished(self, ev: _Evidence) -> _Ruled:
        """The zone that lost it last (others lost theirs earlier: moved, or covered); a copy
        that left just before the landing before one that left long before, and a card seen in
        several looks before one seen once (perhaps a misreading). With ``hidden_contest``, a
        copy that left just before, when the hand that laid the card down came from a zone
        whose copy a hand hides since as recently, makes a contested pair with that one."""
        st, label, t = self.settings, ev.cand.label, ev.t
        fresh = [f for f in ev.found if t - f[1] <= st.stale_vanish]
        if st.seen_after_landing is not None:
            # a copy still seen in its zone after the card landed is not that card: the copies
            # that had left by then first (each group latest first, as found)
            fresh.sort(key=lambda f: f[1] > t + st.seen_after_landing)
        if st.carry_min is not None:
            # nor is one seen there too short a time before it landed to have been carried to
            # the pile: the copies that had left earlier first (stable: the groups above kept)
            fresh.sort(key=lambda f: f[1] > t - st.carry_min and not self.zone_cards.carried_glimpse(f[0], label))
        pick = ([f for f in fresh if f[2] >= st.zone_confirm] or fresh or ev.sure or [None])[0]
        if pick is None:
            return None
        if st.track_picks_fresh > 0 and len(fresh) >= 2 and _sure_track(ev.track):
            # two copies left zones just before: the one whose zone the hand that laid this
            # card down came from (the other is in flight to another pile, or was covered)
            pick = next((f for f in fresh if f[0] == ev.track[0] and t - f[1] <= st.track_picks_fresh
                         and (f[2] >= st.zone_confirm or pick[2] < st.zone_confirm or not st.track_picks_confirmed)), pick)
        name, last_seen, seen = pick
        prob = self.zone_cards.read_prob(name, label)
        weak = prob < st.weak_read or (seen < st.zone_confirm and prob < st.sure_once)
        if self._track_elsewhere(ev.track, name, t - last_seen > st.stale_vanish or weak):
            # it left long before the landing (covered by the player's own next card, more
            # often than carried slowly) and the hand that laid it down came from another
            # zone: that player's copy was not read in their zone. Likewise when the copy that
            # left was read weakly (a misreading of another card, more often than not, on small
            # cards: tuning rounds with the models, 8 of 35 such attributions had the hand
            # track pointing elsewhere, and it was right in 6)
            return "hand_track", [(ev.track[0], 0.6 * ev.prob, 0.0)]
        if t - last_seen > st.stale_vanish:
            hidden = [h for h in self.zone_cards.unseen_since(label, t, st.stale_vanish)
                      if h[0] not in ev.busy and h[0] != name and h[2] >= st.zone_confirm]
            if hidden:
                # a copy hidden by a hand just before the landing beats one gone long before,
                # unless the hand that laid the card down came from another zone
                if self._track_elsewhere(ev.track, hidden[0][0], st.hidden_loses_to_track):
                    return "hand_track", [(ev.track[0], 0.6 * ev.prob, 0.0)]
                self.zone_cards.use(hidden[0][0], label)
                return "unseen", [(hidden[0][0], 0.6 * ev.prob, 0.0)]
        if st.hidden_contest and _sure_track(ev.track) and ev.track[0] != name and t - last_seen <= st.contest_window:
            other = next((h for h in self.zone_cards.unseen_since(label, t, st.contest_window)
                          if h[0] == ev.track[0] and h[0] not in ev.busy and h[2] >= st.zone_confirm), None)
            if other is not None:
                # the hand that laid it down came from a zone whose copy a hand hides since
                # just before: both copies went (no track kept: it named one, the other left too)
                first, second = sorted([(name, last_seen), other[:2]], key=lambda f: f[1])
                return self._contested(ev, (first[0], second[0]), "contested_hidden", None)
        self.zone_cards.use(name, label)
        return "vanished", [(name, (0.97 if len(ev.found) == 1 else 0.9) * ev.prob, 0.0)]

    def _by_hidden(self, ev: _Evidence) -> _Ruled:
        """Not seen since it left (a hand still covers its place): the latest to show it; but
        it loses to the hand track from another zone (``hidden_loses_to_track``; else only
        when it was last seen long before), as a copy that
        vanished long before does. (Copies seen in a single look, long before, are a
        misreading as likely as not: weaker than this and the hand's track, ``_by_seen_once``.)"""
        st = self.settings
        hidden = [h for h in self.zone_cards.unseen_since(ev.cand.label, ev.t, st.vanish_window) if h[0] not in ev.busy]
        if not hidden:
            return None
        name, last_seen, _ = hidden[0]
        if self._track_elsewhere(ev.track, name, st.hidden_loses_to_track or ev.t - last_seen > st.stale_vanish):
            return "hand_track", [(ev.track[0], 0.6 * ev.prob, 0.0)]
        self.zone_cards.use(name, ev.cand.label)
        return "unseen", [(name, (0.9 if len(hidden) == 1 else 0.6) * ev.prob, 0.0)]

    def _by_track(self, ev: _Evidence) -> _Ruled:
        """The zone the hand that laid it down came from (before the weaker readings)."""
        if ev.track is None or ev.track[1] < 0.8:
            return None
        return "hand_track", [(ev.track[0], 0.6 * ev.prob, 0.0)]

    def _by_flight(self, ev: _Evidence) -> _Ruled:
        """The zone nearest to where the card was seen on its way to the pile, outside every
        zone and the shared area, in the ``flight_window`` seconds before the landing (or
        within 0.1 s after it, a look's width: the landing time is the frames', the sightings'
        the looks'); each sighting votes for its nearest zone by its probability, busy players
        skipped."""
        st = self.settings
        if st.flight_window <= 0:
            return None
        votes: dict[str, float] = {}
        for t, label, prob, c in self._flight:
            if label != ev.cand.label or not ev.t - st.flight_window <= t <= ev.t + 0.1:
                continue
            best = self._zone_nearest_to(c, ev.busy)
            if best is not None:
                votes[best] = votes.get(best, 0.0) + prob
        if not votes:
            return None
        name = max(votes, key=votes.get)
        return "flight", [(name, 0.6 * ev.prob, 0.0)]

    def _by_runner_up(self, ev: _Evidence) -> _Ruled:
        """A card read as another in its zone, with this one its runner-up, that left (only
        with ``TrackerSettings.runner_up``)."""
        if not self.settings.runner_up:
            return None
        runner = [r for r in self.zone_cards.runner_up_vanished(ev.cand.label, ev.t, self.settings.vanish_window, 0.05)
                  if r[0] not in ev.busy]
        if not runner:
            return None
        name, read, p = runner[0]
        self.zone_cards.use(name, read)
        return "runner_up", [(name, min(0.7, 0.5 + p) * ev.prob, 0.0)]

    def _by_misread(self, ev: _Evidence) -> _Ruled:
        """A card read with low confidence (whatever its label) that left a zone just before;
        of several, one whose runners-up include the landed card (20 tuning rounds, models: 9
        -> 13 of 26 such owners right; the latest first, else), then the latest."""
        misread = [m for m in self.zone_cards.uncertain_vanished(ev.t, 1.5, 0.6, like=ev.cand.label)
                   if m[0] not in ev.busy]
        if not misread:
            return None
        name, label, _ = misread[0]
        self.zone_cards.use(name, label)
        return "uncertain", [(name, (0.6 if len({m[0] for m in misread}) == 1 else 0.45) * ev.prob, 0.0)]

    def _by_seen_once(self, ev: _Evidence) -> _Ruled:
        """A copy seen in one look only, long before."""
        once = [f for f in ev.found if f[0] not in ev.busy]
        if not once:
            return None
        self.zone_cards.use(once[0][0], ev.cand.label)
        return "vanished_weak", [(once[0][0], 0.5 * ev.prob, 0.0)]

    def _by_hand(self, ev: _Evidence) -> _Ruled:
        """The ``hand_owner`` callback, else the hand track however weak, else the zone nearest
        the hands over the pile (:meth:`_hand_guess`)."""
        guess = self.hand_owner(ev.cand) if self.hand_owner else (ev.track or self._hand_guess(ev.cand, ev.busy))
        if guess is None or guess[0] in ev.busy:
            return None
        return "hand", [(guess[0], min(guess[1], 0.6) * ev.prob, 0.0)]

    @staticmethod
    def _track_elsewhere(track: tuple[str, float] | None, name: str, doubtful: bool) -> bool:
        """Whether a sure hand track (confidence >= 0.8) names another player than ``name``,
        whose zone copy is ``doubtful`` (gone or hidden long before, or read weakly)."""
        return doubtful and _sure_track(track) and track[0] != name

    def _how(self, cand: PlayCandidate, t: float, how: str,
             attributed: list[tuple[str, float, float]]) -> list[tuple[str, float, float]]:
        for player, _, _ in attributed:
            self.attributions.append((round(t, 4), cand.label, cand.pile, player, how))
        return attributed

    def _zone_distances(self, point: Sequence[float], skip: set[str] | frozenset[str] = frozenset()) -> dict[str, float]:
        """Each zone's (but ``skip``'s) distance from ``point`` (``(x, y)`` pixels) to its
        polygon, pixels (negative inside it)."""
        return {n: -cv2.pointPolygonTest(poly, (float(point[0]), float(point[1])), True)
                for n, poly in self.zones.items() if n not in skip}

    def _zone_nearest_to(self, point: Sequence[float], skip: set[str] | frozenset[str] = frozenset()) -> str | None:
        """The zone (but ``skip``'s) nearest to ``point`` (:meth:`_zone_distances`); None when
        there is none."""
        dist = self._zone_distances(point, skip)
        return min(dist, key=dist.get) if dist else None

    def _nearest_zone(self, quad: np.ndarray, busy: set[str] | frozenset[str] = frozenset()) -> str | None:
        c, _, _ = quad_pose(quad)
        return self._zone_nearest_to(c, busy) or self._zone_nearest_to(c)

    def _hand_guess(self, cand: PlayCandidate, exclude: str | set[str] | None = None) -> tuple[str, float] | None:
        """The player whose zone is nearest to the hands over the card in the looks between
        the pile's last settled state and the change (a weak guess, confidence 0.4)."""
        box = cand.box
        skip = {exclude} if isinstance(exclude, str) else (exclude or set())
        votes: dict[str, int] = {}
        for frame, hands in self.hand_tracks.looks:
            if not cand.frame_before <= frame <= cand.frame_seen:
                continue
            for h in hands:
                if boxes_overlap(box, h[None]) <= 0.0:
                    continue
                centre = ((h[0] + h[2]) / 2, (h[1] + h[3]) / 2)
                best = self._zone_nearest_to(centre, skip)
                if best is not None:
                    votes[best] = votes.get(best, 0) + 1
        if not votes:
            return None
        return max(votes, key=votes.get), 0.4
