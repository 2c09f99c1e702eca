"""Card images for the renderer: faces and backs at the canvas scale, with a soft contact shadow.

Faces come from :mod:`nertz.datasets.art` (``load_deck``) when its cache is present; otherwise
(or with ``design="placeholder"``) from a simple generated face: a white rounded card with the
rank and suit written in two corners and a large suit letter in the middle. Backs come from
``art.make_back`` when available, else a generated back in the player's colour.

A *sprite* is a ``(h + 2m, w + 2m, 4) uint8`` BGRA image: the card (``w = 63 mm``,
``h = 88 mm`` at the canvas scale) inside a margin ``m`` that holds its contact shadow
(black, alpha fading outward), so one ``cv2.warpAffine`` places card and shadow together.
"""

from __future__ import annotations

import cv2
import numpy as np

from .geometry import CARD_H, CARD_W
from .art import hex_to_bgr  # one colour parser for the data engine (raises ArtError, a ValueError)

__all__ = ["placeholder_face", "placeholder_back", "hex_to_bgr", "SpriteBank"]

_SUIT_NAME = {"S": "S", "H": "H", "D": "D", "C": "C"}
_RED = {"H", "D"}


def _rounded_alpha(h: int, w: int, radius: int) -> np.ndarray:
    a = np.zeros((h * 4, w * 4), np.uint8)
    r = radius * 4
    cv2.rectangle(a, (r, 0), (w * 4 - 1 - r, h * 4 - 1), 255, -1)
    cv2.rectangle(a, (0, r), (w * 4 - 1, h * 4 - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w * 4 - 1 - r, r), (r, h * 4 - 1 - r), (w * 4 - 1 - r, h * 4 - 1 - r)):
        cv2.circle(a, (cx, cy), r, 255, -1)
    return cv2.resize(a, (w, h), interpolation=cv2.INTER_AREA)


