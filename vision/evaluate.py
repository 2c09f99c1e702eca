"""Measuring the recogniser: precision, recall and identity accuracy against labelled images.

- :func:`match_boxes`: greedy one-to-one matching of detections to ground truth by IoU.
- :func:`evaluate`: runs a :class:`~nertz.vision.detect.CardRecognizer` on ``(frame, truth)``
  samples and counts, per detector class, true positives, false positives and misses, and for
  every matched face whether the classifier named it right (with the confusion pairs).
- :func:`synthetic_samples`: held-out rendered frames with their truth (visible-part boxes).
- :func:`whole_card_accuracy`: identity of the whole face-up cards (the tracker's targets) from
  the label quads and from the detector's quads, and the detector's corner error.
- :func:`voc_samples`: a folder of images with Pascal-VOC boxes and, optionally, a JSON list
  of identities (the format of ``shared/real_cards/edje_tf_cards/train_labels.json``); without
  it the VOC object names give the rank only, and :func:`evaluate` scores the rank.
- :func:`stack_totals` / :func:`stack_total_accuracy`: a proxy for photos labelled only with
  the blackjack point total of each stack (``shared/real_cards/blackjack_table_state``): the
  found faces are grouped into stacks (overlapping quads) and each stack's total compared.

``python -m nertz.vision.evaluate synth N SEED``, ``python -m nertz.vision.evaluate crops DIR``
(classifier top-1 on a classification folder) and
``python -m nertz.vision.evaluate voc DIR [LABELS.json] [IMGSZ]`` and
``python -m nertz.vision.evaluate stacks DIR [IMGSZ]`` print the figures (medians of timing
are printed too; they are only meaningful on an otherwise idle machine).
"""

from __future__ import annotations

import json
import sys
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np

from nertz.datasets.export import DETECT_CLASSES, visible_boxes

