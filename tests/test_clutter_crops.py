"""Table clutter kinds (datasets/surfaces.py) and the detector sets' background crops
(``clutter_crops`` of datasets/export.py)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from nertz.datasets.export import background_origin, write_dataset
from nertz.datasets.render import make_scene
from nertz.datasets.surfaces import CLUTTER_KINDS, draw_clutter, draw_clutter_object


def _draw(kind: str, seed: int) -> np.ndarray:
    img = np.full((500, 500, 3), 128, np.uint8)
    draw_clutter_object(img, 1.5, (250.0, 250.0), kind, 30.0, np.random.default_rng(seed))
    return img


@pytest.mark.parametrize("kind", CLUTTER_KINDS)
def test_each_clutter_kind_draws_something_reproducibly(kind: str) -> None:
    a, b = _draw(kind, 3), _draw(kind, 3)
    assert np.array_equal(a, b)
    changed = np.any(a != 128, axis=2)
    assert changed.mean() > 0.003, f"{kind} drew {changed.mean():.4f} of the canvas"
    ys, xs = np.nonzero(changed)
    # drawn around the given centre
    assert abs(np.median(xs) - 250) < 120 and abs(np.median(ys) - 250) < 120


def test_unknown_clutter_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown clutter kind"):
        _draw("piano", 0)


def test_extra_clutter_leaves_the_scene_generator_alone() -> None:
    spots = np.array([[x, y] for x in (-300.0, 0.0, 300.0) for y in (-200.0, 200.0)])
    origin = np.array([-450.0, -350.0])
    after = []
    for extra in (None, np.random.default_rng(9)):
        img = np.full((700, 900, 3), 128, np.uint8)
        rng = np.random.default_rng(4)
        placed = draw_clutter(img, 1.0, origin, spots, rng, extra_rng=extra, max_objects=6)
        assert placed.shape[1] == 2 and len(placed) <= 6
        after.append(rng.random())
    assert after[0] == after[1]


def test_scene_records_where_clutter_lies() -> None:
    sc = make_scene([("a", "#cc2222"), ("b", "#2222cc")], 5, (160, 90), surface="wood",
                    design="placeholder", max_canvas_px=2e5)
    assert sc.clutter_mm.ndim == 2 and sc.clutter_mm.shape[1] == 2
    assert len(sc.clutter_mm) >= 1 and len(sc.free_spots_mm) >= len(sc.clutter_mm)
    plain = make_scene([("a", "#cc2222"), ("b", "#2222cc")], 5, (160, 90), surface="wood",
                       design="placeholder", max_canvas_px=2e5, clutter=False)
    assert plain.clutter_mm.shape == (0, 2)


def test_background_origin_centres_on_clutter_or_away_from_cards() -> None:
    rng = np.random.default_rng(0)
    x0, y0 = background_origin(rng, np.array([[900.0, 100.0]]), np.zeros((0, 2)), 200, (1280, 720), near_p=1.0)
    assert abs(x0 + 100 - 900) < 120 and 0 <= y0 < 120  # near the object, kept in the frame
    cards = np.array([[x, y] for x in range(0, 1280, 20) for y in range(0, 360, 20)], float)
    # cards fill the top half: a random place avoids it where it can (best of 4 draws)
    ys = [background_origin(rng, np.zeros((0, 2)), cards, 200, (1280, 720))[1] for _ in range(20)]
    assert np.mean(ys) > 300


def test_obb_set_of_background_crops_has_valid_labels(tmp_path: Path) -> None:
    yaml = write_dataset("obb", 4, 21, tmp_path, frames_per_scene=2, crops_per_frame=2, clutter_crops=1.0,
                         resolution=(320, 180), close_p=0.0, max_canvas_px=4e5)
    assert yaml.exists()
    images = sorted(tmp_path.glob("images/*/*.jpg"))
    assert len(images) == 4
    for im in images:
        lab = tmp_path / "labels" / im.parent.name / (im.stem + ".txt")
        assert lab.exists(), f"no label file for {im.name}"  # empty = a background image for YOLO
        for line in lab.read_text().splitlines():
            f = line.split()
            assert len(f) == 9 and f[0] in ("0", "1", "2")
            v = np.array(f[1:], float)
            assert np.all((v >= 0) & (v <= 1))


def test_clutter_crops_outside_0_1_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="clutter_crops"):
        write_dataset("obb", 4, 0, tmp_path, clutter_crops=1.5)


@pytest.mark.parametrize("kind, options, says", [
    ("obb", {"roll_p": "abc"}, "roll_p is a share, 0..1; got 'abc'"),  # was "could not convert string to float"
    ("obb", {"roll_p": 5}, "roll_p is a share of the frames"),  # was taken as 1
    ("detect", {"zoom_p": -1}, "zoom_p is a share of the crops"),
    ("classify", {"close_p": 2}, "close_p is a share of the scenes"),
    ("strip", {"detector_quads": "nope.onnx"}, "detector_quads nope.onnx: no such file"),
])
def test_a_bad_option_fails_before_any_folder_is_made(tmp_path: Path, kind, options, says) -> None:
    """Shares and ``detector_quads`` are checked before the set's folders are made (they failed
    in a worker, the folders left behind, or were taken as they came)."""
    with pytest.raises(ValueError, match=re.escape(says)):
        write_dataset(kind, 4, 0, tmp_path / "set", workers=1, **options)
    assert not (tmp_path / "set").exists()
