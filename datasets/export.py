"""Training sets for the card detector and the card classifier, cut from rendered rounds.

:func:`write_dataset` renders simulated rounds (:func:`nertz.datasets.sim.simulate_round`,
:func:`nertz.datasets.render.make_scene`, :func:`nertz.datasets.render.render_frame`) and writes

- ``kind="detect"``: an ultralytics YOLO detection set (``images/{train,val}``,
  ``labels/{train,val}``, ``data.yaml``) of square crops (default 320 x 320 pixels) cut from
  frames scaled so that objects have the size they have when the detector runs at 640 on the
  whole frame (a 1280 x 720 frame scaled by 0.5), with a random zoom on part of the crops
  (cards up to 2.5 times larger, as on a close phone photo).
- ``kind="card"``: an ultralytics classification set of *rectified* cards
  (:func:`rectify_card`: the card's quad warped to an upright square image, the card squashed
  to the square) of every face-up card at least ``min_visible`` (0.9) visible, its label quad
  jittered as a detector's would be (:func:`jitter_quad`) and turned by 180 degrees at random
  (never mirrored): the input of the rectified-card classifier that
  :meth:`nertz.vision.detect.CardRecognizer.identify_quads` runs. With ``max_visible``, the
  partly covered cards instead, each with the quad a detector finds for its visible part: the
  covered-card classifier's set (``models/cards_id_covered.onnx``).
- ``kind="obb"``: the same crops as ``detect`` labelled with oriented boxes (ultralytics OBB
  format): a whole card's own quad, else the minimum-area rectangle of its visible part
  (:func:`visible_quads`); hands keep their axis-aligned boxes.
- ``kind="strip"``: an ultralytics classification set of the *visible parts* of partly
  covered face-up cards whose index corner shows (strips of cascades, edges of fans), each
  oriented box warped with its aspect kept (:func:`rectify_strip`): the input of the strip
  classifier.
- ``kind="classify"``: an ultralytics classification set (``train/<class>/``,
  ``val/<class>/``) of square crops (default 64 x 64) around the *visible part* of each face-up
  card whose index corner shows (:func:`card_crop`: what lies beyond the box is painted grey), class names in the contract's notation (``7S``, ``TH``,
  ``JK``).

Label design (why the *visible part* and not the whole card): in a cascaded work pile or a
fanned waste only a strip of each card shows, with its index corner. A box around the whole
card of such a strip overlaps the boxes of its neighbours almost entirely (non-maximum
suppression then keeps one of them) and is centred on pixels showing another card. A box
around what shows of the card (a strip, a corner, or the whole card for the top card) is a
distinct, learnable target, and its crop holds the index corner the classifier reads. The
visible part is computed here by drawing the label quads bottom-up into an id raster at the
frame's resolution (cards only; hands and arms are accounted for by the renderer's
``visible`` fraction: cards mostly under a hand are dropped).

Detection classes: ``0 face`` (a face-up card), ``1 back`` (a face-down card), ``2 hand``.

Everything is drawn from ``numpy.random.default_rng`` with seeds derived from
``(seed, scene index)`` (:class:`numpy.random.SeedSequence`), so a set is the same for the same
arguments whatever ``workers`` is. Scene ``i`` goes to ``val`` when ``i % val_every == 0``,
except in a set of one scene, which goes to ``train`` (a set needs training images; before
2026-12-07 it went to ``val``).
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import cv2
import numpy as np

__all__ = ["write_dataset", "DETECT_CLASSES", "CARD_CLASSES", "visible_boxes", "square_crop", "card_crop",
           "order_quad", "order_quads", "rectify_card", "rectify_strip", "jitter_quad", "visible_quads", "KINDS",
           "OPTIONS",
           "card_training_crop",
           "background_origin"]

KINDS = ("detect", "classify", "card", "obb", "strip")
_COMMON_OPTIONS = ("val_every", "frames_per_scene", "resolution", "close_p", "max_canvas_px", "designs")
OPTIONS = {
    "detect": _COMMON_OPTIONS + ("imgsz", "crops_per_frame", "zoom_p", "roll_p", "clutter_crops"),
    "obb": _COMMON_OPTIONS + ("imgsz", "crops_per_frame", "zoom_p", "roll_p", "clutter_crops"),
    "classify": _COMMON_OPTIONS + ("crop", "cards_per_frame"),
    "card": _COMMON_OPTIONS + ("crop", "cards_per_frame", "min_visible", "max_visible", "jitter", "jitter_scale",
                               "detector_quads"),
    "strip": _COMMON_OPTIONS + ("crop", "cards_per_frame", "jitter", "jitter_scale", "detector_quads",
                                "detector_share"),
}
"""The ``**options`` each kind of set takes (:func:`write_dataset`); others are refused."""
WHOLE_OPTIONS = ("val_every", "frames_per_scene", "crops_per_frame", "cards_per_frame", "imgsz", "crop")
"""The options that are counts or sizes in pixels: a value that is not a whole number (``2.5``,
``true``, ``"3"``) is refused (:func:`write_dataset`)."""
SIZE_OPTIONS = ("imgsz", "crop")
SIZE_MIN, SIZE_MAX = 16, 2048
"""The crop sides in pixels (``imgsz`` of detect and obb, ``crop`` of the card kinds) that
:func:`write_dataset` takes: 0 or less failed in OpenCV's resize in a worker, with a
traceback; 100000 asked for gigabytes. 2048 is ``nertz train``'s largest ``--imgsz``."""
_RANGED_OPTIONS = (("jitter", 0.0, 0.5, "the quads' corner noise, a share of the card's side"),
                   ("jitter_scale", 0.0, 0.5, "the quads' scale change, 1 +- this"),
                   ("min_visible", 0.0, 1.0, "a card's visible share"),
                   ("max_visible", 0.0, 1.0, "a card's visible share"),
                   ("detector_share", 0.0, 1.0, "the share of the strips boxed by the detector"))
"""Options of :func:`write_dataset` that are numbers in a range (``nertz train classifier``'s
``--jitter`` and ``--jitter-scale`` take 0..0.5), checked before any folder is made."""
DETECT_CLASSES = ("face", "back", "hand")
"""Class names of the detector, in class-id order."""
CARD_CLASSES = tuple(r + s for s in "SHDC" for r in "A23456789TJQK") + ("JK",)
"""The classifier's class names (52 cards and the joker)."""

_NAMES = ("red", "blue", "green", "yellow", "purple", "orange")


