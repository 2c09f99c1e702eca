"""Audit scenes: the table after the call, foundations turned face down and spread out for the
back count (``shared/RULES.md``, "Scoring a round"; ``shared/DESIGN.md``, "The back count").

A scene is drawn from one seed with the round renderer's machinery (:func:`nertz.datasets.
render.make_scene`: card designs' back art and palettes, surfaces, camera tilt 0-35 degrees,
lens, light, sensor noise/blur/JPEG, hands), then laid out as people do it:

- **Shared area**: the foundations' cards (1 to 52 per player, never more than the player's
  deck holds beside their zone: see *Counts* below), face down, as the piles were turned over
  (mixed backs: a foundation holds whoever played to it) or, in a third of the scenes, already
  sorted by back. Each group is a *row* (cards side by side with a fixed offset
  of 10-22 mm along the card's width, each card a little askew), a *fan* (cards turned about
  a point near their lower edge, 8-15 degrees apart) or a *loose heap* (cards dropped at random
  places and angles, each keeping at least a third of its area in view). The shared area is
  made as large as the spreads need (the zones move outward), and it is what the table file's
  ``shared_area`` says.
- **Zones**: each player's leftover Nertz pile (0-12 cards; the caller's is empty) spread face
  down in their zone, as a row along the zone or a column toward the player.
- Now and then: a few face-up cards (a foundation not turned over), a few cards of a deck
  nobody registered (``unknown``), hands resting over the table, partly covering spreads.

Counts: every player plays one 52-card deck (the scenes use no jokers), so the cards of one
back in the shared area, in its zone and face up add up to 52 at most (:data:`DECK`). Each
player's shared-area count is uniform in ``1 .. min(max_per_player, 52 - zone - face_up)``
(``face_up``: all the scene's face-up cards, which may be anyone's): a count drawn over that
limit is drawn again, uniformly below it (a redraw, not a cap: no pile of scenes at the limit).
Scenes made before this change (2026-12-07; the code of commit a60b211 and earlier, 8aad07f
included) drew the count in 1..60 whatever the zone held, so about half of them showed more
cards of one back than a deck holds (seed 3: 56 navy cards in the shared area and 8 in navy's
zone, 64 in all); the training and evaluation sets of the audit strip detector in
``models/MODEL_CARD.md`` were made so, and their recipes reproduce only with that older code.
The redraw takes a generator of its own, so a scene whose counts were within these limits
then is the same now, pixel for pixel (89 of 240 scenes checked, seeds 0-119 with 2-4 and 6
players); the others differ from the redrawn count on.

Ground truth (:class:`AuditTruth`): counts per player in the shared area and per zone, unknown
and face-up counts; the labels are the round renderer's (per-card quad, visible fraction).

Public API: :func:`make_audit_scene`, :class:`AuditScene`, :class:`AuditTruth`,
:func:`audit_sheet` (a contact sheet for looking at them: ``python -m
nertz.datasets.audit_scenes OUT.png [N] [SEED]``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from . import render as R
from .art import PALETTE, back_palette, hex_to_bgr
from .geometry import CARD_H, CARD_W, TableGeometry, card_corners
from .hands import hand_shape
from .light import apply_light_and_sensor
from .state import TableState

__all__ = ["AuditTruth", "AuditScene", "make_audit_scene", "audit_sheet", "ARRANGEMENTS", "DECK"]

ARRANGEMENTS = ("row", "fan", "heap")
"""How a group of face-down cards is spread in the shared area."""

DECK = 52
"""Cards in one player's deck: the scenes use no jokers. A player's cards in the shared area, in
their zone and face up never add up to more."""

_RANKS, _SUITS = "A23456789TJQK", "SHDC"
_FIRST_DRAW = 60  # the shared-area count's first draw, 1..60 as before 2026-12-07 (see above)
_UNKNOWN_OWNER = "~stray"  # a deck that is not registered in the table file


@dataclass
class AuditTruth:
    """What an audit of the scene must find.

    Attributes:
        shared: player -> face-down cards of their back in the shared area.
        zones: player -> face-down cards (of their own back) in their zone.
        unknown: face-down cards whose back matches no registered player (anywhere).
        face_up: face-up cards in the shared area and zones.
        groups: ``[(arrangement, [owner, ...])]`` the spreads of the shared area, bottom card
            first (for reports).
    """

    shared: dict[str, int]
    zones: dict[str, int]
    unknown: int = 0
    face_up: int = 0
    groups: list[tuple[str, list[str]]] = field(default_factory=list)

    def to_dict(self) -> dict:
        """JSON-ready dict."""
        return {"shared": dict(self.shared), "zones": dict(self.zones), "unknown": self.unknown,
                "face_up": self.face_up, "groups": [[a, list(o)] for a, o in self.groups]}


@dataclass
class AuditScene:
    """One rendered audit scene.

    Attributes:
        frame: ``(H, W, 3) uint8`` BGR.
        labels: the renderer's labels (``cards`` with quad, visible, owner, face_up; ``hands``).
        table: the table file (players with back colours, ``shared_area`` and ``zones`` in
            image pixels) as a dict.
        truth: the :class:`AuditTruth`.
        scene: the renderer's :class:`~nertz.datasets.render.Scene`.
        seed: the seed.
    """

    frame: np.ndarray
    labels: dict
    table: dict
    truth: AuditTruth
    scene: R.Scene
    seed: int


# ------------------------------------------------------------------------------------------
# spreads in a local frame (mm): (N, 3) poses x, y, angle, bottom card first
def _row_poses(n: int, rng: np.random.Generator) -> np.ndarray:
    d = rng.uniform(10.0, 22.0)
    k = np.arange(n)
    x = k * d + rng.normal(0, 0.8, n)
    y = rng.normal(0, 1.0, n) + k * rng.uniform(-0.6, 0.6)  # a slight drift, as by hand
    a = rng.normal(0, 1.5, n)
    return np.column_stack([x, y, a])


def _fan_poses(n: int, rng: np.random.Generator) -> np.ndarray:
    step = rng.uniform(8.0, 15.0)
    pivot_v = rng.uniform(0.25, 0.45) * CARD_H  # below the card centre, in the card frame
    ang = (np.arange(n) - (n - 1) / 2) * step + rng.normal(0, 0.8, n)
    t = np.deg2rad(ang)
    # card centre = pivot + R(angle) @ (0, -pivot_v)
    x = pivot_v * np.sin(t) + rng.normal(0, 0.6, n)
    y = -pivot_v * np.cos(t) + rng.normal(0, 0.6, n)
    return np.column_stack([x, y, ang])


def _heap_poses(n: int, rng: np.random.Generator, min_visible: float = 0.34) -> np.ndarray:
    """Cards dropped one by one at random places and angles in a disc; a drop is redrawn when
    it would leave an earlier card (or itself) with less than ``min_visible`` of its area in
    view (checked on a 1 px/mm raster)."""
    radius = 35.0 * math.sqrt(n) + 20.0
    size = int(2 * (radius + 70))
    ids = np.zeros((size, size), np.int32)
    area = CARD_W * CARD_H
    poses: list[np.ndarray] = []
    for i in range(n):
        for attempt in range(60):
            r = radius * (1 + attempt / 30) * math.sqrt(rng.random())
            th = rng.uniform(0, 2 * np.pi)
            p = np.array([r * math.cos(th), r * math.sin(th), rng.uniform(-90, 90)])
            c = card_corners(p[None])[0] + size / 2
            trial = ids.copy()
            cv2.fillConvexPoly(trial, np.round(c).astype(np.int32), i + 1)
            if i == 0:
                ok = True
            else:
                counts = np.bincount(trial.ravel(), minlength=i + 2)[1:i + 2]
                ok = bool(np.all(counts >= min_visible * area))
            if ok:
                ids = trial
                poses.append(p)
                break
        else:
            break  # no room: a smaller heap
    return np.array(poses).reshape(-1, 3)


def _turn(poses: np.ndarray, angle: float) -> np.ndarray:
    a = np.deg2rad(angle)
    Rm = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    out = poses.copy()
    out[:, :2] = poses[:, :2] @ Rm.T
    out[:, 2] += angle
    return out


@dataclass
class _Group:
    kind: str
    owners: list[str]
    poses: np.ndarray  # (N, 3) local, bottom first
    lo: np.ndarray = field(default_factory=lambda: np.zeros(2))
    hi: np.ndarray = field(default_factory=lambda: np.zeros(2))


def _group(kind: str, owners: list[str], rng: np.random.Generator) -> _Group:
    n = len(owners)
    if kind == "row":
        p = _row_poses(n, rng)
        if rng.random() < 0.2:  # spread along the card's length (a column)
            p = p[:, [1, 0, 2]].copy()
        p = _turn(p, rng.uniform(-20, 20) + (180.0 if rng.random() < 0.3 else 0.0))
    elif kind == "fan":
        p = _turn(_fan_poses(n, rng), rng.uniform(-30, 30) + float(rng.choice([0, 90, 180, 270])))
    else:
        p = _heap_poses(n, rng)
        owners = owners[:len(p)]
    c = card_corners(p).reshape(-1, 2)
    g = _Group(kind, owners, p)
    g.lo, g.hi = c.min(axis=0), c.max(axis=0)
    return g


def _pack(groups: list[_Group], width: float, gap: tuple[float, float],
          rng: np.random.Generator) -> tuple[list[np.ndarray], float, float]:
    """Shelf packing of the groups' boxes into rows of at most ``width`` mm; returns each
    group's offset and the packed width and height (mm)."""
    order = sorted(range(len(groups)), key=lambda i: -(groups[i].hi[1] - groups[i].lo[1]))
    offs: list[np.ndarray] = [np.zeros(2)] * len(groups)
    x = y = shelf_h = used_w = 0.0
    for i in order:
        g = groups[i]
        w, h = g.hi - g.lo
        if x > 0 and x + w > width:
            y += shelf_h + rng.uniform(*gap)
            x, shelf_h = 0.0, 0.0
        offs[i] = np.array([x, y]) - g.lo + rng.uniform(0, gap[0] / 2, 2)
        x += w + rng.uniform(*gap)
        shelf_h = max(shelf_h, h)
        used_w = max(used_w, x)
    return offs, used_w, y + shelf_h


