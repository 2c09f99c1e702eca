"""``nertz eval`` on tiny fixtures cut from the bundled sample round (every label format)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

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
    r = nertz("eval", "--images", str(tmp_path), "--labels", str(ok))
    assert r.returncode == 0 and "broken.png" in r.stderr


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