# ---------------------------------------------------------------------------------------------
def _visible_masks(labels: dict, width: int, height: int):
    """Yield ``(index, x0, y0, mask (h, w) uint8, fraction)`` for the visible part of each
    labelled card with at least 12 visible pixels (see :func:`visible_boxes`); ``mask`` covers
    the card's bounding box clipped to the frame, offset ``(x0, y0)``."""
    ids = np.zeros((height, width), np.int32)
    cards = labels["cards"]
    quads = [np.asarray(c["quad"], np.float64) for c in cards]
    for i, q in enumerate(quads):
        cv2.fillConvexPoly(ids, np.round(q * 16).astype(np.int32), i + 1, cv2.LINE_8, 4)
    for i, q in enumerate(quads):
        x0 = max(int(math.floor(q[:, 0].min())), 0)
        y0 = max(int(math.floor(q[:, 1].min())), 0)
        x1 = min(int(math.ceil(q[:, 0].max())) + 1, width)
        y1 = min(int(math.ceil(q[:, 1].max())) + 1, height)
        if x1 <= x0 or y1 <= y0:
            continue
        m = (ids[y0:y1, x0:x1] == i + 1).astype(np.uint8)
        # slivers along the edges of a card lying under a slightly shifted one are not what a
        # person (or the detector) sees of it: open the mask with a kernel of 10 % of the card
        side = min(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[3] - q[0]))
        k = max(3, int(round(0.1 * side)))
        m = cv2.morphologyEx(m, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
        n = int(m.sum())
        if n < 12:
            continue
        area = abs(cv2.contourArea(q.astype(np.float32)))
        yield i, x0, y0, m, n / max(area, 1.0)


def visible_boxes(labels: dict, width: int, height: int) -> list[tuple[int, np.ndarray, float]]:
    """Axis-aligned box of the visible part of each labelled card.

    Args:
        labels: :func:`nertz.datasets.render.render_frame` labels (cards bottom first).
        width, height: frame size, pixels.

    Returns:
        ``[(index into labels["cards"], box (4,) float [x0, y0, x1, y1] pixels, fraction)]``
        for cards with at least 12 visible pixels, where ``fraction`` is the visible share of
        the card's quad as computed here from cards only (hands not counted; compare with the
        renderer's ``visible``). Slivers (thinner than 10 % of the card's width, from a card
        under a slightly shifted one) are removed by a morphological opening first.
    """
    out = []
    for i, x0, y0, m, frac in _visible_masks(labels, width, height):
        ys, xs = np.nonzero(m)
        out.append((i, np.array([x0 + xs.min(), y0 + ys.min(), x0 + xs.max() + 1, y0 + ys.max() + 1],
                                np.float64), frac))
    return out


def visible_quads(labels: dict, width: int, height: int,
                  window: tuple[float, float, float, float] | None = None,
                  whole: float = 0.97) -> list[tuple[int, np.ndarray, float]]:
    """Oriented box (4 corners) of the visible part of each labelled card: the card's own quad
    when it is whole (``fraction >= whole`` and inside ``window``), else the minimum-area
    rectangle (``cv2.minAreaRect``) of its visible pixels inside ``window``.

    Args:
        labels, width, height: as in :func:`visible_boxes`.
        window: ``[x0, y0, x1, y1]`` pixels to clip the visible parts to (a training crop);
            None: the frame.
        whole: visible share from which the card counts as whole.

    Returns:
        ``[(index, quad (4, 2) float64 pixels clockwise from the image's top-left, share of the
        visible part inside window)]`` for parts with at least 12 pixels inside ``window``.
    """
    wx0, wy0, wx1, wy1 = window if window is not None else (0, 0, width, height)
    out = []
    for i, x0, y0, m, frac in _visible_masks(labels, width, height):
        q = np.asarray(labels["cards"][i]["quad"], np.float64)
        if frac >= whole and q[:, 0].min() >= wx0 and q[:, 1].min() >= wy0 and q[:, 0].max() <= wx1 \
                and q[:, 1].max() <= wy1:
            out.append((i, order_quad(q).astype(np.float64), 1.0))
            continue
        ys, xs = np.nonzero(m)
        xs, ys = xs + x0, ys + y0
        inside = (xs >= wx0) & (xs < wx1) & (ys >= wy0) & (ys < wy1)
        if inside.sum() < 12:
            continue
        pts = np.column_stack([xs[inside], ys[inside]]).astype(np.float32)
        # pixel centres -> the pixels' outer outline: pad the rectangle by half a pixel
        (cx, cy), (w, h), a = cv2.minAreaRect(pts)
        rect = cv2.boxPoints(((cx + 0.5, cy + 0.5), (w + 1, h + 1), a))
        out.append((i, order_quad(rect).astype(np.float64), float(inside.mean())))
    return out


def square_crop(image: np.ndarray, box: np.ndarray, size: int, pad: float = 1.15,
                shift: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """The square around ``box`` (side ``pad * max(w, h)``, centre moved by ``shift`` times the
    side), resized to ``size`` x ``size``; pixels outside the image are replicated from its edge.

    This is the one crop definition shared by the classifier's training set and by inference
    (:mod:`nertz.vision.detect`).

    Args:
        image: ``(H, W, 3) uint8`` BGR.
        box: ``[x0, y0, x1, y1]`` pixels.
        size: output side, pixels.

    Returns:
        ``(size, size, 3) uint8`` BGR.
    """
    x0, y0, x1, y1 = (float(v) for v in box)
    side = max(x1 - x0, y1 - y0, 2.0) * pad
    cx = (x0 + x1) / 2 + shift[0] * side
    cy = (y0 + y1) / 2 + shift[1] * side
    n = max(int(round(side)), 1)
    c0, r0 = int(round(cx - n / 2)), int(round(cy - n / 2))
    H, W = image.shape[:2]
    # pixels outside the image: replicate the edge (only the part of the border needed)
    top, left = max(0, -r0), max(0, -c0)
    bottom, right = max(0, r0 + n - H), max(0, c0 + n - W)
    sub = image[max(r0, 0):min(r0 + n, H), max(c0, 0):min(c0 + n, W)]
    if sub.size == 0:
        raise ValueError(f"crop box {list(box)} lies outside the {W}x{H} image")
    if top or left or bottom or right:
        sub = cv2.copyMakeBorder(sub, top, bottom, left, right, cv2.BORDER_REPLICATE)
    interp = cv2.INTER_AREA if n > size else cv2.INTER_LINEAR
    return cv2.resize(sub, (size, size), interpolation=interp)


def card_crop(image: np.ndarray, box: np.ndarray, size: int = 64, pad: float = 1.15,
              margin: float = 0.1, fill: int = 114) -> np.ndarray:
    """The classifier's input for one detected card: :func:`square_crop` around ``box`` with
    everything farther than ``margin`` times the box's size outside the box painted ``fill``
    grey (a strip of a cascaded card is thin: its square would otherwise show the neighbouring
    cards whole, and the classifier could read the wrong one).

    Args:
        image: ``(H, W, 3) uint8`` BGR. box: ``[x0, y0, x1, y1]`` pixels. size: output side.

    Returns:
        ``(size, size, 3) uint8`` BGR.
    """
    x0, y0, x1, y1 = (float(v) for v in box)
    crop = square_crop(image, box, size, pad)
    w, h = x1 - x0, y1 - y0
    side = max(w, h, 2.0) * pad
    s = size / side
    hw, hh = (w / 2 + margin * w) * s, (h / 2 + margin * h) * s
    c = size / 2
    a0, a1 = int(max(round(c - hw), 0)), int(min(round(c + hw), size))
    b0, b1 = int(max(round(c - hh), 0)), int(min(round(c + hh), size))
    out = np.full_like(crop, fill)
    out[b0:b1, a0:a1] = crop[b0:b1, a0:a1]
    return out


def order_quad(quad: np.ndarray) -> np.ndarray:
    """The 4 corners of a convex quad in the contract's order: clockwise as seen in the image
    (x right, y down), starting at the corner nearest the image's top-left (smallest ``x + y``).

    Args:
        quad: ``(4, 2)`` pixels, any order.

    Returns:
        ``(4, 2) float32``.
    """
    return order_quads(np.asarray(quad, np.float64).reshape(1, 4, 2))[0]


def order_quads(quads: np.ndarray) -> np.ndarray:
    """:func:`order_quad` of each of ``quads`` ``(N, 4, 2)`` pixels at once: ``(N, 4, 2) float32``."""
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    c = q.mean(axis=1, keepdims=True)
    # clockwise in an image (y down) is increasing angle of atan2(dy, dx)
    q = np.take_along_axis(q, np.argsort(np.arctan2(q[..., 1] - c[..., 1], q[..., 0] - c[..., 0]), axis=1)[..., None],
                           axis=1)
    start = np.argmin(q.sum(axis=2), axis=1)
    return np.take_along_axis(q, ((start[:, None] + np.arange(4)) % 4)[..., None], axis=1).astype(np.float32)


def _quad_points(quad: np.ndarray, what: str) -> np.ndarray:
    """``quad`` as ``(4, 2) float64``. Raises ValueError (naming ``what``) unless it is 4 finite
    points."""
    q = np.asarray(quad, np.float64)
    if q.shape != (4, 2) or not np.all(np.isfinite(q)):
        raise ValueError(f"{what} quad is 4 finite (x, y) points, got shape {q.shape}")
    return q


def _sides(q: np.ndarray) -> tuple[float, float]:
    """Mean length of the edges 0-1 / 3-2 ("across") and 0-3 / 1-2 ("down") of a quad, pixels."""
    across = (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])) / 2
    down = (np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])) / 2
    return float(across), float(down)


