"""``nertz eval``: precision, recall and identity accuracy of the card recogniser on any
labelled folder of images.

Label formats (``--labels``):

* a folder of **Pascal VOC** ``.xml`` files (one per image): each ``<object>``'s ``<name>`` is
  a card (``7S``, ``JK``), a rank word (``nine`` .. ``ace``, ``two`` .. ``eight``: only the rank
  is then checked), or ``card``/``face``/``back``/``hand`` (detection only). When a file's
  ``<size>`` is not the image's size but has its shape (e.g. labelled on a photo twice as
  large), its boxes are scaled to the image, with a warning naming the file; a ``<size>`` of
  another shape (a turned photo) skips the image, with a message;
* a folder of **YOLO** ``.txt`` files (``class cx cy w h``, normalised, or an oriented box
  ``class x1 y1 x2 y2 x3 y3 x4 y4`` as ``nertz synth dataset --kind obb`` writes it, matched by
  its bounding box; a line of any other length is an error), with the class names
  in ``classes.txt`` (one a line) or ``data.yaml`` (``names: [KH, AC]``, a block of ``- KH``
  lines, or of ``0: KH`` lines, under ``names:``) in the folder or its parent, or, in
  ultralytics' layout (``DS/labels/val``), any folder up to the dataset root ``DS`` (the one
  holding ``labels``); with neither, the detector's own ``0 face, 1 back, 2 hand`` (with a
  warning). A names file that gives no names is an error;
* a **JSON** file ``{"images": [{"image": name, "boxes": [{"xmin", "ymin", "xmax", "ymax",
  "card"}]}]}`` (as ``shared/real_cards/edje_tf_cards/train_labels.json``), each image once;
* a **JSON lines** file of card lists, ``{"image": name, "cards": ["7S", "QH", ...]}`` per line
  (cards or rank words): no boxes, so each image's named cards are compared as multisets.

A label whose image is not in ``--images`` (or cannot be read) is skipped with a message; the
run fails (status 2) only when no labelled image at all can be read. A label that is not a card
is an error naming its file (and line, for YOLO and card lists), as is a box coordinate that is
not a finite number (null, NaN, infinite, a word), a box with xmin >= xmax or ymin >= ymax (a
YOLO width or height not above 0), and a label file that is not UTF-8.

Boxes are matched one to one by IoU (``--iou``, default 0.5) against the detector's boxes; a
matched face is then named right or wrong. Printed: detection precision and recall per class and
for all cards, identity accuracy overall and per card, and the most frequent confusion pairs.
A precision or recall with nothing to count (no detections, no truth boxes of that class) is
``none`` (JSON ``null``), not 0. Cards are written as in the labels' notation: ``"AS"``, or
``"A"`` for a card labelled by rank only.

With card lists, ``card_lists`` counts, over all images, the faces found (class ``face``; backs
and hands are not counted): a found face named as one of the image's listed cards (each listed
card used once) is a true positive, any other found face (an extra or misnamed one) a false
positive, a listed card no found face was named as a false negative; identity accuracy is then
the recall.
"""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Annotated, Any, Optional

import numpy as np
import typer

from nertz.referee.errors import NertzError

__all__ = ["eval_command", "read_labels_any", "score", "RANK_WORDS"]

RANK_WORDS = {"ace": "A", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
              "eight": "8", "nine": "9", "ten": "T", "jack": "J", "queen": "Q", "king": "K"}
"""Rank words of VOC sets labelled by rank only (checked against the first character)."""

_DETECT_WORDS = {"card": 0, "face": 0, "back": 1, "hand": 2}
_IMAGE_EXT = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")
_SHAPE_TOLERANCE = 0.02
"""How far (relative) a VOC ``<size>``'s width and height scales may differ and still be
taken for one scale of the image."""


