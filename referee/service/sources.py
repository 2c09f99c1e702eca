"""Event sources for the live referee: something that reports contract events in real time
and, optionally, the latest camera frame (JPEG) for the video stream.

Two sources exist: :class:`LogReplaySource` here, which replays an event log in real time,
with the round's video as the camera view when there is one (with no ``--source``, ``nertz
serve`` replays the bundled sample round ``datasets/samples/round-3p``: its ground-truth log and
its rendered video), and the camera, :class:`nertz.vision.camera_source.CameraSource`, which
runs the vision pipeline on a webcam, stream or video file (the referee package never touches
pixels: the service only imports it when ``--source`` names a camera).

The service drives a source from one background thread per round::

    for index, event in source.events(skip=n, clock=clock, stop=stop):
        ...   # pushed into the round, stored, broadcast

``skip`` is the number of events of this round the source already reported before a
restart (they are in the store), ``clock()`` the round clock in source seconds, and ``stop``
a :class:`threading.Event` set when the round or the service ends.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import cv2
import numpy as np

from nertz.referee.errors import EventError, EventLogError, NertzError
from nertz.referee.events import ResultLine, RulingLine
from nertz.referee.files import read_event_log
from nertz.referee.round import Round
from nertz.referee.table import Table

__all__ = ["Source", "LogReplaySource", "placeholder_jpeg"]


@runtime_checkable
class Source(Protocol):
    """What the live referee needs from a source of events.

    A source may also have ``new_round(events)`` and ``heard(event)``: the live referee then
    gives it, before each run of :meth:`events`, the round's events so far that came from
    elsewhere (the page), and then each such event as it is pushed (the camera counts the
    Nertz cards left after a call: :class:`nertz.vision.camera_source.CameraSource`). It may
    also have ``late_events(stop)``: iterated the same way once :meth:`events` has returned and
    the source's end was announced, until ``stop`` is set (the camera's counts for a call made
    after its video ended). And it may have ``set_table(table)``: given the match's table
    when a stored match is resumed and at each calibration (``PUT /api/table/calibration``),
    to watch with from its next run of :meth:`events` on (the camera's regions and back
    colours); it raises ``ValueError`` for a table it cannot use (regions outside its frames).
    And it may have ``round_piles(piles, next_pile)``: given before each run of :meth:`events`
    the round's foundations as ruled so far (``{pile number: top card}``) and the number of its
    next new pile, so that a live camera started again in a round under way takes the cards
    lying there as the round's piles, not as new plays.
    And it may have ``now()``: the time now on its events' clock (seconds), or ``None``;
    while it watches the current round, the live referee's clock is that one (the page's call
    is stamped by it), not the wall clock, which a camera's video falls behind when the machine
    cannot keep up.

    Attributes:
        name: a short name, stored as the origin of its events (``"log-replay"``).
        speed: how many source seconds pass per wall-clock second (1 for a camera).
    """

    name: str
    speed: float

    def events(
        self, skip: int, clock: Callable[[], float], stop: threading.Event
    ) -> Iterator[tuple[int, dict[str, Any]]]:
        """Yield ``(index, contract event dict)`` as the events happen, from index ``skip``
        on; return when the source is exhausted or ``stop`` is set."""
        ...

    def frame(self) -> bytes | None:
        """The latest camera frame as JPEG bytes (annotated), or ``None`` with no camera."""
        ...


class LogReplaySource:
    """Replays an event log in real time: each event is reported when the round clock
    reaches its ``t`` (events without ``t`` right after the previous one). ``ruling`` and
    ``result`` lines are skipped (the live referee makes its own). Lines out of time order
    are reported in file order (as a tracker's late report would be).

    Args:
        path: the event log (JSON lines, ``shared/DESIGN.md``).
        speed: source seconds per wall second (1 = real time; tests use 50 or more).

    Raises:
        NertzError: the log cannot be read or has an invalid line (names file and line).
        ValueError: ``speed`` is not positive.
    """

    def __init__(self, path: str | Path, speed: float = 1.0, video: str | Path | None = None) -> None:
        if not speed > 0:
            raise ValueError(f"replay speed must be positive, got {speed}")
        self.path = Path(path)
        self.speed = float(speed)
        self.name = "log-replay"
        kept = [(number, ev) for number, ev in read_event_log(self.path) if not isinstance(ev, (RulingLine, ResultLine))]
        self._lines = [number for number, _ in kept]
        self._events = [ev.to_json() for _, ev in kept]
        self._clock: Callable[[], float] | None = None
        self._video = _VideoFrames(Path(video)) if video is not None else None

    def __len__(self) -> int:
        return len(self._events)

    @property
    def contract_events(self) -> list[dict[str, Any]]:
        """The log's events (ruling and result lines left out), in file order."""
        return [dict(e) for e in self._events]

    def check(self, table: Table) -> None:
        """Refuse a log whose events do not replay against ``table`` (as ``nertz score``
        refuses it): checked before the service starts, so that a log of other players is
        not replayed as a round of failed events.

        Raises:
            EventLogError: an event that names a player not at the table (or a joker
                declaration at a table without jokers, a Nertz count over the pile's size),
                naming the file and line.
            NertzError: the history as a whole does not replay (a resolve of an unknown
                review item, ...), naming the file.
        """
        game = Round(table)
        for number, event in zip(self._lines, self._events):
            try:
                game.push(event)
            except EventError as exc:
                raise EventLogError(str(self.path), number, str(exc)) from None
        try:
            game.replay()
        except EventError as exc:
            raise NertzError(f"{self.path}: {exc}") from None

    def events(
        self, skip: int, clock: Callable[[], float], stop: threading.Event
    ) -> Iterator[tuple[int, dict[str, Any]]]:
        self._clock = clock
        for index in range(max(skip, 0), len(self._events)):
            event = self._events[index]
            t = event.get("t")
            if t is not None:
                while not stop.is_set():
                    wait = (float(t) - clock()) / self.speed
                    if wait <= 0:
                        break
                    stop.wait(min(wait, 0.5))
            if stop.is_set():
                return
            yield index, dict(event)

    def frame(self) -> bytes | None:
        """The video's frame at the round clock (JPEG), or ``None`` without a video."""
        if self._video is None or self._clock is None:
            return None
        return self._video.jpeg_at(self._clock())


class _VideoFrames:
    """Frames of a video file by media time, as JPEG, for a replayed round's camera view.

    Reads sequentially while the clock moves forward (seeking only on a jump), keeps the last
    encoded frame, and is safe to call from several threads (the MJPEG streams).

    Frames keep the video's own size: the table's polygons are in its pixels, and the page's
    camera tab draws them and takes the clicks of its click-to-calibrate in the frame's pixels
    (frames scaled down to 960 wide put a 1280 x 720 round's regions off the frame and saved
    clicked regions at three quarters of their size).

    Raises:
        NertzError: the file cannot be opened as a video.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._cap = cv2.VideoCapture(str(path))
        if not self._cap.isOpened():
            raise NertzError(f"{path}: cannot be opened as a video")
        self.fps = self._cap.get(cv2.CAP_PROP_FPS) or 30.0
        self.frames = int(self._cap.get(cv2.CAP_PROP_FRAME_COUNT))
        self._next = 0  # index of the frame the next read() returns
        self._last: tuple[int, bytes] | None = None
        self._lock = threading.Lock()

    def jpeg_at(self, t: float) -> bytes | None:
        """The frame shown at media time ``t`` (seconds) as JPEG; the last frame after the end."""
        index = max(0, min(int(t * self.fps), self.frames - 1))
        with self._lock:
            if self._last is not None and self._last[0] == index:
                return self._last[1]
            if index < self._next or index > self._next + 30:
                self._cap.set(cv2.CAP_PROP_POS_FRAMES, index)
                self._next = index
            image = None
            while self._next <= index:
                ok, image = self._cap.read()
                self._next += 1
                if not ok:
                    return self._last[1] if self._last else None
            assert image is not None
            ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
            if not ok:  # pragma: no cover
                return None
            self._last = (index, buf.tobytes())
            return self._last[1]


_PLACEHOLDER: dict[tuple[int, int, str], bytes] = {}


def placeholder_jpeg(text: str = "no camera", width: int = 640, height: int = 360) -> bytes:
    """A dark grey JPEG frame with ``text`` in the middle (OpenCV), for a source without frames.

    Returns:
        JPEG bytes of a ``(height, width, 3)`` image (cached per size and text).
    """
    key = (width, height, text)
    if key not in _PLACEHOLDER:
        img = np.full((height, width, 3), 40, np.uint8)
        font, scale, thick = cv2.FONT_HERSHEY_SIMPLEX, 1.4, 2
        (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
        cv2.putText(img, text, ((width - tw) // 2, (height + th) // 2), font, scale, (200, 200, 200), thick, cv2.LINE_AA)
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 80])
        if not ok:  # pragma: no cover - OpenCV always encodes a plain image
            raise RuntimeError("OpenCV could not encode the placeholder frame")
        _PLACEHOLDER[key] = buf.tobytes()
    return _PLACEHOLDER[key]