def _side(angle: float) -> str:
    a = (angle + 180.0) % 360.0 - 180.0
    if abs(a) < 45:
        return "bottom"
    if abs(a) > 135:
        return "top"
    return "left" if a > 0 else "right"


def _make_room(geom: TableGeometry, sw: float, sh: float) -> None:
    """Move the seats so that a shared area of ``sw x sh`` mm (centred) fits between them."""
    margin = 25.0
    sides = [_side(s.angle) for s in geom.seats]
    has_lr = "left" in sides or "right" in sides
    per_row = max(sides.count("bottom"), sides.count("top"), 1)
    if has_lr or per_row > 1:
        sw = max(sw, per_row * geom.zone_w + (per_row - 1) * 40.0 + 20.0)
    if has_lr:
        sh = max(sh, geom.zone_w - 2 * (geom.zone_d + margin) + 20.0)
    for side in ("bottom", "top"):
        seats = [s for s, sd in zip(geom.seats, sides) if sd == side]
        for k, s in enumerate(seats):
            x = 0.0 if len(seats) == 1 else (k - (len(seats) - 1) / 2) * (sw / len(seats))
            y = sh / 2 + margin + geom.zone_d / 2
            s.centre = np.array([x if side == "bottom" else -x, y if side == "bottom" else -y])
    for s, sd in zip(geom.seats, sides):
        if sd in ("left", "right"):
            s.centre = np.array([(sw / 2 + margin + geom.zone_d / 2) * (1 if sd == "right" else -1), 0.0])
    geom.half_w = sw / 2 + (geom.zone_d + 2 * margin if has_lr else margin)
    geom.half_d = sh / 2 + geom.zone_d + 2 * margin
    if has_lr:
        geom.half_d = max(geom.half_d, geom.zone_w / 2 + margin)
    geom.shared = np.array([[-sw / 2, -sh / 2], [sw / 2, -sh / 2], [sw / 2, sh / 2], [-sw / 2, sh / 2]])
    geom.cells = np.zeros((1, 2))
    geom.cell_pose_jitter = np.zeros((1, 3))
    geom.aside = np.zeros(2)


