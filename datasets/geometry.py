"""Table layout for the renderer: where every slot of a Nertz table lies, in table millimetres.

Coordinates: the *table frame* has its origin at the middle of the play region, ``x`` to the
right and ``y`` down as seen from above (the way a top-down picture of the table is read), and
``z`` pointing into the table (so a point lifted ``h`` mm above the cloth has ``z = -h``). The
frame is right-handed. Angles are degrees, positive turning ``+x`` toward ``+y`` (clockwise as
seen from above).

A *pose* ``(x, y, angle)`` places a card: its centre in table mm and the rotation of the card's
own frame, in which the face reads upright with its top edge at ``-y``. Each player's *zone*
has its own frame: ``+y`` points from the middle of the table toward the player, so the
player's cards read upright for them.

Zone layout (zone frame, one row of seven slots, top edges on the row line): Nertz pile, work
piles 0..3, waste, stock. Work piles cascade toward the player by about 18 mm per card, so a
covered card shows its top strip with the index corner (the classic solitaire cascade).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

import numpy as np

from .state import Slot

__all__ = [
    "CARD_W",
    "CARD_H",
    "CARD_THICKNESS",
    "Seat",
    "TableGeometry",
    "card_corners",
    "make_geometry",
    "stable_uniform",
]

CARD_W = 63.0
"""Card width in mm (poker size, 63 x 88 mm)."""
CARD_H = 88.0
"""Card height in mm."""
CARD_THICKNESS = 0.3
"""Thickness of one card in mm (a 52-card deck is about 16 mm)."""

_SLOT_ORDER = ("nertz", "work0", "work1", "work2", "work3", "waste", "stock")


def stable_uniform(seed: int, key: str, n: int = 3) -> np.ndarray:
    """``n`` floats uniform in [-1, 1), fixed by ``(seed, key)`` (no global random state).

    Used for per-card and per-pile jitter that must stay put from frame to frame.
    """
    rng = np.random.default_rng([seed & 0xFFFFFFFF, zlib.crc32(key.encode())])
    return rng.uniform(-1.0, 1.0, n)


def _rot(angle_deg: float) -> np.ndarray:
    a = np.deg2rad(angle_deg)
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s], [s, c]])


def card_corners(poses: np.ndarray, scale: np.ndarray | float = 1.0) -> np.ndarray:
    """Corners of cards in table mm.

    Args:
        poses: ``(N, 3)`` rows ``(x_mm, y_mm, angle_deg)``.
        scale: one factor or ``(N,)`` factors applied to the card size (1.0 = 63 x 88 mm).

    Returns:
        ``(N, 4, 2)`` float64, clockwise as seen from above from the card's top-left corner:
        top-left, top-right, bottom-right, bottom-left.
    """
    poses = np.asarray(poses, dtype=np.float64).reshape(-1, 3)
    local = np.array([[-CARD_W / 2, -CARD_H / 2], [CARD_W / 2, -CARD_H / 2],
                      [CARD_W / 2, CARD_H / 2], [-CARD_W / 2, CARD_H / 2]])
    a = np.deg2rad(poses[:, 2])
    c, s = np.cos(a), np.sin(a)
    sc = np.broadcast_to(np.asarray(scale, dtype=np.float64), (len(poses),))
    lx = local[None, :, 0] * sc[:, None]
    ly = local[None, :, 1] * sc[:, None]
    x = poses[:, 0:1] + c[:, None] * lx - s[:, None] * ly
    y = poses[:, 1:2] + s[:, None] * lx + c[:, None] * ly
    return np.stack([x, y], axis=-1)


@dataclass
class Seat:
    """One player's place at the table.

    Attributes:
        name: the player (or partnership) name.
        centre: ``(2,)`` zone centre, table mm.
        angle: zone rotation in degrees (0: player sits at ``+y``, 180: at ``-y``,
            90: at ``-x``, -90: at ``+x``).
        slot_x: ``(7,)`` x of each slot centre in the zone frame (Nertz, work 0..3, waste, stock).
        row_y: y of the slot centres in the zone frame.
        tilt: ``(7,)`` small per-slot rotation in degrees (people do not align their piles).
        cascade: mm between cascaded work-pile cards.
        right_handed: which hand the player plays with.
    """

    name: str
    centre: np.ndarray
    angle: float
    slot_x: np.ndarray
    row_y: float
    tilt: np.ndarray
    cascade: float
    right_handed: bool = True

    def to_table(self, pts: np.ndarray) -> np.ndarray:
        """Zone-frame points ``(N, 2)`` mm -> table-frame points ``(N, 2)`` mm."""
        pts = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
        return pts @ _rot(self.angle).T + self.centre

    def seat_point(self, depth: float) -> np.ndarray:
        """Where the player's body is: ``(2,)`` table mm, ``depth`` mm beyond the zone centre."""
        return self.to_table(np.array([[0.0, depth]]))[0]


