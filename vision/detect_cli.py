"""``nertz detect IMAGE... [--table T.json] [--json]``: the cards seen in images.

The lead mounts it with ``app.command("detect")(detect_command)`` in ``nertz/cli.py``.

With ``--json``, one line per image in the contract of ``shared/DESIGN.md``:
``{"image": path, "cards": [{"label", "back", "quad", "confidence"}]}``; an image that cannot
be read gives ``{"image": path, "error": message}`` and the others are still processed.
Without it, a readable list: each card's label, confidence and the bounding box of its quad
(``[x0,y0 .. x1,y1]`` pixels; the quad itself is in the JSON). Exit status 2 when any image
could not be read (after all of them were processed) or when the table file or the models are
bad.

``--table`` is the table file of the camera that took the images: its back colours name the
backs, and its zones turn each whole card in them the way its player lays it
(:mod:`nertz.vision.card_axes`). An image whose size the table's polygons do not fit
(:func:`nertz.vision.sources.table_misfit`: a table made for another camera) gets a warning
and is read with the back colours only.

A greyscale image (one channel, 8 or 16 bits, or three equal ones:
:func:`nertz.vision.detect.is_greyscale`) gets a warning on standard error, once, with or
without ``--json``: red suits cannot be told from black ones in it (a JD is read as a JS), nor
the backs' colours.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import numpy as np
import typer

from nertz.referee.errors import NertzError


def detect_command(
    images: Annotated[list[Path], typer.Argument(metavar="IMAGES...", help="image files")],
    table: Annotated[Optional[Path], typer.Option("--table", help="table file of the camera that took the images: "
                                                  "back colours, and the zones' card directions")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="one JSON line per image, with each card's quad "
                                                   "(without: its bounding box)")] = False,
    conf: Annotated[float, typer.Option(min=0.0, max=1.0, help="detector confidence threshold")] = 0.3,
    imgsz: Annotated[int, typer.Option(min=64, max=2048, help="detector input size (the image's longer side "
                                       "is scaled to it), pixels: 640 for a camera's view of a table; 320 for "
                                       "a photo of a few large cards (models/MODEL_CARD.md measures the edje "
                                       "photos at 320: faces P 0.68 / R 0.99 on the held-out quarter of edje train, "
                                       "P 0.82 / R 0.99 on the evaluation-only edje test photos; worse at "
                                       "640)")] = 640,
) -> None:
    """Find and name the cards in each image."""
    from nertz.referee.files import read_table

    from .detect import CardRecognizer, is_greyscale, load_image
    from .sources import table_misfit

    try:
        tbl = read_table(table) if table is not None else None
        rec = CardRecognizer(table=tbl, conf=conf, imgsz=imgsz)
    except NertzError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2)
    axes = rec.axes  # the zones' card directions: only for images the table's polygons fit
    failed = 0
    for path in images:
        try:
            frame = load_image(path)
        except NertzError as e:
            failed += 1
            if json_out:
                sys.stdout.write(json.dumps({"image": str(path), "error": str(e)}) + "\n")
            else:
                typer.echo(f"error: {e}", err=True)
            continue
        if is_greyscale(frame):  # on standard error: the JSON lines on standard output stay whole
            typer.echo(f"warning: {path}: a greyscale image: red suits cannot be told from black ones in it "
                       "(hearts and diamonds may be named as spades and clubs), nor the backs' colours", err=True)
        misfit = table_misfit(tbl, (frame.shape[1], frame.shape[0])) if axes is not None else None
        if misfit is not None:
            # a table made for another camera would turn the cards lying where its zones are
            # by those zones' directions: its back colours are still used, its zones not
            typer.echo(f"warning: {path}: in {table}, {misfit} (for this image only its back colours are used)",
                       err=True)
        rec.axes = axes if misfit is None else None
        cards = rec(frame).cards()
        if json_out:
            sys.stdout.write(json.dumps({"image": str(path), "cards": cards}) + "\n")
        else:
            typer.echo(f"{path}: {len(cards)} card{'' if len(cards) == 1 else 's'}")
            for c in cards:
                (x0, y0), (x1, y1) = np.min(c["quad"], axis=0), np.max(c["quad"], axis=0)  # its bounding box
                who = f" ({c['back']})" if c["label"] == "back" else ""
                typer.echo(f"  {c['label']:>4}{who}  {c['confidence']:.2f}  "
                           f"[{x0:.0f},{y0:.0f} .. {x1:.0f},{y1:.0f}]")
        sys.stdout.flush()
    if failed:
        raise typer.Exit(2)
