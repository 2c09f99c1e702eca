"""Event sources for the live referee: something that reports contract events in real time
and, optionally, the latest camera frame (JPEG) for the video stream.

The camera pipeline (``nertz.vision``) will plug in here as another :class:`Source`; today
the service ships :class:`LogReplaySource`, which replays an event log in real time (the
bundled sample round when ``nertz serve`` gets no ``--source``).

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

from nertz.referee.events import ResultLine, RulingLine
from nertz.referee.files import read_event_log

__all__ = ["Source", "LogReplaySource", "placeholder_jpeg"]


@runtime_checkable
class Source(Protocol):
    """What the live referee needs from a source of events.

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

    def __init__(self, path: str | Path, speed: float = 1.0) -> None:
        if not speed > 0:
            raise ValueError(f"replay speed must be positive, got {speed}")
        self.path = Path(path)
        self.speed = float(speed)
        self.name = "log-replay"
        self._events = [
            ev.to_json() for _, ev in read_event_log(self.path) if not isinstance(ev, (RulingLine, ResultLine))
        ]

    def __len__(self) -> int:
        return len(self._events)

    @property
    def contract_events(self) -> list[dict[str, Any]]:
        """The log's events (ruling and result lines left out), in file order."""
        return [dict(e) for e in self._events]

    def events(
        self, skip: int, clock: Callable[[], float], stop: threading.Event
    ) -> Iterator[tuple[int, dict[str, Any]]]:
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
        return None


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
