"""The stack-total proxy of ``nertz.vision.evaluate`` (photos labelled with blackjack totals only)."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from nertz.vision.evaluate import blackjack_value, stack_groups, stack_total_accuracy, stack_totals


def card(x: float, y: float, w: float = 60, h: float = 84) -> np.ndarray:
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)


def test_blackjack_values():
    assert [blackjack_value(c) for c in ("7S", "TH", "KD", "QC", "JS", "AC", "2D", "JK", "")] == \
        [7, 10, 10, 10, 10, 1, 2, 0, 0]


def test_cascades_are_grouped_and_far_cards_are_not():
    quads = np.stack([card(0, 0), card(20, 25), card(40, 50),  # a cascade of three
                      card(300, 0), card(330, 10),             # a pair
                      card(600, 400)])                         # alone
    assert stack_groups(quads) == [[0, 1, 2], [3, 4], [5]]
    assert stack_totals(["AS", "KD", "5C", "9H", "9D", "2S"], quads) == [16, 18, 2]
    assert stack_groups(np.zeros((0, 4, 2))) == []


def test_accuracy_counts_totals_as_multisets(tmp_path):
    cv2.imwrite(str(tmp_path / "a.png"), np.zeros((50, 80, 3), np.uint8))
    cv2.imwrite(str(tmp_path / "b.png"), np.zeros((50, 80, 3), np.uint8))
    (tmp_path / "labels.csv").write_text(
        "file,stack_point_totals_in_reading_order_from_db.csv\n"
        'a.png,"18,16"\n'
        'b.png,"12,21"\n'
        "missing.png,5\n")
    quads = np.stack([card(0, 0), card(20, 25), card(300, 0), card(330, 10), card(600, 400)])
    # a: both stacks right, in another order (the back is not counted); b: one stack right, a card
    # misread and one extra; the missing image counts as no stack found
    answers = {
        50 * 80: [SimpleNamespace(class_id=np.array([0, 0, 0, 0, 1]), labels=np.array(["6S", "KD", "9H", "9D", ""], object),
                                  quads=quads),
                  SimpleNamespace(class_id=np.array([0, 0, 0, 0, 0]), labels=np.array(["2S", "KD", "9H", "3D", "4C"], object),
                                  quads=quads)]}

    def recognizer(frame):
        return answers[frame.shape[0] * frame.shape[1]].pop(0)

    r = stack_total_accuracy(recognizer, tmp_path)
    assert r["images"] == 3 and r["stacks"] == 5
    assert r["stacks_right"] == 3 and r["stacks_found"] == 5
    assert r["images_all_right"] == 1
    assert r["per_image"][0] == ("a.png", [16, 18], [16, 18])
    assert r["per_image"][1] == ("b.png", [4, 12, 12], [12, 21])
    assert r["per_image"][2] == ("missing.png", [], [5])


def test_missing_labels_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="labels.csv"):
        stack_total_accuracy(lambda f: None, tmp_path)
