"""The Nertz cards left counted from the changes of each Nertz pile's top card
(vision/nertz_pile.py) and the pipeline's use of it beside the spread count.

Looks are built by hand (which card lies where, read how surely). Accuracy is measured on
rendered rounds by ``python -m nertz.vision.referee_eval ROUND...`` (its "Nertz cards left
(pile / spread / true)" lines), not here.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import TWO_ZONE_TABLE, card_quad
from test_spread_count import fake_audits, frame, result

from nertz.referee.table import Table
from nertz.vision.nertz_pile import NertzPileWatch, PileWatchSettings, cards_gone, top_cards
from nertz.vision.observe import LabelObserver
from nertz.vision.pipeline import RefereePipeline
from nertz.vision.referee_eval import nertz_piles_off
from nertz.vision.tracker import Look, Sighting

TABLE = TWO_ZONE_TABLE  # red's zone below the shared area, blue's on its left
RED_ROW = [(400 + 60 * i, 600) for i in range(5)]  # red faces up the picture: its left is the picture's left
BLUE_ROW = [(200, 150 + 70 * i) for i in range(5)]  # blue faces right: its left is the picture's top
DEAL = {"red": ["KS", "2H", "3C", "4D", "5S"], "blue": ["9H", "8C", "7D", "6S", "TC"]}


def look(t: float, red_top: str | None = "KS", blue_top: str | None = "9H", prob: float = 0.99,
         hidden: float = 0.0, extra: tuple = ()) -> Look:
    """A look at ``t`` s of both dealt rows, the Nertz piles' tops as given (None: not seen)."""
    faces = []
    for name, row, top in (("red", RED_ROW, red_top), ("blue", BLUE_ROW, blue_top)):
        for i, (x, y) in enumerate(row):
            card = top if i == 0 else DEAL[name][i]
            if card is not None:
                faces.append(Sighting(card, prob if i == 0 else 0.99, card_quad(x, y), hidden=hidden if i == 0 else 0.0))
    faces += [Sighting(c, p, card_quad(x, y)) for c, p, x, y in extra]
    return Look(int(t * 30), t, faces)


def watch(*looks: Look, table: Table = TABLE) -> NertzPileWatch:
    w = NertzPileWatch(table)
    for lk in looks:
        w.push(lk)
    return w


def test_runs_of_readings_name_the_tops_and_a_few_weak_misreadings_do_not():
    readings = [("KS", 0.99)] * 10 + [("KC", 0.6)] + [("KS", 0.95)] * 5 + [("4D", 0.8)] * 8
    assert top_cards(readings) == ["KS", "4D"]
    # a card read for many looks is a new top, even read with modest confidence
    assert top_cards([("KS", 0.99)] * 10 + [("4D", 0.55)] * 6) == ["KS", "4D"]
    # a card taken back onto the pile (a collision's loser) is on top again
    assert top_cards([("KS", 0.9)] * 6 + [("4D", 0.9)] * 6 + [("KS", 0.9)] * 6) == ["KS", "4D", "KS"]
    assert top_cards([]) == []
    # a hesitation between the run's card and another barely costs the run
    hesitant = [("4S", 0.9)] * 10 + [("4C", 0.5, (("4S", 0.48),))] * 10 + [("4S", 0.9)] * 10
    assert top_cards(hesitant) == ["4S"]
    assert top_cards([r[:2] for r in hesitant]) == ["4S", "4C", "4S"]  # without its runners-up
    # with no cost for a new run every reading is believed
    assert top_cards(readings, switch_cost=0.0) == ["KS", "KC", "KS", "4D"]


def test_each_new_top_card_is_a_card_gone_from_the_pile_and_the_work_piles_do_not_count():
    looks = [look(i / 10) for i in range(12)]  # the deal: 1.1 s
    looks += [look(1.2 + i / 10, red_top="7C") for i in range(10)]
    looks += [look(2.2, red_top="7H", prob=0.6)]  # misread once
    looks += [look(2.3 + i / 10, red_top="7C") for i in range(5)]
    looks += [look(2.8 + i / 10, red_top="QD", extra=[("JS", 0.99, 460, 620)]) for i in range(10)]  # a card on work pile 1
    w = watch(*looks)
    assert w.tops("red") == ["KS", "7C", "QD"] and w.tops("blue") == ["9H"]
    assert w.counts() == {"red": 11, "blue": 13}
    np.testing.assert_allclose(w.piles["red"].place, RED_ROW[0])
    np.testing.assert_allclose(w.piles["blue"].place, BLUE_ROW[0])


