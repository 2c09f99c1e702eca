"""Table-driven tests of every rule point of RULES.md and every setting of the table file."""

import pytest

from nertz.referee.errors import EventError
from nertz.referee.round import Round, score
from tests.conftest import make_table, play, verdicts

# Each case: (name, rules settings, events, expected verdicts in time order, expected scores or None)
CASES = [
    (
        "ace starts, suit and rank follow, king completes",
        {},
        [play(1, "red", "AS", 1), play(2, "blue", "2S", 1), play(3, "red", "3S", 1)],
        [("red", "AS", "accepted"), ("blue", "2S", "accepted"), ("red", "3S", "accepted")],
        None,
    ),
    (
        "wrong suit, wrong rank, not an ace",
        {},
        [play(1, "red", "AS", 1), play(2, "blue", "2H", 1), play(3, "blue", "3S", 1), play(4, "red", "5C", 2)],
        [("red", "AS", "accepted"), ("blue", "2H", "wrong_suit"), ("blue", "3S", "wrong_rank"),
         ("red", "5C", "not_an_ace")],
        None,
    ),
    (
        "a pile whose start was rejected is unknown",
        {},
        [play(1, "red", "5C", 7), play(2, "blue", "6C", 7), play(3, "blue", "AC", 7), play(4, "red", "2C", 7)],
        [("red", "5C", "not_an_ace"), ("blue", "6C", "unknown_pile"), ("blue", "AC", "accepted"),
         ("red", "2C", "accepted")],
        None,
    ),
    (
        "several piles of one suit",
        {},
        [play(1, "red", "AH", 1), play(2, "blue", "AH", 2), play(3, "red", "2H", 2), play(4, "blue", "2H", 1)],
        [("red", "AH", "accepted"), ("blue", "AH", "accepted"), ("red", "2H", "accepted"), ("blue", "2H", "accepted")],
        None,
    ),
    (
        "collision: ordered by time, not by log line",
        {},
        [play(5.10, "blue", "AD", 1), play(5.50, "red", "AD", 1), play(5.40, "blue", "AD", 1)],
        [("blue", "AD", "accepted"), ("blue", "AD", "duplicate"), ("red", "AD", "collision_loser")],
        None,
    ),
    (
        "collision loser is the later arrival",
        {},
        [play(1, "red", "AS", 1), play(2.50, "blue", "2S", 1), play(2.40, "red", "2S", 1)],
        [("red", "AS", "accepted"), ("red", "2S", "accepted"), ("blue", "2S", "collision_loser")],
        None,
    ),
    (
        "tie within one frame: both stay by default",
        {},
        [play(1, "red", "AS", 1), play(2.40, "red", "2S", 1), play(2.43, "blue", "2S", 1), play(3, "blue", "3S", 1)],
        [("red", "AS", "accepted"), ("red", "2S", "accepted"), ("blue", "2S", "accepted"), ("blue", "3S", "accepted")],
        {"red": 2, "blue": 2},
    ),
    (
        "tie under strict goes to review; the earlier stays meanwhile",
        {"tie": "strict"},
        [play(1, "red", "AS", 1), play(2.40, "red", "2S", 1), play(2.43, "blue", "2S", 1)],
        [("red", "AS", "accepted"), ("red", "2S", "accepted"), ("blue", "2S", "collision_loser")],
        {"red": 2, "blue": 0},
    ),
    (
        "a wider tie window makes a tie",
        {"tie_window": 0.2},
        [play(1, "red", "AS", 1), play(2.40, "red", "2S", 1), play(2.55, "blue", "2S", 1)],
        [("red", "AS", "accepted"), ("red", "2S", "accepted"), ("blue", "2S", "accepted")],
        None,
    ),
    (
        "completed pile takes nothing more, its cards still count",
        {},
        [play(i, "red" if i % 2 else "blue", r + "S", 1) for i, r in enumerate("A23456789TJQK", start=1)]
        + [play(20, "red", "AS", 1)],
        [("red" if i % 2 else "blue", r + "S", "accepted") for i, r in enumerate("A23456789TJQK", start=1)]
        + [("red", "AS", "duplicate")],
        {"red": 7, "blue": 6},
    ),
    (
        "a player's copy of a card lies on the foundations once",
        {},
        [play(1, "red", "AS", 1), play(2, "red", "AS", 2)],
        [("red", "AS", "accepted"), ("red", "AS", "duplicate")],
        None,
    ),
    (
        "plays within the in-the-air grace count, later ones are late",
        {},
        [play(1, "red", "AS", 1), {"t": 10, "type": "call", "player": "red"}, play(10.9, "blue", "2S", 1),
         play(11.2, "blue", "3S", 1)],
        [("red", "AS", "accepted"), ("blue", "2S", "accepted"), ("blue", "3S", "late")],
        {"red": 1, "blue": 1},
    ),
    (
        "in_air return: every play after the call is late",
        {"in_air": "return"},
        [play(1, "red", "AS", 1), {"t": 10, "type": "call", "player": "red"}, play(10.1, "blue", "2S", 1)],
        [("red", "AS", "accepted"), ("blue", "2S", "late")],
        None,
    ),
    (
        "a longer grace",
        {"in_air_grace": 3.0},
        [play(1, "red", "AS", 1), {"t": 10, "type": "call", "player": "red"}, play(12.5, "blue", "2S", 1)],
        [("red", "AS", "accepted"), ("blue", "2S", "accepted")],
        None,
    ),
    (
        "false call: the round goes on",
        {},
        [{"t": 4, "type": "nertz_left", "player": "red", "count": 3}, {"t": 5, "type": "call", "player": "red"},
         play(8, "blue", "AS", 1), {"t": 30, "type": "nertz_left", "player": "blue", "count": 2},
         {"t": 30, "type": "nertz_left", "player": "red", "count": 3}],
        [("blue", "AS", "accepted")],
        {"red": -6, "blue": -3},
    ),
    (
        "stuck: no caller, everyone pays",
        {},
        [play(1, "red", "AS", 1), {"t": 50, "type": "round_end", "reason": "stuck"}, play(51, "blue", "2S", 1),
         {"t": 52, "type": "nertz_left", "player": "red", "count": 1},
         {"t": 52, "type": "nertz_left", "player": "blue", "count": 5}],
        [("red", "AS", "accepted"), ("blue", "2S", "late")],
        {"red": -1, "blue": -10},
    ),
    (
        "penalty and bonus settings",
        {"nertz_penalty": 3, "nertz_bonus": 10},
        [play(1, "red", "AS", 1), play(2, "blue", "AH", 2), {"t": 9, "type": "call", "player": "red"},
         {"t": 20, "type": "nertz_left", "player": "blue", "count": 4}],
        [("red", "AS", "accepted"), ("blue", "AH", "accepted")],
        {"red": 11, "blue": -11},
    ),
]


