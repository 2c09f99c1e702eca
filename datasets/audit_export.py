"""Training set for the audit's strip detector, cut from audit scenes
(:func:`nertz.datasets.audit_scenes.make_audit_scene`).

The round audit counts face-down cards spread in rows, fans and loose heaps, where only a strip
(a row), a wedge (a fan) or an irregular part (a heap) of each card shows. The strip detector
(a YOLO11n-obb fine-tuned from ``models/cards_obb.pt``, classes ``face back hand`` as the card
detector's, so every weight transfers) finds each such visible part as one oriented box; the
audit then counts the boxes and names each one's owner by colour (:mod:`nertz.vision.audit`).

Labels (ultralytics OBB format, ``class x1 y1 x2 y2 x3 y3 x4 y4`` normalised), from the
renderer's draw order (cards bottom first):

- each card's *visible part* is its quad minus the quads drawn above it, opened by 10 % of the
  card's side (slivers along a slightly shifted card are not what anyone sees:
  :func:`nertz.datasets.export.visible_quads`); its label is the card's own quad when it is
  whole, else the minimum-area rectangle (``cv2.minAreaRect``) of the visible pixels inside the
  crop;
- a card is left out when its visible part is under :data:`MIN_VISIBLE` of the card's area,
  or mostly under a hand (the renderer's ``visible`` share under half the cards-only share and
  under 0.3, as in the card detector's set), or when less than 35 % of its visible part lies in
  the crop;
- class ``1 back`` for face-down cards (whatever their colour: the colour is the table's, read
  at run time), ``0 face`` for face-up cards, ``2 hand`` for hands (axis-aligned boxes).

Scale: the frame is resized by :data:`AUDIT_SCALE` times ``1920 / width`` (a 1920 x 1080 photo
runs at 2880 x 1620), so a row's strips (10-22 mm of a 63 mm card, 7-15 pixels at 1080p) are
10-22 pixels wide at the network's input: wider than the finest stride (8) of the head.
Crops are ``imgsz`` squares (320 by default) of that resized frame, most centred near a
random card's visible part, the rest anywhere in the shared area; 20 % of the scenes are
rendered at 1280 x 720 (then upscaled by 2.25) for robustness, the others at 1920 x 1080.

Scene ``i`` is ``make_audit_scene(seed + i)``; every ``val_every``-th scene goes to ``val``.
Since 2026-12-07 no scene shows more cards of one back than a deck holds, so about half the
scenes of a seed differ from the sets made before (:mod:`nertz.datasets.audit_scenes`,
*Counts*): the recipes in ``models/MODEL_CARD.md`` reproduce with the code of commit a60b211
and earlier.
The held-out evaluation (:mod:`nertz.vision.audit_eval`) uses seeds from 10000: keep
``seed + scenes`` below that.

Public API: :func:`write_audit_dataset`, :data:`AUDIT_SCALE`, :data:`MIN_VISIBLE`.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from .export import DETECT_CLASSES, _run, crop_origin, visible_boxes, write_obb_crop

__all__ = ["write_audit_dataset", "AUDIT_SCALE", "MIN_VISIBLE"]

AUDIT_SCALE = 1.5
"""Network input pixels per pixel of a 1920-wide photo (other widths: times ``1920 / W``)."""
MIN_VISIBLE = 0.04
"""Smallest visible share of a card's area (cards only, after the opening) for it to be labelled."""


