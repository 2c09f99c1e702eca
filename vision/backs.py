"""Whose deck a face-down card belongs to: its back colour matched in CIELAB against the
colours registered in the table file, with a distance threshold (an unknown back is reported
as unknown, never forced onto the nearest player).

The colour of a back is measured on the inner part of its crop (the outer 20 % on each side is
skipped: it holds the card's white border, the cloth, neighbouring cards), as the median
CIELAB of its most saturated half of pixels: the printed pattern of many backs is white or
pale, and the median of all pixels would be pulled towards grey.

The distance is CIE94 Delta E with the *textiles* constants (k_L = 2, K1 = 0.048,
K2 = 0.014; CIE 116-1995), the registered colour as the reference: uneven light (shadows,
glare, gain) moves L* more than hue, and blur and print mix a back's colour with its white
pattern, which lowers chroma; CIE94 weighs chroma and hue differences down by the reference's
chroma (S_C = 1 + K1 C*, S_H = 1 + K2 C*), and k_L = 2 halves lightness differences. Measured
on held-out renders: the true owner's colour lies at a median 7 and a 90th percentile 12 from a
back measured in the frame (see ``models/MODEL_CARD.md``).

A back partly under a hand (or beside the cloth in its box) mixes other colours into that
median, so :meth:`BackMatcher.match` first lets the pixels vote: each pixel of the same
saturated half (skin-coloured pixels left out first, :func:`skin_mask`: a hand is often more
saturated than a pale back) within :data:`PIXEL_VOTE_DELTA` of a registered colour votes for
the nearest one, and a colour with at least :data:`PIXEL_VOTE_SHARE` of the pixels names the
back; only when no colour has that many does the median decide.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from nertz.referee.table import Table, hex_to_lab

__all__ = ["BackMatcher", "back_lab", "skin_mask", "UNKNOWN", "SKIN_KEEP_SHARE", "BACK_THRESHOLD",
           "PIXEL_VOTE_DELTA", "PIXEL_VOTE_SHARE"]

UNKNOWN = "unknown"


def back_lab(crop: np.ndarray, inset: float = 0.2) -> np.ndarray:
    """The colour of a card back, CIELAB.

    Args:
        crop: ``(h, w, 3) uint8`` BGR pixels of the back (an axis-aligned box or a rectified
            card); at least 1 x 1.
        inset: share of each side skipped.

    Returns:
        ``(3,) float64`` ``(L*, a*, b*)``, L* in 0..100 (OpenCV's float conversion, D65).

    Raises:
        ValueError: an empty crop.
    """
    return np.median(_saturated_half(crop, inset), axis=0)


def skin_mask(bgr: np.ndarray) -> np.ndarray:
    """``(h, w) bool``: pixels of ``bgr`` (``(h, w, 3) uint8``) in the classic YCrCb skin range
    (Cr 133-173, Cb 77-127; Chai and Ngan 1999). Saturated reds, blues, greens and yellows of
    card backs fall outside it; tan and brown backs do not."""
    ycc = cv2.cvtColor(bgr, cv2.COLOR_BGR2YCrCb)
    cr, cb = ycc[..., 1], ycc[..., 2]
    return (cr >= 133) & (cr <= 173) & (cb >= 77) & (cb <= 127)


SKIN_KEEP_SHARE = 0.15
"""Least share of a crop's inner part that must be left once skin-coloured pixels are dropped
(:func:`skin_mask`); below it the crop is a tan or brown back (or all hand) and is used whole.
As :func:`nertz.vision.calibrate.back_colour`'s ``min_share``."""


def _saturated_half(crop: np.ndarray, inset: float, blur: bool = False, drop_skin: bool = False) -> np.ndarray:
    """``(K, 3) float64`` CIELAB of the more saturated half of the pixels of ``crop``'s inner
    part (``inset`` of each side skipped; blurred 3 x 3 first with ``blur``; with ``drop_skin``
    skin-coloured pixels left out first when :data:`SKIN_KEEP_SHARE` of the part remains).

    Raises:
        ValueError: an empty or non-BGR crop.
    """
    if crop.ndim != 3 or crop.shape[2] != 3 or crop.shape[0] < 1 or crop.shape[1] < 1:
        raise ValueError(f"back crop must be (h, w, 3) BGR with h, w >= 1, got {crop.shape}")
    h, w = crop.shape[:2]
    y0, y1 = int(h * inset), max(int(h * (1 - inset)), int(h * inset) + 1)
    x0, x1 = int(w * inset), max(int(w * (1 - inset)), int(w * inset) + 1)
    src = cv2.GaussianBlur(crop, (3, 3), 0) if blur and min(h, w) >= 3 else crop
    inner = src[y0:y1, x0:x1]
    lab = cv2.cvtColor(inner.astype(np.float32) / 255.0, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float64)
    if drop_skin:
        keep = ~skin_mask(np.ascontiguousarray(inner)).reshape(-1)
        if keep.mean() >= SKIN_KEEP_SHARE:
            lab = lab[keep]
    chroma = np.hypot(lab[:, 1], lab[:, 2])
    keep = lab[chroma >= np.median(chroma)]
    return keep if len(keep) else lab


BACK_THRESHOLD = 14.0
"""Largest CIE94 distance (textiles) from a back's measured colour to a registered one at which
the back is still that player's; beyond it the back is ``"unknown"``. Measured with ``python -m
nertz.vision.evaluate backs 120 SEED [--measured]`` (true boxes of half-visible backs in rendered
round frames), owner right / wrong at 12 (before 2026-12-03) -> 14:

- dev seed 777, the renderer's nominal colours: 86.5 % / 11 -> 91.0 % / 12 (18: 95.0 % / 13);
  colours measured on the scene, as ``nertz calibrate`` registers them: 96.0 % / 2 -> 96.5 % / 3
  (the same from 14 to 20);
- held out, seed 20261204: nominal 88.9 % / 18 -> 91.6 % / 22 (18: 92.6 % / 26), measured
  96.1 % / 3 -> 97.1 % / 3.

18 was the first choice on the dev seed; 14 was kept because a neutral grey back (``#808080``)
lies 15.4 from a registered green (``#1e8a3a``): CIE94 forgives chroma differences on saturated
references, so a looser limit names greys and washed-out decks as players' backs."""


PIXEL_VOTE_DELTA = 10.0
"""Largest CIE94 distance (textiles) from a pixel to a registered colour for the pixel to vote for
it (:meth:`BackMatcher.match`)."""

PIXEL_VOTE_SHARE = 0.1
"""Share of the voting half of a back's pixels (skin-coloured pixels left out) that names it
(:meth:`BackMatcher.match`). Session 39 (2026-12-03) left skin out before the saturated half is
taken (a hand is often more saturated than a pale back, and filled that half) and lowered the
share from 0.2, chosen on dev seeds 777 and 20261206 (240 frames each; true boxes of
half-visible backs, colours registered by :func:`nertz.vision.calibrate.register_backs` on the
scene's other frame): right 98.1 -> 99.1 % (425 backs) and 96.0 -> 97.8 % (455); measured once
after on seed 20261207: 97.7 -> 98.6 % (431); with the renderer's nominal colours 91.7 -> 93.0 %,
87.4 -> 88.6 % and 91.2 -> 91.8 %. Voting over all inner pixels without skin did as well; without
leaving skin out, 1-2 points less. The vote itself (session 38, share 0.2, delta chosen among
8-20 on seeds 20261301-02) had taken ``evaluate backs 120 20261205 --measured`` from 96.5 to
97.5 % (see ``models/MODEL_CARD.md``)."""


@dataclass
class BackMatcher:
    """Matches back colours to players.

    Attributes:
        names: player (deck owner) names.
        labs: ``(P, 3) float64`` their registered back colours, CIELAB.
        threshold: largest CIE94 distance accepted; beyond it: ``"unknown"`` (:data:`BACK_THRESHOLD`).
        l_weight: CIE94's k_L (2: textiles; lightness differences count half).
    """

    names: list[str]
    labs: np.ndarray
    threshold: float = BACK_THRESHOLD
    l_weight: float = 2.0

    @classmethod
    def from_table(cls, table: Table | dict, threshold: float = BACK_THRESHOLD, l_weight: float = 2.0) -> "BackMatcher":
        """From a :class:`~nertz.referee.table.Table` or a table-file dict.

        Raises:
            nertz.referee.errors.TableError: a table dict that does not validate.
        """
        t = table if isinstance(table, Table) else Table.from_dict(table)
        return cls([p.name for p in t.players], np.array([hex_to_lab(p.back) for p in t.players], np.float64),
                   threshold, l_weight)

    def distances(self, lab: np.ndarray) -> np.ndarray:
        """CIE94 distances (textiles: k_L = ``l_weight``, K1 0.048, K2 0.014) from measured
        CIELAB colours to every registered back (the references): ``(3,)`` -> ``(P,)``, or
        ``(K, 3)`` (pixels) -> ``(K, P)``."""
        m = np.asarray(lab, np.float64)
        one = m.ndim == 1
        m = m.reshape(-1, 3)
        ref = self.labs
        c1 = np.hypot(ref[:, 1], ref[:, 2])[None]
        d_l = ref[None, :, 0] - m[:, None, 0]
        d_c = c1 - np.hypot(m[:, 1], m[:, 2])[:, None]
        d_h2 = np.maximum((ref[None, :, 1] - m[:, None, 1]) ** 2 + (ref[None, :, 2] - m[:, None, 2]) ** 2 - d_c ** 2,
                          0.0)
        d = np.sqrt((d_l / self.l_weight) ** 2 + (d_c / (1 + 0.048 * c1)) ** 2 + d_h2 / (1 + 0.014 * c1) ** 2)
        return d[0] if one else d

    def match(self, crop: np.ndarray) -> tuple[str, float]:
        """Whose back ``crop`` (``(h, w, 3) uint8`` BGR) shows: the registered colour for which
        at least :data:`PIXEL_VOTE_SHARE` of the pixels of the saturated half of the inner part
        (skin-coloured pixels left out: :func:`skin_mask`) vote (each pixel within
        :data:`PIXEL_VOTE_DELTA` of its nearest registered colour votes for it), else
        :meth:`match_lab` of the crop's :func:`back_lab`.

        Returns:
            ``(player name or "unknown", distance)``: with a vote, the voting pixels' median
            distance to the colour named.

        Raises:
            ValueError: an empty crop.
        """
        if self.names:
            lab = _saturated_half(crop, 0.2, blur=True, drop_skin=True)
            d = self.distances(lab)
            near = d.argmin(axis=1)
            voting = d[np.arange(len(d)), near] <= PIXEL_VOTE_DELTA
            votes = np.bincount(near[voting], minlength=len(self.names))
            k = int(votes.argmax())
            if votes[k] >= PIXEL_VOTE_SHARE * len(lab):
                return self.names[k], float(np.median(d[voting & (near == k), k]))
        return self.match_lab(back_lab(crop))

    def match_lab(self, lab: np.ndarray) -> tuple[str, float]:
        """The registered colour nearest to a measured CIELAB colour ``(3,)`` (a back's
        :func:`back_lab`), if within :attr:`threshold`: ``(player name or "unknown", distance)``."""
        if not self.names:
            return UNKNOWN, float("inf")
        d = self.distances(lab)
        k = int(np.argmin(d))
        return (self.names[k] if d[k] <= self.threshold else UNKNOWN), float(d[k])
