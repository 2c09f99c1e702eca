"""The round audit (vision/audit.py) on rendered audit scenes (datasets/audit_scenes.py).

Kept small: two 1920x1080 scenes of two players with a few rows each (the counting is
measured on many scenes by ``python -m nertz.vision.audit_eval``, not here).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from nertz.datasets.audit_scenes import make_audit_scene
from nertz.vision.audit import AuditError, AuditResult, audit, audit_command, audit_frames

# scenes whose rows the audit counts exactly: seeds 2 and 8 were picked among seeds 0-11 of
# this configuration, of which the audit gets 4 exact (2, 3, 8, 10); the others are off by
# one card or more. These tests guard against regressions; accuracy is measured by
# ``python -m nertz.vision.audit_eval``.
SMALL = dict(resolution=(1920, 1080), n_players=2, max_per_player=8, arrangements=("row",),
             hands=False, extras=False)


@pytest.fixture(scope="module")
def scenes():
    return {s: make_audit_scene(s, **SMALL) for s in (2, 3, 8)}


def _cli() -> typer.Typer:
    app = typer.Typer()
    app.command()(audit_command)
    return app


def test_scene_truth_matches_its_labels(scenes):
    sc = scenes[2]
    backs = Counter(c["owner"] for c in sc.labels["cards"] if not c["face_up"])
    want = Counter({p: sc.truth.shared[p] + sc.truth.zones[p] for p in sc.truth.shared})
    assert +backs == +want
    assert sum(len(o) for _, o in sc.truth.groups) == sum(sc.truth.shared.values())
    assert {p["name"] for p in sc.table["players"]} == set(sc.truth.shared)
    # the table file's regions are image polygons
    assert len(sc.table["shared_area"]) >= 4 and set(sc.table["zones"]) == set(sc.truth.zones)


def test_scene_is_deterministic(scenes):
    again = make_audit_scene(8, **SMALL)
    assert again.truth.to_dict() == scenes[8].truth.to_dict()
    assert np.array_equal(again.frame, scenes[8].frame)


@pytest.mark.parametrize("seed", [2, 8])
def test_audit_counts_rendered_rows(scenes, seed):
    sc = scenes[seed]
    res = audit(sc.frame, sc.table, method="classical")
    assert res.counts == sc.truth.shared
    assert {p: res.zones.get(p, {}).get(p, 0) for p in sc.truth.zones} == sc.truth.zones
    assert res.unknown == 0
    assert len(res.strips) == sum(sc.truth.shared.values()) + sum(sc.truth.zones.values())
    drawn = res.draw(sc.frame)
    assert drawn.shape == sc.frame.shape and not np.array_equal(drawn, sc.frame)


def test_several_frames_take_the_median(scenes):
    sc = scenes[8]
    blank = np.full_like(sc.frame, 90)
    res = audit_frames([sc.frame, sc.frame, blank], sc.table, method="classical")
    assert res.counts == sc.truth.shared


def test_json_line_format(scenes, tmp_path):
    sc = scenes[8]
    img, tab = tmp_path / "audit.png", tmp_path / "table.json"
    cv2.imwrite(str(img), sc.frame)
    tab.write_text(json.dumps(sc.table))
    r = CliRunner().invoke(_cli(), [str(img), "--table", str(tab), "--json", "--method", "classical"])
    assert r.exit_code == 0, r.output
    last = json.loads(r.output.strip().splitlines()[-1])
    assert last["type"] == "audit"
    assert last["counts"] == sc.truth.shared
    assert isinstance(last["unknown"], int) and isinstance(last["face_up"], int)
    assert set(last["zones"]) == set(sc.truth.zones)
    line = AuditResult({"a": 1}, {}, 2, 0).json_line()
    assert line == {"type": "audit", "counts": {"a": 1}, "unknown": 2, "face_up": 0, "zones": {}}
    # without --json: a readable report
    r2 = CliRunner().invoke(_cli(), [str(img), "--table", str(tab), "--out", str(tmp_path / "drawn.png")])
    assert r2.exit_code == 0 and "Shared area" in r2.output
    assert cv2.imread(str(tmp_path / "drawn.png")).shape == sc.frame.shape
    # an --out OpenCV cannot write: a clear error before counting (test below)
    r3 = CliRunner().invoke(_cli(), [str(img), "--table", str(tab), "--out", str(tmp_path / "drawn.txt")])
    assert r3.exit_code == 2 and "Shared area" not in r3.output and "no image format" in r3.output


def test_image_without_cards_is_a_clear_error(scenes, tmp_path):
    sc = scenes[8]
    rng = np.random.default_rng(0)
    noise = cv2.GaussianBlur(rng.integers(90, 140, (1080, 1920, 3), dtype=np.uint8), (0, 0), 3)
    with pytest.raises(AuditError, match="no face-down card"):
        audit(np.full((1080, 1920, 3), 128, np.uint8), sc.table)
    img, tab = tmp_path / "empty.png", tmp_path / "table.json"
    cv2.imwrite(str(img), noise)
    tab.write_text(json.dumps(sc.table))
    r = CliRunner().invoke(_cli(), [str(img), "--table", str(tab), "--json"])
    assert r.exit_code == 2
    assert "error:" in r.output and "Traceback" not in r.output


def test_bad_inputs_are_clear_errors(scenes, tmp_path):
    sc = scenes[8]
    far = dict(sc.table, shared_area=[[5000, 5000], [5100, 5000], [5100, 5100]], zones={})
    with pytest.raises(AuditError, match="shared area"):
        audit(sc.frame, far)
    half = cv2.resize(sc.frame, None, fx=0.5, fy=0.5)  # the table file is the full-size camera's
    unsized = {k: v for k, v in sc.table.items() if k != "calibration"}  # ... and does not say so
    with pytest.raises(AuditError, match="outside this 960x540 image"):
        audit(half, unsized)
    with pytest.raises(AuditError):
        audit(np.zeros((10, 10), np.uint8), sc.table)
    tab = tmp_path / "table.json"
    tab.write_text(json.dumps(sc.table))
    r = CliRunner().invoke(_cli(), [str(tmp_path / "missing.png"), "--table", str(tab)])
    assert r.exit_code == 2 and "error:" in r.output
    r = CliRunner().invoke(_cli(), [str(tmp_path / "missing.png")])
    assert r.exit_code == 2 and "--table" in r.output
    r = CliRunner().invoke(_cli(), [])  # nothing to count comes first
    assert r.exit_code == 2 and "IMAGE or --source" in r.output
    r = CliRunner().invoke(_cli(), [str(tmp_path), "--table", str(tab)])  # a folder: --source is meant
    assert r.exit_code == 2 and f"--source {tmp_path}" in r.output
    clip = Path(__file__).resolve().parent.parent / "datasets" / "samples" / "round-3p" / "clip.mp4"
    r = CliRunner().invoke(_cli(), [str(clip), "--table", str(tab)])  # a video: --source is meant too
    assert r.exit_code == 2 and "a video, not a photo" in r.output and f"--source {clip}" in r.output
    (tmp_path / "noise.png").write_bytes(b"not an image")
    r = CliRunner().invoke(_cli(), [str(tmp_path / "noise.png"), "--table", str(tab)])
    assert r.exit_code == 2 and "not an image OpenCV can read" in r.output


# ------------------------------------------------------------------------------------------
# the learned strip detector (vision/audit_strips.py, datasets/audit_export.py)
def test_strip_owners_reads_the_middle_of_each_strip():
    from nertz.vision.audit_strips import strip_owners

    lab = np.zeros((100, 200), np.uint8)
    lab[:, :100] = 1
    lab[:, 100:150] = 2
    q = np.array([[[10, 10], [90, 10], [90, 90], [10, 90]],
                  [[105, 10], [145, 10], [145, 90], [105, 90]],
                  [[155, 10], [195, 10], [195, 90], [155, 90]]], np.float32)
    assert strip_owners(q, lab).tolist() == [1, 2, 0]


def test_strip_owners_reads_a_heap_card_on_its_own_pixels():
    from nertz.vision.audit_strips import own_pixels, strip_owners

    # a card of player 2 (x 20..140) under a card of player 1 (x 70..200): the lower card's box
    # is its whole quad, and its middle lies mostly on the card above
    lab = np.zeros((120, 220), np.uint8)
    lab[10:110, 20:140] = 2
    lab[10:110, 70:200] = 1
    q = np.array([[[20, 10], [140, 10], [140, 110], [20, 110]],
                  [[70, 10], [200, 10], [200, 110], [70, 110]]], np.float32)
    assert strip_owners(q, lab, own_aspect=None).tolist() == [1, 1]  # the middle alone
    assert strip_owners(q, lab).tolist() == [2, 1]
    x0, y0, m = own_pixels(q, 0, lab.shape)
    ys, xs = np.nonzero(m)
    assert (xs + x0).max() < 70 and len(xs) > 100  # left of the upper card only
    # a thin strip (a row's, a fan's wedge) keeps its middle
    thin = np.array([[[20, 10], [44, 10], [44, 110], [20, 110]], [[30, 10], [140, 10], [140, 110], [30, 110]]],
                    np.float32)
    lab2 = np.zeros((120, 200), np.uint8)
    lab2[10:110, 20:44] = 2
    lab2[10:110, 30:140] = 1
    assert strip_owners(thin, lab2).tolist()[1] == 1


def test_unknown_method_is_a_clear_error(scenes):
    sc = scenes[8]
    with pytest.raises(AuditError, match="method"):
        audit(sc.frame, sc.table, method="magic")


def test_audit_strip_set_labels(tmp_path):
    from nertz.datasets.audit_export import write_audit_dataset

    with pytest.raises(ValueError, match="10000"):
        write_audit_dataset(60, 9995, tmp_path / "bad")
    y = write_audit_dataset(2, 3, tmp_path / "set", imgsz=160, crops_per_scene=2, small_p=1.0)
    assert y.is_file() and "back" in y.read_text()
    labels = sorted((tmp_path / "set" / "labels").rglob("*.txt"))
    images = sorted((tmp_path / "set" / "images").rglob("*.jpg"))
    assert len(labels) == len(images) == 2
    rows = [ln.split() for f in labels for ln in f.read_text().splitlines()]
    assert rows and all(len(r) == 9 and r[0] in "012" for r in rows)
    v = np.array([r[1:] for r in rows], float)
    assert v.min() >= 0.0 and v.max() <= 1.0
    assert cv2.imread(str(images[0])).shape == (160, 160, 3)
    again = write_audit_dataset(2, 3, tmp_path / "again", imgsz=160, crops_per_scene=2, small_p=1.0)
    assert [f.read_text() for f in sorted((again.parent / "labels").rglob("*.txt"))] == \
        [f.read_text() for f in labels]
    with pytest.raises(ValueError, match="arrangements"):
        write_audit_dataset(2, 3, tmp_path / "bad2", arrangements=("pile",))
    fans = write_audit_dataset(1, 3, tmp_path / "fans", imgsz=160, crops_per_scene=1, small_p=1.0,
                               arrangements=("fan",))
    assert "arrangements fan" in fans.read_text()


@pytest.mark.parametrize("seed", [3, 8])
def test_learned_audit_counts_rendered_rows(scenes, seed):
    # the shipped strip detector (models/audit_strips.onnx, 2026-12-04) gets 8 of seeds 0-11 of
    # this configuration exact (0, 1, 3, 5, 8, 9, 10, 11; the one before: 2, 3, 4, 5, 8, 10);
    # measured on many scenes by audit_eval
    from nertz.vision.audit_strips import STRIPS_ONNX

    if not STRIPS_ONNX.is_file():
        pytest.skip("models/audit_strips.onnx is not shipped")
    sc = scenes[seed]
    res = audit(sc.frame, sc.table, method="learned")
    assert res.counts == sc.truth.shared
    assert {p: res.zones.get(p, {}).get(p, 0) for p in sc.truth.zones} == sc.truth.zones
    assert {s.how for s in res.strips} == {"model"}
    assert audit(sc.frame, sc.table).counts == res.counts  # auto is the learned count


def test_methods_without_the_model(scenes, monkeypatch, tmp_path):
    import nertz.vision.audit as A

    monkeypatch.setattr(A, "STRIPS_ONNX", tmp_path / "missing.onnx")
    assert A._resolve_method("auto", None) == "classical"
    sc = scenes[8]
    with pytest.raises(AuditError, match="strip detector"):
        audit(sc.frame, sc.table, method="learned")
    assert audit(sc.frame, sc.table).counts == sc.truth.shared  # auto: the classical count


def _lab_to_bgr(lab) -> np.ndarray:
    px = np.array([[lab]], np.float32)
    return np.clip(np.round(cv2.cvtColor(px, cv2.COLOR_LAB2BGR)[0, 0] * 255), 0, 255).astype(np.uint8)


def test_owner_gain_backs_off_a_white_balance_that_shifts_the_backs():
    """A pale orange back next to a gold one (as in dev scene 10): the full white balance
    (gain measured on warm pattern tints) turns the orange toward gold; the owner reading
    chooses a weaker correction under which both read as their own colour."""
    from nertz.referee.table import hex_to_lab
    from nertz.vision.audit import OWNER_GAIN_STEPS, STRIP_DELTA, _bins, _colour_lut, _owner_gain
    from nertz.vision.audit_strips import strip_owners

    img = np.full((60, 120, 3), 90, np.uint8)
    img[5:55, 5:55] = _lab_to_bgr((75.0, 24.0, 42.0))   # the orange back as photographed
    img[5:55, 65:115] = _lab_to_bgr((77.0, 3.0, 55.0))  # the gold back
    quads = np.array([[[5, 5], [55, 5], [55, 55], [5, 55]], [[65, 5], [115, 5], [115, 55], [65, 55]]],
                     np.float32)
    labs = np.array([hex_to_lab("#e8731a"), hex_to_lab("#c9a227")], np.float64)  # orange, gold
    wb = np.array([1.2144703, 1.1809045, 1.0217391], np.float32)  # B G R, measured on scene 10

    def owners(gain):
        k, d = _colour_lut(labs)
        lab = np.where(d <= STRIP_DELTA, k + 1, 0).astype(np.uint8)[
            _bins(np.clip(img * gain, 0, 255).astype(np.uint8))]
        return strip_owners(quads, lab).tolist()

    assert owners(wb) == [2, 2]  # the full white balance reads the orange back as gold
    g = _owner_gain(img, quads, labs, wb)
    expo = float(np.exp(np.log(wb.astype(np.float64)).mean()))
    assert np.isclose(float(np.exp(np.log(g.astype(np.float64)).mean())), expo, rtol=1e-4)  # exposure kept
    assert not np.allclose(g, wb) and 0.0 in OWNER_GAIN_STEPS
    assert owners(g) == [1, 2]
    # nothing to correct by: no gain measured, or no strips
    assert np.allclose(_owner_gain(img, quads, labs, None), 1.0)
    assert np.allclose(_owner_gain(img, quads[:0], labs, wb), wb)


def _patches(colours):
    """Solid square strips of the given CIELAB colours side by side on grey: the image and
    their quads."""
    img = np.full((60, 60 * len(colours), 3), 90, np.uint8)
    quads = []
    for i, c in enumerate(colours):
        img[5:55, 60 * i + 5:60 * i + 55] = _lab_to_bgr(c)
        quads.append([[60 * i + 5, 5], [60 * i + 55, 5], [60 * i + 55, 55], [60 * i + 5, 55]])
    return img, np.array(quads, np.float32)


def _owners_under(img, quads, labs, gain):
    from nertz.vision.audit import STRIP_DELTA, _bins, _colour_lut
    from nertz.vision.audit_strips import strip_owners

    k, d = _colour_lut(labs)
    lab = np.where(d <= STRIP_DELTA, k + 1, 0).astype(np.uint8)[_bins(np.clip(img * gain, 0, 255).astype(np.uint8))]
    return strip_owners(quads, lab).tolist()


def test_owner_gain_refines_the_light_colour_from_several_strips():
    """Three strips of each back (the inks' search): the over-correcting white balance of
    dev scene 10 reads the pale orange as gold; the correction found reads both right."""
    from nertz.referee.table import hex_to_lab
    from nertz.vision.audit import _owner_gain

    img, quads = _patches([(75.0, 24.0, 42.0)] * 3 + [(77.0, 3.0, 55.0)] * 3)
    labs = np.array([hex_to_lab("#e8731a"), hex_to_lab("#c9a227")], np.float64)  # orange, gold
    wb = np.array([1.2144703, 1.1809045, 1.0217391], np.float32)
    assert _owners_under(img, quads, labs, wb) == [2] * 6
    g = _owner_gain(img, quads, labs, wb)
    assert np.isclose(np.exp(np.log(g.astype(np.float64)).mean()), np.exp(np.log(wb.astype(np.float64)).mean()),
                      rtol=1e-4)  # exposure kept
    assert _owners_under(img, quads, labs, g) == [1] * 3 + [2] * 3


def test_owner_gain_keeps_two_decks_apart(monkeypatch):
    """Greyed inks of an orange, a red and a purple deck (as measured in dev scene 5): a
    light correction toward magenta would put the orange inks on the pale end of red's
    colour, nearer on average; the inks' spread term keeps each deck on its own colour."""
    import nertz.vision.audit as audit_mod
    from nertz.referee.table import hex_to_lab

    labs = np.array([hex_to_lab(h) for h in ("#e8731a", "#b3261e", "#6a2c91")], np.float64)
    img, quads = _patches([(59.4, 18.6, 33.4)] * 3 + [(33.9, 42.8, 27.7)] * 3 + [(40.1, 25.9, -25.4)] * 3)
    one = np.ones(3, np.float32)
    right = [1] * 3 + [2] * 3 + [3] * 3
    assert _owners_under(img, quads, labs, one) == right
    assert _owners_under(img, quads, labs, audit_mod._owner_gain(img, quads, labs, one)) == right
    monkeypatch.setattr(audit_mod, "OWNER_SPREAD_WEIGHT", 0.0)
    assert _owners_under(img, quads, labs, audit_mod._owner_gain(img, quads, labs, one)) != right


def test_strips_of_the_hands_colour_beside_a_hand_box_are_the_arm():
    """A light forearm beside the model's hand box reads as pale red backs (dev scene 14): a
    strip near the hand whose ink is the hand's colour is dropped; a red back beside the hand,
    and a skin-coloured strip far from any hand, are kept."""
    from nertz.referee.table import hex_to_lab
    from nertz.vision.audit import _skin_strips

    skin, red = (66.4, 29.4, 18.7), (45.0, 58.0, 38.0)
    img = np.full((200, 1000, 3), 120, np.uint8)

    def square(x, colour):
        img[50:100, x:x + 50] = _lab_to_bgr(colour)
        return [[x, 50], [x + 50, 50], [x + 50, 100], [x, 100]]

    hand = np.array([square(100, skin)], np.float32)
    quads = np.array([square(170, (72.9, 29.1, 21.4)), square(240, red), square(900, (72.9, 29.1, 21.4))],
                     np.float32)
    labs = np.array([hex_to_lab("#b3261e"), hex_to_lab("#e8731a")], np.float64)  # red, orange
    dropped = _skin_strips(img, quads, hand, labs, np.ones(3, np.float32), card_long=70.0)
    assert dropped.tolist() == [True, False, False]
    assert not _skin_strips(img, quads, hand[:0].reshape(0, 4, 2), labs, np.ones(3, np.float32), 70.0).any()


def test_learned_audit_drops_strips_on_a_hand(scenes):
    """Every back the model finds inside one of its hand boxes is dropped, whatever its colour
    (skin reads as an orange, brown or red back)."""
    sc = scenes[2]
    cards = [np.asarray(c["quad"], np.float32) for c in sc.labels["cards"] if not c["face_up"]]

    class Fake:
        def __init__(self, hand):
            self.hand = hand

        def __call__(self, image, box=None, card_long=None):
            q = np.stack(cards + ([self.hand] if self.hand is not None else []))
            cls = np.array([1] * len(cards) + ([2] if self.hand is not None else []), np.int64)
            return q, np.ones(len(q), np.float32), cls

    free = audit(sc.frame, sc.table, "learned", detector=Fake(None))
    c = cards[-1].mean(axis=0)  # a small hand box on the top card's centre only
    lo, hi = c - 4, c + 4
    hand = np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]], np.float32)
    covered = audit(sc.frame, sc.table, "learned", detector=Fake(hand))
    n_free = sum(free.counts.values()) + sum(sum(z.values()) for z in free.zones.values()) + free.unknown
    n_cov = sum(covered.counts.values()) + sum(sum(z.values()) for z in covered.zones.values()) + covered.unknown
    assert n_free == len(cards)
    assert n_cov == len(cards) - 1


