"""Card detection and identification on ONNX Runtime, OpenCV and NumPy (no PyTorch).

Pipeline (models from :mod:`nertz.vision.train`, shipped in ``models/``):

1. **Detector**: ``models/cards_obb.onnx`` (YOLO11n-obb, oriented boxes: a whole card's quad,
   the minimum-area rectangle of a covered card's visible part) when shipped, else
   ``models/cards_det.onnx`` (YOLO11n, axis-aligned boxes; ``quads`` are then the box corners).
   Classes ``face back hand``. The frame is
   letterboxed so its longer side is ``imgsz`` (640: a 1280 x 720 frame runs at scale 0.5 as a
   384 x 640 tensor, the model's input is dynamic), the raw output ``(1, 4 + C, A)`` (box
   centre, size in input pixels, then class scores) is decoded, filtered by confidence and
   reduced by class-wise non-maximum suppression (``cv2.dnn.NMSBoxesBatched``). Each box is the
   *visible part* of a card (the strip of a cascaded card, the whole top card; see
   :mod:`nertz.datasets.export` for why).
2. **Rectified-card classifier** (``models/cards_id.onnx``, YOLO11n-cls, 53 classes, 64 x 64):
   every face whose quad has a whole card's shape (:func:`whole_card`) is warped upright from
   its quad (:func:`nertz.datasets.export.rectify_card`, the same warp as in training) and
   named (``7S``, ``TH``, ``JK``); :meth:`CardRecognizer.identify_quads` does the same for quads
   the caller chooses (the tracker's entry point). A face that a hand box overlaps (a card
   partly under a player's hand) is read instead by the **covered-card classifier**
   (``models/cards_id_covered.onnx``, the same network fine-tuned on partly covered cards as
   the detector boxes them) when it is shipped: it reads such cards better and whole cards a
   little worse (see ``models/MODEL_CARD.md``), so each reads what it is best at.
3. **Strip classifier** (``models/cards_strip.onnx``, YOLO11n-cls, 53 classes, 96 x 96): with
   the oriented-box detector, the other faces (strips of cascaded cards, edges of fanned
   ones, partly covered cards) are warped from their oriented boxes with the aspect kept,
   long side horizontal (:func:`nertz.datasets.export.rectify_strip`), and named both ways up.
   Without it (or with the axis-aligned detector) the **crop classifier**
   (``models/cards_cls.onnx``) names them from the square around their box, grey beyond the
   box (:func:`nertz.datasets.export.card_crop`).
4. **Backs**: every back box is matched by colour against the table's players
   (:class:`nertz.vision.backs.BackMatcher`).

Public API: :class:`Detections`, :class:`CardRecognizer`, :func:`load_image`, :class:`ImageError`,
:func:`letterbox`, :func:`decode_yolo`, :func:`decode_obb`, :func:`whole_card`.
"""

from __future__ import annotations

import ast
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from nertz.datasets.export import DETECT_CLASSES, card_crop, order_quads, rectify_card, rectify_strip
from nertz.referee.errors import NertzError
from nertz.referee.table import Table

from .backs import UNKNOWN, BackMatcher
from .boxes import under_hand
from .card_axes import CardAxes

__all__ = ["Detections", "CardRecognizer", "ImageError", "ModelError", "load_image", "save_image", "letterbox",
           "decode_yolo", "decode_obb", "whole_card", "quad_aspect", "WHOLE_TILT_DEG", "TABLE_VIEW_TILT_DEG", "MODELS",
           "DETECTOR_ONNX", "OBB_ONNX", "CLASSIFIER_ONNX", "IDENTIFIER_ONNX", "COVERED_ONNX", "STRIP_ONNX",
           "default_detector", "refine_quad", "under_hand", "box_points", "SURE_READ", "is_greyscale",
           "GREY_TOLERANCE"]

MODELS = Path(__file__).resolve().parent.parent / "models"
DETECTOR_ONNX = MODELS / "cards_det.onnx"
"""Axis-aligned detector (YOLO11n)."""
OBB_ONNX = MODELS / "cards_obb.onnx"
"""Oriented-box detector (YOLO11n-obb): real quads."""
CLASSIFIER_ONNX = MODELS / "cards_cls.onnx"
"""Crop classifier (square crops around the visible part)."""
IDENTIFIER_ONNX = MODELS / "cards_id.onnx"
"""Rectified-card classifier (whole cards warped upright from their quads)."""
COVERED_ONNX = MODELS / "cards_id_covered.onnx"
"""Covered-card classifier (the rectified-card classifier fine-tuned on partly covered cards):
reads the whole-shaped faces that a hand box overlaps."""
STRIP_ONNX = MODELS / "cards_strip.onnx"
"""Strip classifier (the visible parts of partly covered cards, warped with their aspect kept)."""
STRIP_PAD = 1.1
"""Growth of a strip's oriented box about its centre before it is read (the middle of the
training range 1.0-1.25, :func:`nertz.datasets.export.rectify_strip`)."""

CARD_ASPECT = 88.0 / 63.0
"""Long side over short side of a poker card (63 x 88 mm)."""


def default_detector() -> Path:
    """The oriented-box detector when shipped, else the axis-aligned one."""
    return OBB_ONNX if OBB_ONNX.is_file() else DETECTOR_ONNX


WHOLE_TILT_DEG = 40.0
"""The steepest view (degrees off the table's normal, camera tilt and the ray's own angle
together) at which :func:`whole_card` takes a face for a whole card, for photos
(``nertz detect``, ``nertz eval``). See :data:`TABLE_VIEW_TILT_DEG` for the referee's camera."""

TABLE_VIEW_TILT_DEG = 45.0
""":data:`WHOLE_TILT_DEG` for a webcam looking at a whole table at an angle (the referee's
observer, :func:`nertz.vision.observe.referee_observer`). Label quads of 12 rendered rounds
(r9201-r9212, every 60th frame, 8,265 unoccluded face-up cards and 6,431 strips): at 40 degrees
92.9 % of whole cards passed the test (r9209, camera tilted 35 degrees: 72 %; a foundation pile
went unseen for 7 s there), at 45 degrees 99.4 %, at 50 degrees 100 %; strips taken for whole
cards 25.1 %, 26.6 %, 27.4 %. End to end on those rounds (models, true counts) plays all right
565 -> 567 of 621, points off 29 -> 25; on held-out r9218-r9221 (no camera that steep) level,
196 plays, one extra play more; on r9225, rendered after the choice with a camera tilted 34
degrees, 35 -> 43 of 67 plays all right and 15 -> 5 extra. Photos keep 40: on the
evaluation-only blackjack photos (close overhead shots of overlapping stacks) 45 totalled 64
of 180 stacks right against 71.
45 also takes a bridge-size card (89 x 57 mm, aspect 1.56) at up to 38 degrees, 40 up to 31.
From 44.3 degrees on the lower bound (``CARD_ASPECT * cos``) falls below 1 and no longer
applies: any squarish face passes, only faces too long for a card are strips."""


