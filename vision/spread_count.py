"""The Nertz cards left, counted from the video: each player's end-of-round spread.

After the call each player spreads the cards left in their Nertz pile face down in their own
zone (``shared/RULES.md``: -2 a card for every player but the caller), and those counts are
what the round's score needs besides the foundations. When nobody typed them in, the referee
counts them from the frames after the call with the round audit's strip detector
(:func:`nertz.vision.audit.audit`): the face-down cards of the player's own back in the
player's own zone, laid in a row (a cascade: each card's strip shows beside the next).

What else lies face down in a zone, and what the detector sees twice, is left out:

- the stock (a squared pile by the layout): the frames from just before the call are audited
  too, and a card counted after the call is left out when it lies alone (a spread of one card)
  over a place where a face-down card of the same back lay before the call. Spreads of two or
  more cards are always counted;
- a strip found twice: a back's printed pattern (a fine checker, stripes) can read as several
  strips of one card. Two strips that overlap by more than :data:`SAME_CARD_OVERLAP` of the
  smaller one's area are one card (the larger is kept). The visible parts of a row's cards do
  not overlap (their found boxes do, by 0.1-0.4 of the smaller), so a row keeps its cards; the
  wedges of a fan overlap more, so a fan may be undercounted;
- what only passes for the player's back: the strip detector boxes a face-up card, a hand or a
  forearm now and then, and the colour map reads a light skin, or a card's paper white, as a
  pale red (a back's ink mixed up to 0.6 of the way toward white). The cards of one deck under
  one light show nearly the same ink (:attr:`~nertz.vision.audit.Strip.ink`, the darker half
  of the strip), so in each frame only the strips whose ink lies within :data:`INK_RADIUS` of
  the player's densest ink are counted (:func:`same_ink`).

Each frame gives a count per player; frames in which the player has none (the spread is not
laid out yet, or a hand lies over all of it) are skipped, and the median over the others is
kept (a hand over a spread in one frame does not change it; a hand that stays over part of it
does: the count is then low).

Measured on rendered rounds r9201-r9212 (36 counts; the clips run 5 s past the spreads, the
frames 0.3 s apart from 2 s after the call to the end), where it was designed: exact 23 of 36,
within one card 28, points off 70; without the second-strip rule 21, 28 and 82; the last 1.8 s
of the clip with no rule and zeros counted (until 2026-12-02) 20, 24 and 104. On the same
clips cut 1 s after the spreads (as rounds were rendered before): 23, 29 and 68 against 26, 31
and 76: the old frames were the right ones for such short clips, not for a camera that keeps
running after the count. Rendered again on a fresh machine (2026-12-03), the same rounds gave
24, 30 and 64 with frames 0.3 s apart, and 23, 30 and 62 with frames 0.6 s apart (what the
pipeline keeps since: half the audits). Tried and not kept there: leaving out a spread all
of whose strips lie where backs lay before the call (a stock read as several strips;
r9203 blue 9 -> 7 for 2, r9206 green 5 -> 6 for 5), and running the strip detector on each
zone's box instead of one box around the table (0.73 of the time per frame; within one
card 15 -> 12 of 18 on r9201-r9206).
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from nertz.referee.table import Table

from .audit import AuditError, AuditResult, Strip, audit, lab_distance

__all__ = ["count_spreads", "counts_from_audits", "same_ink", "SAME_CARD_OVERLAP", "INK_RADIUS"]

SAME_CARD_OVERLAP = 0.5
"""Two strips of one back in a zone overlapping by more than this share of the smaller one's
area are counted as one card (chosen on r9201-r9212 among 0.2-0.8: 0.3 removed true strips of
rows on r9209-r9212; neighbouring strips of a row overlap by 0.1-0.4, their boxes being loose)."""

INK_RADIUS: float | None = 15.0
"""Largest CIELAB distance (L* at half weight) from a strip's ink to the densest ink of the
player's strips in the same frame and zone for the strip to be counted (:func:`same_ink`; None
counts every strip). The strips of one spread lie within about 5 of each other; a face-up card's
paper, a hand or a dark shadow read as a pale back lie 20-60 away. Session 57, the counts of
rounds r9324-r9330 (25 counts) exact / within one / cards off: None 13 / 17 / 41, 6: 15 / 18 /
36, 8: 17 / 18 / 34, 10-20: 18 / 18 / 32-34 (15: 33); r9331-r9333 (11 counts): None 7 / 9 / 10,
8: 8 / 8 / 12, 12-20: 9 / 9 / 10."""


def _audits(frames: Sequence[np.ndarray], table: Table) -> list[AuditResult]:
    """The audits of ``frames`` that could be made (a frame with no face-down card of any
    registered back, or not an image, is left out)."""
    out = []
    for f in frames:
        try:
            out.append(audit(f, table))
        except AuditError:
            continue
    return out


def _inside(point: np.ndarray, quads: list[np.ndarray]) -> bool:
    p = (float(point[0]), float(point[1]))
    return any(cv2.pointPolygonTest(q.astype(np.float32).reshape(-1, 1, 2), p, False) >= 0 for q in quads)


def _area(q: np.ndarray) -> float:
    return float(cv2.contourArea(q.astype(np.float32).reshape(-1, 1, 2)))


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection area of two convex quads, pixels squared."""
    ha = cv2.convexHull(a.astype(np.float32).reshape(-1, 2))
    hb = cv2.convexHull(b.astype(np.float32).reshape(-1, 2))
    area, _ = cv2.intersectConvexConvex(ha, hb)
    return float(area)


