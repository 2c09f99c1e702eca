"""Hand tracks: which player's hand carried a card to a foundation.

A play is a hand moving from its player's layout zone (where it picked the card up) to the
shared area (where it lays the card down). :class:`HandTracker` links each look's hand boxes
into tracks and remembers, for every track, the zone it was last in outside the shared area;
the hand over a new foundation card then names the player it came from
(:meth:`HandTracker.owner_of`), a cue that does not depend on reading the card in the zone.

Linking: hands move fast between looks (on rendered rounds at 10 looks a second, the median
jump is 0.1 to 0.3 hand sizes, the 99th percentile 2.4 to 2.9), so boxes are linked by centre
distance, not by box overlap (ByteTrack's IoU matching loses such jumps): the distance from
where the track's last two looks say it is now (constant velocity, as a Kalman filter's
prediction step), the closest pairs first, each track and box used once; a pair is allowed
when the box is within ``max_jump`` hand sizes of the track's last or predicted place. With few
hands (one or two per player) closest-first linking is all but always the optimal assignment.
The prediction matters when a hand crosses the table while another is missed in a look: linked
to the nearest last place, the moving hand took over the missed one's track (on 14 rendered
rounds with the models, the zone remembered by the track of a hand over the shared area was
its player's for 69 % of such hands, 79 % where it remembered one; with the prediction 79 % and
85 %; on 4 rounds rendered after the choice, 63 % and 82 % before, 76 % and 88 % with it).
A hand that laid a card down stops, though, and its velocity then carries the prediction a
look's move beyond it, where another hand arriving beside it was linked to its track (two
hands swapped tracks); so the distance is taken to the stretch between the track's last
place and its predicted one (session 60: hand boxes over the shared area whose track remembers
their own player's zone, 37 rendered rounds, perfect boxes 82.9 % -> 90.4 %, the models'
74.7 % -> 77.2 %).

The detector boxes hands, not forearms; :func:`forearm` adds the strip from each hand towards
its player's zone, which hides the cards under it just as well.

Where two hands meet over the foundations the linking still swaps tracks now and then; a
hand's arm, though, leads back to its player. :meth:`HandTracker.update` takes, per box, the
player its arm was seen to reach back to (:class:`nertz.vision.arms.ArmReader`), and such a
reading names the track's player from that look on, as a visit to that player's zone does.

Nothing here reads pixels: the boxes come from the detector (or a rendered round's labels), the
arm readings from :mod:`nertz.vision.arms`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

import cv2
import numpy as np

__all__ = ["HandTracker", "forearm"]


def _centre(box: np.ndarray) -> np.ndarray:
    """``(2,)`` the centre of an xyxy box, pixels."""
    return (box[:2] + box[2:]) / 2


def _to_segment(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """Distance from point ``p`` to the segment ``a``-``b`` (``(2,)`` each), pixels."""
    ab = b - a
    L2 = float(ab @ ab)
    u = 0.0 if L2 <= 0 else min(max(float((p - a) @ ab) / L2, 0.0), 1.0)
    return float(np.linalg.norm(p - (a + u * ab)))


def forearm(box: np.ndarray, toward: np.ndarray, width: float = 0.8) -> np.ndarray:
    """The forearm (and sleeve) of the hand in ``box`` as a strip of the image: from the hand's
    centre to ``toward``, the point its arm reaches for (the player's layout zone, on the way to
    their shoulder beyond the table's edge), ``width`` times the box's smaller side wide (a
    forearm is 55-90 mm wide, a hand with its fingers 90-110 mm across).

    The hand detector boxes the hand alone; the arm behind it covers the cloth and cards just as
    well (an arm reaching past a pile hides the pile's new card with no hand box over it).

    Args:
        box: ``(4,)`` the hand's xyxy box, pixels.
        toward: ``(2,)`` pixels.
        width: the strip's width in units of the box's smaller side.

    Returns:
        ``(4, 2)`` float32 convex polygon, pixels (a degenerate strip when ``toward`` is the
        box's centre).
    """
    box = np.asarray(box, np.float32).reshape(4)
    c = _centre(box)
    d = np.asarray(toward, np.float32).reshape(2) - c
    n = float(np.linalg.norm(d))
    half = 0.5 * width * float(min(box[2] - box[0], box[3] - box[1]))
    normal = np.array([-d[1], d[0]], np.float32) / n * half if n > 0 else np.zeros(2, np.float32)
    end = c + d
    return np.array([c - normal, end - normal, end + normal, c + normal], np.float32)


@dataclass
class _Track:
    id: int
    box: np.ndarray
    last_t: float
    history: deque = field(default_factory=lambda: deque(maxlen=64))  # (frame, t, box, zone or None, arm or None)

    def player(self) -> str | None:
        """The player this track's hand is known to be, from its latest look in a zone or with
        its arm read (None: neither yet)."""
        return next((arm or zone for *_, zone, arm in reversed(self.history) if (arm or zone) is not None), None)


class HandTracker:
    """Tracks of hand boxes over looks, each with the zone it came from (or the player its arm
    was read to reach back to).

    Args:
        zones: each player's layout zone, ``(N, 2)`` polygon in frame pixels.
        shared: the shared area's ``(N, 2)`` polygon in frame pixels.
        max_jump: the farthest a hand's centre moves between two looks, in hand sizes (the
            larger side of its box).
        max_missing: seconds a track lives unseen (a hand out of the frame or missed by the
            detector) before it ends.
        arm_width: the forearms' width (:func:`forearm`); None: no forearms (``arms`` empty).
        zone_margin: a hand outside the shared area is in the nearest zone only when its centre
            lies inside that zone's polygon by at least ``-zone_margin`` hand sizes (outside it
            by at most ``zone_margin``); elsewhere (passing between the shared area and a
            neighbour's zone, at a corner) it is in no zone. None: always the nearest zone (as
            before session 60). Measured on 37 rendered rounds 9324-9360 with the models'
            hand boxes: a sure hand track (one zone voting) over a true play's card named the
            wrong player for 228 of 1507 plays with None, 172 of 1482 at -0.25 (with the
            perfect boxes of the labels 132 of 1528 and 60 of 1508; 0: 69 of 1512, 0.5: 128).

    Attributes:
        tracks: the live tracks.
        looks: ``(frame, (M, 4) float32 xyxy boxes)`` of the latest 64 looks, oldest first.
        arms: ``(M, 4, 2)`` float32: the forearm of each box of the latest look
            (:func:`forearm`, reaching for the centre of the zone of the player its track
            names, as :attr:`players`, or of the nearest zone for a track that names none),
            pixels.
        players: per box of the latest look, the player its track names (the zone it was last
            in, or the player its arm was last read to reach back to; None: neither yet).
    """

    def __init__(self, zones: dict[str, np.ndarray], shared: np.ndarray,
                 max_jump: float = 3.0, max_missing: float = 0.5, arm_width: float | None = 0.8,
                 zone_margin: float | None = -0.25) -> None:
        self.zones = {n: np.asarray(z, np.float32).reshape(-1, 1, 2) for n, z in zones.items()}
        self.shared = np.asarray(shared, np.float32).reshape(-1, 1, 2)
        self.max_jump = max_jump
        self.max_missing = max_missing
        self.arm_width = arm_width
        self.zone_margin = zone_margin
        self.tracks: list[_Track] = []
        self._ended: deque[_Track] = deque(maxlen=32)  # for the cards laid down just before
        self.looks: deque[tuple[int, np.ndarray]] = deque(maxlen=64)
        self.arms = np.zeros((0, 4, 2), np.float32)
        self.players: list[str | None] = []
        self._centres = {n: z.reshape(-1, 2).mean(axis=0) for n, z in self.zones.items()}
        self._next = 1

    def _where(self, centre: np.ndarray, size: float | None = None) -> str | None:
        """None over the shared area, else the nearest zone's name (a hand resting at the table's
        edge lies outside every polygon, nearest its own zone); with the hand's ``size``
        (pixels), None too where the centre is not inside that zone by ``-zone_margin`` sizes."""
        pt = (float(centre[0]), float(centre[1]))
        if cv2.pointPolygonTest(self.shared, pt, False) >= 0:
            return None
        best, dist = self._nearest(centre)
        if best is not None and self.zone_margin is not None and size is not None and dist > self.zone_margin * size:
            return None
        return best

    def update(self, frame: int, t: float, boxes: np.ndarray,
               arm_players: list[str | None] | None = None) -> np.ndarray:
        """Link one look's hand boxes to the tracks.

        Args:
            frame: the look's frame index.
            t: its time, seconds.
            boxes: ``(M, 4)`` hand boxes, xyxy pixels.
            arm_players: one per box, the player its arm was seen to reach back to
                (:meth:`nertz.vision.arms.ArmReader.owners`), or None; a reading names the
                track's player from that look on, as a visit to that player's zone would.

        Returns:
            ``(M,)`` int track ids, one per box.

        Raises:
            ValueError: ``arm_players`` is not one per box.
        """
        boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
        if arm_players is not None and len(arm_players) != len(boxes):
            raise ValueError(f"{len(arm_players)} arm readings for {len(boxes)} hand boxes")
        self.looks.append((frame, boxes))
        self._ended.extend(tr for tr in self.tracks if t - tr.last_t > self.max_missing)
        self.tracks = [tr for tr in self.tracks if t - tr.last_t <= self.max_missing]
        centres = (boxes[:, :2] + boxes[:, 2:]) / 2
        last = [_centre(tr.box) for tr in self.tracks]
        predicted = [self._predicted(tr, t) for tr in self.tracks]
        pairs = []
        for i, b in enumerate(boxes):
            size = float(max(b[2] - b[0], b[3] - b[1], 1.0))
            for k, tr in enumerate(self.tracks):
                d_last = float(np.linalg.norm(centres[i] - last[k])) / size
                d = _to_segment(centres[i], last[k], predicted[k]) / size  # it may have stopped
                if min(d, d_last) <= self.max_jump:
                    pairs.append((d, i, k))
        ids = np.zeros(len(boxes), np.int64)
        used_b: set[int] = set()
        used_t: set[int] = set()
        for _, i, k in sorted(pairs):
            if i in used_b or k in used_t:
                continue
            used_b.add(i)
            used_t.add(k)
            ids[i] = self.tracks[k].id
        for i in range(len(boxes)):
            if i not in used_b:
                tr = _Track(self._next, boxes[i], t)
                self._next += 1
                self.tracks.append(tr)
                ids[i] = tr.id
        by_id = {tr.id: tr for tr in self.tracks}
        strips = []
        players: list[str | None] = []
        for i, b in enumerate(boxes):
            tr = by_id[int(ids[i])]
            zone = self._where(centres[i], float(max(b[2] - b[0], b[3] - b[1])))
            tr.box, tr.last_t = b, t
            tr.history.append((frame, t, b, zone, arm_players[i] if arm_players is not None else None))
            players.append(tr.player())
            home = players[-1] or self._nearest(centres[i])[0]
            if home is not None and self.arm_width is not None:
                strips.append(forearm(b, self._centres[home], self.arm_width))
        self.arms = np.asarray(strips, np.float32).reshape(-1, 4, 2)
        self.players = players
        return ids

    def _nearest(self, centre: np.ndarray) -> tuple[str | None, float]:
        """The zone nearest to ``centre`` (``(2,)`` pixels), inside the shared area too, and
        the centre's distance outside its polygon (negative inside), pixels; ``(None, inf)``
        without zones."""
        pt = (float(centre[0]), float(centre[1]))
        dist = {n: -cv2.pointPolygonTest(poly, pt, True) for n, poly in self.zones.items()}
        if not dist:
            return None, float("inf")
        best = min(dist, key=dist.get)
        return best, float(dist[best])

    @staticmethod
    def _predicted(tr: _Track, t: float) -> np.ndarray:
        """``(2,)`` where track ``tr``'s centre is at ``t`` seconds, pixels: its last centre moved
        on at the velocity between its last two looks (the last centre when it has one look)."""
        (_, t1, b1, *_) = tr.history[-1]
        c1 = _centre(b1)
        if len(tr.history) < 2:
            return c1
        (_, t0, b0, *_) = tr.history[-2]
        if t1 <= t0:
            return c1
        return c1 + (c1 - _centre(b0)) / (t1 - t0) * (t - t1)

    def _overlaps(self, box: np.ndarray, frame_from: int, frame_to: int,
                  unknown: bool = False) -> Iterator[tuple[int, int, str | None]]:
        """``(track id, frame, zone)`` for each look between ``frame_from`` and ``frame_to``
        (inclusive) in which a track's box overlapped ``box`` (``(4,)`` xyxy pixels) after the
        track had been in a zone, ``zone`` being the last it was in before that look, or the
        player its arm was read to reach back to in that look or since that zone (with
        ``unknown``, also before it had been in any: ``zone`` None); in track order, then
        frame order."""
        box = np.asarray(box, np.float32)
        for tr in [*self.tracks, *self._ended]:
            zone_before: str | None = None
            for frame, _, b, zone, arm in tr.history:
                if frame > frame_to:
                    break
                if arm is not None:
                    zone_before = arm  # its arm, seen in this look, reaches back to that player
                if (frame >= frame_from and (unknown or zone_before is not None)
                        and b[0] < box[2] and box[0] < b[2] and b[1] < box[3] and box[1] < b[3]):
                    yield tr.id, frame, zone_before
                if zone is not None:
                    zone_before = zone

    def origins(self, box: np.ndarray, frame_from: int, frame_to: int) -> set[str | None]:
        """The zones the hands over ``box`` (``(4,)`` xyxy pixels) in the looks between
        ``frame_from`` and ``frame_to`` (inclusive) came from: for each track whose box
        overlapped it, the zone it was last in before that look (or the player its arm was read
        to reach back to since, that look included), or None for a track that had been in no
        zone yet and had no arm reading (a hand the linking lost on its way and found
        again)."""
        return {zone for _, _, zone in self._overlaps(box, frame_from, frame_to, unknown=True)}

    def stayed_in(self, zone: str, frame_from: int, frame_to: int) -> bool:
        """Whether in every look between ``frame_from`` and ``frame_to`` (inclusive) a hand
        box lay in ``zone`` (its centre nearest that zone, outside the shared area): that
        player's hand stayed at their layout throughout. False when no look falls in the range."""
        looks = [boxes for frame, boxes in self.looks if frame_from <= frame <= frame_to]
        return bool(looks) and all(any(self._where(_centre(b)) == zone for b in boxes) for boxes in looks)

    def came_from(self, zone: str, box: np.ndarray, frame_from: int, frame_to: int) -> bool:
        """Whether a hand from ``zone`` (a track last in that zone before, or whose arm was
        read to reach back to that player since) was over ``box`` (``(4,)`` xyxy pixels) in a
        look between ``frame_from`` and ``frame_to`` (inclusive)."""
        return any(z == zone for _, _, z in self._overlaps(box, frame_from, frame_to))

    def owner_of(self, box: np.ndarray, frame_from: int, frame_to: int,
                 exclude: str | None = None) -> tuple[str, float] | None:
        """The player whose hand laid a card down.

        The tracks whose box overlapped the card's box in a look between ``frame_from`` and
        ``frame_to`` (inclusive) vote for the zone they were last in before that look (or the
        player their arm was read to reach back to since, that look included); the latest
        overlapping look decides between tracks.

        Args:
            box: ``(4,)`` the card's box, xyxy pixels.
            frame_from, frame_to: the looks between the pile's last settled state and the change.
            exclude: a player not to name.

        Returns:
            ``(player, confidence)``: 0.8 when every overlapping track came from that zone,
            0.5 when the tracks disagree (the one over the card latest wins) or a track that
            has been in no zone (a hand the linking lost and found again: it may be the one
            that laid the card) overlapped it too; None when no tracked hand from a zone
            overlapped the card. (Session 60: with the models' hand boxes on 37 rendered
            rounds, sure tracks over true plays' cards wrong 172 of 1482 -> 131 of 1387.)
        """
        latest: dict[int, tuple[int, str | None]] = {}  # per track, its latest look over the card
        for tid, frame, zone in self._overlaps(box, frame_from, frame_to, unknown=True):
            if zone != exclude or zone is None:
                latest[tid] = (frame, zone)
        votes: dict[str | None, float] = {}
        for frame, zone in latest.values():
            votes[zone] = max(votes.get(zone, -1), frame)
        known = {z: f for z, f in votes.items() if z is not None}
        if not known:
            return None
        best = max(known, key=known.get)
        return best, 0.8 if len(votes) == 1 else 0.5
