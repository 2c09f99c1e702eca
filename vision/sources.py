"""Frame sources: a webcam by index, a video file, a network stream URL, or a folder of
images, all read through OpenCV (``cv2.VideoCapture``, ``cv2.imdecode``; no decoding of our own).

Use :func:`open_source`::

    with open_source("round.mp4") as src:          # or 0, "0", "rtsp://...", "shots/"
        for frame in src:                          # Frame(index, t, image)
            ...

Timestamps (``Frame.t``, seconds from the start of the source, the time base of the event log):

- **video file**: media time, the decoder's presentation time of the frame
  (``CAP_PROP_POS_MSEC`` after the read; ``index / fps`` when the backend does not report it);
- **folder of images** (and a single image file): ``index / fps``, ``fps`` from the caller
  (default :data:`DEFAULT_FOLDER_FPS`), images in natural name order (``f2.png`` before
  ``f10.png``);
- **webcam or stream URL** (live): ``time.monotonic()`` minus the time the source was opened.

Failures:

- a source that cannot be opened (missing file, not a video, empty folder, a camera that is not
  there) raises :class:`SourceError` (a :class:`~nertz.referee.errors.NertzError`: the CLI prints
  ``error: ...`` and exits with status 2);
- a **live** source whose read fails (camera unplugged, stream dropped) is reopened up to
  ``retries`` times, ``retry_delay`` seconds apart, with a warning each time; when every attempt
  fails, :class:`SourceError`;
- a **file** whose read fails before its announced frame count (a corrupt frame) skips the frame
  with a warning: the reader seeks to the next frame and goes on. A picture read just after a
  failed read whose time (``CAP_PROP_POS_MSEC``) does not advance past the last frame's is
  unreadable too: the decoder handing back what it already gave, as FFmpeg does at the cut of
  a truncated H.264 file whose index is at its start (faststart), where failed reads and such
  stale pictures alternate to the announced end. After ``max_bad_frames`` unreadable frames in
  a row, or as many among the last ``2 * max_bad_frames`` reads, the file is taken as truncated:
  one warning (``truncated at frame N (S s)``, the first unreadable frame of those), and the
  stream ends normally; a file cut before its first frame raises :class:`SourceError`. Skipped frames are warned of a run at a time (``frames 20-21 cannot be
  decoded``), once ``2 * max_bad_frames`` good reads followed them (or at the end). (FFmpeg
  itself conceals many damaged frames, repeating the previous picture or dropping the packet:
  those cannot be seen from here.) A folder's unreadable image (or one of another size) is
  skipped with a warning.

Warnings go through :mod:`logging` (logger ``nertz.vision.sources``); with no logging set up,
Python prints them on stderr.

Public API: :func:`open_source`, :func:`frame_at`, :class:`Frame`, :class:`FrameSource`,
:class:`VideoFileSource`, :class:`ImageFolderSource`, :class:`LiveSource`, :class:`SourceError`,
:data:`DEFAULT_FOLDER_FPS`, :data:`IMAGE_EXTENSIONS`.
"""

from __future__ import annotations

import logging
import re
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from nertz.referee.errors import NertzError

__all__ = ["Frame", "FrameSource", "VideoFileSource", "ImageFolderSource", "LiveSource", "SourceError",
           "open_source", "check_source", "source_kind", "folder_fps_note", "source_path", "frame_at", "table_misfit", "calibrated_misfit", "calibrated_size", "DEFAULT_FOLDER_FPS", "IMAGE_EXTENSIONS",
           "STREAM_SCHEMES"]

log = logging.getLogger("nertz.vision.sources")

DEFAULT_FOLDER_FPS = 30.0
"""Frames per second given to a folder of images when the caller names none: image ``i`` is at
``i / 30`` s (one video frame apart, so ``rules.tie_window`` keeps its meaning)."""

IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp", ".jp2", ".pgm", ".ppm")
"""File name endings (case-insensitive) a folder source reads; other files are ignored."""

STREAM_SCHEMES = ("rtsp", "rtsps", "rtmp", "http", "https", "udp", "tcp", "srt", "rtp", "mms")
"""URL schemes opened as live network streams (through OpenCV's FFmpeg backend)."""

CaptureFactory = Callable[[Any], Any]
"""Makes a capture from an index or a path/URL: ``cv2.VideoCapture`` or a test double with
``isOpened() read() grab() get(prop) set(prop, value) release()``."""