def test_a_photo_taken_during_play_is_refused(tmp_path):
    # a frame of the bundled sample round mid-play: its foundations lie face up
    from pathlib import Path

    sample = Path(__file__).resolve().parent.parent / "datasets" / "samples" / "round-3p"
    cap = cv2.VideoCapture(str(sample / "clip.mp4"))
    cap.set(cv2.CAP_PROP_POS_FRAMES, 1200)
    ok, frame = cap.read()
    cap.release()
    assert ok
    img = tmp_path / "mid.png"
    cv2.imwrite(str(img), frame)
    r = CliRunner().invoke(_cli(), [str(img), "--table", str(sample / "table.json")])
    assert r.exit_code == 2 and "face-up cards in the shared area" in r.output and "Traceback" not in r.output


def test_the_face_up_check_of_several_frames_is_their_median_and_a_mid_play_video_is_refused(tmp_path):
    # frames of the bundled sample round mid-play (foundations face up) and blank ones
    from pathlib import Path

    from nertz.referee.table import Table
    from nertz.vision.audit import face_up_in_shared_area

    sample = Path(__file__).resolve().parent.parent / "datasets" / "samples" / "round-3p"
    table = Table.from_dict(json.loads((sample / "table.json").read_text()))
    cap = cv2.VideoCapture(str(sample / "clip.mp4"))
    cap.set(cv2.CAP_PROP_POS_FRAMES, 1200)
    ok, mid = cap.read()
    cap.release()
    assert ok
    blank = np.full_like(mid, 90)
    n = face_up_in_shared_area(mid, table)
    assert n > 5
    assert face_up_in_shared_area([blank, mid, mid], table) == n
    assert face_up_in_shared_area([mid, blank, blank], table) == 0
    folder = tmp_path / "frames"
    folder.mkdir()
    for k in range(3):
        cv2.imwrite(str(folder / f"f{k}.png"), mid)
    r = CliRunner().invoke(_cli(), ["--source", str(folder), "--table", str(sample / "table.json")])
    assert r.exit_code == 2 and "face-up cards in the shared area" in r.output and "Traceback" not in r.output


