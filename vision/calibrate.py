"""Calibration: the table file (``shared/DESIGN.md``) from one still frame of the camera: the
shared area and each player's zone (polygons, image pixels) and each deck's back colour.

Three ways, all ending in :func:`finish_table`, which validates the result with
:class:`nertz.referee.table.Table` (overlapping zones, a zone over the shared area, a player
without a colour, two colours too close to tell apart are refused with a message saying what
to fix):

**A. ArUco markers** (:func:`calibrate_markers`): print the sheet (:func:`marker_sheet`,
``nertz calibrate --print-markers sheet.png``) and lay the markers on the table:

- ids :data:`CORNER_IDS` ``0 1 2 3``: one on each corner of the shared area (the marker's
  centre on the corner; any order: the area is the convex hull of the four centres);
- ids :data:`PLAYER_IDS` ``10 11 ... 15``: optional, one inside each player's layout area (beside
  the Nertz pile), id 10 for the first player of ``--players``, 11 for the second, ... Without
  them, the seats are taken as bottom, top (2 players); bottom, left, right (3); bottom, left,
  top, right (4) of the image.

Dictionary :data:`ARUCO_DICT` (``DICT_4X4_50``: big cells, read reliably at webcam resolution).
The shared area is the convex hull of the four corner markers' centres. The zones: when the
card detector finds the dealt layouts (path B's grouping) one in each player's sector, each
zone is its layout's zone (path B), kept off the shared area; otherwise each zone is the part
of the frame between the shared area (plus one marker side) and the frame's edge, in the
angular sector around the shared area's centre nearer this player's marker than the
neighbours' (sector borders halfway in angle between neighbouring seats). The back colours are
read from the face-down cards (the stock) of each player's layout, or, without layouts, from
the backs in the zone. Detections on the markers are ignored.

**B. The layouts of a dealt round** (:func:`calibrate_layouts`): no markers. Take a still
frame at the start of a round, when every layout is dealt, the shared area is still empty and,
best, every stock lies face down beside its layout. The card detector
(:class:`nertz.vision.detect.CardRecognizer`) finds the cards; they are grouped into layouts
(:func:`group_layouts`): single-linkage clustering of the face-up card boxes (a gap of more
than one card width starts a new group; backs join the rows they continue afterwards); a group
that is not one straight row (two layouts meeting at a table corner) is cut where the parts
come out straightest; small groups are strays or a lone
stock: they join the layout whose row they continue (a stock preferably at its player's right),
a held stock the nearest layout; with the player count known, an over-long row (two
neighbours' layouts touching) is split at its widest gap and surplus groups (clutter) are
dropped. Each layout's row gives its direction; the side facing the other layouts is *inward*.
The zone (:func:`layout_zone`) is the row's rectangle, stretched to seven slots along the row
(Nertz pile, four work piles, waste, stock: a missing waste and stock are taken to lie at the
player's right), padded by :data:`ZONE_PAD` card widths along the row and inward, and extended
*outward* (toward the player) by :data:`CASCADE_ROOM` card heights, room for the work piles'
cascades. Overlapping zones are split halfway between their centres. The shared area
(:func:`shared_between`) is the part of the convex hull of all zones that lies inward of every
zone's inner edge by :data:`SHARED_GAP` card widths; a layout with nobody facing it across the
table (the bottom player of three) bounds it also on the far side, at the mirror image of its
inner edge through the table centre (found from the layouts beside it). Each player's back
colour (:func:`register_backs`) is the median CIELAB of its face-down cards lying on the table
(else those held in a hand, fingers and hand boxes left out: :func:`back_colour`); a "back" box
that is mostly white paper is a face the detector mistook and is not used (:func:`white_share`).

**C. By hand** (:class:`ManualCalibration`, the pure state machine; :func:`run_manual`, its
OpenCV window): click the shared area's corners, then each player's zone, then two corners of
a box on each player's card back shown to the camera.

Players are named from ``--players`` (or ``P1``, ``P2``, ...): with layout markers, by marker
id (10 is the first name); otherwise in clockwise order as seen in the image, starting from
the bottom (the seat straight below the layouts' centre, or up to :data:`BOTTOM_SLACK_DEG`
right of it; with nobody there, the first seat clockwise after it: the left one).

Accuracy on rendered deals: ``python -m nertz.vision.calibrate_eval`` (figures in its docstring).

Public API: :func:`calibrate_layouts`, :func:`calibrate_markers`, :func:`detect_markers`,
:func:`marker_sheet`, :func:`group_layouts`, :func:`layout_zone`, :func:`shared_between`,
:func:`register_backs`, :func:`back_colour`, :func:`skin_mask`, :func:`white_share`,
:func:`lab_to_hex`, :func:`player_names`, :func:`seat_sides`, :func:`finish_table`, :func:`draw_table`,
:class:`ManualCalibration`, :func:`run_manual`, :class:`CalibrationError`, :class:`TooManyLayouts`,
:class:`Layout`.
"""

from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Sequence

import cv2
import numpy as np

from nertz.referee.errors import NertzError, TableError
from nertz.referee.table import Table

from .backs import back_lab, skin_mask

__all__ = ["CalibrationError", "TooManyLayouts", "Layout", "calibrate_layouts", "calibrate_markers", "detect_markers",
           "marker_sheet", "group_layouts", "layout_zone", "shared_between", "register_backs", "back_colour", "skin_mask", "white_share", "lab_to_hex",
           "finish_table", "draw_table", "ManualCalibration", "run_manual", "player_names", "seat_sides",
           "ARUCO_DICT", "CORNER_IDS", "PLAYER_IDS", "ZONE_PAD", "CASCADE_ROOM", "SHARED_GAP"]

ARUCO_DICT = cv2.aruco.DICT_4X4_50
"""The ArUco dictionary of the markers (OpenCV's ``DICT_4X4_50``)."""
CORNER_IDS = (0, 1, 2, 3)
"""Marker ids on the shared area's corners."""
PLAYER_IDS = (10, 11, 12, 13, 14, 15)
"""Marker ids of the players' layouts, in ``--players`` order."""

ZONE_PAD = 0.12
"""Zone padding around a layout's cards along the row and inward, in card widths (about 8 mm)."""
CASCADE_ROOM = 1.6
"""How far a zone reaches beyond the dealt row toward the player, in card heights: room for
about eight cascaded cards at 18 mm (a work pile rarely grows longer)."""
SHARED_GAP = 0.5
"""Gap between a zone's inner edge and the shared area, in card widths (about 3 cm)."""
SLOTS = 7
"""Slots in a layout row: Nertz pile, four work piles, waste, stock."""


class CalibrationError(NertzError, ValueError):
    """Calibration failed: markers or layouts not found, or a result that does not validate
    (the message says what to change: lighting, camera, markers, the deal)."""


class TooManyLayouts(CalibrationError):
    """More dealt layouts than ``--players`` names: the names are wrong, not the still (another
    still with a layout hidden would drop a player silently)."""


# ---------------------------------------------------------------------------------------------
# small geometry
def _clip(poly: np.ndarray, a: np.ndarray, b: float) -> np.ndarray:
    """The part of polygon ``poly`` (``(N, 2)``) where ``a . x >= b`` (Sutherland-Hodgman)."""
    out = []
    n = len(poly)
    for i in range(n):
        p, q = poly[i], poly[(i + 1) % n]
        fp, fq = float(a @ p) - b, float(a @ q) - b
        if fp >= 0:
            out.append(p)
        if (fp >= 0) != (fq >= 0):
            out.append(p + (q - p) * (fp / (fp - fq)))
    return np.array(out, np.float64).reshape(-1, 2)