def test_a_top_played_during_the_deal_counts_and_a_card_taken_back_is_in_the_pile_again():
    looks = [look(0.0), look(0.1), look(0.2)] + [look(0.3 + i / 10, red_top="2D") for i in range(10)]
    looks += [look(1.3 + i / 10, red_top="5C") for i in range(6)]
    assert watch(*looks).counts()["red"] == 11  # KS and 2D gone
    # 2D read on top again: without a take-back it is another card read as 2D (5C gone too) ...
    looks += [look(1.9 + i / 10, red_top="2D") for i in range(6)]
    assert watch(*looks).counts()["red"] == 10
    # ... after the referee saw red take 2D back (a collision lost), it is 2D over 5C: only KS is gone
    w = watch(*looks)
    w.played("red", "2D", 1.25)
    w.taken_back("red", "2D", 1.85)
    assert w.counts()["red"] == 12
    assert cards_gone(["KS", "2D", "5C", "2D", "5C"], {"2D"}) == 2  # played again: KS, 2D
    assert cards_gone(["KS", "2D", "5C", "2D", "5C"]) == 4  # two other cards read as 2D and 5C
    assert cards_gone(["KS", "2D", "5C", "2D", "QH", "2D"]) == 5
    assert cards_gone(["KS"]) == 0 and cards_gone([]) == 0


def test_a_card_read_at_the_pile_after_its_player_played_it_is_another_card():
    looks = [look(i / 10) for i in range(12)] + [look(1.2 + i / 10, red_top="JS") for i in range(10)]
    looks += [look(2.2 + i / 10, red_top="JS", prob=0.7) for i in range(10)]  # the JC under it, read as JS
    w = watch(*looks)
    assert w.counts()["red"] == 12  # KS gone
    w.played("red", "JS", 2.15)  # the JS went to a foundation: what shows after is another card
    assert w.tops("red") == ["KS", "JS", "JS#2"] and w.counts()["red"] == 11
    w.played("blue", "KS", 0.5)  # another player's plays change nothing here
    assert w.counts()["red"] == 11


def test_a_pile_down_to_its_last_card_is_empty_when_its_place_shows_bare_at_the_end():
    tops = ["KS", "2H", "3C", "4D", "5S", "6H", "7C", "8D", "9S", "TH", "JC", "QD", "KH"]  # 13: one left
    looks = [look(i / 10) for i in range(12)]
    for k, card in enumerate(tops[1:]):
        looks += [look(1.2 + k + i / 10, red_top=card) for i in range(10)]
    assert watch(*looks).counts()["red"] == 1
    gone = look(20.0, red_top=None)
    assert watch(*looks, gone).counts()["red"] == 0  # the last card played just before the call
    under_hand = Look(gone.frame, gone.t, gone.faces, np.array([[350, 550, 450, 650]], np.float32))
    assert watch(*looks, under_hand).counts()["red"] == 1  # a hand over it: not seen bare
    assert watch(*looks, gone, look(20.1, red_top="KH")).counts()["red"] == 1  # it was only missed once
    # the last card in the air at the call: its play (landed after the call) says it has gone
    w = watch(*looks)
    w.call(19.95)
    w.played("red", "KH", 20.3)
    assert w.counts()["red"] == 0


def test_a_top_turned_up_just_before_the_call_is_read_a_moment_after_it():
    looks = [look(i / 10) for i in range(12)] + [look(1.2 + i / 10, red_top="7C") for i in range(20)]
    w = watch(*looks, look(3.2, red_top="QD"))
    assert w.counts()["red"] == 12  # KS gone; QD read once: a misreading, as far as the looks tell
    w.call(3.25)
    for i in range(1, 16):  # read on after the call until after_call (0.3 s) has passed: 9S, from 1.15 s after it, is not
        w.push(look(3.2 + i / 10, red_top="QD" if i < 12 else "9S"))
    assert w.tops("red") == ["KS", "7C", "QD"] and w.counts()["red"] == 11
    # a place seen bare only after the call (the pile gathered for the spread) is not empty
    w = watch(*looks)
    w.call(3.2)
    w.push(look(3.3, red_top=None))
    assert w.counts()["red"] == 12