def test_a_face_down_spread_passes_the_face_up_check(scenes):
    from nertz.referee.table import Table
    from nertz.vision.audit import check_face_down

    sc = scenes[2]
    check_face_down(sc.frame, Table.from_dict(sc.table), audit(sc.frame, sc.table))


def test_a_photo_in_which_the_card_detector_finds_no_back_is_refused(scenes):
    # a photo of something else: the colour reading may count grain or card art of a back's
    # colour as backs (four face-up kings on a wooden table were counted 23 red backs, a
    # newcomer's report of 2026-12-07), but the card detector finds no face-down card there
    from nertz.referee.table import Table
    from nertz.vision.audit import check_face_down

    sc = scenes[2]
    table = Table.from_dict(sc.table)
    rng = np.random.default_rng(1)
    grain = np.full_like(sc.frame, (60, 90, 140))  # a brown table, BGR
    for y in rng.integers(0, grain.shape[0], 300):  # with streaks of the first player's back colour
        colour = tuple(int(c) for c in bytes.fromhex(table.players[0].back[1:])[::-1])
        cv2.line(grain, (0, int(y)), (grain.shape[1], int(y + rng.integers(-40, 40))), colour, 3)
    fake = AuditResult({p.name: 7 for p in table.players}, {}, 0, 0)
    with pytest.raises(AuditError, match="finds no face-down card"):
        check_face_down(grain, table, fake)


