"""Which way a player's cards lie (``nertz.vision.card_axes``) and the rectification that uses it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from nertz.datasets.export import rectify_card
from nertz.vision.card_axes import CardAxes
from nertz.vision.detect import CardRecognizer

# a shared area in the middle, red's zone below it, blue's on its right (image pixels)
TABLE = {
    "players": [{"name": "red", "back": "#b3261e"}, {"name": "blue", "back": "#1e4bb3"}],
    "shared_area": [[320, 160], [960, 160], [960, 500], [320, 500]],
    "zones": {"red": [[320, 520], [960, 520], [960, 710], [320, 710]],
              "blue": [[980, 100], [1270, 100], [1270, 600], [980, 600]]},
}


def rect(cx: float, cy: float, w: float, h: float, deg: float = 0.0) -> np.ndarray:
    """A ``w`` x ``h`` rectangle centred at ``(cx, cy)`` turned by ``deg``, clockwise corners."""
    return cv2.boxPoints(((cx, cy), (w, h), deg)).astype(np.float32)


def test_each_zone_points_at_the_shared_area():
    axes = CardAxes.from_table(TABLE)
    got = {tuple(np.round(p.mean(axis=0))): a for p, a in axes.zones}
    assert len(got) == 2
    red = next(a for c, a in got.items() if c[1] > 600)
    blue = next(a for c, a in got.items() if c[0] > 1000)
    assert red == pytest.approx([0, -1], abs=1e-6)
    assert blue == pytest.approx([-1, 0], abs=1e-6)


def test_without_a_shared_area_the_zones_point_at_their_middle():
    table = {k: v for k, v in TABLE.items() if k != "shared_area"}
    axes = CardAxes.from_table(table)
    assert len(axes.zones) == 2
    for poly, axis in axes.zones:
        other = next(p for p, _ in axes.zones if p is not poly)
        d = (poly.mean(axis=0) + other.mean(axis=0)) / 2 - poly.mean(axis=0)
        assert axis == pytest.approx(d / np.linalg.norm(d), abs=1e-6)
    one = {"players": TABLE["players"], "zones": {"red": TABLE["zones"]["red"]}}  # one zone
    assert CardAxes.from_table(one).zones == ()


def test_long_side_named_by_the_zone_only_where_clear():
    axes = CardAxes.from_table(TABLE)
    quads = np.stack([
        rect(1100, 350, 30, 50),        # blue's: taller than wide as seen, lies across the table
        rect(640, 600, 50, 70),         # red's: upright, as seen and as laid
        rect(1100, 350, 40, 40, 45.0),  # blue's, askew: no side nearer the axis
        rect(640, 330, 50, 70),         # in the shared area: no axis
        rect(100, 100, 50, 70),         # in no zone
    ])
    long = axes.long_sides(quads)
    d = long[0] / np.linalg.norm(long[0])
    assert abs(d[0]) == pytest.approx(1.0, abs=1e-3)  # the horizontal pair
    d = long[1] / np.linalg.norm(long[1])
    assert abs(d[1]) == pytest.approx(1.0, abs=1e-3)
    assert np.isnan(long[2:]).all()
    assert axes.long_sides(np.zeros((0, 4, 2), np.float32)).shape == (0, 2)


def test_rectify_card_turns_a_quarter_for_a_known_long_side():
    yy, xx = np.mgrid[0:200, 0:200]
    img = np.stack([xx, yy, (xx + yy) // 2], axis=-1).astype(np.uint8)  # tells every way round apart
    q = rect(100, 100, 70, 60)  # a little wider than tall: the longer side as seen runs across
    plain = rectify_card(img, q, 64)
    upright = rectify_card(img, q, 64, long_side=np.array([0.0, 1.0]))
    same = rectify_card(img, q, 64, long_side=np.array([1.0, 0.0]))
    nan = rectify_card(img, q, 64, long_side=np.array([np.nan, np.nan]))
    assert np.array_equal(plain, same) and np.array_equal(plain, nan)
    diff = min(np.abs(upright.astype(int) - np.rot90(plain, k).astype(int)).mean() for k in (1, 3))
    assert diff < 3
    assert np.abs(upright.astype(int) - plain.astype(int)).mean() > 10


def _frame_with_cards(cards: list[str], design: str = "ais-anglo"):
    """A 1280 x 720 cloth with ``cards`` in blue's zone, laid across the table (long side
    horizontal) and seen so steeply that they look taller than wide: ``frame, quads``."""
    from nertz.datasets.art import load_face

    frame = np.full((720, 1280, 3), (60, 110, 40), np.uint8)
    quads = []
    for i, card in enumerate(cards):
        face = load_face(design, card, (252, 352))  # BGRA, portrait
        h, w = face.shape[:2]
        cy = 140 + 75 * i
        # the card's top edge (its short side) lands on the quad's right side: long side across,
        # foreshortened to 40 px against 60 px of short side
        x0, x1, y0, y1 = 1100.0, 1140.0, cy - 30.0, cy + 30.0
        dst = np.float32([[x1, y0], [x1, y1], [x0, y1], [x0, y0]])
        m = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), dst)
        warped = cv2.warpPerspective(face, m, (1280, 720), flags=cv2.INTER_AREA)
        a = warped[..., 3:4].astype(np.float32) / 255
        frame = (frame * (1 - a) + warped[..., :3] * a).astype(np.uint8)
        quads.append(dst)
    return frame, np.stack(quads)


def test_a_card_seen_steeply_in_a_side_zone_is_rectified_upright():
    pytest.importorskip("onnxruntime")
    from nertz.datasets.art import ArtMissingError, load_face

    try:
        face = load_face("ais-anglo", "7S", (252, 352))
    except ArtMissingError:
        pytest.skip("card art not fetched (datasets/fetch_art.sh)")
    frame, quads = _frame_with_cards(["7S"])
    rec = CardRecognizer(table=TABLE)
    got = rec.rectify(frame, quads)[0].astype(int)
    want = cv2.resize(np.ascontiguousarray(face[..., :3]), (64, 64), interpolation=cv2.INTER_AREA).astype(int)
    upright = min(np.abs(got - want).mean(), np.abs(got - want[::-1, ::-1]).mean())
    sideways = CardRecognizer(table=TABLE, zone_axes=False).rectify(frame, quads)[0].astype(int)
    assert upright < 20
    assert upright < min(np.abs(sideways - want).mean(), np.abs(sideways - want[::-1, ::-1]).mean())


def test_the_shipped_classifier_names_cards_seen_steeply_in_a_side_zone():
    pytest.importorskip("onnxruntime")
    from nertz.datasets.art import ArtMissingError

    cards = ["7S", "TH", "QD", "KC", "6C", "JS"]
    try:
        frame, quads = _frame_with_cards(cards)
    except ArtMissingError:
        pytest.skip("card art not fetched (datasets/fetch_art.sh)")
    names, _ = CardRecognizer(table=TABLE).identify_quads(frame, quads)
    assert list(names) == cards
