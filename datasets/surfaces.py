"""Procedural table surfaces and clutter, drawn on the top-down canvas (numpy + OpenCV).

Every texture is a ``(H, W, 3) uint8 BGR`` image of the table seen from straight above at
``px_per_mm`` pixels per table millimetre, so that its grain, weave and pattern have real-world
sizes whatever the camera. Kinds: ``wood`` (planks with grain), ``felt`` (fine fibres and
wrinkles), ``cloth`` (visible weave), ``pattern`` (gingham, stripes or dots on cloth),
``plain`` (laminate/plastic, light or dark), ``carpet`` (loop-pile speckle, for rounds played
on the floor), ``uniform`` (one flat colour, for tests).
"""

from __future__ import annotations

import cv2
import numpy as np

__all__ = ["SURFACE_KINDS", "CLUTTER_KINDS", "make_surface", "draw_clutter", "draw_clutter_object"]

SURFACE_KINDS = ("wood", "felt", "cloth", "pattern", "plain", "carpet")


def _smooth_noise(rng: np.random.Generator, h: int, w: int, cell: float) -> np.ndarray:
    """Band-limited noise, ~unit std, features about ``cell`` pixels wide. ``(h, w)`` float32."""
    gh, gw = max(2, int(h / cell) + 2), max(2, int(w / cell) + 2)
    g = rng.standard_normal((gh, gw)).astype(np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)