def test_a_photo_too_small_for_the_card_detector_is_refused_as_too_small():
    # a 320x180 photo of a round's end (cards about 9 px wide): the card detector finds no
    # back in it, and the refusal said "not a photo of the round's end" (a tester's report of
    # 2026-12-07); it says the photo is too small, and what size it must have
    from nertz.referee.table import Table
    from nertz.vision.audit import check_face_down

    sc = make_audit_scene(2, **{**SMALL, "resolution": (320, 180)})
    table = Table.from_dict(sc.table)
    with pytest.raises(AuditError, match="320x180 pixels.*too small.*640 pixels") as e:
        check_face_down(sc.frame, table, audit(sc.frame, table))
    assert "not a photo of the round's end" not in str(e.value)


def test_a_table_without_a_shared_area_is_refused(scenes, tmp_path):
    # a scoring-only table (datasets/examples/club-night/table.json: players and rules, no
    # regions) counted every back in the photo, the players' Nertz cards too, as foundations,
    # with no warning (a tester's report of 2026-12-07: red 67); it is refused, saying what to add
    sc = scenes[2]
    bare = {k: v for k, v in sc.table.items() if k not in ("shared_area", "zones")}
    with pytest.raises(AuditError, match="no shared area.*nertz calibrate"):
        audit(sc.frame, bare)
    img, tab = tmp_path / "end.png", tmp_path / "table.json"
    cv2.imwrite(str(img), sc.frame)
    tab.write_text(json.dumps(bare))
    r = CliRunner().invoke(_cli(), [str(img), "--table", str(tab), "--json"])
    assert r.exit_code == 2 and "error:" in r.output and "nertz calibrate" in r.output, r.output
    assert '"type": "audit"' not in r.output


