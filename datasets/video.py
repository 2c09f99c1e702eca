"""Render a simulated round as a camera video with per-frame labels: the output of
``nertz synth round``.

A round folder holds:

- ``clip.mp4``: every frame of the round at ``fps`` (30), from the deal (t = 0) to the end
  of the Nertz count plus ``tail`` seconds of the final table (the spreads), frame ``i``
  showing :meth:`SimRound.state_at` ``(i / fps)``. Written with OpenCV's ``VideoWriter``
  (codec ``mp4v``, MPEG-4 Part 2: no extra dependency) or with PyAV's libx264 (codec
  ``h264``: about a tenth of the size at the same picture quality, needs ``pip install av``).
  Both read back with ``cv2.VideoCapture``.
- ``labels.jsonl`` (or ``labels.jsonl.gz``): one line per frame, ``{"frame": i, "t": seconds, "cards": [...],
  "hands": [...]}`` as returned by :func:`nertz.datasets.render.render_frame` (image pixels).
- ``table.json``: the simulator's table (players, rules) with the scene's ``shared_area`` and
  ``zones`` (image pixels, :meth:`Scene.table_file`): a table file of the contract, valid for
  ``nertz score`` and ``nertz referee``.
- ``events.jsonl``, ``result.json``: the simulator's ground truth (:meth:`SimRound.write`).
- ``meta.json``: how it was made (seeds, settings, scene, codec, frame count, timings).

The clip and the labels are written as ``clip.partial.mp4`` and ``labels.partial.jsonl[.gz]``
and renamed when every frame is in (then the other files are written, ``meta.json`` last): a
render that fails or is interrupted leaves no ``clip.mp4`` that looks complete, and the files
of a round rendered there before stay as they were (a killed render may leave the partial
files, which the next render replaces).

Speed: frames are rendered in parallel, each worker process building its own
:class:`~nertz.datasets.render.Scene` from the same seed (so every frame is identical to a
serial render: the renderer's only per-frame randomness is seeded by the scene seed and the
frame's time). Workers render contiguous chunks of frames; the parent process receives the
chunks in order (at most ``2 * workers`` in flight, so memory stays bounded) and encodes
them into the one video file. ``python -m nertz.datasets.video`` prints the figures.

Public API: :func:`render_round`, :class:`RenderReport`, :func:`merged_table`,
:func:`parse_resolution`, :func:`frame_count`, :func:`open_writer`, :func:`check_video_out`,
:data:`CODECS`, :data:`VIDEO_EXTENSIONS`, :class:`VideoError`.
"""

from __future__ import annotations

import gzip
import io
import json
import math
import multiprocessing as mp
import os
import time
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable

import cv2
import numpy as np

from nertz.referee.errors import NertzError
from nertz.referee.table import Table

from .sim import SimRound

__all__ = ["CODECS", "RenderReport", "render_round", "merged_table", "parse_resolution", "scene_players",
           "frame_count", "VideoError", "open_writer", "check_video_out", "VIDEO_EXTENSIONS", "ROUND_FILES"]

CODECS = ("mp4v", "h264")
"""Video codecs: ``mp4v`` (OpenCV VideoWriter, MPEG-4 Part 2) and ``h264`` (PyAV libx264, CRF)."""
ROUND_FILES = frozenset({"clip.mp4", "labels.jsonl", "labels.jsonl.gz", "table.json", "events.jsonl", "result.json",
                         "meta.json", "clip.partial.mp4", "labels.partial.jsonl", "labels.partial.jsonl.gz"})
"""The names :func:`render_round` writes in a round folder (the partial ones while it renders)."""
VIDEO_EXTENSIONS = (".mp4", ".m4v", ".mkv", ".mov", ".avi")
"""File name endings (any case) :func:`open_writer` writes with both codecs (FFmpeg picks the
container from it); others (``.webm``, ``.gif``, ``.flv``: containers that refuse H.264 or
MPEG-4, or none at all) are refused by :func:`check_video_out`."""


class VideoError(NertzError):
    """The video file could not be written (codec unavailable, unwritable folder)."""