class SourceError(NertzError):
    """A frame source that cannot be opened, or a live source that dropped out for good."""


@dataclass(frozen=True)
class Frame:
    """One frame of a source.

    Attributes:
        index: position in the source, from 0 (for files, the frame's number in the file:
            skipped corrupt frames leave gaps; for live sources, frames delivered so far).
        t: seconds from the start of the source (media time for files and folders, monotonic
            clock for live sources).
        image: ``(H, W, 3) uint8`` BGR.
    """

    index: int
    t: float
    image: np.ndarray


class FrameSource:
    """Base of every source: an iterator of :class:`Frame`, a context manager.

    Attributes:
        spec: what was opened, as given (for messages).
        live: True for a webcam or stream (monotonic timestamps, reopened on failure).
        fps: frames per second as the source reports it (None when unknown).
        frame_count: frames in a file or folder (the container's claim for a video); None
            for live sources.
        size: ``(width, height)`` pixels of the frames.
        skipped: frames skipped so far (corrupt, unreadable or of another size).
        dropped: frames of a file or folder read in real time with ``drop_late`` that were left
            out because the consumer asked for a frame after the next one was due (as a live
            camera's consumer misses them); 0 otherwise.
    """

    spec: str
    live: bool = False
    fps: float | None = None
    frame_count: int | None = None
    size: tuple[int, int] = (0, 0)

    def __init__(self) -> None:
        self.skipped = 0
        self.dropped = 0
        self._closed = False

    def __iter__(self) -> Iterator[Frame]:
        return self

    def __next__(self) -> Frame:
        if self._closed:
            raise StopIteration
        frame = self._next()
        if frame is None:
            raise StopIteration
        return frame

    def _next(self) -> Frame | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def close(self) -> None:
        """Release the capture (idempotent); iteration stops."""
        self._closed = True

    def __enter__(self) -> "FrameSource":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"{type(self).__name__}({self.spec!r}, live={self.live}, fps={self.fps}, "
                f"frame_count={self.frame_count}, size={self.size})")


def _as_bgr(image: Any) -> np.ndarray | None:
    """A decoded frame as ``(H, W, 3) uint8`` BGR, or None when it is empty or malformed."""
    if image is None or not isinstance(image, np.ndarray) or image.size == 0:
        return None
    if image.dtype != np.uint8:
        if image.dtype == np.uint16:
            image = (image >> 8).astype(np.uint8)
        else:
            return None
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.ndim == 3 and image.shape[2] == 3:
        return image
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.ndim == 3 and image.shape[2] == 1:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    return None


class _Pacer:
    """Sleeps so that frames come out at media time (``realtime``): frame time ``t`` is handed
    out ``(t - t_first) / speed`` wall seconds after the first frame."""

    def __init__(self, speed: float) -> None:
        if not speed > 0:
            raise ValueError(f"realtime speed must be positive, got {speed}")
        self.speed = speed
        self._start: tuple[float, float] | None = None

    def lag(self, t: float) -> float:
        """Seconds (wall) the consumer is behind media time ``t`` (negative: ahead)."""
        if self._start is None:
            return 0.0
        wall0, t0 = self._start
        return time.monotonic() - (wall0 + (t - t0) / self.speed)

    def stale(self, t: float, period: float) -> bool:
        """Whether the frame at media time ``t`` is stale: the frame ``period`` media seconds
        after it is already due, so a live camera would hand out that one (its newest) instead
        and this one would be missed. Never the first frame."""
        return self._start is not None and self.lag(t) > period / self.speed

    def wait(self, t: float) -> None:
        if self._start is None:
            self._start = (time.monotonic(), t)
            return
        ahead = -self.lag(t)
        if ahead > 0:
            time.sleep(ahead)


