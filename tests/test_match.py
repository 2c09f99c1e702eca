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
    assert m.rounds_won == {"a": 1, "b": 1}  # the shared third round is a win for neither
    assert m.rounds_tied == {"a": 1, "b": 1}
    assert m.winner is None and m.leaders == ["a", "b"]
    m2 = Match.replay(["a", "b"], 55, [{"a": 30, "b": 10}, {"a": 20, "b": 40}, {"a": 6, "b": 5}, ])
    assert m2.winner == "a"
    m3 = Match.replay(["a", "b"], 55, [{"a": 10, "b": 1}, {"a": 11, "b": 2}, {"a": 34, "b": 52}])
    assert m3.totals == {"a": 55, "b": 55} and m3.winner == "a"  # two rounds won to one


def test_scores_must_name_the_players():
    with pytest.raises(ValueError, match="name"):
        Match(["a", "b"]).add_round({"a": 1})


def test_a_round_is_won_by_the_one_best_score_and_tied_by_a_shared_one():
    m = Match.replay(["a", "b", "c"], 100, [{"a": 0, "b": 0, "c": 0}, {"a": 1, "b": 0, "c": 0},
                                             {"a": 5, "b": 5, "c": -2}])
    assert m.rounds_won == {"a": 1, "b": 0, "c": 0}
    assert m.rounds_tied == {"a": 2, "b": 2, "c": 1}
    assert m.leaders == ["a"]


def test_a_round_that_has_not_ended_is_refused():
    from nertz.referee.scoring import PlayerScore, RoundResult

    def result(ended):
        players = {"a": PlayerScore(1, 0, 1), "b": PlayerScore(0, 0, 0)}
        return RoundResult("a" if ended == "call" else None, ended, 3.0 if ended else None, players)

    m = Match(["a", "b"])
    with pytest.raises(ValueError, match="has not ended"):
        m.add_round(result(None))
    assert m.rounds == []
    for ended in ("call", "stuck", "ended"):
        m.add_round(result(ended))
    assert m.rounds == [{"a": 1, "b": 0}] * 3 and m.rounds_won == {"a": 3, "b": 0}