@pytest.mark.parametrize("name, rules, events, expected, scores", CASES, ids=[c[0] for c in CASES])
def test_rule_points(name, rules, events, expected, scores):
    game = Round(make_table(**rules), events)
    assert verdicts(game) == expected
    if scores is not None:
        assert {n: s.score for n, s in game.result.players.items()} == scores


def test_worked_example_of_the_rules():
    """RULES.md: A calls with 20 cards on the foundations: 20; B has 15 and 4 left: 15 - 8 = 7."""
    events = []
    t = 0.0
    # A (red) plays spades and hearts A..T (20 cards); B (blue) plays diamonds A..K and clubs A, 2 (15).
    for suit, pile in (("S", 1), ("H", 2)):
        for r in "A23456789T":
            t += 1
            events.append(play(t, "red", r + suit, pile))
    for r in "A23456789TJQK":
        t += 1
        events.append(play(t, "blue", r + "D", 3))
    for r in "A2":
        t += 1
        events.append(play(t, "blue", r + "C", 4))
    events += [{"t": t + 1, "type": "call", "player": "red"}, {"t": t + 5, "type": "nertz_left", "player": "blue", "count": 4}]
    result = score(make_table(("A", "B")).to_dict() | {"players": [{"name": "red", "back": "#b3261e"}, {"name": "blue", "back": "#1e4bb3"}]}, events)
    assert result["caller"] == "red"
    assert result["players"] == {"red": {"foundation": 20, "nertz_left": 0, "score": 20},
                                 "blue": {"foundation": 15, "nertz_left": 4, "score": 7}}


def test_a_late_copy_after_the_pile_moved_on_is_the_wrong_rank():
    game = Round(make_table(("red", "blue", "green")), [play(1, "red", "AS", 1), play(2, "blue", "2S", 1), play(3, "green", "3S", 1), play(4, "red", "2S", 1)])
    assert verdicts(game)[-1] == ("red", "2S", "wrong_rank")
    # but a third copy after a both-stay tie still collides with the pile's top
    tie = Round(make_table(("red", "blue", "green")), [play(1, "red", "AS", 1), play(2, "blue", "2S", 1), play(2.02, "green", "2S", 1), play(3, "red", "2S", 1)])
    assert verdicts(tie)[-1] == ("red", "2S", "collision_loser")