def _clip_frame(poly: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    w, h = size
    for a, b in (((1, 0), 0.0), ((-1, 0), -float(w)), ((0, 1), 0.0), ((0, -1), -float(h))):
        poly = _clip(poly, np.array(a, np.float64), b)
        if len(poly) == 0:
            break
    return poly


def _area(poly: np.ndarray) -> float:
    return float(abs(cv2.contourArea(np.asarray(poly, np.float32)))) if len(poly) >= 3 else 0.0


def _plist(poly: np.ndarray) -> list[list[float]]:
    return [[round(float(x), 1), round(float(y), 1)] for x, y in poly]


def _box_gap(a: np.ndarray, b: np.ndarray) -> float:
    dx = max(0.0, max(a[0], b[0]) - min(a[2], b[2]))
    dy = max(0.0, max(a[1], b[1]) - min(a[3], b[3]))
    return math.hypot(dx, dy)


def lab_to_hex(lab: Sequence[float]) -> str:
    """``"#rrggbb"`` (sRGB) of a CIELAB colour ``(L*, a*, b*)`` (OpenCV's D65 conversion, the
    inverse of :func:`nertz.referee.table.hex_to_lab`); out-of-gamut colours are clipped."""
    bgr = cv2.cvtColor(np.asarray(lab, np.float32).reshape(1, 1, 3), cv2.COLOR_LAB2BGR)[0, 0]
    b, g, r = (int(round(float(np.clip(c, 0, 1)) * 255)) for c in bgr)
    return f"#{r:02x}{g:02x}{b:02x}"


def player_names(names: Sequence[str] | None, n: int) -> list[str]:
    """``names`` when given (must be ``n``), else ``P1 .. Pn``.

    Raises:
        CalibrationError: the count differs.
    """
    if names:
        if len(names) != n:
            raise CalibrationError(f"--players names {len(names)} players ({', '.join(names)}) but {n} were found")
        return list(names)
    return [f"P{i + 1}" for i in range(n)]


# ---------------------------------------------------------------------------------------------
# path B: layouts of a dealt round
@dataclass
class Layout:
    """One player's dealt layout as found in the frame.

    Attributes:
        boxes: ``(K, 4)`` xyxy pixels of its cards lying on the table (faces and backs).
        back_boxes: ``(B, 4)`` xyxy of its face-down cards lying on the table.
        held_boxes: ``(B', 4)`` xyxy of face-down cards in a hand joined to it (its stock, held).
        centre: ``(2,)`` pixels, the mean of its card centres.
        right: ``(2,)`` unit vector along the row, toward the player's right.
        inward: ``(2,)`` unit vector from the layout toward the table centre.
        zone: ``(4, 2)`` its zone polygon, pixels (after :func:`layout_zone`).
        inner: the inner edge's offset along ``inward`` (``inward . x`` at the zone's inner edge).
        card_w, card_h: card width and height in pixels near this layout (along the row and
            across it).
    """

    boxes: np.ndarray
    back_boxes: np.ndarray
    held_boxes: np.ndarray
    centre: np.ndarray
    right: np.ndarray = field(default_factory=lambda: np.array([1.0, 0.0]))
    inward: np.ndarray = field(default_factory=lambda: np.array([0.0, -1.0]))
    zone: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    inner: float = 0.0
    card_w: float = 0.0
    card_h: float = 0.0


def group_layouts(boxes: np.ndarray, is_back: np.ndarray, hands: np.ndarray | None = None,
                  players: int | None = None, link: float = 1.0, min_cards: int = 3,
                  option: str = "--players") -> list[Layout]:
    """Group the cards of a dealt table into the players' layouts.

    Args:
        boxes: ``(N, 4)`` xyxy pixels of the cards found (faces and backs, no hands).
        is_back: ``(N,)`` bool, face-down cards.
        hands: ``(H, 4)`` xyxy of hands; a back mostly inside one is *held* (used for the colour,
            not for the layout's extent).
        players: the number of layouts to find, or None to take every group of ``min_cards``.
        link: two face-up cards whose boxes are closer than ``link`` card widths (the smaller
            box side) are in one group; backs are grouped with none (they join a layout below).
        min_cards: smallest group of face-up cards that is a layout. Backs, and cards of smaller
            groups, join the layout
            whose row they continue (at most 0.75 of the row's thickness off its line; a face
            within 2 card widths of it and shaped like the row's cards (height/width within
            0.8-1.25 of theirs), a back, the stock beyond an empty waste slot, within 3, a
            back beyond the row's left end (as its player sees it) counting 1.5 card widths
            farther: the stock lies at the player's right),
            a held back the nearest layout within 3 card widths; others are dropped as strays.
        option: the option that gave ``players`` (``"--players"``, ``"--count"``), for the messages.

    Returns:
        the layouts (unordered), ``centre`` and boxes filled in.

    Raises:
        CalibrationError: fewer layouts than ``players`` (or none) found.
        TooManyLayouts: more dealt rows than ``players``.
    """
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    is_back = np.asarray(is_back, bool).reshape(-1)
    n = len(boxes)
    if n == 0:
        raise CalibrationError("no cards found in the frame: deal the round (every layout face up on the table) "
                               "and check that the camera sees the table")
    side = np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]).clip(min=1.0)
    held = np.zeros(n, bool)
    if hands is not None and len(hands):
        for i in np.nonzero(is_back)[0]:
            area = max((boxes[i, 2] - boxes[i, 0]) * (boxes[i, 3] - boxes[i, 1]), 1.0)
            for h in np.asarray(hands, np.float64).reshape(-1, 4):
                iw = max(0.0, min(boxes[i, 2], h[2]) - max(boxes[i, 0], h[0]))
                ih = max(0.0, min(boxes[i, 3], h[3]) - max(boxes[i, 1], h[1]))
                if iw * ih > 0.3 * area:
                    held[i] = True
    # single-linkage: union-find over the face-up cards closer than `link` card widths; backs
    # join afterwards, each the row it continues (below): linked too, a book or a card box
    # boxed as a back beside a row drew the row towards it, and gave its player its colour
    # (calibrate_eval seeds 0-9, 2-4 players, 2026-12-07: colours within the matcher's
    # distance 65 -> 68 of 71, zone IoU min 0.207 -> 0.486, nothing worse)
    aspect = (boxes[:, 3] - boxes[:, 1]).clip(min=1.0) / (boxes[:, 2] - boxes[:, 0]).clip(min=1.0)
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    d = np.full((n, n), np.inf)
    for i in range(n):
        for j in range(i + 1, n):
            d[i, j] = d[j, i] = _box_gap(boxes[i], boxes[j]) / ((side[i] + side[j]) / 2)
            if d[i, j] <= link and not (held[i] or held[j] or is_back[i] or is_back[j]):
                parent[find(i)] = find(j)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    # a group that is not one row (two layouts meeting at a corner of the table) is cut at
    # the link whose removal leaves the straightest parts
    centres_all = (boxes[:, :2] + boxes[:, 2:]) / 2
    long_side = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
    pending = [g for g in groups.values()]
    done: list[list[int]] = []
    while pending:
        g = pending.pop()
        if len(g) >= 2 * min_cards and _bend(centres_all[g], long_side[g]) > ROW_BEND:
            cut = _straightest_cut(g, d, centres_all, long_side, boxes)
            if cut is not None:
                pending.extend(cut)
                continue
        done.append(g)
    big = [g for g in done if len(g) >= min_cards and not all(held[g])]
    small = [g for g in done if not (len(g) >= min_cards and not all(held[g]))]
    if not big:
        raise CalibrationError(f"no dealt layout found ({n} cards seen, none in a row of {min_cards} or more): "
                               f"take the frame after the deal, with every layout on the table")

    # with the count known: split over-long rows (two neighbours' layouts touching)
    if players is not None:
        while len(big) < players:
            spans = []
            for g in big:
                rect = cv2.minAreaRect(_corners(boxes[g]).astype(np.float32))
                spans.append(max(rect[1]) / float(np.median(side[g])))
            k = int(np.argmax(spans))
            if spans[k] < 1.6 * SLOTS or len(big[k]) < 2 * min_cards:
                break
            a, b = _split_row(boxes, big[k])
            big[k:k + 1] = [a, b]
        big.sort(key=len, reverse=True)
        if len(big) > players:
            # the smallest groups are clutter (a phone, a score pad); a dealt row is not
            extra = [g for g in big[players:] if len(g) >= 4 and _bend(centres_all[g], long_side[g]) <= ROW_BEND
                     and sum(not is_back[i] for i in g) >= 4]
            if extra:
                if option == "--count":
                    raise TooManyLayouts(f"found {players + len(extra)} dealt layouts but --count is {players}: "
                                         f"give the number of players at the table")
                raise TooManyLayouts(
                    f"found {players + len(extra)} dealt layouts but --players names {players}: name every "
                    f"player (clockwise from the bottom of the image)")
            big = big[:players]
        if len(big) < players:
            raise CalibrationError(
                f"found {len(big)} dealt layouts, expected {players}: every player's layout must be dealt and "
                f"visible (hands away from the table), or check {option}")
    # strays (a lone stock beyond the empty waste slot, a held stock) join a layout: an unheld
    # card the layout whose row it continues, a held one the nearest within 3 card widths
    members = [list(g) for g in big]
    axes = []
    for g in big:
        pts = _corners(boxes[g]).astype(np.float32)
        (cx, cy), (rw, rh), ang = cv2.minAreaRect(pts)
        t = math.radians(ang if rw >= rh else ang + 90)
        axes.append((np.array([cx, cy]), np.array([math.cos(t), math.sin(t)]), float(min(rw, rh))))
    # each row's direction toward its player's right (the player faces the other layouts)
    rights = []
    for k, (centre, axis, _) in enumerate(axes):
        others = [a[0] for j, a in enumerate(axes) if j != k]
        normal = np.array([-axis[1], axis[0]])
        if others and normal @ (np.mean(others, axis=0) - centre) < 0:
            normal = -normal
        rights.append(np.array([-normal[1], normal[0]]))
    for g in small:
        for i in g:
            ci = (boxes[i, :2] + boxes[i, 2:]) / 2
            best, cost = None, math.inf
            for k, m in enumerate(members):
                gap = float(d[i, big[k]].min())
                if gap > (3.0 if is_back[i] else 2.0):
                    continue
                c = gap
                if not is_back[i]:  # a face must look like the row's cards (not a mug or a coaster)
                    ratio = aspect[i] / float(np.median(aspect[big[k]]))
                    if not 0.8 <= ratio <= 1.25:
                        continue
                if not held[i]:
                    centre, axis, thick = axes[k]
                    off = ci - centre
                    perp = abs(float(off[0] * axis[1] - off[1] * axis[0])) / max(thick, 1.0)
                    if perp > 0.75:
                        continue
                    c += 2 * perp
                    if is_back[i]:  # a stock lies at its player's right: beyond the row's left end, less likely
                        along = (centres_all[big[k]] - centre) @ rights[k]
                        if float(off @ rights[k]) < float(along.min()):
                            c += 1.5
                if c < cost:
                    best, cost = k, c
            if best is not None:
                members[best].append(i)
    out = []
    for m in members:
        m = np.array(sorted(m))
        lay = [i for i in m if not held[i]]
        c = boxes[lay]
        out.append(Layout(boxes=c, back_boxes=boxes[[i for i in m if is_back[i] and not held[i]]].reshape(-1, 4),
                          held_boxes=boxes[[i for i in m if is_back[i] and held[i]]].reshape(-1, 4),
                          centre=np.column_stack([(c[:, 0] + c[:, 2]) / 2, (c[:, 1] + c[:, 3]) / 2]).mean(axis=0)))
    return out