def _warp_area(image: np.ndarray, src: np.ndarray, dst: np.ndarray, size: int, scale: float,
               fill: int) -> np.ndarray:
    """Warp the quad ``src`` (frame pixels) onto ``dst`` (``(4, 2)`` pixels of the ``size`` x
    ``size`` output, pixel corners at integers) with ``cv2.warpPerspective``; with ``scale`` > 1
    at ``round(size * scale)`` pixels first, then shrunk by ``cv2.INTER_AREA`` (area averaging
    when the source is much larger than the output). Returns ``(size, size, 3) uint8``."""
    big = int(round(size * scale))
    d = (np.asarray(dst, np.float64) * scale - 0.5).astype(np.float32)
    out = cv2.warpPerspective(image, cv2.getPerspectiveTransform(np.asarray(src, np.float32), d), (big, big),
                              flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                              borderValue=(fill, fill, fill))
    return out if big == size else cv2.resize(out, (size, size), interpolation=cv2.INTER_AREA)


def rectify_card(image: np.ndarray, quad: np.ndarray, size: int = 64, fill: int = 114,
                 long_side: np.ndarray | None = None) -> np.ndarray:
    """The card inside ``quad`` warped upright to a ``size`` x ``size`` image (perspective
    transform of the 4 corners to the square's corners, ``cv2.getPerspectiveTransform``): the
    card's long side vertical (a card seen landscape is turned by 90 degrees), squashed to the
    square (the classifier's input; the aspect ratio is the same for every card, so nothing is
    lost but resolution across). The 180-degree ambiguity of a card is left: the classifier is
    trained on both ways up. Never mirrored (the corner order is kept cyclic).

    This is the one rectification shared by the classifier's training set (``kind="card"``) and
    inference (:meth:`nertz.vision.detect.CardRecognizer.identify_quads`).

    Args:
        image: ``(H, W, 3) uint8`` BGR.
        quad: ``(4, 2)`` corners in pixels, clockwise as seen in the image (any start corner).
        size: output side, pixels.
        fill: grey for parts of the quad outside the image.
        long_side: optional ``(dx, dy)``, the image direction of the card's long side where it
            is known otherwise (:class:`nertz.vision.card_axes.CardAxes`: a card seen so
            steeply that its long side looks the shorter): the pair of sides nearer that
            direction is set upright. None, or NaN: the longer pair as seen.

    Returns:
        ``(size, size, 3) uint8`` BGR.

    Raises:
        ValueError: ``quad`` is not 4 finite points.
    """
    q = _quad_points(quad, "a card")
    across, down = _sides(q)
    landscape = across > down
    if long_side is not None and np.all(np.isfinite(long_side)):
        d = np.asarray(long_side, np.float64).reshape(2)
        a, b = (q[1] - q[0]) + (q[2] - q[3]), (q[3] - q[0]) + (q[2] - q[1])  # the pairs' directions
        landscape = abs(float(d @ a)) / max(np.linalg.norm(a), 1e-9) > abs(float(d @ b)) / max(np.linalg.norm(b), 1e-9)
    if landscape:  # the long side runs across: start at the next corner so the short edge is the top
        q = np.roll(q, -1, axis=0)
    # area-averaging: warp at the card's own scale first when it is much larger than the output
    long_px = max(across, down)
    big = int(min(round(long_px), 4 * size)) if long_px > 2.5 * size else size
    s = float(size)
    return _warp_area(image, q, np.array([[0, 0], [s, 0], [s, s], [0, s]]), size, big / size, fill)


def rectify_strip(image: np.ndarray, quad: np.ndarray, size: int = 96, pad: float = 1.1,
                  fill: int = 114) -> np.ndarray:
    """The visible part of a partly covered card (an oriented box: the strip of a cascaded card,
    the edge of a fanned one, what a hand leaves uncovered) warped to a ``size`` x ``size``
    image with its aspect ratio kept: the box grown by ``pad`` about its centre, its long side
    horizontal and ``size`` pixels long, centred on grey (letterboxed, so that an index glyph
    keeps its shape whatever the strip's proportions). The 180-degree ambiguity is left (the
    strip classifier is trained both ways up); never mirrored.

    The one rectification shared by the strip classifier's training set (``kind="strip"``) and
    inference (:meth:`nertz.vision.detect.CardRecognizer.identify`).

    Args:
        image: ``(H, W, 3) uint8`` BGR.
        quad: ``(4, 2)`` corners in pixels, clockwise as seen in the image (any start corner).
        size: output side, pixels.
        pad: growth of the box about its centre (both sides), to hold an index that a rough box
            cuts.
        fill: grey of the letterbox and of parts outside the image.

    Returns:
        ``(size, size, 3) uint8`` BGR.

    Raises:
        ValueError: ``quad`` is not 4 finite points.
    """
    q = _quad_points(quad, "a strip")
    q = q.mean(axis=0) + (q - q.mean(axis=0)) * pad
    across, down = _sides(q)
    if down > across:  # start at the next corner so that the first edge is a long one
        q = np.roll(q, -1, axis=0)
        across, down = down, across
    h = float(np.clip(size * down / max(across, 1e-6), 2.0, size))
    y0 = (size - h) / 2
    s = float(size)
    # area-averaging when the strip is much larger than the output (a phone photo)
    k = float(min(max(1.0, across / (2.5 * size)), 4.0))
    out = _warp_area(image, q, np.array([[0, y0], [s, y0], [s, y0 + h], [0, y0 + h]]), size, k, fill)
    # the letterbox: grey above and below the strip
    top, bottom = int(np.floor(y0)), int(np.ceil(y0 + h))
    out[:max(top, 0)] = fill
    out[min(bottom, size):] = fill
    return out


def jitter_quad(quad: np.ndarray, rng: np.random.Generator, corner: float = 0.03,
                scale: float = 0.04) -> np.ndarray:
    """A quad as an imperfect detector might give it: each corner moved by a normal offset of
    standard deviation up to ``corner`` times the card's mean side (drawn per call, clipped at 2.5
    sigma), and the whole quad scaled about its centre by up to ``1 +- scale``.

    Args:
        quad: ``(4, 2)`` pixels. rng: the generator.

    Returns:
        ``(4, 2) float64``.
    """
    q = np.asarray(quad, np.float64).reshape(4, 2)
    side = float(np.mean(np.linalg.norm(q - np.roll(q, 1, axis=0), axis=1)))
    sigma = rng.uniform(0, corner) * side
    d = np.clip(rng.normal(0, 1, (4, 2)), -2.5, 2.5) * sigma
    c = q.mean(axis=0)
    return c + (q - c) * rng.uniform(1 - scale, 1 + scale) + d