def test_collision_ruling_names_winner_and_loser():
    game = Round(make_table(), [play(1, "red", "AS", 1), play(2.40, "blue", "2S", 1), play(2.50, "red", "2S", 1)])
    collisions = [r for r in game.rulings if r.kind == "collision"]
    assert len(collisions) == 1
    c = collisions[0].to_json()
    assert (c["type"], c["pile"], c["winner"], c["loser"], c["card"]) == ("ruling", 1, "blue", "red", "2S")
    assert "take back" in next(r for r in game.rulings if r.kind == "rejected").message


def test_strict_tie_is_resolved_by_a_person():
    events = [play(1, "red", "AS", 1), play(2.40, "red", "2S", 1), play(2.43, "blue", "2S", 1)]
    game = Round(make_table(tie="strict"), events)
    assert game.result.reviews == ("tie:1:2S",)
    review = next(r for r in game.rulings if r.kind == "review")
    assert review.id == "tie:1:2S" and set(review.players) == {"red", "blue"}
    resolved = Round(make_table(tie="strict"), events + [{"type": "resolve", "id": "tie:1:2S", "winner": "blue"}])
    assert resolved.result.reviews == ()
    assert verdicts(resolved) == [("red", "AS", "accepted"), ("red", "2S", "collision_loser"), ("blue", "2S", "accepted")]
    assert {n: s.foundation for n, s in resolved.result.players.items()} == {"red": 1, "blue": 1}
    pile = resolved.replay().foundations.piles[1]
    assert [(str(c.card), c.owner) for c in pile.cards] == [("AS", "red"), ("2S", "blue")]


def test_answers_no_review_item_asked_for_are_listed_not_applied():
    # a newcomer's log: a resolve with a mistyped id was ignored without a word by `nertz score`
    events = [play(1, "red", "AS", 1), play(2.40, "red", "2S", 1), play(2.43, "blue", "2S", 1)]
    used = Round(make_table(tie="strict"), events + [{"type": "resolve", "id": "tie:1:2S", "winner": "blue"}])
    assert used.replay().unused_answers == ()
    typo = Round(make_table(tie="strict"), events + [{"type": "resolve", "id": "tie:9:2S", "winner": "blue"}])
    assert typo.replay().unused_answers == ("tie:9:2S",)
    assert typo.result.reviews == ("tie:1:2S",)  # the real question is still open
    jokers = Round(make_table(jokers=True), [play(1, "red", "JK", 4), {"type": "resolve", "id": "joker:4", "as": "AS"},
                                             {"type": "resolve", "id": "joker:7", "as": "AH"}])
    assert jokers.replay().unused_answers == ("joker:7",)
    from nertz.referee.report import format_round

    assert "Answers to no review item of this round (ignored): tie:9:2S." in format_round(typo)
    assert "Answers to no review item" not in format_round(used)


def test_call_with_no_count_is_taken_at_the_players_word_and_later_count_decides():
    # The caller's count is reported only after the call: 2 cards left, so the call was false.
    game = Round(make_table(), [{"t": 5, "type": "call", "player": "red"}, {"t": 9, "type": "nertz_left", "player": "red", "count": 2}])
    assert [r.kind for r in game.rulings][0] == "false_call"
    assert game.result.ended is None and game.result.caller is None
    ok = Round(make_table(), [{"t": 5, "type": "call", "player": "red"}])
    assert ok.result.caller == "red" and ok.result.ended == "call"


def test_second_call_after_the_end_is_ignored():
    game = Round(make_table(), [{"t": 5, "type": "call", "player": "red"}, {"t": 6, "type": "call", "player": "blue"}])
    assert game.result.caller == "red"
    assert [r.kind for r in game.rulings][:2] == ["round_end", "call_after_end"]


def test_missing_count_is_reported_not_hidden():
    game = Round(make_table(), [{"t": 5, "type": "call", "player": "red"}])
    assert [r.player for r in game.rulings if r.kind == "no_count"] == ["blue"]


def test_take_backs():
    events = [play(1, "red", "AS", 1), play(2, "blue", "3S", 1), {"t": 3, "type": "take_back", "player": "blue", "card": "3S", "pile": 1},
              play(4, "blue", "2S", 1), {"t": 5, "type": "take_back", "player": "blue", "card": "2S", "pile": 1}]
    game = Round(make_table(), events)
    kinds = [r.kind for r in game.rulings]
    assert kinds == ["accepted", "rejected", "returned", "accepted", "taken_back"]
    assert game.result.players["blue"].foundation == 0
    assert game.replay().foundations.piles[1].next_card.__str__() == "2S"
    stray = Round(make_table(), [{"t": 3, "type": "take_back", "player": "red", "card": "9S", "pile": 1}])
    assert [r.kind for r in stray.rulings] == ["unmatched_take_back"]


