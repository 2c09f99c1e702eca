"""The arm reader (:mod:`nertz.vision.arms`) on synthetic frames, and arm readings in hand tracks."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from nertz.vision.arms import ArmReader
from nertz.vision.hands import HandTracker

from conftest import TWO_ZONE_TABLE as TABLE
from test_vision_tracker import hand_box as hand

CLOTH = (40, 110, 30)  # BGR green baize
SKIN = (120, 160, 210)


def cloth(seed: int) -> np.ndarray:
    """A ``(720, 1280, 3) uint8`` frame of cloth with a little sensor noise."""
    rng = np.random.default_rng(seed)
    img = np.empty((720, 1280, 3), np.uint8)
    img[:] = CLOTH
    return cv2.add(img, rng.integers(0, 6, img.shape, dtype=np.uint8))


def with_arm(frame: np.ndarray, hand_at: tuple[int, int], shoulder: tuple[int, int]) -> np.ndarray:
    """``frame`` with a hand (60 px disc) at ``hand_at`` and a 45 px wide forearm from it to
    ``shoulder`` (pixels)."""
    out = frame.copy()
    cv2.line(out, hand_at, shoulder, SKIN, 45)
    cv2.circle(out, hand_at, 30, SKIN, -1)
    return out


@pytest.fixture
def reader() -> ArmReader:
    r = ArmReader(TABLE.zones, TABLE.shared_area)
    for i in range(30):
        r.push(cloth(i))
    return r


def test_the_arm_names_the_player_whose_zone_it_reaches_back_to(reader):
    box = np.array([hand(600, 330)], np.float32)
    reader.push(with_arm(cloth(100), (600, 330), (600, 719)))      # arm down into red's zone
    assert reader.owners(box) == ["red"]
    scores = reader.scores(box[0])
    assert scores["red"] > 0.5 and scores["blue"] < 0.1
    reader.push(with_arm(cloth(101), (600, 330), (0, 330)))        # arm to the left: blue's
    assert reader.owners(box) == ["blue"]


def test_no_reading_without_an_arm_outside_the_shared_area_or_before_any_frame(reader):
    reader.push(cloth(200))
    assert reader.owners(np.array([hand(600, 330)], np.float32)) == [None]     # nothing moved
    reader.push(with_arm(cloth(201), (600, 600), (600, 719)))
    assert reader.owners(np.array([hand(600, 600)], np.float32)) == [None]     # in red's zone
    assert reader.owners(np.zeros((0, 4), np.float32)) == []
    fresh = ArmReader(TABLE.zones, TABLE.shared_area)
    assert fresh.owners(np.array([hand(600, 330)], np.float32)) == [None]
    assert fresh.profile(np.array(hand(600, 330), np.float32)).shape == (72,)


def test_two_arms_reaching_the_same_way_are_both_read(reader):
    frame = with_arm(cloth(300), (500, 300), (500, 719))
    frame = with_arm(frame, (750, 420), (0, 420))
    reader.push(frame)
    assert reader.owners(np.array([hand(500, 300), hand(750, 420)], np.float32)) == ["red", "blue"]


def test_directions_into_narrow_concave_and_surrounding_zones(reader):
    centre = np.array([600, 330], np.float32)
    deg = lambda mask: np.degrees(reader._angles[mask])  # noqa: E731
    # a sliver far to the left, narrower than one direction (5 degrees): still one, at 180
    sliver = np.array([[0, 329], [50, 329], [50, 331], [0, 331]], np.float32)
    assert list(deg(reader.directions_into(sliver, centre))) == [pytest.approx(177.5)] or \
        list(deg(reader.directions_into(sliver, centre))) == [pytest.approx(182.5)]
    # a C-shaped zone open to the left around the hand: its side is the right, not the left
    c_shape = np.array([[400, 130], [800, 130], [800, 530], [400, 530], [400, 510], [780, 510],
                        [780, 150], [400, 150]], np.float32)
    into = reader.directions_into(c_shape, centre)
    assert into[0] and not into[36]              # 2.5 degrees (right) in, 182.5 (left) out
    # a zone around the hand: every direction
    around = np.array([[500, 230], [700, 230], [700, 430], [500, 430]], np.float32)
    assert reader.directions_into(around, centre).all()


@pytest.mark.parametrize("kwargs", [{"scale": 0}, {"scale": 1.5}, {"ring": (1.5, 0.6)}, {"ring": (-0.1, 1.0)},
                                    {"bins": 4}, {"bins": 8.5}, {"margin": -1}, {"history": 0},
                                    {"var_threshold": 0}])
def test_bad_settings_are_refused(kwargs):
    with pytest.raises(ValueError):
        ArmReader(TABLE.zones, TABLE.shared_area, **kwargs)


def test_an_arm_reading_names_the_track_even_after_the_tracks_swapped():
    # red's hand rises from red's zone into the shared area; in the look where it reaches the
    # pile, its arm is read as blue's (blue's hand took over the track where two hands met):
    # the reading names the player from that look on, for owner_of and for the forearm
    ht = HandTracker(TABLE.zones, TABLE.shared_area)
    path = [(600, 650), (600, 500), (600, 350)]
    for i, (x, y) in enumerate(path):
        ht.update(3 * i, 0.1 * i, np.array([hand(x, y)], np.float32), [None])
    card = np.array(hand(600, 350, 40), np.float32)
    assert ht.owner_of(card, 6, 6) == ("red", 0.8)
    ht.update(9, 0.3, np.array([hand(600, 340)], np.float32), ["blue"])
    assert ht.owner_of(card, 9, 9) == ("blue", 0.8)
    assert ht.owner_of(card, 6, 9) == ("blue", 0.8)        # the latest look over the card decides
    assert ht.tracks[0].player() == "blue"
    (arm,) = ht.arms
    assert arm[:, 0].min() < 200                             # reaches left, towards blue's zone
    # without readings the same stream keeps red
    plain = HandTracker(TABLE.zones, TABLE.shared_area)
    for i, (x, y) in enumerate([*path, (600, 340)]):
        plain.update(3 * i, 0.1 * i, np.array([hand(x, y)], np.float32))
    assert plain.owner_of(card, 6, 9) == ("red", 0.8)


def test_arm_readings_must_be_one_per_hand_box():
    ht = HandTracker(TABLE.zones, TABLE.shared_area)
    with pytest.raises(ValueError, match="2 arm readings for 1 hand boxes"):
        ht.update(0, 0.0, np.array([hand(600, 330)], np.float32), ["red", None])


@pytest.mark.parametrize("read_arms", [True, False])
def test_the_pipeline_reads_the_arms_of_each_look(read_arms):
    from nertz.vision.pipeline import RefereePipeline
    from nertz.vision.tracker import Look

    box = np.array([hand(600, 330)], np.float32)
    pipe = RefereePipeline(TABLE, lambda index, t, frame: Look(index, t, [], box), stride=1,
                           counts_from_video=False, read_arms=read_arms)
    for i in range(20):
        pipe.step(i, i / 30, cloth(i))
    pipe.step(20, 20 / 30, with_arm(cloth(20), (600, 330), (600, 719)))
    assert pipe.last_look.hand_players == (["red"] if read_arms else None)
    assert pipe.tracker.hand_tracks.players == (["red"] if read_arms else [None])
