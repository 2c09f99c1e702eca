"""``nertz calibrate --source S --out table.json``: write the table file from the camera.

The lead mounts it with ``app.command("calibrate")(calibrate_command)`` in ``nertz/cli.py``.

Methods (``--method``, see :mod:`nertz.vision.calibrate`): ``markers`` (ArUco ids 0-3 on the
shared area's corners, 10.. in the layouts; print them with ``--print-markers sheet.png``),
``layouts`` (a still of a dealt round: the card detector finds and groups the layouts),
``auto`` (markers when the four corner markers are in view, else layouts), and ``--manual``
(click the polygons and a box on each back in a window). The result is validated as every
reader of the table file will validate it; a refused one is not written, and the message says
what to fix. ``--out`` and ``--preview`` are checked before the source is opened, and the table
file takes its name only once the preview is written too. Errors (a source that cannot be
opened, a greyscale still, calibration failed) print ``error: ...`` and exit with status 2,
with nothing written.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from nertz.referee.errors import NertzError

AUTO_STILLS = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0)
"""Seconds into a file source of the stills tried in turn when ``--frame`` is not given: with
``--players`` or ``--count`` the first that calibrates is used (a hand over a layout at the
start of a recording hides its backs); without them, the one that finds the most players, the
earliest of those (a newcomer's 3-player round, seed 5: 2 players at 1-2 s, where a hand and
the first cards played broke the bottom row, 3 at 3 s; the bundled sample: 2 at 2 s, 3 at 1 s)."""


def calibrate_command(
    source: Annotated[Optional[str], typer.Option("--source", "-s", help="webcam index, video file, folder of images, image or stream URL")] = None,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="table file to write (JSON)")] = None,
    players: Annotated[Optional[str], typer.Option("--players", help="names, comma-separated, clockwise from the bottom of the image (default P1..Pn)")] = None,
    count: Annotated[Optional[int], typer.Option("--count", min=2, max=6, help="number of players (default: as many layouts as found; with --players, as many as named)")] = None,
    manual: Annotated[bool, typer.Option("--manual", help="click the zones and backs in a window")] = False,
    method: Annotated[str, typer.Option("--method", help="auto | markers | layouts")] = "auto",
    frame: Annotated[Optional[float], typer.Option("--frame", min=0.0, help="seconds into the source of the still to use (default: for files the first of 0, 0.5, 1, ... 5 s that calibrates, without --players or --count the one of them that finds the most players; 1 for cameras)")] = None,
    fps: Annotated[Optional[float], typer.Option("--fps", min=0.001, help="frames per second of a folder of images")] = None,
    rules_from: Annotated[Optional[Path], typer.Option("--rules-from", help="copy the rules settings from this table file")] = None,
    preview: Annotated[Optional[Path], typer.Option("--preview", help="also write the still with the calibration drawn on it (PNG/JPEG)")] = None,
    print_markers: Annotated[Optional[Path], typer.Option("--print-markers", help="write the printable ArUco marker sheet (PNG) and stop")] = None,
    force: Annotated[bool, typer.Option("--force", help="overwrite --out if it exists")] = False,
) -> None:
    """Calibrate the table: shared area, players' zones and back colours -> table file.

    From one still of the source (deal the round first: every layout face up, each stock face down
    beside it): the shared area from ArUco markers on its corners (--print-markers prints them)
    or from the space between the dealt layouts, each player's zone around their layout, each
    back colour from their face-down cards; or by clicking them (--manual). It prints each seat
    with its colour (names go clockwise from the bottom of the image): check them, and --preview's
    drawing, before nertz referee or nertz serve uses the file.
    """
    import cv2

    from .calibrate import (CORNER_IDS, CalibrationError, TooManyLayouts, calibrate_layouts, calibrate_markers,
                            detect_markers, draw_table, finish_table, marker_sheet, run_manual, seat_sides)
    from .detect import is_greyscale, save_image
    from .sources import SourceError, frame_at, open_source

    def fail(message: str) -> None:
        typer.echo(f"error: {message}", err=True)
        raise typer.Exit(2)

    names = [n.strip() for n in players.split(",")] if players is not None else None
    if names is not None and any(names) and not all(names):
        fail(f"--players {players!r} has an empty name: give the names comma-separated, e.g. anna,ben,cleo")
    names = [n for n in names if n] if names is not None else None
    if names is not None and not 2 <= len(names) <= 6:
        fail(f"--players names {len(names)} player{'s' if len(names) != 1 else ''}"
             f"{' (' + ', '.join(names) + ')' if names else ''}: a table seats 2 to 6, comma-separated")
    if names is not None and count is not None and count != len(names):
        fail(f"--count {count} but --players names {len(names)} ({', '.join(names)}): give one of them, "
             f"or a --count equal to the number of names")
    if print_markers is not None:
        n = len(names) if names else (count or 4)
        try:
            save_image(print_markers, marker_sheet(n))
        except NertzError as e:
            fail(f"the marker sheet: {e}")
        typer.echo(f"wrote the marker sheet to {print_markers}: ids 0-3 on the shared area's corners, "
                   f"10-{9 + n} one in each player's layout (players in --players order)", err=True)
        return
    if out is None:
        fail("give --out table.json (the table file to write)")
    if source is None:
        fail("give --source: a webcam index (0), a video file, a folder of images, an image or a stream URL")
    if method not in ("auto", "markers", "layouts"):
        fail(f"unknown --method {method!r}: choose auto, markers or layouts")
    from nertz.referee.files import check_not_an_input, same_file

    from .sources import folder_fps_note, source_kind, source_path

    if fps is not None:  # (it was ignored on a video: --frame then meant other seconds than the user thought)
        try:
            folder_fps_note(source, fps)
        except NertzError as e:
            fail(str(e))

    try:  # (--rules-from may be --out: it is read before --out is written)
        check_not_an_input(out, [("--source", source_path(source))])
        if preview is not None:
            if same_file(preview, out):
                fail(f"--preview {preview} and --out {out} are the same file: the preview image and the table "
                     "file cannot be one file; give --preview another file name")
            check_not_an_input(preview, [("--source", source_path(source)), ("--rules-from", rules_from)],
                               option="--preview")
    except NertzError as e:
        fail(str(e))
    # before anything is computed: a write that fails after the calibration wastes it
    for option, path, what in (("--out", out, "the table file to write (.json)"),
                               ("--preview", preview, "the image file to write (.png or .jpg)")):
        if path is None:
            continue
        if path.is_dir():
            fail(f"{option} {path}: a folder; {option} names {what}")
        if option == "--preview" and not cv2.haveImageWriter(str(path)):
            fail(f"--preview {path}: no image format for the extension {path.suffix or '(none)'!r}; use .png or .jpg")
        folder = path.resolve().parent
        if not folder.is_dir():
            fail(f"{option} {path}: its folder {folder} does not exist")
        if not os.access(folder, os.W_OK):
            fail(f"{option} {path}: its folder {folder} is not writable")
    if out.exists() and not force:
        fail(f"{out} exists: give --force to overwrite it")
    if names is not None and len(set(names)) != len(names):
        fail(f"--players names must differ: {', '.join(names)}")
    tried: list[float] = []  # seconds of the stills tried
    first_error: Exception | None = None
    grey = 0  # stills tried that were greyscale
    try:
        rules = None
        if rules_from is not None:
            from nertz.referee.files import read_table

            rules = read_table(rules_from).rules.model_dump(mode="json")

        def from_still(image):
            if manual:
                data = run_manual(image, names or [f"P{i + 1}" for i in range(count or 2)])
            else:
                use = method
                if method == "auto":
                    found = detect_markers(image)
                    use = "markers" if all(i in found for i in CORNER_IDS) else "layouts"
                if use == "markers":
                    data = calibrate_markers(image, names, count=count)
                else:
                    data = calibrate_layouts(image, names, count=count)
            return data, finish_table(data, rules)

        with open_source(source, fps=fps) as src:
            if frame is not None or src.live or manual:
                times = [frame if frame is not None else (1.0 if src.live else 0.0)]
            else:
                times = list(AUTO_STILLS)  # a file: several stills
            # with the player count known, the first still that calibrates; without it, the one
            # that finds the most players (the earliest of those): a hand over a layout, or cards
            # already played from it, can hide a player in one still (AUTO_STILLS)
            keep_looking = len(times) > 1 and names is None and count is None
            best = None  # (players, data, table, still)
            for k, t in enumerate(times):
                try:
                    still = frame_at(src, t)
                except SourceError:
                    if k == 0:
                        raise
                    break  # a short clip: no later still
                tried.append(t)
                if is_greyscale(still.image):  # (a black frame too: a later still may have colour)
                    grey += 1
                    continue
                try:
                    data, table = from_still(still.image)
                except TooManyLayouts:
                    raise  # the names are wrong: a later still with a layout hidden would drop a player
                except (NertzError, CalibrationError) as e:
                    first_error = first_error or e
                    continue
                if best is None or len(table.players) > best[0]:
                    best = (len(table.players), data, table, still)
                if not keep_looking:
                    break
            if best is None:
                if grey == len(tried):  # as nertz audit refuses a grey photo
                    raise CalibrationError(
                        f"{source} is greyscale{'' if grey == 1 else ' in every still tried'}: the players' back "
                        "colours, which say whose card each is, cannot be registered from it (calibrate from a "
                        "colour image, video or camera)")
                raise first_error
            _, data, table, still = best
            image = still.image
        data.setdefault("calibration", {}).update({"source": str(source), "t": round(still.t, 3)})
    except (NertzError, CalibrationError) as e:
        if len(tried) > 1 and e is first_error:
            folder = fps is None and source_kind(source) == "images"  # (images 0, 15, 30, ... of it)
            fail(f"{e} (tried the stills at {', '.join(f'{t:g}' for t in tried)} s"
                 + (", a folder of images taken as 30 frames a second: give --fps for its rate" if folder else "")
                 + "; give --frame SECONDS for one where no hand covers a layout)")
        fail(str(e))
    result = table.to_dict()
    result["calibration"] = data["calibration"]
    part = out.with_name(f".{out.name}.partial")  # named --out once the preview is written too
    try:
        part.write_text(json.dumps(result, indent=1) + "\n")
        if preview is not None:
            try:
                save_image(preview, draw_table(image, result))
            except NertzError as e:
                fail(f"the preview image: {e}")
        os.replace(part, out)
    except OSError as e:
        fail(f"{out}: cannot write ({e.strerror})")
    finally:
        part.unlink(missing_ok=True)
    cal = data["calibration"]
    sides = seat_sides([table.zones[p.name] for p in table.players]) if len(table.zones) == len(table.players) \
        else [""] * len(table.players)
    seats = ", ".join(f"{p.name} {p.back}" + (f" at the {side}" if side else "") for p, side in zip(table.players, sides))
    typer.echo(f"wrote {out}: {len(table.players)} players ({seats}), "
               f"method {cal.get('method')}, frame at {still.t:.2f} s of {source}", err=True)
    if not manual and len(table.zones) == len(table.players):
        typer.echo("check the seats above (and --preview): names go clockwise from the bottom of the image; "
                   "if a name is on the wrong seat, give --players in that order", err=True)
    sys.stdout.flush()
