"""A detector training set from real photos with Pascal-VOC boxes (``edje_tf_cards/train``).

The oriented-box detector (``cards_obb``) learns from oriented boxes, and the real photos we may
train on carry axis-aligned VOC boxes around whole cards. :func:`write_voc_obb_set` turns them
into ultralytics OBB labels the following way:

- each VOC box takes the quad of the face the current detector finds for it, when that quad's
  bounding box matches the VOC box well (IoU >= ``min_iou``, 0.7): the detector's turn of the
  card, checked by a person's box;
- otherwise (a card the detector misses, or a quad grown over a neighbour) the VOC box itself
  (the axis-aligned rectangle: right for an upright card, a little large for a turned one);
- everything else in the photo (carpet, paper, a basket, a book) is background: the detector's
  false faces there are what this set is for.

Photos are written at the detector's inference scale (longer side ``imgsz`` pixels, as
:class:`nertz.vision.detect.CardRecognizer` runs on them at ``imgsz=320``) and repeated
``copies`` times in ``train`` (ultralytics' mosaic and HSV augmentation make the copies
differ), so that a few hundred photos weigh against thousands of synthetic crops. Every
``holdout_every``-th photo (sorted by name) goes to ``val`` only: the photos to check a
fine-tuned detector against (:func:`holdout_names`).

Only ``edje_tf_cards/train`` may be used here: ``edje_tf_cards/test`` and
``blackjack_table_state`` are evaluation only (``shared/real_cards/README.md``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from nertz.vision.evaluate import match_boxes

__all__ = ["write_voc_obb_set", "holdout_names", "voc_obb_quads", "remove_stale_partials"]

PARTIAL_PREFIX, PARTIAL_SUFFIX, PARTIAL_LOCK = ".real-obb-", ".partial", ".lock"
_PARTIAL = re.compile(r"^\.real-obb-[A-Za-z0-9_]+\.partial$")
"""The name of :func:`write_voc_obb_set`'s temporary folder in its ``out``
(``.real-obb-<random>.partial``, :func:`tempfile.mkdtemp`'s), and of the lock file in it that
the writing run holds (an exclusive ``flock``, released when the process ends, however)."""


def _held(lock: Path) -> bool:
    """Whether a running process holds ``lock`` (a partial folder's lock file). A folder
    without one (a run of a version before the lock of 2026-12-07, or one killed before it made it) is held by none.
    Where ``fcntl`` does not exist (Windows) a lock file counts as held: not checked."""
    try:
        import fcntl
    except ImportError:
        return lock.exists()
    try:
        f = open(lock, "rb")
    except OSError:
        return False
    with f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        return False


def _take(lock: Path) -> Any:
    """Create and hold ``lock`` (see :func:`_held`); returns the open file to keep (closing it
    lets go)."""
    f = open(lock, "wb")
    try:
        import fcntl

        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except ImportError:
        pass
    return f


def remove_stale_partials(out: Path) -> list[Path]:
    """Remove the temporary folders that runs of :func:`write_voc_obb_set` killed outright
    (``kill -9``, a power cut: no clean-up ran) left in ``out``: the folders named as it names
    them (``.real-obb-<random>.partial``) whose lock no process holds (another run writing
    there now keeps its folder). Each is said on standard error. Nothing else in ``out`` is
    touched.

    Returns:
        The folders removed (none when ``out`` is not a folder).
    """
    out = Path(out)
    if not out.is_dir():
        return []
    removed = []
    for d in sorted(out.iterdir()):
        if not _PARTIAL.match(d.name) or d.is_symlink() or not d.is_dir() or _held(d / PARTIAL_LOCK):
            continue
        shutil.rmtree(d, ignore_errors=True)
        print(f"removed {d}, the partial set of an earlier run that was killed", file=sys.stderr)
        removed.append(d)
    return removed


def holdout_names(labels_json: Path, holdout_every: int = 4) -> list[str]:
    """The image names of ``labels_json`` kept out of training (every ``holdout_every``-th
    image in name order, starting with the first).

    Raises:
        ValueError: ``holdout_every`` < 2.
    """
    if holdout_every < 2:
        raise ValueError(f"holdout_every must be at least 2, got {holdout_every}")
    names = sorted(e["image"] for e in json.loads(Path(labels_json).read_text())["images"])
    return names[::holdout_every]


def voc_obb_quads(voc_boxes: np.ndarray, face_quads: np.ndarray, min_iou: float = 0.7) -> tuple[np.ndarray, int]:
    """The oriented box of every VOC box (see the module's docstring).

    Args:
        voc_boxes: ``(M, 4)`` ``[x0, y0, x1, y1]`` pixels.
        face_quads: ``(N, 4, 2)`` the detector's face quads in the same pixels.
        min_iou: least IoU between a quad's bounding box and the VOC box for the quad to be
            taken; each quad serves one box (greedy, best IoU first:
            :func:`nertz.vision.evaluate.match_boxes`).

    Returns:
        ``(M, 4, 2) float64`` quads and how many came from the detector.
    """
    voc = np.asarray(voc_boxes, np.float64).reshape(-1, 4)
    fq = np.asarray(face_quads, np.float64).reshape(-1, 4, 2)
    fb = np.column_stack([fq.min(axis=1), fq.max(axis=1)]) if len(fq) else np.zeros((0, 4))
    out = np.array([[[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]] for b in voc], np.float64).reshape(-1, 4, 2)
    pairs = match_boxes(voc, fb, min_iou)
    for i, j in pairs:
        out[i] = fq[j]
    return out, len(pairs)


def write_voc_obb_set(folder: Path, labels_json: Path, out: Path, detector: Path, imgsz: int = 320,
                      holdout_every: int = 4, copies: int = 4, min_iou: float = 0.7, paste: int = 0,
                      seed: int = 0, words: int = 0) -> dict:
    """Write the OBB set (``out/images/{train,val}``, ``out/labels/{train,val}``). It is
    written into a temporary folder in ``out`` and moved into place at the end: a failure
    partway (an unreadable photo, Ctrl-C) leaves no half-written set (other files in ``out``
    stay as they were); the temporary folder of a run killed outright is removed by the next
    run (:func:`remove_stale_partials`).

    Args:
        folder: the photos. labels_json: ``{"images": [{"image", "boxes": [{"xmin", "ymin",
            "xmax", "ymax", ...}]}]}`` (``edje_tf_cards/train_labels.json``).
        out: the set's folder (created).
        detector: the oriented-box detector ONNX whose face quads turn the VOC boxes
            (``models/cards_obb.onnx``; an axis-aligned one is refused).
        imgsz: longer side of the written photos, pixels (the detector's inference size for
            such photos).
        holdout_every: every n-th photo goes to ``val`` (:func:`holdout_names`).
        copies: times each training photo is written.
        min_iou: see :func:`voc_obb_quads`.
        paste: most rendered cards laid on each training copy (0 to ``paste``, drawn per copy;
            :func:`nertz.datasets.composite.paste_cards`): the real background then holds
            cards of every design, face and back, alone and spread; 0: the photos as they are.
            Needs the card art. ``val`` photos are never pasted on.
        words: with ``paste``, most printed words laid on each training copy besides the cards
            (never on one; :func:`nertz.datasets.composite.paste_cards`).
        seed: the generator of the pasted cards (photo ``i``'s copy ``k`` uses
            ``default_rng([seed, i, k])``).

    Returns:
        ``{"train": photos, "val": photos, "boxes": n, "from_detector": n, "pasted": n}``.

    Raises:
        FileNotFoundError: a photo of the labels file is missing (nothing is written).
        FileExistsError: ``out`` already holds images or labels. ValueError: ``copies`` < 1,
        ``paste``, ``words`` or ``seed`` < 0, ``words`` without ``paste``, or a ``detector``
        that is not an oriented-box model. ArtMissingError: ``paste`` without the card art.
        nertz.vision.detect.ImageError: a photo that cannot be read (nothing of the set is
        left then).
    """
    from nertz.vision.detect import OBB_ONNX, CardRecognizer

    if copies < 1:
        raise ValueError(f"copies must be at least 1, got {copies}")
    if paste < 0 or words < 0:
        raise ValueError(f"paste and words must be at least 0, got {paste} and {words}")
    if words and not paste:
        raise ValueError("words are laid only with paste (the rendered cards' copies): give paste too")
    if seed < 0:  # numpy's generator takes none, and would fail after the first photos are written
        raise ValueError(f"seed must be at least 0, got {seed}")
    source = None
    if paste:
        from .composite import CardSource

        source = CardSource()
    entries = sorted(json.loads(Path(labels_json).read_text())["images"], key=lambda e: e["image"])
    for e in entries:  # every photo there before anything is written
        if not (Path(folder) / e["image"]).is_file():
            raise FileNotFoundError(f"{Path(folder) / e['image']}: photo of {labels_json} not found")
    for sub in ("images", "labels"):
        if (Path(out) / sub).is_dir() and any(p.is_file() for p in (Path(out) / sub).rglob("*")):
            # an earlier set's files would stay beside the new ones (a held-out photo of one
            # split setting in the other's train split): never mix two sets
            raise FileExistsError(f"{Path(out) / sub} already holds a set: write to a new folder or remove it")
    rec = CardRecognizer(detector=detector, classifier=None, identifier=None, strips=None, imgsz=imgsz)
    if not rec.obb:  # an axis-aligned detector's quads are its boxes: every VOC box would stay a rectangle
        raise ValueError(f"{detector}: not an oriented-box detector (an axis-aligned one, such as cards_det.onnx, "
                         f"gives plain rectangles): give the oriented-box one, {OBB_ONNX} (the default)")
    held = set(holdout_names(labels_json, holdout_every))
    final, made = Path(out), not Path(out).exists()
    final.mkdir(parents=True, exist_ok=True)
    remove_stale_partials(final)  # (they filled the disk, one per killed run)
    out = Path(tempfile.mkdtemp(prefix=PARTIAL_PREFIX, suffix=PARTIAL_SUFFIX, dir=final))
    moved: list[Path] = []
    lock = None
    try:
        lock = _take(out / PARTIAL_LOCK)  # held while this run writes: the next run tells it from a killed one's
        stats = _write_photos(entries, Path(folder), out, rec, held, imgsz, copies, min_iou, source, seed, paste,
                              words)
        for sub in ("images", "labels"):
            dest = final / sub
            if dest.is_dir():  # no file in it (checked above): empty split folders only
                for d in sorted(dest.rglob("*"), reverse=True):
                    d.rmdir()
                dest.rmdir()
            os.replace(out / sub, dest)
            moved.append(dest)
    except BaseException:
        for dest in moved:
            shutil.rmtree(dest, ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)
        if lock is not None:
            lock.close()
        if made:
            try:
                final.rmdir()  # (only when empty: nothing of the user's is removed)
            except OSError:
                pass
        raise
    shutil.rmtree(out, ignore_errors=True)  # its lock file alone, held until it is gone
    lock.close()
    return stats


def _write_photos(entries: list, folder: Path, out: Path, rec: Any, held: set, imgsz: int, copies: int,
                  min_iou: float, source: Any, seed: int, paste: int, words: int) -> dict:
    """Write the photos and labels of :func:`write_voc_obb_set` into ``out`` (the temporary
    folder); its stats.

    Raises:
        nertz.vision.detect.ImageError: a photo that cannot be read.
    """
    from nertz.vision.detect import load_image

    from .composite import paste_cards
    for split in ("train", "val"):
        (Path(out) / "images" / split).mkdir(parents=True, exist_ok=True)
        (Path(out) / "labels" / split).mkdir(parents=True, exist_ok=True)
    stats = {"train": 0, "val": 0, "boxes": 0, "from_detector": 0, "pasted": 0}
    for p_i, e in enumerate(entries):
        path = Path(folder) / e["image"]
        img = load_image(path)
        voc = np.array([[b["xmin"], b["ymin"], b["xmax"], b["ymax"]] for b in e["boxes"]], np.float64)
        det = rec.detect(img)
        quads, got = voc_obb_quads(voc, det.quads[det.class_id == 0], min_iou)
        stats["boxes"] += len(voc)
        stats["from_detector"] += got
        H, W = img.shape[:2]
        s = imgsz / max(H, W)
        small = cv2.resize(img, (max(1, round(W * s)), max(1, round(H * s))), interpolation=cv2.INTER_AREA)
        h, w = small.shape[:2]
        split = "val" if e["image"] in held else "train"
        stem = Path(e["image"]).stem
        for k in range(1 if split == "val" else copies):
            image, objs = small, [(0, q) for q in quads * s]
            if source is not None and split == "train":
                rng = np.random.default_rng([seed, p_i, k])
                image, objs = paste_cards(small, quads * s, rng, source, int(rng.integers(0, paste + 1)),
                                           words=words)
                stats["pasted"] += len(objs) - len(quads)
            text = "".join(f"{c} " + " ".join(f"{v:.6f}" for v in np.clip(q / [w, h], 0.0, 1.0).reshape(-1)) + "\n"
                           for c, q in objs)
            name = f"real_{stem}_{k}"
            cv2.imwrite(str(Path(out) / "images" / split / f"{name}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 95])
            (Path(out) / "labels" / split / f"{name}.txt").write_text(text)
        stats[split] += 1
    return stats
