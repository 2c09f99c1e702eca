"""The audit's learned strip detector on ONNX Runtime (no PyTorch): every face-down card's
visible part (a row's strip, a fan's wedge, what shows of a card in a loose heap) as one
oriented box.

Model: ``models/audit_strips.onnx``, a YOLO11n-obb with the card detector's classes ``face
back hand``, fine-tuned from ``models/cards_obb.pt`` on crops of audit scenes
(:mod:`nertz.datasets.audit_export`, trained by ``nertz train audit``; figures in
``models/MODEL_CARD.md``). It is class-agnostic about the back's colour: the owner of each
strip is read afterwards from the table file's registered colours (:func:`strip_owners`).

Run: the part of the photo holding the shared area and the zones is resized by
:data:`nertz.datasets.audit_export.AUDIT_SCALE` times ``1920 / width`` (as in training: a row's
strips are then 10-22 pixels wide), or so that the cards' long side (measured by the audit)
comes within :data:`CARD_INPUT_PX` when it would fall outside, padded to a multiple of 32, and the raw output is decoded
with rotated non-maximum suppression (:func:`nertz.vision.detect.decode_obb`).

Public API: :class:`StripDetector`, :func:`strip_owners`, :func:`own_pixels`, :data:`STRIPS_ONNX`.
"""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np

from nertz.datasets.audit_export import AUDIT_SCALE
from nertz.datasets.export import order_quad

from .detect import MODELS, decode_obb, quad_aspect

__all__ = ["StripDetector", "strip_owners", "strip_middle", "own_pixels", "STRIPS_ONNX", "CARD_INPUT_PX", "MAX_INPUT_SIDE"]

STRIPS_ONNX = MODELS / "audit_strips.onnx"
"""The shipped strip detector."""
CARD_INPUT_PX = (92.0, 140.0)
"""A card's long side at the network's input in the training set: 5th to 95th percentile of
the audit scenes' median card (61-93 pixels at 1920 x 1080, seeds 0-19) times
:data:`~nertz.datasets.audit_export.AUDIT_SCALE`. Photos whose cards measure otherwise (a close
camera, few cards) are resized into this range."""
MAX_INPUT_SIDE = 2880
"""The network input's longer side at most, pixels (a 1920-wide photo's own scale): a card
size measured wrongly small (a few pixels) would otherwise ask for an input of tens of
gigabytes."""
OWN_PIXELS_ASPECT = 0.45
"""A strip at least this square (short side over long) is a card of a heap, or a whole card,
whose middle other cards may cover (the quad of a heap card's visible part is the box around
an L or a corner, and its middle is often the card above): its owner is read on its own pixels
(:func:`own_pixels`). Thin strips (a row's, a fan's wedges, whose boxes overlap their
neighbours' by design) keep the middle. Dev audit scenes 0-19 / 100-119 (learned method, each
found strip matched to a card's visible part): heap cards given the wrong owner 12 -> 1 / 11 ->
2 of 429 / 329, fan wedges 14 -> 15 / 11 -> 12, rows unchanged. Not kept (fans' wrong owners
on seeds 0-19): every strip (0.0) 14 -> 19; from 0.3 with a shrink of 0.9, 14 -> 33."""
OWN_PIXELS_SHRINK = 0.6
"""The part of a strip's quad (shrunk about its centre) whose pixels in no other strip's quad
are its own (:func:`own_pixels`); the quad's rim is left to the card's border and the
neighbours' colour (0.9: heap cards 12 -> 4 wrong owners on dev seeds 0-19, rows 4 -> 12)."""
OWN_PIXELS_LEAST = 0.3
"""Least count of a strip's own pixels, as a share of its middle's, to read the owner on them."""