def _deal(counts: dict[str, int], rng: np.random.Generator) -> dict[str, list[str]]:
    """Distinct card identities per owner: ``counts[owner]`` cards of one shuffled 52-card
    deck each (one ``rng.permutation(52)`` per owner, in the order of ``counts``).

    Raises:
        ValueError: a count over :data:`DECK` (a deck holds each card once).
    """
    deck = [r + s for s in _SUITS for r in _RANKS]
    out = {}
    for o, n in counts.items():
        if not 0 <= n <= DECK:
            raise ValueError(f"{n} cards dealt from {o}'s deck, which holds {DECK}")
        out[o] = [deck[i] for i in rng.permutation(DECK)][:n]
    return out


@dataclass
class _Counts:
    """How many cards of each back a scene shows (see the module docstring, *Counts*).

    Attributes:
        shared: player -> face-down cards in the shared area (1 or more).
        zones: player -> face-down cards in their zone (0..12; 0 for the caller).
        caller: who called Nertz, or None.
        stray_colour: the back colour (hex) of an unregistered deck, or None.
        unknown: face-down cards of that deck in the shared area (0 without one).
        face_up: face-up cards in the shared area (anyone's).
        redrawn: the players whose first shared-area draw did not fit their deck.
    """

    shared: dict[str, int]
    zones: dict[str, int]
    caller: str | None
    stray_colour: str | None
    unknown: int
    face_up: int
    redrawn: list[str]