def whole_card(quads: np.ndarray, tilt_deg: float | None = None) -> np.ndarray:
    """Whether each quad has the shape of a whole card: long over short side (means of the
    opposite sides) between ``CARD_ASPECT * cos(tilt)`` and ``CARD_ASPECT / cos(tilt)`` (a card
    seen at up to ``tilt_deg`` off the vertical is foreshortened along one axis by
    ``cos(tilt)``; default :data:`WHOLE_TILT_DEG`). A strip of a cascaded card is far longer
    for its width (about 3:1).

    Args:
        quads: ``(N, 4, 2)`` pixels, corners in cyclic order.
        tilt_deg: the steepest view, degrees off the table's normal (the vertical, for a
            table); None: :data:`WHOLE_TILT_DEG`.

    Returns:
        ``(N,) bool``.
    """
    tilt_deg = WHOLE_TILT_DEG if tilt_deg is None else tilt_deg
    r = quad_aspect(quads)
    c = math.cos(math.radians(tilt_deg))
    return (r >= CARD_ASPECT * c) & (r <= CARD_ASPECT / c)


def quad_aspect(quads: np.ndarray) -> np.ndarray:
    """Long over short side of each quad (means of the opposite sides; at least 1).

    Args:
        quads: ``(N, 4, 2)`` pixels, corners in cyclic order.

    Returns:
        ``(N,) float64``.
    """
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    a = (np.linalg.norm(q[:, 1] - q[:, 0], axis=1) + np.linalg.norm(q[:, 2] - q[:, 3], axis=1)) / 2
    b = (np.linalg.norm(q[:, 3] - q[:, 0], axis=1) + np.linalg.norm(q[:, 2] - q[:, 1], axis=1)) / 2
    return np.maximum(a, b) / np.maximum(np.minimum(a, b), 1e-6)


class ImageError(NertzError, ValueError):
    """An image file that cannot be read (missing, not an image, unsupported format)."""


class ModelError(NertzError):
    """A model file that is missing or cannot be loaded."""


MAX_IMAGE_PIXELS = 40_000_000
"""The largest image file read, pixels (width x height; as the service's photos): a 12 MP phone
photo is read, a larger one refused before it is decoded where its header says its size."""


def load_image(path: str | Path) -> np.ndarray:
    """Read an image file as ``(H, W, 3) uint8`` BGR.

    Raises:
        ImageError: the file is missing, is not an image OpenCV can decode, or is larger than
            :data:`MAX_IMAGE_PIXELS` (judged from its header, read by Pillow, before it is
            decoded, where Pillow knows the format).
    """
    p = Path(path)
    if p.is_dir():
        raise ImageError(f"{path}: a folder, not an image (give its image files, e.g. {p / '*.jpg'})")
    if not p.is_file():
        raise ImageError(f"{path}: no such image file")
    _check_size(path, _declared_size(p))
    data = np.fromfile(str(p), np.uint8)
    img = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if img is None:
        raise ImageError(f"{path}: not an image OpenCV can read")
    _check_size(path, (img.shape[1], img.shape[0]))
    return img


def _declared_size(path: Path) -> tuple[int, int] | None:
    """``(width, height)`` pixels from the file's header (Pillow decodes nothing until asked);
    None when Pillow cannot tell.

    Raises:
        ImageError: the header declares more pixels than Pillow will even open.
    """
    import warnings

    from PIL import Image

    try:
        with warnings.catch_warnings():  # the size is judged by the caller, against our own limit
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(path) as im:
                return int(im.size[0]), int(im.size[1])
    except Image.DecompressionBombError:  # over twice Pillow's own limit (about 179 MP)
        raise ImageError(f"{path}: over {2 * Image.MAX_IMAGE_PIXELS // 1_000_000} megapixels, too large to read "
                         f"(at most {MAX_IMAGE_PIXELS // 1_000_000}): scale it down first") from None
    except Exception:  # noqa: BLE001 - any format Pillow cannot read is left to OpenCV
        return None


def _check_size(path: str | Path, size: tuple[int, int] | None) -> None:
    if size is not None and size[0] * size[1] > MAX_IMAGE_PIXELS:
        raise ImageError(f"{path}: {size[0]}x{size[1]} pixels is too large to read (at most "
                         f"{MAX_IMAGE_PIXELS // 1_000_000} megapixels): scale it down first")


GREY_TOLERANCE = 3
"""Channels that differ by at most this much (0..255) everywhere make a greyscale image (a
grey JPEG decoded to colour may differ by a level or so in places)."""


def is_greyscale(image: np.ndarray) -> bool:
    """Whether an image carries no colour: one channel, or three (BGR) that differ by at most
    :data:`GREY_TOLERANCE` at every pixel (a greyscale file of 8 or 16 bits, read by
    :func:`load_image` as three equal channels). In such an image red suits cannot be told from
    black ones, nor one back colour from another.

    Args:
        image: ``(H, W)``, ``(H, W, 1)`` or ``(H, W, 3)``, any dtype (8-bit for the tolerance
            to mean levels of 255).
    """
    if image.ndim == 2 or image.shape[2] == 1:
        return True
    if image.size == 0:
        return False
    b, g, r = image[..., 0], image[..., 1], image[..., 2]
    if image.dtype == np.uint8:
        return int(cv2.absdiff(b, g).max()) <= GREY_TOLERANCE and int(cv2.absdiff(g, r).max()) <= GREY_TOLERANCE
    bi, gi, ri = (c.astype(np.float64) for c in (b, g, r))
    return float(np.abs(bi - gi).max()) <= GREY_TOLERANCE and float(np.abs(gi - ri).max()) <= GREY_TOLERANCE


def save_image(path: str | Path, image: np.ndarray) -> None:
    """Write ``image`` (``(H, W, 3) uint8`` BGR) to ``path`` in the format its extension names.

    Raises:
        ImageError: OpenCV has no writer for the extension, or the file cannot be written
            (a missing folder, no permission).
    """
    try:
        ok = cv2.imwrite(str(path), image)
    except cv2.error:
        raise ImageError(f"{path}: no image format for the extension {Path(path).suffix or '(none)'!r}; "
                         "use .png or .jpg") from None
    if not ok:
        raise ImageError(f"{path}: cannot write the image (does its folder exist?)")


