"""Card detection and identification on ONNX Runtime, OpenCV and NumPy (no PyTorch).

Pipeline (models from :mod:`nertz.vision.train`, shipped in ``models/``):

1. **Detector** (``models/cards_det.onnx``, YOLO11n, classes ``face back hand``): the frame is
   letterboxed so its longer side is ``imgsz`` (640: a 1280 x 720 frame runs at scale 0.5 as a
   384 x 640 tensor, the model's input is dynamic), the raw output ``(1, 4 + C, A)`` (box
   centre, size in input pixels, then class scores) is decoded, filtered by confidence and
   reduced by class-wise non-maximum suppression (``cv2.dnn.NMSBoxesBatched``). Each box is the
   *visible part* of a card (the strip of a cascaded card, the whole top card; see
   :mod:`nertz.datasets.export` for why).
2. **Classifier** (``models/cards_cls.onnx``, YOLO11n-cls, 53 classes): every face box is cut
   as the square around it, grey beyond the box (:func:`nertz.datasets.export.card_crop`, the
   same crop as in training), resized to the classifier's input size, and named (``7S``, ``TH``, ``JK``).
3. **Backs**: every back box is matched by colour against the table's players
   (:class:`nertz.vision.backs.BackMatcher`).

Public API: :class:`Detections`, :class:`CardRecognizer`, :func:`load_image`, :class:`ImageError`,
:func:`letterbox`, :func:`decode_yolo`.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from nertz.datasets.export import DETECT_CLASSES, card_crop
from nertz.referee.errors import NertzError
from nertz.referee.table import Table

from .backs import UNKNOWN, BackMatcher

__all__ = ["Detections", "CardRecognizer", "ImageError", "ModelError", "load_image", "letterbox",
           "decode_yolo", "MODELS", "DETECTOR_ONNX", "CLASSIFIER_ONNX"]

MODELS = Path(__file__).resolve().parent.parent / "models"
DETECTOR_ONNX = MODELS / "cards_det.onnx"
CLASSIFIER_ONNX = MODELS / "cards_cls.onnx"


class ImageError(NertzError, ValueError):
    """An image file that cannot be read (missing, not an image, unsupported format)."""


class ModelError(NertzError):
    """A model file that is missing or cannot be loaded."""


def load_image(path: str | Path) -> np.ndarray:
    """Read an image file as ``(H, W, 3) uint8`` BGR.

    Raises:
        ImageError: the file is missing or is not an image OpenCV can decode.
    """
    p = Path(path)
    if not p.is_file():
        raise ImageError(f"{path}: no such image file")
    data = np.fromfile(str(p), np.uint8)
    img = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if img is None:
        raise ImageError(f"{path}: not an image OpenCV can read")
    return img


@dataclass
class Detections:
    """The cards (and hands) found in one frame, in the style of ``supervision.Detections``.

    ``N`` detections; every array has ``N`` rows, in the same order.

    Attributes:
        quads: ``(N, 4, 2) float32`` corners in frame pixels, clockwise from the top-left
            (for now the corners of ``boxes``: the visible part of the card).
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
    """

    quads: np.ndarray
    boxes: np.ndarray
    confidence: np.ndarray
    class_id: np.ndarray
    labels: np.ndarray
    label_confidence: np.ndarray
    owners: np.ndarray
    back_distance: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))

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

    def __len__(self) -> int:
        return len(self.boxes)

    def __getitem__(self, idx: Any) -> "Detections":
        """A subset (index array, boolean mask or slice)."""
        return Detections(self.quads[idx], self.boxes[idx], self.confidence[idx], self.class_id[idx],
                          self.labels[idx], self.label_confidence[idx], self.owners[idx],
                          self.back_distance[idx])

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


def _session(path: Path, threads: int) -> Any:
    import onnxruntime as ort

    if not Path(path).is_file():
        raise ModelError(f"model file {path} not found (train it with `nertz train ...`, or reinstall)")
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    try:
        return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    except Exception as e:  # onnxruntime raises its own exception types
        raise ModelError(f"model file {path} cannot be loaded: {e}") from None


def _names(sess: Any) -> dict[int, str]:
    meta = sess.get_modelmeta().custom_metadata_map
    if "names" not in meta:
        raise ModelError("the ONNX model carries no class names (not an ultralytics export?)")
    return {int(k): str(v) for k, v in ast.literal_eval(meta["names"]).items()}


class CardRecognizer:
    """Finds and names the cards in frames (ONNX Runtime on the CPU).

    Args:
        detector: the detector ONNX file. classifier: the classifier ONNX file, or None to skip
            identification.
        table: a :class:`~nertz.referee.table.Table` (or table-file dict) whose players' back
            colours name the face-down cards; None: backs get no owner.
        imgsz: detector input size (longer side), pixels.
        conf, iou: detector confidence and NMS thresholds.
        crop_pad: square crop side as a multiple of the box's longer side (as in training).
        threads: ONNX Runtime threads.

    Raises:
        ModelError: a model file is missing or broken.
    """

    def __init__(self, detector: str | Path = DETECTOR_ONNX, classifier: str | Path | None = CLASSIFIER_ONNX,
                 table: Table | dict | None = None, imgsz: int = 640, conf: float = 0.3, iou: float = 0.5,
                 crop_pad: float = 1.15, threads: int = 2) -> None:
        self.det = _session(Path(detector), threads)
        self.det_names = _names(self.det)
        self.cls = _session(Path(classifier), threads) if classifier is not None else None
        self.cls_names = _names(self.cls) if self.cls is not None else {}
        self.cls_size = 0
        if self.cls is not None:
            shp = self.cls.get_inputs()[0].shape
            meta = self.cls.get_modelmeta().custom_metadata_map
            self.cls_size = int(shp[2]) if isinstance(shp[2], int) else int(ast.literal_eval(meta.get("imgsz", "[96]"))[0])
        self.backs = BackMatcher.from_table(table) if table is not None else None
        self.imgsz, self.conf, self.iou, self.crop_pad = imgsz, conf, iou, crop_pad
        if tuple(self.det_names[i] for i in sorted(self.det_names)) != DETECT_CLASSES:
            raise ModelError(f"detector classes {self.det_names} are not {DETECT_CLASSES}")

    def detect(self, frame: np.ndarray) -> Detections:
        """Run the detector alone on ``frame`` (``(H, W, 3) uint8`` BGR)."""
        blob, r = letterbox(frame, self.imgsz)
        out = self.det.run(None, {self.det.get_inputs()[0].name: blob})[0]
        boxes, score, cls = decode_yolo(out, r, self.conf, self.iou)
        h, w = frame.shape[:2]
        boxes[:, [0, 2]] = np.clip(boxes[:, [0, 2]], 0, w)
        boxes[:, [1, 3]] = np.clip(boxes[:, [1, 3]], 0, h)
        return Detections.from_boxes(boxes, score, cls)

    def classify_crops(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Name card crops.

        Args:
            crops: ``(B, S, S, 3) uint8`` BGR, ``S`` the classifier's input size.

        Returns:
            ``labels (B,) object`` card names and ``prob (B,) float32`` their probabilities.
        """
        if self.cls is None:
            raise ModelError("no classifier loaded")
        if len(crops) == 0:
            return np.zeros(0, object), np.zeros(0, np.float32)
        x = crops[..., ::-1].transpose(0, 3, 1, 2).astype(np.float32) / 255.0
        p = self.cls.run(None, {self.cls.get_inputs()[0].name: np.ascontiguousarray(x)})[0]
        k = p.argmax(axis=1)
        return np.array([self.cls_names[int(i)] for i in k], dtype=object), p[np.arange(len(p)), k].astype(np.float32)

    def identify(self, frame: np.ndarray, det: Detections) -> Detections:
        """Name the faces (classifier) and the backs (colour) of ``det`` in place; returns it."""
        faces = np.nonzero(det.class_id == 0)[0]
        if self.cls is not None and len(faces):
            crops = np.stack([card_crop(frame, det.boxes[i], self.cls_size, pad=self.crop_pad) for i in faces])
            names, prob = self.classify_crops(crops)
            det.labels[faces] = names
            det.label_confidence[faces] = prob
        if self.backs is not None:
            for i in np.nonzero(det.class_id == 1)[0]:
                x0, y0, x1, y1 = np.round(det.boxes[i]).astype(int)
                crop = frame[max(y0, 0):max(y1, y0 + 1), max(x0, 0):max(x1, x0 + 1)]
                if crop.size == 0:
                    continue
                det.owners[i], det.back_distance[i] = self.backs.match(crop)
        return det

    def __call__(self, frame: np.ndarray) -> Detections:
        """Detect and identify: ``(H, W, 3) uint8`` BGR frame -> :class:`Detections`."""
        return self.identify(frame, self.detect(frame))