class TestJokers:
    def test_jokers_off(self):
        game = Round(make_table(), [play(1, "red", "JK", 1)])
        assert verdicts(game) == [("red", "JK", "jokers_off")]

    def test_undeclared_joker_takes_the_only_legal_identity(self):
        game = Round(make_table(jokers=True), [play(1, "red", "AH", 1), play(2, "blue", "JK", 1), play(3, "red", "3H", 1)])
        assert verdicts(game) == [("red", "AH", "accepted"), ("blue", "JK", "accepted"), ("red", "3H", "accepted")]
        assert next(r for r in game.rulings if r.player == "blue").as_ == "2H"
        assert game.result.players["blue"].foundation == 1

    def test_declared_joker_is_what_was_declared(self):
        ok = Round(make_table(jokers=True), [play(1, "red", "AH", 1), play(2, "blue", "JK", 1, **{"as": "2H"})])
        assert verdicts(ok)[-1] == ("blue", "JK", "accepted")
        for declared, reason in (("3H", "wrong_rank"), ("2C", "wrong_suit")):
            bad = Round(make_table(jokers=True), [play(1, "red", "AH", 1), play(2, "blue", "JK", 1, **{"as": declared})])
            assert verdicts(bad)[-1] == ("blue", "JK", reason)

    def test_declared_joker_starts_a_pile(self):
        game = Round(make_table(jokers=True), [play(1, "red", "JK", 4, **{"as": "AD"}), play(2, "blue", "2D", 4)])
        assert verdicts(game) == [("red", "JK", "accepted"), ("blue", "2D", "accepted")]
        bad = Round(make_table(jokers=True), [play(1, "red", "JK", 4, **{"as": "5D"})])
        assert verdicts(bad) == [("red", "JK", "not_an_ace")]

    def test_undeclared_joker_ace_asks_then_a_real_card_settles_it(self):
        events = [play(1, "red", "JK", 4)]
        game = Round(make_table(jokers=True), events)
        assert [r.kind for r in game.rulings] == ["accepted", "declare"]
        assert game.result.reviews == ("joker:4",)
        settled = Round(make_table(jokers=True), events + [play(2, "blue", "2C", 4)])
        assert settled.result.reviews == ()
        assert str(settled.replay().foundations.piles[4].cards[0].identity) == "AC"
        declared = Round(make_table(jokers=True), events + [{"type": "resolve", "id": "joker:4", "as": "AS"}, play(2, "blue", "2C", 4)])
        assert verdicts(declared)[-1] == ("blue", "2C", "wrong_suit")

    def test_a_declare_at_a_table_without_jokers_is_refused(self):
        # it would be stored and ruled on nothing (found posted to the service: pile 99, jokers off)
        with pytest.raises(EventError, match="no jokers are played at this table"):
            Round(make_table(), [play(1, "red", "AH", 1), {"type": "declare", "pile": 99, "as": "AS"}])
        game = Round(make_table(jokers=True), [play(1, "red", "JK", 4), {"type": "declare", "pile": 4, "as": "AS"}])
        assert game.result.reviews == ()

    def test_two_jokers_per_deck(self):
        game = Round(make_table(jokers=True), [play(1, "red", "AH", 1), play(2, "red", "JK", 1), play(3, "red", "JK", 1), play(4, "red", "JK", 1)])
        assert [v[2] for v in verdicts(game)] == ["accepted", "accepted", "accepted", "too_many_jokers"]


def test_partnership_members_play_for_the_partnership():
    from nertz.referee.table import Table

    table = Table.from_dict({
        "players": [{"name": "north", "back": "#b3261e", "members": ["ann", "bob"]},
                    {"name": "south", "back": "#1e4bb3", "members": ["cy", "dee"]},
                    {"name": "east", "back": "#2e7d32", "members": ["eve", "fay"]}],
        "rules": {"partnerships": True},
    })
    game = Round(table, [play(1, "ann", "AS", 1), play(2, "bob", "2S", 1), play(3, "cy", "3S", 1),
                         {"t": 4, "type": "call", "player": "bob"},
                         {"t": 9, "type": "nertz_left", "player": "south", "count": 2},
                         {"t": 9, "type": "nertz_left", "player": "east", "count": 1}])
    res = game.result
    assert res.caller == "north"
    assert {n: s.score for n, s in res.players.items()} == {"north": 2, "south": -3, "east": -2}