def _audit_job(index: int, seed: int, out: str, split: str, opts: dict) -> int:
    """Render audit scene ``seed + index`` and write its crops; returns how many."""
    from .audit_scenes import ARRANGEMENTS, make_audit_scene

    rng = np.random.default_rng([int(seed), int(index), 0xA5D17])
    imgsz = int(opts.get("imgsz", 320))
    crops = int(opts.get("crops_per_scene", 6))
    res = (1280, 720) if rng.random() < float(opts.get("small_p", 0.2)) else (1920, 1080)
    sc = make_audit_scene(int(seed) + int(index), res, arrangements=tuple(opts.get("arrangements", ARRANGEMENTS)))
    frame, lab = sc.frame, sc.labels
    H, W = frame.shape[:2]
    scale = AUDIT_SCALE * 1920.0 / W  # output pixels per source pixel
    side = imgsz / scale
    fracs = {i: frac for i, _, frac in visible_boxes(lab, W, H)}
    keep = {i for i, frac in fracs.items() if frac >= MIN_VISIBLE
            and not (lab["cards"][i]["visible"] < 0.5 * frac and lab["cards"][i]["visible"] < 0.3)}
    boxes = {i: b for i, b, _ in visible_boxes(lab, W, H) if i in keep}
    centres = np.array([(b[:2] + b[2:]) / 2 for b in boxes.values()]).reshape(-1, 2)
    sa = np.asarray(sc.table["shared_area"], np.float64)
    lo, hi = sa.min(axis=0), sa.max(axis=0)
    n = 0
    for c_i in range(crops):
        x0, y0 = crop_origin(rng, centres, side, (W, H), near_p=0.8, anywhere=(lo, hi))
        write_obb_crop(frame, lab, keep, (x0, y0, side), imgsz, Path(out), split, f"a{index:05d}_{c_i}")
        n += 1
    return n


def write_audit_dataset(images: int, seed: int, out: Path, workers: int = 1, imgsz: int = 320,
                        crops_per_scene: int = 6, val_every: int = 10, small_p: float = 0.2,
                        arrangements: tuple[str, ...] | None = None) -> Path:
    """Render the strip detector's training set (ultralytics OBB layout: ``images/{train,val}``,
    ``labels/{train,val}``, ``data.yaml``).

    Args:
        images: about how many crops to write (``crops_per_scene`` per scene).
        seed: scene ``i`` is audit scene ``seed + i``; the crops' positions are drawn from
            ``(seed, i)``. Keep ``seed + scenes`` under 10000 (held-out seeds).
        out: folder to write (created; files of the same names are overwritten).
        workers: processes rendering in parallel (the same files whatever the number).
        imgsz: crop side, pixels of the network's input.
        crops_per_scene, val_every, small_p: crops per scene, every n-th scene to ``val``,
            share of scenes rendered at 1280 x 720.
        arrangements: the spreads of the shared area (a subset of
            :data:`nertz.datasets.audit_scenes.ARRANGEMENTS`); None: all of them. ``("fan",
            "heap")`` puts the crops on the spreads the detector finds worst (rows hold most
            cards, so most crops of a mixed scene lie on rows).

    Returns:
        ``out/data.yaml``.

    Raises:
        ValueError: ``images`` or ``workers`` under 1, scene seeds reaching 10000, or an
            unknown arrangement.
    """
    from .audit_scenes import ARRANGEMENTS

    if arrangements is not None and (not arrangements or any(a not in ARRANGEMENTS for a in arrangements)):
        raise ValueError(f"arrangements must be a non-empty subset of {ARRANGEMENTS}, got {arrangements}")
    if images < 1 or workers < 1 or crops_per_scene < 1:
        raise ValueError(f"images, workers and crops_per_scene must be at least 1 "
                         f"(got {images}, {workers}, {crops_per_scene})")
    scenes = max(1, math.ceil(images / crops_per_scene))
    if seed < 0 or seed + scenes > 10000:
        raise ValueError(f"scene seeds {seed}..{seed + scenes - 1} must lie in 0..9999 "
                         "(seeds from 10000 are the audit's held-out evaluation)")
    out = Path(out)
    for split in ("train", "val"):
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
    opts = {"imgsz": imgsz, "crops_per_scene": crops_per_scene, "small_p": small_p}
    if arrangements is not None:
        opts["arrangements"] = tuple(arrangements)
    args = [(i, seed, str(out), "val" if i % val_every == 0 else "train", opts) for i in range(scenes)]
    total = _run(_audit_job, args, workers, f"audit strip set: {scenes} scenes")
    names = "\n".join(f"  {i}: {n}" for i, n in enumerate(DETECT_CLASSES))
    yaml = out / "data.yaml"
    kinds = f", arrangements {','.join(arrangements)}" if arrangements is not None else ""
    yaml.write_text(f"# nertz audit strip set: scenes {seed}..{seed + scenes - 1}{kinds}, {total} crops of {imgsz}\n"
                    f"path: {out.resolve()}\ntrain: images/train\nval: images/val\nnames:\n{names}\n")
    return yaml
