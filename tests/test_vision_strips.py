"""The strip classifier's input: the visible part of a partly covered card warped from its
oriented box with the aspect kept (``rectify_strip``), its training set (``kind="strip"``) and the
recogniser's use of it (``CardRecognizer.identify_strips``)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from nertz.datasets.export import CARD_CLASSES, rectify_strip, write_dataset
from nertz.vision.detect import OBB_ONNX, STRIP_ONNX, CardRecognizer, ModelError

# a strip 90 wide and 30 tall (the top of a cascaded card), its left end red
STRIP = np.array([[60, 80], [150, 80], [150, 110], [60, 110]], float)


def _strip_image() -> np.ndarray:
    img = np.full((200, 200, 3), 60, np.uint8)
    cv2.fillConvexPoly(img, STRIP.astype(np.int32), (255, 255, 255))
    cv2.rectangle(img, (60, 80), (80, 110), (0, 0, 255), -1)
    return img


def _red(out: np.ndarray) -> np.ndarray:
    return out[..., 2].astype(int) - out[..., 0]


def test_rectify_strip_keeps_the_aspect_long_side_horizontal():
    out = rectify_strip(_strip_image(), STRIP, 96, pad=1.0)
    assert out.shape == (96, 96, 3) and out.dtype == np.uint8
    # 90 x 30 -> 96 x 32 in the middle, grey letterbox above and below
    assert np.all(out[:30] == 114) and np.all(out[66:] == 114)
    assert out[48, 48].min() > 200  # white middle
    red = _red(out)
    assert red[40:56, 2:18].mean() > 150 and red[40:56, 78:94].mean() < 50  # red at the left end


def test_rectify_strip_turns_an_upright_strip_without_mirroring():
    img = _strip_image()
    m = cv2.getRotationMatrix2D((100, 100), -90, 1.0)  # turned by 90 degrees: the strip stands up
    turned = cv2.warpAffine(img, m, (200, 200), borderValue=(60, 60, 60))
    q = np.column_stack([STRIP, np.ones(4)]) @ m.T
    out = rectify_strip(turned, q, 96, pad=1.0)
    red = _red(out)
    left, right = red[40:56, 2:18].mean(), red[40:56, 78:94].mean()
    assert max(left, right) > 150 and min(left, right) < 50  # the red end at one end (180-degree ambiguity)
    # not mirrored: the red end's rows keep their order with the white middle (the strip's
    # first corner stays on the top edge): compare with the unturned strip turned by 180
    base = rectify_strip(img, STRIP, 96, pad=1.0)
    assert np.abs(out.astype(int) - (base if left > right else base[::-1, ::-1])).mean() < 12


def test_rectify_strip_reads_a_large_strip_and_rejects_bad_quads():
    big = cv2.resize(_strip_image(), (2000, 2000), interpolation=cv2.INTER_NEAREST)
    out = rectify_strip(big, STRIP * 10, 96, pad=1.0)
    assert out.shape == (96, 96, 3) and _red(out)[40:56, 2:18].mean() > 150
    with pytest.raises(ValueError, match="4 finite"):
        rectify_strip(_strip_image(), np.zeros((3, 2)), 96)


def test_strip_set_is_written(tmp_path):
    out = write_dataset("strip", 8, 3, tmp_path / "strip", crop=48, frames_per_scene=1, cards_per_frame=8,
                        resolution=(960, 540), val_every=1000)
    pngs = list(out.glob("*/*/*.png"))
    assert 1 <= len(pngs) <= 8
    assert {p.parent.name for p in pngs} <= set(CARD_CLASSES)
    assert cv2.imread(str(pngs[0])).shape == (48, 48, 3)


@pytest.mark.skipif(not (STRIP_ONNX.is_file() and OBB_ONNX.is_file()), reason="strip classifier not shipped")
def test_shipped_strip_classifier_names_cascaded_cards():
    from nertz.datasets.export import visible_quads
    from nertz.datasets.render import make_scene, render_frame
    from nertz.datasets.sim import SimSettings, simulate_round
    from nertz.vision.detect import whole_card

    rnd = simulate_round(SimSettings(players=3), 4)
    scene = make_scene(rnd.table["players"], 12, resolution=(1280, 720), tilt_deg=10.0)
    frame, lab = render_frame(scene, rnd.state_at(rnd.duration * 0.4))
    H, W = frame.shape[:2]
    strips = [(lab["cards"][i]["card"], q) for i, q, _ in visible_quads(lab, W, H)
              if lab["cards"][i]["face_up"] and lab["cards"][i]["corner_visible"] and not whole_card(q[None])[0]]
    assert len(strips) >= 5
    rec = CardRecognizer(table=None)
    labels, prob = rec.identify_strips(frame, np.array([q for _, q in strips], np.float32))
    assert labels.shape == prob.shape == (len(strips),) and np.all((prob > 0) & (prob <= 1))
    assert np.mean([a == c for a, (c, _) in zip(labels, strips)]) >= 0.6
    assert rec.identify_strips(frame, np.zeros((0, 4, 2), np.float32))[0].shape == (0,)
    with pytest.raises(ValueError, match=r"\(N, 4, 2\)"):
        rec.identify_strips(frame, np.zeros((1, 3, 2), np.float32))
    with pytest.raises(ModelError, match="strip classifier"):
        CardRecognizer(table=None, strips=None).identify_strips(frame, np.zeros((0, 4, 2), np.float32))
