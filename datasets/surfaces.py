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

__all__ = ["SURFACE_KINDS", "make_surface", "draw_clutter"]

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


def draw_clutter(img: np.ndarray, px_per_mm: float, origin_mm: np.ndarray,
                 free_spots_mm: np.ndarray, rng: np.random.Generator) -> None:
    """Draw table clutter (mugs, phones, score pads, pens, coins) in place on the surface.

    Args:
        img: ``(H, W, 3) uint8`` canvas, modified in place.
        px_per_mm: canvas scale.
        origin_mm: ``(2,)`` table mm of canvas pixel (0, 0).
        free_spots_mm: ``(K, 2)`` table mm where an object may go (outside zones and the
            shared area); each object takes one spot.
        rng: generator.
    """
    s = px_per_mm
    spots = np.asarray(free_spots_mm, dtype=np.float64).reshape(-1, 2)
    if len(spots) == 0:
        return
    n = int(rng.integers(0, min(4, len(spots)) + 1))
    for k in rng.permutation(len(spots))[:n]:
        cx, cy = (spots[k] - origin_mm) * s
        c = (int(cx), int(cy))
        what = rng.integers(5)
        ang = float(rng.uniform(0, 180))
        if what == 0:  # mug from above: rim, dark drink, handle
            r = int(rng.uniform(40, 48) * s)
            col = tuple(int(v) for v in rng.uniform(40, 230, 3))
            hx = int(cx + np.cos(np.deg2rad(ang)) * r * 1.2)
            hy = int(cy + np.sin(np.deg2rad(ang)) * r * 1.2)
            cv2.line(img, c, (hx, hy), col, max(2, int(9 * s)), cv2.LINE_AA)
            cv2.circle(img, (c[0] + int(4 * s), c[1] + int(4 * s)), r + 2, (20, 20, 20), -1, cv2.LINE_AA)
            cv2.circle(img, c, r, col, -1, cv2.LINE_AA)
            cv2.circle(img, c, int(r * 0.82), (30, 45, 70) if rng.random() < 0.6 else (200, 210, 215),
                       -1, cv2.LINE_AA)
        elif what == 1:  # phone
            box = ((cx, cy), (72 * s, 150 * s), ang)
            pts = cv2.boxPoints(box).astype(np.int32)
            cv2.fillConvexPoly(img, pts + int(3 * s), (25, 25, 25), cv2.LINE_AA)
            cv2.fillConvexPoly(img, pts, (40, 38, 36), cv2.LINE_AA)
            inner = cv2.boxPoints(((cx, cy), (64 * s, 138 * s), ang)).astype(np.int32)
            cv2.fillConvexPoly(img, inner, (18, 16, 15), cv2.LINE_AA)
        elif what == 2:  # score pad with ruled lines and scribbles
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
            M = cv2.getRotationMatrix2D((wpx / 2, hpx / 2), ang, 1.0)
            M[:, 2] += (cx - wpx / 2, cy - hpx / 2)
            alpha = cv2.warpAffine(np.full(pad.shape[:2], 255, np.uint8), M, img.shape[1::-1])
            warped = cv2.warpAffine(pad, M, img.shape[1::-1])
            a = (alpha.astype(np.float32) / 255)[..., None]
            img[:] = (img * (1 - a) + warped * a).astype(np.uint8)
        elif what == 3:  # pen
            L = 140 * s
            d = np.array([np.cos(np.deg2rad(ang)), np.sin(np.deg2rad(ang))]) * L / 2
            p0 = (int(cx - d[0]), int(cy - d[1]))
            p1 = (int(cx + d[0]), int(cy + d[1]))
            col = tuple(int(v) for v in rng.uniform(20, 200, 3))
            cv2.line(img, p0, p1, (30, 30, 30), max(2, int(10 * s)), cv2.LINE_AA)
            cv2.line(img, p0, p1, col, max(1, int(8 * s)), cv2.LINE_AA)
        else:  # a few coins
            for _ in range(int(rng.integers(2, 6))):
                o = rng.uniform(-30, 30, 2) * s
                r = int(rng.uniform(9, 13) * s)
                cc = (int(cx + o[0]), int(cy + o[1]))
                tone = rng.uniform(0.7, 1.0)
                col = (int(150 * tone), int(175 * tone), int(190 * tone)) if rng.random() < 0.5 else \
                    (int(60 * tone), int(110 * tone), int(170 * tone))
                cv2.circle(img, cc, r, col, -1, cv2.LINE_AA)
                cv2.circle(img, cc, r, (50, 60, 70), 1, cv2.LINE_AA)
