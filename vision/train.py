"""Training and export of the card detector and the card classifier (ultralytics, from scratch).

Needs the ``[train]`` extra (``pip install -e '.[train]'``: torch, torchvision, ultralytics,
onnx, onnxslim); inference (:mod:`nertz.vision.detect`) does not.

- The **detector** (YOLO11n, 3 classes ``face back hand``, see
  :mod:`nertz.datasets.export`) is trained on 320 x 320 crops at the object scale of inference
  (imgsz 640 on a whole 1280 x 720 frame) and exported to ONNX with dynamic input size, so a
  1280 x 720 frame runs as a 384 x 640 letterboxed tensor.
- The **oriented-box detector** (YOLO11n-obb, same classes, data ``kind="obb"``) is fine-tuned
  from the detector's weights (``init``) and exported the same way.
- The **audit strip detector** (YOLO11n-obb, same classes) is fine-tuned from
  ``models/cards_obb.pt`` on crops of audit scenes (:mod:`nertz.datasets.audit_export`: the
  visible part of every spread face-down card) by ``nertz train audit``
  (:func:`train_detector` with ``model`` = those weights) and exported the same way.
- The **classifier** (YOLO11n-cls, 53 classes ``2C ... JK``) is trained on 96 x 96 crops around
  the visible part of face-up cards and exported to ONNX with a dynamic batch.
- The **rectified-card classifier** (YOLO11n-cls, 53 classes, 64 x 64) is trained on whole
  face-up cards warped upright from their (jittered) quads (data ``kind="card"``).

Offline by construction: ``YOLO_OFFLINE=1``, a project-local ``YOLO_CONFIG_DIR`` with a
bundled TrueType font (ultralytics otherwise downloads Arial.ttf), models built from
``*.yaml`` (a ``*.pt`` name that is not a local file would be downloaded), ``amp=False``
(the AMP check downloads weights), ``plots=False``, ``workers=0`` on the CPU, ``fliplr=0`` (a mirrored
card is not a card).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from nertz.referee.errors import NertzError

__all__ = ["TrainError", "setup_offline", "require_train_extra", "train_detector", "train_classifier", "export_onnx",
           "REPO", "MODELS", "RUNS", "TRAIN_MODULES", "EXPORT_MODULES"]

REPO = Path(__file__).resolve().parent.parent
MODELS = REPO / "models"
RUNS = REPO / "runs"

DETECTOR_NAME = "cards_det"
CLASSIFIER_NAME = "cards_cls"


class TrainError(NertzError):
    """Training cannot run (missing extra, bad data path, nothing to resume)."""


def setup_offline(config_dir: Path | None = None) -> Path:
    """Make ultralytics work with no network: ``YOLO_OFFLINE=1`` and a ``YOLO_CONFIG_DIR``
    (default ``<repo>/.cache/ultralytics`` unless already set) holding a TrueType font at
    ``Ultralytics/Arial.ttf`` (copied from DejaVu Sans or matplotlib's copy of it).

    Must run before ultralytics is imported. Returns the config folder.

    Raises:
        TrainError: no TrueType font found to copy.
    """
    os.environ["YOLO_OFFLINE"] = "1"
    cfg = Path(os.environ.get("YOLO_CONFIG_DIR") or config_dir or REPO / ".cache" / "ultralytics")
    os.environ["YOLO_CONFIG_DIR"] = str(cfg)
    font = cfg / "Ultralytics" / "Arial.ttf"
    if not font.exists():
        cands = [Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")]
        try:
            import matplotlib

            cands.append(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf")
        except ImportError:
            pass
        src = next((c for c in cands if c.is_file()), None)
        if src is None:
            raise TrainError("no TrueType font found for ultralytics (it would download Arial.ttf): "
                             f"copy any .ttf to {font}")
        font.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src, font)
    return cfg


TRAIN_MODULES = ("torch", "torchvision", "ultralytics")
"""The modules of the ``[train]`` extra that training imports."""

EXPORT_MODULES = ("onnx", "onnxslim")
"""The modules of the ``[train]`` extra that the ONNX export needs besides :data:`TRAIN_MODULES`."""


def require_train_extra(export: bool = True) -> None:
    """Check, without importing anything (``importlib.util.find_spec``: a second, not the
    seconds importing torch takes), that the ``[train]`` extra is installed: so that ``nertz
    train`` refuses at once, before rendering a data set for minutes.

    Args:
        export: the ONNX exporters (:data:`EXPORT_MODULES`) are needed too.

    Raises:
        TrainError: a module is missing (names it and how to install the extra).
    """
    needed = TRAIN_MODULES + (EXPORT_MODULES if export else ())
    missing = [m for m in needed if importlib.util.find_spec(m) is None]
    if missing:
        hint = " (or train with --no-export where the command has it)" if set(missing) <= set(EXPORT_MODULES) else ""
        raise TrainError(f"training needs the [train] extra ({', '.join(missing)} {'is' if len(missing) == 1 else 'are'} "
                         f"missing): pip install -e '.[train]'{hint}")


def _ultralytics() -> Any:
    """Import ultralytics offline, or explain how to install it."""
    setup_offline()
    try:
        import torch  # noqa: F401
        import ultralytics
    except ImportError as e:
        raise TrainError(f"training needs the [train] extra ({e.name} is missing): "
                         "pip install -e '.[train]'") from None
    return ultralytics


def _run_dir(name: str, project: Path) -> Path:
    return project / name


def _loader_workers(device: str) -> int:
    """Data-loading processes for ultralytics: 0 on the CPU (its trainer forces 0 there anyway:
    the cores are busy with the network), else all of this machine's cores but one, at most 16,
    so that a GPU is not left waiting on augmentation (mosaic, HSV, perspective): YOLO11n-obb at
    320 with 8 processes ran about 20 batches of 32 a second on a 16-core H200 machine, and the
    loaders were the limit (session 42; not yet measured with more processes)."""
    return 0 if str(device).lower() == "cpu" else max(1, min(16, (os.cpu_count() or 2) - 1))


def train_detector(data: Path, epochs: int = 30, imgsz: int = 320, seed: int = 0, resume: bool = False,
                   batch: int = 16, model: str = "yolo11n.yaml", project: Path = RUNS / "detect",
                   name: str = DETECTOR_NAME, device: str = "cpu", init: Path | None = None,
                   **overrides: Any) -> Path:
    """Train the card detector from scratch (or resume its interrupted run).

    Args:
        data: ``data.yaml`` of a set written by :func:`nertz.datasets.export.write_dataset`
            (``kind="detect"``).
        epochs, imgsz, seed, batch: ultralytics training settings (imgsz in pixels).
        resume: continue ``project/name/weights/last.pt`` (same settings as it was started).
        model: architecture yaml (no download), e.g. ``yolo11n-obb.yaml`` for the oriented-box
            detector (data of ``kind="obb"``), or weights to fine-tune.
        device: ``"cpu"`` or a CUDA index such as ``"0"`` (then the data loads in up to 16
            processes, :func:`_loader_workers`; ``workers=`` in ``overrides`` overrides it).
        init: weights whose matching layers are loaded into ``model`` before training
            (``YOLO(model).load(init)``: e.g. the axis-aligned detector's backbone and head
            into the oriented-box detector, which then converges in a few epochs).
        **overrides: other ultralytics training arguments.

    Returns:
        The best weights, ``project/name/weights/best.pt``.

    Raises:
        TrainError: missing ``[train]`` extra, missing data, nothing to resume.
    """
    _ultralytics()
    from ultralytics import YOLO

    run = _run_dir(name, project)
    if resume:
        return _resume(run)
    if not Path(data).is_file():
        raise TrainError(f"detection data file {data} not found: write one with "
                         "`nertz synth dataset --kind detect`")
    args = dict(data=str(Path(data).resolve()), epochs=epochs, imgsz=imgsz, seed=seed, batch=batch,
                device=device, workers=_loader_workers(device), plots=False, amp=False, fliplr=0.0, flipud=0.0,
                mosaic=1.0, close_mosaic=max(1, epochs // 10), scale=0.5, degrees=0.0,
                project=str(Path(project).resolve()), name=name, exist_ok=True, deterministic=True,
                patience=1000, cache=False, verbose=False)
    args.update(overrides)
    net = YOLO(model)
    if init is not None:
        if not Path(init).is_file():
            raise TrainError(f"initial weights {init} not found")
        net.load(str(init))
    net.train(**args)
    return run / "weights" / "best.pt"


def _resume(run: Path) -> Path:
    """Continue an interrupted ultralytics run from ``run/weights/last.pt`` (its own settings).

    Raises:
        TrainError: there is nothing to resume.
    """
    from ultralytics import YOLO

    last = run / "weights" / "last.pt"
    if not last.is_file():
        raise TrainError(f"nothing to resume: {last} does not exist")
    YOLO(str(last)).train(resume=True)
    return run / "weights" / "best.pt"


def merge_classify_sets(sources: list[Path], out: Path) -> Path:
    """One classification folder over several (``train/<class>/``, ``val/<class>/`` each): the
    files are linked, not copied, named ``<set folder>_<file>`` so that sets never collide;
    links already there are kept (merging one more set into ``out`` adds it).

    The merged folder holds no link to a missing file: a link left from an earlier merge whose
    file has since moved or gone (a set moved or written again) is linked to the source's file
    of that name when there is one, else removed; a source's entry that is itself a broken link
    is not linked. Those removed or left out are counted in one warning line on standard error
    (``warning: OUT: N links to files that are no longer there left out ...``).

    Args:
        sources: folders written by :func:`nertz.datasets.export.write_dataset` (classify,
            card or strip kinds).
        out: the merged folder (created).

    Returns:
        ``out``.

    Raises:
        TrainError: a source without a ``train/`` folder.
    """
    for src in sources:
        if not (Path(src) / "train").is_dir():
            raise TrainError(f"classification folder {src} has no train/ folder")
    missing = 0  # links to missing files: left out, or removed from out
    for src in sources:
        src = Path(src).resolve()
        for split in ("train", "val"):
            if not (src / split).is_dir():
                continue
            for cls in sorted(d for d in (src / split).iterdir() if d.is_dir()):
                dest = Path(out) / split / cls.name
                dest.mkdir(parents=True, exist_ok=True)
                for f in sorted(cls.iterdir()):
                    if not f.exists():  # a broken link in the source (a merged set as a source)
                        missing += 1
                        continue
                    link = dest / f"{src.name}_{f.name}"
                    if link.is_symlink() and not link.exists():  # to a file since moved or removed
                        link.unlink()
                    if not link.is_symlink():  # a link already there (to a file that is there) is kept
                        link.symlink_to(f)
    for split in ("train", "val"):
        for link in sorted(Path(out).glob(f"{split}/*/*")):
            if link.is_symlink() and not link.exists():
                link.unlink()
                missing += 1
    if missing:
        print(f"warning: {out}: {missing} link{'s' if missing != 1 else ''} to "
              f"{'a file that is' if missing == 1 else 'files that are'} no longer there left out (a set moved or written again since it was merged here)", file=sys.stderr, flush=True)
    return Path(out)


def train_classifier(data: Path, epochs: int = 15, imgsz: int = 96, seed: int = 0, resume: bool = False,
                     batch: int = 128, model: str = "yolo11n-cls.yaml", project: Path = RUNS / "classify",
                     name: str = CLASSIFIER_NAME, device: str = "cpu", **overrides: Any) -> Path:
    """Train the card classifier from scratch (or resume).

    Args:
        data: the folder written by :func:`nertz.datasets.export.write_dataset`
            (``kind="classify"``: ``train/<class>/``, ``val/<class>/``).
        (others as in :func:`train_detector`; imgsz is the crop side in pixels.)

    Returns:
        ``project/name/weights/best.pt``.

    Raises:
        TrainError: missing ``[train]`` extra, missing data, nothing to resume.
    """
    _ultralytics()
    from ultralytics import YOLO

    run = _run_dir(name, project)
    if resume:
        return _resume(run)
    if not (Path(data) / "train").is_dir():
        raise TrainError(f"classification folder {data} has no train/ folder: write one with "
                         "`nertz synth dataset --kind classify`")
    args = dict(data=str(Path(data).resolve()), epochs=epochs, imgsz=imgsz, seed=seed, batch=batch,
                device=device, workers=_loader_workers(device), plots=False, amp=False, fliplr=0.0, flipud=0.0,
                erasing=0.0, scale=0.25, project=str(Path(project).resolve()), name=name, exist_ok=True,
                deterministic=True, patience=1000, verbose=False,
                # ultralytics' "auto" optimizer picks AdamW at lr 0.002 * 5 / (4 + 53) = 0.00018
                # for 53 classes: measured 5 % top-1 after 3 epochs from scratch. Set it.
                optimizer="AdamW", lr0=0.003, warmup_epochs=1.0,
                # RandAugment (rotations, shears, solarize... at magnitude 9) on 64-pixel crops:
                # 23 % top-1 after 4 epochs, train loss 2.4; without it the crops stay readable
                auto_augment=None)
    args.update(overrides)
    YOLO(model).train(**args)
    return run / "weights" / "best.pt"


def export_onnx(weights: Path, out: Path, imgsz: int | tuple[int, int], dynamic: bool = True) -> Path:
    """Export ultralytics weights to ONNX (opset default, simplified with onnxslim) and copy the
    ``.pt`` and the ``.onnx`` to ``out`` (``out.pt`` / ``out.onnx``).

    Args:
        weights: a ``.pt`` from training.
        out: the destination without suffix, e.g. ``models/cards_det``.
        imgsz: export input size, pixels (dynamic axes let other sizes run too).

    Returns:
        The ``.onnx`` path.

    Raises:
        TrainError: missing weights or missing ``[train]`` extra.
    """
    _ultralytics()
    from ultralytics import YOLO

    weights = Path(weights)
    if not weights.is_file():
        raise TrainError(f"weights {weights} not found")
    onnx = Path(YOLO(str(weights)).export(format="onnx", imgsz=imgsz, dynamic=dynamic, simplify=True,
                                          device="cpu"))
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(weights, out.with_suffix(".pt"))
    shutil.copy(onnx, out.with_suffix(".onnx"))
    return out.with_suffix(".onnx")