@pytest.mark.parametrize(
    "event, fragment",
    [
        (play(1, "mallory", "AS", 1), "unknown player"),
        ({"t": 1, "type": "play", "player": "red", "card": "1X", "pile": 1}, "card"),
        ({"t": 1, "type": "play", "player": "red", "pile": 1}, "card: missing"),
        ({"t": -1, "type": "play", "player": "red", "card": "AS", "pile": 1}, "t"),
        ({"t": 1, "type": "dance", "player": "red"}, "unknown event type"),
        ({"t": 1, "type": "nertz_left", "player": "red", "count": 14}, "count"),
        ({"t": 1, "type": "play", "player": "red", "card": "JK", "pile": 1, "as": "JK"}, "declared as a real card"),
        ("not an object", "JSON object"),
        # values must have their JSON types, cards their upper-case notation
        ({"t": 1, "type": "play", "player": "red", "card": "AS", "pile": "1"}, "pile: must be a whole number, not the text '1'"),
        ({"t": 1, "type": "play", "player": "red", "card": "AS", "pile": True}, "pile: must be a whole number, not true"),
        ({"t": 1, "type": "play", "player": "red", "card": "AS", "pile": 1.0}, "pile: must be a whole number, not 1.0"),
        ({"t": 1, "type": "play", "player": "red", "card": "as", "pile": 1}, "card: 'as' is not in the card notation: write 'AS'"),
        ({"t": 1, "type": "play", "player": "red", "card": "10H", "pile": 1}, "write 'TH'"),
        ({"t": 1, "type": "play", "player": "red", "card": "JK", "pile": 1, "as": "5h"}, "as: '5h' is not in the card notation"),
        ({"t": float("nan"), "type": "play", "player": "red", "card": "AS", "pile": 1}, "t: NaN is not a finite number"),
        ({"t": float("inf"), "type": "call", "player": "red"}, "t: Infinity is not a finite number"),
        ({"t": "1", "type": "call", "player": "red"}, "t: must be a number, not the text '1'"),
        ({"t": 1, "type": "play", "player": "red", "card": "AS", "pile": 1, "confidence": True}, "confidence: must be a number"),
        ({"t": float("nan"), "type": "nertz_left", "player": "red", "count": 1}, "t: NaN is not a finite number"),
        ({"t": 1, "type": "nertz_left", "player": "red", "count": "1"}, "count: must be a whole number"),
        ({"type": "declare", "pile": "4", "as": "AS"}, "pile: must be a whole number"),
    ],
)
def test_bad_events_are_clear_errors(event, fragment):
    with pytest.raises(EventError) as exc:
        Round(make_table(), [event])
    assert fragment in str(exc.value)


def test_count_above_a_smaller_nertz_pile_is_refused():
    with pytest.raises(EventError, match="Nertz pile size"):
        Round(make_table(nertz_pile=11), [{"t": 1, "type": "nertz_left", "player": "red", "count": 12}])


def test_push_out_of_order_replays():
    game = Round(make_table())
    game.push(play(2.5, "blue", "2S", 1))
    assert verdicts(game) == [("blue", "2S", "not_an_ace")]
    game.push(play(1.0, "red", "AS", 1))  # reported late by the tracker, happened first
    assert verdicts(game) == [("red", "AS", "accepted"), ("blue", "2S", "accepted")]


def test_input_rulings_and_results_are_ignored():
    events = [play(1, "red", "AS", 1), {"t": 2, "type": "ruling", "kind": "collision", "pile": 1, "winner": "red", "loser": "blue"},
              {"type": "result", "caller": None, "players": {}}, {"t": 3, "type": "stuck"}]
    assert verdicts(Round(make_table(), events)) == [("red", "AS", "accepted")]


def test_numbers_of_other_numeric_types_are_taken_as_the_numbers_they_are():
    # the tracker's events may carry NumPy numbers; a JSON integer time is a time
    np = pytest.importorskip("numpy")
    game = Round(make_table(), [{"t": np.float32(1.5), "type": "play", "player": "red", "card": "AS", "pile": np.int64(2),
                                 "confidence": np.float64(0.5)},
                                {"t": 2, "type": "play", "player": "blue", "card": "2S", "pile": 2}])
    assert verdicts(game) == [("red", "AS", "accepted"), ("blue", "2S", "accepted")]
    assert game.events[0].pile == 2 and type(game.events[0].pile) is int and game.events[1].t == 2.0