@dataclass
class Detections:
    """The cards (and hands) found in one frame, in the style of ``supervision.Detections``.

    ``N`` detections; every array has ``N`` rows, in the same order.

    Attributes:
        quads: ``(N, 4, 2) float32`` corners in frame pixels, clockwise from the corner nearest
            the image's top-left: with the oriented-box detector a whole card's quad (edges
            refitted for whole faces) or the rotated rectangle of a covered card's visible
            part; with the axis-aligned detector the corners of ``boxes``.
        boxes: ``(N, 4) float32`` ``[x0, y0, x1, y1]`` frame pixels.
        confidence: ``(N,) float32`` detector confidence 0..1.
        class_id: ``(N,) int64`` detector class: 0 face, 1 back, 2 hand (:data:`DETECT_CLASSES`).
        labels: ``(N,) object`` str: the card (``"7S"``, ``"JK"``) for a face once identified
            (``""`` before), ``"back"``, or ``"hand"``.
        label_confidence: ``(N,) float32`` the classifier's probability of ``labels`` for a face
            (1.0 for backs and hands, 0.0 before identification).
        owners: ``(N,) object``: a back's matched player name or ``"unknown"``; None for faces
            and hands (and for backs when no table is known).
        back_distance: ``(N,) float32`` colour distance of a back to the matched player (NaN
            otherwise).
        whole: ``(N,) bool`` the quad has a whole card's shape (:func:`whole_card`): a face
            identified by the rectified-card classifier (False for every detection of the
            axis-aligned detector, whose quads are boxes, and for hands).
        raw_quads: ``(N, 4, 2) float32`` the detector's quads before edge refinement (equal to
            ``quads`` where nothing was refined).
    """

    quads: np.ndarray
    boxes: np.ndarray
    confidence: np.ndarray
    class_id: np.ndarray
    labels: np.ndarray
    label_confidence: np.ndarray
    owners: np.ndarray
    back_distance: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    whole: np.ndarray | None = None
    raw_quads: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.whole is None:
            self.whole = np.zeros(len(self.boxes), bool)
        if self.raw_quads is None:
            self.raw_quads = self.quads.copy()

    @classmethod
    def empty(cls) -> "Detections":
        """No detections."""
        return cls.from_boxes(np.zeros((0, 4), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64))

    @classmethod
    def from_boxes(cls, boxes: np.ndarray, confidence: np.ndarray, class_id: np.ndarray) -> "Detections":
        """Detections from ``(N, 4)`` xyxy boxes, ``(N,)`` confidences and ``(N,)`` class ids
        (labels ``back``/``hand`` filled in, faces not yet identified)."""
        boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
        n = len(boxes)
        x0, y0, x1, y1 = boxes.T
        quads = np.stack([np.stack([x0, y0], -1), np.stack([x1, y0], -1), np.stack([x1, y1], -1),
                          np.stack([x0, y1], -1)], axis=1).astype(np.float32).reshape(n, 4, 2)
        class_id = np.asarray(class_id, np.int64).reshape(n)
        labels = np.array([{1: "back", 2: "hand"}.get(int(c), "") for c in class_id], dtype=object)
        return cls(quads, boxes, np.asarray(confidence, np.float32).reshape(n), class_id, labels,
                   np.where(class_id == 0, 0.0, 1.0).astype(np.float32), np.full(n, None, dtype=object),
                   np.full(n, np.nan, np.float32))

    @classmethod
    def from_quads(cls, quads: np.ndarray, confidence: np.ndarray, class_id: np.ndarray,
                   tilt_deg: float | None = None) -> "Detections":
        """Detections from ``(N, 4, 2)`` quads (pixels, clockwise from the top-left as seen),
        ``(N,)`` confidences and ``(N,)`` class ids; ``boxes`` are the quads' bounding boxes and
        ``whole`` marks card-shaped quads of cards (:func:`whole_card` with ``tilt_deg``, degrees;
        None: :data:`WHOLE_TILT_DEG`)."""
        quads = np.asarray(quads, np.float32).reshape(-1, 4, 2)
        d = cls.from_boxes(np.column_stack([quads.min(axis=1), quads.max(axis=1)]), confidence, class_id)
        d.quads = quads.copy()
        d.raw_quads = quads.copy()
        d.whole = whole_card(quads, tilt_deg) & (d.class_id != 2)
        return d

    def __len__(self) -> int:
        return len(self.boxes)

    def __getitem__(self, idx: Any) -> "Detections":
        """A subset (index array, boolean mask or slice)."""
        return Detections(self.quads[idx], self.boxes[idx], self.confidence[idx], self.class_id[idx],
                          self.labels[idx], self.label_confidence[idx], self.owners[idx],
                          self.back_distance[idx], self.whole[idx], self.raw_quads[idx])

    def under_hands(self, idx: Any = slice(None)) -> np.ndarray:
        """``(K,) bool``: which of the detections ``idx`` (index array, mask or slice; all by
        default) one of this frame's hand boxes (``class_id == 2``) overlaps
        (:func:`~nertz.vision.boxes.under_hand`): the faces read by the covered-card
        classifier."""
        return under_hand(self.boxes[idx], self.boxes[self.class_id == 2])

    def cards(self) -> list[dict]:
        """The cards (hands left out) in the contract's form of ``nertz detect``:
        ``{"label", "back", "quad", "confidence"}`` where ``confidence`` is the detector's times
        the classifier's for a face."""
        out = []
        for i in range(len(self)):
            if self.class_id[i] == 2:
                continue
            face = self.class_id[i] == 0
            out.append({
                "label": str(self.labels[i]) if face else "back",
                "back": None if face else (self.owners[i] if self.owners[i] is not None else UNKNOWN),
                "quad": [[round(float(x), 1), round(float(y), 1)] for x, y in self.quads[i]],
                "confidence": round(float(self.confidence[i] * (self.label_confidence[i] if face else 1.0)), 4),
            })
        return out


# ---------------------------------------------------------------------------------------------
def letterbox(image: np.ndarray, imgsz: int = 640, stride: int = 32,
              pad_value: int = 114) -> tuple[np.ndarray, float]:
    """Scale ``image`` so its longer side is ``imgsz`` and pad right/bottom to a multiple of
    ``stride``; returns the network input ``(1, 3, h, w) float32`` RGB in 0..1 and the scale
    (input pixels per image pixel). Image point ``p`` is input point ``p * scale``."""
    h, w = image.shape[:2]
    r = imgsz / max(h, w)
    nw, nh = max(1, round(w * r)), max(1, round(h * r))
    resized = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA if r < 1 else cv2.INTER_LINEAR)
    th, tw = math.ceil(nh / stride) * stride, math.ceil(nw / stride) * stride
    canvas = np.full((th, tw, 3), pad_value, np.uint8)
    canvas[:nh, :nw] = resized
    blob = cv2.dnn.blobFromImage(canvas, 1 / 255.0, swapRB=True)
    return blob, r