def test_a_top_read_steadily_but_weakly_for_seconds_is_a_card_gone():
    # r9700's red QC (kde-oxygen): read as QC at 0.36 in every look for 5.6 s, never above 0.5;
    # each such card went uncounted (red 7 left counted for 4)
    looks = [look(i / 10) for i in range(12)] + [look(1.2 + i / 10, red_top="QC", prob=0.36) for i in range(30)]
    looks += [look(4.2 + i / 10, red_top="7D") for i in range(10)]
    assert watch(*looks).tops("red") == ["KS", "QC", "7D"]
    assert watch(*looks).counts()["red"] == 11
    # a weak reading for a few looks is still a misreading
    looks = [look(i / 10) for i in range(12)] + [look(1.2 + i / 10, red_top="QC", prob=0.36) for i in range(4)]
    looks += [look(1.6 + i / 10, red_top="KS") for i in range(10)]
    assert watch(*looks).counts()["red"] == 13


def test_readings_under_a_hand_weak_or_of_a_joker_say_nothing():
    deal = [look(i / 10) for i in range(12)]
    for kw in ({"hidden": 0.6}, {"prob": 0.3}, {"red_top": "JK"}):
        w = watch(*deal, *[look(1.2 + i / 10, **kw) for i in range(20)])
        assert w.counts()["red"] == 13, kw
    # at a table with jokers, a joker on top is a card
    jokers = Table.from_dict({**TABLE.to_dict(), "rules": {"jokers": True}})
    w = watch(*deal, *[look(1.2 + i / 10, red_top="JK") for i in range(20)], table=jokers)
    assert w.counts()["red"] == 12


LOCATE_S = PileWatchSettings().locate_s
"""Seconds of looks in which the dealt rows locate the Nertz piles (2 s)."""


def test_a_zone_without_a_dealt_row_in_the_first_seconds_gets_no_count():
    w = watch(*[look(i / 10, blue_top=None) for i in range(5)])  # only 0.4 s: located when counted
    assert set(w.counts()) == {"red", "blue"}  # blue's work piles showed: its row is found
    deal = round(LOCATE_S * 10) + 2
    empty = [Look(i, i / 10, []) for i in range(deal)]
    w = watch(*empty, *[look(deal / 10 + i / 10) for i in range(20)])
    assert w.counts() == {} and w.tops("red") == []
    assert watch().counts() == {}


def test_the_pipeline_scores_the_piles_count_and_reports_a_spread_that_disagrees(monkeypatch):
    # red's spread shows 3 cards after blue's call at 4 s; its Nertz pile's top changed twice
    fake_audits(monkeypatch, {0: result(), 1: result(*[("red", 400 + 12 * i, 600, "red", 1) for i in range(3)])})

    def cards(t: float) -> list[dict]:
        top = "KS" if t < 1.5 else "7C" if t < 2.5 else "QD"
        out = []
        for name, row in (("red", RED_ROW), ("blue", BLUE_ROW)):
            for i, (x, y) in enumerate(row):
                card = top if (name, i) == ("red", 0) else DEAL[name][i]
                out.append({"identity": card, "quad": card_quad(x, y).tolist(), "visible": 1.0, "face_up": True,
                            "corner_visible": True})
        return out if t < 4.0 else []

    labels = [{"frame": i, "t": i / 30, "cards": cards(i / 30), "hands": []} for i in range(330)]
    messages: list[dict] = []
    pipe = RefereePipeline(TABLE, LabelObserver(labels), calls=[("blue", 4.0)], on_message=messages.append)
    for i in range(330):
        pipe.step(i, i / 30, frame(0 if i / 30 < 5.0 else 1))
    res = pipe.finish()
    assert pipe.pile_counts == {"red": 11} and pipe.spread_counts == {"red": 3}
    assert res["players"]["red"]["nertz_left"] == 11
    review = [m for m in messages if m.get("type") == "review"]
    assert len(review) == 1 and review[0]["player"] == "red" and "11" in review[0]["message"] and "3" in review[0]["message"]
    # counted once: finishing again pushes nothing new
    assert pipe.finish() == res
    # no "no count" ruling was reported at the call for a count that was to come
    assert not any(m.get("kind") == "no_count" for m in messages)
    # with nothing to count from (no deal seen, no spread), "no count" is reported at the end
    fake_audits(monkeypatch, {0: None, 1: None})  # no back found in any frame
    messages.clear()
    empty = [{"frame": i, "t": i / 30, "cards": [], "hands": []} for i in range(330)]
    pipe = RefereePipeline(TABLE, LabelObserver(empty), calls=[("blue", 4.0)], on_message=messages.append)
    for i in range(330):
        pipe.step(i, i / 30, frame(0 if i / 30 < 5.0 else 1))
    assert not any(m.get("kind") == "no_count" for m in messages)
    pipe.finish()
    assert [m["player"] for m in messages if m.get("kind") == "no_count"] == ["red"]
    # with the count given, neither way counts
    pipe = RefereePipeline(TABLE, LabelObserver(labels), calls=[("blue", 4.0)], nertz_left={"red": 5})
    for i in range(330):
        pipe.step(i, i / 30, frame(0 if i / 30 < 5.0 else 1))
    assert pipe.finish()["players"]["red"]["nertz_left"] == 5 and pipe.pile_counts == {}


