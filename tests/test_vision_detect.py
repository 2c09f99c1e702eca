"""The shipped card models on ONNX Runtime (no torch), the back-colour matcher, image errors."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from nertz.vision.backs import BackMatcher, back_lab
from nertz.vision.detect import (CLASSIFIER_ONNX, DETECTOR_ONNX, CardRecognizer, Detections, ImageError,
                                 box_points, decode_obb, decode_yolo, letterbox, load_image)

TABLE = {"players": [{"name": "red", "back": "#b3261e"}, {"name": "blue", "back": "#1e4bb3"},
                     {"name": "green", "back": "#1e8a3a"}]}


def _solid(hex_colour: str, size: tuple[int, int] = (40, 28), border: int = 3) -> np.ndarray:
    """A back: the colour inside a white border, BGR."""
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    img = np.full((size[0], size[1], 3), 255, np.uint8)
    img[border:-border, border:-border] = (b, g, r)
    return img


# --- backs ------------------------------------------------------------------------------------
def test_back_matcher_names_each_registered_colour():
    m = BackMatcher.from_table(TABLE)
    for p in TABLE["players"]:
        name, dist = m.match(_solid(p["back"]))
        assert name == p["name"]
        assert dist < 3.0


def test_back_matcher_tolerates_light_changes_but_not_other_colours():
    m = BackMatcher.from_table(TABLE)
    dim = (_solid("#b3261e").astype(np.float32) * 0.75).astype(np.uint8)  # in a shadow
    assert m.match(dim)[0] == "red"
    assert m.match(_solid("#e8e020"))[0] == "unknown"  # a yellow deck nobody registered
    assert m.match(_solid("#808080"))[0] == "unknown"


def test_back_matcher_names_a_back_mostly_under_a_hand():
    m = BackMatcher.from_table(TABLE)
    img = _solid("#1e8a3a")
    img[-24:, :] = (120, 160, 215)  # a light hand over the lower 60 % (BGR)
    assert m.match_lab(back_lab(img))[0] == "unknown"  # the median alone is the hand's colour
    name, dist = m.match(img)  # the pixels still showing the back vote for it
    assert name == "green" and dist < 3.0
    assert m.match(np.full((40, 28, 3), (120, 160, 215), np.uint8))[0] == "unknown"  # only the hand


def test_a_hand_more_saturated_than_a_pale_back_does_not_outvote_it():
    pale = {"players": [{"name": "sky", "back": "#aabee6"}, {"name": "green", "back": "#1e8a3a"}]}
    m = BackMatcher.from_table(pale)
    img = _solid("#aabee6")
    img[12:, :] = (60, 100, 170)  # a brown hand over the lower 70 % (BGR): skin, and more saturated
    name, dist = m.match(img)  # skin is left out before the saturated half is taken
    assert name == "sky" and dist < 3.0
    assert m.match(np.full((40, 28, 3), (60, 100, 170), np.uint8))[0] == "unknown"  # only the hand


def test_back_lab_rejects_empty_crop():
    with pytest.raises(ValueError):
        back_lab(np.zeros((0, 5, 3), np.uint8))


# --- images -----------------------------------------------------------------------------------
def test_unreadable_image_is_a_clear_error(tmp_path):
    bad = tmp_path / "notes.jpg"
    bad.write_text("not a picture")
    with pytest.raises(ImageError, match="notes.jpg"):
        load_image(bad)
    with pytest.raises(ImageError, match="no such image"):
        load_image(tmp_path / "missing.png")
    with pytest.raises(ImageError, match="a folder, not an image"):
        load_image(tmp_path)


@pytest.mark.parametrize("ext", [".png", ".bmp"])
def test_an_image_over_40_megapixels_is_refused_with_its_size(tmp_path, ext):
    # a blank 8000 x 6000 photo kept `nertz audit` busy for minutes: refused from its header
    # (Pillow reads PNG's and BMP's) before it is decoded; a 12 MP phone photo is read
    big = tmp_path / f"big{ext}"
    cv2.imwrite(str(big), np.zeros((6000, 7000, 3), np.uint8))
    with pytest.raises(ImageError, match="7000x6000 pixels is too large"):
        load_image(big)
    bomb = tmp_path / "bomb.png"  # a header declaring 20000 x 20000 pixels, and nothing else
    ihdr = b"IHDR" + struct.pack(">IIBBBBB", 20000, 20000, 8, 2, 0, 0, 0)
    bomb.write_bytes(b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + ihdr + struct.pack(">I", zlib.crc32(ihdr))
                     + struct.pack(">I", 0) + b"IEND" + struct.pack(">I", zlib.crc32(b"IEND")))
    with pytest.raises(ImageError, match="megapixels, too large"):
        load_image(bomb)
    ok = tmp_path / "phone.jpg"
    cv2.imwrite(str(ok), np.zeros((3000, 4000, 3), np.uint8))  # 12 MP
    assert load_image(ok).shape == (3000, 4000, 3)


# --- decoding ---------------------------------------------------------------------------------
def test_letterbox_and_decode_map_boxes_back_to_the_image():
    img = np.zeros((720, 1280, 3), np.uint8)
    blob, r = letterbox(img, 640)
    assert blob.shape == (1, 3, 384, 640) and r == pytest.approx(0.5)
    out = np.zeros((1, 7, 3), np.float32)  # 3 classes, 3 anchors
    out[0, :4, 0] = [100, 50, 20, 30]  # cx, cy, w, h in input pixels
    out[0, 4, 0] = 0.9
    out[0, :4, 1] = [101, 50, 20, 30]  # a duplicate, suppressed
    out[0, 4, 1] = 0.8
    out[0, :4, 2] = [300, 200, 10, 10]
    out[0, 6, 2] = 0.1  # below the threshold
    boxes, score, cls = decode_yolo(out, r, conf=0.25, iou=0.5)
    assert len(boxes) == 1 and cls[0] == 0
    np.testing.assert_allclose(boxes[0], [180, 70, 220, 130], atol=1e-4)
    d = Detections.from_boxes(boxes, score, cls)
    assert d.quads.shape == (1, 4, 2)
    np.testing.assert_allclose(d.quads[0], [[180, 70], [220, 70], [220, 130], [180, 130]])


def test_rotated_boxes_decode_to_ordered_quads_as_opencv_draws_them():
    from nertz.datasets.export import order_quad, order_quads

    rng = np.random.default_rng(0)
    xywh = np.column_stack([rng.uniform(0, 640, 50), rng.uniform(0, 384, 50), rng.uniform(5, 80, 50),
                            rng.uniform(5, 80, 50)])
    angle = rng.uniform(-np.pi, np.pi, 50)
    pts = box_points(xywh, angle)
    for k in range(50):
        want = cv2.boxPoints(((xywh[k, 0], xywh[k, 1]), (xywh[k, 2], xywh[k, 3]), float(np.degrees(angle[k]))))
        np.testing.assert_allclose(pts[k], want, atol=1e-3)
        np.testing.assert_allclose(order_quads(pts)[k], order_quad(pts[k]))
    # an oriented-box head's output: two overlapping boxes (the weaker suppressed) and another
    out = np.zeros((1, 4 + 3 + 1, 3), np.float32)
    out[0, :, 0] = [100, 50, 40, 20, 0.9, 0, 0, 0.3]
    out[0, :, 1] = [101, 50, 40, 20, 0.6, 0, 0, 0.3]
    out[0, :, 2] = [300, 200, 30, 30, 0, 0.8, 0, 0.0]
    quads, score, cls = decode_obb(out, 0.5, conf=0.25, iou=0.5)
    assert list(cls) == [0, 1] and score[0] == pytest.approx(0.9)
    np.testing.assert_allclose(quads[0], order_quad(box_points(out[0, :4, 0], out[0, 7, 0])[0] / 0.5), atol=1e-3)
    np.testing.assert_allclose(quads[1], [[570, 370], [630, 370], [630, 430], [570, 430]], atol=1e-3)


# --- the shipped models ------------------------------------------------------------------------
needs_models = pytest.mark.skipif(not (DETECTOR_ONNX.is_file() and CLASSIFIER_ONNX.is_file()),
                                  reason="models not shipped")


@pytest.fixture(scope="module")
def rendered():
    """Two small rendered frames of a 2-player round with their labels."""
    from nertz.datasets.render import make_scene, render_frame
    from nertz.datasets.sim import SimSettings, simulate_round

    rnd = simulate_round(SimSettings(players=2), 3)
    scene = make_scene(rnd.table["players"], 11, resolution=(640, 360), tilt_deg=0.0, fill=1.6)
    return rnd.table, [render_frame(scene, rnd.state_at(t)) for t in (1.0, rnd.duration * 0.5)]


@needs_models
def test_shipped_models_find_and_name_cards(rendered):
    table, frames = rendered
    rec = CardRecognizer(table=table)
    found = right = 0
    for frame, lab in frames:
        det = rec(frame)
        cards = det.cards()
        assert all(len(c["quad"]) == 4 for c in cards)
        faces = {c["card"] for c in lab["cards"] if c["face_up"] and c["visible"] > 0.9}
        said = {c["label"] for c in cards if c["label"] != "back"}
        found += len(cards)
        right += len(faces & said)
        assert len(cards) >= 0.5 * sum(1 for c in lab["cards"] if c["visible"] > 0.5)
    assert right >= 1


# --- training needs the [train] extra ------------------------------------------------------------
def test_training_without_the_train_extra_says_how_to_install(monkeypatch, tmp_path):
    import importlib.util

    if importlib.util.find_spec("torch") is not None and importlib.util.find_spec("ultralytics") is not None:
        pytest.skip("the [train] extra is installed here")
    from nertz.vision.train import TrainError, train_detector

    monkeypatch.setenv("YOLO_CONFIG_DIR", str(tmp_path / "cfg"))
    monkeypatch.setenv("YOLO_OFFLINE", "1")
    with pytest.raises(TrainError, match=r"pip install -e '\.\[train\]'"):
        train_detector(tmp_path / "data.yaml", epochs=1)


def test_data_loads_in_worker_processes_on_a_gpu_only():
    from nertz.vision.train import _loader_workers

    assert _loader_workers("cpu") == 0 and _loader_workers("CPU") == 0
    assert 1 <= _loader_workers("0") <= 16


def test_train_detector_command_passes_hours_and_device_and_can_skip_the_export(monkeypatch, tmp_path):
    from typer.testing import CliRunner

    import nertz.vision.train as train
    from nertz.cli import app

    calls: dict = {}

    def fake_train(data, **kw):
        calls.update(kw, data=data)
        return tmp_path / "best.pt"

    def fake_export(*a, **kw):
        calls["exported"] = True
        return tmp_path / "cards_obb.onnx"

    monkeypatch.setattr(train, "train_detector", fake_train)
    monkeypatch.setattr(train, "export_onnx", fake_export)
    monkeypatch.setattr(train, "require_train_extra", lambda export=True: None)  # training is stubbed too
    data = tmp_path / "data.yaml"
    data.write_text("path: .\ntrain: images/train\nval: images/val\nnames: {0: face}\n")
    r = CliRunner().invoke(app, ["train", "detector", "--obb", "--data", str(data), "--hours", "0.1",
                                 "--device", "0", "--no-export"])
    assert r.exit_code == 0, r.output
    assert calls["time"] == 0.1 and calls["device"] == "0" and "exported" not in calls
    assert "not exported" in r.output
    calls.clear()
    r = CliRunner().invoke(app, ["train", "detector", "--obb", "--data", str(data), "--epochs", "2"])
    assert r.exit_code == 0, r.output
    assert "time" not in calls and calls["epochs"] == 2 and calls["exported"]
    assert calls["model"] == "yolo11n-obb.yaml" and Path(calls["init"]).parts[-2:] == ("models", "cards_det.pt")
    init = tmp_path / "init.pt"
    init.write_bytes(b"weights")
    # fine-tuning given weights: the axis-aligned detector is not loaded over them
    calls.clear()
    r = CliRunner().invoke(app, ["train", "detector", "--obb", "--data", str(data), "--weights", str(init)])
    assert r.exit_code == 0, r.output
    assert calls["model"] == str(init) and "init" not in calls
    calls.clear()
    r = CliRunner().invoke(app, ["train", "audit", "--data", str(data), "--init", str(init), "--hours", "0.05",
                                 "--device", "0", "--no-export"])
    assert r.exit_code == 0, r.output
    assert calls["time"] == 0.05 and calls["model"] == str(init) and "exported" not in calls


def test_several_classify_sets_merge_as_links_without_collisions(tmp_path):
    from nertz.vision.train import TrainError, merge_classify_sets

    for name in ("setA", "setB"):
        for split, cls in (("train", "5H"), ("train", "AS"), ("val", "5H")):
            (tmp_path / name / split / cls).mkdir(parents=True, exist_ok=True)
            (tmp_path / name / split / cls / "s00001_0_1.png").write_bytes(name.encode())
    out = merge_classify_sets([tmp_path / "setA", tmp_path / "setB"], tmp_path / "merged")
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.png"))
    assert files == ["train/5H/setA_s00001_0_1.png", "train/5H/setB_s00001_0_1.png",
                     "train/AS/setA_s00001_0_1.png", "train/AS/setB_s00001_0_1.png",
                     "val/5H/setA_s00001_0_1.png", "val/5H/setB_s00001_0_1.png"]
    assert (out / "train/5H/setB_s00001_0_1.png").read_bytes() == b"setB"   # links to the files
    merge_classify_sets([tmp_path / "setA"], out)                           # again: nothing doubled
    assert len(list(out.rglob("*.png"))) == 6
    with pytest.raises(TrainError, match="no train/ folder"):
        merge_classify_sets([tmp_path / "missing"], tmp_path / "m2")


def test_a_merged_classify_set_holds_no_links_to_files_since_moved(tmp_path, capsys):
    """Merging again into the same folder after a set moved (or was written again with fewer
    crops) kept the links to the files' old places: broken links in the set to train on, and
    the moved set's files not linked at all. Now each is linked where it is, and the links to
    files that are gone are removed, counted in one warning line."""
    import shutil

    from nertz.vision.train import merge_classify_sets

    for name in ("setA", "setB"):
        (tmp_path / name / "train" / "5H").mkdir(parents=True)
        for f in ("a.png", "b.png"):
            (tmp_path / name / "train" / "5H" / f).write_bytes(f"{name}/{f}".encode())
    out = merge_classify_sets([tmp_path / "setA", tmp_path / "setB"], tmp_path / "merged")
    assert capsys.readouterr().err == ""
    (tmp_path / "moved").mkdir()
    shutil.move(str(tmp_path / "setA"), str(tmp_path / "moved" / "setA"))  # the set moved
    (tmp_path / "setB" / "train" / "5H" / "b.png").unlink()  # written again, one crop fewer
    merge_classify_sets([tmp_path / "moved" / "setA", tmp_path / "setB"], out)
    links = sorted((out / "train" / "5H").iterdir())
    assert [p.name for p in links] == ["setA_a.png", "setA_b.png", "setB_a.png"]
    assert all(p.exists() for p in links)  # no broken link
    assert (out / "train" / "5H" / "setA_b.png").read_bytes() == b"setA/b.png"
    err = capsys.readouterr().err
    assert err == (f"warning: {out}: 1 link to a file that is no longer there left out (a set moved or written "
                   "again since it was merged here)\n")


@pytest.mark.skipif(not DETECTOR_ONNX.is_file(), reason="detector model not shipped")
def test_detect_command_reads_each_image_at_the_size_asked(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from nertz.cli import app
    from nertz.vision import detect as detect_module

    sizes = []
    real_init = detect_module.CardRecognizer.__init__

    def spy(self, *a, **k):
        sizes.append(k.get("imgsz"))
        real_init(self, *a, **k)

    monkeypatch.setattr(detect_module.CardRecognizer, "__init__", spy)
    img = tmp_path / "table.png"
    cv2.imwrite(str(img), np.full((240, 320, 3), 90, np.uint8))
    r = CliRunner().invoke(app, ["detect", str(img), str(tmp_path / "missing.png"), "--json", "--imgsz", "320"])
    assert r.exit_code == 2  # one image could not be read; the other was still detected
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert lines[0]["image"] == str(img) and isinstance(lines[0]["cards"], list)
    assert "error" in lines[1] and sizes == [320]
    assert CliRunner().invoke(app, ["detect", str(img), "--imgsz", "10"]).exit_code == 2  # refused, no traceback


@pytest.mark.skipif(not DETECTOR_ONNX.is_file(), reason="detector model not shipped")
def test_detect_json_an_unreadable_image_is_a_line_of_image_and_error(tmp_path):
    """The shape README.md documents beside ``nertz detect`` (DESIGN.md's contract gives only
    the ``cards`` line): ``{"image": path, "error": message}``, exactly those two keys, one line
    per unreadable image, in order among the others; exit status 2 at the end."""
    from typer.testing import CliRunner

    from nertz.cli import app

    img = tmp_path / "table.png"
    cv2.imwrite(str(img), np.full((240, 320, 3), 90, np.uint8))
    (tmp_path / "bad.png").write_bytes(b"not an image")
    (tmp_path / "folder").mkdir()
    bad = [tmp_path / "missing.png", tmp_path / "bad.png", tmp_path / "folder"]
    r = CliRunner().invoke(app, ["detect", str(bad[0]), str(img), str(bad[1]), str(bad[2]), "--json"])
    assert r.exit_code == 2 and "Traceback" not in r.output
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["image"] for x in lines] == [str(bad[0]), str(img), str(bad[1]), str(bad[2])]
    assert set(lines[1]) == {"image", "cards"}
    for line, path in zip(lines[:1] + lines[2:], bad):
        assert set(line) == {"image", "error"} and isinstance(line["error"], str)
        assert line["error"].startswith(f"{path}: ")  # the message names the image


@needs_models
def test_detect_with_a_table_made_for_another_camera_uses_only_its_back_colours(tmp_path):
    # a 640x360 frame with the table file of a 1280x720 camera: its zones would turn the cards
    # lying where they are by the zones' directions (other names than without a table); the
    # image gets a warning and is read as without the zones, the back colours still used
    from typer.testing import CliRunner

    from nertz.cli import app

    from nertz.datasets.render import make_scene, render_frame
    from nertz.datasets.sim import SimSettings, simulate_round

    rnd = simulate_round(SimSettings(players=2), 3)
    scene = make_scene(rnd.table["players"], 11, resolution=(640, 360), tilt_deg=0.0)
    table = scene.table_file()
    frame, _ = render_frame(scene, rnd.state_at(rnd.duration * 0.5))
    img = tmp_path / "frame.png"
    cv2.imwrite(str(img), frame)
    big = dict(table, shared_area=[[x * 2, y * 2] for x, y in table["shared_area"]],
               zones={n: [[x * 2, y * 2] for x, y in z] for n, z in table["zones"].items()})
    (tmp_path / "big.json").write_text(json.dumps(big))
    (tmp_path / "fits.json").write_text(json.dumps(table))
    runner = CliRunner()
    other = runner.invoke(app, ["detect", str(img), "--json", "--table", str(tmp_path / "big.json")])
    assert other.exit_code == 0 and "warning:" in other.stderr and "outside this source's 640x360" in other.stderr
    fits = runner.invoke(app, ["detect", str(img), "--json", "--table", str(tmp_path / "fits.json")])
    assert fits.exit_code == 0 and "warning" not in fits.stderr
    plain = runner.invoke(app, ["detect", str(img), "--json"])
    names = lambda r: sorted(c["label"] for c in json.loads(r.stdout)["cards"] if c["label"] != "back")  # noqa: E731
    assert names(other) == names(plain)


def test_is_greyscale_tells_grey_images_from_colour_ones():
    from nertz.vision.detect import is_greyscale

    grey = np.random.default_rng(0).integers(0, 255, (40, 60), dtype=np.uint8)
    assert is_greyscale(grey) and is_greyscale(grey[..., None])
    assert is_greyscale(cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR))
    assert is_greyscale((cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR).astype(np.uint16) * 257))  # 16-bit
    colour = cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)
    colour[10:14, 20:24] = (40, 40, 200)  # one small red pip
    assert not is_greyscale(colour)


@pytest.mark.skipif(not DETECTOR_ONNX.is_file(), reason="detector model not shipped")
def test_detect_warns_once_per_greyscale_image_on_stderr_even_with_json(tmp_path):
    """A greyscale photo read red suits as black (JD as JS at 0.9) without a word: now a
    warning on standard error, once per image; the JSON lines on standard output stay whole."""
    from typer.testing import CliRunner

    from nertz.cli import app

    colour = np.full((120, 160, 3), (60, 120, 40), np.uint8)
    colour[40:80, 60:100] = (40, 40, 210)  # something red
    grey = cv2.cvtColor(colour, cv2.COLOR_BGR2GRAY)
    paths = {"colour": tmp_path / "colour.png", "grey8": tmp_path / "grey8.png", "grey16": tmp_path / "grey16.png",
             "grey3": tmp_path / "grey3.jpg"}
    cv2.imwrite(str(paths["colour"]), colour)
    cv2.imwrite(str(paths["grey8"]), grey)
    cv2.imwrite(str(paths["grey16"]), grey.astype(np.uint16) * 257)
    cv2.imwrite(str(paths["grey3"]), cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR))  # three equal channels, JPEG
    runner = CliRunner()
    for json_flag in (["--json"], []):
        r = runner.invoke(app, ["detect", *map(str, paths.values()), *json_flag])
        assert r.exit_code == 0, r.output
        warnings = [line for line in r.stderr.splitlines() if "greyscale" in line]
        assert [w.split(":")[1].strip() for w in warnings] == [str(paths[k]) for k in ("grey8", "grey16", "grey3")]
        assert all(w.startswith("warning: ") and "red suits cannot be told from black" in w for w in warnings)
        if json_flag:
            assert [json.loads(x)["image"] for x in r.stdout.splitlines()] == [str(p) for p in paths.values()]
