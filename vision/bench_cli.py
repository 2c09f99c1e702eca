"""``nertz bench``: does the referee keep up with the camera? Figures, never pass/fail.

Runs the whole pipeline (decode, arrival buffer, detection and identification on every
``stride``-th frame, tracking, the referee) on a video as fast as it can and prints, with the
machine's core count: media seconds, processing seconds and their ratio (at most 1.0 keeps up
with a live source), the median milliseconds per look, and the event latency (media time from
a card's arrival on a pile to the look that reported it: medians and maximum). With
``--recognizer`` it also prints the recogniser's own medians on rendered frames
(:mod:`nertz.vision.bench`). Only meaningful on an otherwise idle machine: it prints the load
average beside the figures.
"""

from __future__ import annotations

import json
import os
from itertools import takewhile
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from nertz.referee.errors import NertzError

__all__ = ["bench_command", "bench_pipeline", "latency_line"]


def bench_pipeline(source: Any, table: Path, stride: int = 3, seconds: float | None = None,
                   fps: float | None = None) -> dict[str, Any]:
    """Run the pipeline on ``source`` (a video file or folder) and return the figures.

    Args:
        seconds: stop after this much media time (None: the whole source).
        fps: frames per second of a folder of images (image i at i / fps seconds; None: 30).

    Raises:
        NertzError: the source or table cannot be read, or the table was made for frames of
            another size (:func:`~nertz.vision.sources.table_misfit`).
    """
    from nertz.referee.files import read_table

    from .observe import referee_observer
    from .pipeline import RefereePipeline
    from .sources import open_source, table_misfit

    tbl = read_table(table)
    load_before = os.getloadavg()[0]
    observer = referee_observer(tbl)
    with open_source(source, fps=fps) as src:
        # a table made for another camera or resolution is refused, as nertz referee refuses it:
        # its zones would be elsewhere in these frames, and the figures those of no real round
        misfit = table_misfit(tbl, src.size)
        if misfit:
            raise NertzError(f"{table}: {misfit}")
        pipe = RefereePipeline(tbl, observer, stride=stride, fps=src.fps or 30.0)
        # stop reading at ``seconds`` (a filter would decode, and time, the rest of the source)
        frames = ((f.index, f.t, f.image) for f in takewhile(lambda f: seconds is None or f.t <= seconds, src))
        pipe.run(frames)
        size = src.size
    out = pipe.stats.summary()
    out.update({"cores": os.cpu_count(), "load_1min": round(load_before, 2), "stride": stride,
                "frame_size": f"{size[0]}x{size[1]}", "plays": sum(e["type"] == "play" for e in pipe.events)})
    return out


def bench_command(
    source: Annotated[Optional[str], typer.Option("--source", "-s", help="Video file or folder of images. Default: the bundled sample round.")] = None,
    table: Annotated[Optional[Path], typer.Option("--table", "-t", help="Its table file.")] = None,
    stride: Annotated[int, typer.Option("--stride", min=1, max=30, help="Look at every N-th frame.")] = 3,
    seconds: Annotated[Optional[float], typer.Option("--seconds", help="Only the first S seconds of media.")] = None,
    fps: Annotated[Optional[float], typer.Option(
        "--fps", min=0.001, help="Frames per second of a folder of images (image i is at i / FPS seconds, for "
                                 "--seconds and the media time). Default: 30.")] = None,
    recognizer: Annotated[bool, typer.Option("--recognizer", help="Also time the recogniser alone on rendered frames.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Measure whether the referee keeps up with a 30 fps camera on this machine (medians)."""
    from .referee_cli import sample_path

    try:
        if seconds is not None and not seconds > 0:  # (also NaN)
            raise NertzError(f"--seconds {seconds:g}: give a positive number of seconds of media")
        from .sources import folder_fps_note

        note = folder_fps_note(source, fps)  # as nertz referee: --fps times a folder of images only
        if note:
            typer.echo(note, err=True)
        if source is None:
            source, table = str(sample_path("clip.mp4")), table or sample_path("table.json")
        if table is None:
            from .sources import check_source

            check_source(source)  # a mistyped source is the first thing to say (as nertz referee does)
            raise NertzError("a table file is needed (--table T.json)")
        figures = bench_pipeline(source, table, stride, seconds, fps)
        if recognizer:
            from .bench import main as recognizer_bench

            figures["recognizer_ms"] = recognizer_bench()
    except NertzError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(json.dumps(figures))
        return
    f = figures
    typer.echo(f"machine: {f['cores']} cores, load average {f['load_1min']} before the run (figures are only meaningful when idle)")
    typer.echo(f"video: {f['frame_size']}, {f['frames']} frames, {f['media_s']} s of media; looked at 1 frame in "
               f"{f['stride']} ({f['looks']} looks)")
    if f["realtime_ratio"] is None:  # no media time: a single image, or nothing read
        typer.echo(f"processing: {f['wall_s']} s (no media time to compare it with)")
    else:
        typer.echo(f"processing: {f['wall_s']} s = {f['realtime_ratio']} x media time "
                   f"({'keeps up' if f['realtime_ratio'] <= 1 else 'does NOT keep up'} with a live source)")
    if f["look_ms_median"] is None:
        typer.echo("per look: no look made (no frame read)")
    else:
        typer.echo(f"per look: median {f['look_ms_median']} ms (detection + identification of changed cards)")
    typer.echo(latency_line(f))


def latency_line(f: dict[str, Any]) -> str:
    """The text line of the event latency in :func:`bench_pipeline`'s figures ``f``
    (seconds of media); "no plays seen" when the source showed none (the medians are None)."""
    if f["event_latency_s_median"] is None:
        seen = "no plays seen" if not f["plays"] else f"not measured ({f['plays']} plays)"
        return f"event latency after the card lands: {seen}"
    return (f"event latency after the card lands: median {f['event_latency_s_median']} s, max "
            f"{f['event_latency_s_max']} s ({f['plays']} plays)")
