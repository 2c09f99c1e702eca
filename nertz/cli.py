"""The ``nertz`` command line (typer).

Every user mistake (a missing file, a malformed log line, a table that does not validate)
is printed as one ``error: ...`` line on standard error with exit status 2, never as a
traceback, and nothing is printed on standard output before the whole input has been read
and ruled.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn, Optional

import typer
from typer.core import TyperCommand

from nertz.datasets import bundled_file
from nertz.referee.errors import NertzError
from nertz.referee.files import load_round, read_table
from nertz.referee.match import Match
from nertz.referee.report import format_round, format_scoreboard  # noqa: F401  (format_round is public here too)
from nertz.referee.round import Round

# OpenCV's and FFmpeg's own log lines (a file that is no video, a camera index with no camera)
# would come before our one-line error: quiet unless the user sets these variables (for
# instance OPENCV_LOG_LEVEL=INFO to see them). Set before cv2 is first imported (by the commands
# imported below); OpenCV's failures still raise and are reported.
os.environ.setdefault("OPENCV_LOG_LEVEL", "OFF")
os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")

app = typer.Typer(
    name="nertz",
    help="A computer-vision referee for the card game Nertz (Pounce, Racing Demon).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # plain help: typer 0.27-0.29's rich help wrote "<bool>" after every flag (--json <bool>), as
    # if it took a value (with any click 8.3-8.5)
    rich_markup_mode=None,
)

EXAMPLE_ROUND = "club-night"
"""The bundled example round (``datasets/examples/<name>/``), scored by ``nertz score`` with no log."""


def example_path(name: str, filename: str) -> Path:
    """The path of a file of a bundled example round (``datasets/examples/<name>/<filename>``).

    Raises:
        NertzError: no such example file (a broken install).
    """
    return bundled_file("examples", name, filename)


def fail(message: str) -> NoReturn:
    """Print ``error: message`` on standard error and exit with status 2."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def _emit_json(lines: list[dict[str, Any]]) -> None:
    sys.stdout.write("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))


@app.command()
def score(
    events: Annotated[
        Optional[Path],
        typer.Argument(help="Event log (JSON lines, as the README's \"Input formats\" shows). Default: the bundled example round."),
    ] = None,
    table: Annotated[
        Optional[Path], typer.Option("--table", "-t", help="Table file: players, back colours, rules settings.")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the rulings as JSON lines, then one result line.")
    ] = False,
) -> None:
    """Apply the rules to an event log and print the round's rulings and result."""
    if events is None:
        if table is not None:  # the bundled log names its own players, not this table's
            fail(f"give the event log to score with --table {table} (with no log, nertz score scores the "
                 "bundled example round, with its own table)")
        events = example_path(EXAMPLE_ROUND, "events.jsonl")
        table = example_path(EXAMPLE_ROUND, "table.json")
    try:
        game = load_round(events, table)
        if as_json:
            replay = game.replay()
            _emit_json([r.to_json() for r in replay.rulings] + [replay.result.to_json()])
            if replay.unused_answers:
                typer.echo(f"warning: answers to no review item of this round (ignored): "
                           f"{', '.join(replay.unused_answers)}", err=True)
        else:
            typer.echo(format_round(game))
    except NertzError as exc:
        fail(str(exc))


class _ListArgsCommand(TyperCommand):
    """A command whose usage line and help name its list arguments by their metavar
    (``LOGS...``, ``IMAGES...``), as the other commands' arguments read (typer 0.29 writes a
    required list argument ``{logs}...`` in the usage and ``logs... <list[Path]>`` in the
    help): ``nertz match`` and ``nertz detect``."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                pieces.append(param.metavar or (param.name or "").upper())
            else:
                pieces.extend(param.get_usage_pieces(ctx))
        return pieces

    def format_options(self, ctx: Any, formatter: Any) -> None:
        args, opts = [], []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                text = (getattr(param, "help", None) or "") + ("  [required]" if param.required else "")
                args.append((param.metavar or (param.name or "").upper(), text))
            elif param.param_type_name == "option":
                record = param.get_help_record(ctx)
                if record is not None:
                    opts.append(record)
        for title, rows in (("Arguments", args), ("Options", opts)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


@app.command(cls=_ListArgsCommand)
def match(
    logs: Annotated[
        list[Path],
        typer.Argument(metavar="LOGS...", help="The rounds' event logs, in the order played; each round must have "
                       "ended (a valid Nertz call or a round_end event)."),
    ],
    table: Annotated[
        Optional[Path], typer.Option("--table", "-t", help="Table file (players, target and rules).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the match as one JSON object.")] = False,
) -> None:
    """Add up finished rounds into a match: totals, rounds won, the winner, and the settlement
    table.

    A player wins a round by scoring best in it alone; a round whose best score two or more
    players share is counted as tied for them ("rounds tied"), a win for none. A tie in totals
    goes to the player with more rounds won.
    """
    try:
        tbl = read_table(table) if table is not None else None
        results = [load_round(log, table).result for log in logs]
        players = tbl.names if tbl is not None else list(results[0].players)
        target = tbl.rules.target if tbl is not None else 100
        for log, res in zip(logs, results):
            if set(res.players) != set(players):  # the same people, in any seating order
                raise NertzError(f"{log}: its players {sorted(res.players)} differ from the match's {sorted(players)}")
            if res.ended is None:
                raise NertzError(f"{log}: the round has not ended (no valid Nertz call and no round_end event), "
                                 "so its scores are provisional: a match adds finished rounds only "
                                 "(`nertz score` shows where it stands)")
        m = Match(players, target)
        for log, res in zip(logs, results):
            if m.is_over:
                raise NertzError(f"{log}: the match was already over (a total reached {target}) before this round")
            m.add_round(res)
    except NertzError as exc:
        fail(str(exc))
    if as_json:
        _emit_json(
            [
                {
                    "type": "match",
                    "target": target,
                    "rounds": m.rounds,
                    "totals": m.totals,
                    "rounds_won": m.rounds_won,
                    "rounds_tied": m.rounds_tied,
                    "over": m.is_over,
                    "winner": m.winner,
                    "settlement": m.settlement(),
                }
            ]
        )
        return
    rows: list[tuple[str, dict[str, int]]] = [(str(i), r) for i, r in enumerate(m.rounds, start=1)]
    # rounds won: those a player alone scored best; rounds tied: those whose best score was shared
    rows += [("total", m.totals), ("rounds won", m.rounds_won), ("rounds tied", m.rounds_tied)]
    label = max(len("round"), *(len(name) for name, _ in rows)) + 1
    widths = {n: max(len(n), *(len(str(r[n])) for _, r in rows)) + 2 for n in players}  # the name or the widest value
    typer.echo(f"{'round':<{label}}" + "".join(f"{n:>{widths[n]}}" for n in players))
    for name, r in rows:
        typer.echo(f"{name:<{label}}" + "".join(f"{r[n]:>{widths[n]}}" for n in players))
    if not m.is_over:
        typer.echo(f"\nNo one has reached {target} yet; leaders: {', '.join(m.leaders)}.")
    elif m.winner is None:
        typer.echo(f"\nThe match is over and tied between {', '.join(m.leaders)} (same total and rounds won).")
    else:
        typer.echo(f"\n{m.winner} wins the match.")
        for n, amount in m.settlement().items():
            typer.echo(f"  {n} pays {m.winner} {amount}")


from nertz.datasets.cli import app as _synth_app  # noqa: E402
from nertz.vision.detect_cli import detect_command as _detect  # noqa: E402
from nertz.vision.audit import audit_command as _audit  # noqa: E402
from nertz.vision.bench_cli import bench_command as _bench  # noqa: E402
from nertz.vision.calibrate_cli import calibrate_command as _calibrate  # noqa: E402
from nertz.vision.eval_cli import eval_command as _eval  # noqa: E402
from nertz.vision.referee_cli import referee_command as _referee  # noqa: E402
from nertz.vision.train_cli import app as _train_app  # noqa: E402

app.add_typer(_synth_app, name="synth")
app.add_typer(_train_app, name="train")
app.command(name="detect", cls=_ListArgsCommand)(_detect)
app.command(name="referee")(_referee)
app.command(name="bench")(_bench)
app.command(name="calibrate")(_calibrate)
app.command(name="eval")(_eval)
app.command(name="audit")(_audit)

from nertz.referee.service.cli import serve as _serve  # noqa: E402  (FastAPI is imported only when it runs)

app.command(name="serve")(_serve)


def main() -> None:
    """Entry point of the ``nertz`` console script."""
    try:
        app()
    except NertzError as exc:  # anything a command did not catch itself
        typer.echo(f"error: {exc}", err=True)
        sys.exit(2)