class StripDetector:
    """Finds the visible part of every card in a photo of spread cards (ONNX Runtime, CPU).

    Args:
        path: the ONNX file (an ultralytics YOLO-OBB export with classes ``face back hand``).
        conf: smallest class score kept. iou: rotated NMS overlap threshold (the visible parts
            of cards in a heap overlap as rectangles). Defaults chosen on audit scenes seeds
            0-19 (mean absolute count error) among conf 0.3-0.45 and iou 0.45-0.6.
        threads: ONNX Runtime threads.

    Raises:
        nertz.vision.detect.ModelError: the file is missing, broken, or not such a model.
    """

    def __init__(self, path: str | Path = STRIPS_ONNX, conf: float = 0.35, iou: float = 0.45,
                 threads: int = 2) -> None:
        from .detect import ModelError, _names, _session

        self.sess = _session(Path(path), threads)
        self.names = _names(self.sess)
        if self.sess.get_modelmeta().custom_metadata_map.get("task") != "obb":
            raise ModelError(f"{path} is not an oriented-box (YOLO-OBB) model")
        if tuple(self.names[i] for i in sorted(self.names)) != ("face", "back", "hand"):
            raise ModelError(f"strip detector classes {self.names} are not ('face', 'back', 'hand')")
        self.conf, self.iou = conf, iou

    def __call__(self, image: np.ndarray, box: tuple[int, int, int, int] | None = None,
                 card_long: float | None = None, zoom: float = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Detect in ``image[y0:y1, x0:x1]`` (``box = (x0, y0, x1, y1)`` pixels; None: all).

        Args:
            image: ``(H, W, 3) uint8`` BGR photo (its width sets the scale).
            card_long: the cards' long side in image pixels when known: the scale is then
                kept such that it comes to :data:`CARD_INPUT_PX` (the range seen in training),
                unless the input's longer side would pass :data:`MAX_INPUT_SIDE`.
            zoom: the scale so found times this (a fan's thin wedges are found better a little
                larger than the cards of training: :data:`nertz.vision.audit.FAN_ZOOM`).

        Returns:
            ``quads (N, 4, 2) float32`` image pixels, ``scores (N,)``, ``class_id (N,)``
            (0 face, 1 back, 2 hand), best first.
        """
        ran = self._forward(image, box, card_long, zoom)
        if ran is None:
            return np.zeros((0, 4, 2), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64)
        out, s, x0, y0 = ran
        quads, score, cls = decode_obb(out, s, self.conf, self.iou, max_det=2000)
        return quads + np.array([x0, y0], np.float32), score, cls

    def with_candidates(self, image: np.ndarray, box: tuple[int, int, int, int] | None = None,
                        card_long: float | None = None, weak: float = 0.15, zoom: float = 1.0
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """As :meth:`__call__` (one run of the network), plus the weak ``back`` boxes: every
        anchor's box whose ``back`` score lies in ``[weak, conf)``, before any suppression
        (the thin wedges of a fan the model scores low: :func:`nertz.vision.audit._fan_gaps`
        picks among them).

        Returns:
            ``quads, scores, class_id`` as :meth:`__call__`, then ``weak_quads (M, 4, 2)
            float32`` image pixels and ``weak_scores (M,)``, best first.
        """
        none = np.zeros((0, 4, 2), np.float32), np.zeros(0, np.float32)
        ran = self._forward(image, box, card_long, zoom)
        if ran is None:
            return (*none, np.zeros(0, np.int64), *none)
        out, s, x0, y0 = ran
        quads, score, cls = decode_obb(out, s, self.conf, self.iou, max_det=2000)
        p = out[0].T
        sc = p[:, 4 + 1]  # the "back" class
        pick = np.flatnonzero((sc >= weak) & (sc < self.conf) & (p[:, 4:7].argmax(axis=1) == 1))
        pick = pick[np.argsort(-sc[pick])]
        deg = np.degrees(p[pick, 7])
        wq = (np.stack([order_quad(cv2.boxPoints(((float(a[0]), float(a[1])), (float(a[2]), float(a[3])),
                                                  float(d))) / s)
                        for a, d in zip(p[pick, :4], deg)]).astype(np.float32) if len(pick) else none[0])
        off = np.array([x0, y0], np.float32)
        return quads + off, score, cls, wq + off, sc[pick].astype(np.float32)

    def _forward(self, image: np.ndarray, box: tuple[int, int, int, int] | None,
                 card_long: float | None, zoom: float = 1.0) -> tuple[np.ndarray, float, int, int] | None:
        """The network's raw output on the boxed part of ``image`` at the audit's scale:
        ``(output, scale, x0, y0)``, or None for a box under 8 pixels a side."""
        H, W = image.shape[:2]
        x0, y0, x1, y1 = box if box is not None else (0, 0, W, H)
        x0, y0, x1, y1 = max(0, int(x0)), max(0, int(y0)), min(W, int(x1)), min(H, int(y1))
        if x1 - x0 < 8 or y1 - y0 < 8:
            return None
        s = AUDIT_SCALE * 1920.0 / W
        if card_long is not None and card_long > 0:
            s = float(np.clip(s, CARD_INPUT_PX[0] / card_long, CARD_INPUT_PX[1] / card_long))
        s = min(s * zoom, MAX_INPUT_SIDE / max(x1 - x0, y1 - y0))
        sub = image[y0:y1, x0:x1]
        nw, nh = max(1, round((x1 - x0) * s)), max(1, round((y1 - y0) * s))
        resized = cv2.resize(sub, (nw, nh), interpolation=cv2.INTER_LINEAR if s > 1 else cv2.INTER_AREA)
        th, tw = math.ceil(nh / 32) * 32, math.ceil(nw / 32) * 32
        canvas = np.full((th, tw, 3), 114, np.uint8)
        canvas[:nh, :nw] = resized
        blob = cv2.dnn.blobFromImage(canvas, 1 / 255.0, swapRB=True)
        return self.sess.run(None, {self.sess.get_inputs()[0].name: blob})[0], s, x0, y0


def strip_middle(quad: np.ndarray, shape: tuple[int, ...], shrink: float) -> tuple[int, int, np.ndarray] | None:
    """The middle of a strip: its quad (``(4, 2)`` image pixels) shrunk about its centre by
    ``shrink``, rasterised (quarter-pixel corners) inside an image of ``shape`` ``(H, W, ...)``.

    Returns:
        ``(x0, y0, mask)``: the mask's top-left corner in the image and ``(h, w) uint8`` the
        mask (1 inside); None when the middle lies outside the image.
    """
    H, W = shape[:2]
    q = np.asarray(quad, np.float64)
    c = q.mean(axis=0)
    qq = c + (q - c) * shrink
    x0, y0 = np.floor(qq.min(axis=0)).astype(int)
    x1, y1 = np.ceil(qq.max(axis=0)).astype(int) + 1
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    if x1 <= x0 or y1 <= y0:
        return None
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(m, np.round((qq - [x0, y0]) * 4).astype(np.int32), 1, cv2.LINE_8, 2)
    return int(x0), int(y0), m


def own_pixels(quads: np.ndarray, k: int, shape: tuple[int, ...],
               shrink: float = OWN_PIXELS_SHRINK, centres: np.ndarray | None = None
               ) -> tuple[int, int, np.ndarray] | None:
    """The pixels of strip ``k`` that no other strip's quad covers: its quad shrunk about its
    centre by ``shrink``, less every other quad (of the strips whose centres lie within twice
    its extent), as :func:`strip_middle` returns a mask.

    Args:
        quads: ``(N, 4, 2)`` image pixels, every strip found. k: the strip. shape: the image's
            ``(H, W, ...)``.
        centres: ``(N, 2)`` the quads' centres when already known (None: computed here).

    Returns:
        ``(x0, y0, mask)`` (``(h, w) uint8``), or None when the part lies outside the image.
    """
    qs = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    part = strip_middle(qs[k], shape, shrink)
    if part is None:
        return None
    x0, y0, m = part
    m = m.copy()
    ctr = qs.mean(axis=1) if centres is None else centres
    reach = 2.0 * float(np.ptp(qs[k], axis=0).max()) + 1.0
    for j in np.flatnonzero(np.hypot(*(ctr - ctr[k]).T) < reach):
        if j != k:
            cv2.fillConvexPoly(m, np.round((qs[j] - [x0, y0]) * 4).astype(np.int32), 0, cv2.LINE_8, 2)
    return x0, y0, m


def strip_owners(quads: np.ndarray, labels: np.ndarray, min_share: float = 0.15,
                 shrink: float = 0.35, own_aspect: float | None = OWN_PIXELS_ASPECT) -> np.ndarray:
    """The registered back of each detected strip: the most frequent back colour among the
    pixels of the strip's middle (the quad shrunk about its centre by ``shrink``), or, for a
    strip at least ``own_aspect`` square (short side over long; None: never), among its own
    pixels (:func:`own_pixels`) when there are enough of them.

    Args:
        quads: ``(N, 4, 2)`` image pixels.
        labels: ``(H, W) uint8`` per pixel the player index + 1 of the nearest registered back
            colour within the distance limit, 0 for none (the audit's colour map, without the
            cloth exclusion: a strip's pixels are a card's).
        min_share: least share of the middle's pixels having a back colour; under it the strip
            is an unregistered back (0).
        own_aspect: see above (:data:`OWN_PIXELS_ASPECT`).

    Returns:
        ``(N,) int`` player index + 1, or 0 (unknown back).
    """
    out = np.zeros(len(quads), np.int64)
    qs = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    square = 1.0 / quad_aspect(qs)  # short side over long
    centres = qs.mean(axis=1)
    for k, q in enumerate(qs):
        middle = strip_middle(q, labels.shape, shrink)
        if middle is None:
            continue
        x0, y0, m = middle
        if own_aspect is not None and square[k] >= own_aspect:
            own = own_pixels(qs, k, labels.shape, centres=centres)
            if own is not None and own[2].sum() >= max(6, OWN_PIXELS_LEAST * m.sum()):
                x0, y0, m = own
        v = labels[y0:y0 + m.shape[0], x0:x0 + m.shape[1]][m > 0]
        if len(v) == 0:
            c = q.mean(axis=0)
            cx, cy = int(np.clip(c[0] - x0, 0, m.shape[1] - 1)), int(np.clip(c[1] - y0, 0, m.shape[0] - 1))
            v = labels[y0 + cy:y0 + cy + 1, x0 + cx:x0 + cx + 1].ravel()
        on = v[v > 0]
        if len(on) >= max(1, min_share * len(v)):
            out[k] = int(np.bincount(on).argmax())
    return out
