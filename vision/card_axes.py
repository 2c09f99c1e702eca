"""Which way the cards in each player's zone lie, from the table file's layout.

A player lays their Nertz pile, work piles (tableau), stock and waste facing themselves, so the
long side of each of their cards points across the table, towards the shared area. A camera that
looks at the table at a slant foreshortens the cards of a player seated on its left or right
along that long side, and near the frame's edge, through a wide lens, so much that the long side
looks the shorter: the rectified-card classifier, which is shown each card with its longer side
upright (:func:`nertz.datasets.export.rectify_card`), was then shown those cards sideways.
Measured on rendered round r9325 (camera tilted 26 degrees, 72-degree lens, a player at the
frame's right edge): 2,543 of that player's 2,666 whole-card sightings (per look) looked longer
across than along, and 889 of the 2,666 were read wrong (the other four players: 52 of 9,358).

:class:`CardAxes` gives each zone an axis, from the zone's centroid to the nearest point of the
shared area's outline (to the middle of the zones when the table has no shared area), and names
the long side of a card in a zone by that axis where one pair of the card's sides is clearly
nearer it; elsewhere (the shared area, where players of every side lay cards, or a card lying
askew) the longer side as seen stays the long side.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from nertz.referee.table import Table

AXIS_CLEAR_DEG = 25.0
"""How much nearer (degrees) to its zone's axis one pair of a card's sides must lie than the
other for :meth:`CardAxes.long_sides` to take it for the long side. Rendered rounds r9324-r9328
(label quads of every 30th frame, 5,375 whole face-up cards in zones): the two pairs' angles
to the axis lay 69 degrees apart or more for 99 % of the cards, never under 60, and the pair
taken for the long side was the long side for all of them."""


def _nearest_on_outline(point: np.ndarray, polygon: np.ndarray) -> np.ndarray:
    """The point of ``polygon``'s outline ``(K, 2)`` nearest to ``point`` ``(2,)``, pixels."""
    a = polygon
    b = np.roll(polygon, -1, axis=0)
    ab = b - a
    t = np.clip(np.einsum("ij,ij->i", point - a, ab) / np.maximum(np.einsum("ij,ij->i", ab, ab), 1e-9), 0, 1)
    near = a + t[:, None] * ab
    return near[np.argmin(np.linalg.norm(near - point, axis=1))]


def _angle_deg(vectors: np.ndarray, axis: np.ndarray) -> np.ndarray:
    """Unsigned angle (0-90 degrees) between each of ``vectors`` ``(N, 2)`` and the line along
    ``axis`` ``(2,)`` (a unit vector)."""
    n = np.maximum(np.linalg.norm(vectors, axis=1), 1e-9)
    return np.degrees(np.arccos(np.clip(np.abs(vectors @ axis) / n, 0.0, 1.0)))


@dataclass(frozen=True)
class CardAxes:
    """Each player zone's polygon with the axis its cards' long sides lie along.

    Attributes:
        zones: ``((polygon (K, 2) float32 pixels, axis (2,) float64 unit vector), ...)``, one per
            zone that has an axis.
        clear_deg: :data:`AXIS_CLEAR_DEG`.
    """

    zones: tuple[tuple[np.ndarray, np.ndarray], ...]
    clear_deg: float = AXIS_CLEAR_DEG

    @classmethod
    def from_table(cls, table: Table | dict[str, Any], clear_deg: float = AXIS_CLEAR_DEG) -> "CardAxes":
        """The zones' axes of a :class:`~nertz.referee.table.Table` or table-file dict: from
        each zone's centroid to the nearest point of the shared area's outline; without a shared
        area, to the mean of the zones' centroids (a table with one zone and no shared area, or
        a zone whose centroid lies in the shared area, gives that zone no axis).

        Raises:
            nertz.referee.errors.TableError: a table dict that does not validate.
        """
        t = table if isinstance(table, Table) else Table.from_dict(table)
        polys = {name: np.asarray(p, np.float32).reshape(-1, 2) for name, p in t.zones.items()}
        centres = {name: p.astype(np.float64).mean(axis=0) for name, p in polys.items()}
        shared = np.asarray(t.shared_area, np.float64).reshape(-1, 2) if t.shared_area else None
        out = []
        for name, poly in polys.items():
            c = centres[name]
            if shared is not None:
                if cv2.pointPolygonTest(shared.astype(np.float32), (float(c[0]), float(c[1])), False) >= 0:
                    continue
                target = _nearest_on_outline(c, shared)
            elif len(centres) >= 2:
                target = np.mean(list(centres.values()), axis=0)
            else:
                continue
            d = target - c
            if np.linalg.norm(d) < 1e-6:
                continue
            out.append((poly, d / np.linalg.norm(d)))
        return cls(tuple(out), float(clear_deg))

    def long_sides(self, quads: np.ndarray) -> np.ndarray:
        """The image direction of each card's long side, where its zone tells it.

        Args:
            quads: ``(N, 4, 2)`` pixels, corners in cyclic order (either way round).

        Returns:
            ``(N, 2) float32``: for a quad whose centre lies in a zone with an axis and one of
            whose pairs of opposite sides lies at least ``clear_deg`` nearer that axis than the
            other, that pair's direction (corner 0 to 3 or 0 to 1, pixels); NaN rows for the
            others (the longer side as seen is then the long side).
        """
        q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
        out = np.full((len(q), 2), np.nan, np.float32)
        if not len(q) or not self.zones:
            return out
        down = (q[:, 3] - q[:, 0]) + (q[:, 2] - q[:, 1])
        across = (q[:, 1] - q[:, 0]) + (q[:, 2] - q[:, 3])
        centres = q.mean(axis=1)
        free = np.ones(len(q), bool)  # in no zone found so far
        for poly, axis in self.zones:
            todo = np.array([free[i] and cv2.pointPolygonTest(poly, (float(x), float(y)), False) >= 0
                             for i, (x, y) in enumerate(centres)], bool)
            if not todo.any():
                continue
            free &= ~todo
            idx = np.flatnonzero(todo)
            gap = _angle_deg(across[idx], axis) - _angle_deg(down[idx], axis)
            out[idx[gap >= self.clear_deg]] = down[idx[gap >= self.clear_deg]]
            out[idx[gap <= -self.clear_deg]] = across[idx[gap <= -self.clear_deg]]
        return out
