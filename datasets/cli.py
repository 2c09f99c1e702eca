"""``nertz synth``: the synthetic data engine's commands (mounted by :mod:`nertz.cli`).

- ``nertz synth round --players 3 --seed 7 --out DIR`` simulates one round and renders it
  as camera video: ``clip.mp4``, ``labels.jsonl``, ``table.json``, ``events.jsonl``,
  ``result.json``, ``meta.json`` (see :mod:`nertz.datasets.video`).
- ``nertz synth audit --seed 3 --out DIR`` renders an end-of-round photo for ``nertz audit``
  (``photo.png``, ``table.json``, ``truth.json``; :mod:`nertz.datasets.audit_scenes`).
- ``nertz synth dataset --kind detect --images 2000 --seed 1 --out DIR`` writes a training
  set in the formats ultralytics reads, with its dataset YAML
  (:func:`nertz.datasets.export.write_dataset`).

Bad input (an option out of range, a malformed resolution, a missing card-art cache, an
``--out`` that is a file or a folder holding other files) is one ``error: ...`` line on
standard error and exit status 2, checked before anything is simulated or rendered. No
command has an overwrite flag: ``--out`` is a new or empty folder, or for ``round`` and
``audit`` one written by the same command before (its files are replaced).
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn, Optional

import typer

from nertz.referee.errors import NertzError

__all__ = ["app"]

app = typer.Typer(help="The synthetic data engine: simulated rounds rendered as labelled video, training sets.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)

# how a simulated round ended (``Simulation.stats["ending"]``), for the summary line
_ENDINGS = {"call": "ended by a call", "stuck": "ended with every player stuck", "ended": "ended by the time limit"}


def _fail(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def _n(count: int, noun: str) -> str:
    """``"1 collision"``, ``"2 collisions"``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _oserror(exc: OSError, path: Path) -> str:
    """An OSError as ``PATH: reason`` (no ``[Errno N]``)."""
    return f"{exc.filename or path}: {exc.strerror or exc}"


def _check_out(out: Path, names: frozenset[str] | set[str], what: str) -> None:
    """Exit 2 unless ``out`` can take the command's files: a folder that does not exist yet
    (created later; its nearest existing parent must be a writable folder) or a writable folder
    holding nothing but ``names`` (``what``: the files an earlier run of the command wrote,
    which are replaced) and dot files. A file, or a folder holding anything else, is refused:
    the synth commands have no overwrite flag, so nothing of another kind is replaced or mixed
    in. Called before any simulating or rendering."""
    if out.is_dir():
        try:
            other = sorted(p.name for p in out.iterdir() if p.name not in names and not p.name.startswith("."))
        except OSError as exc:
            _fail(f"{out}: cannot read the folder ({exc.strerror})")
        if other:
            shown = ", ".join(other[:4]) + (f" and {len(other) - 4} more" if len(other) > 4 else "")
            _fail(f"{out} holds files that are not {what} ({shown}): give a new or empty folder for --out")
        if not os.access(out, os.W_OK | os.X_OK):
            _fail(f"{out}: the folder is not writable")
        return
    if out.exists() or out.is_symlink():
        _fail(f"{out} is a file, not a folder: --out names the folder to write")
    parent = out.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        _fail(f"{out}: cannot create it, {parent} is a file")
    if not os.access(parent, os.W_OK | os.X_OK):
        _fail(f"{out}: cannot create it, {parent} is not writable")


def _check_art(design: Optional[str], placeholder: bool = True) -> None:
    """Exit 2 with the fetch command when the card-art cache is missing (unless placeholders
    were asked for) or the design is unknown. ``placeholder``: the command takes
    ``--design placeholder`` (the message then offers it)."""
    if design == "placeholder":
        return
    from nertz.datasets import art

    try:
        designs = art.list_designs()
    except art.ArtMissingError as exc:
        _fail(f"{exc}" + (" (or pass --design placeholder for plain drawn faces)" if placeholder else ""))
    if not designs:
        _fail("the card-art cache holds no designs: run `bash datasets/fetch_art.sh --force`")
    if design is not None and design not in designs:
        _fail(f"unknown card design {design!r}; available: {', '.join(designs)}")


