"""Observers: one frame in, one :class:`~nertz.vision.tracker.Look` out.

* :class:`ModelObserver` runs the shipped models (:class:`~nertz.vision.detect.CardRecognizer`)
  and names only the cards that changed since the previous look: a face whose box overlaps a
  named face of the previous look (IoU >= 0.85) and whose pixels barely changed keeps that
  name, so a look on a busy table classifies a handful of cards, not thirty. "Barely" means
  both a small mean change and almost no pixel changed much: a card laid exactly on the one
  before it (a 3D on the 2D of its pile) changes only a pip and an index, a few per cent of
  the box, and must be named afresh. A card-shaped face that a hand box overlaps (a card partly
  under a player's hand) is named by the covered-card classifier when it is shipped
  (:data:`~nertz.vision.detect.COVERED_ONNX`).
* :class:`LabelObserver` reads the synthetic engine's per-frame labels instead of pixels: the
  tracker and the referee on perfect eyes, to measure them apart from the models.
"""

from __future__ import annotations

import gzip
import inspect
import json
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from nertz.referee.errors import NertzError

from .tracker import Look, Sighting

__all__ = ["Observer", "ModelObserver", "LabelObserver", "referee_observer", "read_labels", "STRONG_CHANGE"]

STRONG_CHANGE = 40
"""A grey-level change (0..255) between two looks that no card lying still shows (H.264 noise
and light flicker stay under 10 on rendered rounds): something on the card came or went."""


class Observer(Protocol):
    """Anything that turns a frame into a look."""

    def __call__(self, index: int, t: float, frame: np.ndarray) -> Look:
        """``frame``: ``(H, W, 3) uint8`` BGR, frame ``index`` at ``t`` seconds."""
        ...