def _wedge(pivot: np.ndarray, radius: float, deg: float, long: float = 30.0, short: float = 8.0) -> np.ndarray:
    """A thin box whose centre lies ``radius`` pixels from ``pivot`` at ``deg`` degrees, its long
    side along the radius (a fan wedge's found box)."""
    t = np.radians(deg)
    c = pivot + radius * np.array([np.cos(t), np.sin(t)])
    return cv2.boxPoints(((float(c[0]), float(c[1])), (long, short), float(deg))).astype(np.float32)


def test_fan_gaps_fill_a_missing_wedge_and_nothing_else():
    """A fan of 8 wedges 12 degrees apart with the 4th not found: the weak box in that gap is
    taken; weak boxes off the fan's circle, on a found wedge or beyond its ends are not."""
    from nertz.vision.audit import _fan_gaps

    pivot, radius, card = np.array([400.0, 300.0]), 40.0, 88.0
    angles = [200 + 12 * k for k in range(8)]
    found = np.stack([_wedge(pivot, radius, a) for k, a in enumerate(angles) if k != 3])
    weak = np.stack([_wedge(pivot, radius + 20, angles[3]),  # off the circle
                     _wedge(pivot, radius, angles[3] + 1),  # the missing wedge
                     _wedge(pivot, radius, angles[5]),  # a second box on a found wedge
                     _wedge(pivot, radius, angles[-1] + 12)])  # beyond the fan's end
    assert _fan_gaps(found, weak, card).tolist() == [1]
    # a row (centres on a line): no fan, nothing added
    row = np.stack([_wedge(np.array([100.0 + 15 * k, 500.0]), 0.0, 90) for k in range(8) if k != 3])
    assert _fan_gaps(row, np.stack([_wedge(np.array([145.0, 500.0]), 0.0, 90)]), card).tolist() == []