__all__ = ["iou_matrix", "match_boxes", "evaluate", "synthetic_samples", "voc_samples", "format_report", "card_rank",
           "back_accuracy", "classifier_accuracy", "corner_error", "whole_card_accuracy", "calibration_error",
           "fit_temperature", "blackjack_value", "stack_groups", "stack_totals", "stack_total_accuracy"]


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of every box of ``a (N, 4)`` with every box of ``b (M, 4)`` (xyxy): ``(N, M)``."""
    a = np.asarray(a, np.float64).reshape(-1, 4)
    b = np.asarray(b, np.float64).reshape(-1, 4)
    x0 = np.maximum(a[:, None, 0], b[None, :, 0])
    y0 = np.maximum(a[:, None, 1], b[None, :, 1])
    x1 = np.minimum(a[:, None, 2], b[None, :, 2])
    y1 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(x1 - x0, 0, None) * np.clip(y1 - y0, 0, None)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return inter / np.maximum(area_a[:, None] + area_b[None, :] - inter, 1e-9)


def match_boxes(det: np.ndarray, gt: np.ndarray, thr: float = 0.5) -> list[tuple[int, int]]:
    """Greedy matching, highest IoU first: ``[(det index, gt index)]`` with IoU >= ``thr``.

    A pair whose IoU is not a finite number (a box with a NaN or infinite coordinate) never
    matches. Raises no error.
    """
    if len(det) == 0 or len(gt) == 0:
        return []
    m = iou_matrix(det, gt)
    m[~np.isfinite(m)] = -np.inf
    pairs = []
    used_d, used_g = set(), set()
    for flat in np.argsort(-m, axis=None):
        i, j = np.unravel_index(flat, m.shape)
        if not m[i, j] >= thr:
            break
        if i in used_d or j in used_g:
            continue
        used_d.add(i)
        used_g.add(j)
        pairs.append((int(i), int(j)))
    return pairs


def card_rank(card: str) -> str:
    """The rank letter of a card name (``"QH"`` -> ``"Q"``, ``"TH"`` -> ``"T"``); ``"JK"`` (the
    joker) and ``""`` (unidentified) are returned as they are."""
    card = str(card)
    return card if card in ("", "JK") else card[:-1]


VOC_RANKS = {"ace": "A", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
             "eight": "8", "nine": "9", "ten": "T", "jack": "J", "queen": "Q", "king": "K"}
"""Rank letters of the Pascal-VOC object names of ``shared/real_cards/edje_tf_cards``."""


def evaluate(recognizer, samples: Iterable[tuple[np.ndarray, dict]], iou: float = 0.5,
             classes: tuple[int, ...] = (0, 1, 2)) -> dict:
    """Run ``recognizer`` on samples and count.

    Args:
        recognizer: a :class:`~nertz.vision.detect.CardRecognizer`.
        samples: ``(frame (H, W, 3) uint8 BGR, truth)`` where truth is ``{"boxes": (M, 4) xyxy
            pixels, "class_id": (M,) detector classes, "labels": (M,) card names or "" where
            unknown}`` and optionally ``"ranks": (M,)`` rank letters (``"Q"``, ``"T"``, ``"9"``;
            or "") for boxes whose full name is unknown but whose rank is: those faces are scored
            by the rank of the recogniser's name (:func:`card_rank`) in ``"rank_identity"``.
        iou: matching threshold.
        classes: the detector classes scored (others are ignored in detections and truth).

    Returns:
        ``{"per_class": {name: {"tp", "fp", "fn", "precision", "recall"}}, "all": {...}
        (faces and backs together, class-agnostic matching), "identity": {"n", "right",
        "accuracy"}, "identity_parts": {"whole" | "part": {"n", "right"}} (faces the recogniser
        marked whole cards, and the others; counted when its detections carry ``whole``),
        "confusions": [(truth, said, count)], "rank_identity": {"n", "right",
        "accuracy"} (faces with a rank but no full label; ``n`` 0 when there are none),
        "rank_confusions": [(true rank, said card, count)], "images", "det_ms", "full_ms"}``.
    """
    counts = {c: Counter() for c in classes}
    card_counts = Counter()
    ident = Counter()
    conf_pairs: Counter = Counter()
    rank_ident = Counter()
    rank_pairs: Counter = Counter()
    det_ms, full_ms = [], []
    n_img = 0
    for frame, truth in samples:
        n_img += 1
        t0 = time.perf_counter()
        d = recognizer.detect(frame)
        t1 = time.perf_counter()
        d = recognizer.identify(frame, d)
        t2 = time.perf_counter()
        det_ms.append((t1 - t0) * 1000)
        full_ms.append((t2 - t0) * 1000)
        gb, gc, gl = np.asarray(truth["boxes"]).reshape(-1, 4), np.asarray(truth["class_id"]), truth["labels"]
        gr = truth.get("ranks") or [""] * len(gl)
        for c in classes:
            di = np.nonzero(d.class_id == c)[0]
            gi = np.nonzero(gc == c)[0]
            pairs = match_boxes(d.boxes[di], gb[gi], iou)
            counts[c]["tp"] += len(pairs)
            counts[c]["fp"] += len(di) - len(pairs)
            counts[c]["fn"] += len(gi) - len(pairs)
            if c == 0:
                for a, b in pairs:
                    want = gl[gi[b]]
                    said = str(d.labels[di[a]])
                    if not want:
                        rank = gr[gi[b]]
                        if rank:
                            rank_ident["n"] += 1
                            rank_ident["right"] += card_rank(said) == rank
                            if card_rank(said) != rank:
                                rank_pairs[(rank, said)] += 1
                        continue
                    ident["n"] += 1
                    ident["right"] += said == want
                    if getattr(d, "whole", None) is not None:
                        part = "whole" if d.whole[di[a]] else "part"
                        ident[part + "_n"] += 1
                        ident[part + "_right"] += said == want
                    if said != want:
                        conf_pairs[(want, said)] += 1
        # cards regardless of face/back
        di = np.nonzero(np.isin(d.class_id, [0, 1]))[0]
        gi = np.nonzero(np.isin(gc, [0, 1]))[0]
        pairs = match_boxes(d.boxes[di], gb[gi], iou)
        card_counts["tp"] += len(pairs)
        card_counts["fp"] += len(di) - len(pairs)
        card_counts["fn"] += len(gi) - len(pairs)

    def pr(c: Counter) -> dict:
        tp, fp, fn = c["tp"], c["fp"], c["fn"]
        return {"tp": tp, "fp": fp, "fn": fn, "precision": tp / max(tp + fp, 1), "recall": tp / max(tp + fn, 1)}

    return {
        "images": n_img,
        "per_class": {DETECT_CLASSES[c]: pr(counts[c]) for c in classes},
        "all": pr(card_counts),
        "identity": {"n": ident["n"], "right": ident["right"], "accuracy": ident["right"] / max(ident["n"], 1)},
        "identity_parts": {k: {"n": ident[k + "_n"], "right": ident[k + "_right"]} for k in ("whole", "part")},
        "confusions": [(a, b, n) for (a, b), n in conf_pairs.most_common(15)],
        "rank_identity": {"n": rank_ident["n"], "right": rank_ident["right"],
                          "accuracy": rank_ident["right"] / max(rank_ident["n"], 1)},
        "rank_confusions": [(a, b, n) for (a, b), n in rank_pairs.most_common(15)],
        "det_ms": float(np.median(det_ms)) if det_ms else float("nan"),
        "full_ms": float(np.median(full_ms)) if full_ms else float("nan"),
    }


def synthetic_samples(n: int, seed: int, frames_per_scene: int = 2, **opts) -> Iterator[tuple[np.ndarray, dict]]:
    """Held-out rendered frames (whole frames, not crops) with their truth: visible-part boxes of
    cards (face 0 / back 1, the face's name) and hand boxes (2), as in the training sets of
    :mod:`nertz.datasets.export` (cards mostly under a hand are left out of the truth, so a
    detection of one counts as a false positive: they are few)."""
    from nertz.datasets.export import _frames

    k = 0
    i = 0
    while k < n:
        info: dict = {}
        _, rendered = _frames(i, seed, frames_per_scene, opts, info=info)
        table_file = info["table"]
        i += 1
        for frame, lab in rendered:
            if k >= n:
                break
            H, W = frame.shape[:2]
            boxes, cls, labels, owners, vis = [], [], [], [], []
            for j, box, frac in visible_boxes(lab, W, H):
                c = lab["cards"][j]
                if c["visible"] < 0.5 * frac and c["visible"] < 0.3:
                    continue
                boxes.append(box)
                cls.append(0 if c["face_up"] else 1)
                labels.append(c["card"] if c["face_up"] and c["corner_visible"] else "")
                owners.append(c["owner"])
                vis.append(c["visible"])
            for h in lab["hands"]:
                boxes.append(h["box"])
                cls.append(2)
                labels.append("")
                owners.append(h["hand"])
                vis.append(1.0)
            k += 1
            yield frame, {"boxes": np.array(boxes, np.float64).reshape(-1, 4), "class_id": np.array(cls, np.int64),
                          "labels": labels, "owners": owners, "visible": vis, "table": lab,
                          "table_file": table_file}


def voc_samples(folder: Path, labels_json: Path | None = None,
                images: Iterable[str] | None = None) -> Iterator[tuple[np.ndarray, dict]]:
    """Images with Pascal-VOC ``.xml`` boxes (all class 0: face-up cards).

    With ``labels_json`` (``{"images": [{"image", "boxes": [{"xmin", "ymin", "xmax", "ymax",
    "card"}]}]}``) the truth's ``"labels"`` are the full identities. Without it the boxes come
    from the folder's ``*.xml`` files, ``"labels"`` are all ``""`` and ``"ranks"`` holds each
    object's rank letter from its name (:data:`VOC_RANKS`: ``"queen"`` -> ``"Q"``; a name that
    is not a rank gives ``""``), which :func:`evaluate` scores as rank-only identity.
    ``images`` restricts to those file names. Yields ``(frame (H, W, 3) uint8 BGR, truth)``.
    """
    from .detect import load_image

    folder = Path(folder)
    if labels_json is not None:
        data = json.loads(Path(labels_json).read_text())
        entries = [(e["image"], [(b["xmin"], b["ymin"], b["xmax"], b["ymax"], b.get("card", ""), "")
                                  for b in e["boxes"]])
                   for e in data["images"]]
    else:
        entries = []
        for x in sorted(folder.glob("*.xml")):
            root = ET.parse(x).getroot()
            bs = [(float(o.find("bndbox/xmin").text), float(o.find("bndbox/ymin").text),
                   float(o.find("bndbox/xmax").text), float(o.find("bndbox/ymax").text), "",
                   VOC_RANKS.get((o.findtext("name") or "").strip().lower(), ""))
                  for o in root.iter("object")]
            entries.append((root.find("filename").text, bs))
    keep = set(images) if images is not None else None
    for name, bs in entries:
        if keep is not None and name not in keep:
            continue
        frame = load_image(folder / name)
        yield frame, {"boxes": np.array([b[:4] for b in bs], np.float64).reshape(-1, 4),
                      "class_id": np.zeros(len(bs), np.int64), "labels": [b[4] for b in bs],
                      "ranks": [b[5] for b in bs], "name": name}


BLACKJACK_VALUES = {"A": 1, "T": 10, "J": 10, "Q": 10, "K": 10}
"""Blackjack points of the ranks that are not their own number (an ace counts 1, as in the
blackjack set's totals; the joker counts 0)."""


def blackjack_value(card: str) -> int:
    """Blackjack points of a card name (``"7S"`` -> 7, ``"TH"``/``"KD"`` -> 10, ``"AC"`` -> 1,
    ``"JK"`` or anything unreadable -> 0)."""
    if not card or card == "JK":
        return 0
    rank = str(card)[:-1]
    return BLACKJACK_VALUES.get(rank, int(rank) if rank.isdigit() else 0)


def stack_groups(quads: np.ndarray, grow: float = 1.03) -> list[list[int]]:
    """Group cards into stacks: two cards are in one stack when their quads, each grown by
    ``grow`` about its centre, overlap (``cv2.intersectConvexConvex``); stacks are the
    connected components.

    Args:
        quads: ``(N, 4, 2)`` pixels, each a convex quad.

    Returns:
        Lists of indices into ``quads``, one per stack, each ascending, in order of their first card.
    """
    import cv2

    q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    c = q.mean(axis=1, keepdims=True)
    g = (c + (q - c) * grow).astype(np.float32)
    parent = list(range(len(q)))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for a in range(len(q)):
        for b in range(a + 1, len(q)):
            area, _ = cv2.intersectConvexConvex(g[a], g[b])
            if area > 0:
                parent[find(a)] = find(b)
    groups: dict[int, list[int]] = {}
    for a in range(len(q)):
        groups.setdefault(find(a), []).append(a)
    return list(groups.values())


def stack_totals(labels: Iterable[str], quads: np.ndarray) -> list[int]:
    """The blackjack total of each stack of face-up cards (:func:`stack_groups`,
    :func:`blackjack_value`), in the order of :func:`stack_groups`."""
    labels = list(labels)
    return [sum(blackjack_value(labels[i]) for i in g) for g in stack_groups(quads)]


def stack_total_accuracy(recognizer, folder: Path) -> dict:
    """Run the recogniser on a folder labelled with stack totals only and compare.

    The folder holds ``labels.csv`` with columns ``file`` (relative to the folder) and
    ``stack_point_totals_in_reading_order_from_db.csv`` (comma-separated totals), the format of
    ``shared/real_cards/blackjack_table_state``. The totals are compared as multisets (the
    reading order is not recovered): a stack counts as right when its total is among the
    truth's, each truth total used once. This is a proxy for precision and recall: a missed,
    extra or misread card changes its stack's total unless errors cancel (a 10 read as a K).
    An image that cannot be read counts as no stack found.

    Returns:
        ``{"images", "stacks", "stacks_right", "stack_accuracy", "images_all_right",
        "faces_median", "stacks_found", "per_image": [(file, predicted totals, true totals)]}``.

    Raises:
        FileNotFoundError: no ``labels.csv`` in the folder. ValueError: a malformed row.
    """
    import csv

    import cv2

    folder = Path(folder)
    table = folder / "labels.csv"
    if not table.is_file():
        raise FileNotFoundError(f"{table} not found")
    stacks = right = all_right = found = 0
    faces_n, per_image = [], []
    with table.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    for row in rows:
        try:
            truth = [int(x) for x in row["stack_point_totals_in_reading_order_from_db.csv"].split(",")]
            name = row["file"]
        except (KeyError, ValueError) as exc:
            raise ValueError(f"{table}: malformed row {row!r}: {exc}") from None
        frame = cv2.imread(str(folder / name))
        det = recognizer(frame) if frame is not None else None
        if det is None:
            pred: list[int] = []
        else:
            faces = np.nonzero(det.class_id == 0)[0]
            pred = stack_totals(det.labels[faces], det.quads[faces])
            faces_n.append(len(faces))
        ok = sum((Counter(pred) & Counter(truth)).values())
        stacks += len(truth)
        right += ok
        found += len(pred)
        all_right += sorted(pred) == sorted(truth)
        per_image.append((name, sorted(pred), sorted(truth)))
    return {"images": len(rows), "stacks": stacks, "stacks_right": right,
            "stack_accuracy": right / max(stacks, 1), "images_all_right": all_right,
            "faces_median": float(np.median(faces_n)) if faces_n else 0.0, "stacks_found": found,
            "per_image": per_image}


def back_accuracy(samples: Iterable[tuple[np.ndarray, dict]], min_visible: float = 0.5,
                  threshold: float | None = None, measured: bool = False) -> dict:
    """How often :class:`~nertz.vision.backs.BackMatcher` names the right owner of a face-down
    card, on the *true* boxes of :func:`synthetic_samples` (the detector left out).

    Counts backs whose renderer ``visible`` fraction is at least ``min_visible``. The registered
    colours are the table file's (the renderer's nominal colours), or with ``measured`` those
    measured on the previous frame of the same scene (same camera and light) as ``nertz
    calibrate`` registers them (:func:`~nertz.vision.calibrate.register_backs`: each owner's
    backs there, hands' pixels and skin left out, median colour written as ``#rrggbb``;
    nominal for an owner with none); the first frame of each scene is then used for that only.

    Returns:
        ``{"n", "right", "unknown", "wrong", "accuracy", "wrong_pairs": [(truth, said, n)],
        "distances": (n,) array of distances to the true owner}``.
    """
    from nertz.referee.table import hex_to_lab

    from .backs import BackMatcher, back_lab
    from .calibrate import register_backs

    def crops(frame, truth):
        for j, b in enumerate(truth["boxes"]):
            if truth["class_id"][j] != 1 or truth["visible"][j] < min_visible:
                continue
            x0, y0, x1, y1 = np.round(b).astype(int)
            crop = frame[max(y0, 0):y1, max(x0, 0):x1]
            if crop.size:
                yield truth["owners"][j], crop

    c = Counter()
    pairs: Counter = Counter()
    dist = []
    previous = None
    for frame, truth in samples:
        tbl = truth.get("table_file")
        m = BackMatcher.from_table(tbl) if threshold is None else BackMatcher.from_table(tbl, threshold)
        if measured:
            same_scene = previous is not None and previous[1].get("table_file") == tbl
            reference, previous = previous, (frame, truth)
            if not same_scene:
                continue
            ref_frame, ref_truth = reference
            ref_boxes = np.asarray(ref_truth["boxes"], np.float64).reshape(-1, 4)
            ref_cls = np.asarray(ref_truth["class_id"])
            per_owner = [ref_boxes[[j for j in range(len(ref_boxes)) if ref_cls[j] == 1
                                    and ref_truth["visible"][j] >= min_visible and ref_truth["owners"][j] == name]]
                         for name in m.names]
            colours = register_backs(ref_frame, per_owner, hands=ref_boxes[ref_cls == 2])
            for k, colour in enumerate(colours):
                if colour is not None:
                    m.labs[k] = hex_to_lab(colour)
        for want, crop in crops(frame, truth):
            said, _ = m.match(crop)
            dist.append(float(m.distances(back_lab(crop))[m.names.index(want)]))
            c["n"] += 1
            c["right"] += said == want
            c["unknown"] += said == "unknown"
            c["wrong"] += said not in (want, "unknown")
            if said != want:
                pairs[(want, said)] += 1
    return {"n": c["n"], "right": c["right"], "unknown": c["unknown"], "wrong": c["wrong"],
            "accuracy": c["right"] / max(c["n"], 1), "wrong_pairs": pairs.most_common(10),
            "distances": np.array(dist)}


def classifier_accuracy(recognizer, folder: Path, batch: int = 256) -> dict:
    """Top-1 accuracy of the recogniser's classifier on a classification folder
    (``<folder>/<class>/*.png``, crops as written by :func:`nertz.datasets.export.write_dataset`).

    Returns:
        ``{"n", "right", "accuracy", "per_class": {name: accuracy}, "confusions": [(truth, said, n)]}``.
    """
    import cv2

    items = [(p, p.parent.name) for p in sorted(Path(folder).glob("*/*.png"))]
    size = recognizer.cls_size
    right = Counter()
    total = Counter()
    pairs: Counter = Counter()
    for i in range(0, len(items), batch):
        chunk = items[i:i + batch]
        crops = np.stack([cv2.resize(cv2.imread(str(p)), (size, size), interpolation=cv2.INTER_AREA) for p, _ in chunk])
        said, _ = recognizer.classify_crops(crops)
        for (p, want), got in zip(chunk, said):
            total[want] += 1
            right[want] += got == want
            if got != want:
                pairs[(want, got)] += 1
    n = sum(total.values())
    return {"n": n, "right": sum(right.values()), "accuracy": sum(right.values()) / max(n, 1),
            "per_class": {k: right[k] / total[k] for k in sorted(total)},
            "confusions": [(a, b, c) for (a, b), c in pairs.most_common(15)]}


def corner_error(pred: np.ndarray, truth: np.ndarray) -> float:
    """Mean distance (pixels) between the corners of two quads ``(4, 2)``, over the best of the
    4 cyclic correspondences (a card's quad has no preferred start corner)."""
    p = np.asarray(pred, np.float64).reshape(4, 2)
    t = np.asarray(truth, np.float64).reshape(4, 2)
    return float(min(np.linalg.norm(np.roll(p, k, axis=0) - t, axis=1).mean() for k in range(4)))


def calibration_error(prob: np.ndarray, right: np.ndarray, bins: int = 10) -> float:
    """Expected calibration error: the mean over equal-width confidence bins of
    ``|accuracy - mean confidence|``, weighted by the bin's share (Guo et al. 2017)."""
    prob = np.asarray(prob, np.float64)
    right = np.asarray(right, np.float64)
    if len(prob) == 0:
        return float("nan")
    b = np.minimum((prob * bins).astype(int), bins - 1)
    return float(sum(abs(right[b == k].mean() - prob[b == k].mean()) * (b == k).mean()
                     for k in range(bins) if (b == k).any()))


def whole_card_accuracy(recognizer, samples: Iterable[tuple[np.ndarray, dict]], min_visible: float = 0.9,
                        jitter: float = 0.0, seed: int = 0, iou: float = 0.5) -> dict:
    """Identity of every face-up card at least ``min_visible`` visible (renderer's fraction), the
    cards the tracker reads, on :func:`synthetic_samples`.

    - **label quads**: :meth:`~nertz.vision.detect.CardRecognizer.identify_quads` on the true
      quads (moved by :func:`nertz.datasets.export.jitter_quad` with ``corner=jitter`` when
      ``jitter`` > 0).
    - **predicted quads**: the recogniser's full pipeline (``recognizer(frame)``); each such
      card is matched to a face detection by IoU of the bounding boxes (>= ``iou``); counted
      as found when matched, right when the face's label is the card. The corner error of
      the matched detection's quad is the :func:`corner_error` to the true quad.

    Returns:
        ``{"n", "label_quads": {"accuracy", "ece", "confusions"}, "predicted": {"found",
        "recall", "accuracy" (of found), "end_to_end" (right / n), "whole" (share of found
        marked whole), "corner_px_median", "corner_px_p90", "corner_rel_median" (error over the
        card's short side)}}``.
    """
    from nertz.datasets.export import jitter_quad, order_quad

    rng = np.random.default_rng(seed)
    lab_right, lab_prob, conf_pairs = [], [], Counter()
    found = right_pred = whole = 0
    errs, rel, pred_prob, pred_right = [], [], [], []
    n = 0
    for frame, truth in samples:
        cards = [c for c in truth["table"]["cards"] if c["face_up"] and c["visible"] >= min_visible]
        if not cards:
            continue
        n += len(cards)
        quads = np.stack([order_quad(np.asarray(c["quad"])) for c in cards]).astype(np.float64)
        if jitter > 0:
            quads = np.stack([jitter_quad(q, rng, corner=jitter) for q in quads])
        said, prob = recognizer.identify_quads(frame, quads.astype(np.float32))
        for c, s_, p in zip(cards, said, prob):
            lab_right.append(s_ == c["card"])
            lab_prob.append(float(p))
            if s_ != c["card"]:
                conf_pairs[(c["card"], str(s_))] += 1
        det = recognizer(frame)
        fi = np.nonzero(det.class_id == 0)[0]
        tq = np.stack([np.asarray(c["quad"], np.float64) for c in cards])
        tboxes = np.column_stack([tq.min(axis=1), tq.max(axis=1)])
        for a, b in match_boxes(det.boxes[fi], tboxes, iou):
            d = fi[a]
            found += 1
            right_pred += str(det.labels[d]) == cards[b]["card"]
            pred_prob.append(float(det.label_confidence[d]))
            pred_right.append(str(det.labels[d]) == cards[b]["card"])
            whole += bool(det.whole[d])
            e = corner_error(det.quads[d], tq[b])
            errs.append(e)
            short = min(np.linalg.norm(tq[b][1] - tq[b][0]), np.linalg.norm(tq[b][3] - tq[b][0]))
            rel.append(e / max(short, 1e-6))
    lr = np.array(lab_right, bool)
    return {"n": n,
            "label_quads": {"accuracy": float(lr.mean()) if n else float("nan"),
                            "ece": calibration_error(np.array(lab_prob), lr),
                            "confusions": [(a, b, c) for (a, b), c in conf_pairs.most_common(15)]},
            "predicted": {"found": found, "recall": found / max(n, 1),
                          "accuracy": right_pred / max(found, 1), "end_to_end": right_pred / max(n, 1),
                          "whole": whole / max(found, 1),
                          "ece": calibration_error(np.array(pred_prob), np.array(pred_right, bool)),
                          "corner_px_median": float(np.median(errs)) if errs else float("nan"),
                          "corner_px_p90": float(np.percentile(errs, 90)) if errs else float("nan"),
                          "corner_rel_median": float(np.median(rel)) if rel else float("nan")}}


def fit_temperature(onnx: Path, folder: Path, batch: int = 256, tta: bool = True) -> dict:
    """Fit the softmax temperature of a classifier (Guo et al. 2017, "On calibration of modern
    neural networks") on a classification folder of its own input images
    (``<folder>/<class>/*.png``, e.g. the ``val`` split of a ``kind="card"`` set): the ``T`` in
    0.5..3 (grid of 0.01) minimising the negative log-likelihood of ``softmax(log p / T)``.
    ``tta``: ``p`` is the mean of the image's and its 180-degree turn's probabilities, as
    :class:`~nertz.vision.detect.CardRecognizer` computes them by default.

    Returns:
        ``{"temperature", "n", "accuracy", "nll_before", "nll_after", "ece_before", "ece_after"}``.
    """
    import cv2

    from .detect import _names, _session

    sess = _session(Path(onnx), 2)
    names = _names(sess)
    index = {v: k for k, v in names.items()}
    items = [(p, index[p.parent.name]) for p in sorted(Path(folder).glob("*/*.png")) if p.parent.name in index]
    if not items:
        raise ValueError(f"no images of the model's classes under {folder}")
    probs = []
    for i in range(0, len(items), batch):
        x = np.stack([cv2.imread(str(p)) for p, _ in items[i:i + batch]])
        x = x[..., ::-1].transpose(0, 3, 1, 2).astype(np.float32) / 255.0
        pr = sess.run(None, {sess.get_inputs()[0].name: np.ascontiguousarray(x)})[0]
        if tta:
            pr = (pr + sess.run(None, {sess.get_inputs()[0].name: np.ascontiguousarray(x[:, :, ::-1, ::-1])})[0]) / 2
        probs.append(pr)
    p = np.concatenate(probs).astype(np.float64)
    y = np.array([c for _, c in items])
    logp = np.log(np.clip(p, 1e-12, 1.0))

    def scaled(t: float) -> np.ndarray:
        z = logp / t
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    def nll(t: float) -> float:
        return float(-np.mean(np.log(np.clip(scaled(t)[np.arange(len(y)), y], 1e-12, 1.0))))

    grid = np.arange(0.5, 3.0001, 0.01)
    t = float(grid[int(np.argmin([nll(g) for g in grid]))])
    right = p.argmax(axis=1) == y
    return {"temperature": round(t, 2), "n": len(y), "accuracy": float(right.mean()),
            "nll_before": nll(1.0), "nll_after": nll(t),
            "ece_before": calibration_error(p.max(axis=1), right),
            "ece_after": calibration_error(scaled(t).max(axis=1), right)}


def format_report(r: dict) -> str:
    """Readable lines of an :func:`evaluate` result."""
    out = [f"images: {r['images']}"]
    for name, c in list(r["per_class"].items()) + [("cards (face or back)", r["all"])]:
        out.append(f"  {name:>20}: precision {c['precision']:.3f} recall {c['recall']:.3f} "
                   f"(tp {c['tp']}, fp {c['fp']}, fn {c['fn']})")
    i = r["identity"]
    ri = r.get("rank_identity", {"n": 0})
    if i["n"] or not ri["n"]:
        out.append(f"  identity of matched faces: {i['accuracy']:.4f} ({i['right']}/{i['n']})")
        for part, what in (("whole", "whole cards (rectified-card classifier)"), ("part", "other faces (strips, covered)")):
            c = r.get("identity_parts", {}).get(part, {"n": 0})
            if c["n"]:
                out.append(f"    {what}: {c['right'] / c['n']:.4f} ({c['right']}/{c['n']})")
    if r["confusions"]:
        out.append("  confusions (truth -> said: n): " + ", ".join(f"{a}->{b}: {n}" for a, b, n in r["confusions"]))
    if ri["n"]:
        out.append(f"  rank of matched faces (rank-only labels): {ri['accuracy']:.4f} ({ri['right']}/{ri['n']})")
        if r.get("rank_confusions"):
            out.append("  rank confusions (true rank -> said card: n): "
                       + ", ".join(f"{a}->{b}: {n}" for a, b, n in r["rank_confusions"]))
    out.append(f"  median ms per image: detector {r['det_ms']:.1f}, detector + identification {r['full_ms']:.1f} "
               f"({1000 / max(r['full_ms'], 1e-9):.1f} images/s)")
    return "\n".join(out)


if __name__ == "__main__":  # pragma: no cover - a measuring script
    from .detect import CardRecognizer

    usage = (
        "usage: python -m nertz.vision.evaluate crops DIR | synth N SEED | cards N SEED [JITTER] | "
        "voc DIR [LABELS.json] [IMGSZ] | stacks DIR [IMGSZ]\n"
        "  crops: classifier top-1 on a classification folder (nertz synth dataset --kind classify)\n"
        "  synth: detector + identity on N fresh synthetic frames from SEED\n"
        "  cards: identity of whole face-up cards (label quads, jittered by JITTER, and the\n"
        "         detector's quads) and corner error on N synthetic frames from SEED\n"
        "  voc:   detector + identity on a folder of Pascal-VOC labelled photos (without LABELS.json,\n"
        "         or with '' / none in its place, the rank from the VOC names is scored)\n"
        "  stacks: blackjack total of each stack on a folder with labels.csv (stack totals only)\n"
        "  backs: owner of each face-down card (half visible or more) by its back colour, on the\n"
        "         true boxes of N synthetic frames from SEED (the scene's nominal colours; with\n"
        "         --measured, colours measured on the scene's other frame, as calibration does)"
    )
    need = {"crops": 3, "synth": 4, "voc": 3, "cards": 4, "stacks": 3, "backs": 4}
    if len(sys.argv) >= 2 and sys.argv[1] not in need:
        print(f"unknown mode {sys.argv[1]!r}; choose from {', '.join(need)}", file=sys.stderr)
    if len(sys.argv) < 2 or sys.argv[1] not in need or len(sys.argv) < need[sys.argv[1]]:
        print(usage, file=sys.stderr)
        sys.exit(2)
    kind = sys.argv[1]
    if kind == "crops":
        r = classifier_accuracy(CardRecognizer(table=None), Path(sys.argv[2]))
        worst = sorted(r["per_class"].items(), key=lambda kv: kv[1])[:8]
        print(f"classifier top-1 {r['accuracy']:.4f} ({r['right']}/{r['n']}); worst classes {worst}; "
              f"confusions {r['confusions']}")
        sys.exit(0)
    if kind == "cards":
        r = whole_card_accuracy(CardRecognizer(table=None), synthetic_samples(int(sys.argv[2]), int(sys.argv[3])),
                                jitter=float(sys.argv[4]) if len(sys.argv) > 4 else 0.0)
        lq, pq = r["label_quads"], r["predicted"]
        print(f"whole face-up cards: {r['n']}\n"
              f"  label quads: identity {lq['accuracy']:.4f}, ECE {lq['ece']:.4f}; confusions {lq['confusions']}\n"
              f"  detector: found {pq['found']} (recall {pq['recall']:.3f}), marked whole {pq['whole']:.3f}, "
              f"identity of found {pq['accuracy']:.4f} (ECE {pq['ece']:.4f}), end to end {pq['end_to_end']:.4f}\n"
              f"  corner error: median {pq['corner_px_median']:.2f} px, 90th percentile {pq['corner_px_p90']:.2f} px, "
              f"median / short side {pq['corner_rel_median']:.3f}")
        sys.exit(0)
    if kind == "stacks":
        size = int(sys.argv[3]) if len(sys.argv) > 3 else 640
        try:
            r = stack_total_accuracy(CardRecognizer(table=None, imgsz=size), Path(sys.argv[2]))
        except (FileNotFoundError, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            sys.exit(2)
        for name, pred, truth in r["per_image"]:
            print(f"  {name}: found {pred} true {truth}")
        print(f"detector at {size}: stacks with the right total {r['stacks_right']}/{r['stacks']} "
              f"({r['stack_accuracy']:.3f}); images with every total right {r['images_all_right']}/{r['images']}; "
              f"stacks found {r['stacks_found']}; faces found per image, median {r['faces_median']:.0f}")
        sys.exit(0)
    if kind == "backs":
        r = back_accuracy(synthetic_samples(int(sys.argv[2]), int(sys.argv[3])), measured="--measured" in sys.argv)
        d = r["distances"]
        print(f"face-down cards: {r['n']}; owner right {r['accuracy']:.4f} ({r['right']}), unknown {r['unknown']}, "
              f"wrong {r['wrong']}; distance to the true colour median {np.median(d) if len(d) else float('nan'):.1f}, "
              f"90th percentile {np.percentile(d, 90) if len(d) else float('nan'):.1f}\n"
              f"  wrong pairs (truth, said, n): {r['wrong_pairs']}")
        sys.exit(0)
    if kind == "synth":
        rec = CardRecognizer(table=None)
        res = evaluate(rec, synthetic_samples(int(sys.argv[2]), int(sys.argv[3])))
    else:
        # voc DIR [LABELS.json] [IMGSZ]: a number is the image size; "", "-", "--" or "none" stand
        # for no labels file (rank-only truth from the VOC object names)
        labels_path, size = None, 640
        for arg in sys.argv[3:5]:
            if arg.isdigit():
                size = int(arg)
            elif arg.strip().lower() not in ("", "-", "--", "none"):
                labels_path = Path(arg)
        if not Path(sys.argv[2]).is_dir():
            print(f"error: {sys.argv[2]} is not a folder", file=sys.stderr)
            sys.exit(2)
        if labels_path is not None and not labels_path.is_file():
            print(f"error: labels file {labels_path} not found", file=sys.stderr)
            sys.exit(2)
        rec = CardRecognizer(table=None, imgsz=size)
        res = evaluate(rec, voc_samples(Path(sys.argv[2]), labels_path), classes=(0,))
        print(f"detector at {size}, truth: {labels_path or 'VOC ranks only'}")
    print(format_report(res))
