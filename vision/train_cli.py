"""``nertz train detector|classifier``: reproduce the shipped models (typer app ``app``, mounted by
the lead as ``nertz train``). Needs the ``[train]`` extra: ``pip install -e '.[train]'``.

Each command renders its synthetic set (unless ``--data`` is given), trains from scratch with
ultralytics (progress bars; ``--resume`` continues an interrupted run from its ``last.pt``)
and exports the best weights to ``models/`` as ``.pt`` and ``.onnx``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from nertz.referee.errors import NertzError

app = typer.Typer(help="Train the card detector and classifier from the synthetic engine "
                       "(needs the train extra: pip install -e '.\\[train]').", no_args_is_help=True, add_completion=False,
                  pretty_exceptions_enable=False)


def _fail(e: Exception) -> None:
    typer.echo(f"error: {e}", err=True)
    raise typer.Exit(2)


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
    resume: Annotated[bool, typer.Option(help="continue the interrupted run (runs/detect/<name>)")] = False,
    roll_p: Annotated[float, typer.Option(help="share of rendered frames turned by a random angle")] = 0.0,
    weights: Annotated[Optional[Path], typer.Option(help="start from these weights (fine-tune) "
                                                          "instead of from scratch")] = None,
    lr0: Annotated[Optional[float], typer.Option(help="initial learning rate (AdamW); default: ultralytics' auto")] = None,
    name: Annotated[str, typer.Option(help="run name under runs/detect/")] = "cards_det",
    out: Annotated[Path, typer.Option(help="where to ship the weights (stem)")] = Path("models/cards_det"),
) -> None:
    """Train the card detector (YOLO11n: face, back, hand) and export it to ONNX."""
    try:
        from nertz.datasets.export import write_dataset

        from .train import RUNS, export_onnx, train_detector

        if data is None and not resume:
            tag = f"det_roll_s{seed}" if roll_p > 0 else f"det_s{seed}"
            data = write_dataset("detect", images, seed, RUNS / "data" / tag, workers=workers,
                                 frames_per_scene=4, crops_per_frame=3, roll_p=roll_p)
        extra: dict = {}
        if weights is not None:
            extra["model"] = str(weights)
        if lr0 is not None:
            extra.update(optimizer="AdamW", lr0=lr0, warmup_epochs=0.5, close_mosaic=2)
        best = train_detector(data or Path(), epochs=epochs, imgsz=imgsz, seed=seed, resume=resume,
                              batch=batch, device=device, name=name, **extra)
        typer.echo(f"exported {export_onnx(best, out, 640)}")
    except (NertzError, ValueError) as e:
        _fail(e)


@app.command("classifier")
def classifier(
    data: Annotated[Optional[Path], typer.Option(help="folder of a classify set; default: render one")] = None,
    images: Annotated[int, typer.Option(help="card crops to render when --data is not given")] = 16000,
    epochs: Annotated[int, typer.Option(help="training epochs")] = 15,
    imgsz: Annotated[int, typer.Option(help="crop size, pixels")] = 96,
    batch: Annotated[int, typer.Option(help="batch size")] = 128,
    seed: Annotated[int, typer.Option(help="seed of the data and of training")] = 20261130,
    workers: Annotated[int, typer.Option(help="processes rendering the data")] = 2,
    device: Annotated[str, typer.Option(help="'cpu' or a CUDA index")] = "cpu",
    resume: Annotated[bool, typer.Option(help="continue the interrupted run (runs/classify/cards_cls)")] = False,
    out: Annotated[Path, typer.Option(help="where to ship the weights (stem)")] = Path("models/cards_cls"),
) -> None:
    """Train the card classifier (YOLO11n-cls, 52 cards + joker) and export it to ONNX."""
    try:
        from nertz.datasets.export import write_dataset

        from .train import RUNS, export_onnx, train_classifier

        if data is None and not resume:
            data = write_dataset("classify", images, seed, RUNS / "data" / f"cls{imgsz}_s{seed}", workers=workers,
                                 frames_per_scene=4, crop=imgsz)
        best = train_classifier(data or Path(), epochs=epochs, imgsz=imgsz, seed=seed, resume=resume,
                                batch=batch, device=device)
        typer.echo(f"exported {export_onnx(best, out, imgsz)}")
    except (NertzError, ValueError) as e:
        _fail(e)