def _iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of ``(4,)`` box ``a`` against ``(M, 4)`` boxes ``b`` (xyxy)."""
    iw = np.clip(np.minimum(a[2], b[:, 2]) - np.maximum(a[0], b[:, 0]), 0, None)
    ih = np.clip(np.minimum(a[3], b[:, 3]) - np.maximum(a[1], b[:, 1]), 0, None)
    inter = iw * ih
    area = lambda x: (x[..., 2] - x[..., 0]) * (x[..., 3] - x[..., 1])  # noqa: E731
    return inter / np.maximum(area(a) + area(b) - inter, 1e-6)


class ModelObserver:
    """Looks through the models, with an identity cache for unchanged cards.

    A face whose box matches a named face of the previous look (``reuse_iou``) over pixels that
    did not change (``reuse_diff``, ``reuse_changed``) keeps that face's name, runners-up and,
    with a recognizer that refines whole cards' edges (the oriented-box detector), its refined
    quad: only new or changed cards are refined and classified. Keeping the quads cut the
    edge refinement from 20.7 to 4.6 cards a look on the bundled sample round (2.4 s -> 0.65 s
    of 20 s of media under cProfile) and changed no play on 10 rendered rounds (9201, 9205,
    9209, 9211, 9232-9237: 433 of 471 plays all right, 432 before); ``nertz bench`` on the
    sample, back to back on an idle 2-core machine: 83 and 76 ms a look (1.03 and 0.92 x
    media time) against 88 and 87 ms (1.05 and 1.04 x) refining every card.

    Args:
        recognizer: a :class:`~nertz.vision.detect.CardRecognizer` (or anything with its
            ``detect(frame)`` and ``identify(frame, det)``).
        reuse_iou: minimum box IoU with a named face of the previous look to keep its name.
        reuse_diff: maximum mean absolute grey difference (0..255) of the box's pixels.
        reuse_changed: maximum share of the box's pixels whose grey level changed by more than
            :data:`STRONG_CHANGE` (a pip or an index that came or went). Measured on rendered
            round r9071: a 3D laid on the 2D of its pile changed the box by 5.5 grey levels on
            average (under ``reuse_diff``, so it kept the name "2D" for 6 s) but 3.8 % of its
            pixels by more than 40; a card lying still between looks: 0.0 %.
        top_k: whole cards carry their ``top_k - 1`` runners-up (``Sighting.alts``).
        strips: also name the faces that are not whole cards (strips of covered cards). The
            tracker uses them only with ``TrackerSettings.zone_strips`` (off by default), so
            the referee skips them unless something shows them (the overlay of ``--out`` and
            ``--show``); they cost a strip-classifier run each, both ways up.

    Attributes:
        classified: faces classified so far; reused: faces whose name was kept.
    """

    def __init__(self, recognizer: Any, reuse_iou: float = 0.85, reuse_diff: float = 8.0, top_k: int = 5,
                 strips: bool = False, reuse_changed: float = 0.005) -> None:
        self.recognizer = recognizer
        self.top_k = top_k
        self.strips = strips
        self.reuse_iou, self.reuse_diff, self.reuse_changed = reuse_iou, reuse_diff, reuse_changed
        self._prev: tuple[np.ndarray, np.ndarray, list[str], list, np.ndarray] | None = None
        self.classified = 0
        self.reused = 0

    @property
    def cache_key(self) -> str:
        """The settings that decide which names are kept, which faces count as whole cards
        (the recognizer's ``whole_tilt_deg``) and how whole cards' edges are refitted
        (:data:`~nertz.vision.detect.REFINE_VERSION` and :func:`~nertz.vision.detect.refine_quad`'s
        defaults) and whether the zones name the cards' long sides (the recognizer's
        ``axes``), for caches of looks."""
        refine = ""
        if getattr(self.recognizer, "refine", False):
            from .detect import REFINE_VERSION, refine_quad

            refine = f" refine v{REFINE_VERSION} " + " ".join(
                f"{k}={v.default}" for k, v in inspect.signature(refine_quad).parameters.items()
                if v.default is not inspect.Parameter.empty)
        return (f"reuse {self.reuse_iou} {self.reuse_diff} {self.reuse_changed} {STRONG_CHANGE}"
                f" whole {getattr(self.recognizer, 'whole_tilt_deg', None)}"
                + (" quads kept" if self._keeps_quads else "") + refine
                + (" zone axes" if getattr(self.recognizer, "axes", None) is not None else ""))

    @property
    def _keeps_quads(self) -> bool:
        """Whether the recognizer refines whole cards' quads (the oriented-box detector with
        edge refinement), so that an unchanged card can keep the previous look's."""
        r = self.recognizer
        return bool(getattr(r, "obb", False) and getattr(r, "refine", False) and hasattr(r, "refine_quads"))

    def _unchanged(self, diff: np.ndarray) -> bool:
        """Whether a box whose pixels changed by ``diff`` (absolute grey levels, any shape)
        still shows the card named in the previous look."""
        return float(diff.mean()) <= self.reuse_diff and float(np.mean(diff > STRONG_CHANGE)) <= self.reuse_changed

    def __call__(self, index: int, t: float, frame: np.ndarray) -> Look:
        keep_quads = self._keeps_quads
        det = self.recognizer.detect(frame, refine=False) if keep_quads else self.recognizer.detect(frame)
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        faces = np.nonzero(det.class_id == 0)[0]
        whole = getattr(det, "whole", None)
        keep_quads = keep_quads and whole is not None  # (the detector refines whole cards only)
        if not self.strips and whole is not None:
            faces = faces[whole[faces]]
        todo = []
        refine: list[int] = []  # whole faces to refine: new, changed, or not whole before
        alts: dict[int, tuple[tuple[str, float], ...]] = {}
        for i in faces:
            if self._prev is not None and len(self._prev[0]):
                boxes, probs, labels, prev_alts, pgray, pquads, pwhole = self._prev
                ious = _iou(det.boxes[i], boxes)
                j = int(ious.argmax())
                if ious[j] >= self.reuse_iou:
                    x0, y0, x1, y1 = np.round(det.boxes[i]).astype(int)
                    a = gray[max(y0, 0):y1, max(x0, 0):x1].astype(np.int16)
                    b = pgray[max(y0, 0):y1, max(x0, 0):x1].astype(np.int16)
                    if a.size and self._unchanged(np.abs(a - b)):
                        det.labels[i], det.label_confidence[i] = labels[j], probs[j]
                        alts[int(i)] = prev_alts[j]
                        self.reused += 1
                        if keep_quads and whole[i]:
                            if pwhole[j]:
                                det.quads[i] = pquads[j]  # the card did not move: its refined quad stands
                            else:
                                refine.append(i)
                        continue
            todo.append(i)
        if keep_quads:
            refine += [i for i in todo if whole[i]]
            if refine:
                det.quads[refine] = self.recognizer.refine_quads(frame, det.quads[refine])
        if todo:
            todo_a = np.array(todo)
            by_quad = todo_a[whole[todo_a]] if whole is not None and hasattr(self.recognizer, "quad_probabilities") \
                else todo_a[:0]
            rest = np.setdiff1d(todo_a, by_quad)
            if len(by_quad):
                # whole cards: the full probabilities, so the tracker also knows the runners-up
                # a card partly under a hand is read by the covered-card classifier when shipped
                covered = det.under_hands(by_quad)
                p = self.recognizer.quad_probabilities(frame, det.quads[by_quad], getattr(det, "raw_quads", det.quads)[by_quad],
                                                       covered=covered)
                names = self.recognizer.card_names
                order = np.argsort(-p, axis=1)[:, : self.top_k]
                for r, i in enumerate(by_quad):
                    det.labels[i] = names[order[r, 0]]
                    det.label_confidence[i] = p[r, order[r, 0]]
                    alts[int(i)] = tuple((names[k], float(p[r, k])) for k in order[r, 1:])
            if len(rest):
                sub = det[rest]
                self.recognizer.identify(frame, sub)
                det.labels[rest] = sub.labels
                det.label_confidence[rest] = sub.label_confidence
            self.classified += len(todo)
        named = faces[[bool(det.labels[i]) for i in faces]] if len(faces) else faces
        self._prev = (det.boxes[named].copy(), det.label_confidence[named].copy(),
                      [str(x) for x in det.labels[named]], [alts.get(int(i), ()) for i in named], gray,
                      det.quads[named].copy(),
                      whole[named].copy() if whole is not None else np.ones(len(named), bool))
        sightings = [Sighting(str(det.labels[i]), float(det.label_confidence[i]), det.quads[i],
                              whole=bool(whole[i]) if whole is not None else True, alts=alts.get(int(i), ()))
                     for i in named]
        return Look(index, t, sightings, det.boxes[det.class_id == 2].astype(np.float32))