def placeholder_face(card: str, w: int = 252, h: int = 352) -> np.ndarray:
    """A plain generated face: ``(h, w, 4) uint8`` BGRA, index (rank + suit letter) in the
    top-left and (upside down) bottom-right corners, a large suit letter in the middle."""
    img = np.full((h, w, 4), 255, np.uint8)
    img[..., :3] = (245, 247, 248)
    img[..., 3] = _rounded_alpha(h, w, int(w * 0.06))
    rank, suit = ("JK", "") if card == "JK" else (card[0].replace("T", "10"), card[1])
    col = (30, 30, 200) if suit in _RED else (25, 25, 25)
    fs = w / 160
    th = max(1, int(w / 70))
    corner = np.zeros((int(h * 0.26), int(w * 0.2), 3), np.uint8)
    corner[:] = (245, 247, 248)
    cv2.putText(corner, rank, (int(w * 0.012), int(h * 0.09)), cv2.FONT_HERSHEY_SIMPLEX,
                fs * (0.75 if len(rank) > 1 else 1.0), col, th, cv2.LINE_AA)
    cv2.putText(corner, suit, (int(w * 0.03), int(h * 0.2)), cv2.FONT_HERSHEY_SIMPLEX, fs * 0.9,
                col, th, cv2.LINE_AA)
    ch, cw = corner.shape[:2]
    x0, y0 = int(w * 0.03), int(h * 0.02)
    img[y0:y0 + ch, x0:x0 + cw, :3] = corner
    img[h - y0 - ch:h - y0, w - x0 - cw:w - x0, :3] = corner[::-1, ::-1]
    big = suit or "J"
    cv2.putText(img, big, (int(w * 0.3), int(h * 0.63)), cv2.FONT_HERSHEY_DUPLEX, fs * 3.2, col + (255,),
                th * 3, cv2.LINE_AA)
    cv2.rectangle(img, (int(w * 0.2), int(h * 0.2)), (int(w * 0.8), int(h * 0.8)), col + (255,),
                  max(1, th // 2), cv2.LINE_AA)
    return img


def placeholder_back(colour: tuple[int, int, int], w: int = 252, h: int = 352,
                     seed: int = 0) -> np.ndarray:
    """A generated back in ``colour`` (BGR): white border, diagonal lattice. ``(h, w, 4)`` BGRA."""
    rng = np.random.default_rng(seed)
    img = np.full((h, w, 4), 255, np.uint8)
    img[..., :3] = (240, 242, 244)
    b = int(w * 0.06)
    inner = np.zeros((h - 2 * b, w - 2 * b, 3), np.uint8)
    inner[:] = colour
    light = tuple(int(min(255, c * 0.55 + 110)) for c in colour)
    step = int(rng.integers(10, 22)) * w // 252 + 4
    for k in range(-inner.shape[0], inner.shape[1] + inner.shape[0], step):
        cv2.line(inner, (k, 0), (k + inner.shape[0], inner.shape[0]), light, 1, cv2.LINE_AA)
        cv2.line(inner, (k, inner.shape[0]), (k + inner.shape[0], 0), light, 1, cv2.LINE_AA)
    img[b:h - b, b:w - b, :3] = inner
    img[..., 3] = _rounded_alpha(h, w, int(w * 0.06))
    return img


class SpriteBank:
    """Card sprites at one canvas scale, built on first use and kept.

    Args:
        px_per_mm: canvas scale.
        faces: card -> ``(H, W, 4)`` BGRA source face (any size, poker aspect).
        backs: owner -> ``(H, W, 4)`` BGRA source back.
        shadow: peak opacity of the contact shadow (0..1).
        tint: ``(3,)`` multiplier on face colours (paper white, print) or None.
    """

    def __init__(self, px_per_mm: float, faces: dict[str, np.ndarray],
                 backs: dict[str, np.ndarray], shadow: float = 0.35,
                 tint: np.ndarray | None = None) -> None:
        self.s = px_per_mm
        self.w = max(4, int(round(CARD_W * px_per_mm)))
        self.h = max(6, int(round(CARD_H * px_per_mm)))
        self.m = max(2, int(round(2.5 * px_per_mm)) + 1)
        self.faces = faces
        self.backs = backs
        self.shadow = shadow
        self.tint = tint
        self._cache: dict[str, np.ndarray] = {}
        self._edge: np.ndarray | None = None

    def _make(self, src: np.ndarray, tint: bool) -> np.ndarray:
        w, h, m = self.w, self.h, self.m
        card = cv2.resize(src, (w, h), interpolation=cv2.INTER_AREA)
        if card.shape[2] == 3:
            card = np.dstack([card, np.full((h, w), 255, np.uint8)])
        if tint and self.tint is not None:
            card[..., :3] = np.clip(card[..., :3] * self.tint, 0, 255).astype(np.uint8)
        out = np.zeros((h + 2 * m, w + 2 * m, 4), np.uint8)
        # contact shadow: blurred card footprint, dark, under the card
        sh = np.zeros((h + 2 * m, w + 2 * m), np.float32)
        sh[m:m + h, m:m + w] = card[..., 3] / 255.0
        sh = cv2.GaussianBlur(sh, (0, 0), max(0.6, 0.9 * self.s))
        a_card = card[..., 3].astype(np.float32) / 255.0
        a = sh * self.shadow
        a[m:m + h, m:m + w] = a_card + a[m:m + h, m:m + w] * (1 - a_card)
        rgb = np.zeros((h + 2 * m, w + 2 * m, 3), np.float32)
        # colour where the card is opaque, black (shadow) elsewhere, premultiplied mix
        denom = np.maximum(a[m:m + h, m:m + w], 1e-6)[..., None]
        rgb[m:m + h, m:m + w] = card[..., :3].astype(np.float32) * (a_card[..., None] / denom)
        out[..., :3] = np.clip(rgb, 0, 255).astype(np.uint8)
        out[..., 3] = np.clip(a * 255, 0, 255).astype(np.uint8)
        return out

    def face(self, card: str) -> np.ndarray:
        """Sprite of a face; raises ``KeyError`` for a card the design lacks."""
        k = "F" + card
        sp = self._cache.get(k)
        if sp is None:
            src = self.faces.get(card)
            if src is None:
                src = self.faces.get("JK") if card.startswith("JK") else None
            if src is None:
                raise KeyError(f"the card design has no image for {card!r}")
            sp = self._cache[k] = self._make(src, True)
        return sp

    def back(self, owner: str) -> np.ndarray:
        """Sprite of ``owner``'s back; raises ``KeyError`` for an unknown owner."""
        k = "B" + owner
        sp = self._cache.get(k)
        if sp is None:
            sp = self._cache[k] = self._make(self.backs[owner], False)
        return sp

    def edge(self) -> np.ndarray:
        """Sprite of a card seen edge-on in a pile (off-white, darker rim): builds pile sides."""
        if self._edge is None:
            h, w = self.h, self.w
            e = np.zeros((h, w, 4), np.uint8)
            e[..., :3] = (205, 210, 212)
            e[..., 3] = _rounded_alpha(h, w, max(1, int(w * 0.06)))
            self._edge = self._make(e, False)
        return self._edge
