"""Hand tracks (:mod:`nertz.vision.hands`) and their use in attribution on synthetic streams."""

from __future__ import annotations

import numpy as np
import pytest

from nertz.vision.boxes import polygons_overlap
from nertz.vision.hands import HandTracker, forearm
from nertz.vision.tracker import Look, RoundTracker, Sighting, TrackerSettings

from test_vision_tracker import TABLE, card
from test_vision_tracker import hand_box as hand

ZONES = TABLE.zones
SHARED = TABLE.shared_area


def test_tracks_follow_fast_hands_and_remember_the_zone_they_came_from():
    ht = HandTracker(ZONES, SHARED)
    # red's hand rises from red's zone (bottom) to the shared area; blue's rests at the left
    path = [(500, 650), (520, 560), (560, 420), (600, 330), (600, 320)]
    ids = []
    for i, (x, y) in enumerate(path):
        ids.append(ht.update(3 * i, 0.1 * i, np.array([hand(x, y), hand(100, 300)], np.float32)))
    assert len({int(i[0]) for i in ids}) == 1 and len({int(i[1]) for i in ids}) == 1
    assert ids[0][0] != ids[0][1]
    box = np.array(hand(600, 330, 40), np.float32)
    assert ht.owner_of(box, 6, 12) == ("red", 0.8)
    assert ht.owner_of(box, 6, 12, exclude="red") is None
    # a box that no tracked hand overlapped
    assert ht.owner_of(np.array([850, 210, 880, 240], np.float32), 0, 12) is None
    # came_from: red's hand was over the box in looks 9-12, blue's never
    assert ht.came_from("red", box, 6, 12) and ht.came_from("red", box, 9, 9)
    assert not ht.came_from("red", box, 0, 3)          # still in red's zone then
    assert not ht.came_from("blue", box, 0, 12)


def test_a_jump_beyond_max_jump_starts_a_new_track_without_a_zone():
    ht = HandTracker(ZONES, SHARED, max_jump=1.0)
    a = ht.update(0, 0.0, np.array([hand(500, 650)], np.float32))
    b = ht.update(3, 0.1, np.array([hand(700, 300)], np.float32))
    assert a[0] != b[0]
    assert ht.owner_of(np.array(hand(700, 300, 40), np.float32), 3, 3) is None
    # the new track has been in no zone: a hand of unknown origin over the box
    assert ht.origins(np.array(hand(700, 300, 40), np.float32), 3, 3) == {None}
    assert ht.origins(np.array(hand(700, 300, 40), np.float32), 0, 0) == set()


def test_origins_names_the_zone_each_hand_over_a_box_came_from():
    ht = HandTracker(ZONES, SHARED)
    for i, (x, y) in enumerate([(500, 650), (520, 560), (560, 420), (600, 330)]):
        ht.update(3 * i, 0.1 * i, np.array([hand(x, y), hand(100, 300)], np.float32))
    box = np.array(hand(600, 330, 40), np.float32)
    assert ht.origins(box, 0, 9) == {"red"}             # blue's hand never went over it
    assert ht.origins(box, 0, 3) == set()
    # blue's hand lay in blue's zone in every look; red's left red's zone after the first look
    assert ht.stayed_in("blue", 0, 9) and ht.stayed_in("red", 0, 0)
    assert not ht.stayed_in("red", 0, 9)
    assert not ht.stayed_in("blue", 100, 200)           # no look in the range


def test_a_copy_that_left_its_zone_long_before_loses_to_the_hand_that_laid_the_card():
    """Red's 5D was covered in red's zone 3 s before; blue's 5D was never read in blue's zone,
    but blue's hand came from blue's zone to the pile: the play is blue's. (The pile is shown
    from its 4D for brevity: ``open_reach`` off, which would let only an ace or a two open it.)"""
    tr = RoundTracker(TABLE, TrackerSettings(open_reach=None))
    frame = 0

    def look(faces, hands=()):
        nonlocal frame
        ev = tr.update(Look(frame, frame / 30, [Sighting(lbl, 0.99, q) for lbl, q in faces],
                            np.asarray(hands, np.float32).reshape(-1, 4)))
        frame += 3
        return ev

    pile = [("4D", card(500, 300))]
    for _ in range(3):
        look([("5D", card(500, 600))] + pile, [hand(100, 400)])
    for _ in range(30):  # red's 5D covered (not seen again), no hand over it
        look(pile, [hand(100, 400)])
    for x, y in [(150, 380), (300, 340), (450, 310), (500, 300)]:  # blue's hand to the pile
        look(pile, [hand(x, y)])
    events = []
    for _ in range(4):
        events += look([("5D", card(500, 300))], [hand(120, 400)])
    events += tr.flush()  # the source ends: a play still kept back as doubtful is reported
    plays = [e for e in events if e["type"] == "play" and e["card"] == "5D"]
    assert [p["player"] for p in plays] == ["blue"]
    assert tr.attributions[-1][-1] == "hand_track"


