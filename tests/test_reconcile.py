"""Scoring a round by its back count (:mod:`nertz.referee.reconcile`)."""

from __future__ import annotations

import pytest

from nertz.referee.reconcile import reconcile
from nertz.referee.round import Round
from nertz.referee.table import Table

TABLE = Table.from_dict({"players": [{"name": "red", "back": "#b3261e"}, {"name": "blue", "back": "#1e4bb3"}]})
EVENTS = [
    {"t": 1.0, "type": "play", "player": "red", "card": "AH", "pile": 1, "confidence": 0.95},
    {"t": 2.0, "type": "play", "player": "blue", "card": "2H", "pile": 1, "confidence": 0.4},
    {"t": 3.0, "type": "play", "player": "red", "card": "AS", "pile": 2, "confidence": 0.99},
    {"t": 4.0, "type": "play", "player": "blue", "card": "3H", "pile": 1, "confidence": 0.9},
    {"t": 9.0, "type": "call", "player": "red"},
    {"t": 10.0, "type": "nertz_left", "player": "blue", "count": 3},
]


def test_the_audit_is_scored_and_the_least_confident_surplus_play_is_the_suspect():
    rec = reconcile(Round(TABLE, EVENTS), {"red": 3, "blue": 1})
    red, blue = rec.owners["red"], rec.owners["blue"]
    assert (red.live, red.audit, red.score, red.live_score) == (2, 3, 3, 2)
    assert (blue.live, blue.audit, blue.nertz_left, blue.score, blue.live_score) == (2, 1, 3, 1 - 2 * 3, 2 - 2 * 3)
    assert not rec.agrees
    assert [(s.card, s.pile, s.credited, s.likely, s.confidence) for s in rec.suspects] == [("2H", 1, "blue", "red", 0.4)]
    line = rec.to_json()
    assert line["type"] == "result" and line["caller"] == "red" and line["scored_by"] == "audit"
    assert line["players"]["blue"] == {"foundation": 1, "nertz_left": 3, "score": -5}
    assert line["live"]["blue"] == {"foundation": 2, "nertz_left": 3, "score": -4}


def test_counts_that_agree_have_no_suspects_and_given_nertz_counts_win():
    rec = reconcile(Round(TABLE, EVENTS), {"red": 2, "blue": 2}, nertz_left={"blue": 5})
    assert rec.agrees and rec.suspects == ()
    assert rec.owners["blue"].score == 2 - 2 * 5


@pytest.mark.parametrize("counts, message", [({"green": 1}, "not at the table"), ({"red": -1}, "negative")])
def test_bad_counts_are_refused_with_a_message(counts, message):
    with pytest.raises(ValueError, match=message):
        reconcile(Round(TABLE, EVENTS), counts)


def test_the_text_report_says_when_the_totals_differ_and_caps_the_suspects():
    from nertz.referee.report import format_reconciliation

    text = format_reconciliation(reconcile(Round(TABLE, EVENTS), {"red": 3, "blue": 0}), max_suspects=1)
    assert "The photo shows 3 foundation cards in all, the live referee saw 4" in text
    assert "blue 2H on pile 1 (confidence 0.40): likely red's" in text
    assert "... and 1 more" in text
    agree = format_reconciliation(reconcile(Round(TABLE, EVENTS), {"red": 2, "blue": 2}))
    assert "agrees" in agree and "may have gone" not in agree