def _draw_counts(seed: int, rng: np.random.Generator, players: list[tuple[str, str]],
                 max_per_player: int | None, extras: bool) -> _Counts:
    """Draw a scene's counts from ``rng`` (the scene's generator, in the order scenes always
    drew them); a shared-area count that, with the player's zone and the face-up cards, would
    exceed :data:`DECK` is drawn again, uniformly in ``1 .. DECK - zone - face_up``, from a
    generator of its own (seeded by ``seed``), so ``rng`` draws the same numbers whether or
    not a count was redrawn. ``max_per_player``: the first draw's upper end, 1..52, or None
    for 60 (as before 2026-12-07; the redraw makes either uniform below the deck's limit)."""
    names = [p for p, _ in players]
    n = len(names)
    top = _FIRST_DRAW if max_per_player is None else int(max_per_player)
    shared = {p: int(rng.integers(1, top + 1)) for p in names}
    caller = names[int(rng.integers(n))] if rng.random() < 0.8 else None
    zones = {p: (0 if p == caller else int(rng.integers(0, 13))) for p in names}
    stray_colour = None
    unknown = 0
    if extras and rng.random() < 0.15 and n < 6:
        far = [c for c in PALETTE if c not in names]
        far = [c for c in far if all(_delta(PALETTE[c], col) > 30 for _, col in players)]
        if far:
            stray_colour = PALETTE[far[int(rng.integers(len(far)))]]
            unknown = int(rng.integers(1, 5))
    face_up = int(rng.integers(1, 6)) if extras and rng.random() < 0.15 else 0
    redraw = np.random.default_rng([int(seed) & 0xFFFFFFFF, 0xA0D17, DECK])
    redrawn = []
    for p in names:
        room = min(top, DECK - zones[p] - face_up)  # >= 35: zones <= 12, face_up <= 5
        if shared[p] > room:
            shared[p] = int(redraw.integers(1, room + 1))
            redrawn.append(p)
    return _Counts(shared, zones, caller, stray_colour, unknown, face_up, redrawn)