def decode_yolo(out: np.ndarray, scale: float, conf: float = 0.25, iou: float = 0.5,
                max_det: int = 400) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Decode an ultralytics YOLO detection head's raw output.

    Args:
        out: ``(1, 4 + C, A)`` float32: per anchor ``cx, cy, w, h`` (input pixels) and ``C``
            class scores (already sigmoid).
        scale: from :func:`letterbox`; boxes are divided by it to return to image pixels.
        conf: smallest class score kept. iou: NMS overlap threshold (per class).

    Returns:
        ``boxes (N, 4) float32`` xyxy image pixels, ``scores (N,) float32``,
        ``class_id (N,) int64``, best first.
    """
    p = out[0].T  # (A, 4 + C)
    scores_all = p[:, 4:]
    cls = scores_all.argmax(axis=1)
    score = scores_all[np.arange(len(p)), cls]
    keep = score >= conf
    p, cls, score = p[keep], cls[keep], score[keep]
    if len(p) == 0:
        return np.zeros((0, 4), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64)
    xywh = np.column_stack([p[:, 0] - p[:, 2] / 2, p[:, 1] - p[:, 3] / 2, p[:, 2], p[:, 3]])
    idx = cv2.dnn.NMSBoxesBatched(xywh.tolist(), score.tolist(), cls.tolist(), conf, iou, top_k=max_det)
    idx = np.asarray(idx, np.int64).reshape(-1)
    idx = idx[np.argsort(-score[idx])]
    b = xywh[idx] / scale
    boxes = np.column_stack([b[:, 0], b[:, 1], b[:, 0] + b[:, 2], b[:, 1] + b[:, 3]]).astype(np.float32)
    return boxes, score[idx].astype(np.float32), cls[idx].astype(np.int64)


def decode_obb(out: np.ndarray, scale: float, conf: float = 0.25, iou: float = 0.5,
               max_det: int = 400) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Decode an ultralytics YOLO-OBB head's raw output.

    Args:
        out: ``(1, 4 + C + 1, A)`` float32: per anchor ``cx, cy, w, h`` (input pixels), ``C``
            class scores (sigmoid) and the angle (radians, the ``cv2.minAreaRect`` convention
            ultralytics trains with).
        scale: from :func:`letterbox`; corners are divided by it to return to image pixels.
        conf: smallest class score kept. iou: rotated NMS overlap threshold, per class
            (``cv2.dnn.NMSBoxesRotated``).

    Returns:
        ``quads (N, 4, 2) float32`` image pixels clockwise from the top-left as seen,
        ``scores (N,) float32``, ``class_id (N,) int64``, best first.
    """
    p = out[0].T  # (A, 4 + C + 1)
    n_cls = p.shape[1] - 5
    scores_all = p[:, 4:4 + n_cls]
    cls = scores_all.argmax(axis=1)
    score = scores_all[np.arange(len(p)), cls]
    keep = score >= conf
    p, cls, score = p[keep], cls[keep], score[keep]
    if len(p) == 0:
        return np.zeros((0, 4, 2), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64)
    # one NMS call for all classes: move each class far from the others
    off = (cls * (p[:, :4].max() + 1e4)).astype(np.float64)
    deg = np.degrees(p[:, 4 + n_cls])
    rects = [((float(x + o), float(y + o)), (float(w), float(h)), float(a))
             for (x, y, w, h), a, o in zip(p[:, :4], deg, off)]
    idx = np.asarray(cv2.dnn.NMSBoxesRotated(rects, score.tolist(), conf, iou), np.int64).reshape(-1)
    idx = idx[np.argsort(-score[idx])][:max_det]
    quads = order_quads(box_points(p[idx, :4], p[idx, 4 + n_cls]) / scale)
    return quads, score[idx].astype(np.float32), cls[idx].astype(np.int64)


def box_points(xywh: np.ndarray, angle: np.ndarray) -> np.ndarray:
    """The corners of rotated rectangles, as ``cv2.boxPoints`` gives them one at a time.

    Args:
        xywh: ``(N, 4)`` centre x, y, width, height (pixels). angle: ``(N,)`` the rotation
            in radians (``cv2.minAreaRect``'s convention, which gives it in degrees).

    Returns:
        ``(N, 4, 2) float64`` pixels, in ``cv2.boxPoints``' order.
    """
    xywh = np.asarray(xywh, np.float64).reshape(-1, 4)
    a = np.asarray(angle, np.float64).reshape(-1)
    cx, cy, w, h = xywh.T
    b, s = np.cos(a) * 0.5, np.sin(a) * 0.5
    p0 = np.stack([cx - s * h - b * w, cy + b * h - s * w], axis=1)
    p1 = np.stack([cx + s * h - b * w, cy - b * h - s * w], axis=1)
    c = np.stack([cx, cy], axis=1)
    return np.stack([p0, p1, 2 * c - p0, 2 * c - p1], axis=1)


def _line_through(pts: np.ndarray) -> np.ndarray | None:
    """Robust line ``(vx, vy, x0, y0)`` through ``(K, 2)`` points (``cv2.fitLine``, Huber)."""
    if len(pts) < 4:
        return None
    return cv2.fitLine(pts.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).reshape(4).astype(np.float64)


