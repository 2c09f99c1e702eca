"""Axis-aligned box overlap, the one helper behind "is this card under a hand?".

Boxes are ``[x0, y0, x1, y1]`` in frame pixels (``x1 > x0``, ``y1 > y0``), as
:attr:`nertz.vision.detect.Detections.boxes` and the hand boxes of a look. The detector, the
observer (which classifier reads a face partly under a hand), the tracker (is a pile's top or a
zone card hidden) and the referee's evaluation all ask the same question through these.
"""

from __future__ import annotations

import cv2
import numpy as np

__all__ = ["box_coverage", "boxes_overlap", "polygons_overlap", "under_hand"]


def box_coverage(boxes: np.ndarray, others: np.ndarray) -> np.ndarray:
    """The share of each box's area that each other box covers.

    Args:
        boxes: ``(N, 4)`` xyxy pixels.
        others: ``(M, 4)`` xyxy pixels.

    Returns:
        ``(N, M) float32`` in 0..1: intersection area over the area of ``boxes[i]`` (a box of no
        area counts as 1e-6 square pixels). Boxes that only touch along an edge give 0.
    """
    b = np.asarray(boxes, np.float32).reshape(-1, 4)
    o = np.asarray(others, np.float32).reshape(-1, 4)
    iw = np.clip(np.minimum(b[:, None, 2], o[None, :, 2]) - np.maximum(b[:, None, 0], o[None, :, 0]), 0, None)
    ih = np.clip(np.minimum(b[:, None, 3], o[None, :, 3]) - np.maximum(b[:, None, 1], o[None, :, 1]), 0, None)
    area = np.maximum((b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1]), 1e-6)
    return (iw * ih / area[:, None]).astype(np.float32)


def boxes_overlap(box: np.ndarray, others: np.ndarray) -> float:
    """The largest share of ``box`` ``(4,)`` xyxy covered by any of ``others`` ``(M, 4)``
    xyxy (0.0 when there are none)."""
    cover = box_coverage(box, others)
    return float(cover.max()) if cover.size else 0.0


def under_hand(boxes: np.ndarray, hands: np.ndarray) -> np.ndarray:
    """Which of ``boxes`` ``(N, 4)`` xyxy pixels any of ``hands`` ``(M, 4)`` xyxy overlaps (a
    positive intersection area): ``(N,) bool``, all False when there are no hands."""
    cover = box_coverage(boxes, hands)
    return (cover > 0).any(axis=1) if cover.shape[1] else np.zeros(len(cover), bool)


def polygons_overlap(box: np.ndarray, polygons: np.ndarray) -> float:
    """The largest share of ``box`` ``(4,)`` xyxy pixels covered by any of ``polygons``
    ``(M, K, 2)`` convex polygons in pixels (forearms: :func:`nertz.vision.hands.forearm`);
    0.0 when there are none or the box has no area."""
    b = np.asarray(box, np.float32).reshape(4)
    area = float((b[2] - b[0]) * (b[3] - b[1]))
    if area <= 0:
        return 0.0
    rect = np.array([[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]], np.float32)
    best = 0.0
    for poly in polygons:
        poly = np.asarray(poly, np.float32).reshape(-1, 2)
        if len(poly) < 3 or cv2.contourArea(poly) <= 0:
            continue
        inter, _ = cv2.intersectConvexConvex(rect, poly)
        best = max(best, float(inter) / area)
    return min(best, 1.0)