def parse_resolution(text: str) -> tuple[int, int]:
    """``"1280x720"`` -> ``(1280, 720)`` (width, height in pixels).

    Raises:
        ValueError: not ``WIDTHxHEIGHT`` with both at least 64x36 and even (the video codecs
            subsample colour by 2), or more pixels than 8K (7680x4320,
            :func:`nertz.datasets.render.check_pixels`).
    """
    from .render import check_pixels

    parts = text.lower().replace(" ", "").split("x")
    try:
        w, h = (int(p) for p in parts)
    except ValueError:
        raise ValueError(f"resolution must be WIDTHxHEIGHT, e.g. 1280x720, got {text!r}") from None
    if w < 64 or h < 36 or w % 2 or h % 2:
        raise ValueError(f"resolution must be at least 64x36 with even sides, got {w}x{h}")
    check_pixels(w, h)
    return w, h


def frame_count(duration: float, tail: float, fps: int) -> int:
    """Frames of a round video: ``t = 0, 1/fps, ...`` up to ``duration + tail`` seconds
    inclusive (a float tolerance of 1e-9 s keeps ``4.1 * 30`` at 123)."""
    return int(math.floor((duration + tail) * fps + 1e-9)) + 1


def scene_players(sim: SimRound) -> list[tuple[str, str]]:
    """The ``(name, "#rrggbb")`` owners of a simulated round, in seating order."""
    return [(p["name"], p["back"]) for p in sim.table["players"]]


def merged_table(sim_table: dict[str, Any], scene_table: dict[str, Any]) -> dict[str, Any]:
    """The round's table file: the simulator's players and rules with the scene's
    ``shared_area`` and ``zones`` (image pixels).

    Raises:
        ValueError: the two name different players.
        TableError: the merged table does not validate (:meth:`Table.from_dict`).
    """
    a = [p["name"] for p in sim_table["players"]]
    b = [p["name"] for p in scene_table["players"]]
    if a != b:
        raise ValueError(f"the scene's players {b} differ from the round's {a}")
    out = {"players": sim_table["players"], "shared_area": scene_table["shared_area"],
           "zones": scene_table["zones"], "rules": sim_table["rules"]}
    if "calibration" in scene_table:
        out["calibration"] = scene_table["calibration"]
    Table.from_dict(out, "merged table")
    return out


@dataclass
class RenderReport:
    """What :func:`render_round` wrote and how long it took.

    Attributes:
        out: the round folder. frames: frames written. fps: frames per second.
        width, height: frame size, pixels. codec: ``mp4v`` or ``h264``. workers: processes.
        wall_s: wall-clock seconds of the whole render (scene builds, rendering, encoding).
        frame_ms_median: median milliseconds to render one frame in a worker (no encoding).
        clip_bytes: size of ``clip.mp4``. files: names of the files written.
    """

    out: Path
    frames: int
    fps: int
    width: int
    height: int
    codec: str
    workers: int
    wall_s: float
    frame_ms_median: float
    clip_bytes: int
    files: list[str] = field(default_factory=list)


# ------------------------------------------------------------------------------ workers
_W: dict[str, Any] = {}


def _init_worker(sim: SimRound, players: list[tuple[str, str]], seed: int, resolution: tuple[int, int],
                 scene_options: dict[str, Any], pool_worker: bool = True) -> None:
    from .render import make_scene

    if pool_worker:
        cv2.setNumThreads(1)  # one process per core already
    _W["sim"] = sim
    _W["scene"] = make_scene(players, seed, resolution, **scene_options)


def _render_chunk(job: tuple[int, int, int]) -> tuple[int, list[np.ndarray], list[dict], list[float]]:
    """Render frames ``lo..hi-1``; returns ``(lo, frames, labels, ms per frame)``."""
    from .render import render_frame

    lo, hi, fps = job
    sim, scene = _W["sim"], _W["scene"]
    frames, labels, ms = [], [], []
    for i in range(lo, hi):
        a = time.perf_counter()
        frame, lab = render_frame(scene, sim.state_at(i / fps))
        ms.append((time.perf_counter() - a) * 1000)
        frames.append(frame)
        labels.append({"frame": i, **lab})
    return lo, frames, labels, ms


# ------------------------------------------------------------------------------ writers
class _CvWriter:
    def __init__(self, path: Path, fps: float, size: tuple[int, int]) -> None:
        self.w = cv2.VideoWriter(str(path), cv2.CAP_FFMPEG, cv2.VideoWriter_fourcc(*"mp4v"), fps, size)
        if not self.w.isOpened():
            raise VideoError(f"OpenCV could not open an mp4v video writer for {path}")

    def write(self, frame: np.ndarray) -> None:
        self.w.write(frame)

    def close(self) -> None:
        self.w.release()


