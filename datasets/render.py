"""Render a :class:`~nertz.datasets.state.TableState` as a webcam frame, with exact labels.

How a frame is made (speed: ``python -m nertz.datasets.render_bench`` prints the figures):

1. Everything is drawn on a top-down *canvas* of the table (``px_per_mm`` pixels per table
   millimetre, chosen per scene so the canvas is as sharp as the sharpest part of the image):
   the surface and clutter (once per scene), then the cards bottom-up, each one
   ``cv2.warpAffine`` of its sprite (card + contact shadow). Lifted things (a pile's top card,
   a card in the air, hands) are drawn at their *flat-equivalent* place (where the camera ray
   through them meets the cloth, :meth:`Camera.lift`), so perspective stays exact.
2. The canvas is warped to the image with one ``cv2.remap`` whose maps hold the homography
   *and* the lens distortion (built once per scene from ``cv2.undistortPointsIter``).
3. Light (gain, glare) and sensor (blur, noise, JPEG) are applied in image space.

The static part (surface + all cards lying still) is cached between frames and rebuilt only
when the cards lying on the table change; moving cards and hands are drawn on top and their
canvas area restored afterwards.

Labels come from the same geometry: each card's quad is its four flat-equivalent corners
projected through the camera; an *id buffer* (a second canvas holding, per pixel, which card or
hand is on top) gives each card's visible fraction and whether an index corner is unoccluded,
from sample points spread over the card (and over its two index corners) that must both show
that card's id and fall inside the frame.

Public API: :func:`make_scene`, :func:`render_frame`, :class:`Scene` (``table_file()``).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

import cv2
import numpy as np

from .camera import RESOLUTIONS, Camera, make_camera
from .cardsprites import SpriteBank, hex_to_bgr, placeholder_back, placeholder_face
from .geometry import CARD_H, CARD_THICKNESS, CARD_W, TableGeometry, card_corners, make_geometry
from .hands import HandShape, HandStyle, hand_shape, make_hand_style
from .light import Lighting, Sensor, apply_light_and_sensor, make_lighting, make_sensor
from .state import InFlight, LayoutState, Slot, TableState, Withdrawing
from .surfaces import SURFACE_KINDS, draw_clutter, make_surface

__all__ = ["Scene", "make_scene", "render_frame", "draw_labels", "contact_sheet", "RESOLUTIONS",
           "card_sample_points", "MAX_PIXELS", "check_pixels"]

_HAND_ID0 = 30000  # ids >= this in the id buffer are hands
MAX_PIXELS = 7680 * 4320
"""The largest frame :func:`make_scene` renders, in pixels (8K UHD, 33 megapixels; about 6 GB
of memory for an audit photo, 1.4 GB at 3840x2160): 100000x60000 failed with a traceback,
unable to allocate 89 GiB."""


def check_pixels(width: int, height: int) -> None:
    """Refuse a frame of more than :data:`MAX_PIXELS` pixels (``width`` x ``height``, pixels),
    before anything is simulated or rendered.

    Raises:
        ValueError: ``resolution WxH is more pixels than 7680x4320 (8K), ...``.
    """
    if width * height > MAX_PIXELS:
        raise ValueError(f"resolution {width}x{height} is more pixels than 7680x4320 (8K), the largest frame "
                         "rendered (it would need tens of gigabytes of memory)")


_PILE_ID = 29999  # the body of a squared pile (its side layers)
_PLAY_TIME = 0.5  # assumed duration of one carried move, s (sets motion-blur length)


# --------------------------------------------------------------------------------------------
# sample points over a card (normalised card coordinates, u across, v down, 0..1)
def _grid(u0: float, u1: float, v0: float, v1: float, nu: int, nv: int) -> np.ndarray:
    uu, vv = np.meshgrid(np.linspace(u0, u1, nu), np.linspace(v0, v1, nv))
    return np.column_stack([uu.ravel(), vv.ravel()])


_CORNER_U = (1.5 / CARD_W, 9.5 / CARD_W)
_CORNER_V = (2.5 / CARD_H, 16.5 / CARD_H)
_BODY = _grid(0.03, 0.97, 0.02, 0.98, 8, 11)
_C1 = _grid(*_CORNER_U, *_CORNER_V, 3, 4)
_C2 = 1.0 - _C1
_SAMPLES = np.vstack([_BODY, _C1, _C2])
_NB, _NC = len(_BODY), len(_C1)


def card_sample_points() -> tuple[np.ndarray, int, int]:
    """The points where visibility is tested, in normalised card coordinates.

    Returns:
        ``(S, 2)`` points (u across 0..1 from the left edge, v down 0..1 from the top edge),
        the number of body points (first), and the number of points per index corner (the
        top-left corner's points follow the body, then the bottom-right corner's).
    """
    return _SAMPLES.copy(), _NB, _NC


# --------------------------------------------------------------------------------------------
@dataclass
class _Item:
    """One card as drawn: flat-equivalent corners (table mm) and what it is."""

    corners: np.ndarray  # (4, 2) TL, TR, BR, BL
    card: str
    owner: str
    face_up: bool
    sprite: str = "card"  # "card" | "edge" | "under" (pile side / body, not labelled)


@dataclass
class Scene:
    """Everything fixed for one rendered round: table, camera, light, sensor, art.

    Build with :func:`make_scene`. Attributes are public for inspection; treat them as
    read-only.

    Attributes:
        seed: the seed everything was drawn from.
        width, height: frame size, pixels. fps: frames per second of the round's video (30).
        players: ``[(name, "#rrggbb")]`` in seating order.
        geometry: the :class:`~nertz.datasets.geometry.TableGeometry`.
        camera: the :class:`~nertz.datasets.camera.Camera`.
        surface_kind: which surface was drawn.
        px_per_mm: canvas scale; origin: ``(2,)`` table mm at the canvas's corner.
        design: name of the card design used ("placeholder" without the art cache).
        clutter_mm: ``(N, 2)`` table mm of the spots where clutter was drawn (empty without
            clutter). free_spots_mm: ``(K, 2)`` table mm of all spots clutter could take.
    """

    seed: int
    width: int
    height: int
    fps: int
    players: list[tuple[str, str]]
    geometry: TableGeometry
    camera: Camera
    surface_kind: str
    px_per_mm: float
    origin: np.ndarray
    surface: np.ndarray
    map1: np.ndarray
    map2: np.ndarray
    id_scale: float
    id_shape: tuple[int, int]
    sprites: SpriteBank
    light: Lighting
    sensor: Sensor
    hand_styles: dict[str, HandStyle]
    design: str
    far_colour: tuple[float, float, float] = (0.0, 0.0, 0.0)
    clutter_mm: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    free_spots_mm: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    _static_key: Any = None
    _static_canvas: np.ndarray | None = None
    _static_ids: np.ndarray | None = None
    _static_items: list[_Item] = field(default_factory=list)

    # -- coordinates ------------------------------------------------------------------------
    def to_canvas(self, pts: np.ndarray) -> np.ndarray:
        """Table mm ``(..., 2)`` -> canvas pixel coordinates (pixel centres at integers)."""
        return (np.asarray(pts, np.float64) - self.origin) * self.px_per_mm - 0.5

    def to_ids(self, pts: np.ndarray) -> np.ndarray:
        """Table mm ``(..., 2)`` -> id-buffer pixel coordinates."""
        return (np.asarray(pts, np.float64) - self.origin) * self.id_scale - 0.5

    def table_file(self) -> dict:
        """The table file of the contract for this scene: players with back colours, the shared
        area and each zone as image-pixel polygons (distortion applied, edges densified), and
        ``calibration.frame_size``, the frames' ``[width, height]`` in pixels."""
        g = self.geometry

        def poly(p: np.ndarray) -> list[list[float]]:
            p = np.asarray(p, np.float64)
            dense = np.vstack([p[i] + (p[(i + 1) % len(p)] - p[i]) * t
                               for i in range(len(p)) for t in np.linspace(0, 1, 8, endpoint=False)])
            uv = self.camera.project(dense)
            return [[round(float(x), 1), round(float(y), 1)] for x, y in uv]

        return {"players": [{"name": n, "back": c} for n, c in self.players],
                "shared_area": poly(g.shared),
                "zones": {n: poly(g.zone_polygon(n)) for n, _ in self.players},
                # the frames' size, as `nertz calibrate` writes it: a photo or video of another
                # size is fitted or refused (nertz.vision.audit.fit_table, sources.table_misfit)
                "calibration": {"method": "synthetic", "frame_size": [int(self.camera.width), int(self.camera.height)]}}


