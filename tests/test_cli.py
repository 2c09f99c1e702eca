"""The ``nertz score`` and ``nertz match`` commands, run as a user runs them."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[1] / "datasets" / "examples" / "club-night"


def nertz(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "nertz", *args], capture_output=True, text=True, cwd=cwd, timeout=120)


def write(path: Path, lines: list) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    return path


def test_score_the_bundled_example_by_default():
    out = nertz("score")
    assert out.returncode == 0, out.stderr
    assert "Round ended by red's call" in out.stdout
    assert "red, take back your 2D: green's reached pile 3 first" in out.stdout


def test_score_with_a_table_and_no_log_asks_for_the_log(tmp_path):
    # the bundled example's log names red, green and blue: scored against another table it
    # failed on an "unknown player" of a file the user never gave
    table = json.loads((EXAMPLE / "table.json").read_text())
    table["players"] = [{**p, "name": n} for p, n in zip(table["players"], ("ann", "bo", "cy"))]
    out = nertz("score", "--table", str(write(tmp_path / "t.json", [table])))
    assert out.returncode == 2 and out.stderr.startswith("error: give the event log") and "Traceback" not in out.stderr


def test_score_json_ends_with_the_result_line():
    out = nertz("score", str(EXAMPLE / "events.jsonl"), "--table", str(EXAMPLE / "table.json"), "--json")
    assert out.returncode == 0, out.stderr
    lines = [json.loads(x) for x in out.stdout.splitlines()]
    assert all(x["type"] == "ruling" for x in lines[:-1])
    result = lines[-1]
    assert result["type"] == "result" and result["caller"] == "red"
    # Tallied by hand from the log (see datasets/examples/club-night/README.md).
    assert result["players"] == {
        "red": {"foundation": 12, "nertz_left": 0, "score": 12},
        "blue": {"foundation": 10, "nertz_left": 4, "score": 2},
        "green": {"foundation": 8, "nertz_left": 6, "score": -4},
    }
    kinds = [x.get("reason") or x["kind"] for x in lines[:-1]]
    for expected in ("collision_loser", "collision", "tie", "wrong_rank", "not_an_ace", "pile_complete", "false_call", "late"):
        assert expected in kinds


def test_score_without_a_table_uses_the_names_in_the_log(tmp_path):
    log = write(tmp_path / "r.jsonl", [{"t": 1, "type": "play", "player": "ann", "card": "AS", "pile": 1},
                                        {"t": 2, "type": "call", "player": "ann"},
                                        {"t": 3, "type": "nertz_left", "player": "bo", "count": 3}])
    out = nertz("score", str(log), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.splitlines()[-1])["players"]["bo"]["score"] == -6


def test_what_the_referee_printed_can_be_scored_as_it_is(tmp_path):
    """``nertz referee --json`` prints a ``review`` line for each play it is unsure of: its
    output was refused by ``score`` and ``match`` ("unknown event type 'review'")."""
    log = write(tmp_path / "r.jsonl", [
        {"t": 1.0, "type": "play", "player": "red", "card": "AS", "pile": 1, "confidence": 0.6},
        {"t": 1.0, "type": "review", "pile": 1, "card": "AS", "player": "red", "confidence": 0.6,
         "message": "whose AS on pile 1? the camera is not sure it was red's"},
        {"t": 1.0, "type": "ruling", "kind": "accepted", "player": "red", "card": "AS", "pile": 1,
         "message": "red's AS stands on pile 1"},
        {"t": 2.0, "type": "call", "player": "red"},
        {"t": 5.0, "type": "review", "player": "blue", "message": "blue's Nertz cards left: 3 from the changes of "
         "the pile's top card (scored), 4 counted in the spread after the call"},
        {"t": 5.0, "type": "nertz_left", "player": "blue", "count": 3},
        {"t": 5.0, "type": "nertz_left", "player": "green", "count": 0},
    ])
    out = nertz("score", str(log), "--table", str(EXAMPLE / "table.json"), "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.splitlines()[-1])
    assert result["caller"] == "red" and result["players"]["blue"]["score"] == -6
    out = nertz("match", str(log), str(log), "--table", str(EXAMPLE / "table.json"), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["totals"]["red"] == 2


def test_what_the_referee_printed_with_an_audit_photo_can_be_scored_as_it_is(tmp_path):
    """``nertz referee --json --audit PHOTO`` prints the back count's ``audit`` line before the
    result line: ``score`` refused the whole log ("unknown event type 'audit'"). It is ignored
    as the result line is: the round is scored by its plays and Nertz counts."""
    log = write(tmp_path / "r.jsonl", [
        {"t": 1.0, "type": "play", "player": "red", "card": "AS", "pile": 1, "confidence": 0.97},
        {"t": 2.0, "type": "call", "player": "red"},
        {"t": 5.0, "type": "nertz_left", "player": "blue", "count": 3},
        {"t": 5.0, "type": "nertz_left", "player": "green", "count": 0},
        {"type": "audit", "counts": {"red": 2, "blue": 0, "green": 0}, "unknown": 0, "face_up": 0,
         "zones": {"blue": {"blue": 3}, "green": {}}},
        {"type": "result", "caller": "red", "scored_by": "audit", "players": {}},
    ])
    out = nertz("score", str(log), "--table", str(EXAMPLE / "table.json"), "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.splitlines()[-1])
    assert result["caller"] == "red" and result["players"]["red"]["foundation"] == 1
    assert result["players"]["blue"]["score"] == -6


@pytest.mark.parametrize(
    "lines, fragment",
    [
        (['{"t": 1, "type": "play", "player": "red", "card": "AS", "pile": 1}', "{not json"], "line 2: not valid JSON"),
        ([{"t": 1, "type": "play", "player": "red", "card": "AS", "pile": 1},
          {"t": 2, "type": "play", "player": "red", "card": "1X", "pile": 1}], "line 2"),
        ([{"t": 1, "type": "play", "player": "mallory", "card": "AS", "pile": 1}], "line 1: unknown player 'mallory'"),
        (["[1, 2]"], "line 1: an event is a JSON object"),
        (['{"t": 1, "type": "play", "player": "red", "card": "AS", "pile": "1"}'], "line 1: invalid play event: pile: must be a whole number"),
        (['{"t": 1, "type": "play", "player": "red", "card": "AS", "pile": true}'], "line 1: invalid play event: pile: must be a whole number"),
        (['{"t": 1, "type": "play", "player": "red", "card": "as", "pile": 1}'], "line 1: invalid play event: card: 'as' is not in the card notation"),
        (['{"t": NaN, "type": "play", "player": "red", "card": "AS", "pile": 1}'], "line 1: invalid play event: t: NaN is not a finite number"),
        # the service's API limits (a log the live replay would wait on forever, a 26-digit pile)
        (['{"t": 1e300, "type": "play", "player": "red", "card": "AS", "pile": 1}'], "line 1: invalid play event: t: Input should be less than or equal to 1000000"),
        (['{"t": 1, "type": "play", "player": "red", "card": "AS", "pile": 99999999999999999999999999}'], "line 1: invalid play event: pile: Input should be less than or equal to 10000"),
        # an answer's shape is known at its line (it was refused once the round was ruled, with no line)
        ([{"t": 1, "type": "play", "player": "red", "card": "AS", "pile": 1}, {"type": "resolve", "id": "tie:1:AS"}],
         "line 2: resolve 'tie:1:AS': a tie is resolved with 'winner'"),
        ([{"type": "resolve", "id": "joker:one", "as": "AS"}], "line 1: resolve 'joker:one': expected 'joker:<pile number>'"),
        ([{"type": "resolve", "id": "pile:1", "winner": "red"}], "line 1: resolve 'pile:1': unknown review item"),
    ],
)
def test_bad_logs_fail_cleanly_with_the_line(tmp_path, lines, fragment):
    log = write(tmp_path / "bad.jsonl", lines)
    out = nertz("score", str(log), "--table", str(EXAMPLE / "table.json"), "--json")
    assert out.returncode == 2
    assert out.stdout == ""  # nothing half-printed
    assert fragment in out.stderr and str(log) in out.stderr
    assert "Traceback" not in out.stderr


def test_bad_table_and_missing_files_fail_cleanly(tmp_path):
    bad = tmp_path / "t.json"
    bad.write_text('{"players": [{"name": "red", "back": "#b3261e"}, {"name": "blue", "back": "navy"}]}')
    table = json.loads((EXAMPLE / "table.json").read_text())
    jokers, target = tmp_path / "jokers.json", tmp_path / "target.json"
    jokers.write_text(json.dumps({**table, "rules": {"jokers": "yes"}}))
    target.write_text(json.dumps({**table, "rules": {"target": "100"}}))
    for args, fragment in [
        (["score", str(EXAMPLE / "events.jsonl"), "--table", str(bad)], "players.1.back"),
        (["score", str(tmp_path / "nope.jsonl")], "no such file"),
        (["score", str(tmp_path)], "is a folder"),
        (["score", str(EXAMPLE / "events.jsonl"), "--table", str(EXAMPLE / "events.jsonl")], "not valid JSON"),
        (["score", str(EXAMPLE / "events.jsonl"), "--table", str(jokers)], "rules.jokers: must be true or false"),
        (["match", str(EXAMPLE / "events.jsonl"), "--table", str(target)], "rules.target: must be a whole number"),
    ]:
        out = nertz(*args)
        assert out.returncode == 2, args
        assert fragment in out.stderr and "Traceback" not in out.stderr and out.stdout == ""


def _round_log(path: Path, red: int, blue: int) -> Path:
    """An event log of a round in which red plays ``red`` spades and blue ``blue`` hearts to two
    piles, red calls and blue has no Nertz card left."""
    lines, t = [], 0.0
    for owner, n, suit, pile in (("red", red, "S", 1), ("blue", blue, "H", 2)):
        for r in "A23456789TJQK"[:n]:
            t += 1
            lines.append({"t": t, "type": "play", "player": owner, "card": r + suit, "pile": pile})
    lines.append({"t": t + 1, "type": "call", "player": "red"})
    lines.append({"t": t + 2, "type": "nertz_left", "player": "blue", "count": 0})
    return write(path, lines)


def test_match_text_shows_rounds_won_as_the_json_does(tmp_path):
    # the README lists "rounds won" for `nertz match`; only --json printed them
    from typer.testing import CliRunner

    from nertz.cli import app

    # red wins round 1, blue round 2, round 3 is a tie: a win for neither, tied for both
    logs = [str(_round_log(tmp_path / f"{i}.jsonl", red, blue)) for i, (red, blue) in enumerate([(5, 2), (1, 4), (3, 3)])]
    runner = CliRunner()
    as_json = runner.invoke(app, ["match", *logs, "--json"])
    assert as_json.exit_code == 0, as_json.output
    won, tied = json.loads(as_json.output)["rounds_won"], json.loads(as_json.output)["rounds_tied"]
    assert won == {"red": 1, "blue": 1} and tied == {"red": 1, "blue": 1}
    text = runner.invoke(app, ["match", *logs])
    assert text.exit_code == 0, text.output
    lines = text.output.splitlines()
    header = lines[0].split()
    row = next(line for line in lines if line.startswith("rounds won"))
    assert dict(zip(header[1:], map(int, row.split()[2:]))) == won
    row = next(line for line in lines if line.startswith("rounds tied"))
    assert dict(zip(header[1:], map(int, row.split()[2:]))) == tied


def test_match_refuses_a_round_that_has_not_ended(tmp_path):
    # an empty log and a log of one ace: neither round ended, so neither is a round of the match
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    one_ace = write(tmp_path / "one_ace.jsonl", [{"t": 1, "type": "play", "player": "red", "card": "AS", "pile": 1}])
    finished = str(EXAMPLE / "events.jsonl")
    for logs, named in (([empty, one_ace], empty), ([finished, one_ace], one_ace)):
        out = nertz("match", *map(str, logs), "--table", str(EXAMPLE / "table.json"))
        assert out.returncode == 2 and out.stdout == "" and "Traceback" not in out.stderr
        assert out.stderr.startswith(f"error: {named}: the round has not ended") and len(out.stderr.splitlines()) == 1
    # a round ended by everyone being stuck is a finished round
    stuck = write(tmp_path / "stuck.jsonl", [{"t": 1, "type": "play", "player": "red", "card": "AS", "pile": 1},
                                             {"t": 9, "type": "round_end", "reason": "stuck"}])
    out = nertz("match", finished, str(stuck), "--table", str(EXAMPLE / "table.json"), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["rounds"][1] == {"red": 1, "blue": 0, "green": 0}


def test_match_columns_fit_short_names_and_wide_numbers(tmp_path):
    from typer.testing import CliRunner

    from nertz.cli import app

    log = write(tmp_path / "r.jsonl", [{"t": 1, "type": "play", "player": "a", "card": "AS", "pile": 1},
                                       {"t": 2, "type": "call", "player": "a"},
                                       {"t": 3, "type": "nertz_left", "player": "b", "count": 13}])
    text = CliRunner().invoke(app, ["match", str(log)])
    assert text.exit_code == 0, text.output
    rows = [line for line in text.output.splitlines()[:5]]
    assert rows[0].split() == ["round", "a", "b"] and rows[1].split() == ["1", "1", "-26"]
    # every column's cells end at the same place, and no two cells touch
    assert len({len(r) for r in rows}) == 1
    assert rows[0].index("b") == rows[1].index("-26") + 2


def test_score_table_header_lines_up_with_short_names(tmp_path):
    log = write(tmp_path / "r.jsonl", [{"t": 1, "type": "play", "player": "a", "card": "AS", "pile": 1},
                                       {"t": 2, "type": "call", "player": "a"},
                                       {"t": 3, "type": "nertz_left", "player": "bb", "count": 1}])
    out = nertz("score", str(log))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    i = next(i for i, line in enumerate(lines) if line.startswith("player"))
    header, row = lines[i], lines[i + 1]
    assert header.split() == ["player", "foundation", "nertz", "left", "score"] and row.split()[:4] == ["a", "1", "0", "1"]
    for column in ("foundation", "nertz left", "score"):  # numbers end under the end of their header
        end = header.index(column) + len(column)
        assert row[end - 1].isdigit() and (end == len(row) or row[end] == " ")
    assert "player  foundation" in header


def test_match_adds_rounds_and_settles(tmp_path):
    def round_log(name: str, red: int, blue: int) -> Path:
        return _round_log(tmp_path / name, red, blue)

    table = tmp_path / "t.json"
    table.write_text(json.dumps({"players": [{"name": "red", "back": "#b3261e"}, {"name": "blue", "back": "#1e4bb3"}],
                                 "rules": {"target": 20}}))
    logs = [str(round_log("1.jsonl", 13, 5)), str(round_log("2.jsonl", 9, 12))]
    out = nertz("match", *logs, "--table", str(table), "--json")
    assert out.returncode == 0, out.stderr
    m = json.loads(out.stdout)
    assert m["totals"] == {"red": 22, "blue": 17} and m["winner"] == "red" and m["settlement"] == {"blue": 5}
    text = nertz("match", *logs, "--table", str(table))
    assert "red wins the match" in text.stdout and "blue pays red 5" in text.stdout
    over = nertz("match", *logs, logs[0], "--table", str(table))
    assert over.returncode == 2 and "already over" in over.stderr


def test_match_without_a_table_takes_the_same_players_in_any_order():
    sample = Path(__file__).resolve().parents[1] / "datasets" / "samples" / "round-3p" / "events.jsonl"
    out = nertz("match", str(EXAMPLE / "events.jsonl"), str(sample), "--json")
    assert out.returncode == 0, out.stderr
    assert set(json.loads(out.stdout)["totals"]) == {"red", "blue", "green"}


def test_help_shows_flags_without_a_value():
    # typer's rich help wrote "--json <bool>", as if the flag took a value
    from typer.testing import CliRunner

    from nertz.cli import app

    for args in (["referee", "--help"], ["detect", "--help"], ["train", "--help"]):
        r = CliRunner().invoke(app, args)
        assert r.exit_code == 0, r.output
        assert "<bool>" not in r.output and "\\[" not in r.output, args
    assert "--json  " in CliRunner().invoke(app, ["referee", "--help"]).output


def test_match_help_names_its_logs_like_the_other_arguments():
    # typer wrote "{logs}..." in the usage and "logs... <list[Path]>" in the help
    from typer.testing import CliRunner

    from nertz.cli import app

    r = CliRunner().invoke(app, ["match", "--help"])
    assert r.exit_code == 0, r.output
    assert "Usage: nertz match [OPTIONS] LOGS..." in r.output and "\n  LOGS...  " in r.output
    assert "{logs}" not in r.output and "list[Path]" not in r.output and "<bool>" not in r.output
    assert "alone" in r.output and "rounds tied" in r.output  # what "rounds won" means
    missing = CliRunner().invoke(app, ["match"])
    assert missing.exit_code == 2 and "LOGS..." in missing.output
