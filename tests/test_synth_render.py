"""Tests of the synthetic renderer (nertz.datasets.render): labels checked on rendered pixels.

Renders are tiny (a few hundred pixels wide) so the file runs in seconds.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from nertz.datasets.render import card_sample_points, make_scene, render_frame
from nertz.datasets.state import FoundationState, InFlight, LayoutState, Slot, TableState, Withdrawing

GREEN = (60, 170, 60)  # BGR table colour no card design uses as a large flat area
P2 = [("red", "#b3261e"), ("blue", "#1e4bb3")]
SMALL = (320, 180)


def _scene(players=P2, seed=1, res=SMALL, **kw):
    opts = dict(surface="uniform", surface_colour=GREEN, effects=False, clutter=False,
                design="placeholder")
    opts.update(kw)
    return make_scene(players, seed, res, **opts)


def _empty(players=P2) -> dict[str, LayoutState]:
    return {n: LayoutState() for n, _ in players}


def _scaled(quad: np.ndarray, k: float) -> np.ndarray:
    c = quad.mean(axis=0)
    return c + (quad - c) * k


def _pixels(frame: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.round(pts).astype(int)
    h, w = frame.shape[:2]
    ok = (p[:, 0] >= 0) & (p[:, 0] < w) & (p[:, 1] >= 0) & (p[:, 1] < h)
    p = p[ok]
    return frame[p[:, 1], p[:, 0]].astype(int)


def _fill(quad: np.ndarray, n: int = 9) -> np.ndarray:
    """Points spread over a quad (bilinear)."""
    u, v = np.meshgrid(np.linspace(0, 1, n), np.linspace(0, 1, n))
    u, v = u.ravel()[:, None], v.ravel()[:, None]
    tl, tr, br, bl = quad
    return (1 - u) * (1 - v) * tl + u * (1 - v) * tr + u * v * br + (1 - u) * v * bl


def _ring(quad: np.ndarray, k: float, n: int = 40) -> np.ndarray:
    q = _scaled(quad, k)
    t = np.linspace(0, 1, n, endpoint=False)[:, None]
    return np.vstack([q[i] + (q[(i + 1) % 4] - q[i]) * t for i in range(4)])


def _art_design() -> str:
    from nertz.datasets import art

    try:
        designs = art.list_designs()
    except art.ArtMissingError:
        pytest.skip("no card-art cache (bash datasets/fetch_art.sh)")
    return designs[0]


@pytest.mark.parametrize("tilt,design", [(0.0, "placeholder"), (30.0, "placeholder"), (15.0, "art")])
def test_single_card_quad_lies_on_its_pixels(tilt, design):
    if design == "art":
        design = _art_design()
    sc = _scene(tilt_deg=tilt, res=(480, 270), design=design)
    st = TableState(0.0, _empty(), [FoundationState(0, [("AS", "red")])])
    frame, labels = render_frame(sc, st)
    assert frame.shape == (270, 480, 3) and frame.dtype == np.uint8
    cards = labels["cards"]
    assert [c["card"] for c in cards] == ["AS"]
    c = cards[0]
    assert c["owner"] == "red" and c["face_up"] and c["visible"] == pytest.approx(1.0)
    assert c["corner_visible"]
    quad = np.array(c["quad"])
    # clockwise in the image (y down): positive shoelace area
    x, y = quad[:, 0], quad[:, 1]
    assert 0.5 * np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y) > 0
    inside = _pixels(frame, _fill(_scaled(quad, 0.85)))
    far = np.abs(inside - np.array(GREEN)).sum(axis=1)
    assert (far > 60).mean() > 0.95  # the card, not the table, inside the quad
    outside = _pixels(frame, _ring(quad, 1.25))
    assert len(outside) > 100
    assert np.abs(outside - np.array(GREEN)).max() <= 3  # bare table just outside it
    # and the edge sits where the quad says: the ring just inside differs, just outside not
    edge_in = _pixels(frame, _ring(quad, 0.93))
    assert (np.abs(edge_in - np.array(GREEN)).sum(axis=1) > 60).mean() > 0.9


def test_card_fully_under_another_is_marked_hidden():
    sc = _scene(card_jitter=0.0)
    st = TableState(0.0, _empty(), [FoundationState(3, [("AH", "red"), ("2H", "blue")])])
    _, labels = render_frame(sc, st, include_hidden=True)
    by = {c["identity"]: c for c in labels["cards"]}
    assert by["AH"]["visible"] == 0.0 and not by["AH"]["corner_visible"]
    assert by["2H"]["visible"] == pytest.approx(1.0) and by["2H"]["owner"] == "blue"
    _, labels = render_frame(sc, st)  # by default hidden cards are left out
    assert [c["card"] for c in labels["cards"]] == ["2H"]


def test_cascaded_cards_show_their_index_corner():
    sc = _scene(res=(480, 270), tilt_deg=0.0)
    lay = _empty()
    lay["red"].work[1] = ["9S", "8H", "7C"]
    _, labels = render_frame(sc, TableState(0.0, lay))
    by = {c["card"]: c for c in labels["cards"]}
    assert set(by) == {"9S", "8H", "7C"}
    cascade = sc.geometry.seat("red").cascade
    for covered in ("9S", "8H"):
        assert by[covered]["corner_visible"]
        # the strip left uncovered is the cascade offset over the card height (88 mm)
        assert by[covered]["visible"] == pytest.approx(cascade / 88.0, abs=0.1)
    assert by["7C"]["visible"] == pytest.approx(1.0)


def test_layout_piles_and_spread_are_labelled():
    sc = _scene(res=(480, 270))
    lay = _empty()
    lay["blue"] = LayoutState(nertz=["KS", "2D", "5C"], work=[["4H"], [], ["JC"], []],
                              stock=["AD", "3S"], waste=["6H", "7S"], spread=[])
    lay["red"] = LayoutState(spread=["QH", "TD", "3C"])
    _, labels = render_frame(sc, TableState(0.0, lay))
    names = [(c["card"], c["owner"]) for c in labels["cards"]]
    assert ("5C", "blue") in names  # Nertz pile top, face up
    assert ("KS", "blue") not in names and ("2D", "blue") not in names  # inside the pile
    assert ("back", "blue") in names  # the stock's top card
    assert ("7S", "blue") in names and ("4H", "blue") in names
    spread = [c for c in labels["cards"] if c["owner"] == "red"]
    assert len(spread) == 3 and all(c["card"] == "back" and not c["face_up"] for c in spread)
    assert {c["identity"] for c in spread} == {"QH", "TD", "3C"}


def test_hand_carrying_a_card_occludes_and_is_labelled():
    sc = _scene(res=(480, 270), tilt_deg=10.0)
    lay = _empty()
    lay["red"].work[0] = ["9D"]
    st = TableState(2.0, lay, [FoundationState(0, [("AC", "blue")])],
                    in_flight=[InFlight(("2C",), "blue", Slot("waste", "blue"),
                                        Slot("foundation", None, 0), 0.5)],
                    idle_hands=["red"])
    frame, labels = render_frame(sc, st)
    hands = {h["hand"]: h for h in labels["hands"]}
    assert set(hands) == {"red", "blue"} and hands["blue"]["carrying"]
    moving = [c for c in labels["cards"] if c["moving"]]
    assert [c["card"] for c in moving] == ["2C"]
    # the hand holds the card by its lower part: part of it is hidden, its quad is still on it
    assert 0.3 < moving[0]["visible"] < 1.0
    x0, y0, x1, y1 = hands["blue"]["box"]
    assert 0 <= x0 < x1 <= 480 and 0 <= y0 < y1 <= 270
    # the hand's box holds skin, not table
    pts = np.array([[(x0 + x1) / 2, (y0 + y1) / 2]])
    assert np.abs(_pixels(frame, pts) - np.array(GREEN)).sum() > 40


def test_a_hand_going_back_after_a_release_starts_at_the_card_and_ends_at_rest():
    # blue let go of its 2C on pile 0: just after, its empty hand is where it held the card
    # (as carrying it at the release), at the end of its way back where an idle hand rests
    sc = _scene(res=(480, 270), tilt_deg=10.0)
    pile = [FoundationState(0, [("AC", "blue"), ("2C", "blue")])]

    def box(state: TableState) -> np.ndarray:
        (h,) = [h for h in render_frame(sc, state)[1]["hands"] if h["hand"] == "blue"]
        assert not h["carrying"]
        return np.array(h["box"])

    release = TableState(2.0, _empty(), [FoundationState(0, [("AC", "blue")])],
                         in_flight=[InFlight(("2C",), "blue", Slot("waste", "blue"), Slot("foundation", None, 0), 1.0)])
    (held,) = [h for h in render_frame(sc, release)[1]["hands"] if h["hand"] == "blue"]
    going = [box(TableState(2.0, _empty(), pile, withdrawing=[Withdrawing("blue", Slot("foundation", None, 0), "2C", p)]))
             for p in (0.0, 0.5, 1.0)]
    rest = box(TableState(2.0, _empty(), pile, idle_hands=["blue"]))
    assert np.abs(going[0] - np.array(held["box"])).max() < 12  # pixels
    assert np.abs(going[2] - rest).max() < 12
    centre = [(b[:2] + b[2:]) / 2 for b in going]
    assert np.linalg.norm(centre[1] - centre[0]) > 10 and np.linalg.norm(centre[2] - centre[1]) > 10


def test_same_seed_same_frame_and_labels():
    lay = _empty()
    lay["red"].work[0] = ["9D", "8S"]
    st = TableState(1.0, lay, [FoundationState(0, [("AC", "blue")])], idle_hands=["blue"])
    a = make_scene(P2, 7, SMALL, design="placeholder")
    b = make_scene(P2, 7, SMALL, design="placeholder")
    fa, la = render_frame(a, st)
    fb, lb = render_frame(b, st)
    assert np.array_equal(fa, fb) and la == lb
    fa2, _ = render_frame(a, st)  # cached static layer gives the same frame
    assert np.array_equal(fa, fa2)
    c = make_scene(P2, 8, SMALL, design="placeholder")
    fc, _ = render_frame(c, st)
    assert not np.array_equal(fa, fc)


@pytest.mark.parametrize("res", [(1280, 720), (1920, 1080)])
def test_webcam_resolutions(res):
    sc = make_scene(P2, 3, res, design="placeholder", clutter=False, surface="felt")
    lay = _empty()
    lay["blue"].nertz = ["3H", "QS"]
    frame, labels = render_frame(sc, TableState(0.0, lay))
    assert frame.shape == (res[1], res[0], 3)
    assert [c["card"] for c in labels["cards"]] == ["QS"]
    assert sc.fps == 30


@pytest.mark.parametrize("tilt", [0.0, 17.5, 35.0])
def test_tilt_range_keeps_the_table_in_view(tilt):
    from nertz.datasets.geometry import card_corners

    sc = _scene(tilt_deg=tilt, fill=0.95)
    assert sc.camera.tilt_deg == tilt
    tf = sc.table_file()
    assert set(tf["zones"]) == {"red", "blue"} and [p["name"] for p in tf["players"]] == ["red", "blue"]
    shared = np.array(tf["shared_area"])
    # every slot of each row (Nertz pile ... stock) and the shared area are in the frame
    slots = [Slot(k, n, i) for n, _ in P2 for k, i in
             [("nertz", 0), ("work", 0), ("work", 3), ("waste", 0), ("stock", 0)]]
    rows = sc.camera.project(card_corners(np.array([sc.geometry.pose(sl) for sl in slots])))
    pts = np.vstack([shared, rows.reshape(-1, 2)])
    assert pts[:, 0].min() >= -1 and pts[:, 0].max() <= 321
    assert pts[:, 1].min() >= -1 and pts[:, 1].max() <= 181


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_two_to_six_players(n):
    names = ["p%d" % i for i in range(n)]
    players = [(nm, "#%02x%02x%02x" % (40 * i, 200 - 30 * i, 90)) for i, nm in enumerate(names)]
    sc = make_scene(players, 11 + n, SMALL, design="placeholder", clutter=False)
    lay = {nm: LayoutState(nertz=["AS", "KH"], work=[["QC"], ["JD"], [], ["9S"]],
                           stock=["2C"] * 3, waste=["5D"]) for nm in names}
    st = TableState(3.0, lay, [FoundationState(i, [("A" + "SHDC"[i % 4], names[i % n])])
                               for i in range(2 * n)],
                    in_flight=[InFlight(("4H",), names[0], Slot("work", names[0], 2),
                                        Slot("foundation", None, 0), 0.4)],
                    idle_hands=names[1:])
    frame, labels = render_frame(sc, st)
    assert frame.shape == (180, 320, 3)
    owners = {c["owner"] for c in labels["cards"]}
    assert owners <= set(names) and len(owners) == n
    # zones do not overlap each other or the shared area (in table mm)
    g = sc.geometry
    polys = [g.zone_polygon(nm).astype(np.float32) for nm in names] + [g.shared.astype(np.float32)]
    for i in range(len(polys)):
        for j in range(i + 1, len(polys)):
            area, _ = cv2.intersectConvexConvex(polys[i], polys[j])
            assert area < 1.0, (n, i, j, area)


def test_bad_input_is_refused_with_a_message():
    with pytest.raises(ValueError, match="2 to 6"):
        make_scene([("a", "#000000")], 1, SMALL)
    with pytest.raises(ValueError, match="rrggbb"):
        make_scene([("a", "red"), ("b", "#000000")], 1, SMALL)
    sc = _scene()
    with pytest.raises(ValueError, match="not one of the scene's players"):
        render_frame(sc, TableState(0.0, {"zed": LayoutState()}))


def test_sample_points_cover_card_and_corners():
    pts, nb, nc = card_sample_points()
    assert pts.shape == (nb + 2 * nc, 2) and pts.min() >= 0 and pts.max() <= 1
    tl = pts[nb:nb + nc]
    assert tl[:, 0].max() < 0.2 and tl[:, 1].max() < 0.2  # top-left index corner


def test_visible_fraction_matches_the_pixels_the_card_changes():
    """Render with and without a card that an idle hand partly covers: the pixels that change
    lie on the card's quad, and their share of the quad is the labelled visible fraction."""
    sc = _scene(res=(640, 360), tilt_deg=20.0, seed=4)
    found = None
    for t in np.arange(0.0, 12.0, 0.4):
        lay = _empty()
        lay["red"].waste = ["KD"]
        lay["red"].stock = ["AS"]
        st = TableState(float(t), lay, idle_hands=["red"])
        frame, labels = render_frame(sc, st)
        kd = [c for c in labels["cards"] if c["card"] == "KD"]
        if kd and 0.15 < kd[0]["visible"] < 0.9:
            found = (st, frame, kd[0])
            break
    assert found is not None, "the idle hand never covered the waste card in 12 s"
    st, frame, kd = found
    st.layouts["red"].waste = []
    without, _ = render_frame(sc, st)
    changed = np.abs(frame.astype(int) - without.astype(int)).max(axis=2) > 12
    quad = np.array(kd["quad"], np.float32)
    inside = np.zeros(changed.shape, np.uint8)
    cv2.fillConvexPoly(inside, np.round(quad * 16).astype(np.int32), 1, cv2.LINE_8, 4)
    grown = cv2.dilate(inside, np.ones((5, 5), np.uint8))  # contact shadow just outside
    assert changed[grown == 0].sum() == 0
    share = changed[inside == 1].sum() / inside.sum()
    assert share == pytest.approx(kd["visible"], abs=0.07)