def _truth_of(name: str, where: str = "") -> tuple[int, str]:
    """(detector class, card or rank-prefix ``"r:9"`` or "") of a label name; ``where`` (file,
    line) prefixes the error.

    Raises:
        NertzError: the name is not a card, a rank word or a detector class.
    """
    n = name.strip()
    low = n.lower()
    if low in _DETECT_WORDS:
        return _DETECT_WORDS[low], ""
    if low in RANK_WORDS:
        return 0, "r:" + RANK_WORDS[low]
    from nertz.referee.cards import CardError, parse_card

    try:
        return 0, str(parse_card(n))
    except CardError:
        raise NertzError(f"{where + ': ' if where else ''}label {name!r} is not a card (7S, JK), "
                         "a rank word (nine, ace) or card/face/back/hand") from None


def _card_name(want: str) -> str:
    """The notation a user writes for an internal truth: ``"r:A"`` (rank only) -> ``"A"``."""
    return want[2:] if want.startswith("r:") else want


def _find_image(folder: Path, stem_or_name: str) -> Path:
    p = folder / stem_or_name
    if p.is_file():
        return p
    for ext in _IMAGE_EXT + tuple(e.upper() for e in _IMAGE_EXT):
        q = folder / (Path(stem_or_name).stem + ext)
        if q.is_file():
            return q
    raise NertzError(f"{folder}: no image {stem_or_name!r} for a label")


def _read_text(path: Path) -> str:
    """The text of a label or names file (UTF-8, a leading byte-order mark dropped).

    Raises:
        NertzError: the file is not UTF-8 text or cannot be read.
    """
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise NertzError(f"{path}: not UTF-8 text (byte {exc.start} is {exc.object[exc.start]:#04x}); "
                         "save it as UTF-8") from None
    except OSError as exc:
        raise NertzError(f"{path}: cannot be read ({exc.strerror or exc})") from None


def _numbers(values: list[Any], keys: tuple[str, ...], where: str) -> list[float]:
    """``values`` (numbers, or numbers written as text) as finite floats; ``keys`` name them in
    the error, ``where`` (file, box) prefixes it.

    Raises:
        NertzError: a value that is not a number (null, true, a word) or is not finite (NaN,
            infinite).
    """
    out = []
    for k, v in zip(keys, values):
        try:
            if isinstance(v, bool):
                raise TypeError
            f = float(v)
        except (TypeError, ValueError):
            raise NertzError(f"{where}: {k} {v!r} is not a number") from None
        if not math.isfinite(f):
            raise NertzError(f"{where}: {k} {v!r} is not a finite number")
        out.append(f)
    return out


def _check_box(box: list[float], where: str) -> list[float]:
    """``box`` (xyxy), checked to have xmin < xmax and ymin < ymax.

    Raises:
        NertzError: an inverted box (xmin > xmax or ymin > ymax) or one of zero area.
    """
    x0, y0, x1, y1 = box
    if x0 > x1 or y0 > y1:
        raise NertzError(f"{where}: box ({x0:g}, {y0:g}, {x1:g}, {y1:g}) is inverted: "
                         f"{'xmin > xmax' if x0 > x1 else 'ymin > ymax'}")
    if x0 == x1 or y0 == y1:
        raise NertzError(f"{where}: box ({x0:g}, {y0:g}, {x1:g}, {y1:g}) has zero area: "
                         f"{'xmin = xmax' if x0 == x1 else 'ymin = ymax'}")
    return box


