"""``nertz train detector|classifier|audit``: reproduce the shipped models (typer app ``app``, mounted by
the lead as ``nertz train``). Needs the ``[train]`` extra: ``pip install -e '.[train]'``.

Each command renders its synthetic set (unless ``--data`` is given), trains from scratch with
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


def _fail(e: Exception) -> None:
    typer.echo(f"error: {e}", err=True)
    raise typer.Exit(2)


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
    images: Annotated[int, typer.Option(help="crops to render when --data is not given")] = 1400,
    epochs: Annotated[int, typer.Option(help="training epochs")] = 30,
    imgsz: Annotated[int, typer.Option(help="training crop size, pixels")] = 320,
    batch: Annotated[int, typer.Option(help="batch size")] = 16,
    seed: Annotated[int, typer.Option(help="seed of the data and of training")] = 20261130,
    workers: Annotated[int, typer.Option(help="processes rendering the data")] = 2,
    device: Annotated[str, typer.Option(help="'cpu' or a CUDA index")] = "cpu",
    hours: Annotated[Optional[float], typer.Option(min=0.01, help="train for this long instead of --epochs: "
                                                   "ultralytics' time=, which sets the number of epochs "
                                                   "from the epochs' duration (machine-dependent; the "
                                                   "run's results.csv lists the epochs it ran)")] = None,
    resume: Annotated[bool, typer.Option(help="continue the interrupted run (runs/detect/<name>)")] = False,
    roll_p: Annotated[float, typer.Option(help="share of rendered frames turned by a random angle")] = 0.0,
    clutter_crops: Annotated[float, typer.Option(help="share of the crops placed on table clutter or away "
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
) -> None:
    """Train the card detector (YOLO11n: face, back, hand) and export it to ONNX."""
    try:
        from nertz.datasets.export import write_dataset

        from .train import RUNS, train_detector

        name = name or ("cards_obb" if obb else "cards_det")
        out = out or Path("models/cards_obb" if obb else "models/cards_det")
        if data is None and not resume:
            tag = ("obb" if obb else "det") + ("_roll" if roll_p > 0 else "") + \
                (f"_clut{clutter_crops:g}" if clutter_crops > 0 else "") + f"_s{seed}"
            data = write_dataset("obb" if obb else "detect", images, seed, RUNS / "data" / tag, workers=workers,
                                 frames_per_scene=4, crops_per_frame=3, roll_p=roll_p,
                                 **({"clutter_crops": clutter_crops} if clutter_crops > 0 else {}))
        extra: dict = {}
        if weights is not None:
            extra["model"] = str(weights)
        if obb:
            extra.setdefault("model", "yolo11n-obb.yaml")
            # --weights alone fine-tunes those weights; the axis-aligned detector's layers would
            # overwrite them. --init alone builds yolo11n-obb.yaml's 80-class head, so its class
            # layers start from random: give both (the same file) to carry every tensor over.
            if init is None and weights is None:
                init = Path("models/cards_det.pt")
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
    images: Annotated[int, typer.Option(help="card crops to render when --data is not given")] = 16000,
    epochs: Annotated[int, typer.Option(help="training epochs")] = 15,
    imgsz: Annotated[int, typer.Option(help="crop size, pixels")] = 96,
    batch: Annotated[int, typer.Option(help="batch size")] = 128,
    seed: Annotated[int, typer.Option(help="seed of the data and of training")] = 20261130,
    workers: Annotated[int, typer.Option(help="processes rendering the data")] = 2,
    device: Annotated[str, typer.Option(help="'cpu' or a CUDA index")] = "cpu",
    resume: Annotated[bool, typer.Option(help="continue the interrupted run (runs/classify/<name>)")] = False,
    kind: Annotated[str, typer.Option(help="'card': whole cards rectified from their quads (the "
                                           "rectified-card classifier); 'strip': the visible parts of "
                                           "partly covered cards, warped from their oriented boxes (the "
                                           "strip classifier); 'classify': square crops around the "
                                           "visible part (the first classifier)")] = "classify",
    scale: Annotated[Optional[float], typer.Option(help="random-crop area range (1 - scale .. 1); default "
                                                        "0.25 (classify), 0.1 (card, strip)")] = None,
    lr0: Annotated[float, typer.Option(help="initial learning rate (AdamW)")] = 0.003,
    weights: Annotated[Optional[Path], typer.Option(help="start from these weights (fine-tune) "
                                                          "instead of from scratch")] = None,
    jitter: Annotated[float, typer.Option(help="--kind card: corner noise of the quads, share of the "
                                               "card's side")] = 0.03,
    jitter_scale: Annotated[float, typer.Option(help="--kind card: quads scaled by up to 1 +- this")] = 0.04,
    detector_quads: Annotated[Optional[Path], typer.Option(help="--kind card: take each card's quad from "
                                                                "this oriented-box detector (ONNX); --kind "
                                                                "strip: half of the strips' boxes")] = None,
    name: Annotated[Optional[str], typer.Option(help="run name under runs/classify/ (default cards_cls, "
                                                     "cards_id for --kind card, cards_strip for --kind "
                                                     "strip)")] = None,
    out: Annotated[Optional[Path], typer.Option(help="where to ship the weights (stem; default "
                                                      "models/<name>)")] = None,
) -> None:
    """Train the card classifier (YOLO11n-cls, 52 cards + joker) and export it to ONNX."""
    try:
        from nertz.datasets.export import write_dataset

        from .train import RUNS, export_onnx, merge_classify_sets, train_classifier

        if not data:
            data = None
        elif len(data) > 1:
            data = merge_classify_sets(data, RUNS / "data" / "+".join(d.name for d in data))
        else:
            data = data[0]
        if kind not in ("classify", "card", "strip"):
            raise ValueError(f"--kind is 'classify', 'card' or 'strip', not {kind!r}")
        card = kind == "card"
        default_name = {"card": "cards_id", "strip": "cards_strip", "classify": "cards_cls"}[kind]
        name = name or default_name
        out = out or Path("models") / default_name
        if data is None and not resume:
            if kind == "strip":
                extra_opts = {"detector_quads": str(detector_quads)} if detector_quads is not None else {}
                data = write_dataset("strip", images, seed, RUNS / "data" / f"strip{imgsz}_s{seed}", workers=workers,
                                     frames_per_scene=2, crop=imgsz, **extra_opts)
            elif card:
                tag = f"card{imgsz}" + ("d" if detector_quads is not None else
                                        "j" if (jitter, jitter_scale) != (0.03, 0.04) else "") + f"_s{seed}"
                extra_opts = {"detector_quads": str(detector_quads)} if detector_quads is not None else {}
                data = write_dataset("card", images, seed, RUNS / "data" / tag, workers=workers,
                                     frames_per_scene=3, crop=imgsz, jitter=jitter, jitter_scale=jitter_scale,
                                     **extra_opts)
            else:
                data = write_dataset("classify", images, seed, RUNS / "data" / f"cls{imgsz}_s{seed}",
                                     workers=workers, frames_per_scene=4, crop=imgsz)
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
    images: Annotated[int, typer.Option(help="crops to render when --data is not given (6 per audit scene)")] = 2400,
    epochs: Annotated[int, typer.Option(help="training epochs")] = 10,
    imgsz: Annotated[int, typer.Option(help="training crop size, pixels")] = 320,
    batch: Annotated[int, typer.Option(help="batch size")] = 16,
    seed: Annotated[int, typer.Option(help="first audit scene's seed (scenes seed .. seed + images/6 - 1, "
                                           "all under 10000) and training seed")] = 1000,
    workers: Annotated[int, typer.Option(help="processes rendering the data")] = 2,
    device: Annotated[str, typer.Option(help="'cpu' or a CUDA index")] = "cpu",
    hours: Annotated[Optional[float], typer.Option(min=0.01, help="train for this long instead of --epochs "
                                                   "(as in `nertz train detector --hours`)")] = None,
    resume: Annotated[bool, typer.Option(help="continue the interrupted run (runs/audit_train/<name>)")] = False,
    lr0: Annotated[float, typer.Option(help="initial learning rate (AdamW)")] = 0.001,
    init: Annotated[Path, typer.Option(help="weights to fine-tune (same classes: face, back, hand)")] = Path("models/cards_obb.pt"),
    name: Annotated[str, typer.Option(help="run name under runs/audit_train/")] = "audit_strips",
    out: Annotated[Path, typer.Option(help="where to ship the weights (stem)")] = Path("models/audit_strips"),
    export: Annotated[bool, typer.Option(help="export the best weights to ONNX at --out (as in `nertz train "
                                               "detector --no-export`)")] = True,
) -> None:
    """Train the audit's strip detector (YOLO11n-obb fine-tuned from the card detector on audit
    scenes: the visible part of every spread card) and export it to ONNX."""
    try:
        from nertz.datasets.audit_export import write_audit_dataset

        from .train import RUNS, train_detector

        if data is None and not resume:
            data = write_audit_dataset(images, seed, RUNS / "audit_data" / f"s{seed}", workers=workers, imgsz=imgsz)
        if not resume and not Path(init).is_file():
            raise ValueError(f"weights to fine-tune {init} not found")
        best = train_detector(data or Path(), epochs=epochs, imgsz=imgsz, seed=seed, resume=resume, batch=batch,
                              device=device, name=name, project=RUNS / "audit_train", model=str(init),
                              optimizer="AdamW", lr0=lr0, warmup_epochs=0.5, close_mosaic=2, scale=0.25,
                              mosaic=0.5, **({"time": hours} if hours is not None else {}))
        _export_or_say(best, out, export)
    except (NertzError, ValueError) as e:
        _fail(e)
