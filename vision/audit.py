"""The round audit: count the face-down cards of each registered back in one photo of the
table after the call (``shared/RULES.md``, "Scoring a round"; ``shared/DESIGN.md``, "The back
count"). Two ways of counting (:data:`METHODS`): the *classical* one below (OpenCV and NumPy
only), and the *learned* one: a strip detector (YOLO11n-obb on ONNX Runtime,
:mod:`nertz.vision.audit_strips`, trained on audit scenes by ``nertz train audit``) finds the
visible part of every face-down card, and each found part is counted once, its owner read from
the colour map of step 2 (:func:`nertz.vision.audit_strips.strip_owners`). ``auto`` (the
default) uses :data:`AUTO_METHOD` when ``models/audit_strips.onnx`` is shipped: the better one
by the held-out figures (``models/MODEL_CARD.md``, "Audit strip detector").

Method (thresholds set by looking at audit renders of :mod:`nertz.datasets.audit_scenes`,
seeds below 1000; held-out figures from :mod:`nertz.vision.audit_eval` on seeds from 10000):

1. **Light.** A von Kries white balance from the cards' own white (the brightest nearly grey
   pixels of the shared area: borders and pale pattern colours) removes most of the light's
   colour and exposure (:func:`_white_balance`).
2. **Back-colour map.** Every pixel's BGR (5 bits per channel) is looked up in a table built
   per table file: its nearest registered back colour in CIELAB, the distance being taken to
   the segment from the ink toward paper white (a fine back pattern blurs into a mix of ink
   and white), with L* at half weight (light and shadow move L* most). Pixels farther than
   :data:`PIXEL_DELTA` are no back. The table is modelled by the colours seen in a band
   around the shared area and the zones but in none of them: a colour common there is the
   cloth's, never a back's, so a brown cloth does not pass for a red back.
3. **Spreads.** Back pixels plus bright lines next to them (white borders) that are not the
   cloth's colour, opened and closed (about 9 px at 1080p, bridging a white border), give
   connected components: the spreads (rows, fans, heaps, single cards).
4. **Counting one spread.** The card size in pixels is measured on the frame
   (:func:`_card_scale`).
   - *Rows* (a rectangle as high as a card): turned so the row runs along x, the cards'
     edges are the bright lines (white borders) crossing most of the row's height; their
     slant (perspective, cards askew) is searched as the shear making the column sums most
     peaked (:func:`_edges_in_row`). Every card shows between two consecutive edges (the
     row's ends are edges). Borderless backs show no such line: the strip pitch is then the
     autocorrelation period of the brightness steps and the count ``1 + (length - card) /
     pitch``.
   - *Fans* (not a row, convex): the pivot is the point from which the outer arc of the
     outline is most nearly at one distance; the fan is unrolled around it (polar image) and
     the bright edges crossing each radius of the outer band are counted (median over radii).
   - *Heaps* and fans without a pivot: area over the measured visible area per card
     (:data:`HEAP_AREA_PER_CARD`, :data:`FAN_AREA_PER_CARD`), shared between colours by
     their pixel areas. Weak: see the evaluation.
   Each strip takes the back colour most frequent in its middle; a strip with no registered
   colour is an ``unknown`` back.
5. **Where.** Each counted card is placed by its strip centre: in a zone polygon of the table
   file -> that zone's count; otherwise the shared area.
6. **Face-up cards**: white, card-sized, card-shaped regions apart from the spreads.

Learned counting (``learned``): steps 1-3 as above (the white balance, the colour map, the
spreads for the card size and the face-up count), then the strip detector runs once on the
part of the photo holding the shared area and the zones, resized so that a 1920-wide photo
runs at 2880 (:data:`nertz.datasets.audit_export.AUDIT_SCALE`), and again, :data:`FAN_ZOOM`
times larger, on each spread that looks like a fan (:func:`_fan_like`), whose strips then
replace the first run's there (:func:`_zoom_fans`); every ``back`` box whose centre
lies in the enlarged shared area or a zone is one card, owned by the most frequent registered
colour (within :data:`STRIP_DELTA`, without the cloth exclusion) in the middle of its box, or
``unknown`` when under 15 % of that middle has a registered colour; the colours are read under
the part of the white balance that brings the strips nearest to the registered colours
(:func:`_owner_gain`). A strip inside a box of the model's ``hand`` class is dropped (skin or a
sleeve; with :data:`HAND_DROPS_ALL` False only those of no registered colour), and so is one
near such a box that has the hand's colour (the arm: :func:`_skin_strips`). Where the found
strips form a fan with a gap of a card or more, the model's weak boxes (score down to
:data:`FAN_FILL_WEAK`) on the fan's circle fill it, and the stretch up to the whole top card's
own wedge too (:func:`_fan_gaps`); a small strip well inside a fan's circle, across its
wedges' narrow ends, is not counted (:func:`_fan_strays`). In a row-shaped spread, a second box
on one card's strip is not counted and a gap of 1.6 pitches or more gets the cards it hides
(:func:`_row_slots`, :data:`ROW_RECOUNT`). ``hybrid``
counts with the model only the spreads that step 4 classifies as one of :data:`LEARNED_KINDS`.

Held-out figures (``python -m nertz.vision.audit_eval 60 10000 --method classical,learned``,
1920 x 1080): every colour exact in 0 % / 8.3 % of scenes (classical / learned), within one
card 8.3 % / 26.7 %, mean absolute error 4.70 / 2.18 cards; spreads counted exactly: rows 44 /
76 %, fans 22 / 24 %, heaps 10 / 55 %, zones 50 / 73 %. Far from the bar (95 % / 99 %).
With the owner gain and the hand drop (2026-12-01): learned 6.7 % exact, 25.0 % within one,
2.08 cards; with the owners read under a light colour fitted to the strips' inks (2026-12-03,
:func:`_owner_gain`): 10.0 % exact, 21.7 % within one, 1.57 cards; with arms dropped
(:func:`_skin_strips`): 1.56 cards. Fans' gaps filled (2026-12-03, fresh seeds 10120-10179,
before / after): 11.7 % exact and 23.3 % within one both, 1.60 -> 1.58 cards, fans counted
exactly 11.9 -> 14.8 %. Up to the top card's wedge too (fresh seeds 10180-10239, before /
after): 13.3 % exact both, within one 28.3 -> 30.0 %, 1.31 -> 1.29 cards, fans 16 -> 21 %.

Public API: :func:`audit`, :func:`audit_frames`, :class:`AuditResult`, :class:`Strip`,
:class:`AuditError`, :data:`METHODS`, :func:`fit_table`, :func:`audit_command` (``nertz audit``).
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Optional

import cv2
import numpy as np
import typer

from nertz.referee.errors import NertzError
from nertz.referee.table import Table, hex_to_lab

from .audit_strips import STRIPS_ONNX, StripDetector, strip_middle, strip_owners
from .sources import calibrated_size

__all__ = ["audit", "AuditResult", "Strip", "AuditError", "audit_command", "lab_distance", "PIXEL_DELTA",
           "HEAP_AREA_PER_CARD", "FAN_AREA_PER_CARD", "METHODS", "fit_table"]

UNKNOWN = "unknown"
PIXEL_DELTA = 14.0
"""Largest distance (CIELAB, L* at half weight) from a pixel to a registered back colour for
the pixel to count as that back."""
STRIP_DELTA = 24.0
"""The same limit for the pixels of a strip found by the model (they are a card's: a looser
limit keeps pale and shadowed backs; unregistered decks are at least 30 away)."""
HEAP_AREA_PER_CARD = 0.77
"""Visible area added by each card of a loose heap beyond the first, as a share of a whole
card (median on audit renders, seeds 0-11: 0.77, 10-90 % 0.71-0.85)."""
FAN_AREA_PER_CARD = 0.117
"""The same for a fan (median 0.117, 10-90 % 0.093-0.154: a fan hides most of each card)."""
FAN_SOLIDITY = 0.88
"""A spread that is not a row and fills at least this share of its convex hull is a fan
(fans 0.90-0.95, heaps 0.62-0.81 on the same renders)."""
_TABLE_DENSITY = 3e-4  # a colour bin this common around the play area is the table's
_MAX_HEAP_CARDS = 30.0  # a fan or heap covers at most this many card areas (13 cards: about 10)
_MAX_MIX = 0.6  # how far toward white a back's colour may be mixed by its pattern
METHODS = ("auto", "classical", "learned", "hybrid")
"""How :func:`audit` counts: ``classical`` (colour map and geometry only), ``learned`` (every
strip the model finds), ``hybrid`` (the model's strips for the spreads the classical path
calls one of :data:`LEARNED_KINDS`, the classical count for the others), ``auto`` (the best
by the held-out figures when the model is shipped, else ``classical``)."""
AUTO_METHOD = "learned"
"""What ``auto`` means when ``models/audit_strips.onnx`` is shipped (chosen by the figures of
``python -m nertz.vision.audit_eval``, see ``models/MODEL_CARD.md``)."""
OWNER_GAIN_STEPS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.25)
"""Powers of the white balance's colour cast correction tried first when reading the learned
strips' owners (:func:`_owner_gain`): 0 corrects the exposure only, 1 is the full white
balance."""
OWNER_GAIN_GRID = (0.08, 0.03, 0.012)
"""Steps (natural log of the red / green and blue / green gain ratios) of the three 5 x 5 grids
that refine the best of :data:`OWNER_GAIN_STEPS` in two dimensions (:func:`_owner_gain`): up to
0.24 + 0.09 + 0.036 from it, about 40 % in a gain ratio."""
OWNER_SPREAD_WEIGHT = 1.0
"""Weight of the inks' spread about their colour's mean in the cost of a light correction
(:func:`_owner_gain`): a correction that moves one deck's inks onto another's registered colour
puts two clusters in one colour and pays for it."""
HAND_DROPS_ALL = True
"""Learned path: drop every found strip whose centre lies in a box of the model's ``hand``
class (skin and sleeves read as orange, brown, pink or red backs), not only those of no
registered colour (dev seeds 0-19: 22 false strips on hands and 3 true ones, of 2,161 found)."""
SKIN_NEAR = 3.0
"""Learned path: a strip whose centre lies within this many card lengths of a model ``hand``
box's centre is checked for being the arm (:func:`_skin_strips`)."""
SKIN_DELTA = 10.0
"""Largest CIELAB distance (L* at half weight) from a strip's ink to the colour of a nearby hand
for the strip to be that arm (when nearer than to every registered back's ink). Dev seeds 0-19:
false strips near hands 39 -> 21, about 8 true strips lost, scene 14 off by 11 -> 2 cards (a
forearm over a zone read as 11 pale red backs), mean error 1.21 -> 1.11; held-out seeds
10000-10059 1.57 -> 1.56 (one scene a card better, one a card worse)."""
FAN_FILL_TOP = True
"""Learned path: in a fan, also fill the stretch between the last found wedge and the place of
the whole top card's own wedge (:func:`_fan_top_end`): the wedges of the cards just under the
top card are the ones the model misses most. Dev seeds 0-19 / 100-139: mean error 1.095 ->
1.086 / 1.424 -> 1.404."""
FAN_FILL_WEAK = 0.15
"""Learned path: the least ``back`` score of a weak box that may fill a gap in a fan
(:func:`_fan_gaps`); 1 or more turns the filling off. Dev seeds 0-19: mean error 1.112 -> 1.095
cards, fans counted exactly 22.5 -> 32.5 % (0.25: 30 %); also filling a card beyond each end
of a fan: 1.121, not kept."""
FAN_STRAY_INSIDE: float | None = 0.1
"""Learned path: a found strip of a fan lying more than this many card lengths inside the fan's
circle, toward the point it turns about, and smaller than 0.6 of a card is not counted
(:func:`_fan_strays`: a box across the narrow ends of several wedges; None counts them).
Fans' extra strips, dev scenes 0-19 / 100-119 (each strip matched to a card's visible part):
18 -> 8 / 18 -> 7, missed cards 25 -> 27 / 41 -> 42 (0.05: the same as 0.1 on 0-19; 0.2: 12
extra, 25 missed). Audit figures, dev 0-19 / 100-139: mean error 0.73 -> 0.72 / 1.07 -> 1.07,
fans counted exactly 42 -> 50 / 48 -> 51 %; fresh scenes 10680-10739 (measured once): mean
error 1.24 both, within one card 23.3 -> 26.7 %, every colour exact 10.0 % both, fans 43 -> 45 %;
10620-10679 (measured a second time): 1.32 -> 1.33, within one 40.0 % both, every colour exact
15.0 -> 13.3 %, fans 43 -> 45 %."""
FAN_ZOOM = 1.2
"""Learned path: the strip detector looks again at each fan-like spread (:func:`_fan_like`) this
many times larger than at the first run, and its strips there replace the first run's
(:func:`_zoom_fans`; 1 turns this off): a fan's thin wedges are found better a little larger
than the cards of training, a row's and a heap's strips are not (the whole photo at 1.2 / 1.3 /
1.45: dev scenes 0-19 mean error 0.94 -> 0.82 / 1.05 / 1.18, fans counted exactly 38 -> 50 /
42 / 55 %, rows 86 -> 83 / 81 / 83 %, heaps 59 -> 59 / 53 / 45 %). Fans only, 1.2 / 1.3: dev
0-19 mean error 0.94 -> 0.73 / 0.77, 100-139 1.08 -> 1.07 / 1.05, fans counted exactly 38 ->
42 / 57 % and 38 -> 48 / 39 %; fresh scenes 10620-10679 (measured once, 1.2): 1.51 -> 1.32,
within one card 31.7 -> 40.0 %, every colour exact 18.3 -> 15.0 %, fans 36 -> 43 %; median
audit 0.76 -> 0.80 s a photo."""
ROW_RECOUNT = True
"""Learned path: the model's strips of each row-shaped spread are checked against the row's own
pitch (:func:`_row_slots`): a second box on one card's strip is not counted, and a gap of 1.6
pitches or more between found strips gets the cards it hides. Dev audit scenes 0-19 / 100-139:
mean error 0.78 -> 0.72 / 0.77 -> 0.76 cards, rows counted exactly 82 -> 86 / 80 -> 80 %; of
the 16 rows it changed, 13 came nearer their true count and 2 went farther. Held out
(11020-11079, measured once): 15 rows nearer, none farther; every colour exact 11.7 -> 13.3 %,
but mean error 0.903 -> 0.917 (a colour's other spreads already off the other way)."""
ROW_DUP = 0.45
""":func:`_row_slots`: a strip starting less than this many pitches after the one before it is
a second box on that card."""
ROW_GAP = 1.6
""":func:`_row_slots`: a gap of at least this many pitches between two found strips (or before
the first) hides ``round(gap / pitch) - 1`` cards (``round(gap / pitch)`` before the first)."""
ROW_REGULAR = 1.6
""":func:`_row_slots`: a row whose steps between found strips spread wider than this (the 80th
percentile over the 20th) is left as found: no pitch to go by."""
UNKNOWN_NEEDS_WHITE = True
"""A strip of no registered colour is counted as an unknown back only when some of its pixels
are near white (a card's border or pattern; :func:`_without_white`): most such strips without
any were sleeves, arms and boxes (dev audit scenes 0-19 and 100-139: 33 of 40 false unknown
strips against 4 of 18 strips of unregistered decks)."""
LEARNED_KINDS = ("fan", "heap")
"""With ``hybrid``: the spreads (as the classical path classifies them) counted by the model."""
LOOSE_STRIPS = True
"""With ``hybrid``: also count the model's strips lying in no classical spread."""
_DEBUG = bool(os.environ.get("NERTZ_AUDIT_DEBUG"))  # spreads to stderr, row images to _DUMP
_DUMP: list = []