ROW_BEND = 0.6
"""A group of cards is one layout row while three quarters of its card centres lie within this
many card lengths of their best-fitting line (a dealt row with its stock: about 0.2)."""


def _bend(centres: np.ndarray, long_side: np.ndarray) -> float:
    """How far ``centres`` (``(K, 2)``) lie from their principal line: the 75th percentile of
    the distances, in card lengths (a few duplicate or strip boxes do not bend a row)."""
    if len(centres) < 3:
        return 0.0
    c = centres - centres.mean(axis=0)
    _, _, vt = np.linalg.svd(c, full_matrices=False)
    return float(np.percentile(np.abs(c @ vt[1]), 75) / max(float(np.median(long_side)), 1.0))


def _axis(centres: np.ndarray) -> np.ndarray:
    c = centres - centres.mean(axis=0)
    return np.linalg.svd(c, full_matrices=False)[2][0]


def _hull_overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Overlap of the convex hulls of two sets of boxes (``(K, 4)`` xyxy), as a share of the
    smaller hull's area."""
    ha = cv2.convexHull(_corners(a).astype(np.float32))
    hb = cv2.convexHull(_corners(b).astype(np.float32))
    inter, _ = cv2.intersectConvexConvex(ha, hb)
    small = max(min(cv2.contourArea(ha), cv2.contourArea(hb)), 1.0)
    return float(inter) / small


def _straightest_cut(group: list[int], d: np.ndarray, centres: np.ndarray, long_side: np.ndarray,
                     boxes_of: np.ndarray) -> list[list[int]] | None:
    """Cut ``group`` at one link of its minimum spanning tree (gaps ``d``) so that the larger
    bend of the two parts is smallest, among cuts whose parts' hulls overlap by at most 20 %
    and (with 3 or more cards each) whose directions differ by more than 30 degrees; None when
    no cut leaves two such parts of 2 or more cards."""
    g = list(group)
    n = len(g)
    sub = d[np.ix_(g, g)]
    # Prim's minimum spanning tree
    in_tree = [0]
    edges = []
    best = sub[0].copy()
    link = np.zeros(n, int)
    best[0] = np.inf
    used = np.zeros(n, bool)
    used[0] = True
    for _ in range(n - 1):
        cand = np.where(used, np.inf, best)
        j = int(np.argmin(cand))
        if not np.isfinite(cand[j]):
            break
        edges.append((int(link[j]), j))
        used[j] = True
        in_tree.append(j)
        closer = (~used) & (sub[j] < best)
        best[closer] = sub[j][closer]
        link[closer] = j
    choice, score = None, math.inf
    for e in edges:
        rest = [x for x in edges if x != e]
        # component of e[0] without e
        comp, stack = {e[0]}, [e[0]]
        while stack:
            u = stack.pop()
            for a, b in rest:
                for v in ((b,) if a == u else (a,) if b == u else ()):
                    if v not in comp:
                        comp.add(v)
                        stack.append(v)
        part_a = [g[i] for i in sorted(comp)]
        part_b = [g[i] for i in range(n) if i not in comp]
        if len(part_a) < 2 or len(part_b) < 2 or _hull_overlap(boxes_of[part_a], boxes_of[part_b]) > 0.2:
            continue  # two layouts lie apart; overlapping parts are one row's duplicate boxes
        if len(part_a) >= 3 and len(part_b) >= 3 and abs(float(_axis(centres[part_a]) @ _axis(centres[part_b]))) > 0.87:
            continue  # two rows meeting at a corner turn by more than 30 degrees
        sc = max(_bend(centres[part_a], long_side[part_a]), _bend(centres[part_b], long_side[part_b]))
        if sc < score:
            choice, score = (part_a, part_b), sc
    return list(choice) if choice is not None else None


def _corners(boxes: np.ndarray) -> np.ndarray:
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    return np.vstack([b[:, [0, 1]], b[:, [2, 1]], b[:, [2, 3]], b[:, [0, 3]]])


