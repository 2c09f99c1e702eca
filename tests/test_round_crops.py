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


def test_round_crops_read_plain_labels_and_rectify_zone_cards_as_the_recogniser_does(tmp_path):
    """A round folder with ``labels.jsonl`` (not gzipped) and its ``table.json``: the crops are
    cut, and the same crops without the zone axes have the same names (only the turn of a
    steeply seen zone card may differ)."""
    rd = tmp_path / "r3"
    rd.mkdir()
    cut_sample_clip(rd / "clip.mp4", 21)
    with gzip.open(SAMPLE / "labels.jsonl.gz", "rt") as src:
        (rd / "labels.jsonl").write_text("".join(line for _, line in zip(range(21), src)))
    (rd / "table.json").write_text((SAMPLE / "table.json").read_text())
    a = write_round_crops([rd], tmp_path / "a", seed=2, every=20, whole_share=1.0)
    b = write_round_crops([rd], tmp_path / "b", seed=2, every=20, whole_share=1.0, zone_axes=False)
    assert a == b and a["train"] + a["val"] > 5
    names = lambda d: sorted(p.relative_to(d) for p in d.rglob("*.png"))  # noqa: E731
    assert names(tmp_path / "a") == names(tmp_path / "b")


def test_a_training_crop_turns_the_card_the_way_its_zone_says():
    """A card seen wider than tall, in a zone that says its long side runs down the image: the
    crop keeps the vertical pair of sides upright (as ``rectify_card(..., long_side=...)``),
    not the longer pair as seen."""
    import numpy as np

    from nertz.datasets.export import card_training_crop, rectify_card

    frame = np.zeros((120, 160, 3), np.uint8)
    frame[:, :, 0] = np.arange(160, dtype=np.uint8)[None, :]
    frame[:, :, 1] = np.arange(120, dtype=np.uint8)[:, None] * 2
    quad = np.array([[40, 40], [100, 40], [100, 80], [40, 80]], np.float64)  # 60 across, 40 down
    down = np.array([0.0, 1.0])
    seen = card_training_crop(frame, quad, np.random.default_rng(0), 64, jitter=0.0)
    zoned = card_training_crop(frame, quad, np.random.default_rng(0), 64, jitter=0.0, long_side=down)
    want = rectify_card(frame, quad, 64, long_side=down)
    assert np.array_equal(zoned, want) or np.array_equal(zoned, np.rot90(want, 2))
    assert not np.array_equal(seen, zoned)