class AuditError(NertzError, ValueError):
    """The audit cannot be made: no table or no cards in the image, a bad image."""


@dataclass
class Strip:
    """One counted card: what shows of it.

    Attributes:
        owner: the matched player, or ``"unknown"``.
        quad: ``(4, 2) float32`` image pixels around the visible strip (for drawing).
        where: ``"shared"`` or the zone's name.
        spread: index of the spread (connected group of backs) it was counted in.
        how: ``"strip"`` (found as a strip of a row, or a single card), ``"fan"`` or ``"heap"``
            (counted from the spread's area: its quad is the spread's box), ``"model"`` (found
            by the strip detector: its quad is the card's visible part).
        ink: ``(3,) float64`` CIELAB of the strip's ink: the median of the darker half of its
            middle's pixels (:func:`_strip_inks`, without the pattern's paper white), under
            the light correction its owner was read under (:func:`_owner_gain`); None where
            not measured (the classical path, a fan's gap filled from a weak box, a strip too
            small).
    """

    owner: str
    quad: np.ndarray
    where: str
    spread: int
    how: str
    ink: np.ndarray | None = None


@dataclass
class AuditResult:
    """What the audit counted.

    Attributes:
        counts: player -> face-down cards of their back in the shared area (every registered
            player present, 0 when none).
        zones: zone name -> {player or ``"unknown"``: cards} in that zone.
        unknown: face-down cards matching no registered back (anywhere).
        face_up: face-up cards seen (a foundation not turned over): with a learned method the
            strip detector's ``face`` boxes in the shared area (the whole image without one;
            dev audit scenes 0-19 and 100-139: exact in 20 of 20 and 37 of 40 against 16 and
            34 for the bright card-sized regions of the shared area and zones counted before,
            which ``classical`` still counts).
        strips: every counted card (:class:`Strip`).
        card_px: measured card size ``(width, height)`` in pixels.
    """

    counts: dict[str, int]
    zones: dict[str, dict[str, int]]
    unknown: int
    face_up: int
    strips: list[Strip] = field(default_factory=list)
    card_px: tuple[float, float] = (0.0, 0.0)

    def json_line(self) -> dict:
        """The contract's last line of ``nertz audit --json``: ``{"type": "audit", "counts":
        {player: n}, "unknown": n, "face_up": n}`` plus ``zones`` (additive)."""
        return {"type": "audit", "counts": dict(self.counts), "unknown": int(self.unknown),
                "face_up": int(self.face_up), "zones": {z: dict(c) for z, c in self.zones.items()}}

    def draw(self, image: np.ndarray) -> np.ndarray:
        """A copy of ``image`` with every counted strip outlined (``(H, W, 3) uint8`` BGR)."""
        out = image.copy()
        for s in self.strips:
            col = (0, 200, 0) if s.how in ("strip", "model") else (0, 160, 255)
            cv2.polylines(out, [np.round(s.quad).astype(np.int32)], True, col, 1, cv2.LINE_AA)
        return out


# ------------------------------------------------------------------------------------------
# colour lookup
_Q = 3  # bits dropped per channel: 32 levels


def _bin_lab() -> np.ndarray:
    v = (np.arange(256 >> _Q) << _Q) + (1 << (_Q - 1))
    b, g, r = np.meshgrid(v, v, v, indexing="ij")
    bgr = np.stack([b, g, r], -1).reshape(-1, 1, 3).astype(np.float32) / 255.0
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float64)


_BIN_LAB = None


def _bins(img: np.ndarray) -> np.ndarray:
    q = (img >> _Q).astype(np.int32)
    n = 256 >> _Q
    return (q[..., 0] * n + q[..., 1]) * n + q[..., 2]


def _colour_lut(labs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nearest registered colour (index) and distance per colour bin.

    A back seen by a webcam is its ink mixed with the light colour of its pattern and border
    (a fine pattern blurs into one colour): the distance is taken to the segment from the ink
    toward paper white (CIELAB (96, 0, 0)), up to :data:`_MAX_MIX` of the way, with L* at half
    weight."""
    global _BIN_LAB
    if _BIN_LAB is None:
        _BIN_LAB = _bin_lab()
    dist, kk = _segment_distance(_BIN_LAB, labs)
    return kk.astype(np.int16), dist


def _poly_mask(shape: tuple[int, int], poly) -> np.ndarray:
    m = np.zeros(shape, np.uint8)
    if poly is not None and len(poly) >= 3:
        cv2.fillPoly(m, [np.round(np.asarray(poly, np.float64) * 4).astype(np.int32)], 1, cv2.LINE_8, 2)
    return m


def _back_map(img: np.ndarray, table: Table, light: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per pixel: player index + 1 (0: no back colour), the card mask (a back colour or the
    white/pale of borders and patterns next to one, and not a colour of the table), the region
    where cards are looked for (the shared area and zones, a little enlarged), whether the
    pixel has a colour of the table, and the player index + 1 without the table's exclusion
    (for the learned strips, whose pixels are a card's)."""
    labs = np.array([hex_to_lab(p.back) for p in table.players], np.float64)
    lut_k, lut_d = _colour_lut(labs)
    bins = _bins(img)
    h, w = img.shape[:2]
    region = _poly_mask((h, w), table.shared_area)
    for z in table.zones.values():
        region |= _poly_mask((h, w), z)
    if table.shared_area is None or region.sum() == 0:
        region[:] = 1
    grow = max(3, int(0.02 * max(h, w)))
    ker = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1, 2 * grow + 1))
    region = cv2.dilate(region, ker)
    # the table: colours seen just around the shared area and the zones but in none of them
    # (the margins between them and a band around the play area), where no card should lie
    shared = _poly_mask((h, w), table.shared_area) if table.shared_area is not None else region
    play = shared.copy()
    for z in table.zones.values():
        play |= _poly_mask((h, w), z)
    ring = cv2.dilate(play, ker) & (1 - play)
    if ring.sum() < 2000:
        ring = 1 - region
    sample = bins[ring > 0]
    n = 256 >> _Q
    hist = np.bincount(sample, minlength=n ** 3).astype(np.float32).reshape(n, n, n)
    hist /= max(len(sample), 1)
    # 3x3x3 box blur of the histogram
    for ax in range(3):
        hist = (hist + np.roll(hist, 1, ax) + np.roll(hist, -1, ax)) / 3.0
    table_lut = (hist > _TABLE_DENSITY).reshape(-1)
    back = (lut_d <= PIXEL_DELTA) & ~table_lut
    label_lut = np.where(back, lut_k + 1, 0).astype(np.uint8)
    labels = label_lut[bins]
    near = cv2.dilate((labels > 0).astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (15, 15)))
    table_px = table_lut[bins]
    card = ((labels > 0) | ((light > 0) & ~table_px & (near > 0))).astype(np.uint8) & region
    raw = _strip_colour_map(img, labs, (lut_k, lut_d), bins)
    return labels, card, region, table_px, raw


