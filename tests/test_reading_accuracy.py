"""``reading_accuracy`` of ``python -m nertz.vision.referee_eval``: the models' readings, look by
look, against a rendered round's labels, on hand-made looks (no video, no model)."""

from __future__ import annotations

import numpy as np

from nertz.vision.referee_eval import reading_accuracy
from nertz.vision.tracker import Look, Sighting


def quad(x: float, y: float) -> list[list[float]]:
    return [[x, y], [x + 40, y], [x + 40, y + 56], [x, y + 56]]


def card(name: str, x: float, y: float, visible: float = 1.0) -> dict:
    return {"card": name, "identity": name, "quad": quad(x, y), "visible": visible, "face_up": True}


def seen(label: str, x: float, y: float, prob: float = 0.99, whole: bool = True) -> Sighting:
    return Sighting(label, prob, np.array(quad(x, y), np.float32), whole=whole)


def test_readings_count_by_visible_share_and_match_the_top_card_of_a_pile() -> None:
    labels = [
        # a pile: 5H under 6S (same place, nearly hidden); a 9C two thirds visible; a lone card
        {"frame": 0, "cards": [card("5H", 100, 100, 0.02), card("6S", 101, 100, 1.0),
                               card("9C", 300, 100, 0.7), card("KD", 500, 300)]},
        {"frame": 1, "cards": [card("6S", 101, 100, 1.0)]},
    ]
    looks = {
        0: Look(0, 0.0, [seen("6S", 102, 101),             # the pile's top card: right
                         seen("9S", 301, 99, prob=0.95),   # covered card read wrong, surely
                         seen("KD", 700, 300),              # nothing labelled near: left out
                         seen("KD", 500, 300, whole=False)]),  # a strip: not counted
        1: Look(1, 0.1, [seen("6H", 101, 100, prob=0.5)]),  # wrong, unsure
    }
    r = reading_accuracy(looks, labels)
    assert r == {"whole": {"n": 2, "wrong": 1, "wrong_sure": 0},
                 "0.5-0.95": {"n": 1, "wrong": 1, "wrong_sure": 1}}


def test_readings_of_no_looks_are_empty() -> None:
    assert reading_accuracy({}, []) == {}
