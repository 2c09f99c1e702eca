"""The Nertz cards left, counted from the video: each player's end-of-round spread.

After the call each player spreads the cards left in their Nertz pile face down in their own
zone (``shared/RULES.md``: -2 a card for every player but the caller), and those counts are
what the round's score needs besides the foundations. When nobody typed them in, the referee
counts them from the last frames of the video with the round audit's strip detector
(:func:`nertz.vision.audit.audit`): the face-down cards of the player's own back in the
player's own zone.

A zone holds other face-down cards than the spread: the stock (a squared pile lying by the
layout), and the detector's false backs on the layout's cascades. So the frames from just
before the call are audited too, and a card counted after the call is left out when it lies
alone (a spread of one card) over a place where a face-down card of the same back lay before
the call. Spreads of two or more cards are always counted. Each after-call frame gives a count
per player and the median over the frames is kept (a hand over a spread in one frame does not
change it; a hand that stays over it does: the count is then low).

Measured on 9 rendered rounds (r9091-r9099, 42 counts, the last 5 frames 0.3 s apart and 3
frames before the call): exact 26 of 42, within one card 31 of 42; without the before-call
frames (every own back in the zone counted, so the stock too) 10 and 27; the before-call count
subtracted instead of the places compared, 21 and 30.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from nertz.referee.table import Table

from .audit import AuditError, AuditResult, audit

__all__ = ["count_spreads"]


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


def count_spreads(before: Sequence[np.ndarray], after: Sequence[np.ndarray], table: Table) -> dict[str, int]:
    """Each player's face-down cards spread in their own zone after the call.

    Args:
        before: frames from just before the call, ``(H, W, 3) uint8`` BGR (what lay face down
            in the zones during play: the stocks); may be empty.
        after: frames of the spreads, the same size (a few, some tenths of a second apart).
        table: the table file (``zones`` and back colours; the frames' pixels).

    Returns:
        ``{player: cards}`` for every player with a zone, at most the table's Nertz pile size
        (``table.rules.nertz_pile``: more would be false strips); empty when no frame after the
        call could be audited (no face-down card anywhere, or no zones).
    """
    if not table.zones:
        return {}
    done = _audits(after, table)
    if not done:
        return {}
    old = _audits(before, table)
    counts: dict[str, int] = {}
    for name in table.zones:
        was = [s.quad for r in old for s in r.strips if s.where == name and s.owner == name]
        per_frame = []
        for r in done:
            own = [s for s in r.strips if s.where == name and s.owner == name]
            size: dict[int, int] = {}
            for s in own:
                size[s.spread] = size.get(s.spread, 0) + 1
            per_frame.append(sum(1 for s in own if size[s.spread] > 1 or not _inside(s.quad.mean(axis=0), was)))
        counts[name] = min(int(np.round(np.median(per_frame))), table.rules.nertz_pile)
    return counts