def test_strip_detector_weak_boxes_leave_the_found_strips_as_they_are(scenes):
    """``with_candidates`` runs the network once and returns what ``__call__`` returns, plus
    the weak back boxes (scores in [weak, conf)), best first."""
    from nertz.vision.audit_strips import StripDetector

    det = StripDetector()
    frame = scenes[8].frame
    q, s, c = det(frame)
    q2, s2, c2, wq, ws = det.with_candidates(frame, weak=0.1)
    assert np.array_equal(q, q2) and np.array_equal(s, s2) and np.array_equal(c, c2)
    assert len(wq) == len(ws) > 0 and wq.shape[1:] == (4, 2)
    assert (ws >= 0.1).all() and (ws < det.conf).all() and (np.diff(ws) <= 0).all()


def test_fan_gaps_fill_the_wedges_under_the_whole_top_card():
    """Six wedges found, 12 degrees apart, and the fan's whole top card, whose box direction
    says that its own wedge would lie 4 steps beyond the last one: the weak boxes of the three
    cards between are taken, not one beyond the top card's place."""
    from nertz.vision.audit import _fan_gaps

    pivot, radius, card = np.array([400.0, 300.0]), 50.0, 88.0
    wedges = [_wedge(pivot, radius, 200 + 12 * k) for k in range(6)]
    t = np.radians(308)
    top_c = pivot + 31 * np.array([np.cos(t), np.sin(t)])  # a card's centre: 0.35 card lengths out
    top = cv2.boxPoints(((float(top_c[0]), float(top_c[1])), (85.0, 60.0), 308.0)).astype(np.float32)
    found = np.stack(wedges + [top])
    weak = np.stack([_wedge(pivot, radius, a) for a in (272, 284, 296, 320)])
    assert _fan_gaps(found, weak, card).tolist() == [0, 1, 2]


def test_face_up_cards_left_in_the_shared_area_are_counted():
    """Dev scene 17 has a foundation of 5 cards left face up; the learned audit counts the strip
    detector's face boxes in the shared area (the bright-region count of the classical path
    found none of them). Stage 2 of the strip detector finds 5 of them, stage 3 4 and stage 4
    (2026-12-04, session 42) 3: it counts the backs better, faces no better (held-out scenes
    10420-10479: face-up count exact in 58 of 60 with stages 2 and 3, 56 with stage 4; scenes
    10520-10579: 58 of 60 with stages 3 and 4)."""
    sc = make_audit_scene(17, (1920, 1080))
    assert sc.truth.face_up == 5
    assert 3 <= audit(sc.frame, sc.table, "learned").face_up <= 5


def test_strips_without_any_white_are_no_unknown_backs():
    """A sleeve or a box is one flat colour; a card shows its white border or a pale pattern."""
    from nertz.vision.audit import _without_white

    img = np.full((120, 200, 3), (40, 90, 30), np.uint8)  # the cloth
    img[20:100, 20:60] = (170, 30, 110)  # a purple sleeve
    img[20:100, 120:170] = 255  # a card: white border ...
    img[26:94, 126:164] = (30, 160, 200)  # ... around its back's colour
    quads = np.array([[[22, 22], [58, 22], [58, 98], [22, 98]],
                      [[118, 18], [172, 18], [172, 102], [118, 102]]], np.float32)
    assert _without_white(img, quads).tolist() == [True, False]


def _comp(i: int, centre, size, angle: float, area: float, solidity: float) -> dict:
    """A classical spread as :func:`nertz.vision.audit.audit` describes it."""
    rect = (tuple(centre), tuple(size), angle)
    x, y = centre[0] - size[0] / 2, centre[1] - size[1] / 2
    return {"i": i, "area": area, "rect": rect, "size": tuple(size), "solidity": solidity,
            "rect_fill": area / (size[0] * size[1]), "box": (int(x), int(y), int(size[0]), int(size[1]))}


def test_fan_like_spreads_are_round_solid_and_not_rectangles():
    """A fan (a round, solid blob filling 0.76 of its rectangle) is fan-like; a row (long, a
    full rectangle), a heap (ragged), one card and a scrap of a back's colour under 0.6 of a
    card's area are not. Card 63 x 88 pixels."""
    from nertz.vision.audit import _fan_like

    card = (63.0, 88.0)
    fan = _comp(1, (300, 300), (107, 107), 0, 0.76 * 107 * 107, 0.96)
    row = _comp(2, (600, 300), (202, 88), 0, 0.93 * 202 * 88, 0.98)
    heap = _comp(3, (300, 600), (130, 110), 0, 0.68 * 130 * 110, 0.80)
    one = _comp(4, (600, 600), (63, 88), 0, 0.97 * 63 * 88, 1.0)
    scrap = _comp(5, (800, 600), (50, 60), 0, 0.80 * 50 * 60, 0.93)
    assert [c["i"] for c in _fan_like([fan, row, heap, one, scrap], card)] == [1]