@pytest.mark.parametrize("settings,red", [({}, 12), ({"switch_cost": 0.0}, 11), ({"min_prob": 0.995}, None)])
def test_settings_change_what_counts(settings, red):
    looks = [look(i / 10) for i in range(12)] + [look(1.2 + i / 10, red_top="7C", prob=0.99) for i in range(2)]
    looks += [look(1.4 + i / 10, red_top="QD") for i in range(10)]  # 7C read twice: a misreading by default
    w = NertzPileWatch(TABLE, PileWatchSettings(**settings))
    for lk in looks:
        w.push(lk)
    assert w.counts().get("red") == red


def test_the_counts_so_far_follow_the_looks_and_do_not_locate_the_piles_early():
    w = NertzPileWatch(TABLE)
    w.push(look(0.0))
    assert not w.located and w.counts_so_far() == {} and not w.located   # within the deal: not yet
    deal = round(LOCATE_S * 10) + 2
    for i in range(1, deal):
        w.push(look(i / 10))
    assert w.located and w.counts_so_far() == {"red": 13, "blue": 13}
    for i in range(10):
        w.push(look(deal / 10 + i / 10, red_top="7C"))
    assert w.counts_so_far() == {"red": 12, "blue": 13} == w.counts()
    w.played("red", "7C", deal / 10 + 1.1)   # the top played to a foundation: gone, though still read there
    assert w.counts_so_far()["red"] == 11


def test_a_nertz_pile_card_the_detector_missed_in_the_first_second_is_located_by_its_next():
    # blue's Nertz pile top is not seen for the first 1.5 s (a face the detector misses); then it
    # is played and the next card, seen, lies there: the pile is located at the row's end, not
    # at the first work pile (r9385: blue's pile taken for its first work pile, 11 left for 1)
    looks = [look(i / 10, blue_top=None) for i in range(15)]
    looks += [look(1.5 + i / 10, blue_top="QC") for i in range(20)]
    w = watch(*looks)
    np.testing.assert_allclose(w.piles["blue"].place, BLUE_ROW[0])
    assert w.counts()["blue"] == 13  # QC on top, the first never read: nothing seen gone
    early = NertzPileWatch(TABLE, PileWatchSettings(locate_s=1.0))
    for lk in looks:
        early.push(lk)
    np.testing.assert_allclose(early.piles["blue"].place, BLUE_ROW[1])
    # referee_eval's figure: each located pile's distance from the row's end, in card widths
    labels = [{"frame": 0, "cards": [{"owner": n, "face_up": True, "quad": card_quad(x, y).tolist()}
                                     for n, row in (("red", RED_ROW), ("blue", BLUE_ROW)) for x, y in row]}]
    located = {n: (p.place, p.width) for n, p in w.piles.items()}
    assert nertz_piles_off(located, TABLE, labels) == {"red": 0.0, "blue": 0.0}
    located = {n: (p.place, p.width) for n, p in early.piles.items()}
    assert nertz_piles_off(located, TABLE, labels) == {"red": 0.0, "blue": 1.75}   # 70 px, cards 40 wide
    assert nertz_piles_off(located, TABLE, []) == {}
