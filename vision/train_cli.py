"""``nertz train detector|classifier|audit``: reproduce the shipped models (typer app ``app``, mounted by
the lead as ``nertz train``). Needs the ``[train]`` extra: ``pip install -e '.[train]'``.

Each command first checks every argument (``--imgsz`` 32..2048 and a multiple of 32, ``--epochs``,
``--batch``, ``--images``, ``--workers`` at least 1, the files and folders it names exist,
``--device``), that the card art is there when a set is to be rendered, and that the ``[train]``
extra is installed (without importing torch), so that a
mistake is one ``error:`` line at once, with nothing rendered or written; then it renders its
synthetic set (unless ``--data`` is given) under ``runs/data/<kind>_s<seed>`` (``runs/audit_data/s<seed>``:
a complete set of the same options there is reused, any other set or file there refused
unless ``--rerender``, only the command's own render cut short replaced; :func:`prepare_set`),
trains from scratch with
ultralytics (progress bars; ``--resume`` continues an interrupted run from its ``last.pt``)
and exports the best weights to ``models/`` as ``.pt`` and ``.onnx``. ``audit`` fine-tunes the
card detector (``--init``, default ``models/cards_obb.pt``) on audit scenes
(:func:`nertz.datasets.audit_export.write_audit_dataset`, scenes ``seed ..``, under 10000) into
the audit's strip detector ``models/audit_strips``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from nertz.referee.errors import NertzError

app = typer.Typer(help="Train the card detector and classifier from the synthetic engine "
                       "(needs the train extra: pip install -e '.[train]').", no_args_is_help=True, add_completion=False,
                  pretty_exceptions_enable=False)


IMGSZ_MIN, IMGSZ_MAX = 32, 2048
"""The ``--imgsz`` range of ``nertz train`` (pixels): ultralytics' smallest grid, and the
largest size ``nertz detect --imgsz`` takes (a rendered crop of 100000 pixels asked for 30 GB)."""

IMGSZ_STRIDE = 32
"""``--imgsz`` must be a multiple of this: ultralytics trains at a multiple of its largest
stride, 32, and would round any other size up (so that the rendered crops and the network's
input would differ)."""


# the options the three commands share (each gives its own default)
EpochsOpt = Annotated[int, typer.Option(min=1, help="training epochs")]
BatchOpt = Annotated[int, typer.Option(min=1, help="batch size")]
SeedOpt = Annotated[int, typer.Option(min=0, help="seed of the data and of training")]
WorkersOpt = Annotated[int, typer.Option(min=1, help="processes rendering the data")]
DeviceOpt = Annotated[str, typer.Option(help="'cpu' or a CUDA index")]
RerenderOpt = Annotated[bool, typer.Option("--rerender", help="render the set again in runs/, replacing an earlier "
                                           "complete one there (without it, a set of the same options is reused "
                                           "and one of other options refused)")]


def _fail(e: Exception) -> None:
    typer.echo(f"error: {e}", err=True)
    raise typer.Exit(2)


def check_imgsz(imgsz: int) -> None:
    """Refuse a training size that is not a multiple of :data:`IMGSZ_STRIDE` (pixels; the
    range :data:`IMGSZ_MIN`..:data:`IMGSZ_MAX` is typer's own check).

    Raises:
        ValueError: names the nearest sizes that are.
    """
    if imgsz % IMGSZ_STRIDE:
        lo = max(IMGSZ_MIN, imgsz // IMGSZ_STRIDE * IMGSZ_STRIDE)
        raise ValueError(f"--imgsz {imgsz}: ultralytics trains at a multiple of {IMGSZ_STRIDE} pixels (it would "
                         f"round {imgsz} up, away from the rendered crops): give {lo} or {lo + IMGSZ_STRIDE}")


def check_device(device: str) -> None:
    """Refuse a ``--device`` that ultralytics would not take: ``cpu``, ``mps``, ``cuda``, a
    CUDA index or list (``0``, ``0,1``, ``cuda:0``; ``-1``: an idle GPU) are taken.

    Raises:
        ValueError: anything else.
    """
    d = device.strip().lower().replace("cuda:", "").replace(" ", "")
    parts = d.split(",")
    if d in ("cpu", "mps", "mps:0", "cuda") or (d and all(x.lstrip("-").isdigit() for x in parts)):
        return
    raise ValueError(f"--device {device!r}: give 'cpu', 'mps' or a CUDA index such as 0 (or 0,1)")


def check_lr0(lr0: float | None) -> None:
    """Refuse a learning rate that is not a positive number (``None``: ultralytics' own).

    Raises:
        ValueError: ``lr0`` is 0, negative or not finite.
    """
    import math

    if lr0 is not None and not (math.isfinite(lr0) and lr0 > 0):
        raise ValueError(f"--lr0 {lr0}: the learning rate must be a positive number")


def need_file(path: Path, option: str, what: str, noun: str = "file") -> None:
    """Refuse an ``option`` naming no file (before minutes of rendering). ``noun`` is what the
    file is, said of a folder given instead (``"model file"``: ``--weights runs/x: a folder,
    not a model file (weights to fine-tune)``).

    Raises:
        ValueError: ``path`` is a folder, or no file ("no such file").
    """
    p = Path(path)
    if p.is_dir():  # it was called "no such file", though it is there
        raise ValueError(f"{option} {path}: a folder, not a {noun} ({what})")
    if not p.is_file():
        raise ValueError(f"{option} {path}: no such file ({what})")


def need_data_yaml(path: Path, what: str) -> None:
    """Refuse a ``--data`` of ``nertz train detector|audit`` that is not a dataset YAML with
    ``train`` and ``val`` (ultralytics' own refusal comes as a traceback, after the model is
    built).

    Raises:
        ValueError: ``path`` is a folder, is missing, or is not such a YAML file.
    """
    import yaml

    p = Path(path)
    if p.is_dir():
        hint = f": give {p / 'data.yaml'}" if (p / "data.yaml").is_file() else ""
        raise ValueError(f"--data {path}: a folder, not {what}{hint}")
    need_file(p, "--data", what)
    try:
        if p.suffix.lower() not in (".yaml", ".yml"):
            raise ValueError
        data = yaml.safe_load(p.read_text(encoding="utf-8"))
    except (ValueError, yaml.YAMLError, OSError):
        raise ValueError(f"--data {path}: not a YAML file ({what})") from None
    if not (isinstance(data, dict) and "train" in data and "val" in data):
        raise ValueError(f"--data {path}: no train and val in it ({what}, as nertz synth dataset writes it)")


def need_art() -> None:
    """Refuse to render a training set without the card art: the renderer would draw its
    placeholder faces and backs (letters on white) instead, silently, and the model would learn
    those.

    Raises:
        NertzError: the art cache is missing or empty (the message names the fetch command).
    """
    from nertz.datasets import art

    if not art.list_designs():  # ArtMissingError (a NertzError) when there is no cache at all
        raise NertzError("the card-art cache holds no designs: run `bash datasets/fetch_art.sh --force`")


def need_classify_folder(path: Path) -> None:
    """Refuse a ``--data`` of ``nertz train classifier`` that is not a classification folder.

    Raises:
        ValueError: ``path`` is not a folder or has no ``train/`` folder.
    """
    if Path(path).exists() and not Path(path).is_dir():
        raise ValueError(f"--data {path}: a file, not a folder (a classification set: train/<class>/, val/<class>/)")
    if not Path(path).is_dir():
        raise ValueError(f"--data {path}: no such folder (a classification set: train/<class>/, val/<class>/)")
    if not (Path(path) / "train").is_dir():
        raise ValueError(f"--data {path}: no train/ folder in it (a classification set: train/<class>/, val/<class>/)")


def need_both_splits(folder: Path) -> None:
    """Refuse a rendered set with no ``train`` or no ``val`` images (a few ``--images`` make one
    scene, all in one split): ultralytics would stop on it with a traceback.

    Args:
        folder: the set's root (``images/{train,val}`` of a detect or obb set, or
            ``{train,val}/<class>`` of a classification set).

    Raises:
        ValueError: a split without images; names ``--images``.
    """
    folder = Path(folder)
    for split in ("train", "val"):
        d = folder / "images" / split if (folder / "images").is_dir() else folder / split
        if not any(p.is_file() for p in d.rglob("*")):
            raise ValueError(f"the rendered set {folder} has no {split} images (too few --images for two scenes, "
                             "and ultralytics trains on train and checks on val): ask for more --images")


def need_stem(out: Path, writable: bool = True) -> None:
    """Refuse an ``--out`` that is a folder: it is the weights' stem (``out.pt`` and
    ``out.onnx`` are written), so the weights would land beside the folder, not in it, after
    the whole training.

    Nor, with ``writable`` (the weights are exported there: not with ``--no-export``), one whose
    folder cannot be made or written to (a file on its path, a read-only folder): the export
    failed there with a traceback, after the whole training.

    Raises:
        ValueError: ``out`` is an existing folder (names the stem to give instead), or its
            folder cannot be written.
    """
    import os

    if Path(out).is_dir():
        raise ValueError(f"--out {out}: a folder; --out is the weights' stem, without suffix (.pt and .onnx are "
                         f"added): give for example {Path(out) / 'cards'}")
    if not writable:
        return
    parent = Path(out).parent
    while not parent.exists() and parent != parent.parent:  # the nearest folder there is (the rest is made)
        parent = parent.parent
    if not parent.is_dir():
        raise ValueError(f"--out {out}: cannot write the weights there, {parent} is a file")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"--out {out}: cannot write the weights there, {parent} is not writable")


RECIPE_FILE = ".nertz-recipe.json"
"""The file ``nertz train`` writes first in a set it renders under ``runs/`` (the set's recipe:
what it was asked to render), before any image; ``data.yaml``, written last, marks the set
complete. Together they tell the command's own sets, finished or cut short, from anything else."""