# ------------------------------------------------------------------------------------------
def make_audit_scene(seed: int, resolution: tuple[int, int] | None = None, *,
                     n_players: int | None = None, max_per_player: int | None = None,
                     arrangements: tuple[str, ...] = ARRANGEMENTS, hands: bool | None = None,
                     effects: bool = True, extras: bool = True, design: str | None = None,
                     tilt_deg: float | None = None) -> AuditScene:
    """Render one audit scene, everything drawn from ``seed``.

    Args:
        seed: the seed (``numpy.random.default_rng``).
        resolution: ``(width, height)`` pixels; default as the round renderer (1280x720 70 %,
            else 1920x1080).
        n_players: 2..6; default drawn in 2..4.
        max_per_player: largest count of one player's cards in the shared area, 1..52;
            None: as many as their deck holds. Each count is uniform in ``1 .. min(
            max_per_player, 52 - zone - face_up)``: a draw over the deck's limit is drawn
            again (module docstring, *Counts*; before 2026-12-07 the default was 60 and
            nothing was redrawn).
        arrangements: which spreads to use in the shared area (subset of
            :data:`ARRANGEMENTS`).
        hands: True/False to force hands over the table; None: drawn (half the scenes).
        effects: light and sensor effects (False for tests that compare colours).
        extras: allow stray unregistered backs and face-up cards (drawn, 15 % each).
        design: card design (faces) for the renderer; None: drawn.
        tilt_deg: camera tilt; None: drawn as in the round renderer.

    Returns:
        an :class:`AuditScene`.

    Raises:
        ValueError: bad player count, ``max_per_player``, resolution or arrangement.
    """
    if max_per_player is not None and not 1 <= max_per_player <= DECK:
        raise ValueError(f"max_per_player must be 1..{DECK} (a deck holds {DECK} cards), got {max_per_player}")
    if not arrangements or any(a not in ARRANGEMENTS for a in arrangements):
        raise ValueError(f"arrangements must be a non-empty subset of {ARRANGEMENTS}, got {arrangements}")
    rng = np.random.default_rng([int(seed) & 0xFFFFFFFF, 0xA0D17])
    n = int(rng.integers(2, 5)) if n_players is None else int(n_players)
    if not 2 <= n <= 6:
        raise ValueError(f"audit scenes seat 2 to 6 players, got {n}")
    backs = back_palette(n, int(seed))
    players = [(name, colour) for name, colour, _ in backs]
    names = [p for p, _ in players]

    # how many of each back in the shared area and in each zone
    counts = _draw_counts(int(seed), rng, players, max_per_player, extras)
    shared, zones, stray_colour = counts.shared, counts.zones, counts.stray_colour
    unknown, face_up = counts.unknown, counts.face_up

    ids = _deal({**{p: shared[p] + zones[p] for p in names}, _UNKNOWN_OWNER: unknown}, rng)
    shared_cards = [(o, ids[o][k]) for o in names for k in range(shared[o])]
    shared_cards += [(_UNKNOWN_OWNER, ids[_UNKNOWN_OWNER][k]) for k in range(unknown)]
    order = rng.permutation(len(shared_cards))
    shared_cards = [shared_cards[i] for i in order]

    # groups: mixed foundation piles (<= 13 cards each) or sorted by back (<= 20 per spread)
    groups: list[_Group] = []
    if rng.random() < 0.33:
        by_owner: dict[str, list[str]] = {}
        for o, _ in shared_cards:
            by_owner.setdefault(o, []).append(o)
        chunks = []
        for o, lst in by_owner.items():
            k = max(1, math.ceil(len(lst) / 20))
            sizes = np.diff(np.linspace(0, len(lst), k + 1).round().astype(int))
            start = 0
            for sz in sizes:
                chunks.append(lst[start:start + sz])
                start += sz
    else:
        owners = [o for o, _ in shared_cards]
        chunks = []
        i = 0
        while i < len(owners):
            sz = int(rng.integers(4, 14)) if rng.random() < 0.8 else int(rng.integers(1, 14))
            chunks.append(owners[i:i + sz])
            i += sz
    kinds = [a for a in ("row", "fan", "heap") if a in arrangements]
    weights = np.array([{"row": 0.55, "fan": 0.25, "heap": 0.2}[k] for k in kinds])
    leftovers: list[str] = []
    for ch in chunks:
        kind = kinds[int(rng.choice(len(kinds), p=weights / weights.sum()))]
        if kind in ("heap", "fan") and len(ch) > 13:
            kind = "row" if "row" in kinds else kind
        g = _group(kind, ch, rng)
        leftovers += ch[len(g.owners):]
        groups.append(g)
    while leftovers:  # cards a heap had no room for: one more row
        g = _group("row" if "row" in kinds else kinds[0], leftovers[:13], rng)
        leftovers = leftovers[13:] + leftovers[len(g.owners):13]
        groups.append(g)
    total_area = sum(float(np.prod(g.hi - g.lo)) for g in groups)
    width = max(400.0, math.sqrt(total_area * rng.uniform(1.6, 2.6)))
    offs, pw, ph = _pack(groups, width, (20.0, 50.0), rng)
    pad = 25.0
    sw, sh = pw + 2 * pad, ph + 2 * pad

    def hook(geom: TableGeometry) -> None:
        _make_room(geom, sw, sh)

    # a stray deck is drawn by the renderer as one more seated owner (its zone stays empty);
    # the table file leaves it out
    seated = players + ([(_UNKNOWN_OWNER, stray_colour)] if stray_colour else [])
    scene = R.make_scene(seated, seed, resolution, effects=effects, design=design,
                         tilt_deg=tilt_deg, fill=float(rng.uniform(0.84, 0.97)),
                         geometry_hook=hook)
    geom = scene.geometry
    # centre the packing in the (possibly wider) shared area
    s_lo, s_hi = geom.shared.min(axis=0), geom.shared.max(axis=0)
    shift = (s_lo + s_hi) / 2 - np.array([pw, ph]) / 2

    items: list[R._Item] = []
    truth_groups = []
    shared_truth = {p: 0 for p in names}
    ident = {o: iter(v) for o, v in ids.items()}
    for g, off in zip(groups, offs):
        poses = g.poses.copy()
        poses[:, :2] += off + shift
        for o, c in zip(g.owners, card_corners(poses)):
            items.append(R._Item(c, next(ident[o]), o, False))
            if o != _UNKNOWN_OWNER:
                shared_truth[o] += 1
        truth_groups.append((g.kind, list(g.owners)))
    # face-up cards: a foundation not turned over, squared, near a free corner of the area
    for k in range(face_up):
        o = names[int(rng.integers(n))]
        p = np.array([s_lo[0] + 45 + 70 * k, s_lo[1] + 50 + rng.normal(0, 2), rng.normal(0, 8)])
        card = _RANKS[int(rng.integers(13))] + _SUITS[int(rng.integers(4))]
        items.append(R._Item(card_corners(p[None])[0], card, o, True))
    # zones: leftover Nertz cards spread face down
    for p in names:
        m = zones[p]
        if m == 0:
            continue
        seat = geom.seat(p)
        if m > 6 or rng.random() < 0.6:  # a row along the zone
            d = rng.uniform(12.0, 22.0)
            x0 = seat.slot_x[0] + rng.uniform(-5, 30)
            loc = np.column_stack([x0 + np.arange(m) * d + rng.normal(0, 0.8, m),
                                   seat.row_y + 20 + rng.normal(0, 1.0, m)])
        else:  # a short column toward the player, inside the framed part of the zone
            d = min(15.0, 4 * seat.cascade / max(m - 1, 1))
            loc = np.column_stack([seat.slot_x[0] + rng.normal(0, 1.2, m) + 20,
                                   seat.row_y + np.arange(m) * d + rng.normal(0, 0.6, m)])
        xy = seat.to_table(loc)
        ang = seat.angle + rng.normal(0, 2.0, m)
        for c in card_corners(np.column_stack([xy, ang])):
            items.append(R._Item(c, next(ident[p]), p, False))

    hand_list = []
    if (hands is None and rng.random() < 0.5) or hands:
        for _ in range(int(rng.integers(1, 3))):
            o = names[int(rng.integers(n))]
            hand_list.append((o, _resting_hand(scene, o, rng)))
    frame, labels = _render(scene, items, hand_list, rng)
    table = scene.table_file()
    table["players"] = [pl for pl in table["players"] if pl["name"] != _UNKNOWN_OWNER]
    table["zones"].pop(_UNKNOWN_OWNER, None)
    truth = AuditTruth(shared_truth, {p: zones[p] for p in names}, unknown, face_up, truth_groups)
    return AuditScene(frame, labels, table, truth, scene, int(seed))


