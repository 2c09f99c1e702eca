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


def test_match_text_shows_rounds_won_as_the_json_does(tmp_path):
    # the README lists "rounds won" for `nertz match`; only --json printed them
    import json

    from typer.testing import CliRunner

    from nertz.cli import app

    def round_log(name, red, blue):
        lines, t = [], 0.0
        for owner, n, suit, pile in (("red", red, "S", 1), ("blue", blue, "H", 2)):
            for r in "A23456789TJQK"[:n]:
                t += 1
                lines.append({"t": t, "type": "play", "player": owner, "card": r + suit, "pile": pile})
        lines.append({"t": t + 1, "type": "call", "player": "red"})
        lines.append({"t": t + 2, "type": "nertz_left", "player": "blue", "count": 0})
        path = tmp_path / name
        path.write_text("".join(json.dumps(x) + "\n" for x in lines))
        return str(path)

    # red wins round 1, blue round 2, round 3 is a tie that counts for both
    logs = [round_log("1.jsonl", 5, 2), round_log("2.jsonl", 1, 4), round_log("3.jsonl", 3, 3)]
    runner = CliRunner()
    as_json = runner.invoke(app, ["match", *logs, "--json"])
    assert as_json.exit_code == 0, as_json.output
    won = json.loads(as_json.output)["rounds_won"]
    assert won == {"red": 2, "blue": 2}
    text = runner.invoke(app, ["match", *logs])
    assert text.exit_code == 0, text.output
    lines = text.output.splitlines()
    header = lines[0].split()
    row = next(line for line in lines if line.startswith("rounds won"))
    assert dict(zip(header[1:], map(int, row.split()[2:]))) == won
