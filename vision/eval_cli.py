"""``nertz eval``: precision, recall and identity accuracy of the card recogniser on any
labelled folder of images.

Label formats (``--labels``):

* a folder of **Pascal VOC** ``.xml`` files (one per image): each ``<object>``'s ``<name>`` is
  a card (``7S``, ``JK``), a rank word (``nine`` .. ``ace``, ``two`` .. ``eight``: only the rank
  is then checked), or ``card``/``face``/``back``/``hand`` (detection only);
* a folder of **YOLO** ``.txt`` files (``class cx cy w h``, normalised), with the class names
  in ``classes.txt`` or ``data.yaml`` beside them (or the detector's own ``face back hand``);
* a **JSON** file ``{"images": [{"image": name, "boxes": [{"xmin", "ymin", "xmax", "ymax",
  "card"}]}]}`` (as ``shared/real_cards/edje_tf_cards/train_labels.json``);
* a **JSON lines** file of card lists, ``{"image": name, "cards": ["7S", "QH", ...]}`` per line:
  no boxes, so each image's named cards are compared as multisets.

Boxes are matched one to one by IoU (``--iou``, default 0.5) against the detector's boxes; a
matched face is then named right or wrong. Printed: detection precision and recall per class and
for all cards, identity accuracy overall and per card, and the most frequent confusion pairs.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Annotated, Any, Iterator, Optional

import numpy as np
import typer

from nertz.referee.errors import NertzError

__all__ = ["eval_command", "read_labels_any", "score", "RANK_WORDS"]

RANK_WORDS = {"ace": "A", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
              "eight": "8", "nine": "9", "ten": "T", "jack": "J", "queen": "Q", "king": "K"}
"""Rank words of VOC sets labelled by rank only (checked against the first character)."""

_DETECT_WORDS = {"card": 0, "face": 0, "back": 1, "hand": 2}
_IMAGE_EXT = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")


def _truth_of(name: str) -> tuple[int, str]:
    """(detector class, card or rank-prefix ``"r:9"`` or "") of a label name."""
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
        raise NertzError(f"label {name!r} is not a card (7S, JK), a rank word (nine, ace) or card/face/back/hand") from None


def _find_image(folder: Path, stem_or_name: str) -> Path:
    p = folder / stem_or_name
    if p.is_file():
        return p
    for ext in _IMAGE_EXT + tuple(e.upper() for e in _IMAGE_EXT):
        q = folder / (Path(stem_or_name).stem + ext)
        if q.is_file():
            return q
    raise NertzError(f"{folder}: no image {stem_or_name!r} for a label")


def read_labels_any(images: Path, labels: Path) -> list[dict[str, Any]]:
    """Read any supported label set (module docstring) into ``[{"image": path, "boxes": (M, 4)
    xyxy pixels or None, "class_id": (M,), "cards": [card, "r:<rank>" or ""]}]``.

    Raises:
        NertzError: missing files, an unknown format, or labels that do not parse.
    """
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
                    for o in root.iter("object"):
                        b = o.find("bndbox")
                        boxes.append([float(b.find(k).text) for k in ("xmin", "ymin", "xmax", "ymax")])
                        c, card = _truth_of(o.find("name").text or "")
                        cls.append(c)
                        cards.append(card)
                    fname = root.findtext("filename") or x.stem
                except (ET.ParseError, AttributeError, TypeError, ValueError) as exc:
                    raise NertzError(f"{x}: not a Pascal VOC annotation ({exc})") from None
                out.append({"image": _find_image(images, fname), "boxes": np.array(boxes, np.float64).reshape(-1, 4),
                            "class_id": np.array(cls, np.int64), "cards": cards})
            return out
        if txts:
            names = _yolo_names(labels)
            for t in txts:
                img = _find_image(images, t.stem)
                from .detect import load_image

                h, w = load_image(img).shape[:2]
                boxes, cls, cards = [], [], []
                for i, line in enumerate(t.read_text().splitlines(), 1):
                    parts = line.split()
                    if not parts:
                        continue
                    try:
                        k, cx, cy, bw, bh = int(parts[0]), *map(float, parts[1:5])
                        c, card = _truth_of(names[k])
                    except (ValueError, IndexError, KeyError):
                        raise NertzError(f"{t}:{i}: not a YOLO label line (class cx cy w h)") from None
                    boxes.append([(cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h])
                    cls.append(c)
                    cards.append(card)
                out.append({"image": img, "boxes": np.array(boxes, np.float64).reshape(-1, 4),
                            "class_id": np.array(cls, np.int64), "cards": cards})
            return out
        raise NertzError(f"{labels}: no .xml (Pascal VOC) or .txt (YOLO) labels in this folder")
    text = labels.read_text(encoding="utf-8")
    try:
        if labels.suffix in (".jsonl", ".ndjson"):
            for i, line in enumerate(text.splitlines(), 1):
                if line.strip():
                    e = json.loads(line)
                    out.append({"image": _find_image(images, e["image"]), "boxes": None, "class_id": None,
                                "cards": [_truth_of(c)[1] for c in e["cards"]]})
            return out
        data = json.loads(text)
        for e in data["images"]:
            bs = e["boxes"]
            out.append({"image": _find_image(images, e["image"]),
                        "boxes": np.array([[b["xmin"], b["ymin"], b["xmax"], b["ymax"]] for b in bs], np.float64).reshape(-1, 4),
                        "class_id": np.zeros(len(bs), np.int64),
                        "cards": [_truth_of(b["card"])[1] if b.get("card") else "" for b in bs]})
    except (ValueError, KeyError, TypeError) as exc:
        raise NertzError(f"{labels}: not a labels file of a supported format ({exc})") from None
    return out


def _yolo_names(folder: Path) -> dict[int, str]:
    for base in (folder, folder.parent):
        ct = base / "classes.txt"
        if ct.is_file():
            return dict(enumerate(x.strip() for x in ct.read_text().splitlines() if x.strip()))
        dy = base / "data.yaml"
        if dy.is_file():
            names: dict[int, str] = {}
            for line in dy.read_text().splitlines():
                s = line.strip()
                if ":" in s and s.split(":", 1)[0].strip().isdigit():
                    k, v = s.split(":", 1)
                    names[int(k)] = v.strip().strip("'\"")
            if names:
                return names
    return {0: "face", 1: "back", 2: "hand"}


def _right(said: str, want: str) -> bool:
    return said[:1] == want[2:] if want.startswith("r:") else said == want


def score(recognizer: Any, items: list[dict[str, Any]], iou: float = 0.5) -> dict[str, Any]:
    """Run the recogniser on every labelled image and count (see the module docstring).

    Returns:
        ``{"images", "unreadable", "detection": {class: {tp, fp, fn, precision, recall}},
        "identity": {"n", "right", "accuracy"}, "per_card": {card: {n, right, accuracy}},
        "confusions": [[truth, said, count]]}``.
    """
    from .detect import ImageError, load_image
    from .evaluate import match_boxes

    det_counts = {k: Counter() for k in ("face", "back", "hand", "cards")}
    ident, per_card, conf = Counter(), {}, Counter()
    unreadable = []
    for item in items:
        try:
            frame = load_image(item["image"])
        except ImageError as exc:
            unreadable.append(str(exc))
            continue
        d = recognizer.identify(frame, recognizer.detect(frame))
        faces = np.nonzero(d.class_id == 0)[0]
        if item["boxes"] is None:  # card lists: multisets
            said = Counter(str(d.labels[i]) for i in faces)
            for want in item["cards"]:
                hit = next((s for s in said if said[s] > 0 and _right(s, want)), None)
                pc = per_card.setdefault(want, Counter())
                pc["n"] += 1
                ident["n"] += 1
                if hit is not None:
                    said[hit] -= 1
                    pc["right"] += 1
                    ident["right"] += 1
            continue
        gb, gc = item["boxes"], item["class_id"]
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

    def pr(c: Counter) -> dict[str, Any]:
        tp, fp, fn = c["tp"], c["fp"], c["fn"]
        return {"tp": tp, "fp": fp, "fn": fn, "precision": round(tp / max(tp + fp, 1), 4),
                "recall": round(tp / max(tp + fn, 1), 4)}

    return {
        "images": len(items) - len(unreadable), "unreadable": unreadable,
        "detection": {k: pr(v) for k, v in det_counts.items()},
        "identity": {"n": ident["n"], "right": ident["right"], "accuracy": round(ident["right"] / max(ident["n"], 1), 4)},
        "per_card": {k: {"n": v["n"], "right": v["right"], "accuracy": round(v["right"] / max(v["n"], 1), 4)}
                     for k, v in sorted(per_card.items())},
        "confusions": [[a.replace("r:", "rank "), b, n] for (a, b), n in conf.most_common(15)],
    }


def eval_command(
    images: Annotated[Path, typer.Option("--images", help="Folder of images.")],
    labels: Annotated[Path, typer.Option("--labels", help="Labels: VOC or YOLO folder, JSON boxes, or JSON lines of card lists.")],
    table: Annotated[Optional[Path], typer.Option("--table", "-t", help="Table file (backs are named by its colours).")] = None,
    iou: Annotated[float, typer.Option("--iou", min=0.05, max=0.95, help="Box matching threshold.")] = 0.5,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Precision, recall and identity accuracy of the shipped models on a labelled folder."""
    from nertz.referee.files import read_table

    from .detect import CardRecognizer

    try:
        items = read_labels_any(images, labels)
        if not items:
            raise NertzError(f"{labels}: no labelled images")
        rec = CardRecognizer(table=read_table(table) if table is not None else None)
        r = score(rec, items, iou)
    except NertzError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(json.dumps(r))
        return
    for u in r["unreadable"]:
        typer.echo(f"skipped: {u}", err=True)
    typer.echo(f"{r['images']} images")
    if any(v["tp"] + v["fn"] + v["fp"] for v in r["detection"].values()):
        typer.echo(f"{'detection':<10}{'precision':>10}{'recall':>8}{'tp':>6}{'fp':>6}{'fn':>6}")
        for k, v in r["detection"].items():
            if v["tp"] + v["fp"] + v["fn"]:
                typer.echo(f"{k:<10}{v['precision']:>10.3f}{v['recall']:>8.3f}{v['tp']:>6}{v['fp']:>6}{v['fn']:>6}")
    i = r["identity"]
    typer.echo(f"identity: {i['right']}/{i['n']} = {i['accuracy']:.3f}" + ("  (of matched faces)" if r["detection"]["cards"]["tp"] else ""))
    worst = sorted(r["per_card"].items(), key=lambda kv: kv[1]["accuracy"])[:10]
    if worst:
        typer.echo("weakest cards: " + ", ".join(f"{k.replace('r:', 'rank ')} {v['right']}/{v['n']}" for k, v in worst))
    if r["confusions"]:
        typer.echo("confusions (truth -> said): " + ", ".join(f"{a} -> {b} x{n}" for a, b, n in r["confusions"]))