def _intersect(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    (vx1, vy1, x1, y1), (vx2, vy2, x2, y2) = a, b
    det = vx1 * (-vy2) - vy1 * (-vx2)
    if abs(det) < 1e-6:
        return None
    t = ((x2 - x1) * (-vy2) - (y2 - y1) * (-vx2)) / det
    return np.array([x1 + t * vx1, y1 + t * vy1])


REFINE_VERSION = 2
"""The edge refinement's method (:func:`refine_quad`), named in caches of looks with its
defaults: 1 until session 51; 2 since session 52 (parallel opposite sides, peaks placed between
pixels, corners may move 0.4 of the short side)."""


def _fit_edges(frame: np.ndarray, quad: np.ndarray, band: float, margin: float, min_px: int,
               min_support: float, parallel: bool) -> np.ndarray | None:
    """The fit of :func:`refine_quad` (which documents the arguments): the new quad ``(4, 2)
    float64``, not yet checked, or None when no side could be fitted."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    a = (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])) / 2
    b = (np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])) / 2
    if min(a, b) < 6:
        return None
    k = max(1.0, min_px / min(a, b))
    w, h = a * k, b * k
    mx, my = margin * w, margin * h
    W, H = int(round(w + 2 * mx)), int(round(h + 2 * my))
    rect = np.array([[mx, my], [mx + w, my], [mx + w, my + h], [mx, my + h]], np.float32)
    m = cv2.getPerspectiveTransform(q.astype(np.float32), rect)
    patch = cv2.warpPerspective(frame, m, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    g = cv2.GaussianBlur(cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY).astype(np.float32), (3, 3), 0)
    gx = np.abs(cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3))
    gy = np.abs(cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3))
    lines: list = []
    votes: dict = {}
    for side in range(4):  # top, right, bottom, left
        horiz = side in (0, 2)
        length, across = (w, h) if horiz else (h, w)
        pos0 = (my if side == 0 else my + h) if horiz else (mx + w if side == 1 else mx)
        lo_t, hi_t = (mx, mx + w) if horiz else (my, my + h)
        ts = np.arange(int(lo_t + 0.15 * length), int(hi_t - 0.15 * length))
        r = band * across
        lo, hi = int(max(pos0 - r, 0)), int(min(pos0 + r, (H if horiz else W) - 1))
        if len(ts) < 4 or hi - lo < 3:
            lines.append(None)
            continue
        prof = gy[lo:hi + 1, ts] if horiz else gx[ts, lo:hi + 1].T  # (band, len(ts))
        best = prof.argmax(axis=0)
        strength = prof[best, np.arange(len(ts))]
        ok = strength >= strength.max() / 3
        if strength.max() <= 1e-3 or ok.mean() < min_support:
            lines.append(None)
            continue
        # the peak between pixels: the vertex of a parabola through the strongest vote and its neighbours
        cols = np.arange(len(ts))
        up, down = prof[np.maximum(best - 1, 0), cols], prof[np.minimum(best + 1, len(prof) - 1), cols]
        curv = up - 2 * strength + down
        shift = np.where(curv < -1e-6, 0.5 * (up - down) / np.where(curv < -1e-6, curv, -1.0), 0.0)
        pos = lo + best[ok] + np.clip(shift[ok], -0.5, 0.5)
        pts = np.column_stack([ts[ok], pos]) if horiz else np.column_stack([pos, ts[ok]])
        lines.append(_line_through(pts))
        votes[side] = pts
    if parallel:
        for i in (0, 1):
            a_, b_ = lines[i], lines[i + 2]
            if a_ is None or b_ is None:
                continue
            both = np.vstack([votes[i] - a_[2:], votes[i + 2] - b_[2:]])
            d = _line_through(both)
            if d is not None:
                lines[i] = np.r_[d[:2], a_[2:]]
                lines[i + 2] = np.r_[d[:2], b_[2:]]
    rough = [np.array([1.0, 0.0, 0.0, my]), np.array([0.0, 1.0, mx + w, 0.0]),
             np.array([1.0, 0.0, 0.0, my + h]), np.array([0.0, 1.0, mx, 0.0])]
    if all(ln is None for ln in lines):
        return None
    lines = [ln if ln is not None else rough[i] for i, ln in enumerate(lines)]
    corners = [_intersect(lines[(i + 3) % 4], lines[i]) for i in range(4)]  # TL=left&top, TR=top&right...
    if any(c is None for c in corners):
        return None
    new = cv2.perspectiveTransform(np.array(corners, np.float32).reshape(1, 4, 2), np.linalg.inv(m)).reshape(4, 2)
    return new if np.all(np.isfinite(new)) else None


def refine_quad(frame: np.ndarray, quad: np.ndarray, band: float = 0.08, margin: float = 0.12,
                min_px: int = 48, min_support: float = 0.5, max_move: float = 0.4,
                parallel: bool = True) -> tuple[np.ndarray, bool]:
    """Fit a card's 4 edges near a rough quad (an oriented box) and return their intersections.

    The region around ``quad`` (grown by ``margin`` of each side) is warped to a patch in which
    the rough card is an upright rectangle (at least ``min_px`` pixels across). Along each side,
    every column (top, bottom) or row (left, right) of the middle 70 % votes for the position of
    the strongest intensity edge (Sobel, grey; placed between pixels by the vertex of a parabola
    through the peak and its two neighbours) within ``band`` of the side's length of the rough
    edge; a line is fitted through the votes (``cv2.fitLine``, Huber). With ``parallel``
    opposite sides then share one direction, fitted through both sides' votes (each around its
    own line's point): a card's opposite sides stay within 3 degrees of parallel in the
    rendered rounds (42,090 whole cards of 60 rounds, session 52), since the camera is far from
    the table compared with a card, while two sides fitted apart often are not. Adjacent lines
    meet at the new corners, which are mapped back to the frame.

    Args:
        frame: ``(H, W, 3) uint8`` BGR. quad: ``(4, 2)`` pixels, clockwise.
        min_support: share of a side's votes that must be strong edges (gradient at least a third
            of the side's strongest) for the side to be refitted; else the rough side is kept.
        max_move: a new corner farther than this share of the card's short side from the rough
            one (the input), or a quad that is not convex, rejects the refinement. A card seen
            obliquely and turned on the table is a parallelogram whose corners can lie a quarter
            of its short side or more from the oriented box around it (8 px on a card 34 px
            wide in round 9305; session 52: 0.2 rejected such fits).
        parallel: fit opposite sides with one direction (above).

    Returns:
        ``(quad (4, 2) float32, refined)``: the refined quad (in the input's corner order), or
        the input and False when no side could be fitted or the fit was rejected.
    """
    q = np.asarray(quad, np.float64).reshape(4, 2)
    new = _fit_edges(frame, q, band, margin, min_px, min_support, parallel)
    short = min(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[3] - q[0]))
    if new is None or np.linalg.norm(new - q, axis=1).max() > max_move * short \
            or not cv2.isContourConvex(new.astype(np.float32)):
        return q.astype(np.float32), False
    return new.astype(np.float32), True


SURE_READ = 0.999
"""A card's first reading (its refined quad, as rectified) whose top softmax probability is at
least this is kept alone: the card is not read again turned by 180 degrees nor through the
detector's own quad (:meth:`CardRecognizer.quad_probabilities`), and a strip is not read again
turned (:meth:`CardRecognizer.identify_strips`). Chosen on rendered frames, see
``models/MODEL_CARD.md``, "Speed: a sure first reading is kept". Above 1, every card is read
every way (as before 2026-12-04)."""

ORT_SPIN = False
"""Whether ONNX Runtime's worker threads busy-wait for work between runs (its default). Off:
each model file is its own session with its own thread pool, so the referee's five sessions
kept five threads spinning on 2 cores, taking them from the main thread (video decoding, the
tracker) and from each other. Measured 2026-12-03 with ``nertz bench`` on the sample's first
20 s (2 cores, two runs each): 1.21 x media time, 101-103 ms a look (detector 69 ms a run)
with spinning; 0.72-0.74 x, 61-64 ms (detector 40-41 ms) without."""


def _session(path: Path, threads: int) -> Any:
    """An ONNX Runtime CPU session of the model file ``path`` with ``threads`` intra-op threads
    (workers not spinning: :data:`ORT_SPIN`).

    Raises:
        ModelError: the file is missing or ONNX Runtime cannot load it.
    """
    import onnxruntime as ort

    if not Path(path).is_file():
        raise ModelError(f"model file {path} not found (train it with `nertz train ...`, or reinstall)")
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.add_session_config_entry("session.intra_op.allow_spinning", "1" if ORT_SPIN else "0")
    try:
        return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    except Exception as e:  # onnxruntime raises its own exception types
        raise ModelError(f"model file {path} cannot be loaded: {e}") from None


def _names(sess: Any) -> dict[int, str]:
    meta = sess.get_modelmeta().custom_metadata_map
    if "names" not in meta:
        raise ModelError("the ONNX model carries no class names (not an ultralytics export?)")
    return {int(k): str(v) for k, v in ast.literal_eval(meta["names"]).items()}


def _cls_size(sess: Any) -> int:
    shp = sess.get_inputs()[0].shape
    meta = sess.get_modelmeta().custom_metadata_map
    return int(shp[2]) if isinstance(shp[2], int) else int(ast.literal_eval(meta.get("imgsz", "[64]"))[0])


def _calibration(path: Path) -> float:
    """The softmax temperature stored beside a classifier (``<stem>.calib.json``,
    ``{"temperature": T}``), 1.0 when there is none."""
    f = Path(path).with_suffix(".calib.json")
    if not f.is_file():
        return 1.0
    try:
        return float(json.loads(f.read_text())["temperature"])
    except (ValueError, KeyError, TypeError) as e:
        raise ModelError(f"calibration file {f} is broken: {e}") from None


def _tempered(p: np.ndarray, temperature: float) -> np.ndarray:
    """Softmax rows ``p`` ``(N, C)`` with their logits divided by ``temperature``."""
    if temperature == 1.0:
        return p
    z = np.log(np.clip(p, 1e-12, 1.0)) / temperature
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)


def _quads_array(quads: np.ndarray) -> np.ndarray:
    """``quads`` as ``(N, 4, 2) float64``. Raises ValueError for another shape."""
    q = np.asarray(quads, np.float64)
    if q.ndim != 3 or q.shape[1:] != (4, 2):
        raise ValueError(f"quads must have shape (N, 4, 2), got {q.shape}")
    return q


class CardRecognizer:
    """Finds and names the cards in frames (ONNX Runtime on the CPU).

    Args:
        detector: the detector ONNX file: an oriented-box (YOLO-OBB) or an axis-aligned
            ultralytics export (told apart by its ``task`` metadata); default
            :func:`default_detector`.
        classifier: the crop classifier ONNX file (faces that are not whole cards), or None.
        table: a :class:`~nertz.referee.table.Table` (or table-file dict) whose players' back
            colours name the face-down cards; None: backs get no owner.
        imgsz: detector input size (longer side), pixels.
        conf, iou: detector confidence and NMS thresholds.
        crop_pad: square crop side as a multiple of the box's longer side (as in training).
        threads: ONNX Runtime threads.
        identifier: the rectified-card classifier ONNX file (whole cards, from their quads), or
            None; default ``models/cards_id.onnx`` when shipped. Its probabilities are divided
            in the log domain by the temperature of ``<stem>.calib.json`` when present.
        tta: run the rectified-card classifier on each card both ways up (the card and its
            180-degree turn, which the model was trained to read alike) and average the
            probabilities: twice the (small) cost, fewer errors (only for the cards whose first
            reading is not ``sure``).
        refine: with the oriented-box detector, refit the edges of every whole face-up card
            (:func:`refine_quad`): a median corner error of about 1.6 pixels instead of 4.4 on
            synthetic 1280 x 720 frames (see ``models/MODEL_CARD.md``).
        strips: the strip classifier ONNX file (faces that are not whole cards, read from
            their oriented boxes; used with the oriented-box detector only, in place of
            ``classifier``), or None; default ``models/cards_strip.onnx`` when shipped.
        covered: the covered-card classifier ONNX file (a rectified-card classifier with the
            same classes as ``identifier``, for the faces a hand box overlaps; its own
            ``<stem>.calib.json`` temperature), or None; default
            ``models/cards_id_covered.onnx`` when shipped. Used only with ``identifier``.
        whole_tilt_deg: the steepest view at which a face is taken for a whole card
            (:func:`whole_card`; :data:`WHOLE_TILT_DEG` for photos, :data:`TABLE_VIEW_TILT_DEG`
            for a webcam's view of a table).
        sure: the top probability at which a card's first reading is kept alone (None:
            :data:`SURE_READ`, read when the recogniser is made; above 1, every card is read
            every way).
        zone_axes: with a ``table`` that has zones, rectify a whole card in a player's zone
            with the pair of sides that points towards the shared area upright (the player's
            cards face them; :class:`~nertz.vision.card_axes.CardAxes`), not the longer pair
            as seen, which a steep view near the frame's edge gets wrong. Kept as the
            attribute ``axes`` (None: no zones used), which a caller may set to None for an
            image the table was not made for (``nertz detect``).

    Raises:
        ModelError: a model file is missing or broken.
    """

    def __init__(self, detector: str | Path | None = None, classifier: str | Path | None = CLASSIFIER_ONNX,
                 table: Table | dict | None = None, imgsz: int = 640, conf: float = 0.3, iou: float = 0.5,
                 crop_pad: float = 1.15, threads: int = 2,
                 identifier: str | Path | None = IDENTIFIER_ONNX if IDENTIFIER_ONNX.is_file() else None,
                 tta: bool = True, refine: bool = True,
                 strips: str | Path | None = STRIP_ONNX if STRIP_ONNX.is_file() else None,
                 covered: str | Path | None = COVERED_ONNX if COVERED_ONNX.is_file() else None,
                 whole_tilt_deg: float = WHOLE_TILT_DEG, sure: float | None = None,
                 zone_axes: bool = True) -> None:
        self.whole_tilt_deg = float(whole_tilt_deg)
        self.sure = float(SURE_READ if sure is None else sure)
        self.det = _session(Path(detector) if detector is not None else default_detector(), threads)
        self.det_names = _names(self.det)
        self.obb = self.det.get_modelmeta().custom_metadata_map.get("task") == "obb"
        self.cls = _session(Path(classifier), threads) if classifier is not None else None
        self.cls_names = _names(self.cls) if self.cls is not None else {}
        self.cls_size = _cls_size(self.cls) if self.cls is not None else 0
        self.idf = _session(Path(identifier), threads) if identifier is not None else None
        self.id_names = _names(self.idf) if self.idf is not None else {}
        self.id_size = _cls_size(self.idf) if self.idf is not None else 0
        self.id_temperature = _calibration(Path(identifier)) if identifier is not None else 1.0
        self.cov = _session(Path(covered), threads) if covered is not None and self.idf is not None else None
        self.cov_temperature = _calibration(Path(covered)) if self.cov is not None else 1.0
        if self.cov is not None and _names(self.cov) != self.id_names:
            raise ModelError(f"the covered-card classifier {covered} has other classes than {identifier}")
        self.strip = _session(Path(strips), threads) if strips is not None and self.obb else None
        self.strip_names = _names(self.strip) if self.strip is not None else {}
        self.strip_size = _cls_size(self.strip) if self.strip is not None else 0
        self.tta, self.refine = tta, refine
        self.backs = BackMatcher.from_table(table) if table is not None else None
        self.axes = CardAxes.from_table(table) if table is not None and zone_axes else None
        self.imgsz, self.conf, self.iou, self.crop_pad = imgsz, conf, iou, crop_pad
        if tuple(self.det_names[i] for i in sorted(self.det_names)) != DETECT_CLASSES:
            raise ModelError(f"detector classes {self.det_names} are not {DETECT_CLASSES}")

    @property
    def card_names(self) -> tuple[str, ...]:
        """The rectified-card classifier's class names, in the column order of
        :meth:`quad_probabilities` (empty without it)."""
        return tuple(self.id_names[i] for i in sorted(self.id_names))

    def detect(self, frame: np.ndarray, refine: bool = True) -> Detections:
        """Run the detector alone on ``frame`` (``(H, W, 3) uint8`` BGR). With the oriented-box
        detector ``quads`` are the cards' quads (corners may lie slightly outside the frame),
        ``boxes`` their bounding boxes clipped to the frame. ``refine=False`` skips the edge
        refinement of whole faces (``quads`` are then the detector's; a caller that keeps
        refined quads of unchanged cards refines the others with :meth:`refine_quads`)."""
        blob, r = letterbox(frame, self.imgsz)
        out = self.det.run(None, {self.det.get_inputs()[0].name: blob})[0]
        h, w = frame.shape[:2]
        if self.obb:
            quads, score, cls = decode_obb(out, r, self.conf, self.iou)
            d = Detections.from_quads(quads, score, cls, self.whole_tilt_deg)
            if self.refine and refine:
                sel = np.nonzero(d.whole & (d.class_id == 0))[0]
                if len(sel):
                    d.quads[sel] = self.refine_quads(frame, d.quads[sel])
        else:
            boxes, score, cls = decode_yolo(out, r, self.conf, self.iou)
            d = Detections.from_boxes(boxes, score, cls)
        d.boxes[:, [0, 2]] = np.clip(d.boxes[:, [0, 2]], 0, w)
        d.boxes[:, [1, 3]] = np.clip(d.boxes[:, [1, 3]], 0, h)
        if not self.obb:
            d.quads = Detections.from_boxes(d.boxes, d.confidence, d.class_id).quads
            d.raw_quads = d.quads.copy()
        return d

    @staticmethod
    def refine_quads(frame: np.ndarray, quads: np.ndarray) -> np.ndarray:
        """Refit the edges of whole cards near rough quads (:func:`refine_quad`, defaults).

        Args:
            frame: ``(H, W, 3) uint8`` BGR. quads: ``(N, 4, 2)`` pixels, clockwise.

        Returns:
            ``(N, 4, 2) float32`` (a quad whose fit is rejected is returned unchanged).
        """
        q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
        return np.stack([refine_quad(frame, x)[0] for x in q]) if len(q) else q.copy()

    def classify_crops(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Name card crops with the crop classifier.

        Args:
            crops: ``(B, S, S, 3) uint8`` BGR, ``S`` the classifier's input size.

        Returns:
            ``labels (B,) object`` card names and ``prob (B,) float32`` their probabilities.
        """
        if self.cls is None:
            raise ModelError("no classifier loaded")
        if len(crops) == 0:
            return np.zeros(0, object), np.zeros(0, np.float32)
        p = self._run_cls(self.cls, crops)
        k = p.argmax(axis=1)
        return np.array([self.cls_names[int(i)] for i in k], dtype=object), p[np.arange(len(p)), k].astype(np.float32)

    @staticmethod
    def _run_cls(sess: Any, images: np.ndarray, batch: int = 128) -> np.ndarray:
        out = []
        for i in range(0, len(images), batch):
            x = images[i:i + batch, ..., ::-1].transpose(0, 3, 1, 2).astype(np.float32) / 255.0
            out.append(sess.run(None, {sess.get_inputs()[0].name: np.ascontiguousarray(x)})[0])
        return np.concatenate(out).astype(np.float32)

    def _read(self, sess: Any, images: np.ndarray, cascade: bool = True) -> np.ndarray:
        """A classifier's softmax ``(N, C)`` on ``images`` (:meth:`_read_unsure`'s first part)."""
        return self._read_unsure(sess, images, cascade)[0]

    def _read_unsure(self, sess: Any, images: np.ndarray, cascade: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """A classifier's softmax ``(N, C)`` on ``images`` ``(N, S, S, 3) uint8`` BGR, and
        ``(N,) bool``: the images whose first reading is under :attr:`sure` (every image when
        not ``cascade``). With ``tta`` those are averaged with their reading turned by 180
        degrees."""
        p = self._run_cls(sess, images)
        again = p.max(axis=1) < (self.sure if cascade else np.inf)
        if self.tta and again.any():
            p[again] = (p[again] + self._run_cls(sess, np.ascontiguousarray(images[again][:, ::-1, ::-1]))) / 2
        return p, again

    def rectify(self, frame: np.ndarray, quads: np.ndarray) -> np.ndarray:
        """The cards of ``quads`` warped upright to the rectified-card classifier's input
        (:func:`nertz.datasets.export.rectify_card`): the longer side as seen upright, but
        for a card in a player's zone whose long side the zone names
        (:meth:`~nertz.vision.card_axes.CardAxes.long_sides`, with ``zone_axes``).

        Args:
            frame: ``(H, W, 3) uint8`` BGR. quads: ``(N, 4, 2)`` pixels, clockwise as seen.

        Returns:
            ``(N, S, S, 3) uint8`` BGR, ``S`` the classifier's input size (64).

        Raises:
            ModelError: no rectified-card classifier loaded. ValueError: bad quads.
        """
        if self.idf is None:
            raise ModelError("no rectified-card classifier loaded (models/cards_id.onnx)")
        q = _quads_array(quads)
        if len(q) == 0:
            return np.zeros((0, self.id_size, self.id_size, 3), np.uint8)
        q = order_quads(q)
        long = self.axes.long_sides(q) if self.axes is not None else [None] * len(q)
        return np.stack([rectify_card(frame, x, self.id_size, long_side=d) for x, d in zip(q, long)])

    def quad_probabilities(self, frame: np.ndarray, quads: np.ndarray,
                           alt_quads: np.ndarray | None = None,
                           covered: np.ndarray | None = None) -> np.ndarray:
        """Probabilities of every card for each quad (rectified-card classifier, calibrated by
        its temperature; the covered-card classifier for the quads marked ``covered``).

        Each card is read once at ``quads``; a reading whose top probability is at least
        :attr:`sure` (:data:`SURE_READ`) stands alone. The others are read again turned by 180
        degrees (``tta``) and at ``alt_quads``, and the readings averaged.

        Args:
            frame: ``(H, W, 3) uint8`` BGR. quads: ``(N, 4, 2)`` corners in frame pixels (any
                start corner, clockwise or not: they are put in order first).
            alt_quads: optional second estimate ``(N, 4, 2)`` of the same cards (e.g.
                ``Detections.raw_quads``, the detector's box before edge refinement): the
                probabilities of both are averaged for the cards not read surely at ``quads``
                (on synthetic frames: 0.927 instead of 0.890 with the refined quads alone, 20
                frames, seed 4242, every card read both ways).
            covered: optional ``(N,) bool``: the cards partly under a hand (see
                :func:`under_hand`), read by the covered-card classifier when one is loaded.

        Returns:
            ``(N, 53) float32``, rows summing to 1, columns in the order of :attr:`card_names`
            (top-k: ``np.argsort(-p, axis=1)[:, :k]``). The rules' prior can multiply these.

        Raises:
            ModelError: no rectified-card classifier loaded. ValueError: bad quads, or
                ``covered`` of another length than ``quads`` (with a covered-card classifier).
        """
        imgs = self.rectify(frame, quads)
        n = len(imgs)
        if n == 0:
            return np.zeros((0, len(self.id_names)), np.float32)
        if alt_quads is not None:
            alt_quads = _quads_array(alt_quads)
            if len(alt_quads) != n:
                raise ValueError(f"alt_quads has {len(alt_quads)} quads, quads {n}")
        cov = np.zeros(n, bool)
        if covered is not None and self.cov is not None:
            cov = np.asarray(covered, bool).reshape(-1)
            if len(cov) != n:
                raise ValueError(f"covered has {len(cov)} flags, quads {n}")
        p = np.zeros((n, len(self.id_names)), np.float32)
        for sess, temp, rows in ((self.idf, self.id_temperature, ~cov), (self.cov, self.cov_temperature, cov)):
            idx = np.nonzero(rows)[0]
            if not len(idx):
                continue
            own, unsure = self._read_unsure(sess, imgs[idx])
            p[idx] = _tempered(own, temp)
            again = idx[unsure]
            if alt_quads is not None and len(again):
                alt = self._read(sess, self.rectify(frame, alt_quads[again]), cascade=False)
                p[again] = (p[again] + _tempered(alt, temp)) / 2
        return p.astype(np.float32)

    def identify_quads(self, frame: np.ndarray, quads: np.ndarray,
                       alt_quads: np.ndarray | None = None,
                       covered: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Name the whole face-up cards at ``quads`` (the tracker's entry point).

        Args:
            frame: ``(H, W, 3) uint8`` BGR. quads: ``(N, 4, 2) float32`` each card's 4 corners
                in frame pixels (clockwise from the top-left as seen; other orders are sorted).
            alt_quads: optional second estimate of the same cards, averaged in
                (:meth:`quad_probabilities`).
            covered: optional ``(N,) bool``, the cards partly under a hand
                (:meth:`quad_probabilities`).

        Returns:
            ``labels (N,) object`` (``"7S"``, ``"JK"``) and ``prob (N,) float32`` their calibrated
            probabilities.

        Raises:
            ModelError: no rectified-card classifier loaded. ValueError: bad quads.
        """
        p = self.quad_probabilities(frame, quads, alt_quads, covered)
        k = p.argmax(axis=1)
        names = self.card_names
        return np.array([names[int(i)] for i in k], dtype=object), p[np.arange(len(p)), k].astype(np.float32)

    def identify_strips(self, frame: np.ndarray, quads: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Name the partly covered face-up cards whose visible parts are the oriented boxes
        ``quads`` (strip classifier, :func:`nertz.datasets.export.rectify_strip` with
        :data:`STRIP_PAD`; when ``tta``, a strip whose first reading is not :attr:`sure` is read
        again turned by 180 degrees, probabilities averaged).

        Args:
            frame: ``(H, W, 3) uint8`` BGR. quads: ``(N, 4, 2)`` corners in frame pixels,
                clockwise as seen.

        Returns:
            ``labels (N,) object`` and ``prob (N,) float32`` (uncalibrated softmax).

        Raises:
            ModelError: no strip classifier loaded. ValueError: bad quads.
        """
        if self.strip is None:
            raise ModelError("no strip classifier loaded (models/cards_strip.onnx, with the oriented-box detector)")
        q = _quads_array(quads)
        if len(q) == 0:
            return np.zeros(0, object), np.zeros(0, np.float32)
        imgs = np.stack([rectify_strip(frame, x, self.strip_size, pad=STRIP_PAD) for x in q])
        p = self._read(self.strip, imgs)
        k = p.argmax(axis=1)
        return (np.array([self.strip_names[int(i)] for i in k], dtype=object),
                p[np.arange(len(p)), k].astype(np.float32))

    def identify(self, frame: np.ndarray, det: Detections) -> Detections:
        """Name the faces and the backs (colour) of ``det`` in place; returns it. Whole cards
        (``det.whole``) go to the rectified-card classifier (those a hand box of ``det``
        overlaps to the covered-card classifier when loaded), other faces to the strip
        classifier (:meth:`identify_strips`) when loaded (squarish ones are read by the
        rectified-card classifier too, :meth:`_read_squarish`), else to the crop classifier (or
        to the rectified one when neither is loaded)."""
        faces = np.nonzero(det.class_id == 0)[0]
        whole = faces[det.whole[faces]] if self.idf is not None else faces[:0]
        rest = np.setdiff1d(faces, whole)
        if self.idf is not None and self.cls is None and self.strip is None:
            whole, rest = faces, faces[:0]
        if self.strip is not None and len(rest):
            names, prob = self.identify_strips(frame, det.quads[rest])
            det.labels[rest] = names
            det.label_confidence[rest] = prob
            if self.idf is not None:
                self._read_squarish(frame, det, rest)
            rest = rest[:0]
        if len(whole):
            names, prob = self.identify_quads(frame, det.quads[whole], det.raw_quads[whole],
                                              det.under_hands(whole))
            det.labels[whole] = names
            det.label_confidence[whole] = prob
        if self.cls is not None and len(rest):
            crops = np.stack([card_crop(frame, det.boxes[i], self.cls_size, pad=self.crop_pad) for i in rest])
            names, prob = self.classify_crops(crops)
            det.labels[rest] = names
            det.label_confidence[rest] = prob
        if self.backs is not None:
            for i in np.nonzero(det.class_id == 1)[0]:
                x0, y0, x1, y1 = np.round(det.boxes[i]).astype(int)
                crop = frame[max(y0, 0):max(y1, y0 + 1), max(x0, 0):max(x1, x0 + 1)]
                if crop.size == 0:
                    continue
                det.owners[i], det.back_distance[i] = self.backs.match(crop)
        return det

    def _read_squarish(self, frame: np.ndarray, det: Detections, faces: np.ndarray) -> None:
        """Read again, with the rectified-card classifier, the ``faces`` (indices into ``det``,
        named by the strip classifier) whose quads are squarer than a whole card at
        ``whole_tilt_deg`` (:func:`whole_card`'s lower bound), and keep the likelier reading.

        A whole card seen steeply (or through a wide lens near the frame's edge) is foreshortened
        along its long side to a near square and fails the whole-card test; so does a square
        piece of a covered card. Neither classifier alone reads both well: rendered frames
        (2026-12-03; seeds 20261301-02, 100 frames, looked at), whole face-up cards right end to
        end 0.9802 -> 0.9827 and 0.9706 -> 0.9722, the other faces 345 -> 349 of 469 and 494 ->
        497 of 620; measured once after, seeds 20261320-21: 0.9866 -> 0.9879 and 0.9631 ->
        0.9617, other faces +2 and -1. Reading every non-whole face both ways instead lost 36
        of those 469 (``models/MODEL_CARD.md``, "Squarish faces")."""
        low = CARD_ASPECT * math.cos(math.radians(self.whole_tilt_deg))
        sq = faces[quad_aspect(det.quads[faces]) < low]
        if not len(sq):
            return
        names, prob = self.identify_quads(frame, det.quads[sq], det.raw_quads[sq], det.under_hands(sq))
        better = prob > det.label_confidence[sq]
        det.labels[sq[better]] = names[better]
        det.label_confidence[sq[better]] = prob[better]

    def __call__(self, frame: np.ndarray) -> Detections:
        """Detect and identify: ``(H, W, 3) uint8`` BGR frame -> :class:`Detections`."""
        return self.identify(frame, self.detect(frame))
