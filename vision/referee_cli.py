"""``nertz referee``: watch a round and rule it (the main job).

With no ``--source`` it referees the bundled sample round (``datasets/samples/round-3p``: its
video, its table file and its recorded call). Events and rulings are printed as they happen;
the round's scoreboard at the end. ``--json`` prints the contract's JSON lines instead, ending
with the ``{"type": "result", ...}`` line.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from nertz.datasets import bundled_file
from nertz.referee.errors import NertzError
from nertz.referee.files import read_table
from nertz.referee.report import format_reconciliation, format_scoreboard, format_time

__all__ = ["referee_command", "SAMPLE_ROUND", "sample_path", "parse_call", "parse_number", "describe", "key_to_call"]

SAMPLE_ROUND = "round-3p"
"""The bundled sample round (``datasets/samples/<name>/``) refereed when no source is given."""


def sample_path(filename: str, name: str = SAMPLE_ROUND) -> Path:
    """A file of a bundled sample round (``datasets/samples/<name>/<filename>``).

    Raises:
        NertzError: the file is missing (a broken install).
    """
    return bundled_file("samples", name, filename)


_COUNT = re.compile(r"-?[0-9]+")
_SECONDS = re.compile(r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")


def parse_number(text: str, decimals: bool = False) -> float | int | None:
    """A number as a user types it on the command line: ASCII digits, an optional leading minus
    and, with ``decimals``, one decimal point (``"3"``, ``"81.2"``, ``".5"``, ``"-5"``); spaces
    around it are ignored. Returns an int (a float with ``decimals``), or None for anything
    else: ``int()`` and ``float()`` also take ``"1_0"`` (10), Unicode digits (``"٣"``, 3),
    exponents and ``"inf"``, none of which a user means by a count or a time."""
    text = text.strip()
    if not (_SECONDS if decimals else _COUNT).fullmatch(text):
        return None
    return float(text) if decimals else int(text)


def parse_call(text: str) -> tuple[str, float]:
    """``"red@81.2"`` -> ``("red", 81.2)``: a player's name and seconds of media (ASCII digits
    with an optional decimal point, :func:`parse_number`).

    Raises:
        NertzError: not ``NAME@SECONDS`` with a non-negative number written that way.
    """
    name, sep, when = text.rpartition("@")
    t = parse_number(when, decimals=True)
    if sep and name and t is not None and t < 0:
        raise NertzError(f"--call {text!r}: the time must not be negative (seconds of media from the start)")
    if not sep or not name or t is None:
        raise NertzError(f"--call {text!r}: write it as NAME@SECONDS, e.g. red@81.2")
    return name, t


def key_to_call(key: int, names: list[str]) -> str | None:
    """The player a key press in the live window calls for: ``1`` is the table file's first
    player, ``2`` the second, ... (None for any other key)."""
    if ord("1") <= key <= ord("9") and key - ord("1") < len(names):
        return names[key - ord("1")]
    return None


def _two_places(x: float) -> str:
    """``x`` (0..1) cut, not rounded, to two decimals: a 0.898 under the review threshold of 0.9
    must not print as 0.90."""
    return f"{math.floor(x * 100 + 1e-9) / 100:.2f}"


def describe(m: dict[str, Any]) -> str:
    """One output line (an event, a review item or a ruling dict) as readable text."""
    t = format_time(m.get("t"))
    kind = m.get("type")
    if kind == "play":
        conf = m.get("confidence")
        return f"{t}  play  {m['player']} {m['card']} -> pile {m['pile']}" + (f"  (confidence {_two_places(conf)})" if conf is not None else "")
    if kind == "take_back":
        return f"{t}  take back  {m['player']} {m['card']} from pile {m['pile']}"
    if kind == "call":
        return f"{t}  call  {m['player']} calls Nertz"
    if kind == "nertz_left":
        return f"{t}  count  {m['player']} has {m['count']} Nertz cards left"
    if kind == "review":
        return f"{t}  ??  review: {m['message']}"
    mark = {"accepted": "ok", "rejected": "NO", "collision": "!!", "tie": "=="}.get(m.get("kind", ""), "--")
    return f"{t}  {mark}  {m.get('message') or m.get('kind')}"


def unsure_plays(events: list[dict[str, Any]], below: float, most: int = 10) -> list[str]:
    """Text lines listing the play events whose confidence (card and owner, 0..1) is under
    ``below``, least confident first (at most ``most`` of them, then how many more): the plays
    a person should check, the ones printed as ``review`` lines while the round ran (the
    result's ``reviews`` are only the open tie and joker questions). No lines when there is
    none."""
    unsure = sorted((e for e in events if e.get("type") == "play" and e.get("confidence", 1.0) < below),
                    key=lambda e: (e["confidence"], e["t"]))
    if not unsure:
        return []
    out = [f"The camera was unsure of {len(unsure)} play{'s' if len(unsure) > 1 else ''}, least sure first; "
           "check them at the table (all of them: the review lines of --json):"]
    for e in unsure[:most]:
        out.append(f"  {format_time(e['t'])}  {e['player']} {e['card']} on pile {e['pile']} (confidence {_two_places(e['confidence'])})")
    if len(unsure) > most:
        out.append(f"  ... and {len(unsure) - most} more")
    return out


def referee_command(
    source: Annotated[Optional[str], typer.Option(
        "--source", "-s", help="Webcam index, video file, stream URL or folder of images. Default: the bundled sample round.")] = None,
    table: Annotated[Optional[Path], typer.Option(
        "--table", "-t", help="Table file (players, back colours, shared area and zones in image pixels).")] = None,
    call: Annotated[Optional[list[str]], typer.Option(
        "--call", metavar="NAME@SECONDS", help="A Nertz call NAME@SECONDS (media time); repeatable.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON lines (events, rulings) and a last result line.")] = False,
    out: Annotated[Optional[Path], typer.Option("--out", help="Write the video with the referee's overlay (a file ending in .mp4, .m4v, .mkv, .mov or .avi).")] = None,
    realtime: Annotated[bool, typer.Option("--realtime", help="Pace a file as if it were live: the frames the referee "
                                                              "falls behind on are dropped, as a camera's are (counted at the end).")] = False,
    fps: Annotated[Optional[float], typer.Option(
        "--fps", min=0.001, help="Frames per second of a folder of images (image i is at i / FPS seconds, for --call "
                                 "and the times printed). Default: 30.")] = None,
    stride: Annotated[int, typer.Option("--stride", min=1, max=30, help="Look at every N-th frame (detection cost).")] = 3,
    nertz_left: Annotated[Optional[list[str]], typer.Option(
        "--nertz-left", metavar="NAME=N", help="A player's Nertz cards left at the end, NAME=N (repeatable); it replaces the camera's count.")] = None,
    show: Annotated[bool, typer.Option(
        "--show", help="Show the overlay in a window; keys 1..9 call Nertz for the table's 1st..9th player, q stops.")] = False,
    audit_photo: Annotated[Optional[Path], typer.Option(
        "--audit", help="A photo of the round's end: foundations face down in the shared area, each Nertz pile "
                        "spread in its zone. Its back count is scored; the live count is kept beside it.")] = None,
) -> None:
    """Watch a round and rule it: every foundation play, its owner, every ruling and the score, then the plays it was unsure of (confidence under 0.9: the ones to check).

    With no source: the bundled sample round, with the call and the Nertz counts its players announced (a camera cannot hear a call; its video shows no count spread); --nertz-left replaces a player's announced count, and with --call the announced counts (said for the announced call) are not used.

    The Nertz cards left that --nertz-left does not give are counted from the video, two ways: the changes of each player's Nertz pile top card from the deal to 0.3 s after the call (the video must start at the deal; the pile is the one at the player's left end of the dealt row), which is scored, and each player's face-down spread in their own zone in the 6 s from 2 s after the call, its check (on 54 rendered rounds, 9324-9360 and 9390-9406, 183 of 190 pile counts exact; on 20 of them, 9324-9343, 44 of 70 spread counts). Where the two differ a review line says so. A player whose pile was not followed gets the spread's count; with neither (no deal seen and no spread), 0, with a no_count ruling.

    With --audit PHOTO the round is scored by the back count of that photo, as the rules define ownership: the face-down cards of each back in the shared area are the foundation counts, those in each player's own zone the Nertz cards left (unless --nertz-left gives them; not the caller's: a valid call means an empty Nertz pile). The live counts are printed beside them, with the plays that may have gone to the wrong owner. The photo is counted first: one that cannot be counted is refused at once (exit status 2).

    Ctrl-C (or SIGTERM) stops a run: the round is scored as far as it was seen (a --call later than that is not applied) and --out is closed playable; the exit status is 130 for a file or folder (the result is of a part of it), 0 for a camera or stream.
    """
    from .pipeline import REVIEW_BELOW, RefereePipeline

    def fail(msg: str) -> None:
        typer.echo(f"error: {msg}", err=True)
        raise typer.Exit(2)

    try:
        calls = [parse_call(c) for c in call or []]
        if source is None:
            spec: Any = sample_path("clip.mp4")
            table = table or sample_path("table.json")
            # what the players said at that table: a call cannot be seen, and the sample's video
            # shows no end-of-round spread of the Nertz piles to count
            recorded = [json.loads(x) for x in sample_path("events.jsonl").read_text().splitlines() if x.strip()]
            said_calls = [(e["player"], float(e["t"])) for e in recorded if e.get("type") == "call"]
            said = [f"{e['player']}={e['count']}" for e in recorded if e.get("type") == "nertz_left"]
            yours = list(nertz_left or [])
            where = f"the bundled sample round ({sample_path('clip.mp4').parent})"
            if not calls:  # the counts said at the table go with its call; --nertz-left overrides them one by one
                calls = said_calls
                named = {item.partition("=")[0] for item in yours}
                nertz_left = [x for x in said if x.partition("=")[0] not in named] + yours
                note = (f"{where}; the call and Nertz counts as said at the table: "
                        f"{', '.join(f'{n}@{t:g}' for n, t in calls)}; {', '.join(x for x in said if x in nertz_left)}"
                        + (f"; yours: {', '.join(yours)}" if yours else ""))
            else:  # the counts said at the table were for its call, not for this one
                note = (f"{where}; your call: {', '.join(f'{n}@{t:g}' for n, t in calls)} (the Nertz counts said at "
                        f"the table were for {', '.join(f'{n}@{t:g}' for n, t in said_calls)}: not used)"
                        + (f"; your counts: {', '.join(yours)}" if yours else ""))
        else:
            spec, note = source, None
        from .sources import folder_fps_note

        note = folder_fps_note(source, fps) or note
        if table is None:
            from .sources import check_source

            check_source(spec)  # a mistyped source is the first thing to say
            fail("a table file is needed (--table T.json): make one with nertz calibrate")
        if out is not None:  # before anything is opened: the source must outlive a mistyped --out
            from nertz.datasets.video import check_video_out
            from nertz.referee.files import check_not_an_input

            from .sources import source_path

            check_not_an_input(out, [("--source", source_path(spec)), ("--table", table), ("--audit", audit_photo)])
            check_video_out(out)
        tbl = read_table(table)
        if tbl.shared_area is None or not tbl.zones:
            fail(f"{table}: the table file needs a shared_area and the players' zones (image pixels): "
                 "make one with nertz calibrate")
        zoneless = [n for n in tbl.names if n not in tbl.zones]
        if zoneless:  # (the plays of their cards went to the zoned players, at no word of why)
            whose = f"{zoneless[0]}'s" if len(zoneless) == 1 else "their"
            typer.echo(f"warning: {table} gives no zone to {', '.join(zoneless)}: the camera cannot see cards leave "
                       f"{whose} layout (plays may be given to others) nor count {whose} Nertz cards left; "
                       "nertz calibrate writes every player's zone", err=True)
        counts: dict[str, int] = {}
        for item in nertz_left or []:
            name, sep, text = item.partition("=")
            n = parse_number(text)  # not isdigit(): "²" is a digit to it
            if sep and n is not None and n < 0:
                fail(f"--nertz-left {item!r}: a count of cards cannot be negative")
            if not sep or n is None:
                fail(f"--nertz-left {item!r}: write it as NAME=N, e.g. blue=3")
            if name in counts and counts[name] != n:
                fail(f"--nertz-left gives {name} twice ({name}={counts[name]} and {item}): give one count a player")
            counts[name] = n
        if show and sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            fail("--show needs a display (no DISPLAY or WAYLAND_DISPLAY here): use --out to write the overlay video instead")
        for name in [c[0] for c in calls] + list(counts):
            if name not in tbl.names:
                fail(f"no player {name!r} in {table} (players: {', '.join(tbl.names)})")
        for name, n in counts.items():  # before the video, not after it (the round would be lost)
            if n > tbl.rules.nertz_pile:
                fail(f"--nertz-left {name}={n}: a Nertz pile holds {tbl.rules.nertz_pile} cards at most "
                     f"(the table's rules)")
        audit_image = audit_result = None
        if audit_photo is not None:
            import cv2

            audit_image = cv2.imread(str(audit_photo), cv2.IMREAD_COLOR) if audit_photo.is_file() else None
            if audit_image is None:
                fail(f"--audit {audit_photo}: not a readable image file")
            from .audit import audit, check_face_down

            try:  # before the video: a photo that cannot be counted is known in seconds, not minutes
                audit_result = audit(audit_image, tbl)
                check_face_down(audit_image, tbl, audit_result)
            except NertzError as exc:
                fail(f"--audit {audit_photo}: the photo cannot be counted ({exc}); leave --audit out to score "
                     "by the live count")
        from .observe import referee_observer
        from .sources import open_source, table_misfit

        # strips are named only for the overlay (the tracker does not use them)
        observer = referee_observer(tbl, strips=out is not None or show)
        src = open_source(spec, realtime=realtime, drop_late=realtime, fps=fps)
        misfit = table_misfit(tbl, src.size)
        if misfit:
            src.close()
            fail(f"{table}: {misfit}")
        if note and (not as_json or source is not None):  # (a folder's frame rate is said with --json too)
            typer.echo(note, err=True)
        rate = src.fps or 30.0
        looks_per_s = rate / stride
        if looks_per_s < 5.0:  # the tracker's confirmations and windows are made for 10 looks a second
            better = max(1, math.floor(rate / 10.0))
            typer.echo(f"warning: {rate:g} frame{'' if rate == 1 else 's'} a second at --stride {stride}: "
                       f"{looks_per_s:.2g} looks a second, where the referee is made for about 10 (30 fps, "
                       "--stride 3); quick plays and collisions may be missed"
                       + (f": give --stride {better}" if better < stride
                          else ": give a source of 15 frames a second or more"), err=True)
        duration = src.frame_count / src.fps if src.frame_count and src.fps and not src.live else None
        if duration is not None:  # a file: known before it is read
            _warn_late_calls(calls, duration)
    except NertzError as exc:
        fail(str(exc))
        return

    messages: list[dict[str, Any]] = []

    def emit(m: dict[str, Any]) -> None:
        messages.append(m)
        del messages[:-50]  # the overlay shows the last few seconds only
        line = json.dumps(m, ensure_ascii=False) if as_json else describe(m)
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    fps = src.fps or 30.0
    pipe = RefereePipeline(tbl, observer, stride=stride, fps=fps, calls=calls, on_message=emit, nertz_left=counts,
                           counts_from_video=audit_image is None)
    writer = None
    write_failed: str | None = None  # why the overlay video could not be written (the round goes on)
    interrupted = False  # stopped by Ctrl-C (SIGINT) or SIGTERM: the result is of the part seen
    seen_all = False  # the source was read to its end (or --show's q)
    result: dict[str, Any]
    sigterm = _sigterm_as_interrupt()  # `timeout`, a service manager: as Ctrl-C (a partial result, a playable --out)
    try:
        if out is not None:
            from nertz.datasets.video import VideoError, open_writer
            try:
                writer = open_writer(out, fps, src.size)  # (29.97 stays 29.97, a folder's 0.5 fps 0.5)
            except VideoError:
                src.close()
                raise
        from rich.progress import Progress

        console = _stderr_console()
        # no bar when stderr is not a terminal (a log, a pipe): rich would leave a blank line there
        with src, Progress(transient=True, console=console,
                           disable=src.live or src.frame_count is None or not console.is_terminal) as bar:
            task = bar.add_task("refereeing", total=src.frame_count)
            from .annotate import draw_overlay

            zones_checked = False
            for frame in src:
                pipe.step(frame.index, frame.t, frame.image)
                if not zones_checked and pipe.nertz_piles.empty_zones is not None:
                    zones_checked = True
                    _warn_empty_zones(pipe.nertz_piles.empty_zones, tbl, table, console)
                if writer is not None or show:
                    shown = draw_overlay(frame.image, tbl, pipe.tracker, pipe.last_look, messages, frame.t,
                                         pipe.nertz_piles.snapshot())
                    if writer is not None:
                        try:
                            writer.write(shown)
                        except VideoError as exc:  # a full disk: say so now, referee the round to its end
                            write_failed = str(exc)
                            typer.echo(f"error: {write_failed}; the round is refereed on without it", err=True)
                            writer = _close_quietly(writer)
                    if show and _show(shown, pipe, tbl.names, frame.t):
                        _stop_here(pipe, "stopped (q)")
                        break
                bar.advance(task)
        seen_all = True
        if duration is None:
            _warn_late_calls(pipe.calls, pipe.stats.media_s)
        to_audit = pipe.spread_frames
        if to_audit:
            typer.echo(f"counting the Nertz cards left in {to_audit} frames of the players' spreads ...", err=True)
        result = _end(pipe, audit_result)
    except KeyboardInterrupt:
        interrupted = True
        if seen_all:  # Ctrl-C while the spreads are counted: the piles' counts (the scored ones) will do
            typer.echo("stopped: the spreads are not counted (the check of the Nertz cards left; the counts are "
                       "the piles' top cards')", err=True)
        else:
            _stop_here(pipe, "stopped")
        try:
            if seen_all:
                pipe.skip_spreads()
            elif pipe.spread_frames:
                typer.echo(f"counting the Nertz cards left in {pipe.spread_frames} frames of the players' spreads "
                           "(Ctrl-C again to leave them out) ...", err=True)
            result = _end(pipe, audit_result)
        except KeyboardInterrupt:  # again, while the spreads are counted
            typer.echo("stopped again: the spreads are not counted (the check of the Nertz cards left)", err=True)
            pipe.skip_spreads()
            result = _end(pipe, audit_result)
    except NertzError as exc:
        fail(str(exc))
        return
    finally:
        sigterm()
        if writer is not None:
            try:
                writer.close()
            except NertzError as exc:  # (the last frames could not be flushed)
                write_failed = str(exc)
                typer.echo(f"error: {write_failed}", err=True)
    if src.dropped:  # --realtime: as a camera's frames are, the ones it fell behind on were not seen
        typer.echo(f"--realtime: {src.dropped} frames dropped (the referee fell behind media time on them, as it "
                   f"would behind a live camera; {pipe.stats.frames} seen)", err=True)
    if pipe.video_counts:
        way = {True: "from the pile's top cards", False: "from the spread"}
        typer.echo("Nertz cards left, counted from the video: "
                   + ", ".join(f"{n} {k} ({way[n in pipe.pile_counts]})" for n, k in pipe.video_counts.items())
                   + " (--nertz-left NAME=N gives a count instead)", err=True)
    rec = _audited(pipe, tbl, audit_result, counts, as_json) if audit_result is not None else None
    if as_json:
        sys.stdout.write(json.dumps(rec.to_json() if rec is not None else result, ensure_ascii=False) + "\n")
    else:
        typer.echo("")
        typer.echo(format_scoreboard(pipe.round.result))
        unsure = unsure_plays(pipe.events, REVIEW_BELOW)
        if unsure:
            typer.echo("")
            typer.echo("\n".join(unsure))
        if rec is not None:
            typer.echo(f"\nBack count ({audit_photo}):")
            typer.echo(format_reconciliation(rec))
        if out is not None and write_failed is None:
            typer.echo(f"\nwrote {out}")
    if write_failed is not None:  # the round is scored above; the video asked for is not whole
        raise typer.Exit(2)
    if interrupted and not src.live:  # the result is of a part of the file: a script must not take it for the
        raise typer.Exit(130)         # round's (a camera has no end: Ctrl-C is how its run ends)


def _stop_here(pipe: Any, what: str) -> None:
    """The run stops before its source's end (Ctrl-C, SIGTERM, --show's q): say so, and drop the
    calls of --call later than the media seen: they did not happen yet, as far as the camera
    knows, and must not end the round (with the Nertz counts of the moment of the stop)."""
    unreached, pipe.calls = pipe.calls, []
    typer.echo(f"{what} at {pipe.stats.media_s:.1f} s of media: the round is scored as far as it was seen"
               + (f"; not reached, so not applied: --call {', '.join(f'{n}@{tc:g}' for n, tc in unreached)}"
                  if unreached else ""), err=True)


def _sigterm_as_interrupt() -> Any:
    """Until the function returned is called, SIGTERM stops the run as Ctrl-C does
    (KeyboardInterrupt): the round is scored as far as it was seen and ``--out`` is closed
    playable, instead of the process dying with a video file that no player opens (no index
    written). The function returned puts the previous handler back."""
    import signal
    import threading

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = signal.signal(signal.SIGTERM, interrupt)
    return lambda: signal.signal(signal.SIGTERM, previous)


def _close_quietly(writer: Any) -> None:
    """Close a video writer that failed, ignoring its own failure to finish the file; None."""
    try:
        writer.close()
    except NertzError:
        pass
    return None


def _end(pipe: Any, audit_result: Any) -> dict[str, Any]:
    """End the round of ``pipe`` when its source has ended; returns the result line. With an
    end-of-round photo's audit the Nertz counts are yet to come (:func:`_audited` gives them):
    the round is not finished here, so that no ``no_count`` ruling is reported for a player
    the photo counts (the result line is then :func:`_audited`'s)."""
    if audit_result is None:
        return pipe.finish()
    pipe.end_source()
    return pipe.round.result.to_json()


def _audited(pipe: Any, tbl: Any, res: Any, given: dict[str, int], as_json: bool) -> Any:
    """Score the round by the end-of-round photo's audit ``res`` (an
    :class:`~nertz.vision.audit.AuditResult`): the Nertz cards left in each player's zone (where
    ``--nertz-left`` did not give them) are pushed as ``nertz_left`` events, then the shared
    area's back count is reconciled with the live attribution. Not for the caller: a valid call
    means an empty Nertz pile, so what lies in the caller's zone (their stock) is not their
    Nertz pile (as ``POST /api/round/audit`` reads a count's zones). Returns the
    :class:`~nertz.referee.reconcile.Reconciliation`."""
    from nertz.referee.reconcile import reconcile

    caller = pipe.round.result.caller  # the round's calls are in (end_source() has run)
    left = {name: res.zones.get(name, {}).get(name, 0) for name in tbl.names
            if name not in given and name != caller}
    pipe.finish(left)
    if as_json:
        sys.stdout.write(json.dumps(res.json_line(), ensure_ascii=False) + "\n")
    return reconcile(pipe.round, res.counts)


def _warn_empty_zones(empty: list[str], tbl: Any, table: Path, console: Any = None) -> None:
    """Warn once the deal's looks are in when they showed no face-up card in some players' zones
    (a dealt row shows five): the plays are otherwise given to players who may not be at this
    table, at full confidence (a table file of a 4-player round on a 3-player video: 'yellow'
    played a card in 13). ``console``: the progress bar's, to print above the bar."""
    if not empty:
        return
    every = len(empty) == len(tbl.names)
    line = (f"warning: no face-up card in {'any zone' if every else 'the zone of ' + ', '.join(empty)} of {table} "
            f"in the first seconds (a dealt row shows five): is it this table's file, with these players "
            f"({', '.join(tbl.names)})? nertz calibrate makes one for this camera; the Nertz cards left of "
            f"{'every player' if every else ', '.join(empty)} cannot be followed (the source should start at the deal)")
    if console is not None:
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    else:
        typer.echo(line, err=True)


def _warn_late_calls(calls: Any, media_s: float) -> None:
    """Warn of each ``(name, seconds)`` call later than the source's ``media_s`` seconds (plus 1 s)."""
    for name, tc in calls:
        if tc > media_s + 1.0:
            typer.echo(f"warning: --call {name}@{tc:g} is after the end of the source ({media_s:.1f} s "
                       "of media); the round is ended by it all the same", err=True)


def _show(image: Any, pipe: Any, names: list[str], t: float) -> bool:
    """Show ``image`` in the live window and handle a key press; True when the user quits.

    Raises:
        NertzError: no display to show a window on.
    """
    import cv2

    try:
        cv2.imshow("nertz referee", image)
        key = cv2.waitKey(1) & 0xFF
    except cv2.error as exc:
        raise NertzError(f"--show needs a display (a desktop session): {str(exc).strip().splitlines()[-1]}") from None
    if key in (ord("q"), 27):
        return True
    name = key_to_call(key, names)
    if name is not None:
        pipe.call(name, t)
    return False


def _stderr_console() -> Any:
    from rich.console import Console

    return Console(stderr=True)