# ---------------------------------------------------------------------------------------------
def _frames(index: int, seed: int, frames: int, opts: dict,
            scene_close: list | None = None, info: dict | None = None) -> tuple[np.random.Generator, list]:
    """Simulate and render ``frames`` frames of scene ``index``: ``(rng, [(frame, labels)])``;
    ``scene_close[0]`` is set True for a close-up camera, ``info["table"]`` to the table file."""
    scene_close = scene_close if scene_close is not None else [False]
    from .render import make_scene, render_frame
    from nertz.referee.table import MIN_BACK_DELTA_E, delta_e

    from .sim import DEFAULT_BACKS, SimSettings, simulate_round

    ss = np.random.SeedSequence([int(seed), int(index)])
    rng = np.random.default_rng(ss)
    players = int(rng.integers(2, 7))
    partner = players >= 4 and players % 2 == 0 and rng.random() < 0.15
    jokers = bool(rng.random() < 0.4)
    owners = players // 2 if partner else players
    # back colours: the defaults, or random ones (decks are not always red/blue/...)
    backs = list(DEFAULT_BACKS)
    for k in range(owners):
        if rng.random() < 0.4:
            for _ in range(20):  # the table file refuses backs closer than MIN_BACK_DELTA_E
                c = "#%02x%02x%02x" % tuple(int(v) for v in rng.integers(0, 256, 3))
                if all(delta_e(c, b) >= MIN_BACK_DELTA_E + 3 for j, b in enumerate(backs[:owners]) if j != k):
                    backs[k] = c
                    break
    settings = SimSettings(players=players, partnerships=partner, jokers=jokers,
                           nertz_pile=int(rng.choice([11, 12, 13])), stock_turn=int(rng.choice([3, 1])),
                           backs=tuple(backs))
    rnd = simulate_round(settings, int(rng.integers(1 << 31)))
    res = opts.get("resolution")
    if res is None and rng.random() < 0.15:
        res = [(960, 540), (1024, 576), (1600, 900), (1280, 960)][int(rng.integers(4))]
    # a share of close-up cameras (the play region overfills the frame): large, sharp cards,
    # as on a phone photo of a few cards
    close = bool(rng.random() < float(opts.get("close_p", 0.2)))
    fill = float(np.exp(rng.uniform(math.log(1.3), math.log(3.5)))) if close else None
    designs = opts.get("designs")  # drawn only when given: the sets made without stay the same
    design = str(designs[int(rng.integers(len(designs)))]) if designs else None
    scene = make_scene(rnd.table["players"], int(rng.integers(1 << 31)), resolution=res, fill=fill,
                       max_canvas_px=float(opts.get("max_canvas_px", 6e6)), design=design)
    scene_close[0] = close
    times = np.sort(rng.uniform(0, rnd.duration, frames))
    if jokers and "JK" not in scene.sprites.faces:
        # this card design draws no joker: play the same seed's round without jokers
        rnd = simulate_round(dataclasses.replace(settings, jokers=False), rnd.seed)
        times = np.minimum(times, rnd.duration)
    if info is not None:
        info["table"] = rnd.table
    clutter_px = _seen_px(scene, scene.clutter_mm)
    out = []
    for t in times:
        frame, lab = render_frame(scene, rnd.state_at(float(t)))
        out.append((frame, dict(lab, clutter_px=clutter_px)))
    return rng, out


def _seen_px(scene: Any, pts_mm: np.ndarray) -> list[list[float]]:
    """Image pixels ``[[x, y], ...]`` of the table points ``pts_mm`` (``(N, 2)`` mm) that the
    camera sees inside the frame (projection checked by the inverse map: a lens's distortion
    folds points far outside the view back into it)."""
    pts = np.asarray(pts_mm, np.float64).reshape(-1, 2)
    if len(pts) == 0:
        return []
    uv = scene.camera.project(pts)
    back = scene.camera.pixels_to_table(uv)
    ok = (np.all(np.isfinite(uv), axis=1) & np.all(np.isfinite(back), axis=1)
          & (uv[:, 0] >= 0) & (uv[:, 0] < scene.width) & (uv[:, 1] >= 0) & (uv[:, 1] < scene.height))
    ok &= np.linalg.norm(np.nan_to_num(back - pts, nan=1e9), axis=1) < 5.0
    return uv[ok].tolist()


def _roll(frame: np.ndarray, lab: dict, deg: float) -> tuple[np.ndarray, dict]:
    """The frame turned by ``deg`` degrees about its centre (a camera rolled about its axis:
    cards at any angle, as on foundations), with the label quads turned exactly and hand boxes
    as the box of their turned corners. Corners uncovered by the turn are the frame's mean
    colour. Returns ``(frame, labels)`` (new objects)."""
    H, W = frame.shape[:2]
    m = cv2.getRotationMatrix2D(((W - 1) / 2, (H - 1) / 2), deg, 1.0)
    fill = tuple(float(v) for v in frame.reshape(-1, 3).mean(axis=0))
    out = cv2.warpAffine(frame, m, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                         borderValue=fill)

    def tr(pts: np.ndarray) -> np.ndarray:
        pts = np.asarray(pts, np.float64).reshape(-1, 2)
        return pts @ m[:, :2].T + m[:, 2]

    cards = [dict(c, quad=tr(c["quad"]).tolist()) for c in lab["cards"]]
    hands = []
    for h in lab["hands"]:
        x0, y0, x1, y1 = h["box"]
        p = tr(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]))
        lo = np.clip(p.min(axis=0), 0, [W, H])
        hi = np.clip(p.max(axis=0), 0, [W, H])
        if np.all(hi - lo >= 1):
            hands.append(dict(h, box=[*lo.tolist(), *hi.tolist()]))
    extra = {}
    if "clutter_px" in lab:
        cp = tr(lab["clutter_px"])
        extra["clutter_px"] = cp[(cp[:, 0] >= 0) & (cp[:, 0] < W) & (cp[:, 1] >= 0) & (cp[:, 1] < H)].tolist()
    return out, dict(lab, cards=cards, hands=hands, **extra)


def _crop_frames(index: int, seed: int, opts: dict) -> tuple[np.random.Generator, int, int, float, Iterator]:
    """The set-up shared by the crop jobs (``kind="detect"`` and ``"obb"``): ``(rng, imgsz,
    crops per frame, zoom probability, frames)``, the frames of scene ``index`` as ``(frame,
    labels)``, each turned by a random angle with probability ``roll_p`` (no zoom for close-up
    scenes). The generator draws from ``rng`` in the same order as the jobs did inline."""
    imgsz = int(opts.get("imgsz", 320))
    frames = int(opts.get("frames_per_scene", 3))
    crops = int(opts.get("crops_per_frame", 3))
    zoom_p = float(opts.get("zoom_p", 0.35))
    close = [False]
    rng, rendered = _frames(index, seed, frames, opts, close)
    if close[0]:
        zoom_p = 0.0
    roll_p = float(opts.get("roll_p", 0.0))

    def rolled() -> Iterator[tuple[np.ndarray, dict]]:
        for frame, lab in rendered:
            if roll_p > 0 and rng.random() < roll_p:
                frame, lab = _roll(frame, lab, float(rng.uniform(-180, 180)))
            yield frame, lab

    return rng, imgsz, crops, zoom_p, rolled()