def test_points_far_outside_the_view_never_fold_back_into_the_frame():
    from nertz.datasets.camera import Camera

    sc = _scene(tilt_deg=0.0)
    c = sc.camera
    barrel = Camera(c.width, c.height, c.K, np.array([-0.2, 0.0, 0.0, 0.0, 0.0]), c.R, c.t,
                    c.tilt_deg, c.fov_deg)  # this polynomial folds back at r ~ 1.29
    centre = barrel.pixels_to_table(np.array([[c.K[0, 2], c.K[1, 2]]]))[0]
    for direction in ([1.0, 0.0], [0.0, 1.0], [-0.7, 0.7]):
        pts = centre + np.linspace(0, 6000, 400)[:, None] * np.array(direction)
        uv = barrel.project(pts)
        radius = np.linalg.norm(uv - c.K[:2, 2], axis=1)
        assert np.all(np.diff(radius) > 0)
    # inside the view it is OpenCV's model exactly
    rvec, _ = cv2.Rodrigues(barrel.R)
    inner = barrel.pixels_to_table(np.array([[10.0, 10.0], [160.0, 90.0], [300.0, 170.0]]))
    ref, _ = cv2.projectPoints(np.column_stack([inner, np.zeros(3)]), rvec, barrel.t, barrel.K, barrel.dist)
    assert np.allclose(barrel.project(inner), ref.reshape(-1, 2), atol=1e-6)


@pytest.mark.parametrize("seed", range(6))
def test_drawn_lenses_map_the_whole_frame(seed):
    sc = make_scene(P2, 100 + seed, SMALL, design="placeholder", surface="uniform", clutter=False,
                    fov_deg=78.0)
    w, h = SMALL
    border = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1], [w / 2, 0], [0, h / 2]], float)
    back = sc.camera.project(sc.camera.pixels_to_table(border))
    assert np.allclose(back, border, atol=0.05)
