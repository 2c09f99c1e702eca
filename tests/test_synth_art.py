"""Card art of the synthetic data engine (nertz.datasets.art).

Tests marked as needing the art cache FAIL (not skip) when it is missing: CI runs
``datasets/fetch_art.sh`` first. The back-generation tests need no art.
"""

from __future__ import annotations

import itertools
from collections import Counter

import cv2
import numpy as np
import pytest

from nertz.datasets import art
from nertz.referee.errors import NertzError

SIZE = (60, 84)  # small backs keep the tests fast


def _mean_lab(img: np.ndarray) -> np.ndarray:
    """Mean CIELAB (OpenCV float scale: L 0..100, a/b about -127..127) of the opaque pixels."""
    inside = img[..., 3] == 255
    bgr = img[..., :3][inside].reshape(-1, 1, 3).astype(np.float32) / 255.0
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2Lab).reshape(-1, 3).mean(axis=0)


def _corners_transparent(img: np.ndarray) -> None:
    h, w = img.shape[:2]
    for y, x in ((0, 0), (0, w - 1), (h - 1, 0), (h - 1, w - 1)):
        assert img[y, x, 3] == 0, f"corner pixel ({x}, {y}) has alpha {img[y, x, 3]}"
    # a little further in along the diagonal is still outside the rounded outline
    r = art.CORNER_RADIUS_MM * w / art.CARD_MM[0]
    k = int(r * 0.2)
    assert img[k, k, 3] == 0 and img[h - 1 - k, w - 1 - k, 3] == 0
    # the middle of each edge is inside
    assert img[2, w // 2, 3] >= 200 and img[h // 2, 2, 3] >= 200


# ------------------------------------------------------------------------------------------
# backs: no art needed


@pytest.mark.parametrize("style", [s for s in art.BACK_STYLES if s != "printed"])
def test_make_back_shape_corners_and_colour(style: str) -> None:
    img = art.make_back(style, ["#1e4bb3"], seed=3, size=SIZE)
    assert img.shape == (SIZE[1], SIZE[0], 4) and img.dtype == np.uint8
    _corners_transparent(img)
    # the registered colour is the dominant one: most opaque pixels are nearer to it than to
    # white (at a size where the pattern is resolved)
    ink = np.array(art.hex_to_bgr("#1e4bb3"), np.int32)
    for seed in range(6):
        img = art.make_back(style, ["#1e4bb3"], seed=seed, size=(120, 168))
        px = img[..., :3][img[..., 3] == 255].astype(np.int32)
        d_ink = np.abs(px - ink).sum(axis=1)
        d_white = np.abs(px - 255).sum(axis=1)
        assert (d_ink < d_white).mean() > 0.5, (style, seed)


def test_make_back_is_deterministic_and_seed_dependent() -> None:
    for style in ("diamonds", "stripes", "checks", "dots", "ornate", None):
        a = art.make_back(style, "#b3261e", seed=11, size=SIZE)
        b = art.make_back(style, "#b3261e", seed=11, size=SIZE)
        assert np.array_equal(a, b)
    differ = [not np.array_equal(art.make_back("ornate", "#b3261e", s, SIZE),
                                 art.make_back("ornate", "#b3261e", 1000 + s, SIZE))
              for s in range(4)]
    assert any(differ)


def test_make_back_bad_input_is_a_clear_error() -> None:
    with pytest.raises(art.ArtError, match="unknown back style"):
        art.make_back("plaid", "#b3261e", 0, SIZE)
    with pytest.raises(art.ArtError, match="#rrggbb"):
        art.make_back("solid", "red", 0, SIZE)
    with pytest.raises(NertzError, match="size"):
        art.make_back("solid", "#b3261e", 0, (0, 10))


def test_back_palette_distinct_in_cielab() -> None:
    """Every table's backs differ in mean CIELAB colour, hard pairs included (red vs orange,
    navy vs black); the drawn backs match the palette's registered colours."""
    worst = np.inf
    for seed in range(12):
        for n in (2, 4, 6):
            pal = art.back_palette(n, seed)
            names = [p[0] for p in pal]
            assert len(pal) == n and len(set(names)) == n
            assert all(art.PALETTE[name] == hexc for name, hexc, _ in pal)
            labs = []
            for k, (_, hexc, style) in enumerate(pal):
                if style == "printed":  # needs the art cache; tested below
                    style = "ornate"
                labs.append(_mean_lab(art.make_back(style, [hexc], seed * 10 + k, SIZE)))
            for a, b in itertools.combinations(labs, 2):
                worst = min(worst, float(np.linalg.norm(a - b)))
    assert worst > 8.0, f"two backs at one table differ by only dE {worst:.1f}"


def test_back_palette_hard_pairs() -> None:
    hard = [set(p) for p in art.HARD_PAIRS]
    with_pairs = sum(any(p <= {c for c, _, _ in art.back_palette(4, s)} for p in hard)
                     for s in range(40))
    assert 5 <= with_pairs <= 35  # sometimes, not always
    for s in range(40):
        names = {c for c, _, _ in art.back_palette(4, s, hard_pairs=False)}
        assert not any(p <= names for p in hard)
        # a hard pair shares its style, so only the colour tells it apart
        pal = {c: st for c, _, st in art.back_palette(6, s)}
        for a, b in art.HARD_PAIRS:
            if a in pal and b in pal:
                assert pal[a] == pal[b]
    assert art.back_palette(3, 7) == art.back_palette(3, 7)
    with pytest.raises(art.ArtError):
        art.back_palette(0, 1)


def test_corner_alpha() -> None:
    m = art.corner_alpha((240, 335))
    assert m.shape == (335, 240) and m.dtype == np.uint8
    assert m[0, 0] == 0 and m[167, 120] == 255 and m[0, 120] == 255


def test_missing_art_is_a_clear_error(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("NERTZ_ART_DIR", str(tmp_path / "nothing"))
    with pytest.raises(art.ArtMissingError, match="fetch_art.sh"):
        art.list_designs()
    with pytest.raises(NertzError, match="fetch_art.sh"):
        art.load_deck("ais-anglo")
    with pytest.raises(art.ArtMissingError):
        art.make_back("printed", "#b3261e", 0, SIZE)
    # without art, random styles never pick "printed" and palettes still work
    assert art.make_back(None, "#b3261e", 5, SIZE).shape == (SIZE[1], SIZE[0], 4)
    assert all(st != "printed" for s in range(20) for _, _, st in art.back_palette(4, s))


# ------------------------------------------------------------------------------------------
# faces: need the art cache (datasets/fetch_art.sh)


@pytest.fixture(scope="module")
def designs() -> list[str]:
    try:
        names = art.list_designs()
    except art.ArtMissingError as exc:
        pytest.fail(f"card art cache missing: {exc}")
    if not names:
        pytest.fail(f"card art cache at {art.art_dir()} lists no design: run "
                    "`bash datasets/fetch_art.sh --force`")
    return names


def test_enough_designs_with_several_index_languages(designs: list[str]) -> None:
    assert len(designs) >= 8
    langs = Counter(art.design_info(d)["index"] for d in designs)
    assert langs["en"] >= 8
    assert langs["fr"] >= 1 and langs["de"] >= 1 and langs["ru"] >= 1
    assert len(art.list_designs(novelty=False)) >= 8
    assert set(art.list_designs(novelty=False)) < set(designs)


def test_every_design_has_52_distinct_faces_of_one_shape(designs: list[str]) -> None:
    """All faces of all designs (one pass over the cache, which is the slow part)."""

    def redness(face: np.ndarray) -> float:
        f = face.astype(np.float32)
        return float((f[..., 2] - (f[..., 0] + f[..., 1]) / 2).mean())

    for d in designs:
        deck = art.load_deck(d)
        faces = {c: f for c, f in deck.items() if c != "JK"}
        assert sorted(faces) == sorted(art.CARDS), d
        for c, f in deck.items():
            assert f.shape == (art.CARD_SIZE[1], art.CARD_SIZE[0], 4), (d, c)
            assert f.dtype == np.uint8
            assert not f.flags.writeable
            _corners_transparent(f)
            # the card itself is opaque (its middle) and not blank
            h, w = f.shape[:2]
            assert (f[h // 4:3 * h // 4, w // 4:3 * w // 4, 3] == 255).mean() > 0.99, (d, c)
            assert f[..., :3][f[..., 3] == 255].std() > 10, (d, c)
        # every card is drawn differently: a crop that picked the wrong cell would repeat one
        digests = {f.tobytes() for f in faces.values()}
        assert len(digests) == 52, d
        # hearts and diamonds carry more red than spades and clubs (catches a row cropped
        # from the wrong suit); kde-oxygen draws black suits on black, red on red
        if d != "kde-oxygen":
            for r in "2345678":
                assert redness(deck[r + "H"]) > redness(deck[r + "S"]) + 1, (d, r)
                assert redness(deck[r + "D"]) > redness(deck[r + "C"]) + 1, (d, r)


def test_load_face_sizes_and_errors(designs: list[str]) -> None:
    d = designs[0]
    f = art.load_face(d, "7H", (126, 176))
    assert f.shape == (176, 126, 4)
    _corners_transparent(f)
    assert art.load_face(d, "7H") is art.load_face(d, "7H")  # cached
    with pytest.raises(art.ArtError, match="unknown card design"):
        art.load_face("no-such-design", "7H")
    for bad in ("1S", "7X", "", "7h", None):
        with pytest.raises(art.ArtError, match="not a card"):
            art.load_face(d, bad)  # type: ignore[arg-type]
    jokerless = [x for x in designs if "JK" not in art.design_info(x)["cards"]]
    if jokerless:
        assert "JK" not in art.load_deck(jokerless[0])
        with pytest.raises(art.ArtError, match="has no JK"):
            art.load_face(jokerless[0], "JK")


def test_printed_backs_and_contact_sheet(designs: list[str], tmp_path) -> None:
    imgs = [art.make_back("printed", ["#1b2a4a"], s, SIZE) for s in range(3)]
    for img in imgs:
        assert img.shape == (SIZE[1], SIZE[0], 4)
        _corners_transparent(img)
    assert np.array_equal(imgs[0], art.make_back("printed", ["#1b2a4a"], 0, SIZE))
    out = art.contact_sheet(tmp_path / "sheet.png", designs[:2], size=(40, 56))
    sheet = cv2.imread(str(out))
    assert sheet is not None and sheet.shape[0] > 2 * 56
