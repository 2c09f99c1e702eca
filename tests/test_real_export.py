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
    labels.write_text(json.dumps({"images": [{"image": "missing.jpg", "boxes": []}]}))
    with pytest.raises(FileNotFoundError, match="missing.jpg"):
        write_voc_obb_set(tmp_path, labels, tmp_path / "out2", OBB_ONNX)