class _AvWriter:
    def __init__(self, path: Path, fps: float, size: tuple[int, int], crf: int) -> None:
        try:
            import av
        except ImportError:
            raise VideoError("codec h264 needs PyAV: pip install av (or use --codec mp4v)") from None
        self.av = av
        self.path = path
        try:
            self.c = av.open(str(path), "w")
        except (av.error.FFmpegError, OSError, ValueError) as exc:  # (ValueError: no container for the name)
            raise VideoError(f"{path}: the video cannot be written ({_why(exc)})") from None
        self.s = self.c.add_stream("libx264", rate=Fraction(fps).limit_denominator(1001))
        self.s.width, self.s.height = size
        self.s.pix_fmt = "yuv420p"
        # one encoder thread: the worker processes use the cores; "fast" is x264's speed/size balance
        self.s.options = {"crf": str(crf), "preset": "fast", "threads": "1"}

    def write(self, frame: np.ndarray) -> None:
        try:
            for p in self.s.encode(self.av.VideoFrame.from_ndarray(frame, format="bgr24")):
                self.c.mux(p)
        except (self.av.error.FFmpegError, OSError) as exc:  # a full disk, a folder gone
            raise VideoError(f"{self.path}: the video cannot be written ({_why(exc)})") from None

    def close(self) -> None:
        try:
            for p in self.s.encode():
                self.c.mux(p)
        except (self.av.error.FFmpegError, OSError) as exc:
            raise VideoError(f"{self.path}: the video cannot be written ({_why(exc)})") from None
        finally:
            self.c.close()


def _why(exc: BaseException) -> str:
    """An I/O error's reason without its errno and path (``No space left on device``)."""
    return str(getattr(exc, "strerror", None) or exc)


def check_video_out(path: str | Path) -> None:
    """Check, before any frame is read or rendered, that :func:`open_writer` can write a video
    at ``path``: not a folder (nor a name ending in a path separator), a name ending in one of
    :data:`VIDEO_EXTENSIONS`, an existing folder, and a file that can be opened for writing
    there (tried by opening it to append, which leaves an existing file as it is; a file it
    creates is removed again).

    Raises:
        VideoError: the reason, naming ``path`` and what to give instead.
    """
    p = Path(path)
    if p.is_dir() or str(path).endswith(("/", os.sep)):
        raise VideoError(f"{path}: a folder; --out names the video file to write, e.g. annotated.mp4")
    if p.suffix.lower() not in VIDEO_EXTENSIONS:
        raise VideoError(f"{path}: no video format for the extension {p.suffix or '(none)'!r}; end the name in "
                         f"{', '.join(VIDEO_EXTENSIONS)}")
    parent = p.resolve().parent
    if parent.exists() and not parent.is_dir():
        raise VideoError(f"{path}: {parent} is a file, not a folder")
    if not parent.is_dir():
        raise VideoError(f"{path}: the folder {parent} does not exist")
    existed = p.exists()
    try:
        with open(p, "ab"):
            pass
    except OSError as exc:
        raise VideoError(f"{path}: cannot be written ({_why(exc)})") from None
    if not existed:
        p.unlink(missing_ok=True)


def open_writer(path: str | Path, fps: float, size: tuple[int, int], codec: str = "auto", crf: int = 25) -> Any:
    """A video writer with ``write(frame)`` (``(H, W, 3) uint8`` BGR of ``size`` ``(w, h)``
    pixels) and ``close()``.

    Args:
        fps: frames per second, whole or not (29.97 is written as 30000/1001, a folder of
            images at 0.5 fps as 1/2).
        codec: ``"h264"`` (PyAV, the optional extra ``video``), ``"mp4v"`` (OpenCV's own, 5 to
            10 times larger) or ``"auto"`` (h264 when PyAV is installed, else mp4v).

    The writers' ``write`` and ``close`` raise :class:`VideoError` when the file cannot be
    written on (a full disk).

    Raises:
        VideoError: the writer cannot be opened (:func:`check_video_out`: a folder, an
            extension of no video format, a missing or unwritable folder; or PyAV is missing
            for h264).
    """
    check_video_out(path)
    if codec == "auto":
        try:
            import av  # noqa: F401
            codec = "h264"
        except ImportError:
            codec = "mp4v"
    if codec == "mp4v":
        return _CvWriter(Path(path), float(fps), size)
    if codec == "h264":
        return _AvWriter(Path(path), fps, size, crf)
    raise VideoError(f"unknown codec {codec!r} (h264 or mp4v)")