def _wrinkles(rng: np.random.Generator, h: int, w: int, s: float, amp: float) -> np.ndarray:
    """Shading of a lightly wrinkled cloth: ``(h, w)`` float32 gain around 1."""
    n = _smooth_noise(rng, h, w, 60 * s) + 0.5 * _smooth_noise(rng, h, w, 25 * s)
    gx = cv2.Sobel(n, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(n, cv2.CV_32F, 0, 1, ksize=3)
    a = rng.uniform(0, 2 * np.pi)
    shade = np.cos(a) * gx + np.sin(a) * gy
    shade /= (np.abs(shade).max() + 1e-6)
    return 1.0 + amp * shade


def _tone(img: np.ndarray, gain: np.ndarray) -> np.ndarray:
    if gain.ndim == 2:
        gain = gain[..., None]
    return np.clip(img * gain, 0, 255)


def make_surface(kind: str, h: int, w: int, px_per_mm: float, rng: np.random.Generator,
                 colour: tuple[int, int, int] | None = None) -> np.ndarray:
    """Draw a table surface.

    Args:
        kind: one of :data:`SURFACE_KINDS` or ``"uniform"``.
        h, w: canvas size in pixels.
        px_per_mm: canvas scale.
        rng: generator (all randomness comes from it).
        colour: BGR base colour for ``uniform`` (default mid grey) or to override the drawn one.

    Returns:
        ``(h, w, 3) uint8`` BGR.

    Raises:
        ValueError: unknown kind.
    """
    s = px_per_mm
    if kind == "uniform":
        c = colour if colour is not None else (128, 128, 128)
        return np.full((h, w, 3), c, dtype=np.uint8)
    makers = {"wood": _wood, "felt": _felt, "cloth": _cloth, "plain": _plain, "carpet": _carpet,
              "pattern": lambda rng, h, w, s, colour: _pattern(rng, h, w, s)}
    if kind in makers:
        return np.ascontiguousarray(makers[kind](rng, h, w, s, colour))
    raise ValueError(f"unknown surface kind {kind!r}; choose from {SURFACE_KINDS + ('uniform',)}")


def _wood(rng, h, w, s, colour):
    palettes = [(70, 125, 175), (40, 70, 110), (45, 80, 140), (120, 150, 175), (95, 140, 190),
                (30, 45, 70), (140, 160, 170)]
    base = np.array(colour if colour is not None else palettes[rng.integers(len(palettes))],
                    dtype=np.float32)
    base *= rng.uniform(0.85, 1.15)
    vertical = rng.random() < 0.5
    H, W = (w, h) if vertical else (h, w)  # draw planks along x, transpose if vertical
    plank = rng.uniform(80, 160) * s
    y = np.arange(H, dtype=np.float32)[:, None]
    x = np.arange(W, dtype=np.float32)[None, :]
    period = rng.uniform(2.5, 6.0) * s
    # grain lines run along x, bending gently: noise stretched along the grain
    warp = cv2.resize(_smooth_noise(rng, max(8, H // 4), max(8, W // 32), 12 * s / 4),
                      (W, H), interpolation=cv2.INTER_CUBIC) * 2.5 * period
    fine_w = cv2.resize(_smooth_noise(rng, max(8, H), max(8, W // 8), 3 * s),
                        (W, H), interpolation=cv2.INTER_LINEAR) * 0.4 * period
    grain = np.sin(2 * np.pi * (y + warp + fine_w) / period)
    grain = 0.6 * grain + 0.4 * np.sin(2 * np.pi * (y + 1.3 * warp) / (period * 3.7))
    plank_id = np.floor((y + 0 * x) / plank).astype(np.int32)
    n_pl = int(plank_id.max()) + 2
    tones = rng.uniform(0.85, 1.12, n_pl).astype(np.float32)
    gain = tones[np.clip(plank_id, 0, n_pl - 1)] * (1 + 0.09 * grain)
    fine = rng.standard_normal((H, W)).astype(np.float32)
    fine = cv2.GaussianBlur(fine, (0, 0), sigmaX=2.5 * s, sigmaY=0.3 * s)
    gain = gain * (1 + 0.05 * fine / (fine.std() + 1e-6))
    seam = (np.abs(((y + 0 * x) % plank)) < max(1.0, 0.8 * s))
    gain = np.where(seam, gain * 0.55, gain)
    img = _tone(np.broadcast_to(base, (H, W, 3)).astype(np.float32), gain.astype(np.float32))
    # varnish sheen: low-frequency brightening
    img *= (1 + 0.06 * _smooth_noise(rng, H, W, 150 * s))[..., None]
    img = np.clip(img, 0, 255).astype(np.uint8)
    if vertical:
        img = np.ascontiguousarray(img.transpose(1, 0, 2))
    return img


def _felt_colour(rng):
    palettes = [(40, 110, 30), (35, 30, 150), (110, 60, 20), (45, 30, 95), (70, 70, 70),
                (25, 25, 170), (90, 100, 40), (60, 40, 30), (150, 140, 130)]
    return np.array(palettes[rng.integers(len(palettes))], dtype=np.float32) * rng.uniform(0.8, 1.2)


def _felt(rng, h, w, s, colour):
    base = np.array(colour, np.float32) if colour is not None else _felt_colour(rng)
    fine = rng.standard_normal((h, w)).astype(np.float32)
    fine = cv2.GaussianBlur(fine, (0, 0), 0.6)
    gain = (1 + 0.05 * fine / (fine.std() + 1e-6)) * (1 + 0.05 * _smooth_noise(rng, h, w, 30 * s))
    gain *= _wrinkles(rng, h, w, s, rng.uniform(0.04, 0.14))
    return np.clip(base[None, None] * gain[..., None], 0, 255).astype(np.uint8)


def _weave(rng, h, w, s, period_mm):
    p = period_mm * s
    y = np.arange(h, dtype=np.float32)[:, None]
    x = np.arange(w, dtype=np.float32)[None, :]
    a = np.sin(2 * np.pi * x / p) * np.sin(2 * np.pi * y / p)
    thread = _smooth_noise(rng, h, w, 2 * p)
    return a, thread


def _cloth(rng, h, w, s, colour):
    base = np.array(colour, np.float32) if colour is not None else _felt_colour(rng)
    period = max(rng.uniform(1.2, 2.2), 3.0 / s)
    weave, thread = _weave(rng, h, w, s, period)
    gain = 1 + 0.07 * weave + 0.04 * thread
    gain *= _wrinkles(rng, h, w, s, rng.uniform(0.05, 0.18))
    return np.clip(base[None, None] * gain[..., None], 0, 255).astype(np.uint8)


def _pattern(rng, h, w, s):
    y = np.arange(h, dtype=np.float32)[:, None]
    x = np.arange(w, dtype=np.float32)[None, :]
    c1 = _felt_colour(rng)
    c2 = np.array([230, 235, 240], np.float32) * rng.uniform(0.8, 1.0)
    kind = rng.integers(3)
    per = rng.uniform(18, 45) * s
    if kind == 0:  # gingham: two stripe sets, overlaps darker
        a = ((x % per) < per / 2).astype(np.float32)
        b = ((y % per) < per / 2).astype(np.float32)
        m = 0.5 * a + 0.5 * b
    elif kind == 1:  # stripes
        m = ((x + 0.0 * y) % per < per * rng.uniform(0.2, 0.6)).astype(np.float32)
    else:  # dots
        r = per * rng.uniform(0.15, 0.3)
        dx = (x % per) - per / 2
        dy = (y % per) - per / 2
        m = ((dx * dx + dy * dy) < r * r).astype(np.float32)
    m = cv2.GaussianBlur(m, (0, 0), 0.7)
    img = c2[None, None] * (1 - m[..., None]) + c1[None, None] * m[..., None]
    weave, thread = _weave(rng, h, w, s, max(1.5, 3.0 / s))
    gain = (1 + 0.05 * weave + 0.03 * thread) * _wrinkles(rng, h, w, s, rng.uniform(0.04, 0.15))
    return np.clip(img * gain[..., None], 0, 255).astype(np.uint8)


def _plain(rng, h, w, s, colour):
    opts = [(205, 210, 212), (60, 60, 62), (180, 195, 200), (225, 225, 220), (120, 130, 140)]
    base = np.array(colour if colour is not None else opts[rng.integers(len(opts))], np.float32)
    speck = rng.standard_normal((h, w)).astype(np.float32)
    speck = cv2.GaussianBlur(speck, (0, 0), 0.8)
    gain = (1 + 0.03 * speck / (speck.std() + 1e-6)) * (1 + 0.03 * _smooth_noise(rng, h, w, 80 * s))
    return np.clip(base[None, None] * gain[..., None], 0, 255).astype(np.uint8)


def _carpet(rng, h, w, s, colour):
    opts = [(120, 150, 170), (90, 110, 130), (60, 75, 95), (150, 160, 165), (70, 70, 90)]
    base = np.array(colour if colour is not None else opts[rng.integers(len(opts))], np.float32)
    loops = cv2.GaussianBlur(rng.standard_normal((h, w)).astype(np.float32), (0, 0), max(0.6, 0.9 * s))
    loops /= loops.std() + 1e-6
    fleck = (cv2.GaussianBlur(rng.standard_normal((h, w)).astype(np.float32), (0, 0), max(0.6, 0.7 * s))
             > 1.2 * 0.35).astype(np.float32)
    gain = 1 + 0.18 * loops + 0.05 * _smooth_noise(rng, h, w, 60 * s)
    img = base[None, None] * gain[..., None]
    dark = base * rng.uniform(0.4, 0.7)
    img = img * (1 - 0.35 * fleck[..., None]) + dark[None, None] * 0.35 * fleck[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


CLUTTER_KINDS = ("mug", "phone", "pad", "pen", "coins", "paper", "envelope", "book", "card_box",
                 "napkin", "coaster", "remote", "keys")
"""What :func:`draw_clutter` may put on the table. The first five are the original kinds (drawn
from the scene's generator as before); the others are drawn as *extra* objects from a second
generator so that adding them left the scene generator's stream unchanged."""
_EXTRA_KINDS = CLUTTER_KINDS[5:]


def draw_clutter(img: np.ndarray, px_per_mm: float, origin_mm: np.ndarray,
                 free_spots_mm: np.ndarray, rng: np.random.Generator,
                 extra_rng: np.random.Generator | None = None, max_objects: int = 6,
                 extra_spots_mm: np.ndarray | None = None) -> np.ndarray:
    """Draw table clutter in place on the surface: 0-4 of the original kinds (mugs, phones,
    score pads, pens, coins) from ``rng``, then, when ``extra_rng`` is given, 0 up to
    ``max_objects`` minus those of the newer kinds (sheets of paper, envelopes, books and
    magazines, playing-card boxes, folded napkins, coasters, remotes, keys; and, less often,
    the original kinds) on the spots left and on ``extra_spots_mm``.

    Args:
        img: ``(H, W, 3) uint8`` canvas, modified in place.
        px_per_mm: canvas scale.
        origin_mm: ``(2,)`` table mm of canvas pixel (0, 0).
        free_spots_mm: ``(K, 2)`` table mm where an object may go (outside zones and the
            shared area); each object takes one spot.
        rng: generator of the original kinds (its draws are the same as before the newer
            kinds were added).
        extra_rng: generator of the extra objects; None: none are drawn.
        max_objects: most objects in all.
        extra_spots_mm: ``(L, 2)`` table mm of more free places, for the extra objects only
            (:func:`nertz.datasets.render.make_scene` gives places the camera sees).

    Returns:
        ``(N, 2)`` float64 table mm of the spots that received an object (in drawing order).
    """
    s = px_per_mm
    spots = np.asarray(free_spots_mm, dtype=np.float64).reshape(-1, 2)
    more = np.zeros((0, 2)) if extra_spots_mm is None else np.asarray(extra_spots_mm, np.float64).reshape(-1, 2)
    n = int(rng.integers(0, min(4, len(spots)) + 1)) if len(spots) else 0
    used = rng.permutation(len(spots))[:n] if len(spots) else np.zeros(0, int)
    for k in used:
        cx, cy = (spots[k] - origin_mm) * s
        what = rng.integers(5)
        ang = float(rng.uniform(0, 180))
        draw_clutter_object(img, s, (cx, cy), CLUTTER_KINDS[int(what)], ang, rng)
    placed = [spots[k] for k in used]
    if extra_rng is not None:
        # places the camera sees first (most of the spots above lie out of view)
        left = np.vstack([more, spots[np.setdiff1d(np.arange(len(spots)), used)]])
        top = min(max_objects - n, len(left))
        m = int(extra_rng.integers(min(1, top), top + 1)) if top > 0 else 0
        order = np.concatenate([extra_rng.permutation(len(more)),
                                len(more) + extra_rng.permutation(len(left) - len(more))])
        for k in order[:m]:
            pos = left[k] + extra_rng.uniform(-25, 25, 2)
            cx, cy = (pos - origin_mm) * s
            kinds = _EXTRA_KINDS if extra_rng.random() < 0.8 else CLUTTER_KINDS[:5]
            what = kinds[int(extra_rng.integers(len(kinds)))]
            draw_clutter_object(img, s, (cx, cy), what, float(extra_rng.uniform(0, 180)), extra_rng)
            placed.append(pos)
    return np.array(placed, np.float64).reshape(-1, 2)


def draw_clutter_object(img: np.ndarray, px_per_mm: float, centre_px: tuple[float, float], kind: str,
                        angle_deg: float, rng: np.random.Generator) -> None:
    """Draw one clutter object of ``kind`` (:data:`CLUTTER_KINDS`) centred at ``centre_px``
    (canvas pixels), turned by ``angle_deg``, in place on ``img`` (``(H, W, 3) uint8`` BGR, the
    top-down table canvas at ``px_per_mm``). Sizes are real-world (a sheet of A4 is 210 x 297 mm).

    Raises:
        ValueError: unknown kind.
    """
    s = px_per_mm
    cx, cy = float(centre_px[0]), float(centre_px[1])
    c = (int(cx), int(cy))
    ang = float(angle_deg)
    if kind == "mug":  # mug from above: rim, dark drink, handle
        r = int(rng.uniform(40, 48) * s)
        col = tuple(int(v) for v in rng.uniform(40, 230, 3))
        hx = int(cx + np.cos(np.deg2rad(ang)) * r * 1.2)
        hy = int(cy + np.sin(np.deg2rad(ang)) * r * 1.2)
        cv2.line(img, c, (hx, hy), col, max(2, int(9 * s)), cv2.LINE_AA)
        cv2.circle(img, (c[0] + int(4 * s), c[1] + int(4 * s)), r + 2, (20, 20, 20), -1, cv2.LINE_AA)
        cv2.circle(img, c, r, col, -1, cv2.LINE_AA)
        cv2.circle(img, c, int(r * 0.82), (30, 45, 70) if rng.random() < 0.6 else (200, 210, 215),
                   -1, cv2.LINE_AA)
    elif kind == "phone":
        box = ((cx, cy), (72 * s, 150 * s), ang)
        pts = cv2.boxPoints(box).astype(np.int32)
        cv2.fillConvexPoly(img, pts + int(3 * s), (25, 25, 25), cv2.LINE_AA)
        cv2.fillConvexPoly(img, pts, (40, 38, 36), cv2.LINE_AA)
        inner = cv2.boxPoints(((cx, cy), (64 * s, 138 * s), ang)).astype(np.int32)
        cv2.fillConvexPoly(img, inner, (18, 16, 15), cv2.LINE_AA)
    elif kind == "pad":  # score pad with ruled lines and scribbles
        wpx, hpx = 100 * s, 150 * s
        pad = np.full((int(hpx), int(wpx), 3), 238, np.uint8)
        pad[:] = (225, 240, 245) if rng.random() < 0.5 else (240, 240, 240)
        for yy in np.arange(12 * s, hpx, 7 * s):
            cv2.line(pad, (0, int(yy)), (int(wpx), int(yy)), (200, 170, 150), 1)
        for _ in range(int(rng.integers(4, 14))):
            yy = int(rng.uniform(12 * s, hpx - 4 * s))
            x0 = int(rng.uniform(4 * s, wpx / 2))
            pts = np.array([[x0 + i * 3 * s, yy - rng.uniform(0, 3 * s)] for i in range(
                int(rng.integers(3, 9)))], np.int32)
            cv2.polylines(pad, [pts], False, (120, 60, 30), 1, cv2.LINE_AA)
        _paste(img, pad, cx, cy, ang)
    elif kind == "pen":
        L = 140 * s
        d = np.array([np.cos(np.deg2rad(ang)), np.sin(np.deg2rad(ang))]) * L / 2
        p0 = (int(cx - d[0]), int(cy - d[1]))
        p1 = (int(cx + d[0]), int(cy + d[1]))
        col = tuple(int(v) for v in rng.uniform(20, 200, 3))
        cv2.line(img, p0, p1, (30, 30, 30), max(2, int(10 * s)), cv2.LINE_AA)
        cv2.line(img, p0, p1, col, max(1, int(8 * s)), cv2.LINE_AA)
    elif kind == "coins":  # a few coins
        for _ in range(int(rng.integers(2, 6))):
            o = rng.uniform(-30, 30, 2) * s
            r = int(rng.uniform(9, 13) * s)
            cc = (int(cx + o[0]), int(cy + o[1]))
            tone = rng.uniform(0.7, 1.0)
            col = (int(150 * tone), int(175 * tone), int(190 * tone)) if rng.random() < 0.5 else \
                (int(60 * tone), int(110 * tone), int(170 * tone))
            cv2.circle(img, cc, r, col, -1, cv2.LINE_AA)
            cv2.circle(img, cc, r, (50, 60, 70), 1, cv2.LINE_AA)
    elif kind in _MAKERS:
        patch, alpha, lift = _MAKERS[kind](rng, s)
        _paste(img, patch, cx, cy, ang, alpha, shadow=lift * s)
    else:
        raise ValueError(f"unknown clutter kind {kind!r}; choose from {CLUTTER_KINDS}")


# --------------------------------------------------------------------------------------------
# the newer clutter kinds: each maker returns (patch (h, w, 3) uint8 BGR, alpha (h, w) uint8 or
# None, shadow offset mm) for an object drawn upright, which _paste turns and composites
def _paste(img: np.ndarray, patch: np.ndarray, cx: float, cy: float, ang: float,
           alpha: np.ndarray | None = None, shadow: float = 0.0) -> None:
    """Composite ``patch`` (its centre on canvas pixel ``(cx, cy)``, turned by ``ang`` degrees as
    ``cv2.getRotationMatrix2D``) onto ``img`` in place, warping only the region it covers; with
    ``shadow`` > 0 pixels, a soft contact shadow offset by that much is darkened first."""
    ph, pw = patch.shape[:2]
    if alpha is None:
        alpha = np.full((ph, pw), 255, np.uint8)
    M = cv2.getRotationMatrix2D((pw / 2, ph / 2), ang, 1.0)
    M[:, 2] += (cx - pw / 2, cy - ph / 2)
    corners = np.array([[0, 0, 1], [pw, 0, 1], [pw, ph, 1], [0, ph, 1]], np.float64) @ M.T
    pad = int(2 * shadow + 4)
    H, W = img.shape[:2]
    x0 = max(int(np.floor(corners[:, 0].min())) - pad, 0)
    y0 = max(int(np.floor(corners[:, 1].min())) - pad, 0)
    x1 = min(int(np.ceil(corners[:, 0].max())) + pad + 1, W)
    y1 = min(int(np.ceil(corners[:, 1].max())) + pad + 1, H)
    if x1 <= x0 or y1 <= y0:
        return
    M[:, 2] -= (x0, y0)
    size = (x1 - x0, y1 - y0)
    a = cv2.warpAffine(alpha, M, size).astype(np.float32)[..., None] / 255
    warped = cv2.warpAffine(patch, M, size).astype(np.float32)
    roi = img[y0:y1, x0:x1].astype(np.float32)
    if shadow > 0:
        sh = np.roll(a[..., 0], (int(shadow), int(shadow)), axis=(0, 1))
        sh = cv2.GaussianBlur(sh, (0, 0), max(1.0, shadow))[..., None]
        roi *= 1 - 0.45 * sh
    img[y0:y1, x0:x1] = np.clip(roi * (1 - a) + warped * a, 0, 255).astype(np.uint8)


def _paper_colour(rng: np.random.Generator) -> np.ndarray:
    opts = [(245, 247, 248), (232, 240, 244), (215, 232, 240), (238, 238, 236), (200, 225, 235)]
    return np.array(opts[int(rng.integers(len(opts)))], np.float32) * rng.uniform(0.9, 1.0)


def _shade(rng: np.random.Generator, patch: np.ndarray, s: float, amp: float = 0.04) -> np.ndarray:
    """Low-frequency lighting variation over a patch (in place, returned)."""
    h, w = patch.shape[:2]
    g = 1 + amp * _smooth_noise(rng, h, w, 60 * s)
    patch[:] = np.clip(patch * g[..., None], 0, 255).astype(np.uint8)
    return patch


def _text(rng: np.random.Generator, img: np.ndarray, x0: float, y0: float, x1: float, y1: float,
          line_h: float, colour, fill: float = 0.9) -> None:
    """Printed text seen from afar: rows of word-sized dark bars between ``(x0, y0)`` and
    ``(x1, y1)`` pixels, rows ``line_h`` apart, bars ``0.45 * line_h`` tall."""
    col = tuple(int(v) for v in colour)
    th = max(1, int(round(0.45 * line_h)))
    y = y0
    while y + th <= y1:
        if rng.random() < fill:
            x = x0 + (rng.uniform(0, 3) * line_h if rng.random() < 0.15 else 0)
            end = x1 - (rng.uniform(0, 0.6) * (x1 - x0) if rng.random() < 0.25 else 0)
            while x < end:
                wl = rng.uniform(1.5, 6) * line_h
                cv2.rectangle(img, (int(x), int(y)), (int(min(x + wl, end)), int(y + th)), col, -1)
                x += wl + rng.uniform(0.5, 1.0) * line_h
        y += line_h


def _fold(rng: np.random.Generator, img: np.ndarray, horizontal: bool, at: float, depth: float) -> None:
    """A fold crease across ``img`` at fraction ``at`` of its height (or width): one side a
    little darker (it faces away from the light), a thin line on the crease."""
    h, w = img.shape[:2]
    f = img.astype(np.float32)
    if horizontal:
        k = int(at * h)
        f[k:] *= 1 - depth if rng.random() < 0.5 else 1 + depth / 2
        cv2.line(f, (0, k), (w, k), tuple(float(v) * 0.85 for v in f[max(k - 1, 0), w // 2]), 1, cv2.LINE_AA)
    else:
        k = int(at * w)
        f[:, k:] *= 1 - depth if rng.random() < 0.5 else 1 + depth / 2
        cv2.line(f, (k, 0), (k, h), tuple(float(v) * 0.85 for v in f[h // 2, max(k - 1, 0)]), 1, cv2.LINE_AA)
    img[:] = np.clip(f, 0, 255).astype(np.uint8)


def _vivid(rng: np.random.Generator) -> np.ndarray:
    hsv = np.uint8([[[rng.integers(0, 180), rng.integers(120, 256), rng.integers(90, 240)]]])
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


def _make_paper(rng, s):
    w_mm, h_mm = [(210, 297), (216, 279), (148, 210), (210, 148), (180, 120)][int(rng.integers(5))]
    w, h = int(w_mm * s), int(h_mm * s)
    p = np.empty((h, w, 3), np.uint8)
    p[:] = _paper_colour(rng)
    m = 18 * s
    ink = (40, 40, 40) if rng.random() < 0.8 else (120, 60, 20)
    if rng.random() < 0.3:  # a certificate / form: a printed border
        cv2.rectangle(p, (int(m / 2), int(m / 2)), (int(w - m / 2), int(h - m / 2)),
                      tuple(int(v) for v in _vivid(rng) * 0.6), max(1, int(2.5 * s)))
    y = m
    if rng.random() < 0.6:  # a heading
        hh = rng.uniform(5, 9) * s
        _text(rng, p, w * rng.uniform(0.1, 0.3), y, w * rng.uniform(0.6, 0.9), y + hh * 1.2, hh * 1.6, ink)
        y += hh * 2.5
    _text(rng, p, m, y, w - m, h * rng.uniform(0.5, 0.95), rng.uniform(4, 6.5) * s, ink,
          fill=float(rng.uniform(0.6, 0.95)))
    if rng.random() < 0.3:  # a stamp or logo
        r = int(rng.uniform(10, 18) * s)
        cc = (int(w * rng.uniform(0.2, 0.8)), int(h * rng.uniform(0.7, 0.9)))
        col = tuple(int(v) for v in _vivid(rng) * 0.7)
        cv2.circle(p, cc, r, col, max(1, int(1.5 * s)), cv2.LINE_AA)
        cv2.circle(p, cc, int(r * 0.7), col, max(1, int(0.8 * s)), cv2.LINE_AA)
    for _ in range(int(rng.integers(0, 3))):  # folds (a letter folded in three, in half)
        _fold(rng, p, bool(rng.random() < 0.7), float(rng.choice([1 / 3, 1 / 2, 2 / 3])), 0.06)
    return _shade(rng, p, s), None, 0.6


def _make_envelope(rng, s):
    w_mm, h_mm = [(220, 110), (162, 114), (229, 162), (240, 105)][int(rng.integers(4))]
    w, h = int(w_mm * s), int(h_mm * s)
    p = np.empty((h, w, 3), np.uint8)
    kraft = rng.random() < 0.25
    p[:] = np.array([110, 160, 200], np.float32) * rng.uniform(0.85, 1.05) if kraft else _paper_colour(rng)
    edge = tuple(int(v) for v in p[0, 0].astype(np.float32) * 0.8)
    lw = max(1, int(0.6 * s))
    if rng.random() < 0.5:  # back: the flaps' edges
        tip = (w // 2, int(h * rng.uniform(0.45, 0.65)))
        cv2.line(p, (0, 0), tip, edge, lw, cv2.LINE_AA)
        cv2.line(p, (w, 0), tip, edge, lw, cv2.LINE_AA)
        cv2.line(p, (0, h), (int(w * 0.42), int(h * 0.5)), edge, lw, cv2.LINE_AA)
        cv2.line(p, (w, h), (int(w * 0.58), int(h * 0.5)), edge, lw, cv2.LINE_AA)
        # the top flap casts a faint shade
        tri = np.array([[0, 0], [w, 0], tip], np.int32)
        mask = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(mask, tri, 255)
        p[mask > 0] = np.clip(p[mask > 0] * 1.04, 0, 255).astype(np.uint8)
    else:  # front: address, stamp, postmark
        ink = (40, 40, 40) if rng.random() < 0.7 else (110, 50, 20)
        _text(rng, p, w * 0.4, h * 0.5, w * 0.85, h * 0.85, rng.uniform(5, 8) * s, ink)
        _text(rng, p, 8 * s, 8 * s, w * 0.35, h * 0.3, 4 * s, ink)
        sw, sh = int(rng.uniform(20, 28) * s), int(rng.uniform(24, 32) * s)
        x1, y0 = w - int(8 * s), int(8 * s)
        stamp = _vivid(rng)
        cv2.rectangle(p, (x1 - sw, y0), (x1, y0 + sh), (235, 235, 235), -1)
        cv2.rectangle(p, (x1 - sw + int(2 * s), y0 + int(2 * s)), (x1 - int(2 * s), y0 + sh - int(2 * s)),
                      tuple(int(v) for v in stamp), -1)
        cv2.circle(p, (x1 - sw // 2, y0 + sh // 2), int(sh * 0.22), tuple(int(v) for v in 255 - stamp / 2), -1,
                   cv2.LINE_AA)
        cc = (x1 - sw - int(8 * s), y0 + sh // 2)
        for r in (12, 9):
            cv2.circle(p, cc, int(r * s), (60, 60, 60), max(1, int(0.7 * s)), cv2.LINE_AA)
        for k in range(4):
            yy = cc[1] - int(6 * s) + int(k * 4 * s)
            cv2.line(p, (cc[0] + int(14 * s), yy), (cc[0] + int(40 * s), yy), (60, 60, 60), lw, cv2.LINE_AA)
    cv2.rectangle(p, (0, 0), (w - 1, h - 1), edge, 1)
    return _shade(rng, p, s), None, 0.8


def _make_book(rng, s):
    magazine = rng.random() < 0.45
    w_mm, h_mm = (rng.uniform(205, 230), rng.uniform(275, 300)) if magazine else         (rng.uniform(110, 165), rng.uniform(175, 240))
    w, h = int(w_mm * s), int(h_mm * s)
    base = _vivid(rng) if rng.random() < 0.7 else np.array([30, 30, 30], np.float32) * rng.uniform(0.6, 6)
    p = np.empty((h, w, 3), np.float32)
    p[:] = base
    if magazine:  # a cover photo: big smooth blobs of colour
        for _ in range(3):
            blob = np.clip(_smooth_noise(rng, h, w, 50 * s), 0, None)[..., None]
            p += blob * (_vivid(rng) - base) * 0.5
    else:
        p *= (1 + 0.04 * _smooth_noise(rng, h, w, 20 * s))[..., None]
    p = np.clip(p, 0, 255).astype(np.uint8)
    light = float(cv2.cvtColor(p[h // 2:h // 2 + 1, w // 2:w // 2 + 1], cv2.COLOR_BGR2GRAY)[0, 0]) > 128
    ink = (25, 25, 25) if light else (240, 240, 240)
    accent = tuple(int(v) for v in _vivid(rng))
    if magazine:  # masthead and cover lines
        cv2.rectangle(p, (int(10 * s), int(10 * s)), (w - int(10 * s), int(rng.uniform(35, 55) * s)), ink, -1)
        for _ in range(int(rng.integers(2, 5))):
            y = rng.uniform(80, h_mm - 30) * s
            x = rng.uniform(10, 60) * s
            _text(rng, p, x, y, x + rng.uniform(50, 120) * s, y + 16 * s, rng.uniform(6, 9) * s, accent)
    else:  # title and author blocks, a spine along the left edge
        y = rng.uniform(20, 60) * s
        _text(rng, p, 15 * s, y, w - 15 * s, y + rng.uniform(20, 40) * s, rng.uniform(9, 14) * s, ink)
        y2 = h - rng.uniform(25, 40) * s
        _text(rng, p, 25 * s, y2, w - 25 * s, y2 + 10 * s, 7 * s, ink)
        if rng.random() < 0.5:
            cv2.rectangle(p, (int(15 * s), int(h * 0.45)), (w - int(15 * s), int(h * 0.7)), accent, -1)
        sp = max(2, int(rng.uniform(5, 12) * s))
        p[:, :sp] = (p[:, :sp] * 0.7).astype(np.uint8)
        cv2.line(p, (sp, 0), (sp, h), tuple(int(v) for v in base * 0.5), max(1, int(0.8 * s)), cv2.LINE_AA)
        # the page block shows along the other edges
        pages = max(1, int(rng.uniform(1.5, 3.5) * s))
        paper = tuple(int(v) for v in _paper_colour(rng) * 0.92)
        p[:, -pages:] = paper
        p[-pages:, sp:] = paper
    return _shade(rng, p, s, 0.06), None, rng.uniform(3, 8) if not magazine else 1.0


def _make_card_box(rng, s):
    """A playing-card tuck box seen from above: card-sized (66 x 94 mm) but a box, with printed
    art (border, emblem, brand bars), a tuck flap at one end and its visible side: no corner
    indices, no pips."""
    w, h = int(rng.uniform(64, 70) * s), int(rng.uniform(92, 98) * s)
    side = max(2, int(rng.uniform(4, 9) * s))  # the box's side seen under a slanted view
    W, H = w + side, h + side
    p = np.zeros((H, W, 3), np.uint8)
    base = _vivid(rng) if rng.random() < 0.8 else np.array([30, 30, 30], np.float32)
    p[:, :] = (base * 0.55).astype(np.uint8)  # the sides
    top = np.empty((h, w, 3), np.uint8)
    top[:] = base
    accent = _vivid(rng)
    light = tuple(int(v) for v in np.clip(base * 0.3 + 180, 0, 255))
    m = int(rng.uniform(3, 7) * s)
    cv2.rectangle(top, (m, m), (w - m, h - m), light, max(1, int(1.2 * s)))
    shape = int(rng.integers(3))
    cc, r = (w // 2, int(h * rng.uniform(0.42, 0.55))), int(rng.uniform(14, 22) * s)
    if shape == 0:
        cv2.circle(top, cc, r, tuple(int(v) for v in accent), -1, cv2.LINE_AA)
        cv2.circle(top, cc, int(r * 0.6), light, -1, cv2.LINE_AA)
    elif shape == 1:
        cv2.ellipse(top, cc, (r, int(r * 1.4)), 0, 0, 360, tuple(int(v) for v in accent), -1, cv2.LINE_AA)
    else:
        pts = np.array([[cc[0], cc[1] - r * 1.3], [cc[0] + r, cc[1]], [cc[0], cc[1] + r * 1.3],
                        [cc[0] - r, cc[1]]], np.int32)
        cv2.fillConvexPoly(top, pts, tuple(int(v) for v in accent), cv2.LINE_AA)
    _text(rng, top, 2 * m, 2 * m, w - 2 * m, 2 * m + 12 * s, 7 * s, light)  # brand
    _text(rng, top, 2 * m, h - 2 * m - 8 * s, w - 2 * m, h - 2 * m, 4 * s, light)
    flap = int(rng.uniform(12, 18) * s)  # the tuck flap's crease
    cv2.line(top, (0, flap), (w, flap), tuple(int(v) for v in base * 0.6), max(1, int(0.7 * s)), cv2.LINE_AA)
    p[:h, :w] = top
    alpha = np.zeros((H, W), np.uint8)
    cv2.fillPoly(alpha, [np.array([[0, 0], [w, 0], [W, side], [W, H], [side, H], [0, h]], np.int32)], 255,
                 cv2.LINE_AA)
    return _shade(rng, p, s, 0.05), alpha, rng.uniform(6, 12)


def _make_napkin(rng, s):
    size = int(rng.uniform(110, 220) * s)
    base = np.array(rng.choice([(235, 238, 240), (200, 215, 230)]), np.float32) if rng.random() < 0.5 \
        else _vivid(rng) * rng.uniform(0.7, 1.0)
    p = np.empty((size, size, 3), np.float32)
    p[:] = base
    weave = np.sin(np.arange(size, dtype=np.float32) * 2 * np.pi / max(2.0, 1.5 * s))
    p *= (1 + 0.03 * weave[None, :, None] * weave[:, None, None])
    p *= _wrinkles(rng, size, size, s, rng.uniform(0.08, 0.2))[..., None]
    if rng.random() < 0.4:  # a checked or striped border print
        col = _vivid(rng)
        b = int(rng.uniform(8, 20) * s)
        for k in range(0, size, max(2, b // 2)):
            if (k // max(2, b // 2)) % 2 == 0:
                p[:b, k:k + b // 2] = col
                p[-b:, k:k + b // 2] = col
    p = np.clip(p, 0, 255).astype(np.uint8)
    for _ in range(int(rng.integers(1, 3))):  # folded in half or quarters
        _fold(rng, p, bool(rng.random() < 0.5), float(rng.uniform(0.35, 0.65)), 0.08)
    if rng.random() < 0.5:  # a diagonal crease
        cv2.line(p, (0, 0), (size, size), tuple(int(v) for v in base * 0.8), max(1, int(0.8 * s)), cv2.LINE_AA)
    # a soft, slightly irregular outline
    alpha = np.zeros((size, size), np.uint8)
    j = rng.uniform(-0.04, 0.04, (4, 2)) * size
    quad = (np.array([[0.02, 0.02], [0.98, 0.02], [0.98, 0.98], [0.02, 0.98]]) * size + j).astype(np.int32)
    cv2.fillConvexPoly(alpha, quad, 255, cv2.LINE_AA)
    return p, alpha, 1.5


def _make_coaster(rng, s):
    d = int(rng.uniform(88, 108) * s)
    p = np.empty((d, d, 3), np.float32)
    cork = rng.random() < 0.5
    if cork:
        p[:] = np.array([90, 140, 185], np.float32) * rng.uniform(0.8, 1.05)
        speck = cv2.GaussianBlur(rng.standard_normal((d, d)).astype(np.float32), (0, 0), max(0.5, 0.6 * s))
        p *= (1 + 0.15 * speck / (speck.std() + 1e-6))[..., None]
    else:
        p[:] = _vivid(rng) if rng.random() < 0.7 else _paper_colour(rng)
        cv2.circle(p, (d // 2, d // 2), int(d * rng.uniform(0.2, 0.4)), tuple(float(v) for v in _vivid(rng)), -1,
                   cv2.LINE_AA)
        _text(rng, p, d * 0.25, d * 0.75, d * 0.75, d * 0.85, 5 * s, (30, 30, 30))
    if rng.random() < 0.4:  # a glass's wet ring
        cv2.circle(p, (d // 2, d // 2), int(d * rng.uniform(0.3, 0.4)), tuple(float(v) for v in p[d // 2, 2] * 0.8),
                   max(1, int(1.5 * s)), cv2.LINE_AA)
    alpha = np.zeros((d, d), np.uint8)
    if rng.random() < 0.6:
        cv2.circle(alpha, (d // 2, d // 2), d // 2 - 1, 255, -1, cv2.LINE_AA)
    else:
        r = int(8 * s)
        cv2.rectangle(alpha, (r, 0), (d - r, d), 255, -1)
        cv2.rectangle(alpha, (0, r), (d, d - r), 255, -1)
        for x, y in ((r, r), (d - r, r), (r, d - r), (d - r, d - r)):
            cv2.circle(alpha, (x, y), r, 255, -1, cv2.LINE_AA)
    return np.clip(p, 0, 255).astype(np.uint8), alpha, 1.5


def _make_remote(rng, s):
    w, h = int(rng.uniform(40, 55) * s), int(rng.uniform(150, 210) * s)
    body = np.array([30, 30, 32], np.float32) * rng.uniform(0.7, 2.5)
    p = np.empty((h, w, 3), np.float32)
    p[:] = body
    p *= (1 + 0.25 * np.linspace(-1, 1, w, dtype=np.float32) ** 2 * -1)[None, :, None]  # rounded
    btn = body * 0.6 + 60
    cv2.circle(p, (int(w * 0.75), int(12 * s)), int(5 * s), (40, 40, 170), -1, cv2.LINE_AA)  # power
    cv2.circle(p, (w // 2, int(h * 0.35)), int(w * 0.33), tuple(float(v) for v in btn), -1, cv2.LINE_AA)
    cv2.circle(p, (w // 2, int(h * 0.35)), int(w * 0.13), tuple(float(v) for v in body), -1, cv2.LINE_AA)
    for r in range(4):
        for k in range(3):
            x = int(w * (0.22 + 0.28 * k))
            y = int(h * 0.55 + r * 11 * s)
            cv2.ellipse(p, (x, y), (int(4.5 * s), int(3 * s)), 0, 0, 360, tuple(float(v) for v in btn), -1,
                        cv2.LINE_AA)
    if rng.random() < 0.5:  # coloured buttons
        for k, col in enumerate([(60, 60, 200), (60, 180, 60), (60, 200, 220), (200, 120, 50)]):
            cv2.rectangle(p, (int(w * 0.1 + k * w * 0.21), int(h * 0.2)), (int(w * 0.1 + k * w * 0.21 + w * 0.15),
                          int(h * 0.2 + 4 * s)), col, -1)
    alpha = np.zeros((h, w), np.uint8)
    r = max(1, int(w * 0.3))
    cv2.rectangle(alpha, (0, r), (w, h - r), 255, -1)
    cv2.ellipse(alpha, (w // 2, r), (w // 2, r), 0, 180, 360, 255, -1, cv2.LINE_AA)
    cv2.ellipse(alpha, (w // 2, h - r), (w // 2, r), 0, 0, 180, 255, -1, cv2.LINE_AA)
    return np.clip(p, 0, 255).astype(np.uint8), alpha, 4.0


def _make_keys(rng, s):
    size = int(110 * s)
    p = np.zeros((size, size, 3), np.uint8)
    alpha = np.zeros((size, size), np.uint8)
    ring_c = (size // 2, size // 2)
    rr = int(rng.uniform(11, 15) * s)
    metal = [(185, 190, 195), (90, 170, 200), (150, 155, 160)]
    for k in range(int(rng.integers(2, 5))):
        a = np.deg2rad(rng.uniform(0, 360))
        col = tuple(int(v * rng.uniform(0.8, 1.0)) for v in metal[int(rng.integers(len(metal)))])
        d = np.array([np.cos(a), np.sin(a)])
        head = np.array(ring_c) + d * (rr + 10 * s)
        tip = head + d * rng.uniform(30, 42) * s
        hr = int(rng.uniform(9, 13) * s)
        for img, c in ((p, col), (alpha, 255)):
            cv2.line(img, tuple(int(v) for v in head), tuple(int(v) for v in tip), c, max(1, int(6 * s)), cv2.LINE_AA)
            cv2.circle(img, tuple(int(v) for v in head), hr, c, -1, cv2.LINE_AA)
        cv2.circle(p, tuple(int(v) for v in head - d * 5 * s), max(1, int(2 * s)), (40, 40, 40), -1, cv2.LINE_AA)
    if rng.random() < 0.5:  # a fob
        a = np.deg2rad(rng.uniform(0, 360))
        fc = np.array(ring_c) + np.array([np.cos(a), np.sin(a)]) * (rr + 14 * s)
        box = cv2.boxPoints(((float(fc[0]), float(fc[1])), (22 * s, 32 * s), float(np.rad2deg(a)) + 90))
        cv2.fillConvexPoly(p, box.astype(np.int32), tuple(int(v) for v in _vivid(rng) * 0.6), cv2.LINE_AA)
        cv2.fillConvexPoly(alpha, box.astype(np.int32), 255, cv2.LINE_AA)
    cv2.circle(p, ring_c, rr, metal[0], max(1, int(1.5 * s)), cv2.LINE_AA)
    cv2.circle(alpha, ring_c, rr, 255, max(1, int(1.5 * s)), cv2.LINE_AA)
    return p, alpha, 1.5


_MAKERS = {"paper": _make_paper, "envelope": _make_envelope, "book": _make_book, "card_box": _make_card_box,
           "napkin": _make_napkin, "coaster": _make_coaster, "remote": _make_remote, "keys": _make_keys}