def background_origin(rng: np.random.Generator, clutter_px: np.ndarray, centres: np.ndarray, side: float,
                      size: tuple[int, int], near_p: float = 0.6) -> tuple[float, float]:
    """Top-left corner of a square *background* crop, pixels: with probability ``near_p`` around
    a random clutter object (``clutter_px``, ``(M, 2)`` pixels, normal noise of 0.15 of the
    side), else at a random place of the frame: the one of 4 uniform draws whose square holds
    the fewest of ``centres`` (``(N, 2)`` pixels of the cards and hands), so that it shows the
    table and the floor around the play more than the cards. Kept inside the frame of ``size``
    ``(W, H)`` where the crop fits.

    Args:
        side: the crop's side in frame pixels.
    """
    W, H = size
    clutter_px = np.asarray(clutter_px, np.float64).reshape(-1, 2)
    if len(clutter_px) and rng.random() < near_p:
        cx, cy = clutter_px[int(rng.integers(len(clutter_px)))] + rng.normal(0, side * 0.15, 2)
    else:
        cand = rng.uniform([0, 0], [W, H], (4, 2))
        c = np.asarray(centres, np.float64).reshape(-1, 2)
        inside = [int(np.sum(np.all(np.abs(c - p) < side / 2, axis=1))) for p in cand]
        cx, cy = cand[int(np.argmin(inside))]
    return (float(np.clip(cx - side / 2, min(0, W - side), max(0, W - side))),
            float(np.clip(cy - side / 2, min(0, H - side), max(0, H - side))))