class VideoFileSource(FrameSource):
    """A video file read with ``cv2.VideoCapture`` (FFmpeg backend).

    Args:
        path: the file.
        realtime: hand frames out at media time (sleeping), as a live camera would.
        speed: media seconds per wall second when ``realtime`` (2.0: twice as fast).
        drop_late: with ``realtime``, skip the frames the consumer is too late for (read but not
            returned, counted in ``dropped``): a frame whose next one is already due when the
            consumer asks for a frame, as a live camera's consumer would miss it; media time
            then keeps up with the wall clock.
        max_bad_frames: unreadable frames in a row (or among the last ``2 * max_bad_frames``
            reads) after which the file is taken as truncated (at least 1).
        capture_factory: makes the capture from the path (tests pass a fake).

    Raises:
        SourceError: the file is missing, cannot be read (permissions) or OpenCV cannot open it
            as a video.
    """

    live = False

    def __init__(self, path: str | Path, *, realtime: bool = False, speed: float = 1.0, drop_late: bool = False,
                 max_bad_frames: int = 25, capture_factory: CaptureFactory | None = None) -> None:
        super().__init__()
        self.spec = str(path)
        p = Path(path)
        if capture_factory is None:
            if not p.is_file():
                raise SourceError(f"{path}: no such video file")
            try:  # OpenCV says only that it failed: a file this user may not read is not 'not a video'
                with p.open("rb"):
                    pass
            except OSError as exc:
                raise SourceError(f"{path}: cannot be read ({exc.strerror or exc})") from None
            capture_factory = _default_file_capture
        self._cap = capture_factory(str(p))
        if self._cap is None or not self._cap.isOpened():
            raise SourceError(f"{path}: cannot be opened as a video (not a video file, or a format OpenCV's "
                              f"FFmpeg cannot read)")
        fps = float(self._cap.get(cv2.CAP_PROP_FPS) or 0.0)
        self.fps = fps if 0 < fps < 1000 else None
        n = int(self._cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        self.frame_count = n if n > 0 else None
        self.size = (int(self._cap.get(cv2.CAP_PROP_FRAME_WIDTH) or 0), int(self._cap.get(cv2.CAP_PROP_FRAME_HEIGHT) or 0))
        self.max_bad_frames = max(1, int(max_bad_frames))
        self.drop_late = bool(drop_late)
        self._pacer = _Pacer(speed) if realtime else None
        self._index = 0  # number of the frame the next read returns
        self._last_t = -1.0
        self._last_msec: float | None = None  # the decoder's time of the last frame handed out
        self._runs: list[list[int]] = []  # [first, last] index of each run of unreadable frames not yet warned of
        self._in_run = False  # the last read was unreadable
        self._good_since = 0  # fresh frames read since the last unreadable one
        self._recent: deque[bool] = deque(maxlen=2 * self.max_bad_frames)  # the last reads: True unreadable
        self._ended = False

    def _time(self, index: int, msec: float) -> float:
        """Seconds of frame ``index``: the decoder's ``msec`` (``CAP_PROP_POS_MSEC`` after the
        read) when it reports one, else ``index / fps``."""
        if msec > 0 or (index == 0 and msec == 0):
            t = msec / 1000.0
        elif self.fps:
            t = index / self.fps
        else:
            t = index / DEFAULT_FOLDER_FPS
        return t

    def _within_file(self) -> bool:
        return self.frame_count is not None and self._index < self.frame_count

    def _bad(self, index: int) -> bool:
        """Count frame ``index`` as unreadable; True (after the one warning) when the file is
        taken as truncated: ``max_bad_frames`` unreadable in a row, or as many among the last
        ``2 * max_bad_frames`` reads."""
        self.skipped += 1
        if self._in_run:
            self._runs[-1][1] = index
        else:
            self._runs.append([index, index])
        self._in_run = True
        self._good_since = 0
        self._recent.append(True)
        first, last = self._runs[-1]
        if last - first + 1 < self.max_bad_frames and sum(self._recent) < self.max_bad_frames:
            return False
        self._truncated()
        return True

    def _truncated(self) -> None:
        """Warn, once, that the file ends at the first unreadable frame of the recent ones."""
        start = self._runs[0][0] if self._runs else self._index
        t = start / self.fps if self.fps else max(self._last_t, 0.0)
        of = f" of the {self.frame_count} it announces" if self.frame_count else ""
        if self._last_msec is None and self._last_t < 0:  # not one frame handed out
            self._runs.clear()
            self._ended = True
            raise SourceError(f"{self.spec}: no frame can be read: the file is cut short before its first "
                              f"frame{of.replace(' of the', ' (none of the')}{')' if of else ''}")
        log.warning("%s: truncated at frame %d (%.1f s)%s: the frames after it cannot be read; stopping here",
                    self.spec, start, t, of)
        self._runs.clear()
        self._ended = True

    def _good(self) -> None:
        """A fresh frame: the runs of unreadable frames before it are warned of (a line each)
        once ``2 * max_bad_frames`` reads in a row were good (until then they may be the start
        of a truncated end, reported as that alone)."""
        self._recent.append(False)
        self._in_run = False
        self._good_since += 1
        if self._runs and self._good_since >= 2 * self.max_bad_frames:
            self._report_skipped()

    def _report_skipped(self) -> None:
        for a, b in self._runs:
            log.warning("%s: %s cannot be decoded (corrupt?); skipped", self.spec,
                        f"frame {a}" if a == b else f"frames {a}-{b}")
        self._runs.clear()

    def _next(self) -> Frame | None:
        if self._ended:
            return None
        while True:
            ok, image = self._cap.read()
            index = self._index
            self._index += 1
            if ok:
                img = _as_bgr(image)
                if img is None:
                    self.skipped += 1
                    log.warning("%s: frame %d decoded to an empty or malformed image; skipped", self.spec, index)
                    continue
                msec = float(self._cap.get(cv2.CAP_PROP_POS_MSEC) or 0.0)
                if self._in_run and msec > 0 and self._last_msec is not None and msec <= self._last_msec:
                    # after a failed read, a picture whose time does not advance: the decoder gives
                    # back what it already gave (a seek that cannot get past a cut), not the frame
                    if self._bad(index):
                        return None
                    continue
                self._good()
                t = max(self._time(index, msec), self._last_t)
                if self._pacer is not None:
                    if self.drop_late and self._pacer.stale(t, 1.0 / (self.fps or DEFAULT_FOLDER_FPS)):
                        self.dropped += 1  # a live consumer would have missed this frame
                        self._last_t = t
                        self._last_msec = msec
                        continue
                    self._pacer.wait(t)
                if self.size == (0, 0):
                    self.size = (img.shape[1], img.shape[0])
                self._last_t = t
                self._last_msec = msec
                return Frame(index, t, img)
            # read() failed: the end, or a damaged frame before the announced end
            if not self._within_file():
                if self._in_run:  # unreadable up to the announced end
                    self._truncated()
                self._report_skipped()
                self._ended = True
                return None
            if self._bad(index):
                return None
            self._cap.set(cv2.CAP_PROP_POS_FRAMES, float(self._index))

    def close(self) -> None:
        if not self._closed:
            self._report_skipped()
            self._cap.release()
        super().close()


def _natural_key(name: str) -> list[Any]:
    return [int(s) if s.isdigit() else s.lower() for s in re.split(r"(\d+)", name)]


class ImageFolderSource(FrameSource):
    """A folder of images (or one image file), in natural name order, image ``i`` at ``i / fps``.

    Args:
        path: the folder (files ending in one of :data:`IMAGE_EXTENSIONS`), or one image file.
        fps: frames per second the images stand for (default :data:`DEFAULT_FOLDER_FPS`).
        realtime, speed, drop_late: as for :class:`VideoFileSource` (a dropped image is not
            decoded).

    Raises:
        SourceError: missing folder, a folder that cannot be listed (permissions), no images in
            it, or not one of them readable.
        ValueError: ``fps`` not positive.
    """

    live = False

    def __init__(self, path: str | Path, *, fps: float | None = None, realtime: bool = False,
                 speed: float = 1.0, drop_late: bool = False) -> None:
        super().__init__()
        self.spec = str(path)
        p = Path(path)
        if fps is not None and not fps > 0:
            raise ValueError(f"fps must be positive, got {fps}")
        self.fps = float(fps) if fps is not None else DEFAULT_FOLDER_FPS
        if p.is_dir():
            try:
                files = sorted((f for f in p.iterdir() if f.is_file() and f.suffix.lower() in IMAGE_EXTENSIONS),
                               key=lambda f: _natural_key(f.name))
            except OSError as exc:  # a folder this user may not list (permissions)
                raise SourceError(f"{path}: the folder cannot be read ({exc.strerror or exc})") from None
            if not files:
                raise SourceError(f"{path}: the folder holds no images ({', '.join(IMAGE_EXTENSIONS)})")
        elif p.is_file():
            files = [p]
        else:
            raise SourceError(f"{path}: no such folder or image file")
        self.files = files
        self.frame_count = len(files)
        self._pacer = _Pacer(speed) if realtime else None
        self.drop_late = bool(drop_late)
        self._index = 0
        # the frame size is the first readable image's; look ahead without consuming it
        self._first: tuple[int, np.ndarray] | None = None
        while self._index < len(files):
            img = self._read(self._index)
            self._index += 1
            if img is not None:
                self._first = (self._index - 1, img)
                self.size = (img.shape[1], img.shape[0])
                break
        if self._first is None:
            raise SourceError(f"{path}: none of its {len(files)} image files can be read")

    def _read(self, i: int) -> np.ndarray | None:
        f = self.files[i]
        try:
            data = np.fromfile(str(f), np.uint8)
            img = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
        except (OSError, cv2.error):
            img = None
        img = _as_bgr(img)
        if img is None:
            self.skipped += 1
            log.warning("%s: cannot be read as an image; skipped", f)
        return img

    def _next(self) -> Frame | None:
        if self._first is not None:
            i, img = self._first
            self._first = None
        else:
            while True:
                if self._index >= len(self.files):
                    return None
                i = self._index
                self._index += 1
                if self.drop_late and self._pacer is not None and self._pacer.stale(i / self.fps, 1.0 / self.fps):
                    self.dropped += 1  # a live consumer would have missed this image
                    continue
                img = self._read(i)
                if img is None:
                    continue
                if (img.shape[1], img.shape[0]) != self.size:
                    self.skipped += 1
                    log.warning("%s: %dx%d, not the source's %dx%d (calibrated zones are in pixels); skipped",
                                self.files[i], img.shape[1], img.shape[0], *self.size)
                    continue
                break
        t = i / self.fps
        if self._pacer is not None:
            self._pacer.wait(t)
        return Frame(i, t, img)


def _default_file_capture(path: str) -> Any:
    # OpenCV logs its own warning for a file it cannot open; ours (SourceError) says it better
    level = cv2.utils.logging.getLogLevel()
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    try:
        return cv2.VideoCapture(path, cv2.CAP_FFMPEG)
    finally:
        cv2.utils.logging.setLogLevel(level)


def _default_live_capture(target: int | str) -> Any:
    return cv2.VideoCapture(target) if isinstance(target, int) else cv2.VideoCapture(target, cv2.CAP_FFMPEG)


class LiveSource(FrameSource):
    """A webcam (by index) or a network stream (URL), timestamped by the monotonic clock.

    A failed read releases the capture and reopens it, up to ``retries`` attempts ``retry_delay``
    seconds apart, logging a warning for each; a good frame resets the count.

    Args:
        target: camera index (``0``) or stream URL.
        retries: reopen attempts after a failed read before giving up.
        retry_delay: seconds between attempts.
        capture_factory: makes the capture from ``target`` (tests pass a fake); default
            ``cv2.VideoCapture`` (the platform's camera backend for an index, FFmpeg for a URL).
        buffer_size: frames the driver may queue (``CAP_PROP_BUFFERSIZE``; 1 keeps latency low
            where the backend honours it; None leaves the default).

    Raises:
        SourceError: the camera or stream cannot be opened or gives no first frame (at once,
            with no retries: a wrong index or URL is a user mistake), or it dropped out and
            every reopen attempt failed (from iteration).
    """

    live = True

    def __init__(self, target: int | str, *, retries: int = 5, retry_delay: float = 1.0,
                 capture_factory: CaptureFactory | None = None, buffer_size: int | None = 1) -> None:
        super().__init__()
        self.target = target
        self.spec = str(target)
        self.what = f"camera {target}" if isinstance(target, int) else f"stream {target}"
        if retries < 0 or retry_delay < 0:
            raise ValueError("retries and retry_delay must not be negative")
        self.retries = int(retries)
        self.retry_delay = float(retry_delay)
        self.reopened = 0
        self._factory = capture_factory or _default_live_capture
        self._buffer_size = buffer_size
        self._cap = self._open()
        if self._cap is None:
            hint = ("is it connected and not in use by another program? (`ls /dev/video*` lists cameras "
                    "on Linux)" if isinstance(target, int) else "check the URL and that the stream is running")
            raise SourceError(f"{self.what} cannot be opened: {hint}")
        ok, image = self._cap.read()
        img = _as_bgr(image) if ok else None
        if img is None:
            self._cap.release()
            raise SourceError(f"{self.what} opened but gives no frames")
        self._pending: np.ndarray | None = img
        self.size = (img.shape[1], img.shape[0])
        fps = float(self._cap.get(cv2.CAP_PROP_FPS) or 0.0)
        self.fps = fps if 0 < fps < 1000 else None
        self.frame_count = None
        self._t0 = time.monotonic()
        self._index = 0

    def elapsed(self) -> float:
        """Seconds since the source was opened, on the clock its frames are timed by
        (``time.monotonic()``): the ``t`` a frame read now would carry."""
        return time.monotonic() - self._t0

    def _open(self) -> Any:
        try:
            cap = self._factory(self.target)
        except cv2.error:
            return None
        if cap is None or not cap.isOpened():
            if cap is not None:
                cap.release()
            return None
        if self._buffer_size is not None:
            cap.set(cv2.CAP_PROP_BUFFERSIZE, float(self._buffer_size))
        return cap

    def _reopen(self) -> np.ndarray:
        """Reopen after a failed read; the first good frame. Raises SourceError after ``retries``."""
        self._cap.release()
        for attempt in range(1, self.retries + 1):
            log.warning("%s: no frame (dropped out?); reopening, attempt %d of %d in %.1f s",
                        self.what, attempt, self.retries, self.retry_delay)
            time.sleep(self.retry_delay)
            cap = self._open()
            if cap is None:
                continue
            ok, image = cap.read()
            img = _as_bgr(image) if ok else None
            if img is None:
                cap.release()
                continue
            self._cap = cap
            self.reopened += 1
            log.warning("%s: back after %d attempt(s)", self.what, attempt)
            return img
        self._closed = True
        raise SourceError(f"{self.what} dropped out and could not be reopened after {self.retries} attempts "
                          f"{self.retry_delay:g} s apart: check the cable, power or network")

    def _next(self) -> Frame | None:
        if self._pending is not None:
            img, self._pending = self._pending, None
        else:
            ok, image = self._cap.read()
            img = _as_bgr(image) if ok else None
            if img is None:
                img = self._reopen()
        if (img.shape[1], img.shape[0]) != self.size:
            log.warning("%s: frame size changed from %dx%d to %dx%d", self.what, *self.size, img.shape[1], img.shape[0])
            self.size = (img.shape[1], img.shape[0])
        t = time.monotonic() - self._t0
        frame = Frame(self._index, t, img)
        self._index += 1
        return frame

    def close(self) -> None:
        if not self._closed:
            self._cap.release()
        super().close()


def _parse_index(spec: Any) -> int | None:
    if isinstance(spec, bool):
        return None
    if isinstance(spec, int):
        return spec
    if isinstance(spec, str) and spec.strip().isdigit():
        return int(spec.strip())
    return None


def open_source(spec: int | str | Path | None, *, realtime: bool = False, speed: float = 1.0,
                drop_late: bool = False, fps: float | None = None, retries: int = 5, retry_delay: float = 1.0,
                max_bad_frames: int = 25, capture_factory: CaptureFactory | None = None) -> FrameSource:
    """Open a frame source from what a user typed after ``--source``.

    Args:
        spec: a webcam index (``0`` or ``"0"``), a stream URL (scheme in :data:`STREAM_SCHEMES`;
            ``file://`` URLs are read as files), a video file, a folder of images or one image
            file. None or ``""`` is refused: the caller decides the default.
        realtime: pace a file or folder at media time (sleeping), as if it were live.
        speed: media seconds per wall second with ``realtime``.
        drop_late: with ``realtime``, skip the frames (or images) the consumer is too late for,
            as a live camera's consumer misses them (counted in the source's ``dropped``).
        fps: frames per second of a folder of images (default :data:`DEFAULT_FOLDER_FPS`);
            ignored for videos and live sources.
        retries, retry_delay: reopen attempts (count, seconds apart) of a live source.
        max_bad_frames: unreadable video frames in a row (or among the last twice as many reads)
            taken as the end of a truncated file.
        capture_factory: makes the ``cv2.VideoCapture`` (tests pass a fake).

    Returns:
        a :class:`FrameSource` (iterate it for :class:`Frame`; close it, or use ``with``).

    Raises:
        SourceError: no source given, or it cannot be opened (the message says what and why).
    """
    kind, target = _source_kind(spec, missing_ok=capture_factory is not None)
    if kind == "live":
        return LiveSource(target, retries=retries, retry_delay=retry_delay, capture_factory=capture_factory)
    if kind == "images":
        return ImageFolderSource(target, fps=fps, realtime=realtime, speed=speed, drop_late=drop_late)
    return VideoFileSource(target, realtime=realtime, speed=speed, drop_late=drop_late,
                           max_bad_frames=max_bad_frames, capture_factory=capture_factory)


def check_source(spec: int | str | Path | None) -> None:
    """Check what a user typed after ``--source`` without opening it (no camera is touched,
    no file is read): the checks :func:`open_source` makes first, for a command that wants to
    report a mistyped source before other problems.

    Raises:
        SourceError: no source given, an unknown URL scheme, or no such file or folder.
    """
    _source_kind(spec)


def source_kind(spec: int | str | Path | None) -> str:
    """What a ``--source`` spec names, without opening it: ``"live"`` (a webcam index or a stream
    URL), ``"images"`` (a folder of images or one image file) or ``"video"``.

    Raises:
        SourceError: as :func:`check_source`.
    """
    return _source_kind(spec)[0]


def folder_fps_note(source: int | str | Path | None, fps: float | None) -> str | None:
    """Check a command's ``--fps`` against its ``--source`` (None: the bundled sample round):
    ``--fps`` times a folder of images (or one image) only; a video or a camera gives its own
    frame rate. Opens nothing.

    Returns:
        for a folder given without ``--fps``, the line saying it is taken as
        :data:`DEFAULT_FOLDER_FPS` frames a second; else None.

    Raises:
        SourceError: ``--fps`` with a video file, a camera or the sample round, or a source
            :func:`check_source` refuses.
    """
    folder = source is not None and source_kind(source) == "images"
    if fps is not None and not folder:
        what = "a video file or camera" if source is not None else "the sample round"
        raise SourceError(f"--fps {fps:g}: only a folder of images (or an image) is timed by it; {what} gives its own "
                          "frame rate")
    if folder and fps is None:
        rate = f"{DEFAULT_FOLDER_FPS:g}"
        return (f"{source}: a folder of images, taken as {rate} frames a second (image i at i / {rate} s); "
                "give --fps for another rate")
    return None


def source_path(spec: int | str | Path | None) -> Path | None:
    """The file or folder a ``--source`` spec reads (``file://`` URLs included), or None for a
    webcam index, a stream URL, or a spec that :func:`check_source` refuses. Opens nothing:
    for a command that must not write its output over its input
    (:func:`nertz.referee.files.check_not_an_input`)."""
    try:
        kind, target = _source_kind(spec, missing_ok=True)
    except SourceError:
        return None
    return None if kind == "live" else Path(target)


def _source_kind(spec: int | str | Path | None, missing_ok: bool = False) -> tuple[str, Any]:
    """``("live", index or URL)``, ``("images", folder or image path)`` or ``("video", path)``
    for a source spec (see :func:`open_source`); ``missing_ok`` takes a missing path for a video.

    Raises:
        SourceError: as :func:`check_source`.
    """
    if spec is None or (isinstance(spec, str) and not spec.strip()):
        raise SourceError("no source given: name a webcam index (0), a video file, a folder of images or a "
                          "stream URL")
    index = _parse_index(spec)
    if index is not None:
        return "live", index
    text = str(spec)
    m = re.match(r"^([A-Za-z][A-Za-z0-9+.-]*)://", text)
    if m:
        scheme = m.group(1).lower()
        if scheme == "file":
            text = text[len("file://"):]
        elif scheme in STREAM_SCHEMES:
            return "live", text
        else:
            raise SourceError(f"{spec}: unknown URL scheme {scheme!r} (streams: {', '.join(STREAM_SCHEMES)})")
    p = Path(text).expanduser()
    if p.is_dir() or (p.is_file() and p.suffix.lower() in IMAGE_EXTENSIONS):
        return "images", p
    if p.is_file() or missing_ok:
        return "video", p
    raise SourceError(f"{spec}: no such file or folder (a source is a webcam index such as 0, a video file, "
                      f"a folder of images or a stream URL)")


def frame_at(source: FrameSource, seconds: float = 0.0) -> Frame:
    """The first frame of ``source`` at or after ``seconds`` (source time).

    For a live source this waits (the camera's exposure and focus settle in the first second);
    for a file it reads forward.

    Raises:
        SourceError: the source ends before that time (a live source that drops out for good
            raises it from the reopen logic).
    """
    last: Frame | None = None
    for frame in source:
        last = frame
        if frame.t >= seconds - 1e-9:
            return frame
    if last is None:
        raise SourceError(f"{source.spec}: no frame could be read")
    raise SourceError(f"{source.spec}: ends at {last.t:.2f} s, before the {seconds:g} s asked for")


def calibrated_size(table: Any) -> tuple[int, int] | None:
    """The ``(width, height)`` in pixels of the frames the table file (a
    :class:`~nertz.referee.table.Table`) was calibrated on (its ``calibration.frame_size``,
    written by ``nertz calibrate``), or None when it does not say."""
    cal = (getattr(table, "model_extra", None) or {}).get("calibration")
    size = cal.get("frame_size") if isinstance(cal, dict) else None
    if (isinstance(size, (list, tuple)) and len(size) == 2
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 for v in size)):
        return int(size[0]), int(size[1])
    return None


