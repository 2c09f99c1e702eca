"""Whose arm is it? The direction of the arm behind a hand over the shared area.

A hand over the foundations is joined by its forearm to its player, who sits at the table's
edge behind their layout zone. :class:`ArmReader` keeps a background model of the table
(OpenCV's Gaussian-mixture background subtractor, MOG2, on a small copy of every look's frame)
and, for each hand box over the shared area, reads the foreground in a ring around the box:
the arm is the stretch of the ring that moved in recently, and the player is the one whose
layout zone the arm's direction points into. This cue reads pixels (the hand tracker does not:
:class:`~nertz.vision.hands.HandTracker` takes the readings as given) and does not depend on
linking the hand over time, which swaps tracks when two hands meet over the foundations.

Measured on rendered rounds r9330 and r9340 (766 hands over the shared area, the labels'
boxes): the best direction named the hand's player for 89 % of the hands; where its score beat
the next player's by at least ``margin`` (0.15: the share of the ring's samples in that
direction that are foreground), for 560 of 572 (98 %), which is what
:meth:`ArmReader.owners` returns (None for the rest).
"""

from __future__ import annotations

import cv2
import numpy as np

__all__ = ["ArmReader"]


class ArmReader:
    """The player each hand's arm reaches back to, from a background model of the table.

    Args:
        zones: each player's layout zone, ``(N, 2)`` polygon in frame pixels.
        shared: the shared area's ``(N, 2)`` polygon in frame pixels; only hands whose box
            centre lies in it are read (elsewhere the arm is short and the hand in its zone).
        scale: frames are modelled at this scale (0.25: 1280 x 720 -> 320 x 180).
        history: looks the background model remembers (MOG2's ``history``; 200 looks at 10
            looks a second: 20 s, so a new foundation card joins the background in seconds
            and a resting hand slowly, while an arm reaching in stands out).
        var_threshold: MOG2's ``varThreshold`` (squared Mahalanobis distance of a pixel that is
            foreground).
        ring: inner and outer radius of the ring read around the box's centre, in units of the
            box's larger side (0.6 lies just outside the hand straight out from the box's
            sides, on it towards the corners; 1.5 along the forearm).
        margin: the least lead, in the share of the ring's samples in that direction that are
            foreground, of the best player's direction over the next player's.
        bins: directions the ring is split into (72: 5 degrees each; the profile is smoothed
            over five directions, 25 degrees at 72: a forearm's width at that distance).

    Raises:
        ValueError: ``scale`` not in (0, 1], ``ring`` not ``0 <= inner < outer``, ``bins`` not
            an integer of at least 8, ``margin`` negative, ``history`` under 1 or
            ``var_threshold`` not positive.
    """

    def __init__(self, zones: dict[str, np.ndarray], shared: np.ndarray, scale: float = 0.25,
                 history: int = 200, var_threshold: float = 25.0, ring: tuple[float, float] = (0.6, 1.5),
                 margin: float = 0.15, bins: int = 72) -> None:
        if not 0 < scale <= 1:
            raise ValueError(f"scale must be in (0, 1], not {scale}")
        if not 0 <= ring[0] < ring[1]:
            raise ValueError(f"ring must be (inner, outer) with 0 <= inner < outer, not {ring}")
        if not isinstance(bins, (int, np.integer)) or bins < 8:
            raise ValueError(f"bins must be an integer of at least 8, not {bins}")
        if margin < 0 or history < 1 or var_threshold <= 0:
            raise ValueError(f"need margin >= 0, history >= 1 and var_threshold > 0 "
                             f"(not {margin}, {history}, {var_threshold})")
        self.zones = {n: np.asarray(z, np.float32).reshape(-1, 2) for n, z in zones.items()}
        self.shared = np.asarray(shared, np.float32).reshape(-1, 1, 2)
        self.scale = scale
        self.ring = ring
        self.margin = margin
        self._angles = (np.arange(bins) + 0.5) * 2 * np.pi / bins
        self._radii = np.linspace(ring[0], ring[1], 8)
        self._model = cv2.createBackgroundSubtractorMOG2(history=history, varThreshold=var_threshold,
                                                         detectShadows=False)
        self.foreground: np.ndarray | None = None
        """``(h, w) uint8`` the latest look's foreground mask at ``scale`` (255: foreground),
        None before the first :meth:`push`."""

    def push(self, frame: np.ndarray) -> None:
        """Update the background model with a look's frame (``(H, W, 3) uint8`` BGR) and keep
        its foreground mask. Call it for every look, hands or not, in time order."""
        small = cv2.resize(frame, None, fx=self.scale, fy=self.scale, interpolation=cv2.INTER_AREA)
        self.foreground = self._model.apply(small)

    def profile(self, box: np.ndarray) -> np.ndarray:
        """``(bins,)`` float: per direction (angle ``(k + 0.5) * 360 / bins`` degrees from the
        image's x axis, y down), the share of the ring's samples around ``box`` (``(4,)`` xyxy
        pixels) that are foreground, smoothed over five directions. Zeros before :meth:`push`."""
        fg = self.foreground
        n = len(self._angles)
        if fg is None:
            return np.zeros(n)
        box = np.asarray(box, np.float32).reshape(4)
        c = (box[:2] + box[2:]) / 2
        r = self._radii * float(max(box[2] - box[0], box[3] - box[1], 1.0))
        xs = (c[0] + np.outer(np.cos(self._angles), r)) * self.scale
        ys = (c[1] + np.outer(np.sin(self._angles), r)) * self.scale
        h, w = fg.shape
        inside = (xs >= 0) & (ys >= 0) & (xs < w) & (ys < h)
        hit = fg[np.clip(ys.astype(np.int32), 0, h - 1), np.clip(xs.astype(np.int32), 0, w - 1)] > 0
        prof = (hit & inside).mean(axis=1)
        return np.convolve(np.r_[prof[-2:], prof, prof[:2]], np.ones(5) / 5, "valid")

    def scores(self, box: np.ndarray) -> dict[str, float]:
        """Per player, the largest :meth:`profile` value over the directions that point into
        their zone from the box's centre (:meth:`directions_into`)."""
        box = np.asarray(box, np.float32).reshape(4)
        c = (box[:2] + box[2:]) / 2
        prof = self.profile(box)
        return {name: float(prof[self.directions_into(poly, c)].max()) for name, poly in self.zones.items()}

    def directions_into(self, polygon: np.ndarray, centre: np.ndarray) -> np.ndarray:
        """``(bins,)`` bool: the ring's directions that point into ``polygon`` (``(N, 2)``
        pixels, convex or not) seen from ``centre`` (``(2,)`` pixels): those within the angle
        one of its edges spans from there (a segment spans less than half a turn, so the
        shorter way round; the edges together span every direction the polygon covers); the
        one nearest its corners' mean direction for a polygon too narrow to hold one; all of
        them when ``centre`` lies inside it."""
        poly = np.asarray(polygon, np.float32).reshape(-1, 2)
        if cv2.pointPolygonTest(poly.reshape(-1, 1, 2), (float(centre[0]), float(centre[1])), False) >= 0:
            return np.ones(len(self._angles), bool)
        a = np.arctan2(poly[:, 1] - centre[1], poly[:, 0] - centre[0])
        span = np.angle(np.exp(1j * (np.roll(a, -1) - a)))  # each edge's turn, (-pi, pi]
        rel = np.angle(np.exp(1j * (self._angles[None, :] - a[:, None])))  # (edges, bins)
        lo, hi = np.minimum(span, 0)[:, None], np.maximum(span, 0)[:, None]
        inside = ((rel >= lo) & (rel <= hi)).any(axis=0)
        if not inside.any():
            mean = np.arctan2(np.sin(a).mean(), np.cos(a).mean())
            inside[int(np.argmin(np.abs(np.angle(np.exp(1j * (self._angles - mean))))))] = True
        return inside

    def owners(self, boxes: np.ndarray) -> list[str | None]:
        """For each hand box (``(M, 4)`` xyxy pixels), the player its arm reaches back to, or
        None: centre outside the shared area, fewer than two players, no :meth:`push` yet, or
        no player's direction ahead of the next by ``margin``."""
        boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
        out: list[str | None] = []
        for b in boxes:
            c = (b[:2] + b[2:]) / 2
            if (self.foreground is None or len(self.zones) < 2
                    or cv2.pointPolygonTest(self.shared, (float(c[0]), float(c[1])), False) < 0):
                out.append(None)
                continue
            sc = self.scores(b)
            first, second = sorted(sc.values(), reverse=True)[:2]
            out.append(max(sc, key=sc.get) if first - second >= self.margin else None)
        return out