def read_labels_any(images: Path, labels: Path, warnings: list[str] | None = None) -> list[dict[str, Any]]:
    """Read any supported label set (module docstring).

    Args:
        images: the folder of images.
        labels: the labels folder or file.
        warnings: a list to which messages about skipped labels (no image for them, or an
            unreadable one for YOLO) and other doubts are appended; None: dropped.

    Returns:
        ``[{"image": path, "boxes": (M, 4) xyxy pixels or None, "class_id": (M,) or None,
        "cards": [card, "r:<rank>" or ""], "size": (width, height) the VOC file declares or
        None, "label": the label file (and line)}]``: one per labelled image found.

    Raises:
        NertzError: missing folders, an unknown format, labels that do not parse or are not
            UTF-8, a box coordinate that is not a finite number, an inverted or zero-area box, or
            an image labelled twice in a JSON file.
    """
    warn = warnings if warnings is not None else []
    if not images.is_dir():
        raise NertzError(f"{images}: not a folder of images")
    if not labels.exists():
        raise NertzError(f"{labels}: no such labels file or folder")
    out: list[dict[str, Any]] = []
    if labels.is_dir():
        xmls, txts = sorted(labels.glob("*.xml")), sorted(labels.glob("*.txt"))
        txts = [t for t in txts if t.name != "classes.txt"]
        if xmls:
            for x in xmls:
                try:
                    root = ET.parse(x).getroot()
                    boxes, cls, cards = [], [], []
                    for j, o in enumerate(root.iter("object"), 1):
                        keys = ("xmin", "ymin", "xmax", "ymax")
                        if o.find("bndbox") is None or any(o.find(f"bndbox/{k}") is None for k in keys):
                            raise NertzError(f"{x}: object {j}: no <bndbox> with <xmin>, <ymin>, <xmax> and <ymax>")
                        b = _numbers([o.findtext(f"bndbox/{k}") for k in keys], keys, f"{x}: object {j}")
                        boxes.append(_check_box(b, f"{x}: object {j}"))
                        if o.find("name") is None:
                            raise NertzError(f"{x}: object {j}: no <name>")
                        c, card = _truth_of(o.find("name").text or "", f"{x}: object {j}")
                        cls.append(c)
                        cards.append(card)
                    fname = root.findtext("filename") or x.stem
                    size = None
                    if root.find("size") is not None:
                        w, h = (int(float(root.findtext(f"size/{k}") or 0)) for k in ("width", "height"))
                        size = (w, h) if w > 0 and h > 0 else None
                except (ET.ParseError, AttributeError, TypeError, ValueError, OverflowError) as exc:
                    raise NertzError(f"{x}: not a Pascal VOC annotation ({exc})") from None
                try:
                    img = _find_image(images, fname)
                except NertzError as exc:
                    warn.append(f"{x}: skipped: {exc}")
                    continue
                out.append({"image": img, "boxes": np.array(boxes, np.float64).reshape(-1, 4),
                            "class_id": np.array(cls, np.int64), "cards": cards, "size": size, "label": str(x)})
            return out
        if txts:
            from .detect import load_image

            names, source = _yolo_names(labels, warn)
            for t in txts:
                try:
                    img = _find_image(images, t.stem)
                    h, w = load_image(img).shape[:2]
                except NertzError as exc:
                    warn.append(f"{t}: skipped: {exc}")
                    continue
                boxes, cls, cards = [], [], []
                for i, line in enumerate(_read_text(t).splitlines(), 1):
                    parts = line.split()
                    if not parts:
                        continue
                    try:
                        k = int(parts[0])
                    except ValueError:
                        raise NertzError(f"{t}:{i}: not a YOLO label line (class cx cy w h)") from None
                    if len(parts) == 9:  # an oriented box (nertz synth dataset --kind obb): its bounding box
                        xy = np.array(_numbers(parts[1:], ("x1", "y1", "x2", "y2", "x3", "y3", "x4", "y4"),
                                               f"{t}:{i}")).reshape(4, 2)
                        (x0, y0), (x1, y1) = xy.min(axis=0), xy.max(axis=0)
                        parts = [parts[0], *map(str, ((x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0))]
                    if len(parts) != 5:  # anything else is neither: its first numbers are no box
                        raise NertzError(f"{t}:{i}: not a YOLO label line (class cx cy w h, or class x1 y1 .. x4 y4 "
                                         f"for an oriented box): {len(parts)} fields")
                    cx, cy, bw, bh = _numbers(parts[1:5], ("cx", "cy", "w", "h"), f"{t}:{i}")
                    if bw <= 0 or bh <= 0:
                        raise NertzError(f"{t}:{i}: box width {bw:g} and height {bh:g} must both be above 0")
                    if k not in names:
                        raise NertzError(f"{t}:{i}: class {k} has no name in {source} ({len(names)} names)")
                    c, card = _truth_of(names[k], f"{t}:{i}: class {k} of {source}")
                    boxes.append([(cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h])
                    cls.append(c)
                    cards.append(card)
                out.append({"image": img, "boxes": np.array(boxes, np.float64).reshape(-1, 4),
                            "class_id": np.array(cls, np.int64), "cards": cards, "size": None, "label": str(t)})
            return out
        raise NertzError(f"{labels}: no .xml (Pascal VOC) or .txt (YOLO) labels in this folder")
    if labels.suffix.lower() in (".xml", ".txt"):
        kind = "Pascal VOC" if labels.suffix.lower() == ".xml" else "YOLO"
        raise NertzError(f"{labels}: {kind} labels are given as the folder of {labels.suffix.lower()} files "
                         f"(--labels {labels.parent}), not one file")
    text = _read_text(labels)
    if labels.suffix in (".jsonl", ".ndjson"):
        for i, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            where = f"{labels}:{i}"
            try:
                e = json.loads(line)
                name, listed = e["image"], e["cards"]
                if not isinstance(name, str) or not name.strip():
                    raise TypeError(f"'image' {name!r} is not a file name")
                if not isinstance(listed, list):
                    raise TypeError("'cards' is not a list")
            except (ValueError, KeyError, TypeError) as exc:
                raise NertzError(f"{where}: not a card list line {{\"image\": name, \"cards\": [...]}} ({exc})") from None
            cards = []
            for c in listed:
                card = _truth_of(str(c), where)[1]
                if not card:
                    raise NertzError(f"{where}: {c!r}: a card list names cards (7S) or ranks (nine), "
                                     "not card/face/back/hand")
                cards.append(card)
            try:
                img = _find_image(images, name)
            except NertzError as exc:
                warn.append(f"{where}: skipped: {exc}")
                continue
            first = next((o["label"] for o in out if o["image"] == img), None)
            if first is not None:  # scored twice, it would count its faces twice
                raise NertzError(f"{where}: {name!r} is listed again (first at {first}): one line per image")
            out.append({"image": img, "boxes": None, "class_id": None, "cards": cards, "size": None, "label": where})
        return out
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise NertzError(f"{labels}: not a labels file of a supported format ({exc})") from None
    form = '{"images": [{"image": name, "boxes": [{"xmin", "ymin", "xmax", "ymax", "card"}]}]}'
    if not isinstance(data, dict) or not isinstance(data.get("images"), list):
        raise NertzError(f"{labels}: not a labels file of a supported format (JSON boxes are {form})")
    seen: dict[Path, int] = {}
    for n, e in enumerate(data["images"], 1):
        name = e.get("image") if isinstance(e, dict) else None
        if not isinstance(name, str) or not name.strip():
            raise NertzError(f"{labels}: entry {n} of \"images\": no \"image\" file name ({form})")
        where = f"{labels}: image {name!r}"
        bs = e.get("boxes")
        if not isinstance(bs, list) or not all(isinstance(b, dict) for b in bs):
            raise NertzError(f"{where}: \"boxes\" is not a list of {{\"xmin\", \"ymin\", \"xmax\", \"ymax\", "
                             "\"card\"} objects")
        keys = ("xmin", "ymin", "xmax", "ymax")
        boxes = []
        for j, b in enumerate(bs, 1):
            if any(k not in b for k in keys):
                raise NertzError(f"{where}, box {j}: no {', '.join(k for k in keys if k not in b)}")
            boxes.append(_check_box(_numbers([b[k] for k in keys], keys, f"{where}, box {j}"), f"{where}, box {j}"))
        cards = [_truth_of(str(b["card"]), f"{where}, box {j}")[1] if b.get("card") else ""
                 for j, b in enumerate(bs, 1)]
        try:
            img = _find_image(images, name)
        except NertzError as exc:
            warn.append(f"{where} skipped: {exc}")
            continue
        if img in seen:  # scored twice, it would count its boxes twice
            raise NertzError(f"{where} is listed again (entries {seen[img]} and {n} of \"images\"): one entry per image")
        seen[img] = n
        out.append({"image": img, "boxes": np.array(boxes, np.float64).reshape(-1, 4),
                    "class_id": np.zeros(len(bs), np.int64), "cards": cards, "size": None, "label": str(labels)})
    return out


def _yaml_names(text: str) -> dict[int, str]:
    """The class names of a YOLO ``data.yaml`` (its top-level ``names``, read with PyYAML): a
    list (``[KH, 'AC']`` or a block of ``- KH`` lines) or a mapping (``{0: KH}`` or a block of
    ``0: KH`` lines). ``{}`` when the file is not YAML, has no ``names`` or they give none."""
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return {}
    names = data.get("names") if isinstance(data, dict) else None
    if isinstance(names, list):
        names = dict(enumerate(names))
    if not isinstance(names, dict):
        return {}
    return {int(k): str(v).strip() for k, v in names.items()
            if str(k).strip().isdigit() and v is not None and str(v).strip()}


def _yolo_names(folder: Path, warnings: list[str]) -> tuple[dict[int, str], str]:
    """(class id -> name, where they came from) for a YOLO labels folder: the first
    ``classes.txt`` or ``data.yaml`` in the folder, its parent, or, inside a ``labels`` folder
    (ultralytics' ``DS/labels/val`` beside ``DS/data.yaml``), any folder up to the dataset root
    (the one holding ``labels``); else the detector's classes, with a warning.

    Raises:
        NertzError: a names file that gives no names or is not UTF-8.
    """
    chain = [folder, *folder.absolute().parents]
    top = next((i + 1 for i, p in enumerate([folder.absolute(), *chain[1:]]) if p.name == "labels"), 1)
    for base in chain[:top + 1]:
        ct = base / "classes.txt"
        if ct.is_file():
            names = dict(enumerate(x.strip() for x in _read_text(ct).splitlines() if x.strip()))
            if not names:
                raise NertzError(f"{ct}: no class names in it (one name a line: KH, AC, ...)")
            return names, str(ct)
        dy = base / "data.yaml"
        if dy.is_file():
            names = _yaml_names(_read_text(dy))
            if not names:
                raise NertzError(f"{dy}: no class names read from it (write them as names: [KH, AC], "
                                 "or under names: as lines '- KH' or '0: KH')")
            return names, str(dy)
    warnings.append(f"{folder}: no classes.txt or data.yaml beside the labels: class ids taken as the "
                    "detector's 0 face, 1 back, 2 hand")
    return {0: "face", 1: "back", 2: "hand"}, "the detector's classes (face, back, hand)"


def _right(said: str, want: str) -> bool:
    return said[:1] == want[2:] if want.startswith("r:") else said == want


def _scaled_truth(item: dict[str, Any], width: int, height: int) -> tuple[np.ndarray | None, str]:
    """(the item's boxes in the image's pixels, or None when its declared size has another shape;
    a message, or "" when the declared size is the image's)."""
    gb, size = item["boxes"], item.get("size")
    if gb is None or not size or tuple(size) == (width, height):
        return gb, ""
    w, h = size
    sx, sy = width / w, height / h
    where = f"{item.get('label', item['image'])}: <size> {w}x{h}"
    if abs(sx / sy - 1) > _SHAPE_TOLERANCE:
        return None, f"{where} is not the shape of {item['image']} ({width}x{height} pixels; turned?)"
    return gb * [sx, sy, sx, sy], (f"{where} but {item['image']} is {width}x{height} pixels: "
                                   f"boxes scaled by {sx:.3g} to the image")


def score(recognizer: Any, items: list[dict[str, Any]], iou: float = 0.5) -> dict[str, Any]:
    """Run the recogniser on every labelled image and count (see the module docstring).

    Args:
        recognizer: a :class:`~nertz.vision.detect.CardRecognizer` (``detect``, ``identify``).
        items: labelled images from :func:`read_labels_any`.
        iou: box matching threshold.

    Returns:
        ``{"images", "unreadable", "warnings", "detection": {class: {tp, fp, fn, precision,
        recall}}, "card_lists": {tp, fp, fn, precision, recall}, "identity": {"n", "right",
        "accuracy"}, "per_card": {card: {n, right, accuracy}}, "confusions": [[truth, said,
        count]]}``; a ratio of nothing is None; cards in the labels' notation (``"A"`` for a
        rank-only label).
    """
    from .detect import ImageError, load_image
    from .evaluate import match_boxes

    det_counts = {k: Counter() for k in ("face", "back", "hand", "cards")}
    lists = Counter()
    ident, per_card, conf = Counter(), {}, Counter()
    unreadable, warnings = [], []
    for item in items:
        try:
            frame = load_image(item["image"])
        except ImageError as exc:
            unreadable.append(str(exc))
            continue
        gb, note = _scaled_truth(item, frame.shape[1], frame.shape[0])
        if item["boxes"] is not None and gb is None:
            unreadable.append(note)
            continue
        if note:
            warnings.append(note)
        d = recognizer.identify(frame, recognizer.detect(frame))
        faces = np.nonzero(d.class_id == 0)[0]
        if gb is None:  # card lists: multisets, whole cards matched before ranks
            said = Counter(str(d.labels[i]) for i in faces)
            right = 0
            for want in sorted(item["cards"], key=lambda w: w.startswith("r:")):
                hit = next((s for s in said if said[s] > 0 and _right(s, want)), None)
                pc = per_card.setdefault(want, Counter())
                pc["n"] += 1
                ident["n"] += 1
                if hit is not None:
                    said[hit] -= 1
                    pc["right"] += 1
                    ident["right"] += 1
                    right += 1
            lists["tp"] += right
            lists["fp"] += len(faces) - right
            lists["fn"] += len(item["cards"]) - right
            continue
        gc = item["class_id"]
        for k, c in (("face", 0), ("back", 1), ("hand", 2), ("cards", None)):
            di = np.nonzero(np.isin(d.class_id, [0, 1]) if c is None else d.class_id == c)[0]
            gi = np.nonzero(np.isin(gc, [0, 1]) if c is None else gc == c)[0]
            pairs = match_boxes(d.boxes[di], gb[gi], iou)
            det_counts[k]["tp"] += len(pairs)
            det_counts[k]["fp"] += len(di) - len(pairs)
            det_counts[k]["fn"] += len(gi) - len(pairs)
            if k == "cards":
                for a, b in pairs:
                    want = item["cards"][gi[b]]
                    if not want:
                        continue
                    said = str(d.labels[di[a]]) if d.class_id[di[a]] == 0 else "back"
                    pc = per_card.setdefault(want, Counter())
                    pc["n"] += 1
                    ident["n"] += 1
                    if _right(said, want):
                        pc["right"] += 1
                        ident["right"] += 1
                    else:
                        conf[(want, said)] += 1

    def ratio(a: int, b: int) -> float | None:
        return round(a / b, 4) if b else None

    def pr(c: Counter) -> dict[str, Any]:
        tp, fp, fn = c["tp"], c["fp"], c["fn"]
        return {"tp": tp, "fp": fp, "fn": fn, "precision": ratio(tp, tp + fp), "recall": ratio(tp, tp + fn)}

    return {
        "images": len(items) - len(unreadable), "unreadable": unreadable, "warnings": warnings,
        "detection": {k: pr(v) for k, v in det_counts.items()},
        "card_lists": pr(lists),
        "identity": {"n": ident["n"], "right": ident["right"], "accuracy": ratio(ident["right"], ident["n"])},
        "per_card": {_card_name(k): {"n": v["n"], "right": v["right"], "accuracy": ratio(v["right"], v["n"])}
                     for k, v in sorted(per_card.items(), key=lambda kv: _card_name(kv[0]))},
        "confusions": [[_card_name(a), b, n] for (a, b), n in conf.most_common(15)],
    }


def _f(x: float | None) -> str:
    return "none" if x is None else f"{x:.3f}"


def eval_command(
    images: Annotated[Path, typer.Option("--images", help="Folder of images.")],
    labels: Annotated[Path, typer.Option("--labels", help="Labels: VOC or YOLO folder, JSON boxes, or JSON lines of card lists.")],
    table: Annotated[Optional[Path], typer.Option("--table", "-t", help="Table file (backs are named by its colours).")] = None,
    iou: Annotated[float, typer.Option("--iou", min=0.05, max=0.95, help="Box matching threshold.")] = 0.5,
    imgsz: Annotated[int, typer.Option(min=64, max=2048, help="Detector input size (the image's longer side is "
                                       "scaled to it), pixels, as for nertz detect: 640 for a camera's view of a "
                                       "table; 320 for a photo of a few large cards (the README's real-photo "
                                       "figures).")] = 640,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Precision, recall and identity accuracy of the shipped models on a labelled folder."""
    from nertz.referee.files import read_table

    from .detect import CardRecognizer

    notes: list[str] = []
    try:
        items = read_labels_any(images, labels, notes)
        if not items:
            for n in notes:
                typer.echo(f"warning: {n}", err=True)
            raise NertzError(f"{labels}: no labelled image found in {images}")
        rec = CardRecognizer(table=read_table(table) if table is not None else None, imgsz=imgsz)
        r = score(rec, items, iou)
    except NertzError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    r["warnings"] = notes + r["warnings"]
    r["imgsz"] = imgsz
    for n in r["warnings"]:
        typer.echo(f"warning: {n}", err=True)
    for u in r["unreadable"]:
        typer.echo(f"warning: skipped: {u}", err=True)
    if not r["images"]:
        typer.echo(f"error: none of the {len(items)} labelled images could be read", err=True)
        raise typer.Exit(2)
    if as_json:
        typer.echo(json.dumps(r))
        return
    typer.echo(f"{r['images']} images (imgsz {imgsz})")
    if any(v["tp"] + v["fn"] + v["fp"] for v in r["detection"].values()):
        typer.echo(f"{'detection':<10}{'precision':>10}{'recall':>8}{'tp':>6}{'fp':>6}{'fn':>6}")
        for k, v in r["detection"].items():
            if v["tp"] + v["fp"] + v["fn"]:
                typer.echo(f"{k:<10}{_f(v['precision']):>10}{_f(v['recall']):>8}{v['tp']:>6}{v['fp']:>6}{v['fn']:>6}")
    cl = r["card_lists"]
    if cl["tp"] + cl["fp"] + cl["fn"]:
        typer.echo(f"card lists: precision {_f(cl['precision'])} ({cl['tp']} of {cl['tp'] + cl['fp']} faces found "
                   f"named a listed card), recall {_f(cl['recall'])} ({cl['tp']} of {cl['tp'] + cl['fn']} listed cards)")
    i = r["identity"]
    typer.echo(f"identity: {i['right']}/{i['n']} = {_f(i['accuracy'])}"
               + ("  (of matched faces)" if r["detection"]["cards"]["tp"] else ""))
    worst = sorted(r["per_card"].items(), key=lambda kv: kv[1]["accuracy"])[:10]
    if worst:
        typer.echo("weakest cards: " + ", ".join(f"{k} {v['right']}/{v['n']}" for k, v in worst))
    if r["confusions"]:
        typer.echo("confusions (truth -> said): " + ", ".join(f"{a} -> {b} x{n}" for a, b, n in r["confusions"]))