def recipe(kind: str, images: int, seed: int, **options: object) -> dict:
    """The recipe of a set ``nertz train`` renders: what decides its files (the arguments of
    :func:`nertz.datasets.export.write_dataset` or ``write_audit_dataset``, not ``workers``).
    A ``detector_quads`` file is named by its resolved path, size and modification time, so a
    detector trained again in its place makes another recipe. Values must be JSON (numbers,
    strings, paths)."""
    opts: dict = {}
    for key, value in sorted(options.items()):
        if key == "detector_quads" and value is not None:
            f = Path(str(value))
            st = f.stat() if f.is_file() else None
            value = [str(f.resolve()), st.st_size if st else None, st.st_mtime_ns if st else None]
        opts[key] = str(value) if isinstance(value, Path) else value
    return {"kind": kind, "images": images, "seed": seed, "options": opts}


def prepare_set(folder: Path, wanted: dict, rerender: bool) -> bool:
    """Decide what to do with ``folder``, the set this command renders under ``runs/``
    (``runs/data/<tag>``, named by kind and seed only), before rendering it.

    - missing or empty: created, and ``wanted`` written in it (:data:`RECIPE_FILE`);
    - a complete set (``data.yaml``) of the same recipe: reused (returns True; nothing is
      rendered or removed);
    - the command's own partial set (its recipe file, no ``data.yaml``: a render cut short):
      replaced, with a line on standard error;
    - with ``rerender``: whatever is there is replaced.

    Anything else is refused: a complete set of another recipe (a run asking for other
    ``--images`` or options), or one without a recipe file (rendered by ``nertz synth
    dataset`` or by hand), or a folder of other files, hours of rendering that were deleted
    without a word before.

    Returns:
        True: ``folder`` holds the set to train on; False: render into ``folder`` (it exists,
        holding only the recipe file).

    Raises:
        ValueError: the refusals above (names ``--rerender``); ``folder`` is a file or a link,
            or cannot be written.
    """
    import json
    import shutil

    folder = Path(folder)
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise ValueError(f"{folder} is a file or a link, not a folder of a rendered set: move it away to render the "
                         "set there")
    if folder.is_dir() and any(folder.iterdir()):
        try:
            earlier = json.loads((folder / RECIPE_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            earlier = None  # no recipe file: not a set this command rendered
        complete = (folder / "data.yaml").is_file()
        if rerender:
            typer.echo(f"replacing the earlier rendered set {folder} (--rerender)", err=True)
        elif complete and earlier == wanted:
            typer.echo(f"reusing the set rendered earlier with the same options in {folder} (--rerender renders "
                       "it again)", err=True)
            return True
        elif complete:
            if isinstance(earlier, dict):
                why = "with other options: " + ", ".join(f"{k} {earlier.get(k)} (now {wanted[k]})" for k in wanted
                                                         if earlier.get(k) != wanted[k])
            else:
                why = (f"with no {RECIPE_FILE} (by nertz synth dataset, by hand, or by an older nertz train): its "
                       "options are unknown")
            raise ValueError(f"{folder} holds a complete set rendered {why}; give --rerender to replace it, or "
                             "move it away to keep it")
        elif earlier is None:
            raise ValueError(f"{folder} holds files this command did not write: move them away, or give "
                             "--rerender to replace them")
        else:
            typer.echo(f"replacing {folder}, a render of this command cut short", err=True)
    try:
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / RECIPE_FILE).write_text(json.dumps(wanted, indent=1) + "\n", encoding="utf-8")
    except OSError as e:  # runs/ of a read-only install
        raise ValueError(f"{folder}: cannot render the set there ({e.strerror or e}); give --data, a set "
                         "rendered elsewhere (nertz synth dataset)") from None
    return False


def _export_or_say(best: Path, out: Path, export: bool) -> None:
    """Export the trained ``best`` weights to ONNX at ``out`` (input 640, dynamic), or say
    where they were left (``--no-export``)."""
    if export:
        from .train import export_onnx

        typer.echo(f"exported {export_onnx(best, out, 640)}")
    else:
        typer.echo(f"trained {best} (not exported)")


@app.command("detector")
def detector(
    data: Annotated[Optional[Path], typer.Option(help="data.yaml of a detect set; default: render one")] = None,
    images: Annotated[int, typer.Option(min=1, help="crops to render when --data is not given")] = 1400,
    epochs: EpochsOpt = 30,
    imgsz: Annotated[int, typer.Option(min=IMGSZ_MIN, max=IMGSZ_MAX, help="training crop size, pixels (a multiple "
                                       "of 32)")] = 320,
    batch: BatchOpt = 16,
    seed: SeedOpt = 20261130,
    workers: WorkersOpt = 2,
    device: DeviceOpt = "cpu",
    hours: Annotated[Optional[float], typer.Option(min=0.01, help="train for this long instead of --epochs: "
                                                   "ultralytics' time=, which sets the number of epochs "
                                                   "from the epochs' duration (machine-dependent; the "
                                                   "run's results.csv lists the epochs it ran)")] = None,
    resume: Annotated[bool, typer.Option(help="continue the interrupted run (runs/detect/<name>)")] = False,
    roll_p: Annotated[float, typer.Option(min=0.0, max=1.0, help="share of rendered frames turned by a random "
                                                                  "angle")] = 0.0,
    clutter_crops: Annotated[float, typer.Option(min=0.0, max=1.0, help="share of the crops placed on table clutter or away "
                                                      "from the cards (background images, labels often "
                                                      "empty)")] = 0.0,
    weights: Annotated[Optional[Path], typer.Option(help="start from these weights (fine-tune) "
                                                          "instead of from scratch")] = None,
    lr0: Annotated[Optional[float], typer.Option(help="initial learning rate (AdamW); default: ultralytics' auto")] = None,
    obb: Annotated[bool, typer.Option("--obb", help="the oriented-box detector (YOLO11n-obb, data kind "
                                                     "'obb'), its layers initialised from --init")] = False,
    init: Annotated[Optional[Path], typer.Option(help="with --obb: weights whose matching layers start "
                                                       "the model (default: models/cards_det.pt, unless "
                                                       "--weights is given)")] = None,
    name: Annotated[Optional[str], typer.Option(help="run name under runs/detect/ (default cards_det, "
                                                     "cards_obb with --obb)")] = None,
    out: Annotated[Optional[Path], typer.Option(help="where to ship the weights (stem; default "
                                                      "models/cards_det, models/cards_obb with --obb)")] = None,
    export: Annotated[bool, typer.Option(help="export the best weights to ONNX at --out (--no-export: "
                                               "leave them in the run folder, e.g. on a GPU machine "
                                               "without onnxslim, and export them with "
                                               "nertz.vision.train.export_onnx where ultralytics and "
                                               "onnxslim are installed)")] = True,
    rerender: RerenderOpt = False,
) -> None:
    """Train the card detector (YOLO11n: face, back, hand) and export it to ONNX."""
    try:
        from .train import MODELS, RUNS, require_train_extra, train_detector

        name = name or ("cards_obb" if obb else "cards_det")
        # the defaults are the source tree's models/ (where nertz detect finds them), wherever it is run from
        out = out or MODELS / ("cards_obb" if obb else "cards_det")
        need_stem(out, writable=export)
        if obb and init is None and weights is None:
            init = MODELS / "cards_det.pt"
        # every argument and the [train] extra first: the data set takes minutes to render
        check_imgsz(imgsz)
        check_device(device)
        check_lr0(lr0)
        if init is not None and not obb:  # it would be ignored: a run from scratch, after minutes of rendering
            raise ValueError(f"--init {init}: only with --obb (the oriented-box detector's starting layers); "
                             "to fine-tune the detector, give --weights")
        if not resume:
            if data is not None:
                need_data_yaml(data, "the data.yaml of a detect set")
            if weights is not None:
                need_file(weights, "--weights", "weights to fine-tune", "model file")
            if obb and init is not None:
                need_file(init, "--init", "weights whose layers start the model", "model file")
            if data is None:
                need_art()
        require_train_extra(export=export)
        from nertz.datasets.export import write_dataset

        if data is None and not resume:
            tag = ("obb" if obb else "det") + ("_roll" if roll_p > 0 else "") + \
                (f"_clut{clutter_crops:g}" if clutter_crops > 0 else "") + f"_s{seed}"
            opts = dict(frames_per_scene=4, crops_per_frame=3, roll_p=roll_p,
                        **({"clutter_crops": clutter_crops} if clutter_crops > 0 else {}))
            kind_ = "obb" if obb else "detect"
            folder = RUNS / "data" / tag
            if prepare_set(folder, recipe(kind_, images, seed, **opts), rerender):
                data = folder / "data.yaml"
            else:
                data = write_dataset(kind_, images, seed, folder, workers=workers, **opts)
            need_both_splits(data.parent)
        extra: dict = {}
        if weights is not None:
            extra["model"] = str(weights)
        if obb:
            extra.setdefault("model", "yolo11n-obb.yaml")
            # --weights alone fine-tunes those weights; the axis-aligned detector's layers would
            # overwrite them (so --init defaults to models/cards_det.pt only without --weights).
            # --init alone builds yolo11n-obb.yaml's 80-class head, so its class layers start
            # from random: give both (the same file) to carry every tensor over.
            if init is not None:
                extra["init"] = init
        if lr0 is not None:
            extra.update(optimizer="AdamW", lr0=lr0, warmup_epochs=0.5, close_mosaic=2)
        if hours is not None:
            extra["time"] = hours
        best = train_detector(data or Path(), epochs=epochs, imgsz=imgsz, seed=seed, resume=resume,
                              batch=batch, device=device, name=name, **extra)
        _export_or_say(best, out, export)
    except (NertzError, ValueError) as e:
        _fail(e)


@app.command("classifier")
def classifier(
    data: Annotated[Optional[list[Path]], typer.Option(metavar="FOLDER", help="folder of a classify set; repeat it to train on "
                                                            "several (merged as links in runs/data/<A>+<B>...); "
                                                            "default: render one")] = None,
    images: Annotated[int, typer.Option(min=1, help="card crops to render when --data is not given")] = 16000,
    epochs: EpochsOpt = 15,
    imgsz: Annotated[int, typer.Option(min=IMGSZ_MIN, max=IMGSZ_MAX, help="crop size, pixels (a multiple of "
                                       "32)")] = 96,
    batch: BatchOpt = 128,
    seed: SeedOpt = 20261130,
    workers: WorkersOpt = 2,
    device: DeviceOpt = "cpu",
    resume: Annotated[bool, typer.Option(help="continue the interrupted run (runs/classify/<name>)")] = False,
    kind: Annotated[str, typer.Option(help="'card': whole cards rectified from their quads (the "
                                           "rectified-card classifier); 'strip': the visible parts of "
                                           "partly covered cards, warped from their oriented boxes (the "
                                           "strip classifier); 'classify': square crops around the "
                                           "visible part (the first classifier)")] = "classify",
    scale: Annotated[Optional[float], typer.Option(min=0.0, max=1.0, help="random-crop area range (1 - scale .. 1); default "
                                                        "0.25 (classify), 0.1 (card, strip)")] = None,
    lr0: Annotated[float, typer.Option(help="initial learning rate (AdamW)")] = 0.003,
    weights: Annotated[Optional[Path], typer.Option(help="start from these weights (fine-tune) "
                                                          "instead of from scratch")] = None,
    jitter: Annotated[float, typer.Option(min=0.0, max=0.5, help="--kind card: corner noise of the quads, share of the "
                                               "card's side")] = 0.03,
    jitter_scale: Annotated[float, typer.Option(min=0.0, max=0.5, help="--kind card: quads scaled by up to 1 +- this")] = 0.04,
    detector_quads: Annotated[Optional[Path], typer.Option(help="--kind card: take each card's quad from "
                                                                "this oriented-box detector (ONNX); --kind "
                                                                "strip: half of the strips' boxes")] = None,
    name: Annotated[Optional[str], typer.Option(help="run name under runs/classify/ (default cards_cls, "
                                                     "cards_id for --kind card, cards_strip for --kind "
                                                     "strip)")] = None,
    out: Annotated[Optional[Path], typer.Option(help="where to ship the weights (stem; default "
                                                      "models/<name>)")] = None,
    rerender: RerenderOpt = False,
) -> None:
    """Train the card classifier (YOLO11n-cls, 52 cards + joker) and export it to ONNX."""
    try:
        from .train import MODELS, RUNS, export_onnx, merge_classify_sets, require_train_extra, train_classifier

        # every argument and the [train] extra first: the data set takes minutes to render
        if kind not in ("classify", "card", "strip"):
            raise ValueError(f"--kind is 'classify', 'card' or 'strip', not {kind!r}")
        # options another kind's set would ignore (after minutes of rendering)
        if detector_quads is not None and kind == "classify":
            raise ValueError("--detector-quads is for --kind card or strip (the quads or strips of their crops)")
        if (jitter, jitter_scale) != (0.03, 0.04) and kind != "card":
            raise ValueError("--jitter and --jitter-scale are for --kind card (the rectified cards' quads)")
        card = kind == "card"
        default_name = {"card": "cards_id", "strip": "cards_strip", "classify": "cards_cls"}[kind]
        name = name or default_name
        out = out or MODELS / default_name
        need_stem(out)
        check_imgsz(imgsz)
        check_device(device)
        check_lr0(lr0)
        if not resume:
            for folder in data or []:
                need_classify_folder(folder)
            named: dict[str, Path] = {}
            for folder in data or []:  # merged as links named <folder name>_<file>: one name, one set
                other = named.setdefault(Path(folder).resolve().name, Path(folder))
                if other.resolve() != Path(folder).resolve():
                    raise ValueError(f"--data {other} and --data {folder} have the same folder name: their crops "
                                     "(named alike) would be merged under the same link names, one set's dropped; "
                                     "rename one of the folders")
            if weights is not None:
                need_file(weights, "--weights", "weights to fine-tune", "model file")
            if detector_quads is not None and not data:
                need_file(detector_quads, "--detector-quads", "an oriented-box detector, ONNX", "model file")
            if not data:
                need_art()
        require_train_extra(export=True)
        from nertz.datasets.export import write_dataset

        if not data:
            data = None
        elif len(data) > 1:
            data = merge_classify_sets(data, RUNS / "data" / "+".join(d.name for d in data))
        else:
            data = data[0]
        if data is None and not resume:
            extra_opts = {"detector_quads": str(detector_quads)} if detector_quads is not None else {}
            if kind == "strip":
                set_kind, tag = "strip", f"strip{imgsz}_s{seed}"
                opts = dict(frames_per_scene=2, crop=imgsz, **extra_opts)
            elif card:
                set_kind = "card"
                tag = f"card{imgsz}" + ("d" if detector_quads is not None else
                                        "j" if (jitter, jitter_scale) != (0.03, 0.04) else "") + f"_s{seed}"
                opts = dict(frames_per_scene=3, crop=imgsz, jitter=jitter, jitter_scale=jitter_scale, **extra_opts)
            else:
                set_kind, tag = "classify", f"cls{imgsz}_s{seed}"
                opts = dict(frames_per_scene=4, crop=imgsz)
            folder = RUNS / "data" / tag
            if prepare_set(folder, recipe(set_kind, images, seed, **opts), rerender):
                data = folder
            else:
                data = write_dataset(set_kind, images, seed, folder, workers=workers, **opts)
            need_both_splits(data)
        best = train_classifier(data or Path(), epochs=epochs, imgsz=imgsz, seed=seed, resume=resume,
                                batch=batch, device=device, name=name, lr0=lr0,
                                scale=scale if scale is not None else (0.25 if kind == "classify" else 0.1),
                                **({"model": str(weights), "warmup_epochs": 0.5} if weights is not None else {}))
        onnx = export_onnx(best, out, imgsz)
        typer.echo(f"exported {onnx}")
        if card and data is not None and (Path(data) / "val").is_dir():
            # softmax temperature fitted on the held-out scenes of the set (val split)
            import json

            from .evaluate import fit_temperature

            cal = fit_temperature(onnx, Path(data) / "val")
            onnx.with_suffix(".calib.json").write_text(json.dumps(cal, indent=1) + "\n")
            typer.echo(f"calibration {cal}")
    except (NertzError, ValueError) as e:
        _fail(e)


@app.command("audit")
def audit_strips(
    data: Annotated[Optional[Path], typer.Option(help="data.yaml of an audit strip set; default: render one")] = None,
    images: Annotated[int, typer.Option(min=1, help="crops to render when --data is not given (6 per audit "
                                        "scene)")] = 2400,
    epochs: EpochsOpt = 10,
    imgsz: Annotated[int, typer.Option(min=IMGSZ_MIN, max=IMGSZ_MAX, help="training crop size, pixels (a multiple "
                                       "of 32)")] = 320,
    batch: BatchOpt = 16,
    seed: Annotated[int, typer.Option(min=0, max=9999, help="first audit scene's seed (scenes seed .. seed + images/6 - 1, "
                                           "all under 10000) and training seed")] = 1000,
    workers: WorkersOpt = 2,
    device: DeviceOpt = "cpu",
    hours: Annotated[Optional[float], typer.Option(min=0.01, help="train for this long instead of --epochs "
                                                   "(as in `nertz train detector --hours`)")] = None,
    resume: Annotated[bool, typer.Option(help="continue the interrupted run (runs/audit_train/<name>)")] = False,
    lr0: Annotated[float, typer.Option(help="initial learning rate (AdamW)")] = 0.001,
    init: Annotated[Optional[Path], typer.Option(help="weights to fine-tune (same classes: face, back, hand); "
                                                      "default: models/cards_obb.pt")] = None,
    name: Annotated[str, typer.Option(help="run name under runs/audit_train/")] = "audit_strips",
    out: Annotated[Optional[Path], typer.Option(help="where to ship the weights (stem); default: "
                                                      "models/audit_strips")] = None,
    export: Annotated[bool, typer.Option(help="export the best weights to ONNX at --out (as in `nertz train "
                                               "detector --no-export`)")] = True,
    rerender: RerenderOpt = False,
) -> None:
    """Train the audit's strip detector (YOLO11n-obb fine-tuned from the card detector on audit
    scenes: the visible part of every spread card) and export it to ONNX."""
    try:
        from .train import MODELS, RUNS, require_train_extra, train_detector

        # the defaults are the source tree's models/, wherever it is run from
        init = init or MODELS / "cards_obb.pt"
        out = out or MODELS / "audit_strips"
        need_stem(out, writable=export)
        # every argument and the [train] extra first: the data set takes minutes to render
        check_imgsz(imgsz)
        check_device(device)
        check_lr0(lr0)
        if not resume:
            if data is not None:
                need_data_yaml(data, "the data.yaml of an audit strip set")
            need_file(init, "--init", "weights to fine-tune", "model file")
            scenes = -(-images // 6)  # write_audit_dataset's 6 crops a scene
            if data is None and seed + scenes > 10000:
                raise ValueError(f"--seed {seed} --images {images}: scene seeds {seed}..{seed + scenes - 1} must lie "
                                 "under 10000 (seeds from 10000 are the audit's held-out evaluation)")
            if data is None:
                need_art()
        require_train_extra(export=export)
        from nertz.datasets.audit_export import write_audit_dataset

        if data is None and not resume:
            folder = RUNS / "audit_data" / f"s{seed}"
            if prepare_set(folder, recipe("audit", images, seed, imgsz=imgsz), rerender):
                data = folder / "data.yaml"
            else:
                data = write_audit_dataset(images, seed, folder, workers=workers, imgsz=imgsz)
            need_both_splits(data.parent)
        best = train_detector(data or Path(), epochs=epochs, imgsz=imgsz, seed=seed, resume=resume, batch=batch,
                              device=device, name=name, project=RUNS / "audit_train", model=str(init),
                              optimizer="AdamW", lr0=lr0, warmup_epochs=0.5, close_mosaic=2, scale=0.25,
                              mosaic=0.5, **({"time": hours} if hours is not None else {}))
        _export_or_say(best, out, export)
    except (NertzError, ValueError) as e:
        _fail(e)