def _split_row(boxes: np.ndarray, group: list[int]) -> tuple[list[int], list[int]]:
    """Split a row of cards at its widest gap in the middle half (along the row's long axis)."""
    pts = _corners(boxes[group]).astype(np.float32)
    (_, _), (rw, rh), ang = cv2.minAreaRect(pts)
    t = math.radians(ang if rw >= rh else ang + 90)
    axis = np.array([math.cos(t), math.sin(t)])
    centres = np.column_stack([(boxes[group, 0] + boxes[group, 2]) / 2, (boxes[group, 1] + boxes[group, 3]) / 2])
    s = centres @ axis
    order = np.argsort(s)
    ss = s[order]
    gaps = np.diff(ss)
    lo, hi = len(ss) // 4, max(len(ss) - len(ss) // 4 - 1, len(ss) // 4 + 1)
    k = lo + int(np.argmax(gaps[lo:hi]))
    g = np.array(group)[order]
    return list(g[:k + 1]), list(g[k + 1:])


def layout_zone(layout: Layout, others_centre: np.ndarray) -> Layout:
    """Fill in ``layout``'s direction, card size and zone (see the module's path B).

    Args:
        layout: from :func:`group_layouts`.
        others_centre: ``(2,)`` pixels: the mean centre of the other layouts (which side is
            inward).

    Returns:
        the same layout, ``right``, ``inward``, ``card_w``, ``card_h``, ``zone``, ``inner`` set.
    """
    b = layout.boxes
    pts = _corners(b).astype(np.float32)
    (_, _), (rw, rh), ang = cv2.minAreaRect(pts)
    t = math.radians(ang if rw >= rh else ang + 90)
    axis = np.array([math.cos(t), math.sin(t)])
    normal = np.array([-axis[1], axis[0]])
    if normal @ (np.asarray(others_centre) - layout.centre) < 0:
        normal = -normal
    right = np.array([-normal[1], normal[0]])  # the player faces `normal`; their right hand
    u = pts @ right
    v = pts @ normal
    # card size along the row / across it: median extent of one box
    bu = np.array([np.ptp(_corners(bx) @ right) for bx in b])
    bv = np.array([np.ptp(_corners(bx) @ normal) for bx in b])
    cw, ch = float(np.median(bu)), float(np.median(bv))
    centres = ((b[:, :2] + b[:, 2:]) / 2) @ right
    steps = np.diff(np.sort(centres))
    steps = steps[(steps > 0.8 * cw) & (steps < 1.6 * cw)]
    pitch = float(np.median(steps)) if len(steps) else 1.2 * cw
    u0, u1 = float(u.min()), float(u.max())
    u1 = max(u1, u0 + SLOTS * pitch - (pitch - cw))  # waste and stock at the player's right
    pad = ZONE_PAD * cw
    v_in = float(v.max()) + pad
    v_out = float(v.min()) - CASCADE_ROOM * ch
    rect = [(u0 - pad, v_in), (u1 + pad, v_in), (u1 + pad, v_out), (u0 - pad, v_out)]
    layout.zone = np.array([uu * right + vv * normal for uu, vv in rect])
    layout.right, layout.inward, layout.inner = right, normal, v_in
    layout.card_w, layout.card_h = cw, ch
    return layout


def _separate(layouts: list[Layout]) -> None:
    """Split overlapping zones halfway between their centres (convex clip)."""
    for i, a in enumerate(layouts):
        for b in layouts[i + 1:]:
            inter, _ = cv2.intersectConvexConvex(a.zone.astype(np.float32), b.zone.astype(np.float32))
            if inter <= 1.0:
                continue
            ca, cb = a.zone.mean(axis=0), b.zone.mean(axis=0)
            d = (cb - ca) / max(float(np.linalg.norm(cb - ca)), 1e-9)
            mid = float(d @ (ca + cb) / 2)
            a.zone = _clip(a.zone, -d, -mid)
            b.zone = _clip(b.zone, d, mid)


def shared_between(layouts: list[Layout], size: tuple[int, int]) -> np.ndarray:
    """The shared area between the zones (see the module's path B).

    Args:
        layouts: with zones (:func:`layout_zone`).
        size: ``(width, height)`` of the frame; the area is clipped to it.

    Returns:
        ``(M, 2)`` convex polygon, pixels.

    Raises:
        CalibrationError: nothing is left between the layouts.
    """
    hull = cv2.convexHull(np.vstack([lay.zone for lay in layouts]).astype(np.float32))[:, 0].astype(np.float64)
    poly = hull
    for lay in layouts:
        gap = SHARED_GAP * lay.card_w
        poly = _clip(poly, lay.inward, lay.inner + gap)
        facing = any(float(o.inward @ lay.inward) < -0.7 for o in layouts if o is not lay)
        if not facing:
            beside = [o for o in layouts if o is not lay and abs(float(o.inward @ lay.inward)) <= 0.7]
            if beside:
                mid = float(np.mean([o.zone.mean(axis=0) @ lay.inward for o in beside]))
                poly = _clip(poly, -lay.inward, -(2 * mid - (lay.inner + gap)))
        if len(poly) < 3:
            break
    poly = _clip_frame(poly, size) if len(poly) >= 3 else poly
    if len(poly) < 3 or _area(poly) < 1.0:
        raise CalibrationError("no room for a shared area between the layouts: are the players' layouts "
                               "really around the table's centre?")
    return poly


def back_colour(image: np.ndarray, box: Sequence[float], hands: np.ndarray | None = None,
                inset: float = 0.2, min_share: float = 0.15) -> np.ndarray | None:
    """The CIELAB colour of a card back in ``box``, measured as
    :func:`nertz.vision.backs.back_lab` does (inner part, median of the more saturated half),
    leaving out pixels inside ``hands`` boxes and skin-coloured pixels (:func:`skin_mask`):
    fingers holding the stock.

    Args:
        image: ``(H, W, 3) uint8`` BGR. box: ``[x0, y0, x1, y1]`` pixels.
        hands: ``(H, 4)`` xyxy hand boxes, or None.
        min_share: least share of the inner part that must remain. Below it, a back touched
            by a hand box is unusable (None: mostly fingers); one that is not is measured
            whole (a tan or brown back).

    Returns:
        ``(3,)`` ``(L*, a*, b*)``, or None (box under 2 pixels, or covered by a hand).
    """
    h, w = image.shape[:2]
    x0, y0, x1, y1 = (float(v) for v in box)
    x0, x1 = int(max(0, round(min(x0, x1)))), int(min(w, round(max(x0, x1))))
    y0, y1 = int(max(0, round(min(y0, y1)))), int(min(h, round(max(y0, y1))))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    bw, bh = x1 - x0, y1 - y0
    ix0, iy0 = x0 + int(bw * inset), y0 + int(bh * inset)
    ix1, iy1 = max(x0 + int(bw * (1 - inset)), ix0 + 1), max(y0 + int(bh * (1 - inset)), iy0 + 1)
    crop = image[iy0:iy1, ix0:ix1]
    keep = ~skin_mask(crop)
    touched = False
    for hx0, hy0, hx1, hy1 in (np.asarray(hands, np.float64).reshape(-1, 4) if hands is not None else []):
        a0, a1 = int(np.clip(round(hx0) - ix0, 0, ix1 - ix0)), int(np.clip(round(hx1) - ix0, 0, ix1 - ix0))
        b0, b1 = int(np.clip(round(hy0) - iy0, 0, iy1 - iy0)), int(np.clip(round(hy1) - iy0, 0, iy1 - iy0))
        if a1 > a0 and b1 > b0:
            touched = True
            keep[b0:b1, a0:a1] = False
    if keep.mean() < min_share:
        if touched:
            return None
        return back_lab(image[y0:y1, x0:x1], inset)
    lab = cv2.cvtColor(crop.astype(np.float32) / 255.0, cv2.COLOR_BGR2LAB)[keep].astype(np.float64)
    chroma = np.hypot(lab[:, 1], lab[:, 2])
    sel = lab[chroma >= np.median(chroma)]
    return np.median(sel if len(sel) else lab, axis=0)


FACE_WHITE = 0.18
"""A "back" box whose inner part (10 % inset) is more than this share white paper (chroma
under 15, L* over 55) is taken for a face the detector mistook (a card design with one huge
pip does that); real backs measured 0.00-0.08 on renders, such faces 0.22-0.31."""


