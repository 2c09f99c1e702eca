"""Real photos with VOC boxes turned into an oriented-box detector set (datasets/real_export.py)."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from nertz.datasets.real_export import holdout_names, voc_obb_quads, write_voc_obb_set
from nertz.vision.detect import OBB_ONNX


def test_voc_boxes_take_a_matching_quad_or_stay_rectangles():
    voc = np.array([[10, 10, 70, 100], [200, 50, 260, 140]], float)
    turned = np.array([[20, 10], [70, 20], [60, 100], [10, 90]], float)  # bbox = the first VOC box
    stray = np.array([[400, 400], [450, 400], [450, 480], [400, 480]], float)
    quads, got = voc_obb_quads(voc, np.stack([stray, turned]))
    assert got == 1
    np.testing.assert_allclose(quads[0], turned)
    np.testing.assert_allclose(quads[1], [[200, 50], [260, 50], [260, 140], [200, 140]])
    assert voc_obb_quads(voc, np.zeros((0, 4, 2)))[1] == 0


def test_holdout_is_every_nth_name(tmp_path):
    f = tmp_path / "labels.json"
    f.write_text(json.dumps({"images": [{"image": f"{c}.jpg", "boxes": []} for c in "edcba"]}))
    assert holdout_names(f, 2) == ["a.jpg", "c.jpg", "e.jpg"]
    with pytest.raises(ValueError, match="at least 2"):
        holdout_names(f, 1)


@pytest.mark.skipif(not OBB_ONNX.is_file(), reason="oriented-box detector not shipped")
def test_set_is_written_at_the_inference_scale(tmp_path):
    img = np.full((480, 360, 3), 90, np.uint8)
    cv2.rectangle(img, (100, 150), (220, 320), (255, 255, 255), -1)
    for name in ("a.jpg", "b.jpg"):
        cv2.imwrite(str(tmp_path / name), img)
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps({"images": [{"image": n, "boxes": [{"xmin": 100, "ymin": 150, "xmax": 220, "ymax": 320}]}
                                             for n in ("a.jpg", "b.jpg")]}))
    stats = write_voc_obb_set(tmp_path, labels, tmp_path / "out", OBB_ONNX, imgsz=160, holdout_every=2, copies=3)
    assert stats["train"] == 1 and stats["val"] == 1 and stats["boxes"] == 2
    assert len(list((tmp_path / "out/images/train").glob("*.jpg"))) == 3
    small = cv2.imread(str(next((tmp_path / "out/images/val").glob("*.jpg"))))
    assert max(small.shape[:2]) == 160
    v = np.array(next((tmp_path / "out/labels/val").glob("*.txt")).read_text().split()[1:], float).reshape(4, 2)
    assert np.all((v >= 0) & (v <= 1)) and abs(v[:, 0].min() - 100 / 360) < 0.05
    # with rendered cards laid on the training copies (never on val)
    stats = write_voc_obb_set(tmp_path, labels, tmp_path / "out3", OBB_ONNX, imgsz=160, holdout_every=2, copies=3,
                              paste=3, seed=5)
    assert stats["pasted"] > 0
    lines = [f.read_text().splitlines() for f in sorted((tmp_path / "out3/labels/train").glob("*.txt"))]
    assert sum(len(x) - 1 for x in lines) == stats["pasted"]
    assert all(x[0].split()[0] == "0" for x in lines)  # the photo's own card stays first
    assert len(next((tmp_path / "out3/labels/val").glob("*.txt")).read_text().splitlines()) == 1
    with pytest.raises(ValueError, match="paste"):
        write_voc_obb_set(tmp_path, labels, tmp_path / "out4", OBB_ONNX, paste=-1)
    with pytest.raises(ValueError, match="only with paste"):
        write_voc_obb_set(tmp_path, labels, tmp_path / "out4", OBB_ONNX, words=3)
    with pytest.raises(ValueError, match="seed must be at least 0"):  # failed after the first photos were written
        write_voc_obb_set(tmp_path, labels, tmp_path / "out4", OBB_ONNX, paste=1, seed=-1)
    assert not (tmp_path / "out4").exists()
    with pytest.raises(FileExistsError, match="already holds a set"):  # never two sets mixed in one folder
        write_voc_obb_set(tmp_path, labels, tmp_path / "out", OBB_ONNX, imgsz=160, holdout_every=2, copies=1)
    labels.write_text(json.dumps({"images": [{"image": "missing.jpg", "boxes": []}]}))
    with pytest.raises(FileNotFoundError, match="missing.jpg"):
        write_voc_obb_set(tmp_path, labels, tmp_path / "out2", OBB_ONNX)
    assert not (tmp_path / "out2").exists()  # nothing written


def test_pasted_cards_keep_off_the_photo_cards_and_are_labelled():
    from nertz.datasets.composite import CardSource, paste_cards

    photo = np.full((240, 320, 3), 70, np.uint8)
    real = np.array([[[120, 80], [200, 80], [200, 190], [120, 190]]], float)
    cv2.fillConvexPoly(photo, real[0].astype(np.int32), (250, 250, 250))
    source = CardSource(back_p=0.5)
    seen_back = seen_face = 0
    for k in range(6):
        img, labels = paste_cards(photo, real, np.random.default_rng([3, k]), source, 3)
        assert img.shape == photo.shape and img.dtype == np.uint8
        np.testing.assert_allclose(labels[0][1], real[0])  # the photo's own card first, unchanged
        # never covered (only the sensor noise laid over the whole image)
        assert np.abs(img[85:185, 125:195].astype(int) - photo[85:185, 125:195]).mean() < 5
        changed = np.abs(img.astype(int) - photo).sum(axis=2) > 60
        pasted = labels[1:]
        assert (changed.mean() > 0.01) == bool(pasted)
        for cls, q in pasted:
            assert cls in (0, 1) and q.shape == (4, 2)
            seen_back += cls == 1
            seen_face += cls == 0
            m = np.zeros(photo.shape[:2], np.uint8)
            cv2.fillConvexPoly(m, np.round(q).astype(np.int32), 1)
            assert changed[m > 0].mean() > 0.5  # each label lies on pasted pixels
    assert seen_back and seen_face
    again, _ = paste_cards(photo, real, np.random.default_rng([3, 0]), source, 3)
    np.testing.assert_array_equal(again, paste_cards(photo, real, np.random.default_rng([3, 0]), source, 3)[0])


def test_printed_words_are_unlabelled_and_keep_off_the_cards():
    from nertz.datasets.composite import CardSource, paste_cards

    photo = np.full((240, 320, 3), 70, np.uint8)
    real = np.array([[[120, 80], [200, 80], [200, 190], [120, 190]]], float)
    cv2.fillConvexPoly(photo, real[0].astype(np.int32), (250, 250, 250))
    printed = 0
    for k in range(5):
        img, labels = paste_cards(photo, real, np.random.default_rng([4, k]), CardSource(), 0, words=5)
        assert len(labels) == 1  # words are background: only the photo's card is labelled
        assert np.abs(img[85:185, 125:195].astype(int) - photo[85:185, 125:195]).mean() < 5
        printed += int((np.abs(img.astype(int) - photo).sum(axis=2) > 60).mean() > 0.002)
    assert printed >= 3


@pytest.mark.skipif(not OBB_ONNX.is_file(), reason="oriented-box detector not shipped")
def test_the_cli_default_detector_is_the_shipped_one_from_any_folder(tmp_path, monkeypatch):
    """``nertz synth real-obb`` without ``--detector`` uses the source tree's
    ``models/cards_obb.onnx`` wherever it is run (was "error: models/cards_obb.onnx: not
    found" outside the repository's root)."""
    from typer.testing import CliRunner

    from nertz.cli import app

    img = np.full((240, 180, 3), 90, np.uint8)
    cv2.rectangle(img, (50, 75), (110, 160), (255, 255, 255), -1)
    (tmp_path / "photos").mkdir()
    for name in ("a.jpg", "b.jpg"):
        cv2.imwrite(str(tmp_path / "photos" / name), img)
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps({"images": [{"image": n, "boxes": [{"xmin": 50, "ymin": 75, "xmax": 110, "ymax": 160}]}
                                             for n in ("a.jpg", "b.jpg")]}))
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(app, ["synth", "real-obb", "--photos", "photos", "--labels", "labels.json", "--out", "set",
                                 "--imgsz", "160", "--holdout-every", "2", "--copies", "1"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout.strip().splitlines()[-1])["boxes"] == 2


def test_the_cli_names_a_photos_file_or_a_labels_folder(tmp_path):
    """``--photos`` a file and ``--labels`` a folder (the user's swap) are named as such (were
    "[Errno 21] Is a directory" and "photo of labels.json/a.jpg not found"); nothing written."""
    from typer.testing import CliRunner

    from nertz.cli import app

    (tmp_path / "photos").mkdir()
    (tmp_path / "labels.json").write_text('{"images": [{"image": "a.jpg", "boxes": []}]}')
    run = lambda photos, labels: CliRunner().invoke(app, ["synth", "real-obb", "--photos", str(tmp_path / photos),  # noqa: E731
                                                          "--labels", str(tmp_path / labels), "--out", str(tmp_path / "set")])
    r = run("photos", "photos")
    assert r.exit_code == 2 and "--labels" in r.output and "a folder, not a file" in r.output, r.output
    r = run("labels.json", "labels.json")
    assert r.exit_code == 2 and "--photos" in r.output and "a file, not the folder" in r.output, r.output
    assert not (tmp_path / "set").exists()


def _two_photos(folder, names=("a.jpg", "b.jpg")):
    """Photos of one white card on grey, and their labels file."""
    img = np.full((240, 180, 3), 90, np.uint8)
    cv2.rectangle(img, (50, 75), (110, 160), (255, 255, 255), -1)
    folder.mkdir(exist_ok=True)
    for name in names:
        cv2.imwrite(str(folder / name), img)
    labels = folder.parent / "labels.json"
    labels.write_text(json.dumps({"images": [{"image": n, "boxes": [{"xmin": 50, "ymin": 75, "xmax": 110, "ymax": 160}]}
                                             for n in names]}))
    return labels


@pytest.mark.skipif(not (OBB_ONNX.parent / "cards_det.onnx").is_file(), reason="axis-aligned detector not shipped")
def test_an_axis_aligned_detector_is_refused(tmp_path):
    """``--detector models/cards_det.onnx`` (the axis-aligned detector) was accepted, and its
    boxes turned the VOC boxes into plain rectangles: refused, naming the oriented-box model."""
    from typer.testing import CliRunner

    from nertz.cli import app

    labels = _two_photos(tmp_path / "photos")
    with pytest.raises(ValueError, match="not an oriented-box detector.*cards_obb.onnx"):
        write_voc_obb_set(tmp_path / "photos", labels, tmp_path / "set", OBB_ONNX.parent / "cards_det.onnx")
    r = CliRunner().invoke(app, ["synth", "real-obb", "--photos", str(tmp_path / "photos"), "--labels", str(labels),
                                 "--out", str(tmp_path / "set"), "--detector", str(OBB_ONNX.parent / "cards_det.onnx")])
    assert r.exit_code == 2 and "error:" in r.output and "cards_obb.onnx" in r.output, r.output
    assert not (tmp_path / "set").exists()  # nothing written


@pytest.mark.skipif(not OBB_ONNX.is_file(), reason="oriented-box detector not shipped")
def test_a_failure_partway_leaves_no_half_written_set(tmp_path):
    """An unreadable photo among the photos failed after the first ones were written: the half
    set left in OUT made the next run refuse it ("already holds a set"). Now nothing of the set
    is left (other files in OUT stay), and the next run writes it."""
    from nertz.vision.detect import ImageError

    labels = _two_photos(tmp_path / "photos", ("a.jpg", "b.jpg", "c.jpg"))
    (tmp_path / "photos" / "c.jpg").write_bytes(b"not a photo")  # read after a and b are written
    out = tmp_path / "set"
    for before in (False, True):  # a new folder; an existing one with a note of the user's
        if before:
            out.mkdir()
            (out / "NOTES.md").write_text("mine\n")
        with pytest.raises(ImageError):
            write_voc_obb_set(tmp_path / "photos", labels, out, OBB_ONNX, imgsz=160, holdout_every=2, copies=1)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["labels.json", "photos"] + (["set"] if before else [])
        if before:
            assert [p.name for p in out.iterdir()] == ["NOTES.md"]
    _two_photos(tmp_path / "photos", ("a.jpg", "b.jpg", "c.jpg"))
    stats = write_voc_obb_set(tmp_path / "photos", labels, out, OBB_ONNX, imgsz=160, holdout_every=2, copies=1)
    assert stats["train"] + stats["val"] == 3
    assert sorted(p.name for p in out.iterdir()) == ["NOTES.md", "images", "labels"]
    assert len(list((out / "images").rglob("*.jpg"))) == len(list((out / "labels").rglob("*.txt"))) == 3


@pytest.mark.skipif(not OBB_ONNX.is_file(), reason="oriented-box detector not shipped")
def test_a_killed_runs_partial_folder_is_removed_by_the_next_run(tmp_path, capfd):
    """A run killed outright (kill -9) left its hidden .real-obb-*.partial folder in OUT; every
    later run went on beside it and every killed one left another (megabytes each). Now the
    next run removes those it can tell as its own and dead, and says so; a running run's, and
    the user's files, stay."""
    from nertz.datasets import real_export

    labels = _two_photos(tmp_path / "photos")
    out = tmp_path / "set"
    # a killed run's (its lock file held by no one), and one of a run before the lock files
    stale = [out / ".real-obb-05tyvx1e.partial", out / ".real-obb-k2_x9abc.partial"]
    live = out / ".real-obb-ab12cd34.partial"  # a run writing here now
    for d in stale + [live]:
        (d / "images" / "train").mkdir(parents=True)
        (d / "images" / "train" / "a_0.jpg").write_bytes(b"x")
    (stale[1] / real_export.PARTIAL_LOCK).write_bytes(b"")
    held = real_export._take(live / real_export.PARTIAL_LOCK)
    (out / "NOTES.md").write_text("mine\n")
    (out / ".real-obb-notes").mkdir()  # not a name the command gives
    stats = write_voc_obb_set(tmp_path / "photos", labels, out, OBB_ONNX, imgsz=160, holdout_every=2, copies=1)
    assert stats["train"] + stats["val"] == 2
    assert sorted(p.name for p in out.iterdir()) == sorted([".real-obb-notes", "NOTES.md", live.name, "images",
                                                           "labels"])
    err = capfd.readouterr().err
    assert all(f"removed {d}, the partial set of an earlier run that was killed" in err for d in stale), err
    assert real_export.remove_stale_partials(tmp_path / "nothing") == []
    held.close()  # its run ended (killed): the next run removes it
    assert real_export.remove_stale_partials(out) == [live]