def _one_per_card(strips: list[Strip]) -> list[Strip]:
    """``strips`` less those overlapping a larger one by more than :data:`SAME_CARD_OVERLAP`
    of the smaller's area (greedy, largest first)."""
    kept: list[tuple[Strip, float]] = []
    for s, a in sorted(((s, _area(s.quad)) for s in strips), key=lambda sa: -sa[1]):
        if not any(_overlap(s.quad, k.quad) > SAME_CARD_OVERLAP * min(a, ka) for k, ka in kept):
            kept.append((s, a))
    return [s for s, _ in kept]


def same_ink(strips: Sequence[Strip], radius: float | None = INK_RADIUS) -> list[Strip]:
    """``strips`` (one player's, in one frame and zone) less those whose ink lies farther than
    ``radius`` from the densest ink among them.

    The densest ink: the ink with the most others within ``radius`` (the first such on a tie),
    then moved three times to the per-channel median of the inks within ``radius`` of it
    (distances in CIELAB with L* at half weight, :func:`nertz.vision.audit.lab_distance`).
    Strips whose ink was not measured (``ink`` None) are kept, and with fewer than two measured
    inks, or ``radius`` None, every strip is.

    Args:
        strips: :class:`~nertz.vision.audit.Strip` s with ``ink`` ``(3,)`` CIELAB or None.
        radius: CIELAB distance (:data:`INK_RADIUS`).

    Returns:
        the kept strips, in their order.
    """
    measured = [i for i, s in enumerate(strips) if s.ink is not None]
    if radius is None or len(measured) < 2:
        return list(strips)
    inks = np.array([strips[i].ink for i in measured], np.float64).reshape(-1, 3)
    near = lab_distance(inks[:, None, :], inks[None, :, :]) <= radius
    centre = inks[int(near.sum(axis=1).argmax())]
    for _ in range(3):
        centre = np.median(inks[lab_distance(inks, centre) <= radius], axis=0)
    far = {measured[j] for j in np.flatnonzero(lab_distance(inks, centre) > radius)}
    return [s for i, s in enumerate(strips) if i not in far]


def count_spreads(before: Sequence[np.ndarray], after: Sequence[np.ndarray], table: Table) -> dict[str, int]:
    """Each player's face-down cards spread in their own zone after the call.

    Args:
        before: frames from just before the call, ``(H, W, 3) uint8`` BGR (what lay face down
            in the zones during play: the stocks); may be empty.
        after: frames of the spreads, the same size (some tenths of a second apart, from the
            time the players lay them out).
        table: the table file (``zones`` and back colours; the frames' pixels).

    Returns:
        ``{player: cards}`` for every player with a zone, at most the table's Nertz pile size
        (``table.rules.nertz_pile``: more would be false strips), 0 for a player with no card
        counted in any frame; empty when no frame after the call could be audited (no
        face-down card anywhere, or no zones).
    """
    if not table.zones:
        return {}
    done = _audits(after, table)
    if not done:
        return {}
    return counts_from_audits(_audits(before, table), done, table)


def counts_from_audits(before: Sequence[AuditResult], after: Sequence[AuditResult],
                       table: Table) -> dict[str, int]:
    """:func:`count_spreads` on frames already audited (:func:`nertz.vision.audit.audit`):
    ``before`` of the frames before the call, ``after`` of the spreads' frames.

    Returns:
        as :func:`count_spreads` (empty when ``after`` is empty or the table has no zones).
    """
    if not table.zones or not after:
        return {}
    counts: dict[str, int] = {}
    for name in table.zones:
        was = [s.quad for r in before for s in r.strips if s.where == name and s.owner == name]
        per_frame = []
        for r in after:
            own = same_ink(_one_per_card([s for s in r.strips if s.where == name and s.owner == name]), INK_RADIUS)
            size: dict[int, int] = {}
            for s in own:
                size[s.spread] = size.get(s.spread, 0) + 1
            n = sum(1 for s in own if size[s.spread] > 1 or not _inside(s.quad.mean(axis=0), was))
            if n:
                per_frame.append(n)
        n = int(np.round(np.median(per_frame))) if per_frame else 0
        counts[name] = min(n, table.rules.nertz_pile)
    return counts