# ------------------------------------------------------------------------------ main entry
def render_round(sim: SimRound, out_dir: str | Path, *, resolution: tuple[int, int] = (1280, 720),
                 fps: int = 30, scene_seed: int | None = None, workers: int | None = None,
                 codec: str = "mp4v", crf: int = 28, tail: float = 1.0, labels: bool = True,
                 gzip_labels: bool = False, scene_options: dict[str, Any] | None = None,
                 progress: Callable[[int, int], None] | None = None,
                 meta: dict[str, Any] | None = None) -> RenderReport:
    """Render every frame of ``sim`` and write the round folder (see the module docstring).

    Args:
        sim: the simulated round.
        out_dir: the folder to write (created; files of the same names are replaced once
            every frame is rendered: module docstring).
        resolution: ``(width, height)`` pixels, even sides.
        fps: frames per second; frame ``i`` is the table at ``t = i / fps`` seconds.
        scene_seed: seed of the scene (table, camera, light, art); default ``sim.seed``.
        workers: processes rendering frames (default: the CPU count); 1 renders in this process.
        codec: ``mp4v`` or ``h264`` (:data:`CODECS`). crf: x264 constant rate factor for
            ``h264`` (lower is better and larger; 23 is x264's default, 28 a quarter the size).
        tail: seconds of the still, final table appended after the round's end.
        labels: write ``labels.jsonl``. gzip_labels: write it gzip-compressed as
            ``labels.jsonl.gz`` instead (about 40 times smaller; header time zeroed so the
            file is reproducible).
        scene_options: keyword arguments of :func:`nertz.datasets.render.make_scene`
            (``design``, ``tilt_deg``, ``surface``, ...).
        progress: called as ``progress(frames_done, frames_total)`` after each chunk.
        meta: extra entries for ``meta.json`` (e.g. the command line).

    Returns:
        a :class:`RenderReport`.

    Raises:
        ValueError: bad codec, fps, tail, resolution, or scene options (from ``make_scene``).
        VideoError: the video cannot be written.
    """
    if codec not in CODECS:
        raise ValueError(f"unknown codec {codec!r}; choose from {', '.join(CODECS)}")
    if fps < 1 or fps > 120:
        raise ValueError(f"fps must be 1..120, got {fps}")
    if tail < 0:
        raise ValueError(f"tail must be >= 0 seconds, got {tail}")
    width, height = parse_resolution(f"{resolution[0]}x{resolution[1]}")
    workers = max(1, int(workers or os.cpu_count() or 1))
    seed = sim.seed if scene_seed is None else int(scene_seed)
    opts = dict(scene_options or {})
    players = scene_players(sim)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)

    t0 = time.perf_counter()
    # the parent's own scene: the table file, and the serial path
    _init_worker(sim, players, seed, (width, height), opts, pool_worker=False)
    scene = _W["scene"]
    table = merged_table(sim.table, scene.table_file())

    n = frame_count(sim.duration, tail, fps)
    per_chunk = max(1, min(15, int(4e7 // (width * height * 3))))
    jobs = [(lo, min(lo + per_chunk, n), fps) for lo in range(0, n, per_chunk)]
    clip, clip_part = out / "clip.mp4", out / "clip.partial.mp4"
    lab_name = "labels.jsonl.gz" if gzip_labels else "labels.jsonl"
    lab_part = out / ("labels.partial.jsonl.gz" if gzip_labels else "labels.partial.jsonl")
    for name in ("labels.partial.jsonl", "labels.partial.jsonl.gz"):  # a killed render's, of either form
        (out / name).unlink(missing_ok=True)
    writer: Any = None  # _CvWriter | _AvWriter once open
    ms_all: list[float] = []
    done = 0
    lab_fh: Any = None
    lab_raw: Any = None
    finished = False
    try:
        writer = (_CvWriter(clip_part, fps, (width, height)) if codec == "mp4v"
                  else _AvWriter(clip_part, fps, (width, height), crf))
        if labels and gzip_labels:
            lab_raw = open(lab_part, "wb")
            lab_fh = io.TextIOWrapper(gzip.GzipFile(filename="", mode="wb", compresslevel=9, mtime=0,
                                                    fileobj=lab_raw), encoding="utf-8")
        elif labels:
            lab_fh = open(lab_part, "w")

        def consume(res: tuple[int, list[np.ndarray], list[dict], list[float]]) -> None:
            nonlocal done
            _, frames, labs, ms = res
            for f in frames:
                writer.write(f)
            if lab_fh is not None:
                lab_fh.writelines(json.dumps(lab, separators=(",", ":")) + "\n" for lab in labs)
            ms_all.extend(ms)
            done += len(frames)
            if progress is not None:
                progress(done, n)

        if workers == 1 or len(jobs) == 1:
            for job in jobs:
                consume(_render_chunk(job))
        else:
            # spawn, not fork: a process forked while OpenCV's (or BLAS's) thread pool holds a
            # lock can hang in its first parallel call (seen here); spawned workers start clean
            ctx = mp.get_context("spawn")
            # (an executor, not multiprocessing.Pool: a worker that dies raises BrokenProcessPool
            # instead of hanging the render)
            with ProcessPoolExecutor(min(workers, len(jobs)), mp_context=ctx, initializer=_init_worker,
                                     initargs=(sim, players, seed, (width, height), opts)) as pool:
                pending: deque = deque()
                for job in jobs:
                    pending.append(pool.submit(_render_chunk, job))
                    if len(pending) >= 2 * workers:
                        consume(pending.popleft().result())
                while pending:
                    consume(pending.popleft().result())
        finished = True
    finally:
        if writer is not None:
            writer.close()
        if lab_fh is not None:
            lab_fh.close()
        if lab_raw is not None:
            lab_raw.close()
        if not finished:  # failed or interrupted: no partial clip or labels left behind
            clip_part.unlink(missing_ok=True)
            lab_part.unlink(missing_ok=True)
    wall = time.perf_counter() - t0

    # every frame is in: the clip and labels take their names, then the round's other files
    os.replace(clip_part, clip)
    for name in ("labels.jsonl", "labels.jsonl.gz"):  # an earlier render's, of either form
        (out / name).unlink(missing_ok=True)
    if labels:
        os.replace(lab_part, out / lab_name)
    sim.write(out)  # table.json (replaced below), events.jsonl, result.json
    (out / "table.json").write_text(json.dumps(table, indent=2) + "\n")
    files = ["clip.mp4", "table.json", "events.jsonl", "result.json", "meta.json"]
    if labels:
        files.insert(4, lab_name)
    report = RenderReport(out=out, frames=n, fps=fps, width=width, height=height, codec=codec,
                          workers=workers, wall_s=round(wall, 2),
                          frame_ms_median=round(float(np.median(ms_all)), 2),
                          clip_bytes=clip.stat().st_size, files=files)
    settings = asdict(sim.settings)
    info = {"sim_seed": sim.seed, "scene_seed": seed, "settings": settings, "duration": sim.duration,
            "stats": sim.stats, "scene": {"design": scene.design, "surface": scene.surface_kind,
                                          "tilt_deg": round(float(scene.camera.tilt_deg), 2),
                                          "fov_deg": round(float(scene.camera.fov_deg), 2), "options": opts},
            "video": {"codec": codec, "crf": crf if codec == "h264" else None, "fps": fps,
                      "width": width, "height": height, "frames": n, "tail": tail},
            "render": {"workers": workers, "wall_s": report.wall_s, "frame_ms_median": report.frame_ms_median},
            **(meta or {})}
    (out / "meta.json").write_text(json.dumps(info, indent=2, default=str) + "\n")
    return report


def _bench(argv: list[str] | None = None) -> int:
    """``python -m nertz.datasets.video [--seconds 60] [--workers 2] [--codec mp4v] [--seed 5]``:
    render a round of about ``seconds`` at 1280x720 and print the wall time and medians."""
    import argparse
    import tempfile

    from .sim import SimSettings, simulate_round

    ap = argparse.ArgumentParser(description=_bench.__doc__)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--codec", default="mp4v", choices=CODECS)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--resolution", default="1280x720")
    a = ap.parse_args(argv)
    sim = simulate_round(SimSettings(players=3, max_duration=a.seconds), a.seed)
    with tempfile.TemporaryDirectory() as d:
        load = os.getloadavg()
        r = render_round(sim, d, resolution=parse_resolution(a.resolution), workers=a.workers,
                         codec=a.codec, tail=0.0)
    print(f"{r.frames} frames ({r.frames / r.fps:.1f} s of round) {r.width}x{r.height} {r.codec}, "
          f"{r.workers} workers: wall {r.wall_s:.1f} s; render median {r.frame_ms_median:.1f} ms/frame; "
          f"clip {r.clip_bytes / 1e6:.1f} MB; load average before {load[0]:.2f}, after {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(_bench())
