"""``nertz eval`` on tiny fixtures cut from the bundled sample round (every label format)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from nertz.referee.errors import NertzError
from nertz.vision.eval_cli import read_labels_any
from nertz.vision.observe import read_labels

SAMPLE = Path(__file__).resolve().parent.parent / "datasets" / "samples" / "round-3p"


def nertz(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "nertz", *args], capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def fixture(tmp_path_factory) -> tuple[Path, list[dict]]:
    """Two frames of the sample round and their fully visible face-up cards."""
    d = tmp_path_factory.mktemp("evalset")
    labels = read_labels(SAMPLE / "labels.jsonl.gz")
    cap = cv2.VideoCapture(str(SAMPLE / "clip.mp4"))
    truth = []
    for i in range(700):
        ok, frame = cap.read()
        assert ok
        if i in (300, 699):
            cv2.imwrite(str(d / f"f{i}.png"), frame)
            cards = [c for c in labels[i]["cards"] if c["face_up"] and c["visible"] >= 0.95]
            truth.append({"image": f"f{i}.png", "cards": cards})
    return d, truth


def box(c: dict) -> list[float]:
    q = np.asarray(c["quad"])
    return [float(q[:, 0].min()), float(q[:, 1].min()), float(q[:, 0].max()), float(q[:, 1].max())]


def test_voc_yolo_json_and_card_lists_read_the_same_truth(fixture, tmp_path):
    d, truth = fixture
    voc = tmp_path / "voc"
    voc.mkdir()
    yolo = tmp_path / "yolo"
    yolo.mkdir()
    names = sorted({c["card"] for t in truth for c in t["cards"]})
    (yolo / "classes.txt").write_text("\n".join(names))
    for t in truth:
        objs = "".join(f"<object><name>{c['card']}</name><bndbox><xmin>{b[0]}</xmin><ymin>{b[1]}</ymin>"
                       f"<xmax>{b[2]}</xmax><ymax>{b[3]}</ymax></bndbox></object>"
                       for c in t["cards"] for b in [box(c)])
        (voc / (Path(t["image"]).stem + ".xml")).write_text(f"<annotation><filename>{t['image']}</filename>{objs}</annotation>")
        lines = [f"{names.index(c['card'])} {(b[0] + b[2]) / 2560} {(b[1] + b[3]) / 1440} {(b[2] - b[0]) / 1280} {(b[3] - b[1]) / 720}"
                 for c in t["cards"] for b in [box(c)]]
        (yolo / (Path(t["image"]).stem + ".txt")).write_text("\n".join(lines))
    (tmp_path / "boxes.json").write_text(json.dumps({"images": [
        {"image": t["image"], "boxes": [dict(zip(("xmin", "ymin", "xmax", "ymax"), box(c)), card=c["card"]) for c in t["cards"]]}
        for t in truth]}))
    (tmp_path / "lists.jsonl").write_text("".join(json.dumps({"image": t["image"], "cards": [c["card"] for c in t["cards"]]}) + "\n"
                                                  for t in truth))
    sets = [read_labels_any(d, p) for p in (voc, yolo, tmp_path / "boxes.json", tmp_path / "lists.jsonl")]
    for s in sets:
        assert [sorted(x["cards"]) for x in s] == [sorted(c["card"] for c in t["cards"]) for t in truth]
    for s in sets[:3]:
        np.testing.assert_allclose(s[0]["boxes"], sets[0][0]["boxes"], atol=0.01)
    assert sets[3][0]["boxes"] is None


def test_eval_prints_precision_recall_identity_and_confusions(fixture, tmp_path):
    d, truth = fixture
    (tmp_path / "lists.jsonl").write_text("".join(json.dumps({"image": t["image"], "cards": [c["card"] for c in t["cards"]]}) + "\n"
                                                  for t in truth))
    (tmp_path / "boxes.json").write_text(json.dumps({"images": [
        {"image": t["image"], "boxes": [dict(zip(("xmin", "ymin", "xmax", "ymax"), box(c)), card=c["card"]) for c in t["cards"]]}
        for t in truth]}))
    r = nertz("eval", "--images", str(d), "--labels", str(tmp_path / "boxes.json"), "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    n = sum(len(t["cards"]) for t in truth)
    cards = out["detection"]["cards"]
    assert cards["tp"] + cards["fn"] == n and cards["recall"] >= 0.8
    assert out["identity"]["n"] == cards["tp"] and out["identity"]["accuracy"] >= 0.7
    r = nertz("eval", "--images", str(d), "--labels", str(tmp_path / "lists.jsonl"))
    assert r.returncode == 0, r.stderr
    assert "identity:" in r.stdout


def test_eval_user_mistakes_are_clear_errors(fixture, tmp_path):
    d, _ = fixture
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"image": "f300.png", "cards": ["7X"]}\n')
    r = nertz("eval", "--images", str(d), "--labels", str(bad))
    assert r.returncode == 2 and "7X" in r.stderr and "Traceback" not in r.stderr
    r = nertz("eval", "--images", str(d), "--labels", str(tmp_path / "missing.json"))
    assert r.returncode == 2 and "no such labels" in r.stderr
    (tmp_path / "broken.png").write_bytes(b"not an image")
    ok = tmp_path / "one.jsonl"
    ok.write_text('{"image": "broken.png", "cards": ["7S"]}\n')
    r = nertz("eval", "--images", str(tmp_path), "--labels", str(ok))  # nothing readable: an error
    assert r.returncode == 2 and "broken.png" in r.stderr and "could be read" in r.stderr
    (tmp_path / "f300.png").write_bytes((d / "f300.png").read_bytes())
    ok.write_text('{"image": "broken.png", "cards": ["7S"]}\n{"image": "f300.png", "cards": ["7S"]}\n')
    r = nertz("eval", "--images", str(tmp_path), "--labels", str(ok))  # one unreadable of two: skipped
    assert r.returncode == 0 and "broken.png" in r.stderr and "1 images" in r.stdout


def test_back_accuracy_counts_every_half_visible_back_once():
    """The back-colour figure of `python -m nertz.vision.evaluate backs N SEED` on two rendered
    frames: every face-down card at least half visible is named right, unknown or wrong."""
    from nertz.vision.evaluate import back_accuracy, synthetic_samples

    samples = list(synthetic_samples(2, 5))
    r = back_accuracy(samples)
    want = sum(int(c == 1 and v >= 0.5) for _, t in samples for c, v in zip(t["class_id"], t["visible"]))
    assert r["n"] == want > 0 and r["right"] + r["unknown"] + r["wrong"] == r["n"]
    assert len(r["distances"]) == r["n"] and 0.0 <= r["accuracy"] <= 1.0
    # registered by measurement on the scene's first frame, counted on its second only
    rm = back_accuracy(samples, measured=True)
    second = sum(int(c == 1 and v >= 0.5) for c, v in zip(samples[1][1]["class_id"], samples[1][1]["visible"]))
    assert rm["n"] == second and rm["right"] + rm["unknown"] + rm["wrong"] == rm["n"]


# --- label-set mistakes, on tiny images and a stand-in recogniser (no models, fast) ---------------

class FakeRecognizer:
    """Stands in for CardRecognizer: every image gives the same detections ``[(class, xyxy, label)]``."""

    made: dict = {}
    dets: list = []

    def __init__(self, **kwargs):
        FakeRecognizer.made = kwargs

    def detect(self, frame):
        return None

    def identify(self, frame, det):
        from types import SimpleNamespace

        return SimpleNamespace(class_id=np.array([c for c, _, _ in self.dets], np.int64),
                               boxes=np.array([b for _, b, _ in self.dets], np.float64).reshape(-1, 4),
                               labels=np.array([s for _, _, s in self.dets], object))


@pytest.fixture
def fake(monkeypatch):
    import nertz.vision.detect as detect

    monkeypatch.setattr(detect, "CardRecognizer", FakeRecognizer)
    FakeRecognizer.made, FakeRecognizer.dets = {}, []
    return FakeRecognizer


def run_eval(*args: str):
    from typer.testing import CliRunner

    from nertz.cli import app

    return CliRunner().invoke(app, ["eval", *args])


def photo(folder: Path, name: str = "p.png", w: int = 40, h: int = 60) -> Path:
    folder.mkdir(exist_ok=True)
    cv2.imwrite(str(folder / name), np.zeros((h, w, 3), np.uint8))
    return folder / name


def voc(folder: Path, image: str, objects: list[tuple[str, list[float]]], size: tuple[int, int] | None = None) -> Path:
    folder.mkdir(exist_ok=True)
    objs = "".join(f"<object><name>{n}</name><bndbox><xmin>{b[0]}</xmin><ymin>{b[1]}</ymin><xmax>{b[2]}</xmax>"
                   f"<ymax>{b[3]}</ymax></bndbox></object>" for n, b in objects)
    sz = f"<size><width>{size[0]}</width><height>{size[1]}</height><depth>3</depth></size>" if size else ""
    p = folder / (Path(image).stem + ".xml")
    p.write_text(f"<annotation><filename>{image}</filename>{sz}{objs}</annotation>")
    return p


@pytest.mark.parametrize("yaml", [
    "path: .\nnames: ['KH','AC','QS']  # cards\nnc: 3\n",
    "nc: 3\nnames: [KH, AC,\n  QS]\n",
    "names:\n  - KH\n  - 'AC'\n  - QS\nnc: 3\n",
    "names:\n- KH\n- AC\n- QS\n",
    "names:\n  0: KH\n  1: AC\n  2: QS\n",
    "names: {0: KH, 1: AC, 2: QS}\n",
])
def test_yolo_class_names_in_each_data_yaml_form(tmp_path, yaml):
    photo(tmp_path / "img", "a.png")
    lab = tmp_path / "labels"
    lab.mkdir()
    (lab / "a.txt").write_text("1 0.5 0.5 0.5 0.5\n2 0.2 0.2 0.1 0.1\n")
    (tmp_path / "data.yaml").write_text(yaml)  # beside the labels' folder, as ultralytics writes it
    notes: list[str] = []
    items = read_labels_any(tmp_path / "img", lab, notes)
    assert items[0]["cards"] == ["AC", "QS"] and list(items[0]["class_id"]) == [0, 0] and notes == []


def test_yolo_names_file_that_gives_no_names_is_an_error(tmp_path):
    photo(tmp_path / "img", "a.png")
    lab = tmp_path / "labels"
    lab.mkdir()
    (lab / "a.txt").write_text("1 0.5 0.5 0.5 0.5\n")
    (lab / "data.yaml").write_text("names: KH AC\n")
    with pytest.raises(NertzError, match="data.yaml: no class names"):
        read_labels_any(tmp_path / "img", lab)
    (lab / "data.yaml").unlink()
    (lab / "classes.txt").write_text("\n")
    with pytest.raises(NertzError, match="classes.txt: no class names"):
        read_labels_any(tmp_path / "img", lab)
    (lab / "classes.txt").unlink()  # no names file: the detector's classes, said so
    notes: list[str] = []
    assert list(read_labels_any(tmp_path / "img", lab, notes)[0]["class_id"]) == [1]
    assert "no classes.txt or data.yaml" in notes[0]


def test_eval_imgsz_is_passed_with_nertz_detects_default(fake, tmp_path):
    import inspect

    from nertz.vision.detect_cli import detect_command
    from nertz.vision.eval_cli import eval_command

    photo(tmp_path / "img")
    (tmp_path / "l.jsonl").write_text('{"image": "p.png", "cards": ["7S"]}\n')
    r = run_eval("--images", str(tmp_path / "img"), "--labels", str(tmp_path / "l.jsonl"), "--imgsz", "320")
    assert r.exit_code == 0, r.output
    assert fake.made["imgsz"] == 320 and "imgsz 320" in r.stdout
    default = inspect.signature(eval_command).parameters["imgsz"].default
    assert default == inspect.signature(detect_command).parameters["imgsz"].default == 640
    r = run_eval("--images", str(tmp_path / "img"), "--labels", str(tmp_path / "l.jsonl"), "--imgsz", "10")
    assert r.exit_code == 2


def test_voc_size_unlike_the_image_scales_the_boxes_with_a_warning(fake, tmp_path):
    img = tmp_path / "img"
    photo(img, "a.png", 40, 60)
    photo(img, "b.png", 40, 60)
    lab = tmp_path / "voc"
    voc(lab, "a.png", [("KH", [20, 20, 60, 80])], size=(80, 120))  # labelled on a photo twice the size
    voc(lab, "b.png", [("KH", [10, 10, 30, 40])], size=(120, 80))  # another shape: turned
    fake.dets = [(0, [10, 10, 30, 40], "KH")]
    r = run_eval("--images", str(img), "--labels", str(lab), "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["images"] == 1 and out["detection"]["cards"]["tp"] == 1 and out["identity"]["right"] == 1
    assert "a.xml: <size> 80x120" in r.stderr and "scaled by 0.5" in r.stderr
    assert "b.xml" in r.stderr and "skipped" in r.stderr


def test_missing_image_skips_its_label_file_and_none_at_all_is_an_error(fake, tmp_path):
    img = tmp_path / "img"
    photo(img, "a.png")
    lab = tmp_path / "voc"
    voc(lab, "a.png", [("KH", [10, 10, 30, 40])])
    voc(lab, "gone.png", [("KH", [10, 10, 30, 40])])
    fake.dets = [(0, [10, 10, 30, 40], "KH")]
    r = run_eval("--images", str(img), "--labels", str(lab))
    assert r.exit_code == 0, r.output
    assert "gone.xml" in r.stderr and "1 images" in r.stdout
    (lab / "a.xml").unlink()
    r = run_eval("--images", str(img), "--labels", str(lab))
    assert r.exit_code == 2 and "no labelled image found" in r.stderr and "gone.xml" in r.stderr
    assert r.exception is None or isinstance(r.exception, SystemExit)


def test_a_label_that_is_not_a_card_names_its_file_and_line(tmp_path):
    img = tmp_path / "img"
    photo(img, "a.png")
    x = voc(tmp_path / "voc", "a.png", [("KH", [1, 1, 5, 5]), ("kong", [1, 1, 5, 5])])
    with pytest.raises(NertzError, match=rf"{re.escape(str(x))}: object 2: label 'kong' is not a card"):
        read_labels_any(img, tmp_path / "voc")
    y = tmp_path / "yolo"
    y.mkdir()
    (y / "classes.txt").write_text("KH\nkong\n")
    (y / "a.txt").write_text("0 0.5 0.5 0.2 0.2\n1 0.5 0.5 0.2 0.2\n")
    with pytest.raises(NertzError, match=rf"{re.escape(str(y / 'a.txt'))}:2: class 1 of .*classes.txt: label 'kong'"):
        read_labels_any(img, y)
    j = tmp_path / "l.jsonl"
    j.write_text('{"image": "a.png", "cards": ["KH"]}\n{"image": "a.png", "cards": ["kong"]}\n')
    with pytest.raises(NertzError, match=rf"{re.escape(str(j))}:2: label 'kong'"):
        read_labels_any(img, j)


def test_a_class_without_truth_has_no_recall_and_cards_are_keyed_as_written(fake, tmp_path):
    img = tmp_path / "img"
    photo(img, "a.png")
    voc(tmp_path / "voc", "a.png", [("ace", [10, 10, 30, 40]), ("KS", [0, 0, 8, 8])])
    fake.dets = [(0, [10, 10, 30, 40], "AH"), (0, [0, 0, 8, 8], "QS"), (2, [0, 40, 20, 60], "hand")]
    r = run_eval("--images", str(img), "--labels", str(tmp_path / "voc"), "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["detection"]["hand"] == {"tp": 0, "fp": 1, "fn": 0, "precision": 0.0, "recall": None}
    assert out["detection"]["back"]["recall"] is None and out["detection"]["back"]["precision"] is None
    assert set(out["per_card"]) == {"A", "KS"} and out["confusions"] == [["KS", "QS", 1]]
    r = run_eval("--images", str(img), "--labels", str(tmp_path / "voc"))
    assert re.search(r"hand\s+0\.000\s+none", r.stdout)
    assert "weakest cards: KS 0/1, A 1/1" in r.stdout and "KS -> QS x1" in r.stdout


def test_card_lists_count_extra_faces_as_false_positives(fake, tmp_path):
    img = tmp_path / "img"
    photo(img, "a.png")
    (tmp_path / "l.jsonl").write_text('{"image": "a.png", "cards": ["7S"]}\n')
    fake.dets = [(0, [0, 0, 9, 9], "7S"), (0, [10, 10, 19, 19], "8S"), (0, [20, 20, 29, 29], "9S"), (1, [0, 30, 9, 39], "back")]
    r = run_eval("--images", str(img), "--labels", str(tmp_path / "l.jsonl"), "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["card_lists"] == {"tp": 1, "fp": 2, "fn": 0, "precision": 0.3333, "recall": 1.0}
    assert out["identity"]["accuracy"] == 1.0
    r = run_eval("--images", str(img), "--labels", str(tmp_path / "l.jsonl"))
    assert "card lists: precision 0.333" in r.stdout


def test_an_image_listed_twice_in_card_lists_is_refused_with_both_lines(fake, tmp_path):
    # scored twice, its faces counted twice (precision 0.5 for a right reading), silently
    img = tmp_path / "img"
    photo(img, "a.png")
    (tmp_path / "l.jsonl").write_text('{"image": "a.png", "cards": ["7S"]}\n{"image": "a.png", "cards": ["7S"]}\n')
    fake.dets = [(0, [0, 0, 9, 9], "7S")]
    r = run_eval("--images", str(img), "--labels", str(tmp_path / "l.jsonl"))
    assert r.exit_code == 2 and "listed again" in r.output and "l.jsonl:1" in r.output and "l.jsonl:2" in r.output


def _boxes_json(path: Path, *boxes: dict, image: str = "a.png") -> Path:
    path.write_text(json.dumps({"images": [{"image": image, "boxes": list(boxes)}]}))
    return path


@pytest.mark.parametrize("xmin, says", [
    (None, "xmin None is not a number"), ("NaN", "xmin 'NaN' is not a finite number"),
    (float("nan"), "xmin nan is not a finite number"), (float("inf"), "xmin inf is not a finite number"),
    ("ten", "xmin 'ten' is not a number"), (True, "xmin True is not a number"),
    (31, r"box \(31, 10, 30, 40\) is inverted: xmin > xmax"), (30, r"box \(30, 10, 30, 40\) has zero area"),
])
def test_a_json_box_that_is_not_a_box_is_refused_not_scored(fake, tmp_path, xmin, says):
    # a NaN coordinate made a NaN IoU, never below the threshold: counted as a perfect match
    photo(tmp_path / "img", "a.png")
    lab = _boxes_json(tmp_path / "l.json", {"xmin": xmin, "ymin": 10, "xmax": 30, "ymax": 40, "card": "KH"})
    fake.dets = [(0, [10, 10, 30, 40], "KH")]
    r = run_eval("--images", str(tmp_path / "img"), "--labels", str(lab))
    assert r.exit_code == 2 and r.stdout == "", r.output
    assert re.search(rf"error: {re.escape(str(lab))}: image 'a.png', box 1: {says}", r.stderr), r.stderr
    assert r.exception is None or isinstance(r.exception, SystemExit)


@pytest.mark.parametrize("bndbox, says", [
    (["nan", 10, 30, 40], "xmin 'nan' is not a finite number"), ([10, 10, "inf", 40], "xmax 'inf' is not a finite"),
    (["", 10, 30, 40], "xmin '' is not a number"), ([10, 50, 30, 40], "is inverted: ymin > ymax"),
    ([10, 40, 30, 40], "has zero area: ymin = ymax"),
])
def test_a_voc_box_that_is_not_a_box_is_refused(fake, tmp_path, bndbox, says):
    photo(tmp_path / "img", "a.png")
    x = voc(tmp_path / "voc", "a.png", [("KH", bndbox)])
    fake.dets = [(0, [10, 10, 30, 40], "KH")]
    r = run_eval("--images", str(tmp_path / "img"), "--labels", str(tmp_path / "voc"))
    assert r.exit_code == 2 and f"error: {x}: object 1: " in r.stderr and says in r.stderr, r.output


@pytest.mark.parametrize("line, says", [
    ("0 nan 0.5 0.2 0.2", "cx 'nan' is not a finite number"), ("0 0.5 0.5 inf 0.2", "w 'inf' is not a finite"),
    ("0 0.5 0.5 0 0.2", "box width 0 and height 0.2 must both be above 0"), ("0 0.5 0.5 0.2 -0.2", "box width 0.2 and height -0.2 must both be above 0"),
])
def test_a_yolo_box_that_is_not_a_box_is_refused(tmp_path, line, says):
    photo(tmp_path / "img", "a.png")
    y = tmp_path / "yolo"
    y.mkdir()
    (y / "classes.txt").write_text("KH\n")
    (y / "a.txt").write_text(line + "\n")
    with pytest.raises(NertzError, match=rf"{re.escape(str(y / 'a.txt'))}:1: {says}"):
        read_labels_any(tmp_path / "img", y)


def test_match_boxes_never_matches_a_nan_or_infinite_box():
    from nertz.vision.evaluate import match_boxes

    det = np.array([[10, 10, 30, 40], [50, 50, 70, 80]], np.float64)
    gt = np.array([[np.nan, 10, 30, 40], [50, 50, np.inf, 80], [50, 50, 70, 80]], np.float64)
    assert match_boxes(det, gt, 0.5) == [(1, 2)]
    assert match_boxes(det[:1], gt[:1], 0.0) == []


@pytest.mark.parametrize("name, content, says", [
    ("l.jsonl", b'{"image": 5, "cards": ["KH"]}\n', "l.jsonl:1: .*'image' 5 is not a file name"),
    ("l.jsonl", b'{"image": null, "cards": ["KH"]}\n', "l.jsonl:1: .*'image' None is not a file name"),
    ("l.json", b'{"images": [{"image": "IMG.JPG", "boxes": {"a": 1}}]}',
     "l.json: image 'IMG.JPG': \"boxes\" is not a list"),
    ("l.json", b'{"images": [{"image": "a.png", "boxes": [5]}]}', "l.json: image 'a.png': \"boxes\" is not a list"),
    ("l.json", b'{"images": [{"image": "a.png", "boxes": [{"xmin": 1, "ymin": 1}]}]}', "box 1: no xmax, ymax"),
    ("l.json", b'{"images": [{"image": null, "boxes": []}]}', "l.json: entry 1 of \"images\": no \"image\" file name"),
    ("l.json", b'{"images": {"a.png": []}}', "l.json: not a labels file of a supported format"),
    ("l.json", b'{"images": [{"image": "\xe9.png", "boxes": []}]}', r"l.json: not UTF-8 text \(byte 23 is 0xe9\)"),
    ("l.jsonl", b'{"image": "a.png", "cards": ["\xff"]}\n', "l.jsonl: not UTF-8 text"),
])
def test_malformed_label_files_are_errors_not_tracebacks(fake, tmp_path, name, content, says):
    photo(tmp_path / "img", "a.png")
    (tmp_path / name).write_bytes(content)
    r = run_eval("--images", str(tmp_path / "img"), "--labels", str(tmp_path / name))
    assert r.exit_code == 2 and re.search(f"error: .*{says}", r.stderr), r.output
    assert r.exception is None or isinstance(r.exception, SystemExit)


@pytest.mark.parametrize("bad", ["a.txt", "classes.txt"])
def test_a_yolo_file_that_is_not_utf8_is_an_error(fake, tmp_path, bad):
    photo(tmp_path / "img", "a.png")
    y = tmp_path / "yolo"
    y.mkdir()
    (y / "classes.txt").write_text("KH\n")
    (y / "a.txt").write_text("0 0.5 0.5 0.2 0.2\n")
    (y / bad).write_bytes((y / bad).read_bytes() + b"\xff\n")
    r = run_eval("--images", str(tmp_path / "img"), "--labels", str(y))
    assert r.exit_code == 2 and f"error: {y / bad}: not UTF-8 text" in r.stderr, r.output


def test_an_image_listed_twice_in_json_boxes_is_refused(fake, tmp_path):
    photo(tmp_path / "img", "a.png")
    b = {"xmin": 10, "ymin": 10, "xmax": 30, "ymax": 40, "card": "KH"}
    (tmp_path / "l.json").write_text(json.dumps({"images": [{"image": "a.png", "boxes": [b]},
                                                            {"image": "a", "boxes": [b]}]}))
    r = run_eval("--images", str(tmp_path / "img"), "--labels", str(tmp_path / "l.json"))
    assert r.exit_code == 2 and "image 'a' is listed again (entries 1 and 2" in r.stderr, r.output


def test_a_single_voc_or_yolo_file_is_pointed_to_its_folder(tmp_path):
    photo(tmp_path / "img", "a.png")
    x = voc(tmp_path / "voc", "a.png", [("KH", [10, 10, 30, 40])])
    with pytest.raises(NertzError, match=rf"Pascal VOC labels are given as the folder of .xml files \(--labels {re.escape(str(x.parent))}\)"):
        read_labels_any(tmp_path / "img", x)
    (tmp_path / "a.txt").write_text("0 0.5 0.5 0.2 0.2\n")
    with pytest.raises(NertzError, match="YOLO labels are given as the folder of .txt files"):
        read_labels_any(tmp_path / "img", tmp_path / "a.txt")


def test_yolo_names_of_a_synth_dataset_come_from_its_data_yaml(tmp_path):
    # nertz synth dataset's layout: DS/images/val, DS/labels/val, DS/data.yaml (two levels up)
    ds = tmp_path / "DS"
    ds.mkdir()
    photo(ds / "images", "a.png")
    lab = ds / "labels" / "val"
    lab.mkdir(parents=True)
    (lab / "a.txt").write_text("1 0.5 0.5 0.5 0.5\n")
    (ds / "data.yaml").write_text("path: x\ntrain: images/train\nval: images/val\nnames:\n  0: KH\n  1: AC\n")
    notes: list[str] = []
    assert read_labels_any(ds / "images", lab, notes)[0]["cards"] == ["AC"] and notes == []
    # above the dataset root (the folder holding labels/) is not looked at: the warning stays
    (ds / "data.yaml").rename(tmp_path / "data.yaml")
    assert list(read_labels_any(ds / "images", lab, notes)[0]["class_id"]) == [1]
    assert "no classes.txt or data.yaml" in notes[0]


def test_an_oriented_yolo_box_is_read_as_its_bounding_box(tmp_path):
    """``nertz synth dataset --kind obb`` writes ``class x1 y1 .. x4 y4``: read as the quad's
    bounding box (its first four numbers were taken for ``cx cy w h``: precision and recall 0),
    and a line of another length is refused rather than read by its first numbers."""
    photo(tmp_path / "img", "a.png")
    y = tmp_path / "yolo"
    y.mkdir()
    (y / "classes.txt").write_text("KH\n")
    (y / "a.txt").write_text("0 0.2 0.1 0.6 0.2 0.5 0.7 0.1 0.6\n")
    h, w = cv2.imread(str(tmp_path / "img" / "a.png")).shape[:2]
    item = read_labels_any(tmp_path / "img", y)[0]
    np.testing.assert_allclose(item["boxes"], [[0.1 * w, 0.1 * h, 0.6 * w, 0.7 * h]])
    assert item["cards"] == ["KH"]
    (y / "a.txt").write_text("0 0.5 0.5 0.2 0.2 0.9\n")
    with pytest.raises(NertzError, match=r"a.txt:1: not a YOLO label line .*: 6 fields"):
        read_labels_any(tmp_path / "img", y)