def test_a_hand_crossing_the_table_keeps_its_track_when_another_is_missed():
    # blue's hand crosses the shared area fast (2.5 hand sizes a look) while red's hand rises
    # from red's zone; in the last look the detector misses red's hand. Linked to the nearest
    # last place, blue's box took over red's track and the card was red's; linked to where each
    # track's velocity says it is now, it stays blue's
    ht = HandTracker(ZONES, SHARED)
    blue = [(150, 350), (300, 350), (450, 350), (600, 350)]
    red = [(560, 600), (560, 520), (560, 440)]
    for i, b in enumerate(blue):
        boxes = [hand(*b)] + ([hand(*red[i])] if i < len(red) else [])
        ids = ht.update(3 * i, 0.1 * i, np.array(boxes, np.float32))
        if i == 0:
            blue_id = int(ids[0])
    assert int(ids[0]) == blue_id
    assert ht.owner_of(np.array(hand(600, 340, 50), np.float32), 9, 9) == ("blue", 0.8)


def test_a_hand_that_stops_at_a_pile_keeps_its_track_when_another_hand_arrives_beside_it():
    # blue's hand comes to a pile in the middle and stops there to let go (its last two looks
    # moved it 120 px a look); red's hand comes up fast from red's zone and, in the look where
    # blue's has stopped, lies where blue's velocity said blue's would be. Linked to the
    # predicted places alone, the two boxes swapped tracks; the distance to the stretch between
    # a track's last place and its predicted one (it may stop) keeps each with its own
    ht = HandTracker(ZONES, SHARED)
    blue = [(200, 340), (320, 340), (440, 340), (450, 340)]
    red = [(700, 650), (660, 560), (600, 460), (560, 350)]
    for i, (b, r) in enumerate(zip(blue, red)):
        ids = ht.update(3 * i, 0.1 * i, np.array([hand(*b), hand(*r)], np.float32))
        if i == 0:
            first = [int(x) for x in ids]
    assert [int(x) for x in ids] == first
    assert ht.owner_of(np.array(hand(450, 340, 40), np.float32), 9, 9) == ("blue", 0.8)


def test_each_hand_gets_a_forearm_towards_the_zone_its_track_came_from():
    ht = HandTracker(ZONES, SHARED)
    for i, (x, y) in enumerate([(600, 650), (600, 500), (600, 350)]):
        ht.update(3 * i, 0.1 * i, np.array([hand(x, y)], np.float32))
    (arm,) = ht.arms
    # from the hand's centre to the centre of red's zone (600, 610), 0.8 x 60 px wide
    np.testing.assert_allclose(arm, [[624, 350], [624, 610], [576, 610], [576, 350]], atol=1e-3)
    assert polygons_overlap(np.array([590, 440, 610, 480], np.float32), ht.arms) == 1.0
    assert polygons_overlap(np.array([700, 440, 720, 480], np.float32), ht.arms) == 0.0
    assert HandTracker(ZONES, SHARED, arm_width=None).arms.shape == (0, 4, 2)


def test_forearm_and_polygon_cover():
    arm = forearm(np.array([90, 90, 110, 130], np.float32), np.array([100, 300], np.float32), width=1.0)
    np.testing.assert_allclose(arm, [[110, 110], [110, 300], [90, 300], [90, 110]])
    assert polygons_overlap(np.array([100, 200, 120, 220], np.float32), [arm]) == pytest.approx(0.5)
    assert polygons_overlap(np.array([100, 200, 120, 220], np.float32), np.zeros((0, 4, 2))) == 0.0
    assert polygons_overlap(np.array([100, 200, 100, 220], np.float32), [arm]) == 0.0   # no area