@dataclass
class TableGeometry:
    """Where everything lies on the table, for one scene.

    Attributes:
        seed: the scene seed (fixes all jitter).
        seats: one :class:`Seat` per player, in the order given.
        half_w, half_d: half width and half depth of the play region, mm.
        zone_w, zone_d: size of one player's zone, mm.
        shared: ``(4, 2)`` corners of the shared area, mm (clockwise from top-left).
        cells: ``(K, 2)`` foundation positions, mm, in order of use by pile number.
        cell_pose_jitter: ``(K, 3)`` per-pile offset (mm, mm) and rotation (deg).
        aside: ``(2,)`` where completed foundations are stacked face down, mm.
        card_jitter: scale of each card's own small misalignment (0: piles perfectly squared).
    """

    seed: int
    seats: list[Seat]
    half_w: float
    half_d: float
    zone_w: float
    zone_d: float
    shared: np.ndarray
    cells: np.ndarray
    cell_pose_jitter: np.ndarray
    aside: np.ndarray
    card_jitter: float = 1.0
    _cache: dict = field(default_factory=dict, repr=False)

    def seat(self, name: str) -> Seat:
        """The seat of ``name``; raises ``ValueError`` for an unknown player."""
        for s in self.seats:
            if s.name == name:
                return s
        raise ValueError(f"unknown player {name!r}; the table has {[s.name for s in self.seats]}")

    def zone_polygon(self, name: str) -> np.ndarray:
        """``(4, 2)`` corners of ``name``'s zone in table mm (clockwise from the zone's top-left)."""
        s = self.seat(name)
        w, d = self.zone_w / 2, self.zone_d / 2
        return s.to_table(np.array([[-w, -d], [w, -d], [w, d], [-w, d]]))

    def region_polygon(self) -> np.ndarray:
        """``(4, 2)`` corners of the whole play region (all zones and the shared area), mm."""
        w, d = self.half_w, self.half_d
        return np.array([[-w, -d], [w, -d], [w, d], [-w, d]], dtype=np.float64)

    def _jit(self, key: str) -> np.ndarray:
        j = self._cache.get(key)
        if j is None:
            j = stable_uniform(self.seed, key)
            self._cache[key] = j
        return j

    def foundation_pose(self, pile: int) -> np.ndarray:
        """``(3,)`` pose of foundation ``pile`` (any integer; numbers wrap over the cells)."""
        k = len(self.cells)
        i = pile % k
        lap = pile // k
        x, y = self.cells[i] + self.cell_pose_jitter[i, :2] + np.array([lap * 9.0, lap * 7.0])
        return np.array([x, y, self.cell_pose_jitter[i, 2]])

    def pose(self, slot: Slot, depth: int = 0, card: str = "", count: int = 0) -> np.ndarray:
        """Pose of the card at position ``depth`` (0 = bottom) of ``slot``.

        Args:
            slot: the slot (``owner`` must be a seated player for layout kinds).
            depth: 0 for the bottom card; for ``work`` it sets the cascade offset, for
                ``spread`` the place in the row, for ``aside`` which completed pile.
            card: the card (adds its own small, fixed misalignment).
            count: for ``aside``, unused; kept for symmetry.

        Returns:
            ``(3,)`` ``(x_mm, y_mm, angle_deg)`` in the table frame, before any lift.

        Raises:
            ValueError: unknown slot kind or owner.
        """
        kind = slot.kind
        key = f"{kind}/{slot.owner}/{slot.index}/{depth}/{card}"
        j = self._jit(key) * self.card_jitter
        if kind == "foundation":
            base = self.foundation_pose(slot.index)
            return base + np.array([1.6 * j[0], 1.6 * j[1], 2.5 * j[2]])
        if kind == "aside":
            # completed piles heaped around one spot; depth = which pile (order of completion)
            jp = self._jit(f"aside-pile/{slot.index}")
            return np.array([self.aside[0] + 14 * jp[0] + 1.0 * j[0],
                             self.aside[1] + 14 * jp[1] + 1.0 * j[1],
                             25 * jp[2] + 1.5 * j[2]])
        if slot.owner is None:
            raise ValueError(f"slot {slot!r} needs an owner")
        s = self.seat(slot.owner)
        if kind == "nertz":
            i, jx, ja, dy = 0, 0.8, 1.5, 0.0
        elif kind == "work":
            if not 0 <= slot.index <= 3:
                raise ValueError(f"work pile index must be 0..3, got {slot.index}")
            i, jx, ja, dy = 1 + slot.index, 1.2, 1.8, depth * s.cascade
        elif kind == "waste":
            i, jx, ja, dy = 5, 1.8, 3.0, 0.0
        elif kind == "stock":
            i, jx, ja, dy = 6, 0.8, 1.5, 0.0
        elif kind == "spread":
            # face-down cards spread in the Nertz pile's column toward the player, like a
            # loose cascade (the Nertz pile is gone by then), each a little askew
            local = np.array([[s.slot_x[0] + 3.0 * j[0] + 2.0 * np.sin(depth * 1.7),
                               s.row_y + depth * 15.0 + 2.0 * j[1]]])
            xy = s.to_table(local)[0]
            return np.array([xy[0], xy[1], s.angle + s.tilt[0] + 5.0 * j[2]])
        else:
            raise ValueError(f"unknown slot kind {kind!r}")
        local = np.array([[s.slot_x[i] + jx * j[0], s.row_y + dy + jx * j[1]]])
        xy = s.to_table(local)[0]
        return np.array([xy[0], xy[1], s.angle + s.tilt[i] + ja * j[2]])