def test_fans_are_looked_at_again_larger_and_their_strips_replaced():
    """:func:`nertz.vision.audit._zoom_fans` runs the detector again on each fan-like spread
    only, at :data:`~nertz.vision.audit.FAN_ZOOM`; the first run's backs and weak boxes on that
    spread give way to the second's; hands, faces and everything off the spread stay."""
    from nertz.vision import audit as A

    cc = np.zeros((400, 800), np.int32)
    cc[100:300, 100:300] = 1  # the fan's pixels
    cc[100:200, 500:700] = 2  # a row's
    fan = _comp(1, (200, 200), (200, 200), 0, 0.76 * 200 * 200, 0.96)
    row = _comp(2, (600, 150), (200, 100), 0, 200 * 100 * 0.95, 0.98)

    def box(cx, cy, r=10.0):
        return np.array([[cx - r, cy - r], [cx + r, cy - r], [cx + r, cy + r], [cx - r, cy + r]], np.float32)

    calls = []

    class Fake:
        conf = 0.35

        def with_candidates(self, image, area=None, card_long=None, weak=0.15, zoom=1.0):
            calls.append((area, zoom))
            q = np.stack([box(150, 150), box(200, 150), box(250, 150), box(150, 250), box(600, 50)])
            return (q, np.ones(5, np.float32), np.array([1, 1, 1, 2, 1]), np.stack([box(200, 250)]),
                    np.full(1, 0.2, np.float32))

    quads = np.stack([box(150, 150), box(250, 150), box(200, 120), box(550, 150), box(650, 150)])
    cls = np.array([1, 1, 0, 1, 1])
    weak = np.stack([box(180, 180), box(600, 190)])
    q, c, w = A._zoom_fans(Fake(), np.zeros((400, 800, 3), np.uint8), [fan, row], cc, (63.0, 88.0),
                           quads, cls, weak)
    assert len(calls) == 1 and calls[0][1] == A.FAN_ZOOM
    x0, y0, x1, y1 = calls[0][0]
    assert x0 < 100 and y0 < 100 and x1 > 300 and y1 > 300  # the fan's box and a margin
    centres = sorted(map(tuple, np.round(q.mean(axis=1)).astype(int).tolist()))
    # the face (200, 120) and the row's two strips stay; the fan's backs are the second run's three
    assert centres == [(150, 150), (200, 120), (200, 150), (250, 150), (550, 150), (650, 150)]
    assert sorted(c.tolist()) == [0, 1, 1, 1, 1, 1]
    assert sorted(map(tuple, np.round(w.mean(axis=1)).astype(int).tolist())) == [(200, 250), (600, 190)]


def test_strip_detector_zoom_scales_its_input(scenes):
    """``zoom`` multiplies the scale at which the network looks at the photo."""
    from nertz.vision.audit_strips import StripDetector

    det = StripDetector()
    frame = scenes[8].frame
    box = (800, 400, 1100, 700)
    _, s1, *_ = det._forward(frame, box, 88.0)
    out, s2, x0, y0 = det._forward(frame, box, 88.0, zoom=1.3)
    assert s2 == pytest.approx(1.3 * s1) and (x0, y0) == (800, 400)


def test_fan_strays_are_small_boxes_inside_the_fans_circle():
    """Ten wedges on a circle of 50 pixels (card 88 long), the whole top card and a small box
    across the wedges' narrow ends (20 pixels from the pivot): the box at the hub is a stray,
    the top card is not; nor is a small box just beyond the circle; a row has none."""
    from nertz.vision.audit import _fan_strays

    pivot, card = np.array([400.0, 300.0]), 88.0
    wedges = [_wedge(pivot, 50.0, 190 + 12 * k) for k in range(10)]
    t = np.radians(250)
    top_c = pivot + 31 * np.array([np.cos(t), np.sin(t)])
    top = cv2.boxPoints(((float(top_c[0]), float(top_c[1])), (85.0, 60.0), 250.0)).astype(np.float32)
    hub = _wedge(pivot, 20.0, 240, long=25.0, short=12.0)
    beyond = _wedge(pivot, 70.0, 236)
    assert _fan_strays(np.stack(wedges + [top, hub]), card).tolist() == [11]
    assert _fan_strays(np.stack(wedges + [top, beyond]), card).tolist() == []
    row = np.stack([_wedge(np.array([100.0 + 15 * k, 500.0]), 0.0, 90) for k in range(8)]
                   + [_wedge(np.array([150.0, 480.0]), 0.0, 0)])
    assert _fan_strays(row, card).tolist() == []