# --------------------------------------------------------------------------------------------
def _art(design: str | None, rng: np.random.Generator, players: list[tuple[str, str]],
         seed: int) -> tuple[str, dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Faces and backs.

    Faces: :func:`nertz.datasets.art.load_deck` of ``design`` (drawn from the cached designs
    when None); placeholders when ``design == "placeholder"`` or when the art cache is missing
    and no design was asked for. Backs: :func:`nertz.datasets.art.make_back` in each player's
    colour, one style for the whole table half the time (only the colour tells the decks
    apart), else a style per player.

    Raises:
        ValueError: a design that is not in the art cache (or asked for without the cache).
    """
    from . import art

    name = "placeholder"
    faces: dict[str, np.ndarray] | None = None
    if design != "placeholder":
        try:
            designs = list(art.list_designs())
        except art.ArtMissingError as e:
            if design is not None:
                raise ValueError(str(e)) from None
            designs = []
        if design is not None and design not in designs:
            raise ValueError(f"unknown card design {design!r}; available: {designs}")
        if designs:
            name = design if design is not None else designs[int(rng.integers(len(designs)))]
            faces = dict(art.load_deck(name))
    if faces is None:
        ranks, suits = "A23456789TJQK", "SHDC"
        faces = {r + s: placeholder_face(r + s) for s in suits for r in ranks}
        faces["JK"] = placeholder_face("JK")
    style_seed = int(rng.integers(1 << 31))
    styles = [s for s in art.BACK_STYLES if s != "printed" or name != "placeholder"]
    shared_style = styles[int(rng.integers(len(styles)))] if rng.random() < 0.5 else None
    backs: dict[str, np.ndarray] = {}
    for k, (pname, colour) in enumerate(players):
        style = shared_style if shared_style is not None else styles[int(rng.integers(len(styles)))]
        try:
            img = np.asarray(art.make_back(style, colour, style_seed + k, (252, 352)))
        except art.ArtMissingError:
            img = placeholder_back(hex_to_bgr(colour), seed=style_seed + k)
        backs[pname] = img
    return name, faces, backs


def make_scene(players: Iterable[tuple[str, str]] | Iterable[dict], seed: int,
               resolution: tuple[int, int] | None = None, *, surface: str | None = None,
               surface_colour: tuple[int, int, int] | None = None,
               tilt_deg: float | None = None, fov_deg: float | None = None,
               fill: float | None = None, distortion: bool = True, design: str | None = None,
               effects: bool = True, clutter: bool = True, view_clutter: bool = True, card_jitter: float = 1.0,
               table_edge: bool | None = None,
               max_canvas_px: float = 9e6,
               geometry_hook: "Callable[[TableGeometry], None] | None" = None) -> Scene:
    """Build the fixed part of a rendered round.

    Args:
        players: 2..6 ``(name, "#rrggbb")`` pairs or ``{"name":, "back":}`` dicts (the table
            file's ``players``), in seating order.
        seed: everything below is drawn from ``numpy.random.default_rng(seed)``.
        resolution: ``(width, height)`` pixels; default: 1280x720 (70 %) or 1920x1080. Any
            size from 64x36 up to :data:`MAX_PIXELS` pixels works (tests use tiny frames).
        surface: one of ``wood felt cloth pattern plain`` or ``uniform``; default: drawn.
        surface_colour: BGR base colour of the surface (``uniform`` defaults to grey).
        tilt_deg: camera tilt off vertical (0..60); default drawn in 0..35 (0 for 20 %).
        fov_deg: diagonal field of view; default drawn in 60..78 (common webcams).
        fill: how much of the frame the play region fills; default drawn in 0.86..1.04.
            Above 1.05 the camera is a close-up on a random window of the play region
            (``1/fill`` of its size), so cards look larger and sharper.
        distortion: False for an ideal pinhole lens.
        design: card design name from :mod:`nertz.datasets.art`, ``"placeholder"``, or None to
            draw one (placeholder faces when the art cache is missing).
        effects: False turns off light (gain 1, no glare) and sensor effects (no blur, noise or
            JPEG): for tests that compare pixels with the table colour.
        clutter: draw mugs, phones, score pads, papers, books... around the play region
            (:func:`nertz.datasets.surfaces.draw_clutter`; where: ``Scene.clutter_mm``).
        view_clutter: with ``clutter``, also the newer kinds in free places the camera sees
            (their own generator: False gives the scene drawn before they were added).
        card_jitter: scale of each card's own misalignment on its pile (0: squared piles).
        table_edge: True: the table ends 60-260 mm beyond the play region (edge band, floor
            beyond it); False: the surface fills the view; None: drawn (half the scenes).
        max_canvas_px: upper bound on the canvas size (pixels), trading sharpness for speed.
        geometry_hook: called with the freshly drawn
            :class:`~nertz.datasets.geometry.TableGeometry` before the camera is placed; it
            may move seats and the shared area in place (audit scenes use it to make room for
            spread-out cards). It must draw no numbers from the scene's generator.

    Returns:
        a :class:`Scene`.

    Raises:
        ValueError: bad player list, colour, resolution, surface, tilt or field of view.
    """
    plist: list[tuple[str, str]] = []
    for p in players:
        if isinstance(p, dict):
            plist.append((str(p["name"]), str(p["back"])))
        else:
            n, c = p
            plist.append((str(n), str(c)))
    for _, c in plist:
        hex_to_bgr(c)
    rng = np.random.default_rng(seed)
    if resolution is None:
        resolution = RESOLUTIONS[0] if rng.random() < 0.7 else RESOLUTIONS[1]
    width, height = int(resolution[0]), int(resolution[1])
    if width < 64 or height < 36:
        raise ValueError(f"resolution must be at least 64x36, got {width}x{height}")
    check_pixels(width, height)
    if surface is not None and surface not in SURFACE_KINDS + ("uniform",):
        raise ValueError(f"unknown surface {surface!r}; choose from {SURFACE_KINDS + ('uniform',)}")

    geom = make_geometry([n for n, _ in plist], rng, seed)
    geom.card_jitter = float(card_jitter)
    if geometry_hook is not None:
        geometry_hook(geom)
    region = geom.region_polygon()
    # frame what usually holds cards: each zone's row plus a 4-card cascade, and the shared
    # area (longer cascades may run out of the frame, as on a real table)
    core = [geom.shared]
    for seat in geom.seats:
        w = geom.zone_w / 2
        y0 = -geom.zone_d / 2
        y1 = seat.row_y + CARD_H / 2 + 4 * seat.cascade
        core.append(seat.to_table(np.array([[-w, y0], [w, y0], [w, y1], [-w, y1]])))
    core_pts = np.vstack(core)
    if fill is not None and fill > 1.05:
        # a close-up: frame a random window of the play region, 1/fill of its size
        lo_c, hi_c = core_pts.min(axis=0), core_pts.max(axis=0)
        size = (hi_c - lo_c) / fill
        start = lo_c + rng.uniform(0, 1, 2) * (hi_c - lo_c - size)
        core_pts = np.array([start, [start[0] + size[0], start[1]], start + size,
                             [start[0], start[1] + size[1]]])
        fill = 1.0
    cam = make_camera(rng, width, height, core_pts, tilt_deg=tilt_deg, fov_deg=fov_deg,
                      fill=fill, distortion=distortion)

    # canvas: what the camera sees of the cloth, at the image's sharpest sampling
    gx, gy = np.meshgrid(np.linspace(0, width - 1, 33), np.linspace(0, height - 1, 19))
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    tab = cam.pixels_to_table(grid).reshape(19, 33, 2)
    du = np.linalg.norm(np.diff(tab, axis=1), axis=-1) / (width - 1) * 32
    dv = np.linalg.norm(np.diff(tab, axis=0), axis=-1) / (height - 1) * 18
    mm_per_px = float(np.nanmin(np.concatenate([du.ravel(), dv.ravel()])))
    s = 1.0 / max(mm_per_px, 1e-3)
    finite = tab.reshape(-1, 2)[np.all(np.isfinite(tab.reshape(-1, 2)), axis=1)]
    lim = np.array([geom.half_w + 1200, geom.half_d + 1200])
    lo = np.maximum(finite.min(axis=0), -lim) - 30
    hi = np.minimum(finite.max(axis=0), lim) + 30
    lo = np.minimum(lo, region.min(axis=0) - 30)
    hi = np.maximum(hi, region.max(axis=0) + 30)
    area = float(np.prod(hi - lo))
    s = float(min(s * 1.05, 5.0, math.sqrt(max_canvas_px / area)))
    cw, ch = int(math.ceil((hi[0] - lo[0]) * s)), int(math.ceil((hi[1] - lo[1]) * s))

    kind = surface if surface is not None else str(rng.choice(SURFACE_KINDS))
    surf = make_surface(kind, ch, cw, s, rng, surface_colour)
    table_rect = None
    if kind != "uniform" and table_edge is not False and (table_edge or rng.random() < 0.5):
        # a table that ends in view: edge band, floor beyond
        ext = rng.uniform(60, 260, 4)
        table_rect = np.array([-geom.half_w - ext[0], -geom.half_d - ext[1],
                               geom.half_w + ext[2], geom.half_d + ext[3]])
        _table_edge(surf, s, lo, table_rect, rng)
    clutter_mm = free_mm = np.zeros((0, 2))
    if clutter and kind != "uniform":
        spots = []
        for cx in (-1, 1):
            for cy in (-1, 1):
                spots.append([cx * (geom.half_w + 90), cy * (geom.half_d - 120)])
                spots.append([cx * (geom.half_w - 150), cy * (geom.half_d + 100)])
        spots_a = np.array(spots)
        if table_rect is not None:
            keep = ((spots_a[:, 0] > table_rect[0] + 60) & (spots_a[:, 0] < table_rect[2] - 60)
                    & (spots_a[:, 1] > table_rect[1] + 60) & (spots_a[:, 1] < table_rect[3] - 60))
            spots_a = spots_a[keep]
        # the newer clutter kinds come from their own generator (derived from the seed), so
        # the scene generator's stream is what it was before they were added; they also take
        # free places the camera sees (the spots above are mostly out of view)
        extra_rng = np.random.default_rng([int(seed), 0xC1077E5]) if view_clutter else None
        view_mm = _view_spots(geom, finite, table_rect, extra_rng, avoid=spots_a) if view_clutter else np.zeros((0, 2))
        clutter_mm = draw_clutter(surf, s, lo, spots_a, rng, extra_rng=extra_rng, extra_spots_mm=view_mm)
        free_mm = np.vstack([spots_a.reshape(-1, 2), view_mm])

    # remap: image pixel -> canvas coordinate (homography + distortion in one map)
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float64)
    t = cam.pixels_to_table(np.column_stack([xx.ravel(), yy.ravel()]))
    cxy = (t - lo) * s - 0.5
    cxy[~np.all(np.isfinite(cxy), axis=1)] = -10.0
    mx = cxy[:, 0].reshape(height, width).astype(np.float32)
    my = cxy[:, 1].reshape(height, width).astype(np.float32)
    map1, map2 = cv2.convertMaps(mx, my, cv2.CV_16SC2)

    id_scale = min(s, 1.5)
    id_shape = (int(math.ceil((hi[1] - lo[1]) * id_scale)), int(math.ceil((hi[0] - lo[0]) * id_scale)))

    light = make_lighting(rng, width, height, enabled=effects)
    sensor = make_sensor(rng, width, height, enabled=effects)
    design_name, faces, backs = _art(design, rng, plist, seed)
    tint = None
    if effects:
        tint = np.clip(np.array([1.0, 1.0, 1.0]) * rng.uniform(0.9, 1.0) + rng.uniform(-0.03, 0.03, 3),
                       0.8, 1.0)
    sprites = SpriteBank(s, faces, backs, shadow=float(rng.uniform(0.2, 0.45)) if effects else 0.25,
                         tint=tint)
    styles = {}
    for seat in geom.seats:
        styles[seat.name] = make_hand_style(rng, seat.right_handed)
    # beyond the canvas (far side of a steep view): the mean colour of the canvas's rim
    rim = np.concatenate([surf[:8].reshape(-1, 3), surf[-8:].reshape(-1, 3),
                          surf[:, :8].reshape(-1, 3), surf[:, -8:].reshape(-1, 3)])
    far = tuple(float(v) for v in rim.mean(axis=0))
    return Scene(seed=seed, width=width, height=height, fps=30, players=plist, geometry=geom,
                 camera=cam, surface_kind=kind, px_per_mm=s, origin=lo, surface=surf, map1=map1,
                 map2=map2, id_scale=id_scale, id_shape=id_shape, sprites=sprites, light=light,
                 sensor=sensor, hand_styles=styles, design=design_name, far_colour=far,
                 clutter_mm=np.asarray(clutter_mm, np.float64).reshape(-1, 2),
                 free_spots_mm=np.asarray(free_mm, np.float64).reshape(-1, 2))


def _view_spots(geom: TableGeometry, seen_mm: np.ndarray, table_rect: np.ndarray | None,
                rng: np.random.Generator, avoid: np.ndarray, clear: float = 95.0,
                apart: float = 230.0, most: int = 4) -> np.ndarray:
    """Free places for clutter that the camera sees: ``(K, 2)`` table mm, at most ``most``,
    each at least ``clear`` mm from every zone and the shared area (and from the table's edge
    when it ends in view) and ``apart`` mm from each other and from ``avoid`` (``(M, 2)`` mm).

    Candidates: a 40 mm grid over the bounding box of ``seen_mm`` (``(N, 2)`` table mm of a grid
    of image pixels), kept where inside the convex hull of those points, taken in ``rng``'s
    random order."""
    pts = np.asarray(seen_mm, np.float64).reshape(-1, 2)
    if len(pts) < 3:
        return np.zeros((0, 2))
    hull = cv2.convexHull(pts.astype(np.float32))
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    gx, gy = np.meshgrid(np.arange(lo[0], hi[0], 40.0), np.arange(lo[1], hi[1], 40.0))
    cand = np.column_stack([gx.ravel(), gy.ravel()])
    if len(cand) == 0:
        return np.zeros((0, 2))
    polys = [geom.zone_polygon(s.name) for s in geom.seats] + [geom.shared]

    def dist_out(poly: np.ndarray, q: np.ndarray) -> float:  # > 0 outside the polygon, mm
        return -cv2.pointPolygonTest(poly.astype(np.float32).reshape(-1, 1, 2), (float(q[0]), float(q[1])), True)

    chosen: list[np.ndarray] = []
    avoid = np.asarray(avoid, np.float64).reshape(-1, 2)
    for q in cand[rng.permutation(len(cand))]:
        if len(chosen) >= most:
            break
        if cv2.pointPolygonTest(hull, (float(q[0]), float(q[1])), True) < clear / 2:
            continue
        if any(dist_out(p, q) < clear for p in polys):
            continue
        if table_rect is not None:
            x0, y0, x1, y1 = table_rect
            if min(abs(q[0] - x0), abs(q[0] - x1), abs(q[1] - y0), abs(q[1] - y1)) < clear:
                continue
        near = np.vstack([avoid] + [c[None] for c in chosen]) if chosen or len(avoid) else np.zeros((0, 2))
        if len(near) and np.min(np.linalg.norm(near - q, axis=1)) < apart:
            continue
        chosen.append(q)
    return np.array(chosen, np.float64).reshape(-1, 2)


def _table_edge(surf: np.ndarray, s: float, origin: np.ndarray, rect: np.ndarray,
                rng: np.random.Generator) -> None:
    """Replace everything outside ``rect`` (x0, y0, x1, y1 table mm) by a darker floor, with an
    edge band (the table's rim) and a soft shadow on the floor along it. In place."""
    h, w = surf.shape[:2]
    floor_kind = str(rng.choice(["wood", "plain", "felt"]))
    floor = make_surface(floor_kind, h, w, s, rng)
    floor = cv2.GaussianBlur(floor, (0, 0), 1.5)
    floor = (floor.astype(np.float32) * rng.uniform(0.35, 0.7)).astype(np.uint8)
    r = (rect.reshape(2, 2) - origin) * s - 0.5
    mask = np.zeros((h, w), np.uint8)
    rad = int(rng.uniform(0, 60) * s)
    x0, y0, x1, y1 = r.ravel()
    cv2.rectangle(mask, (int(x0), int(y0)), (int(x1), int(y1)), 255, -1)
    if rad > 2:
        mask = cv2.GaussianBlur(mask, (0, 0), rad / 3)
        mask = np.where(mask > 127, 255, 0).astype(np.uint8)
    # shadow of the table on the floor, then the rim band
    shadow = cv2.GaussianBlur(mask, (0, 0), max(2.0, 25 * s)).astype(np.float32) / 255
    floor = (floor * (1 - 0.6 * shadow[..., None])).astype(np.uint8)
    band = max(1, int(rng.uniform(6, 25) * s))
    inner = cv2.erode(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * band + 1, 2 * band + 1)))
    rim = (mask > 0) & (inner == 0)
    tone = rng.uniform(0.55, 1.1)
    surf[rim] = np.clip(surf[rim].astype(np.float32) * tone, 0, 255).astype(np.uint8)
    a = cv2.GaussianBlur(mask, (0, 0), 0.7).astype(np.float32)[..., None] / 255
    surf[:] = (surf * a + floor * (1 - a)).astype(np.uint8)


# --------------------------------------------------------------------------------------------
# drawing helpers
def _blit(canvas: np.ndarray, sprite: np.ndarray, m: int, w: int, h: int,
          dst: np.ndarray) -> None:
    """Composite ``sprite`` (BGRA, card of ``w x h`` at margin ``m``) onto ``canvas`` so the
    card's TL, TR, BL corners land on ``dst`` (3, 2) canvas coordinates."""
    src = np.float32([[m - 0.5, m - 0.5], [m + w - 0.5, m - 0.5], [m - 0.5, m + h - 0.5]])
    M = cv2.getAffineTransform(src, dst.astype(np.float32))
    sh, sw = sprite.shape[:2]
    box = np.array([[0, 0, 1], [sw, 0, 1], [sw, sh, 1], [0, sh, 1]], np.float64) - [0.5, 0.5, 0]
    pts = box @ M.T
    x0 = max(int(math.floor(pts[:, 0].min())), 0)
    y0 = max(int(math.floor(pts[:, 1].min())), 0)
    x1 = min(int(math.ceil(pts[:, 0].max())) + 1, canvas.shape[1])
    y1 = min(int(math.ceil(pts[:, 1].max())) + 1, canvas.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    M[:, 2] -= (x0, y0)
    warped = cv2.warpAffine(sprite, M, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    roi = canvas[y0:y1, x0:x1]
    a = warped[..., 3].astype(np.float32) * np.float32(1 / 255)
    if roi.dtype == np.uint8:
        roi[:] = cv2.blendLinear(warped[..., :3], roi, a, 1.0 - a)
    else:  # float layer (BGRA float32, colour premultiplied by alpha)
        a3 = a[..., None]
        roi[..., :3] = warped[..., :3].astype(np.float32) * a3 + roi[..., :3] * (1 - a3)
        roi[..., 3] = a + roi[..., 3] * (1 - a)


def _fill_ids(ids: np.ndarray, quad_px: np.ndarray, value: int) -> None:
    cv2.fillConvexPoly(ids, np.round(quad_px * 16).astype(np.int32), int(value), cv2.LINE_8, 4)


def _draw_item(scene: Scene, canvas: np.ndarray, origin_px: np.ndarray, it: _Item) -> None:
    sp = scene.sprites
    if it.sprite == "edge":
        img = sp.edge()
    elif it.face_up:
        img = sp.face(it.card)
    else:
        img = sp.back(it.owner)
    c = scene.to_canvas(it.corners) - origin_px
    _blit(canvas, img, sp.m, sp.w, sp.h, c[[0, 1, 3]])


# --------------------------------------------------------------------------------------------
# static layout -> items
def _lifted(scene: Scene, pose: np.ndarray, h: float, scale: float = 1.0) -> np.ndarray:
    c = card_corners(pose[None], scale)[0]
    if h == 0.0:
        return c
    return scene.camera.lift(c, h)


def _pile(scene: Scene, items: list[_Item], slot: Slot, cards: list[str], owners: list[str],
          face_up: list[bool], individual: int, base_h: float = 0.0) -> None:
    """A squared pile: a few edge layers for its thickness, then the top ``individual`` cards."""
    n = len(cards)
    if n == 0:
        return
    g = scene.geometry
    hidden = n - individual
    if hidden > 0:
        layers = min(hidden, 4)
        for k in range(layers):
            d = int(k * hidden / layers)
            pose = g.pose(slot, 0, f"edge{k}")
            # the pile's side shows card edges; the layer just under the top of a face-down
            # pile shows its back where it peeks out
            kind = "under" if (k == layers - 1 and not face_up[hidden - 1]) else "edge"
            items.append(_Item(_lifted(scene, pose, base_h + d * CARD_THICKNESS), "",
                               owners[hidden - 1], False, kind))
    for i in range(max(0, hidden), n):
        pose = g.pose(slot, 0, cards[i])
        items.append(_Item(_lifted(scene, pose, base_h + (i + 1) * CARD_THICKNESS), cards[i],
                           owners[i], face_up[i]))


def _static_key(state: TableState) -> tuple:
    lay = tuple(
        (o, len(L.nertz), L.nertz[-1] if L.nertz else None, tuple(tuple(w) for w in L.work),
         len(L.stock), len(L.waste), tuple(L.waste[-6:]), tuple(L.spread))
        for o, L in sorted(state.layouts.items()))
    fnd = tuple((f.pile, len(f.cards), tuple(f.cards[-6:]), f.cards[0] if f.cards else None,
                 f.completed) for f in state.foundations)
    return lay, fnd


def _static_items(scene: Scene, state: TableState) -> list[_Item]:
    items: list[_Item] = []
    g = scene.geometry
    for name, _ in scene.players:
        L: LayoutState | None = state.layouts.get(name)
        if L is None:
            continue
        # Nertz pile: face down with the top face up
        n = len(L.nertz)
        _pile(scene, items, Slot("nertz", name), L.nertz, [name] * n,
              [False] * (n - 1) + [True], individual=1)
        for wi, pile in enumerate(L.work[:4]):
            for d, card in enumerate(pile):
                pose = g.pose(Slot("work", name, wi), d, card)
                items.append(_Item(_lifted(scene, pose, (d + 1) * CARD_THICKNESS), card, name, True))
        n = len(L.stock)
        _pile(scene, items, Slot("stock", name), L.stock, [name] * n, [False] * n, individual=1)
        n = len(L.waste)
        _pile(scene, items, Slot("waste", name), L.waste, [name] * n, [True] * n, individual=4)
        for d, card in enumerate(L.spread):
            pose = g.pose(Slot("spread", name), d, card)
            items.append(_Item(_lifted(scene, pose, CARD_THICKNESS), card, name, False))
    done = 0
    for f in state.foundations:
        if not f.cards:
            continue
        cards = [c for c, _ in f.cards]
        owners = [o for _, o in f.cards]
        if f.completed:
            # turned over: the ace is now on top, backs up; heaped at the aside spot
            rc, ro = cards[::-1], owners[::-1]
            _pile(scene, items, Slot("aside", None, done), rc, ro, [False] * len(rc), individual=2,
                  base_h=done * 13 * CARD_THICKNESS * 0.5)
            done += 1
        else:
            _pile(scene, items, Slot("foundation", None, f.pile), cards, owners,
                  [True] * len(cards), individual=4)
    return items


def _build_static(scene: Scene, state: TableState) -> None:
    key = _static_key(state)
    if key == scene._static_key and scene._static_canvas is not None:
        return
    items = _static_items(scene, state)
    canvas = scene.surface.copy()
    ids = np.zeros(scene.id_shape, np.uint16)
    zero = np.zeros(2)
    for i, it in enumerate(items):
        _draw_item(scene, canvas, zero, it)
        _fill_ids(ids, scene.to_ids(it.corners), i + 1 if it.sprite == "card" else _PILE_ID)
    scene._static_key = key
    scene._static_canvas = canvas
    scene._static_ids = ids
    scene._static_items = items


# --------------------------------------------------------------------------------------------
# moving cards and hands
def _slot_top_pose(scene: Scene, state: TableState, slot: Slot, card: str, j: int,
                   leaving: bool) -> tuple[np.ndarray, float]:
    """Pose and height where ``card`` (``j``-th of a carried block) lies in ``slot``.

    ``leaving``: the slot is the source (the block was on top of what is there now);
    otherwise the destination (the block will go on top).
    """
    g = scene.geometry
    kind = slot.kind
    depth = 0
    count = 0
    if kind in ("nertz", "work", "waste", "stock", "spread") and slot.owner in state.layouts:
        L = state.layouts[slot.owner]
        pile = {"nertz": L.nertz, "waste": L.waste, "stock": L.stock, "spread": L.spread,
                "work": L.work[slot.index] if 0 <= slot.index < len(L.work) else []}[kind]
        count = len(pile)
        if kind in ("work", "spread"):
            depth = count + j
    elif kind == "foundation":
        for f in state.foundations:
            if f.pile == slot.index and not f.completed:
                count = len(f.cards)
    pose = g.pose(slot, depth, card)
    h = (count + j + 1) * CARD_THICKNESS
    return pose, h


_MJ_TAU = np.linspace(0.0, 1.0, 201)
_MJ_POS = 10 * _MJ_TAU ** 3 - 15 * _MJ_TAU ** 4 + 6 * _MJ_TAU ** 5


def _mj_speed(p: float) -> float:
    """d(progress)/d(time fraction) of a minimum-jerk move at progress ``p`` (the simulator's
    profile, Flash & Hogan 1985: ``s = 10 tau^3 - 15 tau^4 + 6 tau^5``)."""
    tau = float(np.interp(p, _MJ_POS, _MJ_TAU))
    return 30 * tau * tau * (1 - tau) * (1 - tau)


@dataclass
class _Moving:
    items: list[_Item]
    hand: HandShape | None
    owner: str
    blur_mm: np.ndarray  # (2,) motion during the exposure, table mm
    lift: float


def _seat_shoulder(scene: Scene, owner: str, toward: np.ndarray) -> np.ndarray:
    seat = scene.geometry.seat(owner)
    sp = seat.seat_point(scene.geometry.zone_d / 2 + 330.0)
    # shoulder offset sideways toward the playing hand
    side = seat.to_table(np.array([[120.0 if seat.right_handed else -120.0,
                                    scene.geometry.zone_d / 2 + 330.0]]))[0]
    return 0.5 * sp + 0.5 * side + 0.0 * toward


def _moving(scene: Scene, state: TableState, fl: InFlight) -> _Moving:
    g = scene.geometry
    p = float(min(max(fl.progress, 0.0), 1.0))
    e = p  # the simulator's progress already follows a minimum-jerk profile
    items: list[_Item] = []
    src0, _ = _slot_top_pose(scene, state, fl.src, fl.cards[0], 0, True)
    dst0, _ = _slot_top_pose(scene, state, fl.dst, fl.cards[0], 0, False)
    key = f"arc/{fl.owner}/{fl.cards[0]}/{fl.src}/{fl.dst}"
    jit = g._jit(key)
    d = dst0[:2] - src0[:2]
    dist = float(np.linalg.norm(d))
    nrm = np.array([-d[1], d[0]]) / (dist + 1e-9)
    arc = 0.12 * dist * jit[0]
    lift = (25.0 + min(dist, 600) * 0.12) * (0.8 + 0.2 * jit[1]) * math.sin(math.pi * p)
    # motion blur: displacement during the exposure
    dedt = _mj_speed(p)
    vel = (d + nrm * arc * math.pi * math.cos(math.pi * p)) * dedt / _PLAY_TIME
    blur = vel * scene.sensor.exposure_s
    top = None
    for j, card in enumerate(fl.cards):
        s_pose, s_h = _slot_top_pose(scene, state, fl.src, card, j, True)
        d_pose, d_h = _slot_top_pose(scene, state, fl.dst, card, j, False)
        da = (d_pose[2] - s_pose[2] + 180.0) % 360.0 - 180.0
        xy = s_pose[:2] + (d_pose[:2] - s_pose[:2]) * e + nrm * arc * math.sin(math.pi * p)
        ang = s_pose[2] + da * e
        h = s_h + (d_h - s_h) * e + lift + j * CARD_THICKNESS
        corners = scene.camera.lift(card_corners(np.array([[xy[0], xy[1], ang]]))[0], h)
        items.append(_Item(corners, card, fl.owner, fl.face_up))
        top = (xy, ang, h)
    assert top is not None
    # the hand grips the block's last card at its lower edge, coming from the player's seat
    xy, ang, h = top
    seat = g.seat(fl.owner)
    shoulder = _seat_shoulder(scene, fl.owner, xy)
    to_card = xy - shoulder
    to_card /= np.linalg.norm(to_card) + 1e-9
    palm = xy - to_card * (CARD_H * 0.5 + 52.0)
    style = scene.hand_styles[fl.owner]
    hand = hand_shape(style, to_card, palm, shoulder, hover=h + 12.0, grip=0.75)
    hand = _lift_hand(scene, hand)
    return _Moving(items, hand, fl.owner, blur, h)


def _lift_hand(scene: Scene, hand: HandShape) -> HandShape:
    cam = scene.camera
    hmax = cam.height_mm * 0.6
    def up(polys: list[np.ndarray] | None, hs: list[np.ndarray] | None) -> list[np.ndarray]:
        return [cam.lift(p, np.minimum(h, hmax)) for p, h in zip(polys or [], hs or [])]

    return HandShape(up(hand.skin, hand.skin_h), hand.skin_h, up(hand.sleeve, hand.sleeve_h),
                     hand.sleeve_h, hand.hand_only, up(hand.nails, hand.nails_h), hand.nails_h)


def _empty_hand(scene: Scene, owner: str, palm: np.ndarray, hover: float, grip: float) -> HandShape:
    """``owner``'s empty hand with its palm at ``palm`` (table millimetres ``(2,)``), pointing
    away from its shoulder, ``hover`` mm above the cloth, fingers closed by ``grip`` (0..1)."""
    shoulder = _seat_shoulder(scene, owner, palm)
    dirv = palm - shoulder
    dirv /= np.linalg.norm(dirv) + 1e-9
    return _lift_hand(scene, hand_shape(scene.hand_styles[owner], dirv, palm, shoulder, hover=hover, grip=grip))


def _idle_hand(scene: Scene, owner: str, t: float) -> HandShape:
    return _empty_hand(scene, owner, _idle_palm(scene, owner, t), hover=18.0, grip=0.25)


def _withdrawing_hand(scene: Scene, state: TableState, w: Withdrawing) -> tuple[HandShape, float]:
    """The empty hand of ``w`` on its way from where it let go (gripping as :func:`_moving`
    left it) to its rest (:func:`_idle_hand`), and its height above the cloth, mm."""
    pose, h = _slot_top_pose(scene, state, w.slot, w.card, -1, True)  # the card it let go of
    xy = pose[:2]
    to_card = xy - _seat_shoulder(scene, w.owner, xy)
    to_card /= np.linalg.norm(to_card) + 1e-9
    start = xy - to_card * (CARD_H * 0.5 + 52.0)
    e = float(min(max(w.progress, 0.0), 1.0))
    palm = start + (_idle_palm(scene, w.owner, state.t) - start) * e
    lift = (h + 12.0) * (1.0 - e) + 18.0 * e
    return _empty_hand(scene, w.owner, palm, hover=lift, grip=0.75 - 0.5 * e), lift


def _idle_palm(scene: Scene, owner: str, t: float) -> np.ndarray:
    """Where ``owner``'s resting hand's palm is at time ``t``: table millimetres ``(2,)``."""
    g = scene.geometry
    seat = g.seat(owner)
    jit = g._jit(f"idle/{owner}")
    ph = jit[0] * 10
    # rests between the layout and the player, near the stock and waste, drifting slowly
    lx = (seat.slot_x[5] + seat.slot_x[6]) / 2 + 25 * math.sin(0.6 * t + ph) - 60 * (1 + jit[1])
    if not seat.right_handed:
        lx = seat.slot_x[0] + 40 + 25 * math.sin(0.6 * t + ph)
    ly = seat.row_y + CARD_H * 0.5 + 30 + 20 * math.sin(0.43 * t + 2 * ph)
    return seat.to_table(np.array([[lx, ly]]))[0]


def _hand_layer(scene: Scene, layer: np.ndarray, origin_px: np.ndarray, hand: HandShape,
                style: HandStyle) -> None:
    """Draw a shaded hand onto a float BGRA layer (colour premultiplied by alpha).

    Shading: skin colour times a blurred copy of the hand's coverage (dark at the rims, bright
    in the middle, like a rounded surface lit from above), darker seams around the fingers,
    a sleeve shaded the same way. Computed at half the canvas resolution (a hand has no fine
    detail) and scaled up.
    """
    s = scene.px_per_mm
    hh, ww = layer.shape[:2]
    f = 0.5 if min(hh, ww) >= 16 else 1.0
    sh, sw = max(1, int(math.ceil(hh * f))), max(1, int(math.ceil(ww * f)))

    def pts(poly: np.ndarray) -> np.ndarray:
        c = ((scene.to_canvas(poly) - origin_px) + 0.5) * f - 0.5
        return np.round(c * 16).astype(np.int32)

    # OpenCV anti-aliases only 8-bit images: draw coverage as uint8, then scale
    m8 = np.zeros((sh, sw), np.uint8)
    g8 = np.zeros((sh, sw), np.uint8)
    for k, poly in enumerate(hand.skin):
        c = pts(poly)
        cv2.fillPoly(m8, [c], 255, cv2.LINE_AA, 4)
        if k in hand.hand_only[2:]:
            cv2.polylines(g8, [c], True, 255, 1, cv2.LINE_AA, 4)
    mask = m8.astype(np.float32) * np.float32(1 / 255)
    finger_gap = g8.astype(np.float32) * np.float32(1 / 255)
    skin = np.array(style.skin, np.float32)
    shade = cv2.GaussianBlur(mask, (0, 0), max(0.7, 5.0 * s * f))
    g = (0.62 + 0.45 * shade) * (1 - 0.3 * finger_gap) * mask  # premultiplied grey level
    col = g[..., None] * skin[None, None]
    if hand.nails:
        n8 = np.zeros((sh, sw), np.uint8)
        for poly in hand.nails:
            cv2.fillPoly(n8, [pts(poly)], 255, cv2.LINE_AA, 4)
        nm = (n8.astype(np.float32) * np.float32(1 / 255) * mask)[..., None]
        nail = np.clip(skin * np.float32(0.55) + np.float32([95, 105, 120]), 0, 255)
        col = col * (1 - 0.8 * nm) + 0.8 * nm * (g[..., None] * nail[None, None] / np.maximum(mask[..., None], 1e-3))
    a = mask
    if hand.sleeve:
        s8 = np.zeros((sh, sw), np.uint8)
        for poly in hand.sleeve:
            cv2.fillPoly(s8, [pts(poly)], 255, cv2.LINE_AA, 4)
        sleeve_mask = s8.astype(np.float32) * np.float32(1 / 255)
        sl = np.array(style.sleeve, np.float32)
        sshade = cv2.GaussianBlur(sleeve_mask, (0, 0), max(0.7, 9.0 * s * f))
        sa = np.clip(sleeve_mask - mask, 0, 1)
        col += ((0.6 + 0.5 * sshade) * sa)[..., None] * sl[None, None]
        a = np.clip(a + sa, 0, 1)
    if f != 1.0:
        col = cv2.resize(col, (ww, hh), interpolation=cv2.INTER_LINEAR)
        a = cv2.resize(a, (ww, hh), interpolation=cv2.INTER_LINEAR)
    layer[..., :3] = col + layer[..., :3] * (1 - a[..., None])
    layer[..., 3] = a + layer[..., 3] * (1 - a)


def _hand_id_polys(scene: Scene, hand: HandShape) -> list[np.ndarray]:
    return [scene.to_ids(p) for p in hand.skin + hand.sleeve]


def _composite_layer(scene: Scene, canvas: np.ndarray, layer: np.ndarray, x0: int, y0: int,
                     blur_px: np.ndarray, shadow_px: np.ndarray, shadow_sigma: float,
                     shadow_alpha: float) -> None:
    """Motion-blur a float BGRA layer along ``blur_px``, cast its shadow, composite it."""
    L = float(np.hypot(*blur_px))
    if L >= 1.5:  # the layer is premultiplied, so it can be filtered as is
        n = int(math.ceil(L)) | 1
        k = np.zeros((n, n), np.float32)
        c = n // 2
        d = blur_px / L * (n - 1) / 2
        cv2.line(k, (int(round(c - d[0])), int(round(c - d[1]))),
                 (int(round(c + d[0])), int(round(c + d[1]))), 1.0, 1, cv2.LINE_AA)
        k /= k.sum()
        layer = cv2.filter2D(layer, -1, k, borderType=cv2.BORDER_CONSTANT)
    hh, ww = layer.shape[:2]
    roi = canvas[y0:y0 + hh, x0:x0 + ww].astype(np.float32)
    a = layer[..., 3]
    # drop shadow: the layer's coverage moved along the light and softened
    f = 0.5 if min(hh, ww) >= 16 else 1.0
    small = cv2.resize(a, None, fx=f, fy=f, interpolation=cv2.INTER_AREA) if f != 1.0 else a
    M = np.float32([[1, 0, shadow_px[0] * f], [0, 1, shadow_px[1] * f]])
    sh = cv2.warpAffine(small, M, small.shape[1::-1], borderMode=cv2.BORDER_CONSTANT)
    sh = cv2.GaussianBlur(sh, (0, 0), max(0.6, shadow_sigma * f))
    if f != 1.0:
        sh = cv2.resize(sh, (ww, hh), interpolation=cv2.INTER_LINEAR)
    roi *= (1 - shadow_alpha * sh)[..., None]
    roi = layer[..., :3] + roi * (1 - a[..., None])
    canvas[y0:y0 + hh, x0:x0 + ww] = np.clip(roi, 0, 255).astype(np.uint8)


def _layer_box(scene: Scene, pts_mm: list[np.ndarray], pad_px: float,
               shape: tuple[int, int]) -> tuple[int, int, int, int] | None:
    allp = np.vstack([scene.to_canvas(p) for p in pts_mm])
    x0 = max(int(math.floor(allp[:, 0].min() - pad_px)), 0)
    y0 = max(int(math.floor(allp[:, 1].min() - pad_px)), 0)
    x1 = min(int(math.ceil(allp[:, 0].max() + pad_px)) + 1, shape[1])
    y1 = min(int(math.ceil(allp[:, 1].max() + pad_px)) + 1, shape[0])
    if x1 <= x0 or y1 <= y0:
        return None
    return x0, y0, x1, y1


# --------------------------------------------------------------------------------------------
def render_frame(scene: Scene, state: TableState, include_hidden: bool = False,
                 effects: bool | None = None) -> tuple[np.ndarray, dict]:
    """Render one frame of ``state`` as the scene's camera sees it.

    Args:
        scene: from :func:`make_scene`. Its static-layout cache is updated (not thread-safe:
            use one scene per process).
        state: the table at one instant (owners must be the scene's players).
        include_hidden: also label drawn cards with nothing visible (``visible`` 0.0); cards
            inside a squared pile (Nertz pile, stock, under a foundation's top few) are never
            drawn and never labelled.
        effects: override the scene's light/sensor effects for this frame (None: as built).

    Returns:
        ``frame``: ``(H, W, 3) uint8`` BGR.
        ``labels``: ``{"t": seconds, "cards": [...], "hands": [...]}`` where each card is
        ``{"card": "7S" | "JK" | "back", "identity": the card under a back, "owner": name,
        "quad": [[x, y] x4] image pixels clockwise from the card's top-left corner (float;
        lens distortion applied to the corners; may lie outside the frame for a cut-off card),
        "visible": fraction of the card's area visible in the frame (0..1, occlusion by
        cards above and hands, and the frame's edges), "corner_visible": at least one index
        corner (top-left or bottom-right, 8 x 14 mm) at least 85 % visible, "face_up": bool,
        "moving": bool (carried by a hand)}`` in drawing order (bottom first), and each hand
        ``{"hand": owner, "box": [x0, y0, x1, y1] pixels (hand without forearm, clipped to
        the frame), "carrying": bool}``.

    Raises:
        ValueError: a layout owner or in-flight owner who is not seated at the scene's table.
    """
    seated = {n for n, _ in scene.players}
    for o in (list(state.layouts) + [f.owner for f in state.in_flight] + list(state.idle_hands)
              + [w.owner for w in state.withdrawing]):
        if o not in seated:
            raise ValueError(f"owner {o!r} is not one of the scene's players {sorted(seated)}")
    _build_static(scene, state)
    canvas = scene._static_canvas
    ids = scene._static_ids
    assert canvas is not None and ids is not None
    items = list(scene._static_items)
    n_static = len(items)
    moving_flags = [False] * n_static
    hands: list[tuple[str, HandShape, bool]] = []
    backups: list[tuple[int, int, np.ndarray]] = []
    id_backups: list[tuple[int, int, np.ndarray]] = []
    s = scene.px_per_mm
    sd = scene.light.shadow_dir

    layers: list[tuple[list[_Item], HandShape | None, str, np.ndarray, float]] = []
    for fl in state.in_flight:
        if not fl.cards:
            continue
        mv = _moving(scene, state, fl)
        layers.append((mv.items, mv.hand, mv.owner, mv.blur_mm, mv.lift))
    carrying = {fl.owner for fl in state.in_flight if fl.cards}
    for w in state.withdrawing:
        if w.owner in carrying:
            continue
        hand, lift = _withdrawing_hand(scene, state, w)
        layers.append(([], hand, w.owner, np.zeros(2), lift))
    for owner in state.idle_hands:
        if owner in carrying:
            continue
        layers.append(([], _idle_hand(scene, owner, state.t), owner, np.zeros(2), 18.0))

    for its, hand, owner, blur_mm, lift in layers:
        pts = [it.corners for it in its]
        if hand is not None:
            pts += hand.skin + hand.sleeve
        blur_px = blur_mm * s
        shadow_px = sd * (6.0 + 0.35 * lift) * s
        pad = 4 * s + abs(blur_px).max() + abs(shadow_px).max() + 3 * (2 + 0.08 * lift) * s
        box = _layer_box(scene, pts, pad, canvas.shape[:2])
        if box is not None:
            x0, y0, x1, y1 = box
            backups.append((x0, y0, canvas[y0:y1, x0:x1].copy()))
            layer = np.zeros((y1 - y0, x1 - x0, 4), np.float32)
            org = np.array([x0, y0], np.float64)
            for it in its:
                _draw_item(scene, layer, org, it)
            if hand is not None:
                _hand_layer(scene, layer, org, hand, scene.hand_styles[owner])
            _composite_layer(scene, canvas, layer, x0, y0, blur_px, shadow_px,
                             (2 + 0.08 * lift) * s, 0.3)
        # ids (sharp, at the mid-exposure position)
        idpts = [scene.to_ids(it.corners) for it in its]
        if hand is not None:
            idpts += _hand_id_polys(scene, hand)
        if idpts:
            allp = np.vstack(idpts)
            ix0 = max(int(allp[:, 0].min()) - 2, 0)
            iy0 = max(int(allp[:, 1].min()) - 2, 0)
            ix1 = min(int(allp[:, 0].max()) + 3, ids.shape[1])
            iy1 = min(int(allp[:, 1].max()) + 3, ids.shape[0])
            if ix1 > ix0 and iy1 > iy0:
                id_backups.append((ix0, iy0, ids[iy0:iy1, ix0:ix1].copy()))
        for it in its:
            items.append(it)
            moving_flags.append(True)
            _fill_ids(ids, scene.to_ids(it.corners), len(items))
        if hand is not None:
            hid = _HAND_ID0 + len(hands)
            for poly in _hand_id_polys(scene, hand):
                cv2.fillPoly(ids, [np.round(poly * 16).astype(np.int32)], hid, cv2.LINE_8, 4)
            hands.append((owner, hand, bool(its)))

    frame = cv2.remap(canvas, scene.map1, scene.map2, cv2.INTER_LINEAR,
                      borderMode=cv2.BORDER_CONSTANT, borderValue=scene.far_colour)
    labels = _labels(scene, state, items, moving_flags, ids, hands, include_hidden)
    for x0, y0, patch in reversed(backups):
        canvas[y0:y0 + patch.shape[0], x0:x0 + patch.shape[1]] = patch
    for x0, y0, patch in reversed(id_backups):
        ids[y0:y0 + patch.shape[0], x0:x0 + patch.shape[1]] = patch

    use_fx = effects if effects is not None else True
    if use_fx:
        rng = np.random.default_rng([scene.seed & 0xFFFFFFFF, int(round(state.t * 1000)) & 0xFFFFFFFF])
        frame = apply_light_and_sensor(frame, scene.light, scene.sensor, rng)
    return frame, labels


def _labels(scene: Scene, state: TableState, items: list[_Item], moving: list[bool],
            ids: np.ndarray, hands: list[tuple[str, HandShape, bool]],
            include_hidden: bool) -> dict:
    cam = scene.camera
    W, H = scene.width, scene.height
    cards = [(i, it) for i, it in enumerate(items) if it.sprite == "card"]
    out_cards: list[dict] = []
    if cards:
        C = np.stack([it.corners for _, it in cards])  # (N, 4, 2)
        tl, tr, bl = C[:, 0], C[:, 1], C[:, 3]
        S = _SAMPLES
        P = (tl[:, None, :] + S[None, :, 0:1] * (tr - tl)[:, None, :]
             + S[None, :, 1:2] * (bl - tl)[:, None, :])  # (N, S, 2) table mm
        q = np.round(scene.to_ids(P)).astype(np.int64)
        inside = (q[..., 0] >= 0) & (q[..., 0] < ids.shape[1]) & (q[..., 1] >= 0) & (q[..., 1] < ids.shape[0])
        qx = np.clip(q[..., 0], 0, ids.shape[1] - 1)
        qy = np.clip(q[..., 1], 0, ids.shape[0] - 1)
        want = np.array([i + 1 for i, _ in cards])[:, None]
        on_top = (ids[qy, qx] == want) & inside
        uv = cam.project(np.concatenate([P.reshape(-1, 2), C.reshape(-1, 2)]))
        uvs = uv[:P.shape[0] * P.shape[1]].reshape(P.shape)
        quads = uv[P.shape[0] * P.shape[1]:].reshape(C.shape)
        in_frame = (uvs[..., 0] >= -0.5) & (uvs[..., 0] < W - 0.5) & (uvs[..., 1] >= -0.5) & (uvs[..., 1] < H - 0.5)
        vis = on_top & in_frame
        frac = vis[:, :_NB].mean(axis=1)
        c1 = vis[:, _NB:_NB + _NC].mean(axis=1) >= 0.85
        c2 = vis[:, _NB + _NC:].mean(axis=1) >= 0.85
        for k, (i, it) in enumerate(cards):
            f = float(frac[k])
            if f <= 0.0 and not include_hidden:
                continue
            out_cards.append({
                "card": it.card if it.face_up else "back",
                "identity": it.card,
                "owner": it.owner,
                "quad": [[round(float(x), 2), round(float(y), 2)] for x, y in quads[k]],
                "visible": round(f, 3),
                "corner_visible": bool(c1[k] or c2[k]),
                "face_up": bool(it.face_up),
                "moving": bool(moving[i]),
            })
    out_hands = []
    for owner, hand, carrying in hands:
        pts = np.vstack([hand.skin[k] for k in hand.hand_only])
        uv = cam.project(pts)
        x0, y0 = np.clip(uv.min(axis=0), 0, [W, H])
        x1, y1 = np.clip(uv.max(axis=0), 0, [W, H])
        if x1 - x0 < 1 or y1 - y0 < 1:
            continue
        out_hands.append({"hand": owner, "box": [round(float(v), 1) for v in (x0, y0, x1, y1)],
                          "carrying": carrying})
    return {"t": float(state.t), "cards": out_cards, "hands": out_hands}


def draw_labels(frame: np.ndarray, labels: dict) -> np.ndarray:
    """A copy of ``frame`` with label quads (green: corner visible, orange: not, red: hidden),
    card names and hand boxes drawn: for looking at renders."""
    out = frame.copy()
    for c in labels["cards"]:
        q = np.array(c["quad"], np.float64)
        col = (0, 200, 0) if c["corner_visible"] else ((0, 140, 255) if c["visible"] > 0 else (0, 0, 255))
        cv2.polylines(out, [np.round(q * 4).astype(np.int32)], True, col, 1, cv2.LINE_AA, 2)
        cv2.circle(out, tuple(np.round(q[0]).astype(int)), 2, (255, 0, 255), -1)
        txt = c["card"] if c["face_up"] else "b:" + c["owner"][:3]
        cv2.putText(out, txt, tuple(np.round(q.mean(axis=0)).astype(int) - [8, 0]),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.3, col, 1, cv2.LINE_AA)
    for h in labels["hands"]:
        x0, y0, x1, y1 = (int(v) for v in h["box"])
        cv2.rectangle(out, (x0, y0), (x1, y1), (255, 200, 0), 1)
    return out


def save_labels(path: str | Path, labels: dict) -> None:
    """Write labels as JSON (helper for scripts)."""
    Path(path).write_text(json.dumps(labels))


def contact_sheet(images: list[np.ndarray], cols: int = 2, tile_width: int = 640) -> np.ndarray:
    """Tile frames into one ``uint8`` BGR image (each scaled to ``tile_width`` pixels wide,
    keeping its aspect; rows padded with black): for looking at renders side by side."""
    if not images:
        raise ValueError("contact_sheet needs at least one image")
    tiles = []
    for im in images:
        h, w = im.shape[:2]
        tiles.append(cv2.resize(im, (tile_width, max(1, round(h * tile_width / w))),
                                interpolation=cv2.INTER_AREA))
    th = max(t.shape[0] for t in tiles)
    tiles = [np.pad(t, ((0, th - t.shape[0]), (0, 0), (0, 0))) for t in tiles]
    while len(tiles) % cols:
        tiles.append(np.zeros_like(tiles[0]))
    rows = [np.hstack(tiles[i:i + cols]) for i in range(0, len(tiles), cols)]
    return np.vstack(rows)