def table_misfit(table: Any, size: tuple[int, int], slack: float = 0.1, zone_slack: float = 0.25) -> str | None:
    """Why the table file's polygons cannot be this source's, and what to do (a sentence for the
    user): the shared area of ``table`` (a :class:`~nertz.referee.table.Table`) reaching
    outside the ``(width, height)`` frame (pixels) by more than ``slack`` of its width or
    height, or a zone by more than ``zone_slack``; None when they fit, or when the size is not
    known yet (``(0, 0)``). A table made for another camera or resolution (its polygons in that
    camera's pixels) would otherwise be used silently: cards seen nowhere, or plays from the
    wrong places. A zone may reach further out than the shared area: a player seated at the
    frame's edge has part of their zone (the cascades' room toward them) out of view; the data
    engine's table files reach up to 0.12 of the frame out (54 rendered rounds, 2026-12-07),
    where a table made at 1920 x 1080 reaches 0.5 out of a 1280 x 720 frame. A table file
    that names the size of the frames it was calibrated on (:func:`calibrated_size`) must
    name this source's: a table made at 1280 x 720 lies inside a 1920 x 1080 frame, in the
    wrong place. Used by ``nertz referee``, ``nertz detect --table`` and the service's camera."""
    w, h = size
    if w <= 0 or h <= 0:
        return None
    cal = calibrated_size(table)
    if cal is not None and cal != (w, h):
        return (f"the table file was calibrated on {cal[0]}x{cal[1]} frames and this source's are {w}x{h} "
                "(its polygons are in those frames' pixels): make one for this source with nertz calibrate")
    out = _reaching_out(table, (w, h), slack, zone_slack)
    if out is not None:
        what, (x, y) = out
        return (f"{what} reaches ({x:.0f}, {y:.0f}), outside this source's {w}x{h} frames: "
                "a table file made for another camera or resolution? Make one for this source with nertz calibrate")
    return None