def _delta(a: str, b: str) -> float:
    from nertz.referee.table import delta_e

    return delta_e(a, b)


def _resting_hand(scene: R.Scene, owner: str, rng: np.random.Generator):
    """A hand reaching from ``owner``'s seat and resting near the edge of the shared area
    (over the edge of a spread, or over the zone)."""
    g = scene.geometry
    seat = g.seat(owner)
    lo, hi = g.shared.min(axis=0), g.shared.max(axis=0)
    toward = seat.centre / (np.linalg.norm(seat.centre) + 1e-9)
    # a point on the shared area's rim on this player's side, or inside the zone
    t = rng.uniform(0.0, 1.0)
    if rng.random() < 0.6:
        edge_pt = np.clip(seat.centre * 0.0 + toward * 1e4, lo, hi)
        along = np.array([-toward[1], toward[0]])
        palm = edge_pt + along * rng.uniform(-0.4, 0.4) * (hi - lo).max() + toward * rng.uniform(10, 90)
    else:
        palm = seat.to_table(np.array([[rng.uniform(-150, 150), rng.uniform(-40, 60)]]))[0]
    shoulder = R._seat_shoulder(scene, owner, palm)
    dirv = palm - shoulder
    dirv /= np.linalg.norm(dirv) + 1e-9
    del t
    hand = hand_shape(scene.hand_styles[owner], dirv, palm, shoulder, hover=float(rng.uniform(8, 30)),
                      grip=float(rng.uniform(0.0, 0.5)))
    return R._lift_hand(scene, hand)


