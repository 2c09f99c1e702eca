"""Classifier crops cut from a rendered round's video (nertz.datasets.round_crops)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import cv2
import pytest

from conftest import cut_sample_clip
from nertz.datasets.export import CARD_CLASSES
from nertz.datasets.round_crops import label_card_under, write_round_crops

SAMPLE = Path(__file__).resolve().parent.parent / "datasets" / "samples" / "round-3p"


def _short_round(folder: Path, frames: int) -> Path:
    """The sample round's first ``frames`` frames and their labels, as a round folder."""
    folder.mkdir()
    cut_sample_clip(folder / "clip.mp4", frames)
    with gzip.open(SAMPLE / "labels.jsonl.gz", "rt") as src, gzip.open(folder / "labels.jsonl.gz", "wt") as dst:
        for _, line in zip(range(frames), src):
            dst.write(line)
    return folder


def test_label_card_under_takes_the_topmost_card():
    lower = {"quad": [[0, 0], [10, 0], [10, 14], [0, 14]]}
    upper = {"quad": [[5, 5], [15, 5], [15, 19], [5, 19]]}
    assert label_card_under([lower, upper], (7, 7)) == 1
    assert label_card_under([lower, upper], (2, 2)) == 0
    assert label_card_under([lower, upper], (30, 30)) is None


def test_round_crops_are_named_by_the_card_under_them_and_repeat_from_the_seed(tmp_path):
    rd = _short_round(tmp_path / "r1", 41)
    counts = write_round_crops([rd], tmp_path / "a", seed=5, every=20, whole_share=1.0)
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*.png"))
    assert counts["train"] + counts["val"] == len(files) > 10
    assert {p.parts[0] for p in files} <= {"train", "val"}
    assert {p.parts[1] for p in files} <= set(CARD_CLASSES)
    img = cv2.imread(str(tmp_path / "a" / files[0]))
    assert img.shape == (64, 64, 3)
    # every crop's class is a card the labels show face up in that frame
    labels = [json.loads(x) for x in gzip.open(rd / "labels.jsonl.gz", "rt")]
    for p in files:
        frame = int(p.name.split("_")[1])
        assert p.parts[1] in {c["card"] for c in labels[frame]["cards"] if c["face_up"]}
    write_round_crops([rd], tmp_path / "b", seed=5, every=20, whole_share=1.0)
    assert sorted(p.relative_to(tmp_path / "b") for p in (tmp_path / "b").rglob("*.png")) == files


def test_round_crops_need_a_video_and_labels(tmp_path):
    (tmp_path / "r2").mkdir()
    with pytest.raises(FileNotFoundError, match="clip.mp4"):
        write_round_crops([tmp_path / "r2"], tmp_path / "out", seed=1)