# seat layouts by player count: (side, fraction along the side)
_SEATINGS: dict[int, list[tuple[str, float]]] = {
    2: [("bottom", 0.5), ("top", 0.5)],
    3: [("bottom", 0.5), ("left", 0.5), ("right", 0.5)],
    4: [("bottom", 0.5), ("left", 0.5), ("top", 0.5), ("right", 0.5)],
    5: [("bottom", 0.25), ("bottom", 0.75), ("left", 0.5), ("top", 0.5), ("right", 0.5)],
    6: [("bottom", 0.25), ("bottom", 0.75), ("left", 0.5), ("top", 0.75), ("top", 0.25),
        ("right", 0.5)],
}
_SIDE_ANGLE = {"bottom": 0.0, "top": 180.0, "left": 90.0, "right": -90.0}


def make_geometry(names: list[str], rng: np.random.Generator, seed: int) -> TableGeometry:
    """Lay out a table for the players ``names`` (2 to 6), in table mm.

    Zones get random gaps between slots, small slot rotations and cascade offsets (16-21 mm);
    foundation cells fill a grid in the shared area from the centre outward (one cell per
    possible ace, 4 per player), each with a fixed random offset (up to 9 mm) and rotation (up
    to 14 degrees).

    Raises:
        ValueError: fewer than 2 or more than 6 players, or duplicate names.
    """
    n = len(names)
    if n not in _SEATINGS:
        raise ValueError(f"the renderer seats 2 to 6 players (or partnerships), got {n}")
    if len(set(names)) != n:
        raise ValueError(f"player names must be distinct, got {names}")
    gap = float(rng.uniform(7.0, 16.0))
    cascade = float(rng.uniform(16.0, 21.0))
    zone_w = 7 * CARD_W + 6 * gap + 10.0
    zone_d = CARD_H + 7 * cascade + 16.0
    seating = _SEATINGS[n]
    sides = [s for s, _ in seating]
    per_row = max(sides.count("bottom"), sides.count("top"))
    has_lr = "left" in sides or "right" in sides
    cols = 2 * n if n <= 3 else (n + 1) // 2 * 2 + 2
    rows = int(np.ceil(4 * n / cols))
    cell_w, cell_h = CARD_W + rng.uniform(18, 30), CARD_H + rng.uniform(14, 24)
    shared_w = cols * cell_w + 2 * CARD_W  # room for the aside heap at one end
    shared_h = rows * cell_h + 10.0
    margin = float(rng.uniform(15.0, 40.0))
    inner_w = max(per_row * zone_w + (per_row - 1) * 3 * gap, shared_w)
    clear = 20.0  # room for the zones' own jitter (a few mm and degrees)
    half_w = inner_w / 2 + (zone_d + margin + clear if has_lr else 0.0) + margin
    half_d = max(shared_h / 2 + zone_d + 2 * margin + clear, zone_w / 2 + margin if has_lr else 0.0)
    # shared area: the middle rectangle left free by the zones
    sw = half_w - (zone_d + 2 * margin + clear if has_lr else margin)
    sh = half_d - zone_d - 2 * margin - clear
    shared = np.array([[-sw, -sh], [sw, -sh], [sw, sh], [-sw, sh]], dtype=np.float64)

    seats: list[Seat] = []
    for name, (side, frac) in zip(names, seating):
        ang = _SIDE_ANGLE[side]
        if side in ("bottom", "top"):
            span = inner_w
            x = -span / 2 + frac * span if per_row > 1 else 0.0
            if side == "top":
                x = -x
            cx, cy = x, (half_d - margin - zone_d / 2) * (1 if side == "bottom" else -1)
        else:
            cx = (half_w - margin - zone_d / 2) * (1 if side == "right" else -1)
            cy = 0.0
        jitter = rng.uniform(-1, 1, 3)
        centre = np.array([cx + 8 * jitter[0], cy + 6 * jitter[1]])
        slot_x = (np.arange(7) - 3) * (CARD_W + gap) + rng.uniform(-2.5, 2.5, 7)
        slot_x[5:] += rng.uniform(0, gap)  # waste and stock sit a little apart
        seats.append(Seat(
            name=name, centre=centre, angle=ang + 3.0 * jitter[2], slot_x=slot_x,
            row_y=-zone_d / 2 + CARD_H / 2 + 6.0, tilt=rng.uniform(-3.5, 3.5, 7),
            cascade=cascade, right_handed=bool(rng.random() < 0.85)))

    # foundation cells: grid, used from the centre outward; aside heap at one end
    gx = (np.arange(cols) - (cols - 1) / 2) * cell_w
    gy = (np.arange(rows) - (rows - 1) / 2) * cell_h
    aside_side = 1.0 if rng.random() < 0.5 else -1.0
    gx = gx - aside_side * CARD_W * 0.9
    grid = np.array([(x, y) for y in gy for x in gx])
    order = np.argsort(np.hypot(grid[:, 0] / 1.4, grid[:, 1]) + rng.uniform(0, 1e-3, len(grid)))
    cells = grid[order]
    jit = np.column_stack([rng.uniform(-9, 9, len(cells)), rng.uniform(-9, 9, len(cells)),
                           rng.uniform(-14, 14, len(cells))])
    aside = np.array([aside_side * ((cols - 1) / 2 * cell_w + cell_w * 0.5 - 0.1 * CARD_W),
                      rng.uniform(-0.3, 0.3) * max(rows - 1, 0.5) * cell_h])
    return TableGeometry(seed=seed, seats=seats, half_w=half_w, half_d=half_d, zone_w=zone_w,
                         zone_d=zone_d, shared=shared, cells=cells, cell_pose_jitter=jit,
                         aside=aside)