def white_share(image: np.ndarray, box: Sequence[float], inset: float = 0.1) -> float:
    """Share of white-paper pixels (chroma < 15, L* > 55) in the inner part of ``box``
    (``[x0, y0, x1, y1]`` pixels) of ``image`` (``(H, W, 3) uint8`` BGR); 1.0 for an empty box."""
    h, w = image.shape[:2]
    x0, y0, x1, y1 = (int(round(float(v))) for v in box)
    x0, x1, y0, y1 = max(0, x0), min(w, x1), max(0, y0), min(h, y1)
    bw, bh = x1 - x0, y1 - y0
    crop = image[y0 + int(bh * inset):y1 - int(bh * inset), x0 + int(bw * inset):x1 - int(bw * inset)]
    if crop.size == 0:
        return 1.0
    lab = cv2.cvtColor(crop.astype(np.float32) / 255.0, cv2.COLOR_BGR2LAB).reshape(-1, 3)
    return float(np.mean((np.hypot(lab[:, 1], lab[:, 2]) < 15) & (lab[:, 0] > 55)))


def _real_backs(image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    return boxes[[white_share(image, b) <= FACE_WHITE for b in boxes]].reshape(-1, 4)


def register_backs(image: np.ndarray, back_boxes: Sequence[np.ndarray], hands: np.ndarray | None = None
                   ) -> list[str | None]:
    """Each player's back colour from boxes on that player's face-down cards.

    Args:
        image: ``(H, W, 3) uint8`` BGR.
        back_boxes: per player, ``(B, 4)`` xyxy pixels (may be empty).
        hands: ``(H, 4)`` xyxy hand boxes whose pixels are left out (see :func:`back_colour`).

    Returns:
        per player ``"#rrggbb"``, the colour of the median CIELAB over the boxes, or None when
        a player has no box.
    """
    out: list[str | None] = []
    for boxes in back_boxes:
        labs = [lab for box in np.asarray(boxes, np.float64).reshape(-1, 4)
                if (lab := back_colour(image, box, hands)) is not None]
        out.append(lab_to_hex(np.median(np.array(labs), axis=0)) if labs else None)
    return out


BOTTOM_SLACK_DEG = 30.0
"""Seats are named clockwise from the bottom of the image (:func:`_order_clockwise`): a layout up
to this many degrees right of straight down from the layouts' centre still counts as the bottom
seat, so the first name."""


def _seat_angles(centres: np.ndarray) -> np.ndarray:
    """``(N,)`` degrees 0..360 of each seat centre ``(N, 2)`` (pixels) around their mean,
    clockwise as seen in the image (y down) from :data:`BOTTOM_SLACK_DEG` right of straight
    down."""
    c = centres.mean(axis=0)
    ang = np.degrees(np.arctan2(centres[:, 1] - c[1], centres[:, 0] - c[0]))  # 90: straight down
    return (ang - (90.0 - BOTTOM_SLACK_DEG)) % 360.0


def _order_clockwise(centres: np.ndarray) -> list[int]:
    """Indices of the layout centres ``(N, 2)`` (pixels) clockwise as seen in the image (y down),
    starting from straight down (6 o'clock) from their mean: the bottom seat first, then the
    left, top and right ones. A seat up to :data:`BOTTOM_SLACK_DEG` right of straight down
    counts as the bottom one. The start is a fixed direction, not the lowest layout: with
    nobody at the bottom (three players seated left, top and right) the lowest of the left and
    right layouts changes from one still to the next, and so did every name."""
    return [int(i) for i in np.argsort(_seat_angles(centres), kind="stable")]


def seat_sides(zones: Sequence[Any]) -> list[str]:
    """Where each seat lies, as a player would say it (``"bottom"``, ``"left"``, ``"top"``,
    ``"right"``), for the user to check the names against (``nertz calibrate`` prints them):
    by the direction of each zone's centroid (``zones``: polygons, pixels) from their mean, in
    quarter turns that begin where :func:`_order_clockwise` begins (:data:`BOTTOM_SLACK_DEG`
    right of straight down), so the names, which go clockwise from there, go bottom, left,
    top, right."""
    centres = np.array([np.asarray(z, np.float64).reshape(-1, 2).mean(axis=0) for z in zones])
    return [("bottom", "left", "top", "right")[int(a // 90.0)] for a in _seat_angles(centres)]


STRAY_AREA = 2.5
"""A card box more than this many times larger or smaller (area) than the median card box of a
dealt frame is not one of the layouts' cards (:func:`_group_detections`)."""
STRAY_CONF = 0.4
"""Card boxes below this detector confidence are left out of layout grouping (on the test deal
with clutter in view, coins were found at 0.36 and a book at 0.31-0.46; dealt cards at 0.65 and
more)."""


UNCOUNTED_MIN_CARDS = 4
"""Without ``--players`` or ``--count``, the smallest group of face-up cards taken for a layout
(:func:`group_layouts`' ``min_cards``; 3 with the count known). Rendered deals, calibrate_eval's
seeds 0-9 with 2-4 players (2026-12-07, backs then still linked into rows): the number of
layouts found right 27 of 30 with 3 (three times one too many: clutter beside a row, half a
row), 29 of 30 with 4, 17 of 30 with 5; with backs joined afterwards, 2-5 players, 37 of 40 at
4. A newcomer's 3-player round (seed 6) was calibrated with a fourth player, a book and half of
a row."""


def _group_detections(detections: Any, players: int | None, option: str = "--players") -> list[Layout]:
    """:func:`group_layouts` on a :class:`~nertz.vision.detect.Detections` (an object found as
    both a face and a back, a mug or a big-pip card, kept once, as the surer class; card boxes of
    an odd size or below ``STRAY_CONF`` left out: ``STRAY_AREA``); ``option`` names the option
    that gave ``players``, for the messages."""
    cls = np.asarray(detections.class_id)
    boxes = np.asarray(detections.boxes, np.float64)
    cards = np.nonzero(cls != 2)[0]
    if len(cards) >= 3:
        # things beside the layouts that the detector took for cards (a book, a heap of coins):
        # a dealt card is about the size of the others; a stray is also seldom a sure one
        area = (boxes[cards, 2] - boxes[cards, 0]) * (boxes[cards, 3] - boxes[cards, 1])
        typical = float(np.median(area))
        conf = np.asarray(detections.confidence, np.float64)[cards]
        cards = cards[(area < STRAY_AREA * typical) & (area > typical / STRAY_AREA) & (conf >= STRAY_CONF)]
    if len(cards):
        keep = cv2.dnn.NMSBoxes(np.column_stack([boxes[cards, :2], boxes[cards, 2:] - boxes[cards, :2]]).tolist(),
                                np.asarray(detections.confidence, np.float64)[cards].tolist(), 0.0, 0.6)
        cards = cards[np.sort(np.asarray(keep, np.int64).reshape(-1))]
    # with the count unknown, a group of 3 is clutter (a book, a mug) with a stray card as often
    # as a layout most of which a hand hides: a dealt layout shows 5 cards and more
    return group_layouts(boxes[cards], cls[cards] == 1, boxes[cls == 2], players=players,
                         min_cards=3 if players is not None else UNCOUNTED_MIN_CARDS, option=option)


def calibrate_layouts(image: np.ndarray, players: Sequence[str] | None = None, *, count: int | None = None,
                      recognizer: Any = None, detections: Any = None, require_backs: bool = True) -> dict[str, Any]:
    """Path B: the table file from a still frame of a dealt round (no markers).

    Args:
        image: ``(H, W, 3) uint8`` BGR, every layout dealt, the shared area empty.
        players: names in clockwise order from the bottom of the image (their count is the
            number of layouts to find), or None (``P1``...).
        count: number of players when ``players`` is None (None: as many layouts as found).
        recognizer: a :class:`nertz.vision.detect.CardRecognizer` (default: the shipped models,
            detector only).
        detections: precomputed :class:`nertz.vision.detect.Detections` (skips the detector).
        require_backs: False leaves a player whose back was not seen with ``"back": None``
            (for measuring the geometry; such a table does not validate).

    Returns:
        the table-file dict (``players``, ``shared_area``, ``zones``, ``calibration``),
        not yet validated (see :func:`finish_table`).

    Raises:
        CalibrationError: no or too few layouts, a layout without a face-down card.
        nertz.vision.detect.ModelError: the detector model is missing.
    """
    if detections is None:
        if recognizer is None:
            from .detect import DETECTOR_ONNX, CardRecognizer

            # the axis-aligned detector: layouts were grouped and measured with it (with the
            # oriented-box one the test deal's shared area fell from IoU 0.9 to 0.39)
            recognizer = CardRecognizer(detector=DETECTOR_ONNX, classifier=None, identifier=None)
        detections = recognizer.detect(image)
    cls = np.asarray(detections.class_id)
    layouts = _group_detections(detections, len(players) if players else count,
                                "--players" if players else "--count")
    centres = np.array([lay.centre for lay in layouts])
    for k, lay in enumerate(layouts):
        others = np.delete(centres, k, axis=0)
        layout_zone(lay, others.mean(axis=0) if len(others) else np.array(image.shape[1::-1]) / 2)
    _separate(layouts)
    size = (image.shape[1], image.shape[0])
    shared = shared_between(layouts, size)
    order = _order_clockwise(centres)
    layouts = [layouts[i] for i in order]
    names = player_names(players, len(layouts))
    # a stock lying on the table shows its back best; a held one only where none lies
    backs = []
    for lay in layouts:
        on_table, held = _real_backs(image, lay.back_boxes), _real_backs(image, lay.held_boxes)
        backs.append(on_table if len(on_table) else held)
    colours = register_backs(image, backs,
                             hands=detections.boxes[cls == 2])
    zones = {}
    for name, lay in zip(names, layouts):
        z = _clip_frame(lay.zone, size)
        zones[name] = _plist(z if len(z) >= 3 else lay.zone)
    missing = [nm for nm, c in zip(names, colours) if c is None]
    if missing and require_backs:
        raise CalibrationError(
            f"no face-down card seen in the layout of {', '.join(missing)}: put that player's stock face down "
            f"beside the layout (or hold a card back to the camera) and calibrate again, or use --manual")
    return {"players": [{"name": nm, "back": c} for nm, c in zip(names, colours)],
            "shared_area": _plist(shared), "zones": zones,
            "calibration": {"method": "layouts", "frame_size": list(size)}}


# ---------------------------------------------------------------------------------------------
# path A: ArUco markers
def _aruco_detector() -> Any:
    params = cv2.aruco.DetectorParameters()
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO_DICT), params)


def detect_markers(image: np.ndarray) -> dict[int, np.ndarray]:
    """The ArUco markers of :data:`ARUCO_DICT` in ``image`` (``(H, W, 3) uint8`` BGR).

    Returns:
        id -> ``(4, 2) float64`` corners (pixels, the marker's own clockwise order from its
        top-left); of a repeated id, the largest.
    """
    corners, ids, _ = _aruco_detector().detectMarkers(image)
    out: dict[int, np.ndarray] = {}
    if ids is None:
        return out
    for c, i in zip(corners, ids.reshape(-1)):
        c = np.asarray(c, np.float64).reshape(4, 2)
        if int(i) not in out or _area(c) > _area(out[int(i)]):
            out[int(i)] = c
    return out


def marker_sheet(players: int = 4, marker_px: int = 600, dpi: int = 150) -> np.ndarray:
    """A printable sheet of the markers: the four corner markers and ``players`` layout markers,
    each labelled with its id and role.

    Args:
        players: layout markers to include (0..6).
        marker_px: side of one marker, pixels (600 at 150 dpi: about 10 cm).
        dpi: only for the printed caption's size note.

    Returns:
        ``(H, W, 3) uint8`` BGR, white, markers in a grid of three columns.
    """
    d = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
    items = [(i, f"shared corner {i}") for i in CORNER_IDS] + [
        (PLAYER_IDS[k], f"player {k + 1}") for k in range(max(0, min(players, len(PLAYER_IDS))))]
    quiet = marker_px // 6
    cell_w, cell_h = marker_px + 2 * quiet, marker_px + 2 * quiet + 60
    cols = 3
    rows = math.ceil(len(items) / cols)
    sheet = np.full((rows * cell_h + 80, cols * cell_w, 3), 255, np.uint8)
    cm = marker_px / dpi * 2.54
    cv2.putText(sheet, f"nertz calibrate markers (DICT_4X4_50), print at {dpi} dpi: {cm:.1f} cm each", (20, 50),
                cv2.FONT_HERSHEY_SIMPLEX, 1.1, (0, 0, 0), 2, cv2.LINE_AA)
    for k, (mid, label) in enumerate(items):
        r, c = divmod(k, cols)
        x, y = c * cell_w + quiet, 80 + r * cell_h + quiet
        sheet[y:y + marker_px, x:x + marker_px] = cv2.cvtColor(cv2.aruco.generateImageMarker(d, mid, marker_px),
                                                               cv2.COLOR_GRAY2BGR)
        cv2.putText(sheet, f"id {mid}: {label}", (x, y + marker_px + 45), cv2.FONT_HERSHEY_SIMPLEX, 1.2,
                    (0, 0, 0), 2, cv2.LINE_AA)
    return sheet


_DEFAULT_SEATS = {2: (90.0, 270.0), 3: (90.0, 180.0, 0.0), 4: (90.0, 180.0, 270.0, 0.0)}
"""Seat directions (degrees, image y down: 90 is the bottom) without layout markers."""


def _ray_exit(c: np.ndarray, d: np.ndarray, poly: np.ndarray) -> float:
    """Distance from ``c`` (inside convex ``poly``) along unit ``d`` to the polygon's boundary."""
    best = math.inf
    n = len(poly)
    for i in range(n):
        p, q = poly[i], poly[(i + 1) % n]
        e = q - p
        den = d[0] * (-e[1]) - d[1] * (-e[0])
        if abs(den) < 1e-12:
            continue
        w = p - c
        t = (w[0] * (-e[1]) - w[1] * (-e[0])) / den
        s = (d[0] * w[1] - d[1] * w[0]) / den
        if t > 1e-9 and -1e-9 <= s <= 1 + 1e-9:
            best = min(best, t)
    return best


def _sector_zone(centre: np.ndarray, shared: np.ndarray, a0: float, a1: float, gap: float,
                 size: tuple[int, int], step: float = 2.0) -> np.ndarray:
    """The frame between the shared area (plus ``gap`` pixels) and the frame's edge, for
    directions ``a0..a1`` degrees around ``centre`` (image y down)."""
    w, h = size
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    n = max(2, int(math.ceil((a1 - a0) / step)) + 1)
    inner, outer = [], []
    for a in np.linspace(a0, a1, n):
        d = np.array([math.cos(math.radians(a)), math.sin(math.radians(a))])
        r_in = _ray_exit(centre, d, shared) + gap
        r_out = _ray_exit(centre, d, frame)
        if not math.isfinite(r_out):
            continue
        r_in = min(r_in, r_out)
        inner.append(centre + d * r_in)
        outer.append(centre + d * r_out)
    poly = np.array(inner + outer[::-1], np.float64)
    if len(poly) >= 3:
        poly = cv2.approxPolyDP(poly.astype(np.float32).reshape(-1, 1, 2), 1.0, True).reshape(-1, 2).astype(np.float64)
    return poly


def calibrate_markers(image: np.ndarray, players: Sequence[str] | None = None, *, count: int | None = None,
                      recognizer: Any = None, back_boxes: Sequence[np.ndarray] | None = None,
                      markers: dict[int, np.ndarray] | None = None, require_backs: bool = True) -> dict[str, Any]:
    """Path A: the table file from ArUco markers (see the module's docstring for the ids).

    Args:
        image: ``(H, W, 3) uint8`` BGR.
        players: names, ``--players`` order (layout marker ``10 + k`` is player ``k``).
        count: number of players when ``players`` is None and there are no layout markers.
        recognizer: card detector for the back colours (default: the shipped detector).
        back_boxes: per player ``(B, 4)`` xyxy boxes on its card backs (skips the detector).
        markers: precomputed :func:`detect_markers` output.
        require_backs: False leaves a player whose back was not seen with ``"back": None``.

    Returns:
        the table-file dict (not yet validated).

    Raises:
        CalibrationError: corner markers missing, player markers inconsistent with
            ``players``, or a zone with no face-down card.
    """
    found = detect_markers(image) if markers is None else markers
    missing = [i for i in CORNER_IDS if i not in found]
    if missing:
        raise CalibrationError(
            f"shared-area corner marker(s) {', '.join(map(str, missing))} not seen (found: "
            f"{', '.join(map(str, sorted(found))) or 'none'}): place ids 0-3 on its corners, in view and flat")
    size = (image.shape[1], image.shape[0])
    centres = {i: c.mean(axis=0) for i, c in found.items()}
    shared = cv2.convexHull(np.array([centres[i] for i in CORNER_IDS], np.float32))[:, 0].astype(np.float64)
    if _area(shared) < 1.0:
        raise CalibrationError("the four corner markers lie on a line: put them on the shared area's corners")
    centre = shared.mean(axis=0)
    marker_side = float(np.median([math.sqrt(_area(found[i])) for i in CORNER_IDS]))
    seat_ids = [i for i in PLAYER_IDS if i in found]
    if seat_ids:
        expected = len(players) if players else count
        if expected is not None and len(seat_ids) != expected:
            raise CalibrationError(f"{len(seat_ids)} player markers seen (ids {seat_ids}) for {expected} players: "
                                   f"put one in each layout (ids 10..{9 + expected})")
        if seat_ids != list(PLAYER_IDS[:len(seat_ids)]):
            raise CalibrationError(f"player markers must be ids 10, 11, ... without gaps, seen {seat_ids}")
        angles = [math.degrees(math.atan2(*(centres[i] - centre)[::-1])) % 360 for i in seat_ids]
    else:
        n = len(players) if players else count
        if n is None or n not in _DEFAULT_SEATS:
            raise CalibrationError("no player markers (ids 10-15) seen: place one in each layout, or give "
                                   "--players for 2 to 4 players seated bottom, left, top, right")
        angles = list(_DEFAULT_SEATS[n])
    names = player_names(players, len(angles))
    order = np.argsort(angles)
    sa = np.array(angles)[order]
    zones: dict[str, list[list[float]]] = {}
    polys: dict[int, np.ndarray] = {}
    m = len(sa)
    for k in range(m):
        prev_a, next_a = sa[k - 1] - (360 if k == 0 else 0), sa[(k + 1) % m] + (360 if k == m - 1 else 0)
        a0, a1 = (prev_a + sa[k]) / 2, (sa[k] + next_a) / 2
        if m == 1:
            a0, a1 = sa[k] - 180, sa[k] + 180
        polys[int(order[k])] = _sector_zone(centre, shared, a0, a1, marker_side, size)
    for k, name in enumerate(names):
        if len(polys[k]) < 3:
            raise CalibrationError(f"the zone of {name} lies outside the frame: move the camera or the markers")
        zones[name] = _plist(polys[k])
    hands = None
    method = "markers"
    if back_boxes is None:
        if recognizer is None:
            from .detect import DETECTOR_ONNX, CardRecognizer

            # the axis-aligned detector: layouts were grouped and measured with it (with the
            # oriented-box one the test deal's shared area fell from IoU 0.9 to 0.39)
            recognizer = CardRecognizer(detector=DETECTOR_ONNX, classifier=None, identifier=None)
        det = recognizer.detect(image)
        # the markers themselves (white paper, black squares) are no cards
        quads = [(q - q.mean(axis=0)) * 1.6 + q.mean(axis=0) for q in found.values()]
        ctr = (det.boxes[:, :2] + det.boxes[:, 2:]) / 2
        on_marker = np.array([any(cv2.pointPolygonTest(q.astype(np.float32), (float(x), float(y)), False) >= 0
                                  for q in quads) for x, y in ctr], bool).reshape(-1)
        det = det[~on_marker]
        hands = det.boxes[det.class_id == 2]
        back_boxes = [np.zeros((0, 4)) for _ in names]
        try:
            # the dealt layouts (path B) give tighter zones and say whose stock a back is; each
            # layout belongs to the player whose sector holds its centre
            layouts = _group_detections(det, len(names))
            owner = []
            for lay in layouts:
                ks = [k for k in range(len(names)) if cv2.pointPolygonTest(
                    polys[k].astype(np.float32), (float(lay.centre[0]), float(lay.centre[1])), False) >= 0]
                owner.append(ks[0] if ks else -1)
            if sorted(owner) == list(range(len(names))):
                cs = np.array([lay.centre for lay in layouts])
                for j, lay in enumerate(layouts):
                    layout_zone(lay, np.delete(cs, j, axis=0).mean(axis=0))
                _separate(layouts)
                for lay, k in zip(layouts, owner):
                    # keep the zone off the shared area: behind the shared area's extreme point
                    # along the layout's inward direction
                    z = _clip(lay.zone, -lay.inward, -(float((shared @ lay.inward).min()) - 1.0))
                    z = _clip_frame(z, size) if len(z) >= 3 else z
                    if len(z) >= 3 and _area(z) > 1.0:
                        zones[names[k]] = _plist(z)
                        method = "markers+layouts"
                    mine = _real_backs(image, lay.back_boxes)
                    back_boxes[k] = mine if len(mine) else _real_backs(image, lay.held_boxes)
        except CalibrationError:
            pass
        backs = _real_backs(image, det.boxes[det.class_id == 1])
        centres_b = (backs[:, :2] + backs[:, 2:]) / 2 if len(backs) else np.zeros((0, 2))
        for k in range(len(names)):
            if len(back_boxes[k]):
                continue
            # no layout found there: any back in the zone
            poly = polys[k].astype(np.float32)
            inside = [j for j in range(len(backs))
                      if cv2.pointPolygonTest(poly, (float(centres_b[j, 0]), float(centres_b[j, 1])), False) >= 0]
            back_boxes[k] = backs[inside]
    colours = register_backs(image, back_boxes, hands=hands)
    missing_c = [nm for nm, c in zip(names, colours) if c is None]
    if missing_c and require_backs:
        raise CalibrationError(f"no face-down card seen in the zone of {', '.join(missing_c)}: put that player's "
                               f"stock face down in the zone and calibrate again, or use --manual")
    return {"players": [{"name": nm, "back": c} for nm, c in zip(names, colours)],
            "shared_area": _plist(shared), "zones": {nm: zones[nm] for nm in names},
            "calibration": {"method": method, "frame_size": list(size)}}


# ---------------------------------------------------------------------------------------------
# validation, drawing
def finish_table(data: dict[str, Any], rules: dict[str, Any] | None = None, source: str = "calibration") -> Table:
    """Validate a calibrated table file (adding ``rules``), as every reader of it will.

    Raises:
        CalibrationError: with :class:`~nertz.referee.table.Table`'s message (what to fix).
    """
    d = dict(data)
    if rules:
        d["rules"] = dict(rules)
    try:
        return Table.from_dict(d, source=source)
    except TableError as e:
        raise CalibrationError(f"{e} (calibrate again after fixing this, or use --manual)") from None


_PALETTE = [(60, 60, 230), (230, 120, 40), (60, 200, 60), (40, 200, 230), (200, 60, 200), (230, 230, 60)]


def draw_table(image: np.ndarray, data: dict[str, Any]) -> np.ndarray:
    """A copy of ``image`` with the table file's shared area (white) and zones (one colour each,
    with the player's name and a swatch of the registered back) drawn on it."""
    out = image.copy()
    if data.get("shared_area"):
        cv2.polylines(out, [np.round(np.array(data["shared_area"])).astype(np.int32)], True, (255, 255, 255), 2)
    backs = {p["name"]: p.get("back") for p in data.get("players", [])}
    for k, (name, poly) in enumerate(data.get("zones", {}).items()):
        col = _PALETTE[k % len(_PALETTE)]
        pts = np.round(np.array(poly)).astype(np.int32)
        cv2.polylines(out, [pts], True, col, 2)
        x, y = pts.mean(axis=0).astype(int)
        back = backs.get(name)
        if back:
            r, g, b = (int(back[i:i + 2], 16) for i in (1, 3, 5))
            cv2.rectangle(out, (x - 30, y - 20), (x - 6, y + 4), (b, g, r), -1)
            cv2.rectangle(out, (x - 30, y - 20), (x - 6, y + 4), (255, 255, 255), 1)
        cv2.putText(out, name, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.7, col, 2, cv2.LINE_AA)
    return out


# ---------------------------------------------------------------------------------------------
# path C: by hand
class ManualCalibration:
    """The manual calibration as a state machine fed with clicks (no window: testable).

    Steps, in order: the shared area's polygon; each player's zone polygon; a box on each
    player's card back (two clicks: opposite corners). A polygon step ends with :meth:`finish`
    (at least 3 points); a box step ends by itself on its second click. :meth:`undo` removes the
    last point, or goes back into the previous step.

    Args:
        names: the players, in seating order.

    Attributes:
        steps: ``[(kind, name)]``, kind ``"polygon"`` or ``"box"``, name ``"shared_area"`` or a
            player's.
        points: per step, the points clicked so far (pixels).
        step: index of the current step (``len(steps)`` when done).
    """

    def __init__(self, names: Sequence[str]) -> None:
        if len(names) < 2:
            raise CalibrationError("manual calibration needs at least two players (--players a,b)")
        self.names = list(names)
        self.steps = [("polygon", "shared_area")] + [("polygon", n) for n in self.names] + [
            ("box", n) for n in self.names]
        self.points: list[list[tuple[float, float]]] = [[] for _ in self.steps]
        self.step = 0

    @property
    def done(self) -> bool:
        """Every step is complete."""
        return self.step >= len(self.steps)

    @property
    def prompt(self) -> str:
        """What the user is asked to do now."""
        if self.done:
            return "done: press Enter to save, Backspace to undo"
        kind, name = self.steps[self.step]
        if kind == "polygon":
            what = "the shared area" if name == "shared_area" else f"{name}'s zone (layout)"
            return f"click the corners of {what}; Enter when done ({len(self.points[self.step])} points)"
        return f"click two opposite corners of a box on {name}'s card back, shown to the camera"

    def click(self, x: float, y: float) -> None:
        """A left click at pixel ``(x, y)``. Ignored once done."""
        if self.done:
            return
        self.points[self.step].append((float(x), float(y)))
        kind, _ = self.steps[self.step]
        if kind == "box" and len(self.points[self.step]) == 2:
            p, q = self.points[self.step]
            if abs(p[0] - q[0]) < 2 or abs(p[1] - q[1]) < 2:
                self.points[self.step].pop()  # a box needs some size: wait for another corner
                return
            self.step += 1

    def finish(self) -> str | None:
        """End the current polygon (Enter). Returns None, or why it cannot end yet."""
        if self.done:
            return None
        kind, name = self.steps[self.step]
        if kind != "polygon":
            return "click two corners of the box"
        pts = self.points[self.step]
        if len(pts) < 3:
            return f"{name}: a polygon needs at least 3 points, it has {len(pts)}"
        if _area(np.array(pts)) < 1.0:
            return f"{name}: the points lie on a line"
        self.step += 1
        return None

    def undo(self) -> None:
        """Remove the last point; with none in this step, reopen the previous step."""
        if not self.done and self.points[self.step]:
            self.points[self.step].pop()
            return
        if self.step > 0:
            self.step -= 1
            if self.points[self.step]:
                self.points[self.step].pop()

    def result(self, image: np.ndarray) -> dict[str, Any]:
        """The table-file dict (back colours measured in ``image``, ``(H, W, 3) uint8`` BGR).

        Raises:
            CalibrationError: not every step is done.
        """
        if not self.done:
            raise CalibrationError(f"manual calibration not finished: {self.prompt}")
        k = len(self.names)
        shared = self.points[0]
        zones = {n: [list(p) for p in self.points[1 + i]] for i, n in enumerate(self.names)}
        boxes = [np.array([*self.points[1 + k + i][0], *self.points[1 + k + i][1]]) for i in range(k)]
        colours = register_backs(image, boxes)
        return {"players": [{"name": n, "back": c} for n, c in zip(self.names, colours)],
                "shared_area": [list(p) for p in shared], "zones": zones,
                "calibration": {"method": "manual", "frame_size": [image.shape[1], image.shape[0]]}}

    def draw(self, image: np.ndarray) -> np.ndarray:
        """``image`` with everything clicked so far and the prompt drawn on it."""
        out = image.copy()
        for s, ((kind, name), pts) in enumerate(zip(self.steps, self.points)):
            if not pts:
                continue
            col = (255, 255, 255) if name == "shared_area" else _PALETTE[self.names.index(name) % len(_PALETTE)]
            p = np.round(np.array(pts)).astype(np.int32)
            if kind == "polygon":
                cv2.polylines(out, [p], s != self.step, col, 2)
            elif len(p) == 2:
                cv2.rectangle(out, tuple(p[0]), tuple(p[1]), col, 2)
            for q in p:
                cv2.circle(out, tuple(q), 4, col, -1)
        cv2.rectangle(out, (0, 0), (out.shape[1], 32), (0, 0, 0), -1)
        cv2.putText(out, self.prompt, (8, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 1, cv2.LINE_AA)
        return out


def run_manual(image: np.ndarray, names: Sequence[str], window: str = "nertz calibrate") -> dict[str, Any]:
    """The manual calibration in an OpenCV window: left click adds a point, Enter (or Space)
    ends a polygon and, at the end, saves; Backspace (or u) undoes; Esc (or q) cancels.

    Returns:
        the table-file dict (not yet validated).

    Raises:
        CalibrationError: no display to open a window on, or cancelled.
    """
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        raise CalibrationError("no display for the calibration window (DISPLAY is not set): run it on the "
                               "computer with the screen, use the automatic path, or set the zones in the web page")
    state = ManualCalibration(names)
    message = [""]

    def on_mouse(event: int, x: int, y: int, flags: int, param: Any) -> None:
        if event == cv2.EVENT_LBUTTONDOWN:
            state.click(x, y)

    try:
        cv2.namedWindow(window, cv2.WINDOW_NORMAL)
        cv2.setMouseCallback(window, on_mouse)
        while True:
            view = state.draw(image)
            if message[0]:
                cv2.putText(view, message[0], (8, view.shape[0] - 12), cv2.FONT_HERSHEY_SIMPLEX, 0.6,
                            (0, 0, 255), 2, cv2.LINE_AA)
            cv2.imshow(window, view)
            key = cv2.waitKey(30) & 0xFF
            if key in (13, 10, 32):
                if state.done:
                    break
                message[0] = state.finish() or ""
            elif key in (8, 127, ord("u")):
                state.undo()
                message[0] = ""
            elif key in (27, ord("q")):
                raise CalibrationError("calibration cancelled")
    except cv2.error as e:
        raise CalibrationError(f"cannot open the calibration window ({e.err or e}): use the automatic path or "
                               f"set the zones in the web page") from None
    finally:
        try:
            cv2.destroyWindow(window)
        except cv2.error:
            pass
    return state.result(image)
