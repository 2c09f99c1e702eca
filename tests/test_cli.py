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


@pytest.mark.parametrize(
    "lines, fragment",
    [
        (['{"t": 1, "type": "play", "player": "red", "card": "AS", "pile": 1}', "{not json"], "line 2: not valid JSON"),
        ([{"t": 1, "type": "play", "player": "red", "card": "AS", "pile": 1},
          {"t": 2, "type": "play", "player": "red", "card": "1X", "pile": 1}], "line 2"),
        ([{"t": 1, "type": "play", "player": "mallory", "card": "AS", "pile": 1}], "line 1: unknown player 'mallory'"),
        (["[1, 2]"], "line 1: an event is a JSON object"),
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
    for args, fragment in [
        (["score", str(EXAMPLE / "events.jsonl"), "--table", str(bad)], "players.1.back"),
        (["score", str(tmp_path / "nope.jsonl")], "no such file"),
        (["score", str(tmp_path)], "is a folder"),
        (["score", str(EXAMPLE / "events.jsonl"), "--table", str(EXAMPLE / "events.jsonl")], "not valid JSON"),
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

    # red wins round 1, blue round 2, round 3 is a tie that counts for both
    logs = [str(_round_log(tmp_path / f"{i}.jsonl", red, blue)) for i, (red, blue) in enumerate([(5, 2), (1, 4), (3, 3)])]
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