def _render(scene: R.Scene, items: list, hands: list, rng: np.random.Generator) -> tuple[np.ndarray, dict]:
    """Draw cards (bottom first) and resting hands as the round renderer does; returns the
    frame and the labels."""
    canvas = scene.surface.copy()
    ids = np.zeros(scene.id_shape, np.uint16)
    zero = np.zeros(2)
    for i, it in enumerate(items):
        R._draw_item(scene, canvas, zero, it)
        R._fill_ids(ids, scene.to_ids(it.corners), i + 1)
    s = scene.px_per_mm
    sd = scene.light.shadow_dir
    out_hands = []
    for owner, hand in hands:
        lift = 18.0
        pts = hand.skin + hand.sleeve
        shadow_px = sd * (6.0 + 0.35 * lift) * s
        pad = 4 * s + abs(shadow_px).max() + 3 * (2 + 0.08 * lift) * s
        box = R._layer_box(scene, pts, pad, canvas.shape[:2])
        if box is not None:
            x0, y0, x1, y1 = box
            layer = np.zeros((y1 - y0, x1 - x0, 4), np.float32)
            R._hand_layer(scene, layer, np.array([x0, y0], np.float64), hand, scene.hand_styles[owner])
            R._composite_layer(scene, canvas, layer, x0, y0, np.zeros(2), shadow_px,
                               (2 + 0.08 * lift) * s, 0.3)
        hid = R._HAND_ID0 + len(out_hands)
        for poly in R._hand_id_polys(scene, hand):
            cv2.fillPoly(ids, [np.round(poly * 16).astype(np.int32)], hid, cv2.LINE_8, 4)
        out_hands.append((owner, hand, False))
    frame = cv2.remap(canvas, scene.map1, scene.map2, cv2.INTER_LINEAR,
                      borderMode=cv2.BORDER_CONSTANT, borderValue=scene.far_colour)
    labels = R._labels(scene, TableState(0.0, {}), items, [False] * len(items), ids, out_hands, True)
    frame = apply_light_and_sensor(frame, scene.light, scene.sensor, rng)
    return frame, labels


def audit_sheet(n: int = 6, seed: int = 0, resolution: tuple[int, int] = (1280, 720),
                labels: bool = False) -> np.ndarray:
    """A contact sheet of ``n`` audit scenes from seeds ``seed .. seed + n - 1``, each titled
    with its true counts: ``uint8`` BGR."""
    tiles = []
    for k in range(n):
        a = make_audit_scene(seed + k, resolution)
        img = R.draw_labels(a.frame, a.labels) if labels else a.frame.copy()
        txt = " ".join(f"{p}:{c}/{a.truth.zones[p]}" for p, c in a.truth.shared.items())
        txt += f" unk:{a.truth.unknown} up:{a.truth.face_up}"
        cv2.putText(img, txt, (10, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 0), 4, cv2.LINE_AA)
        cv2.putText(img, txt, (10, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 255, 255), 2, cv2.LINE_AA)
        tiles.append(img)
    return R.contact_sheet(tiles, cols=2, tile_width=960)


if __name__ == "__main__":  # pragma: no cover - a tool for looking at renders
    import sys

    out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/audit_sheet.png"
    nn = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    sd0 = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    cv2.imwrite(out, audit_sheet(nn, sd0))
    print(out)