def calibrated_misfit(table: Any, slack: float = 0.1, zone_slack: float = 0.25) -> str | None:
    """Why the polygons of ``table`` (a :class:`~nertz.referee.table.Table`) cannot lie in the
    frames it was calibrated on (its ``calibration.frame_size``, :func:`calibrated_size`): a
    region reaching outside them by more than :func:`table_misfit` allows; None when they fit,
    or when the table does not name its frames' size. For the live service without a camera,
    whose page calibration (``PUT /api/table/calibration``) is bounded by the table's own
    frames as a camera's is by its frames."""
    size = calibrated_size(table)
    if size is None:
        return None
    out = _reaching_out(table, size, slack, zone_slack)
    if out is None:
        return None
    what, (x, y) = out
    return (f"{what} reaches ({x:.0f}, {y:.0f}), outside the {size[0]}x{size[1]} frames the table was calibrated "
            "on (its calibration.frame_size): regions are image pixels of those frames")


def _reaching_out(table: Any, size: tuple[int, int], slack: float,
                  zone_slack: float) -> tuple[str, tuple[float, float]] | None:
    """The first region of ``table`` (``"the shared area"``, ``"red's zone"``) reaching outside
    the ``(width, height)`` frame by more than ``slack`` (the shared area) or ``zone_slack``
    (a zone) of its width or height, with its point furthest out; None when all fit."""
    w, h = size

    def outside(p: tuple[float, float]) -> float:  # how far beyond the frame, in frame widths / heights
        return max(-p[0] / w, p[0] / w - 1.0, -p[1] / h, p[1] / h - 1.0)

    polys = ([("the shared area", table.shared_area, slack)] if table.shared_area is not None else []) + \
        [(f"{name}'s zone", poly, zone_slack) for name, poly in table.zones.items()]
    for what, poly, limit in polys:
        worst = max(((float(x), float(y)) for x, y in poly), key=outside)
        if outside(worst) > limit:
            return what, worst
    return None
