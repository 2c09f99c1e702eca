"""Rank-only scoring of Pascal-VOC photos in ``nertz.vision.evaluate`` (``voc_samples`` without a
labels json, as for ``shared/real_cards/edje_tf_cards/test``)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import cv2
import numpy as np

from nertz.vision.evaluate import card_rank, evaluate, format_report, voc_samples

VOC = """<annotation><filename>a.png</filename>
<object><name>queen</name><bndbox><xmin>10</xmin><ymin>10</ymin><xmax>40</xmax><ymax>50</ymax></bndbox></object>
<object><name>ten</name><bndbox><xmin>60</xmin><ymin>10</ymin><xmax>90</xmax><ymax>50</ymax></bndbox></object>
</annotation>"""


class FakeRecognizer:
    """Says the given cards at the given boxes (all faces), whatever the frame."""

    def __init__(self, boxes, labels):
        self.d = SimpleNamespace(boxes=np.array(boxes, np.float64), class_id=np.zeros(len(boxes), np.int64),
                                 labels=np.array(labels, object))

    def detect(self, frame):
        return self.d

    def identify(self, frame, d):
        return d


def folder(tmp_path):
    cv2.imwrite(str(tmp_path / "a.png"), np.zeros((60, 100, 3), np.uint8))
    (tmp_path / "a.xml").write_text(VOC)
    return tmp_path


def test_card_rank():
    assert [card_rank(c) for c in ("QH", "TS", "9D", "AC", "JK", "")] == ["Q", "T", "9", "A", "JK", ""]


def test_voc_without_labels_scores_the_rank(tmp_path):
    d = folder(tmp_path)
    [(frame, truth)] = list(voc_samples(d))
    assert frame.shape == (60, 100, 3)
    assert truth["labels"] == ["", ""] and truth["ranks"] == ["Q", "T"]
    # the queen is said as another queen (rank right), the ten as a jack (rank wrong), one extra face
    rec = FakeRecognizer([[11, 10, 40, 50], [60, 11, 90, 49], [0, 0, 5, 5]], ["QS", "JD", "2C"])
    r = evaluate(rec, voc_samples(d), classes=(0,))
    assert r["per_class"]["face"]["tp"] == 2 and r["per_class"]["face"]["fp"] == 1
    assert r["identity"]["n"] == 0
    assert r["rank_identity"] == {"n": 2, "right": 1, "accuracy": 0.5}
    assert r["rank_confusions"] == [("T", "JD", 1)]
    text = format_report(r)
    assert "rank of matched faces (rank-only labels): 0.5000 (1/2)" in text
    assert "T->JD: 1" in text and "identity of matched faces" not in text


def test_voc_with_full_labels_scores_the_card_as_before(tmp_path):
    d = folder(tmp_path)
    (d / "labels.json").write_text(json.dumps({"images": [{"image": "a.png", "boxes": [
        {"xmin": 10, "ymin": 10, "xmax": 40, "ymax": 50, "card": "QH"},
        {"xmin": 60, "ymin": 10, "xmax": 90, "ymax": 50, "card": "TD"}]}]}))
    rec = FakeRecognizer([[11, 10, 40, 50], [60, 11, 90, 49]], ["QS", "TD"])
    r = evaluate(rec, voc_samples(d, d / "labels.json"), classes=(0,))
    assert r["identity"] == {"n": 2, "right": 1, "accuracy": 0.5}
    assert r["confusions"] == [("QH", "QS", 1)]
    assert r["rank_identity"]["n"] == 0
    text = format_report(r)
    assert "identity of matched faces: 0.5000 (1/2)" in text and "rank-only" not in text