def crop_origin(rng: np.random.Generator, centres: np.ndarray, side: float, size: tuple[int, int],
                near_p: float = 0.85, anywhere: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[float, float]:
    """Top-left corner of a square training crop, pixels: with probability ``near_p`` around a
    random one of ``centres`` (``(N, 2)`` pixels; normal noise of a quarter of the side), else
    uniformly in ``anywhere`` (``(lo, hi)`` corners; default the whole frame), kept inside the
    frame of ``size`` ``(W, H)`` where the crop fits.

    Args:
        side: the crop's side in frame pixels.
    """
    W, H = size
    if len(centres) and rng.random() < near_p:
        cx, cy = centres[int(rng.integers(len(centres)))] + rng.normal(0, side * 0.25, 2)
    else:
        lo, hi = anywhere if anywhere is not None else (np.zeros(2), np.array([W, H], np.float64))
        cx, cy = rng.uniform(lo, hi)
    return (float(np.clip(cx - side / 2, min(0, W - side), max(0, W - side))),
            float(np.clip(cy - side / 2, min(0, H - side), max(0, H - side))))


def _detect_job(index: int, seed: int, out: str, split: str, opts: dict, limit: int | None = None) -> int:
    """Write the crops of scene ``index`` (the first ``limit`` only, when given); returns how
    many images were written (a share ``clutter_crops`` placed by :func:`background_origin`,
    as in :func:`_obb_job`)."""
    rng, imgsz, crops, zoom_p, rendered = _crop_frames(index, seed, opts)
    clutter_p = _share(opts, "clutter_crops")
    n = 0
    for f_i, (frame, lab) in enumerate(rendered):
        H, W = frame.shape[:2]
        objs: list[tuple[int, np.ndarray]] = []
        for i, box, frac in visible_boxes(lab, W, H):
            c = lab["cards"][i]
            if c["visible"] < 0.5 * frac and c["visible"] < 0.3:
                continue  # mostly under a hand or an arm: the raster box would be wrong
            objs.append((0 if c["face_up"] else 1, box))
        for h in lab["hands"]:
            objs.append((2, np.asarray(h["box"], np.float64)))
        centres = np.array([(b[:2] + b[2:]) / 2 for _, b in objs]) if objs else np.zeros((0, 2))
        for c_i in range(crops):
            if limit is not None and n >= limit:
                return n
            z = float(np.exp(rng.uniform(0, math.log(2.5)))) if rng.random() < zoom_p else 1.0
            scale = 640.0 / W * z  # output pixels per source pixel
            side = imgsz / scale  # crop side in source pixels
            if clutter_p > 0 and rng.random() < clutter_p:
                x0, y0 = background_origin(rng, np.asarray(lab.get("clutter_px", [])), centres, side, (W, H))
            else:
                x0, y0 = crop_origin(rng, centres, side, (W, H))
            crop = square_crop(frame, np.array([x0, y0, x0 + side, y0 + side]), imgsz, pad=1.0)
            lines = []
            for cls, b in objs:
                bb = (b - [x0, y0, x0, y0]) * scale
                cb = np.clip(bb, 0, imgsz)
                w, h = cb[2] - cb[0], cb[3] - cb[1]
                a0 = (bb[2] - bb[0]) * (bb[3] - bb[1])
                if w < 2 or h < 2 or w * h < 0.35 * a0:
                    continue
                lines.append(f"{cls} {(cb[0] + cb[2]) / 2 / imgsz:.6f} {(cb[1] + cb[3]) / 2 / imgsz:.6f} "
                             f"{w / imgsz:.6f} {h / imgsz:.6f}")
            name = f"s{index:05d}_{f_i}_{c_i}"
            cv2.imwrite(str(Path(out) / "images" / split / f"{name}.jpg"), crop,
                        [cv2.IMWRITE_JPEG_QUALITY, 92])
            (Path(out) / "labels" / split / f"{name}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
            n += 1
    return n


def _classify_job(index: int, seed: int, out: str, split: str, opts: dict, limit: int | None = None) -> int:
    """Write the card crops of scene ``index`` (at most ``limit``, when given); returns how
    many were written."""
    size = int(opts.get("crop", 64))
    frames = int(opts.get("frames_per_scene", 3))
    per_frame = int(opts.get("cards_per_frame", 40))
    rng, rendered = _frames(index, seed, frames, opts)
    n = 0
    for f_i, (frame, lab) in enumerate(rendered):
        H, W = frame.shape[:2]
        cand = []
        for i, box, frac in visible_boxes(lab, W, H):
            c = lab["cards"][i]
            if not c["face_up"] or not c["corner_visible"] or c["visible"] < 0.5 * frac:
                continue
            cand.append((c["card"], box))
        rng.shuffle(cand)
        for k, (card, box) in enumerate(cand[:per_frame]):
            if limit is not None and n >= limit:
                return n
            # the detector's box is not exact: jitter the box edges by up to ~8 % of its size
            w, h = box[2] - box[0], box[3] - box[1]
            jb = box + rng.normal(0, 0.04, 4) * [w, h, w, h]
            crop = card_crop(frame, jb, size, pad=float(rng.uniform(1.05, 1.3)))
            d = Path(out) / split / card
            cv2.imwrite(str(d / f"s{index:05d}_{f_i}_{k}.png"), crop)
            n += 1
    return n


def _share(opts: dict, key: str) -> float:
    """``opts[key]`` as a share in 0..1 (default 0). Raises ValueError outside that range or
    for a value that is not a number (naming ``key``)."""
    try:
        v = float(opts.get(key, 0.0))
    except (TypeError, ValueError):
        raise ValueError(f"{key} is a share, 0..1; got {opts[key]!r}") from None
    if not 0.0 <= v <= 1.0:
        raise ValueError(f"{key} is a share of the {dict(close_p='scenes', roll_p='frames').get(key, 'crops')}, 0..1; got {v}")
    return v


def _obb_job(index: int, seed: int, out: str, split: str, opts: dict, limit: int | None = None) -> int:
    """Write the crops of scene ``index`` with oriented-box labels (``kind="obb"``: ultralytics
    OBB format ``class x1 y1 x2 y2 x3 y3 x4 y4``, normalised), the first ``limit`` only when
    given; returns how many were written.
    Crops as in :func:`_detect_job`; a card's label is its quad when it is whole, else the
    minimum-area rectangle of its visible part (:func:`visible_quads`), hands their boxes.
    A share ``clutter_crops`` of the crops is placed by :func:`background_origin` instead (on
    clutter or away from the cards; labels: whatever falls inside, often none)."""
    rng, imgsz, crops, zoom_p, rendered = _crop_frames(index, seed, opts)
    clutter_p = _share(opts, "clutter_crops")
    n = 0
    for f_i, (frame, lab) in enumerate(rendered):
        H, W = frame.shape[:2]
        full = {i: frac for i, _, frac in visible_boxes(lab, W, H)}
        keep = {i for i, frac in full.items()
                if not (lab["cards"][i]["visible"] < 0.5 * frac and lab["cards"][i]["visible"] < 0.3)}
        boxes = [b for i, b, _ in visible_boxes(lab, W, H) if i in keep]
        centres = np.array([(b[:2] + b[2:]) / 2 for b in boxes] +
                           [np.add(h["box"][:2], h["box"][2:]) / 2 for h in lab["hands"]]).reshape(-1, 2)
        for c_i in range(crops):
            if limit is not None and n >= limit:
                return n
            z = float(np.exp(rng.uniform(0, math.log(2.5)))) if rng.random() < zoom_p else 1.0
            scale = 640.0 / W * z  # output pixels per source pixel
            side = imgsz / scale  # crop side in source pixels
            if clutter_p > 0 and rng.random() < clutter_p:
                x0, y0 = background_origin(rng, np.asarray(lab.get("clutter_px", [])), centres, side, (W, H))
            else:
                x0, y0 = crop_origin(rng, centres, side, (W, H))
            write_obb_crop(frame, lab, keep, (x0, y0, side), imgsz, Path(out), split, f"s{index:05d}_{f_i}_{c_i}")
            n += 1
    return n


def write_obb_crop(frame: np.ndarray, lab: dict, keep: set[int] | Sequence[int], square: tuple[float, float, float],
                   imgsz: int, out: Path, split: str, name: str) -> None:
    """Write one square crop of a rendered frame and its oriented-box labels (ultralytics OBB
    format: ``class x1 y1 ... x4 y4``, normalised): ``out/images/split/name.jpg`` and
    ``out/labels/split/name.txt``.

    Args:
        frame: ``(H, W, 3) uint8`` BGR. lab: the frame's labels (``cards``, ``hands``).
        keep: indices of ``lab["cards"]`` that may be labelled; each is labelled (class 0 face
            up, 1 face down) when at least 35 % of its visible part lies in the crop, as the
            quad of :func:`visible_quads`.
        square: ``(x0, y0, side)`` of the crop in frame pixels; it is resized to ``imgsz``.
        imgsz: the crop's side in the written image, pixels.

    Hands (class 2) are labelled by their boxes clipped to the crop, when at least 35 % of the
    box and 2 pixels each way (after resizing) are inside.
    """
    x0, y0, side = square
    H, W = frame.shape[:2]
    scale = imgsz / side
    crop = square_crop(frame, np.array([x0, y0, x0 + side, y0 + side]), imgsz, pad=1.0)
    objs = []
    for i, q, share in visible_quads(lab, W, H, (x0, y0, x0 + side, y0 + side)):
        if i in keep and share >= 0.35:
            objs.append((0 if lab["cards"][i]["face_up"] else 1, q))
    for h in lab["hands"]:
        hx0, hy0, hx1, hy1 = h["box"]
        a = max(hx1 - hx0, 0) * max(hy1 - hy0, 0)
        cb = [max(hx0, x0), max(hy0, y0), min(hx1, x0 + side), min(hy1, y0 + side)]
        w, hh = cb[2] - cb[0], cb[3] - cb[1]
        if w * scale < 2 or hh * scale < 2 or w * hh < 0.35 * a:
            continue
        objs.append((2, np.array([[cb[0], cb[1]], [cb[2], cb[1]], [cb[2], cb[3]], [cb[0], cb[3]]])))
    lines = [f"{cls} " + " ".join(f"{v:.6f}" for v in np.clip((q - [x0, y0]) * scale / imgsz, 0.0, 1.0).reshape(-1))
             for cls, q in objs]
    cv2.imwrite(str(out / "images" / split / f"{name}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 92])
    (out / "labels" / split / f"{name}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))


def _quad_detector(opts: dict) -> Any:
    """The detector named by ``opts["detector_quads"]`` (an ONNX file) as a
    :class:`nertz.vision.detect.CardRecognizer` that only detects (no classifier loaded), or
    None when no detector is named."""
    if not opts.get("detector_quads"):
        return None
    from nertz.vision.detect import CardRecognizer

    return CardRecognizer(detector=opts["detector_quads"], classifier=None, identifier=None, strips=None, threads=1)


def card_training_crop(frame: np.ndarray, quad: np.ndarray, rng: np.random.Generator, size: int = 64,
                       jitter: float = 0.03, jitter_scale: float = 0.04,
                       long_side: np.ndarray | None = None) -> np.ndarray:
    """One training image of the rectified-card classifier: ``quad`` put in a detector's corner
    order (:func:`order_quad`: a label quad starts at the card's own top-left, a detector's at
    the image's), moved by :func:`jitter_quad` when ``jitter`` > 0, warped by
    :func:`rectify_card` and turned by 180 degrees with probability 0.5 (never mirrored).

    Args:
        frame: ``(H, W, 3) uint8`` BGR. quad: ``(4, 2)`` pixels. rng: draws the jitter, then
            the turn. size: output side, pixels. jitter, jitter_scale: as :func:`jitter_quad`'s
            ``corner`` and ``scale``. long_side: as :func:`rectify_card`'s (the direction of
            the card's long side where its zone names it, as the recogniser rectifies it).

    Returns:
        ``(size, size, 3) uint8`` BGR.
    """
    q = order_quad(np.asarray(quad, np.float64).reshape(4, 2))
    if jitter > 0:
        q = jitter_quad(q, rng, corner=jitter, scale=jitter_scale)
    img = rectify_card(frame, q, size, long_side=long_side)
    if rng.random() < 0.5:
        img = cv2.rotate(img, cv2.ROTATE_180)
    return img


def _card_job(index: int, seed: int, out: str, split: str, opts: dict, limit: int | None = None) -> int:
    """Write the rectified face-up cards of scene ``index`` (``kind="card"``; at most ``limit``,
    when given); returns how many."""
    size = int(opts.get("crop", 64))
    frames = int(opts.get("frames_per_scene", 3))
    per_frame = int(opts.get("cards_per_frame", 16))
    min_vis = float(opts.get("min_visible", 0.9))
    max_vis = opts.get("max_visible")
    jitter = float(opts.get("jitter", 0.03))
    jitter_scale = float(opts.get("jitter_scale", 0.04))
    rng, rendered = _frames(index, seed, frames, opts)
    rec = _quad_detector(opts)  # quads as the detector gives them (see write_dataset)
    n = 0
    for f_i, (frame, lab) in enumerate(rendered):
        if max_vis is None:
            cand = [c for c in lab["cards"] if c["face_up"] and c["visible"] >= min_vis]
        else:
            # partly covered cards (a hand or another card over them) whose index corner shows,
            # each matched to the detector by the box of its visible part, not of the whole card;
            # every visible card competes for the detections (a box over the card on top must
            # not be taken for the covered one), only the covered ones are kept
            H, W = frame.shape[:2]
            part = {i: box for i, box, _ in visible_boxes(lab, W, H)}
            cand = [dict(c, quad=None, part=part[i], keep=c["face_up"] and c["corner_visible"]
                         and min_vis <= c["visible"] < float(max_vis))
                    for i, c in enumerate(lab["cards"]) if i in part]
            if not any(c["keep"] for c in cand):
                cand = []
        if rec is not None and cand:
            from nertz.vision.evaluate import match_boxes

            det = rec.detect(frame)
            fi = np.nonzero((det.class_id == 0) & det.whole)[0]
            if max_vis is None:
                tq = np.stack([np.asarray(c["quad"]) for c in cand])
                gt = np.column_stack([tq.min(axis=1), tq.max(axis=1)])
            else:
                gt = np.stack([np.asarray(c["part"], np.float64) for c in cand])
            pairs = match_boxes(det.boxes[fi], gt)
            got = []
            for a, b in pairs:
                if not cand[b].get("keep", True):
                    continue
                q = det.quads[fi[a]] if rng.random() < 0.5 else det.raw_quads[fi[a]]
                got.append(dict(cand[b], quad=np.asarray(q, np.float64).tolist()))
            cand = got
        order = rng.permutation(len(cand))[:per_frame]
        for k in order:
            if limit is not None and n >= limit:
                return n
            c = cand[int(k)]
            img = card_training_crop(frame, np.asarray(c["quad"]), rng, size, jitter, jitter_scale)
            d = Path(out) / split / c["card"]
            cv2.imwrite(str(d / f"s{index:05d}_{f_i}_{int(k)}.png"), img)
            n += 1
    return n


def _strip_job(index: int, seed: int, out: str, split: str, opts: dict, limit: int | None = None) -> int:
    """Write the rectified visible parts of the partly covered face-up cards of scene ``index``
    whose index corner shows (``kind="strip"``, :func:`rectify_strip`; at most ``limit``, when
    given); returns how many.

    The cards are those the recogniser gives the strip classifier: face-up cards whose visible
    part (:func:`visible_quads`) does not have a whole card's shape
    (:func:`nertz.vision.detect.whole_card`). Each one's box is, with probability
    ``detector_share`` (when ``detector_quads`` names an oriented-box detector), the box that
    detector finds for it (matched by IoU >= 0.5 of the bounding boxes), else its label box;
    either is jittered (:func:`jitter_quad`), grown by ``pad`` 1.0-1.25 and turned by 180
    degrees at random."""
    from nertz.vision.detect import whole_card

    size = int(opts.get("crop", 96))
    frames = int(opts.get("frames_per_scene", 3))
    per_frame = int(opts.get("cards_per_frame", 24))
    jitter = float(opts.get("jitter", 0.03))
    jitter_scale = float(opts.get("jitter_scale", 0.06))
    det_share = float(opts.get("detector_share", 0.5))
    rng, rendered = _frames(index, seed, frames, opts)
    rec = _quad_detector(opts)
    n = 0
    for f_i, (frame, lab) in enumerate(rendered):
        H, W = frame.shape[:2]
        cand = []
        for i, q, _ in visible_quads(lab, W, H):
            c = lab["cards"][i]
            if not c["face_up"] or not c["corner_visible"] or whole_card(q[None])[0]:
                continue
            cand.append((c["card"], q))
        if rec is not None and cand:
            from nertz.vision.evaluate import match_boxes

            det = rec.detect(frame)
            fi = np.nonzero((det.class_id == 0) & ~det.whole)[0]
            tq = np.stack([q for _, q in cand])
            for a, b in match_boxes(det.boxes[fi], np.column_stack([tq.min(axis=1), tq.max(axis=1)])):
                if rng.random() < det_share:
                    cand[b] = (cand[b][0], np.asarray(det.quads[fi[a]], np.float64))
        order = rng.permutation(len(cand))[:per_frame]
        for k in order:
            if limit is not None and n >= limit:
                return n
            card, q = cand[int(k)]
            q = jitter_quad(q, rng, corner=jitter, scale=jitter_scale) if jitter > 0 else q
            img = rectify_strip(frame, q, size, pad=float(rng.uniform(1.0, 1.25)))
            if rng.random() < 0.5:
                img = cv2.rotate(img, cv2.ROTATE_180)
            cv2.imwrite(str(Path(out) / split / card / f"s{index:05d}_{f_i}_{int(k)}.png"), img)
            n += 1
    return n


def _run(job: Callable, args: list[tuple], workers: int, desc: str) -> int:
    """Run ``job(*a)`` for every ``a`` (in ``workers`` processes), with a progress bar on
    standard error (standard output is left to the caller's result)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    total = 0
    with Progress(TextColumn(desc), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True)) as bar:
        task = bar.add_task(desc, total=len(args))
        if workers <= 1:
            for a in args:
                total += job(*a)
                bar.advance(task)
        else:
            with ProcessPoolExecutor(max_workers=workers) as ex:
                for r in ex.map(job, *zip(*args)):
                    total += r
                    bar.advance(task)
    return total


def _n(count: int, noun: str) -> str:
    """``"1 scene"``, ``"2 scenes"``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def write_dataset(kind: str, images: int, seed: int, out: Path, workers: int = 1, *, cap_images: bool = False,
                  **options: Any) -> Path:
    """Render a training set for the detector or the classifier.

    Args:
        kind: ``"detect"``, ``"obb"`` (the same crops with oriented boxes), ``"classify"``,
            ``"card"`` (rectified whole cards) or ``"strip"`` (rectified visible parts of partly
            covered cards).
        images: about how many images to write (detect: crops; classify: card crops). Scenes
            are rendered until the target is met: detect writes ``frames_per_scene *
            crops_per_frame`` crops per scene, classify up to ``frames_per_scene *
            cards_per_frame`` (card: ``cards_per_frame`` counted as 20 at most, strip as 8,
            classify as 30, for the number of scenes); whole scenes, unless ``cap_images``.
        seed: everything is derived from it; the same arguments give the same files.
        out: folder to write (created; existing files of the same names are overwritten).
        workers: processes rendering in parallel (scenes are independent).
        cap_images: ``images`` is then the most written (detect and obb: exactly that many; the
            card kinds fewer where the scenes show fewer cards), spread evenly over the scenes,
            and a set of 2 images or more has at least two scenes, so that ``train`` and
            ``val`` both get some (``nertz synth dataset``). False (the sets of the recipes in
            ``models/MODEL_CARD.md``): every scene is written whole.
        **options: the kind's keys of :data:`OPTIONS` (others are refused): ``val_every``
            (every n-th scene goes to ``val``, default 10),
            ``frames_per_scene`` (3), detect: ``imgsz`` (320), ``crops_per_frame`` (3),
            ``zoom_p`` (0.35, share of crops zoomed in up to 2.5x); ``close_p`` (0.2, share of
            scenes with a close-up camera, ``fill`` 1.3..3.5 of :func:`make_scene`); ``roll_p``
            (0.0, share of frames turned by a random angle, :func:`_roll`); classify: ``crop`` (64 px),
            ``cards_per_frame`` (40); card: ``crop`` (64 px), ``cards_per_frame`` (16),
            ``min_visible`` (0.9, renderer's visible fraction), ``max_visible`` (None; a number:
            only the partly covered cards visible from ``min_visible`` up to below it whose
            index corner shows, a hand or another card over the rest, each taken with the quad
            ``detector_quads`` finds for its visible part when it has a whole card's shape;
            requires ``detector_quads``), ``jitter`` (0.03, corner noise as a
            share of the card's side, :func:`jitter_quad`; 0: the exact label quads),
            ``jitter_scale`` (0.04, the quad scaled by up to 1 +- this), ``detector_quads``
            (None; an oriented-box detector's ONNX file: each card's quad is then the one that
            detector finds for it, refined or not at random, cards it misses are left out, and
            ``jitter`` is added on top); strip: ``crop`` (96 px), ``cards_per_frame`` (24),
            ``jitter`` (0.03), ``jitter_scale`` (0.06), ``detector_quads`` (None) and
            ``detector_share`` (0.5: the share of the strips boxed by that detector, see
            :func:`_strip_job`); detect and obb: ``clutter_crops`` (0.0, share of the
            crops, each drawn with that probability, placed on a clutter object or a place
            away from the cards instead of around a card: :func:`background_origin`; their
            label files hold what falls inside, often nothing); obb: as detect;
            ``resolution`` ((W, H) for every scene, default drawn), ``max_canvas_px`` (6e6);
            every kind: ``designs`` (None: each scene's card design drawn from all of them; a
            list of design names: drawn from those, to add scenes of the designs a model reads
            worst).

    Returns:
        The dataset file to give ultralytics: ``out/data.yaml`` (detect) or ``out`` itself
        (classify: ultralytics takes the folder; ``out/data.yaml`` is written too, listing
        the classes, for people).

    Raises:
        ValueError: unknown ``kind``, an option the kind does not take, ``images`` < 1,
            ``workers`` < 1, ``val_every``, ``frames_per_scene``, ``crops_per_frame`` or
            ``cards_per_frame`` not a whole number (:data:`WHOLE_OPTIONS`) or < 1, ``imgsz`` or
            ``crop`` outside :data:`SIZE_MIN`..:data:`SIZE_MAX`, an option of
            :data:`_RANGED_OPTIONS` out of its range, ``max_canvas_px`` not above 0, a
            ``resolution`` that is not ``[W, H]`` from 64x36 to 8K (7680x4320), ``clutter_crops``, ``zoom_p``, ``roll_p`` or ``close_p``
            outside 0..1, ``max_visible`` without ``detector_quads``, or a ``detector_quads``
            that names no file; nothing is written then.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown dataset kind {kind!r}; choose from {', '.join(KINDS)}")
    unknown = sorted(set(options) - set(OPTIONS[kind]))
    if unknown:
        raise ValueError(f"unknown option{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} for a {kind} set; "
                         f"it takes {', '.join(OPTIONS[kind])}")
    if images < 1:
        raise ValueError(f"images must be at least 1, got {images}")
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    for key in WHOLE_OPTIONS:  # int() would truncate 2.5 to 2 (and take true for 1), silently
        value = options.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Integral)):
            raise ValueError(f"{key} must be a whole number, got {value!r}")
    for key in SIZE_OPTIONS:
        value = options.get(key)
        if value is not None and not SIZE_MIN <= value <= SIZE_MAX:
            raise ValueError(f"{key} is a crop side in pixels, {SIZE_MIN}..{SIZE_MAX}; got {value}")
    for key, lo, hi, what in _RANGED_OPTIONS:  # they failed in a worker ("high - low < 0") or were taken as they came
        value = options.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Real)
                                  or not lo <= value <= hi):
            raise ValueError(f"{key} is {what}, {lo:g}..{hi:g}; got {value!r}")
    mcp = options.get("max_canvas_px")
    if mcp is not None and (isinstance(mcp, bool) or not isinstance(mcp, numbers.Real) or not 0 < mcp < math.inf):
        raise ValueError(f"max_canvas_px is a number of pixels above 0; got {mcp!r}")  # was "math domain error"
    res = options.get("resolution")
    if res is not None:
        from .render import MAX_PIXELS

        if not (isinstance(res, (list, tuple)) and len(res) == 2
                and all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in res)):
            raise ValueError(f"resolution is [WIDTH, HEIGHT] in pixels, e.g. [1280, 720]; got {res!r}")
        if res[0] < 64 or res[1] < 36 or res[0] * res[1] > MAX_PIXELS:
            raise ValueError(f"resolution must be 64x36 to 7680x4320 pixels (8K), got {res[0]}x{res[1]}")
    if options.get("max_visible") is not None and not options.get("detector_quads"):
        raise ValueError("max_visible (partly covered cards) needs detector_quads: covered cards are taken "
                         "as a detector boxes them")
    out = Path(out)
    val_every = int(options.get("val_every", 10))
    if val_every < 1:
        raise ValueError(f"val_every must be at least 1, got {val_every}")
    frames = int(options.get("frames_per_scene", 3))
    if kind in ("detect", "obb"):
        for key in ("clutter_crops", "zoom_p", "roll_p"):
            _share(options, key)  # a bad share fails here, not in a worker
        per_scene = frames * int(options.get("crops_per_frame", 3))
        job: Callable = _detect_job if kind == "detect" else _obb_job
    elif kind == "card":
        per_scene = frames * min(int(options.get("cards_per_frame", 16)), 20)  # ~20 whole faces a frame
        job = _card_job
    elif kind == "strip":
        per_scene = frames * min(int(options.get("cards_per_frame", 24)), 8)  # ~8 readable strips a frame
        job = _strip_job
    else:
        per_scene = frames * min(int(options.get("cards_per_frame", 40)), 30)  # ~30 readable cards a frame
        job = _classify_job
    _share(options, "close_p")
    if options.get("detector_quads") and not Path(options["detector_quads"]).is_file():
        raise ValueError(f"detector_quads {options['detector_quads']}: no such file (an oriented-box detector, ONNX)")
    for key in ("frames_per_scene", "crops_per_frame" if kind in ("detect", "obb") else "cards_per_frame"):
        if int(options.get(key, 1)) < 1:  # (every default is at least 1)
            raise ValueError(f"{key} must be at least 1, got {options[key]}")
    for split in ("train", "val"):
        if kind in ("detect", "obb"):
            (out / "images" / split).mkdir(parents=True, exist_ok=True)
            (out / "labels" / split).mkdir(parents=True, exist_ok=True)
        else:
            for c in CARD_CLASSES:
                (out / split / c).mkdir(parents=True, exist_ok=True)
    scenes = max(1, math.ceil(images / per_scene))
    limits: list[int | None] = [None] * scenes
    if cap_images:
        scenes = max(scenes, min(images, 2))
        limits = [images // scenes + (1 if i < images % scenes else 0) for i in range(scenes)]
    # scene 0 and every val_every-th to val; a lone scene to train (a set needs training images)
    splits = ["train"] if scenes == 1 else ["val" if i % val_every == 0 else "train" for i in range(scenes)]
    args = [(i, seed, str(out), splits[i], options, limits[i]) for i in range(scenes)]
    total = _run(job, args, workers, f"{kind} set: {_n(scenes, 'scene')}")
    yaml = out / "data.yaml"
    if kind in ("detect", "obb"):
        names = "\n".join(f"  {i}: {n}" for i, n in enumerate(DETECT_CLASSES))
        yaml.write_text(f"# nertz synthetic detection set: seed {seed}, {total} images, {_n(scenes, 'scene')}\n"
                        f"path: {out.resolve()}\ntrain: images/train\nval: images/val\nnames:\n{names}\n")
        return yaml
    names = "\n".join(f"  {i}: {n}" for i, n in enumerate(sorted(CARD_CLASSES)))
    yaml.write_text(f"# nertz synthetic classification set: seed {seed}, {total} crops, {_n(scenes, 'scene')}\n"
                    f"# ultralytics takes the folder itself: data={out.resolve()}\nnames:\n{names}\n")
    return out
