"""Rectified-card classifier crops cut from rendered round *videos*, boxed by the detector.

:func:`nertz.datasets.export.write_dataset` (``kind="card"``) cuts whole cards (``visible`` >=
0.9) from still scenes. In a round a zone card is often partly under a player's hand; when what
shows of it still has a whole card's shape (:func:`nertz.vision.detect.whole_card`) the
recogniser reads it with the rectified-card classifier, which had never seen a card with
fingers over it (on 32 rendered rounds, zone cards 50-95 % visible were read right 58-68 % of
the time, wrong 22-27 %). :func:`write_round_crops` makes those inputs, the way the referee
makes them: the frames of a rendered round's video (``clip.mp4``, decoded as the referee
decodes it, compression included), the shipped detector's quads of whole-card shape, each
named by the label card it lies on (the topmost label quad under the quad's centre; the
renderer draws ``labels["cards"]`` bottom-up). A classifier fine-tuned on these crops read covered
zone cards better and whole cards worse, and the referee lost plays with it: not shipped
(``models/MODEL_CARD.md``, stage C).

Output: an ultralytics classification set (``train/<card>/``, ``val/<card>/``, 53 classes as
:data:`nertz.datasets.export.CARD_CLASSES`) of ``crop`` x ``crop`` images from
:func:`nertz.datasets.export.card_training_crop`, mergeable with the ``card`` sets
(``nertz train classifier --data A --data B``).
"""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any, Sequence

import cv2
import numpy as np

from .export import CARD_CLASSES, card_training_crop, order_quads

__all__ = ["write_round_crops", "label_card_under"]


def label_card_under(cards: Sequence[dict[str, Any]], point: tuple[float, float]) -> int | None:
    """Index of the topmost label card whose quad contains ``point`` (pixels), or None.

    ``cards`` is a frame's ``labels["cards"]`` in drawing order (bottom first), each with a
    ``quad`` of 4 corners in pixels."""
    for i in range(len(cards) - 1, -1, -1):
        q = np.asarray(cards[i]["quad"], np.float32).reshape(-1, 1, 2)
        if cv2.pointPolygonTest(q, (float(point[0]), float(point[1])), False) >= 0:
            return i
    return None


def write_round_crops(rounds: Sequence[Path | str], out: Path | str, seed: int, every: int = 3,
                      min_visible: float = 0.5, partial_below: float = 0.95, whole_share: float = 0.1,
                      crop: int = 64, jitter: float = 0.02, jitter_scale: float = 0.03,
                      val_every: int = 10, block_seconds: float = 5.0, detector: Path | str | None = None,
                      zone_axes: bool = True) -> dict[str, int]:
    """Write classifier crops of the face-up cards the detector finds in rendered rounds.

    Args:
        rounds: round folders as ``nertz synth round`` writes them (``clip.mp4`` and
            ``labels.jsonl.gz`` or ``labels.jsonl``; the labels' frames must be the video's;
            ``table.json`` for ``zone_axes``).
        out: the set's folder (created; existing files of the same names are overwritten).
        seed: seeds the choice of crops, the jitter and the 180-degree turns
            (``numpy.random.default_rng((seed, crc32(round folder name)))``).
        every: look at every ``every``-th frame.
        min_visible: label cards less visible than this (0..1, the renderer's fraction, hands
            included) are skipped.
        partial_below: cards less visible than this are all kept; more visible ones with
            probability ``whole_share`` (they are plentiful in the ``card`` sets already).
        crop: output side, pixels (the classifier's input, 64).
        jitter, jitter_scale: the jitter of :func:`nertz.datasets.export.card_training_crop`
            on the detector's quad (small: the quads are a detector's already).
        val_every, block_seconds: frames are grouped in blocks of ``block_seconds`` of video;
            every ``val_every``-th block of a round goes to ``val`` (neighbouring frames show
            the same cards, so they stay on one side).
        detector: the oriented-box detector ONNX file (default: the shipped one).
        zone_axes: rectify a card in a player's zone with the pair of sides its zone names
            upright (:class:`nertz.vision.card_axes.CardAxes` from the round's ``table.json``),
            as the recogniser does with a table; without a ``table.json``, or False, the longer
            pair as seen (as before 2026-12-07).

    Returns:
        ``{"train": n, "val": n, "partial": n}`` crops written (``partial``: of both splits,
        from cards under ``partial_below``).

    Raises:
        FileNotFoundError: a round folder without ``clip.mp4`` or labels.
        ValueError: the video cannot be decoded.
    """
    from nertz.referee.files import read_table
    from nertz.vision.card_axes import CardAxes
    from nertz.vision.detect import CardRecognizer, default_detector
    from nertz.vision.observe import read_labels

    rec = CardRecognizer(detector=detector or default_detector(), classifier=None, identifier=None,
                         strips=None, threads=1)
    out = Path(out)
    for split in ("train", "val"):
        for name in CARD_CLASSES:
            (out / split / name).mkdir(parents=True, exist_ok=True)
    counts = {"train": 0, "val": 0, "partial": 0}
    for rd in map(Path, rounds):
        video = rd / "clip.mp4"
        labels_file = next((f for f in (rd / "labels.jsonl.gz", rd / "labels.jsonl") if f.is_file()), None)
        if not video.is_file():
            raise FileNotFoundError(f"{rd}: no clip.mp4 (a folder written by nertz synth round?)")
        if labels_file is None:
            raise FileNotFoundError(f"{rd}: no labels.jsonl.gz or labels.jsonl (a folder written by nertz synth round?)")
        labels = read_labels(labels_file)
        axes = (CardAxes.from_table(read_table(rd / "table.json"))
                if zone_axes and (rd / "table.json").is_file() else None)
        rng = np.random.default_rng((seed, zlib.crc32(rd.name.encode())))
        cap = cv2.VideoCapture(str(video))
        if not cap.isOpened():
            raise ValueError(f"{video}: cannot be decoded")
        fps = cap.get(cv2.CAP_PROP_FPS) or 30.0
        try:
            for f, lab in enumerate(labels):
                ok, frame = cap.read()
                if not ok:
                    break
                if f % every:
                    continue
                split = "val" if int(f / fps / block_seconds) % val_every == val_every - 1 else "train"
                det = rec.detect(frame)
                faces = np.nonzero((det.class_id == 0) & det.whole)[0]
                for i in faces:
                    k = label_card_under(lab["cards"], tuple(det.quads[i].reshape(4, 2).mean(axis=0)))
                    if k is None:
                        continue
                    c = lab["cards"][k]
                    if not c["face_up"] or c.get("moving") or c["visible"] < min_visible:
                        continue
                    partial = c["visible"] < partial_below
                    if not partial and rng.random() >= whole_share:
                        continue
                    q = det.quads[i] if rng.random() < 0.5 else det.raw_quads[i]
                    long_side = axes.long_sides(order_quads(q[None]))[0] if axes is not None else None
                    img = card_training_crop(frame, q, rng, crop, jitter, jitter_scale, long_side)
                    cv2.imwrite(str(out / split / c["card"] / f"{rd.name}_{f:05d}_{int(i)}.png"), img)
                    counts[split] += 1
                    counts["partial"] += partial
        finally:
            cap.release()
    return counts