class _Bar:
    """A rich progress bar on standard error (silent when ``quiet``)."""

    def __init__(self, description: str, quiet: bool) -> None:
        self.quiet = quiet
        self.description = description
        self.progress: Any = None
        self.task: Any = None

    def __enter__(self) -> "_Bar":
        if not self.quiet:
            from rich.console import Console
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                       TimeElapsedColumn, TimeRemainingColumn)

            self.progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                     TimeElapsedColumn(), TimeRemainingColumn(),
                                     console=Console(stderr=True), transient=False)
            self.progress.__enter__()
            self.task = self.progress.add_task(self.description, total=None)
        return self

    def __call__(self, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress.update(self.task, completed=done, total=total)

    def __exit__(self, *exc: Any) -> None:
        if self.progress is not None:
            self.progress.__exit__(*exc)


@app.command("round")
def round_(
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder to write (created): a new or empty folder, or an earlier round's (its files are replaced).")],
    players: Annotated[int, typer.Option(min=2, max=6, help="Number of players, 2..6.")] = 3,
    seed: Annotated[int, typer.Option(min=0, help="Random seed: the same seed and options give the same round and video.")] = 0,
    resolution: Annotated[str, typer.Option(help="Frame size WIDTHxHEIGHT: 1280x720 or 1920x1080 (any even size from 64x36 up to 8K, 7680x4320 pixels).")] = "1280x720",
    fps: Annotated[int, typer.Option(min=1, max=120, help="Frames per second.")] = 30,
    speed: Annotated[Optional[float], typer.Option(help="Players' speed factor (1.0: practised adults). Default 1.0, or chosen for --min/--max-seconds.")] = None,
    min_seconds: Annotated[Optional[float], typer.Option("--min-seconds", help="Draw rounds (from the seed) until one lasts at least this long.")] = None,
    max_seconds: Annotated[Optional[float], typer.Option("--max-seconds", help="... and at most this long (deal to end of the Nertz count).")] = None,
    max_duration: Annotated[Optional[float], typer.Option("--max-duration", help="Stop the round after this many seconds with no caller (short clips).")] = None,
    partnerships: Annotated[bool, typer.Option("--partnerships", help="Partners share a deck (even --players >= 4).")] = False,
    jokers: Annotated[bool, typer.Option("--jokers", help="Two jokers in each deck.")] = False,
    illegal_rate: Annotated[float, typer.Option("--illegal-rate", min=0.0, max=1.0, help="Share of foundation plays that are deliberately illegal.")] = 0.0,
    nertz_pile: Annotated[int, typer.Option("--nertz-pile", min=11, max=13, help="Nertz pile size.")] = 13,
    workers: Annotated[Optional[int], typer.Option(min=1, help="Render processes (default: the CPU count).")] = None,
    codec: Annotated[str, typer.Option(help="mp4v (OpenCV) or h264 (PyAV libx264: about a tenth the size; pip install av).")] = "mp4v",
    crf: Annotated[Optional[int], typer.Option(min=0, max=51, help="x264 constant rate factor for --codec h264, 0..51 (lower: better, larger; default 28). Refused with mp4v, which has none.")] = None,
    design: Annotated[Optional[str], typer.Option(help="Card design from the art cache, or 'placeholder'. Default: drawn from the seed.")] = None,
    tilt: Annotated[Optional[float], typer.Option(min=0.0, max=60.0, help="Camera tilt off vertical, degrees. Default: drawn (0..35).")] = None,
    scene_seed: Annotated[Optional[int], typer.Option("--scene-seed", min=0, help="Seed of the table, camera, light and art (default: --seed).")] = None,
    tail: Annotated[float, typer.Option(min=0.0, help="Seconds of the final table kept after the Nertz count.")] = 1.0,
    withdraw_s: Annotated[float, typer.Option("--withdraw-s", min=0.0, max=2.0, help="Seconds an empty hand takes back to rest after a release (0: at rest at once, as renders before 2026-12-05).")] = 0.3,
    labels: Annotated[bool, typer.Option("--labels/--no-labels", help="Write labels.jsonl (per-frame card quads, hands).")] = True,
    gzip_labels: Annotated[bool, typer.Option("--gzip-labels", help="Write labels.jsonl.gz (gzip) instead of labels.jsonl.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Simulate one round and render it: clip.mp4, labels.jsonl, table.json, events.jsonl, result.json, meta.json."""
    from nertz.datasets.sim import SimSettings, simulate_round, simulate_round_between, speed_for_duration
    from nertz.datasets.video import CODECS, ROUND_FILES, VideoError, frame_count, parse_resolution, render_round

    if codec not in CODECS:
        _fail(f"unknown codec {codec!r}; choose from {', '.join(CODECS)}")
    if crf is not None and codec != "h264":  # OpenCV's mp4v has no rate factor: --crf was ignored
        _fail(f"--crf is x264's rate factor: it needs --codec h264 (--codec {codec} has no such setting; "
              "leave --crf out, or add --codec h264)")
    try:
        size = parse_resolution(resolution)
    except ValueError as exc:
        _fail(str(exc))
    for flag, value in (("--min-seconds", min_seconds), ("--max-seconds", max_seconds), ("--max-duration", max_duration)):
        if value is not None and math.isnan(value):  # nan passes every comparison below: it would be ignored
            _fail(f"{flag} must be a number of seconds, got nan")
    between = min_seconds is not None or max_seconds is not None
    lo = 0.0 if min_seconds is None else float(min_seconds)
    hi = math.inf if max_seconds is None else float(max_seconds)
    if between and (lo < 0 or hi <= lo):
        _fail(f"--min-seconds ({lo:g}) must be >= 0 and below --max-seconds ({hi:g})")
    if between and max_duration is not None:
        _fail("--max-duration stops a round early; it cannot be combined with --min/--max-seconds")
    if max_duration is not None and max_duration <= 0:
        _fail(f"--max-duration must be positive, got {max_duration:g}")
    if speed is not None and not 0.05 <= speed <= 20:
        _fail(f"--speed must be 0.05..20, got {speed:g}")
    if codec == "h264":
        try:
            import av  # noqa: F401
        except ImportError:
            _fail("--codec h264 needs PyAV (pip install av); or use --codec mp4v")
    # a README.md beside a round's files is a person's note (datasets/samples/round-3p): kept
    _check_out(out, ROUND_FILES | {"README.md"}, "a round's")
    _check_art(design)

    owners = players // 2 if partnerships else players
    chosen = speed is None and between  # the speed is chosen for the window, not given
    try:
        if speed is None and between:
            # aim at the middle of the window (20 % above a lone minimum, 80 % of a lone maximum)
            target = (lo + hi) / 2 if lo > 0 and math.isfinite(hi) else (lo * 1.2 if lo > 0 else hi * 0.8)
            speed = speed_for_duration(owners, target)
        elif speed is None:
            speed = 1.0
        settings = SimSettings(players=players, partnerships=partnerships, jokers=jokers, illegal_rate=illegal_rate,
                               nertz_pile=nertz_pile, speed=speed, withdraw_s=withdraw_s,
                               max_duration=float(max_duration) if max_duration is not None else 900.0)
        settings.validate()
        sim = simulate_round_between(settings, seed, lo, hi) if between else simulate_round(settings, seed)
    except ValueError as exc:
        if chosen and str(exc).startswith("no round of"):
            # "adjust the speed" told a user who gave none to give one --speed refuses (89 for 1..3 s)
            _fail(f"no round drawn from seed {seed} lasted {lo:g}..{hi:g} s (at speed {speed:.3g}, chosen for that "
                  "window; the deal and the Nertz count take seconds of their own): give a longer or wider window, "
                  "or --speed (0.05..20) with it")
        _fail(str(exc))
    options: dict[str, Any] = {}
    if design is not None:
        options["design"] = design
    if tilt is not None:
        options["tilt_deg"] = tilt
    n_frames = frame_count(sim.duration, tail, fps)
    ending = _ENDINGS.get(sim.stats["ending"], f"ended: {sim.stats['ending']}")
    if sim.stats["ending"] == "ended" and max_duration is not None:
        ending = f"stopped at the time limit (--max-duration {max_duration:g} s) with no caller"
    typer.echo(f"round: {players} players, seed {seed} (simulation seed {sim.seed}), {sim.duration:.1f} s, "
               f"{_n(sim.stats['plays'], 'play')}, {_n(sim.stats['collisions'], 'collision')}, {ending}; "
               f"rendering {n_frames} frames at {size[0]}x{size[1]}", err=True)
    command = "nertz synth round " + " ".join(sys.argv[3:]) if sys.argv[1:3] == ["synth", "round"] else None
    try:
        with _Bar("rendering", quiet) as bar:
            report = render_round(sim, out, resolution=size, fps=fps, workers=workers,
                                  scene_seed=seed if scene_seed is None else scene_seed, codec=codec, crf=28 if crf is None else crf,
                                  tail=tail, labels=labels, gzip_labels=gzip_labels, scene_options=options, progress=bar,
                                  meta={"cli_seed": seed, "command": command})
    except OSError as exc:
        _fail(_oserror(exc, out))
    except (ValueError, VideoError, NertzError) as exc:
        _fail(str(exc))
    typer.echo(f"wrote {', '.join(report.files)} to {report.out}: {report.frames} frames, "
               f"clip {report.clip_bytes / 1e6:.1f} MB, {report.wall_s:.1f} s with {report.workers} "
               f"worker{'s' if report.workers != 1 else ''} "
               f"(render median {report.frame_ms_median:.1f} ms/frame)", err=True)


def _parse_option(text: str) -> tuple[str, Any]:
    if "=" not in text:
        raise ValueError(f"--option must be KEY=VALUE, got {text!r}")
    key, value = text.split("=", 1)
    key = key.strip().replace("-", "_")
    if not key.isidentifier():
        raise ValueError(f"--option key {key!r} is not a name")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


_SET_FILES = frozenset({"images", "labels", "train", "val", "data.yaml"})
"""What ``nertz synth dataset`` writes in its folder (detect and obb: ``images``, ``labels``;
the card kinds: ``train``, ``val``; every kind ``data.yaml``)."""


@app.command("dataset")
def dataset(
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder to write (created): a new or empty folder.")],
    kind: Annotated[str, typer.Option(help="What to train: detect, obb (crops with boxes or oriented boxes), classify, card, strip (card crops in class folders).")] = "detect",
    images: Annotated[int, typer.Option(min=1, help="How many images to write, at most: detect and obb exactly that many crops; classify, card and strip card crops, fewer where the scenes show fewer cards. They are spread over rendered scenes (at least 2 from 2 images): the first scene and every 10th (-x val_every=N) go to val, the others to train.")] = 1000,
    seed: Annotated[int, typer.Option(min=0, help="Random seed: the same seed and options give the same set.")] = 0,
    workers: Annotated[Optional[int], typer.Option(min=1, help="Processes (default: the CPU count).")] = None,
    option: Annotated[Optional[list[str]], typer.Option("--option", "-x", metavar="KEY=VALUE", help="Extra KEY=VALUE for the exporter (VALUE parsed as JSON when it can be); repeatable. Each kind takes its own keys (nertz.datasets.export.OPTIONS); an unknown key is refused with the list.")] = None,
) -> None:
    """Write a training set (YOLO labels or classification folders) with its dataset YAML:
    on standard output the path to train on (the YAML; for classify, card and strip the set's
    folder, which ultralytics takes itself), what was written on standard error."""
    try:
        options = dict(_parse_option(o) for o in (option or []))
    except ValueError as exc:
        _fail(str(exc))
    from nertz.datasets.export import KINDS, OPTIONS, write_dataset

    if kind not in KINDS:
        _fail(f"unknown --kind {kind!r}; choose from {', '.join(KINDS)}")
    unknown = sorted(set(options) - set(OPTIONS[kind]))
    if unknown:
        _fail(f"unknown --option key{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} for --kind {kind}; "
              f"it takes {', '.join(OPTIONS[kind])}")
    _check_out(out, _SET_FILES, "a training set's")
    for sub in ("images", "labels", "train", "val"):
        # an earlier set's files would stay beside the new ones (as nertz synth real-obb refuses)
        if (out / sub).is_dir() and any(p.is_file() for p in (out / sub).rglob("*")):
            _fail(f"{out} already holds a set ({out / sub}): write to a new folder or remove it")
    designs = options.get("designs")
    if designs is not None and not (isinstance(designs, list) and designs and all(isinstance(d, str) for d in designs)):
        _fail(f"-x designs takes a JSON list of design names, e.g. designs='[\"ais-tango\"]'; got {designs!r}")
    for d in designs or [None]:
        _check_art(d, placeholder=False)
    try:
        yaml_path = write_dataset(kind, images, seed, out, workers or os.cpu_count() or 1, cap_images=True,
                                  **options)
    except OSError as exc:
        _fail(_oserror(exc, out))
    except (ValueError, NertzError) as exc:
        _fail(str(exc))
    except TypeError as exc:  # an --option value of the wrong type
        _fail(f"bad --option value: {exc}")
    split = {sp: (sum(1 for _ in (out / "images" / sp).glob("*.jpg")) if kind in ("detect", "obb")
                  else sum(1 for _ in (out / sp).glob("*/*.png"))) for sp in ("train", "val")}
    note = "" if split["val"] else "; val is empty, and ultralytics needs val images: ask for more --images"
    typer.echo(f"wrote {_n(split['train'] + split['val'], 'image')} ({split['train']} train, {split['val']} val) "
               f"to {out}{note}", err=True)
    typer.echo(str(yaml_path))


_AUDIT_FILES = frozenset({"photo.png", "table.json", "truth.json"})
"""What ``nertz synth audit`` writes in its folder."""


@app.command("audit")
def audit_scene(
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder to write (created): photo.png, table.json, truth.json; a new or empty folder, or an earlier audit scene's (its files are replaced).")],
    seed: Annotated[int, typer.Option(min=0, help="Random seed: the same seed gives the same photo (seeds from 10000 are the held-out evaluation's).")] = 0,
    players: Annotated[Optional[int], typer.Option(min=2, max=6, help="Number of players (default: drawn, 2-4).")] = None,
    resolution: Annotated[str, typer.Option(help="WIDTHxHEIGHT of the photo, pixels (64x36 up to 8K, 7680x4320 pixels).")] = "1920x1080",
    arrangements: Annotated[str, typer.Option(help="Spreads in the shared area, comma-separated: row, fan, heap.")] = "row,fan,heap",
) -> None:
    """Render an end-of-round photo for `nertz audit`: foundations face down in the shared
    area (rows, fans, heaps), each player's Nertz cards left spread in their zone; with its
    table file and the true counts (truth.json). Needs the card art (the decks' backs): run
    `bash datasets/fetch_art.sh` once."""
    try:
        w, h = (int(v) for v in resolution.lower().split("x"))
    except ValueError:
        _fail(f"--resolution {resolution!r}: write it as WIDTHxHEIGHT, e.g. 1920x1080")
    kinds = tuple(a.strip() for a in arrangements.split(",") if a.strip())
    _check_out(out, _AUDIT_FILES, "an audit scene's")
    _check_art(None, placeholder=False)
    import cv2

    from nertz.datasets.audit_scenes import make_audit_scene

    try:
        sc = make_audit_scene(seed, (w, h), n_players=players, arrangements=kinds)
    except ValueError as exc:
        _fail(str(exc))
    except MemoryError:  # a large --resolution on a small machine (7680x4320 takes about 6 GB)
        _fail(f"--resolution {w}x{h}: not enough memory to render the photo; give a smaller one, e.g. 1920x1080")
    try:
        out.mkdir(parents=True, exist_ok=True)
        if not cv2.imwrite(str(out / "photo.png"), sc.frame):
            _fail(f"{out / 'photo.png'}: cannot write the photo")
        (out / "table.json").write_text(json.dumps(sc.table, indent=1) + "\n")
        (out / "truth.json").write_text(json.dumps(sc.truth.to_dict(), indent=1) + "\n")
    except OSError as exc:
        _fail(f"{out}: cannot write ({exc.strerror})")
    counts = ", ".join(f"{n} {p}" for p, n in sc.truth.shared.items())
    typer.echo(f"wrote {out}/photo.png, table.json, truth.json: shared area {counts}; try "
               f"nertz audit {out}/photo.png --table {out}/table.json", err=True)


@app.command("real-obb")
def real_obb(
    photos: Annotated[Path, typer.Option(help="Folder of real photos (edje_tf_cards/train; never an evaluation-only set).")],
    labels: Annotated[Path, typer.Option(help="Their boxes: {\"images\": [{\"image\", \"boxes\": [{xmin, ymin, xmax, ymax}]}]}.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder to write (created).")],
    detector: Annotated[Optional[Path], typer.Option(help="Oriented-box detector (ONNX) whose quads turn the boxes. Default: the shipped models/cards_obb.onnx; an axis-aligned one (cards_det.onnx) is refused.")] = None,
    imgsz: Annotated[int, typer.Option(min=64, help="Longer side of the written photos, pixels (the detector's inference size for them).")] = 320,
    holdout_every: Annotated[int, typer.Option(min=2, help="Every n-th photo (by name) goes to val only.")] = 4,
    copies: Annotated[int, typer.Option(min=1, help="Times each training photo is written.")] = 4,
    paste: Annotated[int, typer.Option(min=0, help="Most rendered cards laid on each training copy (0 to N, drawn per copy; needs the card art): real backgrounds under cards of every design.")] = 0,
    words: Annotated[int, typer.Option(min=0, help="With --paste: most printed words laid besides the cards on each copy (letters like a card's index, unlabelled).")] = 0,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the pasted cards.")] = 0,
) -> None:
    """Write an oriented-box detector set from real photos with axis-aligned VOC boxes:
    images/ and labels/ to list beside the synthetic sets in a training YAML. With --paste N,
    rendered cards are laid on the photos' free places, and with --words W printed words
    besides (unlabelled background). OUT must be a new or empty folder. The set is written in a
    hidden OUT/.real-obb-*.partial folder and moved into place at the end; a run killed outright
    leaves that folder, and the next run into OUT removes it (and says so)."""
    from nertz.datasets.real_export import write_voc_obb_set
    from nertz.vision.detect import OBB_ONNX, ImageError, ModelError

    detector = detector or OBB_ONNX  # the source tree's models/, wherever this is run from
    for p in (photos, labels, detector):
        if not p.exists():
            _fail(f"{p}: not found")
    if not photos.is_dir():
        _fail(f"--photos {photos}: a file, not the folder of the photos")
    for flag, p in (("--labels", labels), ("--detector", detector)):
        if p.is_dir():
            _fail(f"{flag} {p}: a folder, not a file ({'the boxes, JSON' if flag == '--labels' else 'an ONNX model'})")
    try:
        stats = write_voc_obb_set(photos, labels, out, detector, imgsz=imgsz, holdout_every=holdout_every,
                                  copies=copies, paste=paste, seed=seed, words=words)
    except (ValueError, KeyError, OSError, ImageError, ModelError, json.JSONDecodeError) as exc:
        _fail(f"a field {exc} is missing" if isinstance(exc, KeyError) else str(exc))
    typer.echo(json.dumps(stats))
