"""The ``--out`` overlay's drawing helpers."""

from __future__ import annotations

import cv2
import numpy as np

from nertz.vision.annotate import _text


def test_text_halo_stays_on_the_text_it_outlines():
    # OpenCV advances Hershey glyphs by their thickness too: an outline drawn thicker than the
    # text ran 29 pixels past the end of this line, a dark shifted copy of its last letters
    img = np.full((40, 600, 3), 128, np.uint8)
    line = "whose 3H on pile 4? the camera is not sure it was blue's"
    _text(img, line, (10, 24), (255, 255, 255), 0.55)
    (w, _), _ = cv2.getTextSize(line, cv2.FONT_HERSHEY_SIMPLEX, 0.55, 1)
    dark = np.nonzero((img < 100).any(axis=2))[1]
    light = np.nonzero((img > 200).all(axis=2))[1]
    assert dark.size and light.size
    assert dark.max() <= light.max() + 2 and dark.max() <= 10 + w + 2
    assert dark.min() >= light.min() - 2


def test_text_at_the_image_edge_is_clipped_not_an_error():
    img = np.full((30, 80, 3), 128, np.uint8)
    _text(img, "7S", (-5, 3), (0, 220, 255), 0.4)
    _text(img, "a long label past the right edge", (60, 40), (0, 220, 255), 0.4)
    _text(img, "", (10, 10), (255, 255, 255))
    assert img.shape == (30, 80, 3)


def test_hand_boxes_are_drawn_in_the_colour_of_the_player_their_track_names():
    from nertz.vision.annotate import draw_overlay, player_colours
    from nertz.vision.tracker import Look, RoundTracker

    from conftest import TWO_ZONE_TABLE as table
    from test_vision_tracker import hand_box

    tracker = RoundTracker(table)
    # red's hand rises from red's zone to the shared area; a hand appears at the top, unknown
    for i, y in enumerate([650, 500, 350]):
        look = Look(3 * i, 0.1 * i, [], np.array([hand_box(600, y), hand_box(1100, 60)], np.float32))
        tracker.update(look)
    img = draw_overlay(np.zeros((720, 1280, 3), np.uint8), table, tracker, look)
    red = player_colours(table)["red"]
    x0, y0, x1, y1 = (int(v) for v in hand_box(600, 350))
    assert tuple(int(v) for v in img[y0 + 10, x0]) == red              # the box's left edge
    x0, y0, *_ = (int(v) for v in hand_box(1100, 60))
    assert tuple(int(v) for v in img[y0 + 10, x0]) == (160, 160, 160)  # nobody's yet: grey


def test_each_located_nertz_pile_is_circled_in_its_players_colour_with_the_cards_left():
    from nertz.vision.annotate import draw_overlay, player_colours
    from nertz.vision.tracker import RoundTracker

    from conftest import TWO_ZONE_TABLE as table
    from test_nertz_pile import LOCATE_S, RED_ROW, look, watch

    w = watch(*[look(i / 10) for i in range(round(LOCATE_S * 10) + 2)])   # past the deal: located
    blank = np.zeros((720, 1280, 3), np.uint8)
    img = draw_overlay(blank, table, RoundTracker(table), None, nertz_piles=w.snapshot())
    red = player_colours(table)["red"]
    x, y = RED_ROW[0]
    r = int(round(0.6 * w.piles["red"].width))
    assert tuple(int(v) for v in img[y, x + r]) == red                 # the circle round red's pile
    below = img[y + r + 2:y + r + 22, x - r:x + r + 60]
    assert (below == np.array(red, np.uint8)).all(axis=2).any()         # "Nertz 13" under it
    plain = draw_overlay(blank, table, RoundTracker(table), None)
    before = draw_overlay(blank, table, RoundTracker(table), None, nertz_piles=watch(look(0.0)).snapshot())
    assert (before == plain).all() and (img != plain).any()            # not located yet: nothing drawn
