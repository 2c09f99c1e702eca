import pytest

from nertz.referee.match import Match


def test_rounds_add_up_until_the_target():
    m = Match(["a", "b", "c"], target=100)
    m.add_round({"a": 40, "b": 30, "c": -5})
    assert not m.is_over and m.winner is None and m.settlement() == {}
    m.add_round({"a": 50, "b": 75, "c": 10})
    assert m.totals == {"a": 90, "b": 105, "c": 5}
    assert m.is_over and m.winner == "b"
    assert m.settlement() == {"a": 15, "c": 100}
    with pytest.raises(ValueError, match="over"):
        m.add_round({"a": 1, "b": 1, "c": 1})


def test_several_pass_the_target_highest_total_wins():
    m = Match.replay(["a", "b"], 100, [{"a": 60, "b": 50}, {"a": 45, "b": 60}])
    assert m.totals == {"a": 105, "b": 110} and m.winner == "b"


def test_tie_in_totals_broken_by_rounds_won():
    m = Match.replay(["a", "b"], 55, [{"a": 30, "b": 10}, {"a": 20, "b": 40}, {"a": 5, "b": 5}])
    assert m.totals == {"a": 55, "b": 55}
    assert m.rounds_won == {"a": 2, "b": 2}  # the shared third round counts for both
    assert m.winner is None and m.leaders == ["a", "b"]
    m2 = Match.replay(["a", "b"], 55, [{"a": 30, "b": 10}, {"a": 20, "b": 40}, {"a": 6, "b": 5}, ])
    assert m2.winner == "a"
    m3 = Match.replay(["a", "b"], 55, [{"a": 10, "b": 1}, {"a": 11, "b": 2}, {"a": 34, "b": 52}])
    assert m3.totals == {"a": 55, "b": 55} and m3.winner == "a"  # two rounds won to one


def test_scores_must_name_the_players():
    with pytest.raises(ValueError, match="name"):
        Match(["a", "b"]).add_round({"a": 1})
