"""Synthetic cards pasted onto real photos: detector training images whose background is real.

The renderer's tables, cloths and clutter are drawn; a real photo's background (a book's
title, a brick wall, a mug, a dark cloth) is where the detector trained on renders finds most of
its false faces (``models/MODEL_CARD.md``). :func:`paste_cards` takes a real photo whose own
cards are labelled and lays rendered card faces and backs (the data engine's designs and
procedural backs) on its free places: alone, in cascades (each card shifted along the one
below, showing a strip of it) or fanned, under the photo's own light (a gain and colour cast
taken from the photo, a soft shadow, the photo's blur and noise). The labels follow the
oriented-box convention of the synthetic sets (:func:`nertz.datasets.export.visible_quads`: a
whole card's quad, else the minimum-area rectangle of its visible part).

Only photos that may be trained on are used (``edje_tf_cards/train``, its held-out quarter
excluded: :mod:`nertz.datasets.real_export`).
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from . import art
from .export import order_quad, visible_quads

__all__ = ["CardSource", "paste_cards"]


class CardSource:
    """Faces and backs to paste: ``(H, W, 4) uint8`` BGRA images at the art's
    :data:`nertz.datasets.art.CARD_SIZE`, drawn from a generator.

    Args:
        back_p: share of pasted cards that are face-down backs (procedural, random colour).
        designs: face designs to draw from; None: every design of the art cache that is not a
            novelty (:func:`nertz.datasets.art.list_designs`).

    Raises:
        ArtMissingError: the art cache is missing (``bash datasets/fetch_art.sh``).
    """

    def __init__(self, back_p: float = 0.2, designs: list[str] | None = None) -> None:
        self.back_p = float(back_p)
        self.designs = list(designs) if designs is not None else art.list_designs(novelty=False)
        if not self.designs:
            raise art.ArtMissingError("no card designs in the art cache")

    @staticmethod
    @lru_cache(maxsize=8)
    def _deck(design: str) -> dict[str, np.ndarray]:
        return art.load_deck(design)

    def draw(self, rng: np.random.Generator) -> tuple[np.ndarray, bool]:
        """One card image and whether it is face up."""
        if rng.random() < self.back_p:
            colour = "#" + "".join(f"{int(v):02x}" for v in rng.integers(0, 256, 3))
            return np.asarray(art.make_back(None, colour, int(rng.integers(1 << 30)))), False
        deck = self._deck(self.designs[int(rng.integers(len(self.designs)))])
        names = sorted(deck)
        return np.asarray(deck[names[int(rng.integers(len(names)))]]), True


def _card_quad(rng: np.random.Generator, centre: np.ndarray, height: float, angle: float,
               skew: float = 0.04) -> np.ndarray:
    """``(4, 2)`` corners (clockwise from the card's top-left) of a card ``height`` pixels tall
    (63 x 88 mm aspect) centred at ``centre``, turned by ``angle`` radians, each corner moved by
    up to ``skew`` of the height (a little perspective)."""
    w = height * 63.0 / 88.0
    base = np.array([[-w / 2, -height / 2], [w / 2, -height / 2], [w / 2, height / 2], [-w / 2, height / 2]])
    c, s = np.cos(angle), np.sin(angle)
    q = base @ np.array([[c, s], [-s, c]]) + centre
    return q + rng.uniform(-skew, skew, (4, 2)) * height


def _next_in_spread(rng: np.random.Generator, prev: np.ndarray) -> np.ndarray:
    """A card laid over ``prev`` (``(4, 2)`` corners) the way people spread cards: a cascade
    (moved 12-35 % of the card along its long side, as a work pile) or a fan (turned 8-25
    degrees about a point near its bottom)."""
    top, bottom = (prev[0] + prev[1]) / 2, (prev[3] + prev[2]) / 2
    axis = bottom - top
    if rng.random() < 0.6:
        shift = axis * rng.uniform(0.12, 0.35) * (1 if rng.random() < 0.5 else -1)
        return prev + shift + rng.normal(0, 0.01 * np.linalg.norm(axis), 2)
    pivot = top + axis * rng.uniform(0.8, 1.0)
    a = np.deg2rad(rng.uniform(8, 25)) * (1 if rng.random() < 0.5 else -1)
    c, s = np.cos(a), np.sin(a)
    return (prev - pivot) @ np.array([[c, s], [-s, c]]) + pivot


def _overlaps(mask: np.ndarray, quad: np.ndarray) -> bool:
    """Whether ``quad`` touches any set pixel of ``mask`` (``(H, W) uint8``)."""
    m = np.zeros_like(mask)
    cv2.fillConvexPoly(m, np.round(quad).astype(np.int32), 1)
    return bool((m & mask).any())


def _lay(img: np.ndarray, card: np.ndarray, quad: np.ndarray, gain: np.ndarray, shadow: float,
         blur: float) -> None:
    """Warp ``card`` (``(h, w, 4)`` BGRA) onto ``img`` (``(H, W, 3) uint8`` BGR, in place) at
    ``quad`` with a soft contact shadow, its colours multiplied by ``gain`` (``(3,)``) and
    blurred by ``blur`` pixels (Gaussian sigma)."""
    H, W = img.shape[:2]
    h, w = card.shape[:2]
    M = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), np.float32(quad))
    col = cv2.warpPerspective(card[..., :3], M, (W, H), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    a = cv2.warpPerspective(card[..., 3], M, (W, H), flags=cv2.INTER_LINEAR).astype(np.float32) / 255.0
    side = float(np.linalg.norm(quad[1] - quad[0]))
    sh = cv2.GaussianBlur(a, (0, 0), max(0.8, 0.04 * side))
    sh = np.roll(sh, (int(round(0.02 * side)), int(round(0.02 * side))), axis=(0, 1))
    out = img.astype(np.float32) * (1 - shadow * sh[..., None] * (1 - a[..., None]))
    if blur > 0.2:
        col = cv2.GaussianBlur(col, (0, 0), blur)
        a = cv2.GaussianBlur(a, (0, 0), blur)
    out = out * (1 - a[..., None]) + np.clip(col.astype(np.float32) * gain, 0, 255) * a[..., None]
    img[:] = np.clip(out, 0, 255).astype(np.uint8)


_GLYPHS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789&"
_FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
          cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_COMPLEX_SMALL, cv2.FONT_HERSHEY_SCRIPT_SIMPLEX)


def _print_word(img: np.ndarray, rng: np.random.Generator, free: np.ndarray) -> bool:
    """Print a short word (1 to 7 letters and digits, an OpenCV Hershey font, letters 3 to 12 %
    of the image's longer side tall, turned at random), on a plate of colour or straight on the
    photo, where ``free`` (``(H, W) uint8``, 1 = may be covered) allows; ``img`` is changed in
    place. A card's index is a letter on paper, so a title on a book or a word on a box is the
    false face the detector must learn to refuse. Returns whether it was printed."""
    H, W = img.shape[:2]
    L = float(max(H, W))
    word = "".join(_GLYPHS[int(i)] for i in rng.integers(len(_GLYPHS), size=int(rng.integers(1, 8))))
    font = _FONTS[int(rng.integers(len(_FONTS)))] | (cv2.FONT_ITALIC if rng.random() < 0.2 else 0)
    px = rng.uniform(0.03, 0.12) * L
    scale = px / 22.0
    thick = max(1, int(round(scale * rng.uniform(1.0, 3.5))))
    (tw, th), base = cv2.getTextSize(word, font, scale, thick)
    m = int(rng.uniform(0.1, 0.6) * th) + 2
    pw, ph = tw + 2 * m, th + base + 2 * m
    if pw >= W or ph >= H:
        return False
    plate = rng.random() < 0.6
    ink = rng.integers(0, 256, 3) if rng.random() < 0.5 else np.full(3, 20 if rng.random() < 0.5 else 240)
    back = rng.integers(0, 256, 3) if rng.random() < 0.6 else np.full(3, int(rng.uniform(200, 250)))
    patch = np.zeros((ph, pw, 3), np.uint8)
    patch[:] = back
    cv2.putText(patch, word, (m, m + th), font, scale, tuple(int(v) for v in ink), thick, cv2.LINE_AA)
    mask = np.full((ph, pw), 255, np.uint8) if plate else \
        cv2.threshold(cv2.absdiff(patch, np.full_like(patch, back)).max(axis=2), 20, 255, cv2.THRESH_BINARY)[1]
    ang = rng.uniform(-180, 180)
    cx, cy = rng.uniform(0, W), rng.uniform(0, H)
    M = cv2.getRotationMatrix2D((pw / 2, ph / 2), ang, 1.0)
    M[:, 2] += (cx - pw / 2, cy - ph / 2)
    warped = cv2.warpAffine(patch, M, (W, H), flags=cv2.INTER_LINEAR)
    a = cv2.warpAffine(mask, M, (W, H), flags=cv2.INTER_LINEAR)
    if ((a > 0) & (free == 0)).any():
        return False
    a = a.astype(np.float32)[..., None] / 255.0
    img[:] = np.clip(img * (1 - a) + warped * a, 0, 255).astype(np.uint8)
    return True


def paste_cards(photo: np.ndarray, real_quads: np.ndarray, rng: np.random.Generator, source: CardSource,
                n_cards: int, height: tuple[float, float] = (0.2, 0.5),
                words: int = 0) -> tuple[np.ndarray, list[tuple[int, np.ndarray]]]:
    """Lay ``n_cards`` rendered cards on ``photo`` away from its own cards.

    Args:
        photo: ``(H, W, 3) uint8`` BGR (not modified).
        real_quads: ``(M, 4, 2)`` pixels, the photo's labelled cards (face up); the pasted cards
            never touch them (grown by 3 % of the image's longer side).
        rng: the generator of every random choice.
        source: where the cards' images come from.
        n_cards: cards to lay (fewer when no free place is found in 30 tries).
        height: a card's height as a share of the image's longer side (drawn once per spread).
        words: most printed words laid besides (0 to ``words``, drawn; :func:`_print_word`),
            never on a card: unlabelled letters, the index-like background of real photos.

    Returns:
        ``(image (H, W, 3) uint8 BGR, labels)``: ``labels`` is ``[(class, quad (4, 2) float64
        pixels)]``, class 0 face up and 1 face down, for the photo's cards (unchanged) and the
        visible part of every pasted card (:func:`nertz.datasets.export.visible_quads`, at least
        12 pixels seen).
    """
    img = photo.copy()
    H, W = img.shape[:2]
    L = float(max(H, W))
    real = np.asarray(real_quads, np.float64).reshape(-1, 4, 2)
    taken = np.zeros((H, W), np.uint8)
    for q in real:
        cv2.fillConvexPoly(taken, np.round(q).astype(np.int32), 1)
    taken = cv2.dilate(taken, np.ones((3, 3), np.uint8), iterations=max(1, int(0.03 * L)))
    # the photo's light: its mean colour gives the cast, its brightness the card's gain
    mean = img.reshape(-1, 3).mean(axis=0) + 1.0
    cast = (mean / mean.mean()) ** rng.uniform(0.2, 0.5)
    blur = float(rng.uniform(0.0, 1.2))
    laid: list[tuple[np.ndarray, bool]] = []
    prev: np.ndarray | None = None
    size = rng.uniform(*height) * L
    tries = 0
    while len(laid) < n_cards and tries < 30:
        tries += 1
        if prev is not None and rng.random() < 0.6:
            q = _next_in_spread(rng, prev)
        else:
            size = rng.uniform(*height) * L
            q = _card_quad(rng, rng.uniform([0.05 * W, 0.05 * H], [0.95 * W, 0.95 * H]), size,
                           float(rng.uniform(0, 2 * np.pi)))
        c = q.mean(axis=0)
        if not (0 <= c[0] < W and 0 <= c[1] < H) or _overlaps(taken, q):
            prev = None
            continue
        card, face_up = source.draw(rng)
        gain = cast * rng.uniform(0.6, 1.05) * rng.uniform(0.95, 1.05, 3)
        _lay(img, card, q, gain, float(rng.uniform(0.2, 0.5)), blur)
        laid.append((order_quad(q), face_up))
        prev = q
    if words:
        free = np.ones((H, W), np.uint8) - taken
        for q, _ in laid:
            cv2.fillConvexPoly(free, np.round(q).astype(np.int32), 0)
        n_words = int(rng.integers(0, words + 1))
        printed = tries = 0
        while printed < n_words and tries < 4 * n_words:
            tries += 1
            printed += _print_word(img, rng, free)
    if laid or words:
        noise = rng.normal(0, rng.uniform(1.0, 4.0), img.shape)
        img = np.clip(img.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    labels: list[tuple[int, np.ndarray]] = [(0, q) for q in real]
    lab = {"cards": [{"quad": q, "face_up": f} for q, f in laid]}
    for i, q, _share in visible_quads(lab, W, H):
        labels.append((0 if laid[i][1] else 1, q))
    return img, labels