def test_a_photo_larger_than_the_calibration_frames_is_audited_with_the_table_scaled(scenes):
    # the table file names the frames it was calibrated on; a photo of the same view at twice
    # the resolution (a camera's still) is counted as the frame itself, not with the polygons
    # left at half the size (a newcomer's report, 2026-12-07: green 0 and red 5 of 8 and 29)
    from nertz.referee.table import Table
    from nertz.vision.audit import fit_table

    scene = scenes[3]
    h, w = scene.frame.shape[:2]
    plain = Table.from_dict({k: v for k, v in scene.table.items() if k != "calibration"})
    table = Table.from_dict({**scene.table, "calibration": {"method": "synthetic", "frame_size": [w, h]}})
    big = cv2.resize(scene.frame, (2 * w, 2 * h), interpolation=cv2.INTER_LINEAR)
    assert fit_table(table, 2 * w, 2 * h).shared_area[0] == pytest.approx(tuple(2 * v for v in table.shared_area[0]))
    assert audit(big, table).counts == audit(scene.frame, table).counts
    # a photo of another shape (cropped, another camera) is refused
    with pytest.raises(AuditError, match="another shape"):
        audit(np.ascontiguousarray(scene.frame[:, : w * 3 // 4]), table)
    # a table that does not say keeps its polygons
    assert fit_table(plain, 2 * w, 2 * h).shared_area == plain.shared_area


def test_audit_refuses_an_unwritable_out_before_counting(scenes, tmp_path):
    # a count printed beside a failure status is no result: --out is checked first
    photo = tmp_path / "p.png"
    cv2.imwrite(str(photo), scenes[2].frame)
    table = tmp_path / "t.json"
    table.write_text(json.dumps(scenes[2].table))
    for out, says in ((tmp_path / "nodir" / "x.png", "does not exist"), (tmp_path, "a folder"),
                      (tmp_path / "x.txt", "no image format")):
        r = CliRunner().invoke(_cli(), [str(photo), "--table", str(table), "--out", str(out), "--json"])
        assert r.exit_code == 2 and says in r.output and '"type": "audit"' not in r.output


def test_audit_prints_no_count_when_writing_out_fails(scenes, tmp_path, monkeypatch):
    # --out passed its checks but the write fails (a full disk, no permission): exit status 2
    # and no count on standard output, as when --out is refused before counting
    from nertz.vision import detect

    def refuse(path, image):
        raise detect.ImageError(f"{path}: cannot write the image (does its folder exist?)")

    monkeypatch.setattr(detect, "save_image", refuse)
    photo = tmp_path / "p.png"
    cv2.imwrite(str(photo), scenes[2].frame)
    table = tmp_path / "t.json"
    table.write_text(json.dumps(scenes[2].table))
    for extra in (["--json"], []):
        r = CliRunner().invoke(_cli(), [str(photo), "--table", str(table), "--out", str(tmp_path / "x.png"),
                                        "--method", "classical", *extra])
        assert r.exit_code == 2 and "cannot write the image" in r.output, r.output
        assert r.stdout == "", r.stdout


def test_a_greyscale_photo_is_refused_not_counted(scenes, tmp_path):
    """Back colours cannot be told apart in grey: the counts would score the wrong players, so
    the photo is refused (after the detector found face-down cards in it: it is a photo of the
    round's end, only without colour)."""
    sc = scenes[2]
    tab = tmp_path / "table.json"
    tab.write_text(json.dumps(sc.table))
    grey = cv2.cvtColor(sc.frame, cv2.COLOR_BGR2GRAY)
    for name, img in (("grey8.png", grey), ("grey3.jpg", cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR))):
        cv2.imwrite(str(tmp_path / name), img)
        r = CliRunner().invoke(_cli(), [str(tmp_path / name), "--table", str(tab), "--json", "--method", "classical"])
        assert r.exit_code == 2 and "Traceback" not in r.output, r.output
        assert r.output.startswith("error: the photo is greyscale: the backs' colours"), r.output
        assert r.stdout == ""
    colour = tmp_path / "colour.png"
    cv2.imwrite(str(colour), sc.frame)
    r = CliRunner().invoke(_cli(), [str(colour), "--table", str(tab), "--json", "--method", "classical"])
    assert r.exit_code == 0, r.output


def _row(starts, top_at, pitch=16.0, thick=88.0, y=300.0, margin=3.0, card=63.0):
    """Axis-aligned boxes of a row along x: a strip per start (one pitch long, its box a little
    longer, as the model's), the top card's box from ``top_at``; and the row's least rectangle."""
    boxes = [[[x - margin, y - thick / 2], [x + pitch + margin, y - thick / 2],
              [x + pitch + margin, y + thick / 2], [x - margin, y + thick / 2]] for x in starts]
    boxes.append([[top_at, y - thick / 2], [top_at + card, y - thick / 2],
                  [top_at + card, y + thick / 2], [top_at, y + thick / 2]])
    x0, x1 = min(starts), top_at + card
    return np.array(boxes, np.float64), (((x0 + x1) / 2, y), (x1 - x0, thick), 0.0)


def test_row_slots_drop_a_second_box_and_fill_a_gap():
    """A row of 9 cards 16 px apart (a card 63 x 88 px, side by side): the model's strips of
    cards 3 and 4 missing, a second box on card 6. The second box is not counted, and the
    gap gets two strips where the missing cards lie; an even row as found is left alone, and
    so is one whose steps are uneven."""
    from nertz.vision.audit import _row_slots

    card_wh = (63.0, 88.0)
    starts = [100 + 16 * k for k in range(8) if k not in (3, 4)] + [100 + 16 * 6 + 3]
    quads, rect = _row(starts, 100 + 16 * 8)
    keep, add = _row_slots(quads, rect, card_wh)
    assert keep.tolist() == [True] * 6 + [False, True]  # (the top card last)
    assert len(add) == 2
    left = np.sort(add[:, :, 0].min(axis=1))
    assert np.all(np.abs(left - [148, 164]) <= 4)  # where cards 3 and 4 show
    whole, rect = _row([100 + 16 * k for k in range(8)], 100 + 16 * 8)
    assert _row_slots(whole, rect, card_wh) is None
    uneven, rect = _row([100, 108, 140, 146, 190, 199], 230)
    assert _row_slots(uneven, rect, card_wh) is None
    # turned round (the top card first), upright, and a column (overlapping along the length)
    flipped, frect = quads.copy(), rect
    flipped[:, :, 0] = 1000 - flipped[:, :, 0]
    _, frect = _row(starts, 100 + 16 * 8)
    frect = ((1000 - frect[0][0], frect[0][1]), frect[1], 0.0)
    keep, add = _row_slots(flipped, frect, card_wh)
    assert keep.sum() == 7 and len(add) == 2
    _, rect = _row(starts, 100 + 16 * 8)
    upright = quads[:, :, ::-1].copy()
    keep, add = _row_slots(upright, ((rect[0][1], rect[0][0]), rect[1][::-1], 0.0), card_wh)
    assert keep.sum() == 7 and len(add) == 2
    column, rect = _row(starts, 100 + 16 * 8, thick=63.0, card=88.0)
    keep, add = _row_slots(column, rect, card_wh)
    assert keep.sum() == 7 and len(add) == 2