def referee_observer(table: Any, strips: bool = False) -> ModelObserver:
    """The shipped models as the referee looks through them: a :class:`ModelObserver` over a
    :class:`~nertz.vision.detect.CardRecognizer` that names backs by ``table``'s colours (a
    :class:`~nertz.referee.table.Table`) and takes faces seen up to
    :data:`~nertz.vision.detect.TABLE_VIEW_TILT_DEG` off the table's normal for whole cards.

    Raises:
        ModelError: a shipped model file is missing or broken.
    """
    from .detect import TABLE_VIEW_TILT_DEG, CardRecognizer

    return ModelObserver(CardRecognizer(table=table, whole_tilt_deg=TABLE_VIEW_TILT_DEG), strips=strips)


def read_labels(path: str | Path) -> list[dict[str, Any]]:
    """The per-frame labels of a rendered round (``labels.jsonl`` or ``labels.jsonl.gz``).

    Raises:
        NertzError: the file is missing or not JSON lines.
    """
    p = Path(path)
    if not p.is_file():
        raise NertzError(f"{path}: no such labels file")
    opener = gzip.open if p.suffix == ".gz" else open
    try:
        with opener(p, "rt", encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError) as exc:
        raise NertzError(f"{path}: not a labels file ({exc})") from exc


class LabelObserver:
    """Looks from the rendered round's labels (perfect identification, no pixels read).

    Args:
        labels: the per-frame label dicts of :func:`read_labels`, frame ``i`` at index ``i``.
        min_visible: a face-up card counts as a whole card when at least this fraction of it
            shows; less, with its index corner showing, as a strip when ``strips`` is set.
    """

    def __init__(self, labels: list[dict[str, Any]], min_visible: float = 0.5, strips: bool = False) -> None:
        self.labels = labels
        self.min_visible = min_visible
        self.strips = strips

    def __call__(self, index: int, t: float, frame: np.ndarray | None = None) -> Look:
        if index >= len(self.labels):
            return Look(index, t, [])
        lab = self.labels[index]
        faces = [Sighting(c["identity"], 1.0, np.asarray(c["quad"], np.float32), whole=c["visible"] >= self.min_visible)
                 for c in lab["cards"] if c["face_up"] and (c["visible"] >= self.min_visible or (self.strips and c["corner_visible"]))]
        hands = np.asarray([h["box"] for h in lab.get("hands", [])], np.float32).reshape(-1, 4)
        return Look(index, t, faces, hands)