def _light_map(img: np.ndarray) -> np.ndarray:
    """Bright, nearly grey pixels (card white: borders, pale pattern): ``(H, W) uint8`` 0/1.
    Bright means 25 grey levels above the local median (a 31 px window of a half-size
    image) and above 120, so that it holds on a light cloth and in shadow."""
    g = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    small = cv2.resize(g, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    med = cv2.resize(cv2.medianBlur(small, 31), (g.shape[1], g.shape[0]), interpolation=cv2.INTER_LINEAR)
    mx = img.max(axis=2).astype(np.int16)
    mn = img.min(axis=2).astype(np.int16)
    grey = (mx - mn) < 0.3 * mx + 8
    return ((g.astype(np.int16) > med.astype(np.int16) + 25) & grey & (g > 120)).astype(np.uint8)


def _white_balance(img: np.ndarray, table: Table) -> np.ndarray:
    """Scale the channels so that the white of the cards (their borders and pale pattern
    colours: bright, nearly grey pixels in the shared area that are not the table's colour)
    becomes white: a von Kries correction of the light's colour and exposure."""
    gain = _wb_gain(img, table)
    return img if gain is None else _apply_gain(img, gain)


def _apply_gain(img: np.ndarray, gain: np.ndarray) -> np.ndarray:
    """``img`` (``(H, W, 3) uint8`` BGR) with its channels multiplied by ``gain`` (``(3,)``,
    B G R), clipped to 0-255: same shape and type."""
    return np.clip(img.astype(np.float32) * gain[None, None, :], 0, 255).astype(np.uint8)


def _strip_colour_map(img: np.ndarray, labs: np.ndarray, lut: tuple[np.ndarray, np.ndarray] | None = None,
                      bins: np.ndarray | None = None) -> np.ndarray:
    """``(H, W) uint8``: 1 + the index of the registered back colour (``labs``, ``(P, 3)``
    CIELAB) within :data:`STRIP_DELTA` of each pixel of ``img`` (``(H, W, 3) uint8`` BGR), 0
    where none is (no cloth exclusion: the map :func:`strip_owners` reads). ``lut`` and
    ``bins`` (:func:`_colour_lut`, :func:`_bins`) when the caller has them already."""
    lut_k, lut_d = lut if lut is not None else _colour_lut(labs)
    return np.where(lut_d <= STRIP_DELTA, lut_k + 1, 0).astype(np.uint8)[_bins(img) if bins is None else bins]


def _wb_gain(img: np.ndarray, table: Table) -> np.ndarray | None:
    """The per-channel gain ``(3,) float32`` (B, G, R) of :func:`_white_balance`, or None when
    too few bright, nearly grey pixels are seen to estimate it."""
    h, w = img.shape[:2]
    shared = _poly_mask((h, w), table.shared_area) if table.shared_area is not None else np.ones((h, w), np.uint8)
    step = 3
    sub = img[::step, ::step].reshape(-1, 3).astype(np.float32)
    m = shared[::step, ::step].reshape(-1) > 0
    sub = sub[m]
    if len(sub) < 100:
        return None
    mx = sub.max(axis=1)
    mn = sub.min(axis=1)
    cand = sub[(mx > 110) & (mx < 252) & ((mx - mn) < 0.25 * mx)]
    if len(cand) < 50:
        return None
    # the brightest few percent of nearly grey pixels: card white
    lum = cand.sum(axis=1)
    ref = cand[lum >= np.percentile(lum, 90)]
    med = np.median(ref, axis=0)
    return np.clip(235.0 / np.maximum(med, 1.0), 0.6, 2.0).astype(np.float32)


def _owner_gain(img: np.ndarray, quads: np.ndarray, labs: np.ndarray, gain: np.ndarray | None,
                shrink: float = 0.35, inks: np.ndarray | None = None) -> np.ndarray:
    """The colour correction under which the learned strips' owners are read: the white
    balance's exposure ``e`` (geometric mean of ``gain``) times a colour part, the one under
    which the strips' inks lie nearest to the registered back colours, one deck to one colour.

    The white balance (:func:`_white_balance`) takes the brightest nearly grey pixels for white;
    pale tints in the backs' patterns, cream pattern colours or a bright warm light clipping a
    back's red channel make it over-correct (a pale orange back then reads as gold: dev audit
    scenes 1 and 10; held-out 10024 and 10055 lost 44 and 29 cards that way). Every strip is a
    card of some registered back (or a few of an unregistered one), so the right correction
    brings the strips' colours nearest to the registered ones. Searched: first the corrections
    ``e * (gain / e) ** a``, ``a`` in :data:`OWNER_GAIN_STEPS` (between none and the full white
    balance, and a little beyond), then around the best of them a 2-D refinement of the light's
    colour (:data:`OWNER_GAIN_GRID`). The exposure is not searched (darker always looks nearer
    to dark backs: tried, it reads navy as black in dim scenes). Ties go to the full white
    balance (every other correction pays 0.05).

    The cost, with at least 3 strips: per strip its *ink* (:func:`_strip_inks`: the darker half
    of its middle, without the pattern's paper white), the distance from the corrected ink to
    the nearest registered colour's ink-to-white segment (as the colour map,
    :func:`_colour_lut`), plus :data:`OWNER_SPREAD_WEIGHT` times the ink's distance to the mean
    ink of the strips nearest to the same colour, both capped at :data:`STRIP_DELTA`, averaged
    over the strips. The spread term keeps a correction from moving one deck onto another's
    colour (a grey-ish orange onto a pale red, navy onto black). With fewer strips: the mean over
    the strips' middle pixels of the colour map's distance, on the first search only.
    Measured (``python -m nertz.vision.audit_eval``, learned, against the search over
    :data:`OWNER_GAIN_STEPS` by pixels alone): dev seeds 0-19 mean absolute error 2.02 -> 1.21
    cards, every colour exact 1 -> 1 of 20, within one 5 -> 2; held-out seeds 10000-10059 2.08
    -> 1.57, exact 6.7 -> 10.0 %, within one 25.0 -> 21.7 % (scenes off by 5 cards or more 27
    -> 24; a zone of black backs read as navy in 10049).

    Args:
        img: ``(H, W, 3) uint8`` BGR, not white-balanced.
        quads: ``(N, 4, 2)`` the strips, image pixels.
        labs: ``(P, 3)`` the registered backs in CIELAB.
        gain: the white balance's gain (None: none could be measured; returns ones).
        inks: the strips' inks (:func:`_strip_inks` with ``shrink``) when already measured.

    Returns:
        ``(3,) float32`` the gain to multiply the image's B, G, R by.
    """
    one = np.ones(3, np.float32)
    if gain is None or len(quads) == 0:
        return one if gain is None else gain
    expo = float(np.exp(np.log(gain.astype(np.float64)).mean()))  # the exposure part, kept
    inks = _strip_inks(img, quads, shrink) if inks is None else inks
    inks = inks[~np.isnan(inks).any(axis=1)]
    if len(inks) >= 3:
        def cost_of(g: np.ndarray) -> float:
            lab = _bgr_to_lab(inks * g)
            d, k = _segment_distance(lab, labs)
            spread = np.zeros(len(lab))
            for j in np.unique(k):
                sel = k == j
                spread[sel] = lab_distance(lab[sel], lab[sel].mean(axis=0))
            return float(np.minimum(d, STRIP_DELTA).mean()
                         + OWNER_SPREAD_WEIGHT * np.minimum(spread, STRIP_DELTA).mean())
    else:
        h, w = img.shape[:2]
        m = np.zeros((h, w), np.uint8)
        for q in np.asarray(quads, np.float64):
            c = q.mean(axis=0)
            qq = np.round((c + (q - c) * shrink) * 4).astype(np.int32)
            cv2.fillConvexPoly(m, qq, 1, cv2.LINE_8, 2)
        px = img[m > 0].astype(np.float32)
        if len(px) < 50:
            return gain
        if len(px) > 60000:
            px = px[:: len(px) // 60000 + 1]
        _, lut_d = _colour_lut(labs)

        def cost_of(g: np.ndarray) -> float:
            d = lut_d[_bins(np.clip(px * g, 0, 255).astype(np.uint8))]
            return float(np.minimum(d, STRIP_DELTA).mean())

    best, best_cost = gain, np.inf
    for a in OWNER_GAIN_STEPS:
        g = (expo * (gain.astype(np.float64) / expo) ** a).astype(np.float32)
        cost = cost_of(g) + (0.0 if a == 1.0 else 0.05)
        if cost < best_cost:
            best, best_cost = g, cost
    if len(inks) < 3:
        return best
    centre = np.log(best.astype(np.float64) / expo)  # B G R, summing to 0
    for step in OWNER_GAIN_GRID:
        cands = []
        for dr in (-2, -1, 0, 1, 2):
            for db in (-2, -1, 0, 1, 2):
                if dr == db == 0:
                    continue
                lg = centre + np.array([db * step, 0.0, dr * step])
                lg -= lg.mean()
                g = (expo * np.exp(lg)).astype(np.float32)
                cands.append((cost_of(g) + 0.05, lg, g))
        c, lg, g = min(cands, key=lambda x: x[0])
        if c < best_cost:
            best, best_cost, centre = g, c, lg
    return best


def _skin_strips(img: np.ndarray, quads: np.ndarray, hands: np.ndarray, labs: np.ndarray, gain: np.ndarray,
                 card_long: float, inks: np.ndarray | None = None) -> np.ndarray:
    """Which strips are an arm, not cards: the model boxes the hand, not the forearm behind it,
    and skin or a sleeve can pass for a pale back (a pale red's ink mixed with white is a
    light skin's colour). A strip within :data:`SKIN_NEAR` card lengths of a hand box is an arm
    when its ink (:func:`_strip_inks`) lies within :data:`SKIN_DELTA` of the hand's (the ink of
    the middle half of the hand box) and nearer to it than to every registered back's ink itself
    (no paper white mixed in: a real back's darker half is its ink). A hand box whose own ink is
    within :data:`SKIN_DELTA` of a registered back's lies mostly over cards and is not used.

    Args:
        img: ``(H, W, 3) uint8`` BGR, not white-balanced.
        quads: ``(N, 4, 2)`` the strips, image pixels. hands: ``(M, 4, 2)`` the model's hand
            boxes. labs: ``(P, 3)`` the registered backs in CIELAB. gain: ``(3,)`` B G R, the
            correction the owners are read under (:func:`_owner_gain`). card_long: the cards'
            long side, pixels. inks: the strips' inks (:func:`_strip_inks`, shrink 0.35) when
            already measured.

    Returns:
        ``(N,) bool``.
    """
    out = np.zeros(len(quads), bool)
    skins = _strip_inks(img, hands, 0.5)
    if len(skins) == 0 or np.isnan(skins).any():
        return out
    skin_lab = _bgr_to_lab(skins * gain)
    skin_like = lab_distance(skin_lab[:, None, :], labs[None]).min(axis=1) >= SKIN_DELTA  # else a box mostly over cards
    hands, skin_lab = hands[skin_like], skin_lab[skin_like]
    if len(hands) == 0:
        return out
    quads = np.asarray(quads)
    near = np.hypot(*(quads.mean(axis=1)[:, None, :] - hands.mean(axis=1)[None]).transpose(2, 0, 1)) \
        < SKIN_NEAR * card_long  # (N, M)
    todo = near.any(axis=1)
    if inks is None:
        inks = np.full((len(quads), 3), np.nan, np.float32)
        inks[todo] = _strip_inks(img, quads[todo], 0.35)
    for k in np.nonzero(todo & ~np.isnan(inks).any(axis=1))[0]:
        lab = _bgr_to_lab(inks[k] * gain)[0]
        d_reg = float(lab_distance(labs, lab).min())  # to the inks themselves, no paper white mixed in
        d_skin = float(lab_distance(skin_lab[near[k]], lab).min())
        out[k] = d_skin < SKIN_DELTA and d_skin < d_reg
    return out


def _strip_inks(img: np.ndarray, quads: np.ndarray, shrink: float) -> np.ndarray:
    """``(N, 3) float32`` BGR: per strip the median of the darker half of its middle's pixels
    (the back's ink, without its pattern's paper white); NaN for a strip too small to measure."""
    out = np.full((len(quads), 3), np.nan, np.float32)
    for i, q in enumerate(np.asarray(quads, np.float64)):
        middle = strip_middle(q, img.shape, shrink)
        if middle is None:
            continue
        x0, y0, m = middle
        px = img[y0:y0 + m.shape[0], x0:x0 + m.shape[1]][m > 0].astype(np.float32)
        if len(px) < 4:
            continue
        lum = px.sum(axis=1)
        out[i] = np.median(px[lum <= np.median(lum)], axis=0)
    return out


def lab_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Euclidean CIELAB distance with L* at half weight (light and shadow move L* most), over
    the last axis of ``a - b`` (broadcast)."""
    d = np.asarray(a, np.float64) - np.asarray(b, np.float64)
    return np.sqrt((0.5 * d[..., 0]) ** 2 + d[..., 1] ** 2 + d[..., 2] ** 2)


def _bgr_to_lab(bgr: np.ndarray) -> np.ndarray:
    """``(N, 3)`` BGR 0-255 (clipped) -> ``(N, 3) float64`` CIELAB."""
    x = np.clip(bgr, 0, 255).astype(np.float32).reshape(-1, 1, 3) / 255.0
    return cv2.cvtColor(x, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float64)


def _segment_distance(lab: np.ndarray, labs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distance of each colour (``(N, 3)`` CIELAB) to the nearest registered back (``labs``,
    ``(P, 3)``) and that back's index, ``(N,) float64`` and ``(N,) int``: the distance to the
    segment from the ink toward paper white up to :data:`_MAX_MIX` of the way, L* at half weight
    (:func:`_colour_lut`)."""
    x = lab[:, None, :]
    k = labs[None, :, :]
    wdir = np.array([96.0, 0.0, 0.0])[None, None, :] - k
    t = np.clip(((x - k) * wdir).sum(-1) / np.maximum((wdir ** 2).sum(-1), 1e-9), 0.0, _MAX_MIX)
    dist = lab_distance(x, k + t[..., None] * wdir)
    return dist.min(axis=1), dist.argmin(axis=1)


# ------------------------------------------------------------------------------------------
def _card_scale(comps: list[dict]) -> tuple[float, float]:
    """Card (short, long) side in pixels from the spreads: rectangular components are single
    cards (long/short 1.3-1.5) or rows (short side = card height)."""
    longs = []
    big = np.percentile([c["area"] for c in comps], 90) if comps else 0.0
    for c in comps:
        if c["area"] < 0.2 * big:
            continue
        (w, h) = c["size"]
        s, l = min(w, h), max(w, h)
        if c["rect_fill"] < 0.85 or s < 8:
            continue
        r = l / s
        if 1.3 <= r <= 1.5:
            longs.append(l)  # one card (or a short row: its long side is close to a card's)
        elif r > 1.6:
            longs.append(s)  # a row: its short side is the card's height
    if not longs:
        areas = [c["area"] for c in comps]
        a = float(np.median(areas)) if areas else 1000.0
        hh = math.sqrt(a * 88 / 63)
        return hh * 63 / 88, hh
    hh = float(np.median(longs))
    return hh * 63 / 88, hh


def _profile_period_ac(ac: np.ndarray, lo: float, hi: float) -> float | None:
    """The lag in [lo, hi] of the highest peak of an autocorrelation ``ac`` (lag 0 first),
    refined by a parabola; None when there is no clear peak."""
    ac = ac / (ac[0] + 1e-9)
    a, b = max(2, int(lo)), min(len(ac) - 2, int(hi) + 1)
    if b <= a:
        return None
    k = a + int(np.argmax(ac[a:b]))
    if ac[k] < 0.05 or ac[k] <= ac[k - 1] or ac[k] < ac[k + 1]:
        return None
    y0, y1, y2 = ac[k - 1], ac[k], ac[k + 1]
    den = y0 - 2 * y1 + y2
    off = 0.5 * (y0 - y2) / den if abs(den) > 1e-9 else 0.0
    return k + float(np.clip(off, -0.5, 0.5))


def _runs(prof: np.ndarray, thr: float) -> list[tuple[int, int]]:
    """``[(start, end)]`` index runs where ``prof > thr``."""
    on = np.concatenate([[False], prof > thr, [False]])
    dif = np.diff(on.astype(np.int8))
    return list(zip(np.nonzero(dif == 1)[0].tolist(), (np.nonzero(dif == -1)[0] - 1).tolist()))


def _edges_in_row(light: np.ndarray, min_gap: float, thr: float = 0.45) -> tuple[np.ndarray, float]:
    """Card edges across a row turned to run along x: the positions (x at mid-height, crop
    pixels) of bright lines (cards' white borders) that cross most of the row's height.

    The edges need not be perpendicular to the row (perspective shears them; cards sit
    askew), so the line direction is searched: the shear ``x -> x - s (y - H/2)`` that makes
    the column sums of the bright pixels most peaked wins.

    Returns:
        positions ``(K,)`` sorted, and the shear.
    """
    H, W = light.shape
    y0, y1 = int(H * 0.15), max(int(H * 0.85), int(H * 0.15) + 1)
    ys, xs = np.nonzero(light[y0:y1])
    if len(xs) == 0:
        return np.zeros(0), 0.0
    yc = ys.astype(np.float64) + y0 - H / 2
    band = y1 - y0
    best = (-1.0, 0.0, None)
    for sh in np.linspace(-0.6, 0.6, 49):
        xp = np.round(xs - sh * yc).astype(np.int64) + W
        img = np.zeros((band, 3 * W), np.uint8)
        img[ys, xp] = 1
        img = cv2.dilate(img, np.ones((1, 3), np.uint8))
        f = img.mean(axis=0)
        score = float((f ** 2).sum())
        if score > best[0]:
            best = (score, sh, f)
    _, sh, f = best
    runs = _runs(f, thr)
    pos = [0.5 * (a + b) - W for a, b in runs]
    merged: list[float] = []
    for p in pos:
        if merged and p - merged[-1] < min_gap:
            continue
        merged.append(p)
    return np.array(merged), float(sh)


def _colour_changes(lab: np.ndarray, shear: float, win: float) -> list[float]:
    """Positions along a row (turned to run along x) where the majority back colour of the
    middle third of its height changes, the majority taken over a sliding window of ``win``
    columns (so that a speck of another colour is no edge)."""
    H, W = lab.shape
    y0, y1 = int(H * 0.35), max(int(H * 0.65), int(H * 0.35) + 1)
    ys = np.arange(y0, y1)
    xs = np.arange(W)
    px = np.round(xs[None, :] + shear * (ys[:, None] - H / 2)).astype(int)
    ok = (px >= 0) & (px < W)
    vals = np.where(ok, lab[np.broadcast_to(ys[:, None], px.shape), np.clip(px, 0, W - 1)], 0)
    P = int(lab.max())
    if P < 1:
        return []
    onehot = np.stack([(vals == k + 1).sum(axis=0) for k in range(P)]).astype(np.float64)
    w = max(3, int(round(win)) | 1)
    cs = np.cumsum(np.pad(onehot, ((0, 0), (w // 2 + 1, w // 2))), axis=1)
    win_counts = cs[:, w:] - cs[:, :-w]
    best = win_counts.argmax(axis=0) + 1
    strong = win_counts.max(axis=0) > 0.3 * w * (y1 - y0)
    seq = np.where(strong, best, 0)
    out = []
    last, last_x = 0, -1
    for x in range(W):
        if seq[x] == 0:
            continue
        if last and seq[x] != last:
            out.append(0.5 * (x + last_x))
        last, last_x = seq[x], x
    return out


def _fill_gaps(bounds: list[float], card_len: float) -> list[float]:
    """Split gaps between found edges that are too wide for one strip (edges missed: two
    borderless backs of one colour side by side) at the row's strip pitch, the median of the
    gaps narrower than 0.6 card. The widest end gap holds the top card (a card's length)."""
    g = np.diff(bounds)
    small = g[g < 0.6 * card_len]
    if len(g) < 3 or len(small) < 2:
        return bounds
    d = float(np.median(small))
    top = 0 if g[0] > g[-1] else len(g) - 1
    out = [bounds[0]]
    for k, gk in enumerate(g):
        if k == top:
            m = 1 + max(0, int(round((gk - card_len) / d)))
            if m > 1:  # the extra strips lie on the far side of the top card
                step = (gk - card_len) / (m - 1)
                pts = [bounds[k] + step * i for i in range(1, m)] if top else \
                      [bounds[k + 1] - step * i for i in range(m - 1, 0, -1)]
                out += pts
        else:
            m = max(1, int(round(gk / d)))
            out += [bounds[k] + gk * i / m for i in range(1, m)]
        out.append(bounds[k + 1])
    return out


def _count_row(grey: np.ndarray, light_map: np.ndarray, labels: np.ndarray, comp_mask: np.ndarray,
               rect, card_wh) -> list[tuple[int, np.ndarray, str]] | None:
    """Count a row: returns [(label, quad, how)] or None if it does not look like a row."""
    (cx, cy), (rw, rh), ang = rect
    if rw < rh:
        rw, rh, ang = rh, rw, ang + 90.0
    cw, ch = card_wh
    # which card side lies across the row: the height (a row) or the width (a column)
    across_h = abs(rh - ch) <= abs(rh - cw)
    card_len = rh * 63 / 88 if across_h else rh * 88 / 63
    mm = (rh / 88.0) if across_h else (rh / 63.0)  # pixels per mm here
    M = cv2.getRotationMatrix2D((cx, cy), ang, 1.0)
    W, H = int(math.ceil(rw)) + 4, int(math.ceil(rh)) + 4
    M[:, 2] += (W / 2 - cx, H / 2 - cy)
    lab = cv2.warpAffine(labels, M, (W, H), flags=cv2.INTER_NEAREST)
    msk = cv2.warpAffine(comp_mask, M, (W, H), flags=cv2.INTER_NEAREST)
    lt = cv2.warpAffine(light_map, M, (W, H), flags=cv2.INTER_NEAREST)
    cols = np.nonzero((msk[int(H * 0.2):int(H * 0.8)] > 0).mean(axis=0) > 0.3)[0]
    if len(cols) < 4:
        return None
    xa, xb = float(cols[0]), float(cols[-1])
    gap = 5.0 * rh / 88.0
    # only long bright lines are card edges: an opening along the (nearly) across direction
    # removes dots and other short pattern marks
    klen = max(5, int(round(7.0 * rh / 88.0)) | 1)
    lt_lines = cv2.morphologyEx(lt, cv2.MORPH_OPEN, np.ones((klen, 1), np.uint8))
    edges, shear = _edges_in_row(lt_lines, gap)
    # where one back colour gives way to another across the row is an edge too (borderless
    # backs show no white line between cards)
    inner = edges[(edges > xa + gap) & (edges < xb - gap)]
    if len(inner) < 2:
        extra = [e for e in _colour_changes(lab, shear, gap) if not len(edges) or np.min(np.abs(edges - e)) >= gap]
        edges = np.sort(np.concatenate([edges, np.array(extra, np.float64)]))
    # every visible card shows between two consecutive edges; the row's own ends are edges
    edges = edges[(edges > xa + gap) & (edges < xb - gap)]
    if len(edges) == 0 and xb - xa > 1.2 * card_len:
        # no white borders: every strip shows the same part of a card, so the row's image
        # repeats with the strip pitch; the pitch is the highest peak of the autocorrelation
        # along x summed over the row's lines (Wiener-Khinchin, by FFT), and the count
        # 1 + (length - card) / pitch
        g = cv2.warpAffine(grey, M, (W, H), flags=cv2.INTER_LINEAR).astype(np.float32)
        y0, y1 = int(H * 0.2), int(H * 0.8)
        band = g[y0:y1, int(xa):int(xb) + 1]
        band = band - band.mean(axis=1, keepdims=True)
        nfft = 2 * band.shape[1]
        ac = np.fft.irfft((np.abs(np.fft.rfft(band, nfft, axis=1)) ** 2).sum(axis=0), nfft)[:band.shape[1]]
        strip_len = (xb - xa) - card_len
        lo, hi = 9.5 * rh / 88.0, min(card_len * 0.6, max(strip_len, 1.0))
        d = _profile_period_ac(ac, lo, hi)
        if d is not None:
            n = 1 + int(round(strip_len / d))
            d = strip_len / max(n - 1, 1)
            edges = np.array([xa + k * d for k in range(1, n)])
    bounds = [xa] + edges.tolist() + [xb]
    bounds = _fill_gaps(bounds, card_len)
    if _DEBUG:
        _DUMP.append((lt.copy(), xa, xb, card_len, np.array(bounds), len(bounds) - 1))
    n = len(bounds) - 1
    Minv = cv2.invertAffineTransform(M)
    out = []
    yy = np.arange(int(H * 0.25), int(H * 0.75))
    for k in range(n):
        s0, s1 = bounds[k], bounds[k + 1]
        # the strip's middle, following the edges' slant
        xs = np.linspace(s0 + 0.3 * (s1 - s0), s0 + 0.7 * (s1 - s0), 5)
        px = (xs[None, :] + shear * (yy[:, None] - H / 2)).round().astype(int)
        ok = (px >= 0) & (px < W)
        vals = lab[np.broadcast_to(yy[:, None], px.shape)[ok], px[ok]]
        hh = H / 2 - 2
        q = np.array([[s0 - shear * hh, 2], [s1 - shear * hh, 2], [s1 + shear * hh, H - 2],
                      [s0 + shear * hh, H - 2]], np.float64)
        qi = q @ Minv[:, :2].T + Minv[:, 2]
        out.append((_mode(vals), qi.astype(np.float32), "strip"))
    return out


def _fan_circles(quads: np.ndarray, card_h: float, link: float = 0.4, max_rms: float = 0.06
                 ) -> list[tuple[np.ndarray, np.ndarray, float, np.ndarray]]:
    """The fans among the found strips, by the circle their wedges' centres lie on.

    A fan's cards turn about one point by about one step, so the centres of their visible
    wedges lie on a circle about it. Strips are linked when their centres are under ``link``
    card lengths apart; a linked group of at least 4 whose centres fit a circle (least squares,
    Kasa's algebraic fit; RMS residual under ``max_rms`` card lengths after dropping the points
    off it by more than 0.1 card lengths and fitting again, radius 0.25-1.0 card lengths) is
    a fan.

    Args:
        quads: ``(N, 4, 2)`` the found strips, image pixels. card_h: a card's long side, pixels.

    Returns:
        per fan ``(members, centre, radius, on)``: the linked group's indices into ``quads``,
        the circle's centre ``(2,)`` and radius (pixels), and the members on the circle.
    """
    if len(quads) < 4:
        return []
    c = quads.mean(axis=1).astype(np.float64)
    d = np.hypot(*(c[:, None] - c[None]).transpose(2, 0, 1))
    group = -np.ones(len(c), np.int64)
    for i in range(len(c)):
        if group[i] >= 0:
            continue
        group[i], todo = i, [i]
        while todo:
            j = todo.pop()
            for k in np.flatnonzero((d[j] < link * card_h) & (group < 0)):
                group[k] = i
                todo.append(int(k))
    fans = []
    for g in np.unique(group):
        members = np.flatnonzero(group == g)
        if len(members) < 4:
            continue
        fit, idx = None, members
        for _ in range(2):  # fit, drop the points off the circle (the whole top card), refit
            pts = c[idx]
            a = np.column_stack([pts[:, 0], pts[:, 1], np.ones(len(pts))])
            sol = np.linalg.lstsq(a, -(pts ** 2).sum(axis=1), rcond=None)[0]
            centre = -sol[:2] / 2
            r2 = float(centre @ centre - sol[2])
            if r2 <= 0:
                break
            r = math.sqrt(r2)
            res = np.abs(np.hypot(*(pts - centre).T) - r)
            fit = (centre, r, idx, res)
            if (res > 0.1 * card_h).any() and (res <= 0.1 * card_h).sum() >= 4:
                idx = idx[res <= 0.1 * card_h]
            else:
                break
        if fit is None:
            continue
        centre, r, idx, res = fit
        if not (0.25 * card_h <= r <= card_h) or math.sqrt(float((res ** 2).mean())) > max_rms * card_h:
            continue
        fans.append((members, centre, r, idx))
    return fans


def _fan_strays(quads: np.ndarray, card_h: float, inside: float | None = None,
                fans: list | None = None) -> np.ndarray:
    """The strips of a fan (:func:`_fan_circles`) that lie off its circle toward the point the
    fan turns about by more than ``inside`` card lengths (default :data:`FAN_STRAY_INSIDE`) and
    are smaller than 0.6 of a card: boxes across the narrow ends of several wedges, where they
    meet, not a card's own part (the whole top card, also off the circle, is larger).

    Args:
        quads: ``(N, 4, 2)`` the found strips, image pixels. card_h: a card's long side, pixels.
        fans: :func:`_fan_circles` of ``quads`` when already found (None: found here).

    Returns:
        ``(K,) int`` indices into ``quads``, ascending.
    """
    inside = FAN_STRAY_INSIDE if inside is None else inside
    fans = _fan_circles(quads, card_h) if fans is None else fans
    e1, e2 = quads[:, 1] - quads[:, 0], quads[:, 3] - quads[:, 0]
    area = np.abs(e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0])
    c = quads.mean(axis=1).astype(np.float64)
    out: list[int] = []
    for members, centre, r, on in fans:
        for m in np.setdiff1d(members, on):
            if area[m] < 0.6 * card_h * card_h * 63 / 88 and float(np.hypot(*(c[m] - centre))) < r - inside * card_h:
                out.append(int(m))
    return np.array(sorted(out), np.int64)


def _fan_gaps(quads: np.ndarray, weak: np.ndarray, card_h: float, link: float = 0.4,
              max_rms: float = 0.06, fans: list | None = None) -> np.ndarray:
    """The weak boxes that fill gaps in the fans among the found strips: which of ``weak``
    (``(M, 4, 2)`` image pixels, best first) to count too.

    The fans are those of :func:`_fan_circles` (``link``, ``max_rms``) whose wedges on the
    circle lie one step apart, a median step of 5-20 degrees. Where two neighbours on the
    circle lie ``k`` steps apart (k >= 2, by at least 1.5 steps), up to ``k - 1`` weak boxes
    whose centres lie on the circle (within 0.1 card lengths) in that gap, at least 0.6 steps
    from the found wedges and from each other, are taken, best first. With
    :data:`FAN_FILL_TOP`, the stretch beyond one end up to the place of the whole top card's own
    wedge (:func:`_fan_top_end`; the top card: the largest box off the circle, at least 0.6 of a
    card's area, its centre within 0.6 card lengths of the circle's centre) is such a gap too;
    nothing else is added beyond the fan's ends.

    Args:
        quads: ``(N, 4, 2)`` the found strips, image pixels.
        weak: ``(M, 4, 2)`` weak candidates (:meth:`~nertz.vision.audit_strips.StripDetector.with_candidates`).
        card_h: a card's long side, pixels.
        fans: :func:`_fan_circles` of ``quads`` (with ``link``, ``max_rms``) when already found
            (None: found here).

    Returns:
        ``(K,) int`` indices into ``weak``.
    """
    if len(quads) < 4 or len(weak) == 0:
        return np.zeros(0, np.int64)
    c = quads.mean(axis=1).astype(np.float64)
    wc = weak.mean(axis=1).astype(np.float64)
    taken: list[int] = []
    side = quads[:, 1] - quads[:, 0], quads[:, 2] - quads[:, 1]
    longer = np.where((np.hypot(*side[0].T) >= np.hypot(*side[1].T))[:, None], side[0], side[1])
    theta = np.degrees(np.arctan2(longer[:, 1], longer[:, 0])) % 180  # each box's long side
    e1, e2 = quads[:, 1] - quads[:, 0], quads[:, 3] - quads[:, 0]
    area = np.abs(e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0])
    for members, centre, r, idx in (_fan_circles(quads, card_h, link, max_rms) if fans is None else fans):
        pos = np.degrees(np.arctan2(c[idx, 1] - centre[1], c[idx, 0] - centre[0]))
        order = np.argsort(pos)
        phi, idx = pos[order], idx[order]
        steps = np.diff(np.concatenate([phi, phi[:1] + 360]))
        cut = int(np.argmax(steps))  # the fan's open side: the widest gap around the circle
        phi, idx = np.roll(phi, -(cut + 1)), np.roll(idx, -(cut + 1))
        phi = np.concatenate([phi[:1], phi[0] + np.cumsum(np.diff(phi) % 360)])
        step = float(np.median(np.diff(phi)))
        if not 5.0 <= step <= 20.0 or phi[-1] - phi[0] > 200:
            continue
        on = np.abs(np.hypot(*(wc - centre).T) - r) < 0.1 * card_h
        wphi = (np.degrees(np.arctan2(wc[:, 1] - centre[1], wc[:, 0] - centre[0])) - phi[0]) % 360 + phi[0]
        gaps = [(lo, hi, int(round((hi - lo) / step)) - 1) for lo, hi in zip(phi[:-1], phi[1:])
                if hi - lo >= 1.5 * step]  # (1.5 steps rounds to 2: k >= 1)
        if FAN_FILL_TOP:
            on_circle = set(idx.tolist())
            tops = [m for m in np.flatnonzero(np.hypot(*(c - centre).T) < min(r, 0.6 * card_h))
                    if m not in on_circle and area[m] >= 0.6 * card_h * card_h * 63 / 88]
            top = _fan_top_end(phi, theta[idx], step, theta[max(tops, key=lambda m: area[m])]) if tops else None
            if top is not None:
                gaps.append((min(top), max(top), int(round(abs(top[1] - top[0]) / step)) - 1))
        for lo, hi, k in gaps:
            chosen: list[float] = []
            for i in np.flatnonzero(on & (wphi > lo + 0.6 * step) & (wphi < hi - 0.6 * step)):
                if len(chosen) >= k:
                    break
                if int(i) not in taken and all(abs(wphi[i] - x) >= 0.6 * step for x in chosen):
                    chosen.append(float(wphi[i]))
                    taken.append(int(i))
    return np.array(sorted(taken), np.int64)


def _row_slots(quads: np.ndarray, rect, card_wh: tuple[float, float]) -> tuple[np.ndarray, np.ndarray] | None:
    """Check the model's strips of one row-shaped spread against the row's own pitch: which
    strips to count and which missing ones to add, or None to leave the row as found.

    A row (or a column: cards overlapping along their length) is one card thick, and each card
    under the top one shows a strip of about the same width, the row's pitch. Along the row's
    axis (the spread's least rectangle ``rect``, measured on the colour map), the top card is
    the found box at one end at least 0.75 of a card long (exactly one end must have one), and
    each other strip starts where its box starts (the boxes overlap their neighbours alike).
    The pitch is the median step between consecutive starts; a start less than
    :data:`ROW_DUP` pitches after the one before it is a second box on that card (not counted),
    and the pitch is taken again without them. A row whose steps are not even
    (:data:`ROW_REGULAR`) is left as found. A gap of :data:`ROW_GAP` pitches or more between
    two starts, between the last start and the top card, or from the row's far end to the first
    start, hides cards: a strip is added for each, evenly spaced in the gap. Rows with fewer
    than three strips besides the top card are left as found.

    There is no whole-row count here: the row's length less the top card's is too uncertain
    (the model's top box often takes in a strip or two, and a card's length in pixels varies
    over the photo) to be divided by the pitch.

    Args:
        quads: ``(N, 4, 2)`` the model's back strips whose centres lie in the spread, pixels.
        rect: the spread's least rectangle (``cv2.minAreaRect``: centre, size, angle).
        card_wh: a card's (short, long) side, pixels (the row's thickness must be within 15 %
            of one of them).

    Returns:
        ``(keep, add)``: ``(N,) bool`` which strips to count, ``(M, 4, 2) float32`` the strips
        to add (pixels, the row's full thickness, one pitch long); None when the spread is not
        such a row or nothing changes.
    """
    if len(quads) < 4:
        return None
    (cx, cy), (rw, rh), ang = rect
    length, thick = (rw, rh) if rw >= rh else (rh, rw)
    a = math.radians(ang if rw >= rh else ang + 90.0)
    u = np.array([math.cos(a), math.sin(a)])
    v = np.array([-u[1], u[0]])
    cw, ch = card_wh
    if abs(thick - ch) < 0.15 * ch:
        card_len = cw  # cards side by side: each shows a strip of its width
    elif abs(thick - cw) < 0.15 * cw:
        card_len = ch  # a column: each shows a strip of its length
    else:
        return None
    if length < 1.1 * card_len:
        return None
    s = (np.asarray(quads, np.float64).reshape(-1, 2) - (cx, cy)) @ u
    s = s.reshape(-1, 4) + length / 2  # 0 .. length along the row
    lo, hi = s.min(axis=1), s.max(axis=1)
    size = hi - lo
    ends = [int(np.argmin(np.where(size >= 0.75 * card_len, lo, np.inf))),
            int(np.argmax(np.where(size >= 0.75 * card_len, hi, -np.inf)))]
    tops = [(k, e) for k, e in zip(ends, ("start", "end")) if size[k] >= 0.75 * card_len
            and ((lo[k] < 0.15 * card_len) if e == "start" else (hi[k] > length - 0.15 * card_len))]
    if len(tops) != 1:
        return None  # no whole card at an end, or one at both (two spreads, or a single card)
    top, end = tops[0]
    if end == "start":  # the top card at 0: turn the row round
        lo, hi = length - hi, length - lo
    rest = np.delete(np.arange(len(quads)), top)
    if len(rest) < 3:
        return None
    start = lo[rest]  # each strip's near edge (boxes overlap their neighbours alike)
    order = np.argsort(start)
    pitch = float(np.median(np.diff(start[order])))
    if pitch < 0.08 * card_len:
        return None
    keep = np.zeros(len(quads), bool)
    keep[top] = True
    kept = [int(order[0])]
    for i in order[1:]:  # two boxes on one strip: the first counts
        if start[i] - start[kept[-1]] >= ROW_DUP * pitch:
            kept.append(int(i))
    diffs = np.diff(start[kept])
    if len(diffs) < 2:
        return None
    pitch = float(np.median(diffs))
    lo_q, hi_q = np.percentile(diffs, [20, 80]) if len(diffs) >= 3 else (diffs.min(), diffs.max())
    if hi_q > ROW_REGULAR * lo_q and len(diffs) >= 3:
        return None  # not an even row: no pitch to go by
    keep[rest[kept]] = True
    new_at: list[float] = []
    edges = list(start[kept]) + [float(lo[top])]
    if start[kept[0]] >= ROW_GAP * pitch:  # cards before the first strip found
        edges = [0.0] + edges
        new_at.append(0.0)
    for a0, a1 in zip(edges[:-1], edges[1:]):
        k = int(round((a1 - a0) / pitch)) - 1
        if a1 - a0 >= ROW_GAP * pitch and k >= 1:
            new_at += [a0 + (a1 - a0) * (j + 1) / (k + 1) for j in range(k)]
    if not new_at and keep.all():
        return None
    if _DEBUG:
        o = np.argsort(start)
        print("row slots: length", round(length), "card", round(card_len), "top", round(lo[top]), round(size[top]),
              "starts", np.round(start[o]).astype(int).tolist(), "pitch", round(pitch, 1),
              "dropped", int((~keep).sum()), "added", [round(x) for x in new_at], file=sys.stderr)
    add = []
    c0 = np.array([cx, cy])
    for a0 in new_at:
        a1 = a0 + pitch
        if end == "start":
            a0, a1 = length - a1, length - a0
        a0, a1 = a0 - length / 2, a1 - length / 2
        add.append([c0 + a0 * u - thick / 2 * v, c0 + a1 * u - thick / 2 * v,
                    c0 + a1 * u + thick / 2 * v, c0 + a0 * u + thick / 2 * v])
    return keep, np.array(add, np.float32).reshape(-1, 4, 2)


def _recount_rows(learned: list[tuple], comps: list[dict], card_wh: tuple[float, float],
                  raw: np.ndarray) -> list[tuple]:
    """:func:`_row_slots` on every spread at least 0.8 of its least rectangle: ``learned`` (the
    audit's ``(owner, quad, spread label, ink)`` strips) with the extra strips of such rows
    dropped and the missing ones added (owners read on ``raw``, the strips' colour map)."""
    out = list(learned)
    for c in comps:
        if c["rect_fill"] < 0.8:
            continue
        idx = [k for k, e in enumerate(out) if e[2] == c["i"]]
        if len(idx) < 4:
            continue
        found = _row_slots(np.array([out[k][1] for k in idx], np.float64), c["rect"], card_wh)
        if found is None:
            continue
        keep, add = found
        if _DEBUG:
            print("row", c["i"], "strips", len(idx), "->", int(keep.sum()) + len(add), file=sys.stderr)
        drop = {k for k, kk in zip(idx, keep) if not kk}
        out = [e for k, e in enumerate(out) if k not in drop]
        out += [(int(o), q, c["i"], None) for o, q in zip(strip_owners(add, raw), add)]
    return out


def _fan_like(comps: list[dict], card_wh: tuple[float, float]) -> list[dict]:
    """The classical spreads (:func:`audit`'s connected components of back colours) that look
    like fans: more than 0.6 of a card's area (a patterned back shows less of its colour), at
    least 0.85 of their convex hull (heaps fill less), under 0.86 of their least rectangle (rows
    and single cards fill more) and under 1.6 times as long as wide (rows are longer). Dev audit
    scenes 0-19 and 100-119: 74 of the 85 fans that are spreads of their own (8 of the others
    one or two cards), 4 of 78 heaps, 3 of 234 rows."""
    out = []
    for c in comps:
        rw, rh = c["size"]
        if (c["area"] > 0.6 * card_wh[0] * card_wh[1] and c["solidity"] >= 0.85
                and c["rect_fill"] < 0.86 and max(rw, rh) < 1.6 * max(min(rw, rh), 1.0)):
            out.append(c)
    return out


def _zoom_fans(det: StripDetector, img: np.ndarray, comps: list[dict], cc: np.ndarray,
               card_wh: tuple[float, float], quads: np.ndarray, cls: np.ndarray,
               weak: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The strip detector run again, :data:`FAN_ZOOM` times larger, on each fan-like spread
    (:func:`_fan_like`): its ``back`` strips and weak boxes there (centre on the spread's
    pixels, ``cc`` the components' label image ``(H, W) int32``) replace the first run's.
    ``quads (N, 4, 2)``, ``cls (N,)``, ``weak (M, 4, 2)`` image pixels; returns the same."""
    h, w = cc.shape
    def on(qs: np.ndarray, i: int) -> np.ndarray:
        if not len(qs):
            return np.zeros(0, bool)
        ci = np.clip(np.round(qs.mean(axis=1)).astype(int), 0, [w - 1, h - 1])
        return cc[ci[:, 1], ci[:, 0]] == i
    for c in _fan_like(comps, card_wh):
        x, y, bw, bh = c["box"]
        m = 0.15 * card_wh[1]
        q2, _, cls2, wq2, _ = det.with_candidates(img, (x - m, y - m, x + bw + m, y + bh + m),
                                                  card_long=card_wh[1], weak=min(FAN_FILL_WEAK, det.conf),
                                                  zoom=FAN_ZOOM)
        drop = (cls == 1) & on(quads, c["i"])
        new = (cls2 == 1) & on(q2, c["i"])
        quads = np.concatenate([quads[~drop], q2[new]]).astype(np.float32)
        cls = np.concatenate([cls[~drop], cls2[new]])
        weak = np.concatenate([weak[~on(weak, c["i"])], wq2[on(wq2, c["i"])]]).astype(np.float32)
    return quads, cls, weak


def _without_white(img: np.ndarray, quads: np.ndarray, least: float = 0.005) -> np.ndarray:
    """``(N,) bool``: the strips (``(N, 4, 2)`` image pixels) of which under ``least`` of the
    pixels are near white (L* over 75, chroma under 12 in OpenCV's 8-bit CIELAB): no card
    border and no pale pattern, as a sleeve, an arm or a box shows (:data:`UNKNOWN_NEEDS_WHITE`)."""
    out = np.zeros(len(quads), bool)
    for i, q in enumerate(quads):
        whole = strip_middle(q, img.shape, 1.0)
        if whole is None:
            continue
        x0, y0, m = whole
        lab = cv2.cvtColor(img[y0:y0 + m.shape[0], x0:x0 + m.shape[1]], cv2.COLOR_BGR2LAB)[m > 0].astype(np.float32)
        if not len(lab):
            continue
        white = (lab[:, 0] > 191) & (np.hypot(lab[:, 1] - 128, lab[:, 2] - 128) < 12)
        out[i] = white.mean() < least
    return out


def _fan_top_end(phi: np.ndarray, theta_on: np.ndarray, step: float,
                 theta_top: float) -> tuple[float, float] | None:
    """The stretch of a fan's circle between its last found wedge and the place of the wedge
    its whole top card would show: ``(end, place)`` in the angles of ``phi`` (degrees), or None.

    Every card of a fan is the one before turned by one step, so a wedge's place on the circle
    (``phi``) less its box's direction (``theta_on``, the long side, degrees mod 180) is the same
    for all; the top card's box direction (``theta_top``) then says where its own wedge would
    lie, when the wedges' boxes lie along their cards' long sides (a half turn either way); a
    place between 1.5 and 15 steps beyond one end of the fan (at most 85 degrees) is taken."""
    d = np.radians(2 * ((phi - theta_on) % 180))  # doubled: a mean on the circle mod 180
    mean = complex(np.cos(d).mean(), np.sin(d).mean())
    if abs(mean) < 0.9:
        return None  # the wedges' places and directions do not move together
    offset = math.degrees(math.atan2(mean.imag, mean.real)) / 2
    best = None
    for end, sign in ((phi[-1], 1.0), (phi[0], -1.0)):
        for m in range(2):
            place = theta_top + offset + 180 * m
            ahead = ((place - end) * sign) % 360
            if 1.5 * step <= ahead <= min(15 * step, 85.0) and (best is None or ahead < best[0]):
                best = (ahead, (float(end), float(end + sign * ahead)))
    return best[1] if best is not None else None


def _fan_pivot(pts: np.ndarray, card_h: float) -> tuple[np.ndarray, float] | None:
    """The point a fan turns about, and the fan's outer radius: the point from which the
    farthest part of the outline (the arc of the cards' outer ends) is most nearly at one
    distance (grid search, then a finer one around the best)."""
    c0 = pts.mean(axis=0)
    best = (np.inf, None, 0.0)
    for span, steps, centre in ((1.2 * card_h, 25, c0), (0.12 * card_h, 13, None)):
        if centre is None:
            if best[1] is None:
                return None
            centre = best[1]
        g = np.linspace(-span, span, steps)
        for dx in g:
            for dy in g:
                p = centre + (dx, dy)
                d = np.hypot(*(pts - p).T)
                far = np.sort(d)[int(0.6 * len(d)):]
                if far.mean() < 0.6 * card_h:
                    continue
                score = far.std() / far.mean()
                if score < best[0]:
                    best = (score, p, float(far.mean()))
    if best[1] is None or best[0] > 0.08:
        return None
    return best[1], best[2]


def _count_fan(light_map: np.ndarray, labels: np.ndarray, comp_mask: np.ndarray, card_wh) -> list | None:
    """Count a fan: unroll it around its pivot (polar image, angle along x) and find the
    cards' edges crossing the outer band, as in a row. None if no pivot is found."""
    cnts, _ = cv2.findContours(comp_mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not cnts:
        return None
    pts = max(cnts, key=cv2.contourArea).reshape(-1, 2).astype(np.float64)
    if len(pts) > 600:
        pts = pts[:: len(pts) // 600 + 1]
    piv = _fan_pivot(pts, card_wh[1])
    if piv is None:
        return None
    (px, py), R = piv
    R = 1.08 * R
    na = 720  # half-degree steps
    nr = max(16, int(R))
    flags = cv2.WARP_POLAR_LINEAR + cv2.INTER_NEAREST
    size = (nr, na)
    lt = cv2.warpPolar(light_map, size, (px, py), R, flags).T  # (nr, na): radius down, angle across
    lab = cv2.warpPolar(labels, size, (px, py), R, flags).T
    msk = cv2.warpPolar(comp_mask, size, (px, py), R, flags).T
    r0, r1 = int(0.55 * nr / 1.08), int(0.95 * nr / 1.08)
    band_m = msk[r0:r1] > 0
    occ = band_m.mean(axis=0) > 0.3
    if occ.sum() < 10 or occ.all():
        return None
    # start the angle axis in the largest empty gap
    empty = ~occ
    k0 = int(np.argmax(empty))
    roll = (k0 + int(np.argmax(np.roll(empty, -k0) == 0))) % na
    lt, lab, msk, occ = (np.roll(a, -roll, axis=-1) for a in (lt, lab, msk, occ))
    on = np.nonzero(occ)[0]
    xa, xb = float(on[0]), float(on[-1])
    gap = 4.0 / 0.5  # 4 degrees
    # the edges curve in the polar image (a card's side passes beside the pivot), so count
    # the bright crossings along each radius of the outer band and keep the median
    rb0, rb1 = int(0.68 * nr / 1.08), int(0.93 * nr / 1.08)
    per_row = []
    for r in range(rb0, rb1):
        row_on = np.nonzero(msk[r] > 0)[0]
        if len(row_on) < 4:
            continue
        a, b = row_on[0], row_on[-1]
        runs = _runs(cv2.dilate(lt[r:r + 1], np.ones((1, 3), np.uint8))[0].astype(np.float32), 0.5)
        pos = []
        for u, v in runs:
            c = 0.5 * (u + v)
            if a + gap < c < b - gap and (not pos or c - pos[-1] >= gap):
                pos.append(c)
        per_row.append(pos)
    if not per_row:
        return None
    counts = np.array([len(p) for p in per_row])
    med = int(np.round(np.median(counts)))
    cands = per_row[len(per_row) // 2:] + per_row
    pick = min(cands, key=lambda p: abs(len(p) - med))  # the first with the median count
    bounds = [xa] + list(pick) + [xb]
    r0, r1 = rb0, rb1
    if _DEBUG:
        _DUMP.append((lt[r0:r1].copy(), xa, xb, 0.0, np.array(bounds), len(bounds) - 1))
    out = []
    band_lab = lab[r0:r1]
    for k in range(len(bounds) - 1):
        s0, s1 = bounds[k], bounds[k + 1]
        a0, a1 = int(s0 + 0.3 * (s1 - s0)), int(math.ceil(s0 + 0.7 * (s1 - s0)))
        vals = band_lab[:, max(a0, 0):max(a1, a0 + 1)]
        th = np.deg2rad(((np.array([s0, s1]) + roll) % na) * 0.5)
        rr = np.array([0.5, 0.95]) * R / 1.08
        q = np.array([[px + rr[0] * np.cos(th[0]), py + rr[0] * np.sin(th[0])],
                      [px + rr[1] * np.cos(th[0]), py + rr[1] * np.sin(th[0])],
                      [px + rr[1] * np.cos(th[1]), py + rr[1] * np.sin(th[1])],
                      [px + rr[0] * np.cos(th[1]), py + rr[0] * np.sin(th[1])]], np.float32)
        out.append((_mode(vals), q, "fan"))
    return out


_DETECTOR: StripDetector | None = None


def _check_in_view(shared_area: np.ndarray, w: int, h: int, most_out: float = 0.1) -> None:
    """Raise :class:`AuditError` when more than ``most_out`` of the shared area (``(K, 2)``
    image pixels) lies outside a ``w`` x ``h`` image: a table file made for another camera or
    another resolution (its polygons are in that camera's pixels)."""
    area = abs(cv2.contourArea(shared_area.astype(np.float32)))
    if area < 1.0:
        return  # (a degenerate polygon: the table file's own validation speaks for it)
    lo = np.floor(np.minimum(shared_area.min(axis=0), 0)).astype(int)
    hi = np.ceil(np.maximum(shared_area.max(axis=0), (w, h))).astype(int)
    k = max(1.0, float(max(hi - lo)) / 2000.0)  # rasterised at most 2000 pixels a side
    size = (int((hi[1] - lo[1]) / k) + 2, int((hi[0] - lo[0]) / k) + 2)
    mask = np.zeros(size, np.uint8)
    cv2.fillPoly(mask, [np.round((shared_area - lo) / k).astype(np.int32)], 1)
    x0, y0 = np.round(-lo / k).astype(int)
    inside = int(mask[y0:y0 + int(round(h / k)), x0:x0 + int(round(w / k))].sum())
    out = 1.0 - inside / max(int(mask.sum()), 1)
    if out > most_out:
        raise AuditError(f"{100 * out:.0f} % of the table file's shared area lies outside this {w}x{h} image "
                         "(a table file made for another camera or another resolution?)")


def fit_table(table: Table, w: int, h: int, most_aspect: float = 0.02) -> Table:
    """``table`` with its polygons (image pixels) scaled to a ``w`` x ``h`` photo when the table
    file was calibrated on frames of another size with the same shape
    (:func:`~nertz.vision.sources.calibrated_size`;
    a camera's still at a higher resolution than its video, a photo resized): the polygons
    are in the calibration frames' pixels. The table itself when the sizes agree or the file
    does not say.

    Raises:
        AuditError: the photo's width-to-height ratio differs from the calibration frames' by
            more than ``most_aspect`` (relative): another camera or a cropped photo, whose
            pixels the table's polygons do not describe.
    """
    size = calibrated_size(table)
    if size is None or size == (w, h):
        return table
    cw, ch = size
    if abs((w / h) / (cw / ch) - 1.0) > most_aspect:
        raise AuditError(f"the table file was calibrated on {cw}x{ch} frames and this photo is {w}x{h}, another "
                         "shape: take the photo with the camera the table was calibrated with, uncropped, or "
                         "calibrate again on this camera (nertz calibrate)")
    sx, sy = w / cw, h / ch
    data = table.to_dict()
    if data.get("shared_area") is not None:
        data["shared_area"] = [[x * sx, y * sy] for x, y in data["shared_area"]]
    data["zones"] = {n: [[x * sx, y * sy] for x, y in poly] for n, poly in data.get("zones", {}).items()}
    data["calibration"] = {**data.get("calibration", {}), "frame_size": [w, h]}
    return Table.from_dict(data)


def _default_detector() -> StripDetector:
    """The shipped strip detector, loaded once (:data:`nertz.vision.audit_strips.STRIPS_ONNX`)."""
    global _DETECTOR
    if _DETECTOR is None:
        _DETECTOR = StripDetector(STRIPS_ONNX)
    return _DETECTOR


def _resolve_method(method: str, detector: StripDetector | None) -> str:
    """``auto`` -> :data:`AUTO_METHOD` when a detector is given or shipped, else ``classical``.

    Raises:
        AuditError: an unknown method, or a learned one without a model.
    """
    if method not in METHODS:
        raise AuditError(f"unknown audit method {method!r}; choose from {METHODS}")
    have = detector is not None or STRIPS_ONNX.is_file()
    if method == "auto":
        return AUTO_METHOD if have else "classical"
    if method != "classical" and not have:
        raise AuditError(f"the {method} audit needs the strip detector {STRIPS_ONNX} "
                         "(train it with `nertz train audit`)")
    return method


def _mode(v: np.ndarray) -> int:
    v = np.asarray(v).ravel()
    v = v[v > 0]
    if len(v) == 0:
        return 0
    return int(np.bincount(v).argmax())


def audit(image: np.ndarray, table: Table | dict, method: str = "auto",
          detector: "StripDetector | None" = None) -> AuditResult:
    """Count the face-down cards of each registered back in a photo of the table.

    Args:
        image: ``(H, W, 3) uint8`` BGR (any size; 1920 x 1080 is the intended one).
        table: a :class:`~nertz.referee.table.Table` or table-file dict (players' back
            colours; ``shared_area`` and ``zones`` in image pixels, ``zones`` optional: without
            zones every card counts for the shared area; scaled to the photo when the file was
            calibrated on frames of another size, :func:`fit_table`).
        method: one of :data:`METHODS` (default ``auto``).
        detector: a :class:`~nertz.vision.audit_strips.StripDetector` to use instead of the
            shipped one (``models/audit_strips.onnx``).

    Returns:
        an :class:`AuditResult`.

    Raises:
        AuditError: a table with no shared area (a scoring-only table file: every back in the
            photo, the players' Nertz cards too, would count as foundations), a bad image, no
            face-down card of any registered back in it, an unknown method, a learned method without the model, or a photo of another shape than
            the frames the table was calibrated on (:func:`fit_table`).
        nertz.referee.errors.TableError: a table dict that does not validate.
        nertz.vision.detect.ModelError: the strip detector's file is broken.
    """
    t = table if isinstance(table, Table) else Table.from_dict(table)
    if t.shared_area is None:
        raise AuditError("the table file has no shared area: the audit counts the foundations' backs in it "
                         "(without it every back in the photo, the players' Nertz cards too, would count as "
                         "foundations); add \"shared_area\" and each player's \"zones\" (nertz calibrate "
                         "--source S --out table.json writes them, as does the web page's camera tab)")
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise AuditError("the image must be (H, W, 3) uint8 BGR")
    h, w = image.shape[:2]
    if h < 36 or w < 64:
        raise AuditError(f"the image is too small to audit ({w}x{h})")
    t = fit_table(t, w, h)
    names = t.names
    blurred = cv2.GaussianBlur(image, (0, 0), 0.8)
    wb_gain = _wb_gain(blurred, t)
    smooth = blurred if wb_gain is None else _apply_gain(blurred, wb_gain)
    light = _light_map(smooth)
    if t.shared_area is not None:
        _check_in_view(np.asarray(t.shared_area, np.float64), w, h)
    labels, card, region, table_px, raw = _back_map(smooth, t, light)
    labs = np.array([hex_to_lab(p.back) for p in t.players], np.float64)
    scale = math.sqrt(h * w / (1920 * 1080))
    ko = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    kc = max(3, int(round(9 * scale)) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (kc, kc))
    closed = cv2.morphologyEx(card, cv2.MORPH_OPEN, ko)
    closed = cv2.morphologyEx(closed, cv2.MORPH_CLOSE, kernel)
    lab_all = labels
    ncomp, cc, stats, _ = cv2.connectedComponentsWithStats(closed, connectivity=8)
    comps = []
    min_area = 120.0 * scale * scale
    for i in range(1, ncomp):
        area = float(stats[i, cv2.CC_STAT_AREA])
        if area < min_area:
            continue
        x, y, bw, bh = stats[i, :4]
        sub = (cc[y:y + bh, x:x + bw] == i).astype(np.uint8)
        if (labels[y:y + bh, x:x + bw][sub > 0] > 0).mean() < 0.25:
            continue  # white or pale only: a face-up card, a score pad, glare
        pts = cv2.findNonZero(sub)
        rect = cv2.minAreaRect(pts + np.array([[x, y]]))
        rw, rh = rect[1]
        hull = cv2.convexHull(pts)
        solidity = area / max(cv2.contourArea(hull), 1.0)
        comps.append({"i": i, "area": area, "rect": rect, "size": (rw, rh), "solidity": solidity,
                      "rect_fill": area / max(rw * rh, 1.0), "box": (x, y, bw, bh)})
    method = _resolve_method(method, detector)
    learned: list[tuple] = []  # (player index + 1 or 0, quad, component label, ink or None)
    faces = None  # the strip detector's face-up cards, (F, 4, 2), with a learned method
    card_wh = _card_scale(comps) if comps else None
    if method != "classical":
        det = detector if detector is not None else _default_detector()
        ys, xs = np.nonzero(region)
        area = (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1)
        long_side = card_wh[1] if card_wh is not None else None
        if hasattr(det, "with_candidates"):
            quads, _, cls, weak_quads, _ = det.with_candidates(smooth, area, card_long=long_side,
                                                               weak=min(FAN_FILL_WEAK, det.conf))
        else:  # a detector without weak boxes (a test's)
            quads, _, cls = det(smooth, area, card_long=long_side)
            weak_quads = np.zeros((0, 4, 2), np.float32)
        if FAN_ZOOM != 1 and card_wh is not None and hasattr(det, "with_candidates"):
            quads, cls, weak_quads = _zoom_fans(det, smooth, comps, cc, card_wh, quads, cls, weak_quads)
        hands = quads[cls == 2]
        faces = quads[cls == 0]
        quads = quads[cls == 1]
        ctr = quads.mean(axis=1) if len(quads) else np.zeros((0, 2))
        ci = np.clip(np.round(ctr).astype(int), 0, [w - 1, h - 1]) if len(quads) else np.zeros((0, 2), int)
        inside = region[ci[:, 1], ci[:, 0]] > 0 if len(quads) else np.zeros(0, bool)
        quads, ci, ctr = quads[inside], ci[inside], ctr[inside]
        inks = _strip_inks(blurred, quads, 0.35)  # for the light's fit and the arm test
        og = _owner_gain(blurred, quads, labs, wb_gain, inks=inks)
        if wb_gain is not None and not np.allclose(og, wb_gain):
            raw = _strip_colour_map(_apply_gain(blurred, og), labs)
        owners = strip_owners(quads, raw)
        # a "back" on a hand found by the model is a sleeve or skin (HAND_DROPS_ALL)
        on_hand = np.array([any(cv2.pointPolygonTest(hq.astype(np.float32), (float(x), float(y)), False) >= 0
                                for hq in hands) for x, y in ctr], bool).reshape(-1)
        keep = ~on_hand if HAND_DROPS_ALL else (owners > 0) | ~on_hand
        if len(hands) and len(quads) and card_wh is not None:  # an arm beyond the hand box
            keep &= ~_skin_strips(blurred, quads, hands, labs, og, card_wh[1], inks=inks)
        counted = keep.copy()
        if UNKNOWN_NEEDS_WHITE:  # only the kept strips of no registered colour are looked at
            unknown_kept = np.nonzero(keep & (owners == 0))[0]
            counted[unknown_kept[_without_white(blurred, quads[unknown_kept])]] = False
        fans = _fan_circles(quads[keep], card_wh[1]) if card_wh is not None else []  # once, for both
        if FAN_STRAY_INSIDE is not None and card_wh is not None:  # boxes across a fan's hub
            kept = np.flatnonzero(keep)
            counted[kept[_fan_strays(quads[kept], card_wh[1], fans=fans)]] = False
        ink_lab = _bgr_to_lab(np.nan_to_num(inks) * og) if len(quads) else np.zeros((0, 3))
        ink_of = [None if np.isnan(i).any() else lab for i, lab in zip(inks, ink_lab)]  # Strip.ink
        learned = [(int(o), q, int(cc[y, x]), ink) for o, q, (x, y), k, ink
                   in zip(owners, quads, ci, counted, ink_of) if k]
        if FAN_FILL_WEAK < 1 and len(weak_quads) and card_wh is not None:
            add = weak_quads[_fan_gaps(quads[keep], weak_quads, card_wh[1], fans=fans)]
            wc = (np.clip(np.round(add.mean(axis=1)).astype(int), 0, [w - 1, h - 1]) if len(add)
                  else np.zeros((0, 2), int))
            learned += [(int(o), q, int(cc[y, x]), None) for o, q, (x, y) in zip(strip_owners(add, raw), add, wc)]
        if ROW_RECOUNT and card_wh is not None:
            learned = _recount_rows(learned, comps, card_wh, raw)
    if not comps and not learned:
        raise AuditError("no face-down card of any registered back colour found in the image "
                         "(is it a photo of the table, and is the table file the right one?)")
    if card_wh is None:  # backs found by the model only: the largest visible parts are whole cards
        ar = sorted(cv2.contourArea(q) for _, q, _, _ in learned)
        hh = math.sqrt(ar[int(0.9 * (len(ar) - 1))] * 88 / 63)
        card_wh = (hh * 63 / 88, hh)
    card_area = card_wh[0] * card_wh[1]
    grey = cv2.cvtColor(smooth, cv2.COLOR_BGR2GRAY)
    found_all: list[tuple] = []  # (player + 1, quad, how, spread, ink)
    comp_of = {c["i"]: si for si, c in enumerate(comps)}
    used = set()  # component labels whose count is the model's
    for si, c in enumerate(comps):
        if method == "learned" or c["area"] < 0.3 * card_area:
            continue  # (classical: a scrap: a sleeve, a mark, a back colour in the cloth)
        x, y, bw, bh = c["box"]
        cm = np.zeros((h, w), np.uint8)
        cm[y:y + bh, x:x + bw] = (cc[y:y + bh, x:x + bw] == c["i"])
        found = None
        rw, rh = c["size"]
        sh = min(rw, rh)
        if c["rect_fill"] >= 0.8 and (abs(sh - card_wh[1]) < 0.3 * card_wh[1] or abs(sh - card_wh[0]) < 0.3 * card_wh[0]):
            found = _count_row(grey, light, lab_all, cm, c["rect"], card_wh)
        kind = "row" if found is not None else None
        if found is None and c["solidity"] >= FAN_SOLIDITY:
            found = _count_fan(light, lab_all, cm, card_wh)
            kind = "fan" if found is not None else None
        if found is None and c["area"] > _MAX_HEAP_CARDS * card_area:
            continue  # larger than any heap: a cloth pattern in a back's colour, not cards
        if found is None:
            per = FAN_AREA_PER_CARD if c["solidity"] >= FAN_SOLIDITY else HEAP_AREA_PER_CARD
            kind = "fan" if per == FAN_AREA_PER_CARD else "heap"
        if method == "hybrid" and kind in LEARNED_KINDS:
            used.add(c["i"])
            continue
        if found is None:
            n = max(1, int(round((c["area"] - card_area) / (per * card_area))) + 1)
            if c["area"] < 1.1 * card_area:
                n = 1
            vals = lab_all[y:y + bh, x:x + bw][cm[y:y + bh, x:x + bw] > 0]
            hist = np.bincount(vals[vals > 0], minlength=len(names) + 2)[1:].astype(np.float64)
            share = hist / max(hist.sum(), 1) * n
            alloc = np.floor(share).astype(int)
            for k in np.argsort(-(share - alloc))[: n - alloc.sum()]:
                alloc[k] += 1
            box = cv2.boxPoints(c["rect"]).astype(np.float32)
            found = [(k + 1, box, kind) for k in range(len(alloc)) for _ in range(alloc[k])]
        if _DEBUG:
            print("spread", si, "rect", [round(v) for v in (*c["rect"][0], *c["rect"][1], c["rect"][2])],
                  "fill", round(c["rect_fill"], 2), "n", len(found), found[0][2] if found else None, file=sys.stderr)
        found_all += [(lab, quad, how, si, None) for lab, quad, how in found]
    for k, (lab, quad, comp, ink) in enumerate(learned):
        if method == "learned" or comp in used or (comp not in comp_of and LOOSE_STRIPS):
            # a strip in no classical spread is a spread of its own
            found_all.append((lab, quad.astype(np.float32), "model", comp_of.get(comp, len(comps) + k), ink))
    strips: list[Strip] = []
    zone_masks = {z: _poly_mask((h, w), poly) for z, poly in t.zones.items()}
    for lab, quad, how, si, ink in found_all:
        owner = names[lab - 1] if 1 <= lab <= len(names) else UNKNOWN
        cxy = quad.mean(axis=0)
        px, py = int(np.clip(cxy[0], 0, w - 1)), int(np.clip(cxy[1], 0, h - 1))
        where = "shared"
        for z, zm in zone_masks.items():
            if zm[py, px]:
                where = z
                break
        strips.append(Strip(owner, quad, where, si, how, ink))
    counts = {n: 0 for n in names}
    zones: dict[str, dict[str, int]] = {z: {} for z in t.zones}
    unknown = 0
    for s in strips:
        if s.owner == UNKNOWN:
            unknown += 1
            if s.where != "shared":
                zones[s.where][UNKNOWN] = zones[s.where].get(UNKNOWN, 0) + 1
            continue
        if s.where == "shared":
            counts[s.owner] += 1
        else:
            zones[s.where][s.owner] = zones[s.where].get(s.owner, 0) + 1
    if faces is None:
        face_up = _face_up(smooth, closed, table_px, region, card_area)
    elif t.shared_area is not None:  # the strip detector's own face boxes in the shared area
        sa = np.asarray(t.shared_area, np.float32).reshape(-1, 1, 2)
        face_up = sum(cv2.pointPolygonTest(sa, (float(x), float(y)), False) >= 0 for x, y in faces.mean(axis=1))
    else:
        face_up = len(faces)
    return AuditResult(counts, zones, unknown, face_up, strips, (float(card_wh[0]), float(card_wh[1])))


def _face_up(img: np.ndarray, backs: np.ndarray, table_px: np.ndarray, region: np.ndarray,
             card_area: float) -> int:
    """Face-up cards: white, card-sized, card-shaped regions that are not the table's colour
    and not part of a spread of backs."""
    mx = img.max(axis=2).astype(np.int16)
    mn = img.min(axis=2).astype(np.int16)
    white = (mx > 150) & ((mx - mn) < 0.25 * mx) & ~table_px & (region > 0)
    white &= cv2.dilate(backs, np.ones((7, 7), np.uint8)) == 0
    m = cv2.morphologyEx(white.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
    m = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    n, cc, st, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
    count = 0
    for i in range(1, n):
        a = float(st[i, cv2.CC_STAT_AREA])
        if not 0.6 * card_area <= a <= 1.6 * card_area:
            continue
        x, y, bw, bh = st[i, :4]
        pts = cv2.findNonZero((cc[y:y + bh, x:x + bw] == i).astype(np.uint8))
        (_, _), (rw, rh), _ = cv2.minAreaRect(pts)
        r = max(rw, rh) / max(min(rw, rh), 1.0)
        if a / max(rw * rh, 1.0) > 0.8 and 1.2 <= r <= 1.6:
            count += 1
    return count


BACK_FOUND_CONF = 0.25
"""The least confidence of the card detector's ``back`` box that counts as a face-down card
found (:func:`check_face_down`). Rendered audit scenes 10900-10939 (2026-12-07): at 0.5 one of
40 (seed 10917, 78 backs in 6 spreads) had none, its best box at 0.37; photos with no back
(face-up cards on wood or felt, noise) have none over 0.15."""


DETECTOR_SIDE = 640
"""The card detector's input size, pixels on the longer side (``CardRecognizer``'s default
``imgsz``): a photo smaller than that is enlarged for it, its cards blurred, and one in which
it then finds no face-down card is refused as too small (:func:`check_face_down`), not as a
photo of something else (rendered audit photos at 320 x 180, cards about 9 px wide: none
found in some; at 640 x 360, cards about 18 px wide: found)."""


def _detector_counts(image: np.ndarray | Sequence[np.ndarray], table: Table, conf: float) -> tuple[int, int]:
    """The shipped card detector's (``models/cards_obb.onnx``, detection only) face-up cards
    with at least ``conf`` confidence whose centre lies in the table's shared area (the whole
    image without one), and its face-down cards anywhere in the image with at least
    :data:`BACK_FOUND_CONF`; each the median over the frames of ``image`` (one
    ``(H, W, 3) uint8`` BGR image, or several of the same table).

    Raises:
        nertz.vision.detect.ModelError: the detector's file is missing or broken.
        AuditError: a frame of another shape than the table's calibration (:func:`fit_table`).
    """
    from .detect import CardRecognizer

    images = [image] if isinstance(image, np.ndarray) else list(image)
    recognizer = CardRecognizer(classifier=None, identifier=None, strips=None, conf=min(conf, BACK_FOUND_CONF))
    faces_in, backs = [], []
    for img in images:
        fitted = fit_table(table, img.shape[1], img.shape[0])
        area = np.asarray(fitted.shared_area, np.float32).reshape(-1, 1, 2) if fitted.shared_area is not None else None
        det = recognizer.detect(img)
        backs.append(int(((det.class_id == 1) & (det.confidence >= BACK_FOUND_CONF)).sum()))
        faces = det.boxes[(det.class_id == 0) & (det.confidence >= conf)]
        if area is None or not len(faces):
            faces_in.append(int(len(faces)))
            continue
        centres = ((faces[:, :2] + faces[:, 2:]) / 2).astype(np.float32)
        faces_in.append(int(sum(cv2.pointPolygonTest(area, (float(x), float(y)), False) >= 0 for x, y in centres)))
    if not images:
        return 0, 0
    return int(np.median(faces_in)), int(np.median(backs))


def face_up_in_shared_area(image: np.ndarray | Sequence[np.ndarray], table: Table, conf: float = 0.5) -> int:
    """Face-up cards the shipped card detector (``models/cards_obb.onnx``, detection only) finds
    with at least ``conf`` confidence whose centre lies in the table's shared area (the whole
    image without one): a photo for the audit shows the foundations turned face down, so many
    of them mean a photo taken during play, or of another table.

    Args:
        image: ``(H, W, 3) uint8`` BGR, or several frames of the same table (the median of
            their counts, as :func:`audit_frames` keeps the median of the back counts).
        table: the table file (``shared_area`` in image pixels).

    Raises:
        nertz.vision.detect.ModelError: the detector's file is missing or broken.
        AuditError: a frame of another shape than the table's calibration (:func:`fit_table`).
    """
    return _detector_counts(image, table, conf)[0]


def check_face_down(image: np.ndarray | Sequence[np.ndarray], table: Table, res: AuditResult) -> None:
    """Refuse a photo that is no end-of-round back count: one in which the shipped card detector
    finds no face-down card at all (a photo of something else: the audit's colour reading then
    counts table grain, card art or noise as backs; four face-up kings on a wooden table were
    counted 23 red backs; when the photo is under :data:`DETECTOR_SIDE` pixels on its longer
    side, the refusal says it is too small instead), or with more face-up cards in the shared area
    (:func:`face_up_in_shared_area`) than 5 and than the backs counted there. Each count is
    the median over the frames of a video. Then a greyscale photo (or a frame of a video:
    :func:`nertz.vision.detect.is_greyscale`) is refused: the backs' colours, which say whose
    card each is, cannot be told apart in it, so its counts would score the wrong players
    (refused rather than warned about: a count is what scores the round).

    Raises:
        AuditError: what the photo shows, and what to photograph instead.
    """
    faces, found = _detector_counts(image, table, 0.5)
    backs = sum(res.counts.values()) + res.unknown
    frames = [image] if isinstance(image, np.ndarray) else list(image)
    if found == 0 and frames and max(frames[0].shape[:2]) < DETECTOR_SIDE:
        h, w = frames[0].shape[:2]
        raise AuditError(f"the photo is only {w}x{h} pixels, too small for the card detector, which finds no "
                         f"face-down card in it: take it at least {DETECTOR_SIDE} pixels on its longer side "
                         "(1920x1080 is the size the audit is made for), with the table's cards filling the view")
    if found == 0:
        raise AuditError("the card detector finds no face-down card in the photo: not a photo of the round's end "
                         "(take it after the call, with the foundations turned face down and spread, and each "
                         "player's Nertz cards spread in their zone)")
    if faces > max(5, backs):
        raise AuditError(f"the photo shows {faces} face-up cards in the shared area and only {backs} "
                         "face-down: not a photo of the round's end (take it after the call, with the "
                         "foundations turned face down and spread)")
    from .detect import is_greyscale

    if any(is_greyscale(f) for f in frames):
        raise AuditError("the photo is greyscale: the backs' colours, which say whose card each is, cannot be "
                         "told apart in it (take a colour photo, or give the counts by hand)")


# ------------------------------------------------------------------------------------------
# several frames, and the command line
def _load_photo(path: str | Path) -> np.ndarray:
    """The audit's photo, ``(H, W, 3) uint8`` BGR (:func:`~nertz.vision.detect.load_image`).

    Raises:
        ImageError: as ``load_image``; for a video file, with the hint to give it as ``--source``.
    """
    from .detect import ImageError, load_image
    try:
        return load_image(path)
    except ImageError:
        cap = cv2.VideoCapture(str(path))
        try:
            is_video = cap.isOpened() and cap.read()[0]
        finally:
            cap.release()
        if is_video:
            raise ImageError(f"{path}: a video, not a photo: give it as --source {path} "
                             "(the audit counts its first 5 frames, 0.5 s apart)") from None
        raise


def _frames_from_source(source: str, max_frames: int = 5, step_s: float = 0.5) -> list[np.ndarray]:
    """Up to ``max_frames`` frames, ``step_s`` seconds apart, from a folder of images (sorted
    by name), a video file or stream URL, or a webcam index.

    Raises:
        AuditError: nothing could be read.
    """
    from .detect import ImageError, load_image

    p = Path(source)
    frames: list[np.ndarray] = []
    if p.is_dir():
        files = sorted(f for f in p.iterdir() if f.suffix.lower() in (".png", ".jpg", ".jpeg", ".bmp", ".webp"))
        for f in files[:max_frames]:
            try:
                frames.append(load_image(f))
            except ImageError:
                continue
    else:
        cap = cv2.VideoCapture(int(source) if source.isdigit() else source)
        try:
            if not cap.isOpened():
                raise AuditError(f"cannot open the source {source!r} (a webcam index, a video file, "
                                 f"a stream URL or a folder of images)")
            fps = cap.get(cv2.CAP_PROP_FPS) or 30.0
            every = max(1, int(round(step_s * fps)))
            k = 0
            while len(frames) < max_frames:
                ok, fr = cap.read()
                if not ok:
                    break
                if k % every == 0:
                    frames.append(fr)
                k += 1
        finally:
            cap.release()
    if not frames:
        raise AuditError(f"no frame could be read from {source!r}")
    return frames


def audit_frames(frames: list[np.ndarray], table: Table | dict, method: str = "auto") -> AuditResult:
    """Audit several frames of the same table (a few seconds of video) and keep, for every
    count, the median over the frames (a hand passing over one frame does not change it).
    The strips are those of the frame whose counts are closest to the medians.

    Raises:
        AuditError: no frame could be audited.
    """
    results = []
    err: AuditError | None = None
    for f in frames:
        try:
            results.append(audit(f, table, method))
        except AuditError as e:
            err = e
    if not results:
        raise err if err is not None else AuditError("no frame to audit")
    if len(results) == 1:
        return results[0]

    def med(vals: list[int]) -> int:
        return int(np.round(np.median(vals)))

    counts = {p: med([r.counts[p] for r in results]) for p in results[0].counts}
    zones = {}
    for z in results[0].zones:
        keys = set().union(*(r.zones[z].keys() for r in results))
        zones[z] = {k: v for k in sorted(keys) if (v := med([r.zones[z].get(k, 0) for r in results]))}
    unknown = med([r.unknown for r in results])
    face_up = med([r.face_up for r in results])

    def dist(r: AuditResult) -> int:
        return sum(abs(r.counts[p] - counts[p]) for p in counts) + abs(r.unknown - unknown)

    best = min(results, key=dist)
    return AuditResult(counts, zones, unknown, face_up, best.strips, best.card_px)


def format_audit(res: AuditResult) -> str:
    """A readable report: the count per player in the shared area, then each zone."""
    lines = ["Shared area (foundations), face-down cards by back:"]
    for p, n in res.counts.items():
        lines.append(f"  {p:<16} {n:3d}")
    if res.unknown:
        lines.append(f"  {'(unknown back)':<16} {res.unknown:3d}")
    for z, c in res.zones.items():
        own = c.get(z, 0)
        other = {k: v for k, v in c.items() if k != z}
        extra = ("  + " + ", ".join(f"{k} {v}" for k, v in other.items())) if other else ""
        lines.append(f"Zone {z}: {own} of their own cards (Nertz pile left){extra}")
    if res.face_up:
        lines.append(f"Face-up cards seen: {res.face_up}")
    return "\n".join(lines)


def audit_command(
    image: Annotated[Optional[Path], typer.Argument(help="photo of the table after the call")] = None,
    table: Annotated[Optional[Path], typer.Option("--table", help="table file (back colours, shared area, zones)")] = None,
    source: Annotated[Optional[str], typer.Option("--source", help="webcam index, video file, stream URL or folder of images (its first 5 frames, 0.5 s apart, are audited: about 2 s from the start of a file, so record the spread alone)")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="print only one JSON line {type: audit, counts, unknown, face_up, zones} instead of the text")] = False,
    out: Annotated[Optional[Path], typer.Option("--out", help="write the image with the counted strips outlined")] = None,
    method: Annotated[str, typer.Option("--method", help="auto, classical, learned or hybrid (see nertz.vision.audit.METHODS)")] = "auto",
) -> None:
    """Count the face-down cards of each registered back (the round audit)."""
    from nertz.referee.files import read_table

    from .detect import load_image, save_image

    def fail(msg: str) -> None:
        typer.echo(f"error: {msg}", err=True)
        raise typer.Exit(2)

    if (image is None) == (source is None):
        fail("give either an IMAGE or --source S")
    if table is None:
        fail("--table T.json is required: the audit needs the players' back colours")
    if out is not None:  # before the count: a result printed beside a failure status is no result
        from nertz.referee.files import check_not_an_input

        from .sources import source_path

        try:  # (the photo itself: --out photo.png would draw the strips over it)
            check_not_an_input(out, [("the image", image), ("--source", source_path(source)), ("--table", table)])
        except NertzError as e:
            fail(str(e))
        if Path(out).is_dir():
            fail(f"{out}: a folder; --out names the image file to write (.png or .jpg)")
        if not cv2.haveImageWriter(str(out)):
            fail(f"{out}: no image format for the extension {Path(out).suffix or '(none)'!r}; use .png or .jpg")
        if not Path(out).resolve().parent.is_dir():
            fail(f"{out}: its folder {Path(out).resolve().parent} does not exist")
    if image is not None and Path(image).is_dir():
        fail(f"{image}: a folder; the audit counts one photo (give an image file), or the frames of "
             f"a video or folder with --source {image}")
    try:
        t = read_table(table)
        frames = [_load_photo(image)] if image is not None else _frames_from_source(str(source))
        res = audit_frames(frames, t, method)
        check_face_down(frames, t, res)
    except NertzError as e:
        fail(str(e))
        return
    if out is not None:  # (checked above; a write can still fail: no permission, a full disk)
        try:  # written before the count is printed: a count printed beside a failure status is no result
            save_image(out, res.draw(frames[0]))
        except NertzError as e:
            fail(str(e))
    if json_out:
        sys.stdout.write(json.dumps(res.json_line(), ensure_ascii=False) + "\n")
    else:
        typer.echo(format_audit(res))
