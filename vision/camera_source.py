"""The camera as an event source of the live service (``nertz serve --source VIDEO|INDEX|URL``).

:class:`CameraSource` implements the service's ``Source`` protocol
(:mod:`nertz.referee.service.sources`): in the service's source thread it reads frames
(:func:`nertz.vision.sources.open_source`, a file paced at media time), runs the referee's
vision pipeline on them (:class:`nertz.vision.pipeline.RefereePipeline`) and yields the play and
take-back events the tracker reports; the live referee rules them (and turns low-confidence
plays into review items). ``frame()`` gives the latest frame with the overlay, as JPEG, for
the page's camera view. Calls, Nertz counts and the end of the round come from the page.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import cv2

from nertz.referee.table import Table

__all__ = ["CameraSource"]


class CameraSource:
    """Frames in, contract events out, for :class:`nertz.referee.service.live.LiveReferee`.

    Args:
        spec: what ``--source`` names (webcam index, video file, stream URL, image folder).
        table: the table file (shared area and zones in image pixels are required).
        stride: look at every ``stride``-th frame.
        speed: media seconds per wall second for files (1: as filmed).

    Raises:
        ValueError: the table has no shared area, or its polygons reach outside the source's
            frames (:func:`nertz.vision.sources.table_misfit`: made for another camera or
            resolution).
        nertz.vision.sources.SourceError: the source cannot be opened.
    """

    def __init__(self, spec: Any, table: Table, stride: int = 3, speed: float = 1.0) -> None:
        from .sources import open_source, table_misfit

        if table.shared_area is None or not table.zones:
            raise ValueError("the camera needs a table file with the shared_area and the players' zones (nertz calibrate)")
        self.spec, self.table, self.stride = spec, table, stride
        self.speed = float(speed)
        self.name = "camera"
        src = open_source(spec)  # fail now, with a clear message, not in the source thread
        misfit = table_misfit(table, src.size)
        src.close()
        if misfit:
            raise ValueError(misfit)
        self._latest: tuple[Any, float, Any, dict] | None = None  # image, t, look, Nertz piles (snapshot)
        self._messages: list[dict[str, Any]] = []

    def events(self, skip: int, clock: Callable[[], float], stop: threading.Event) -> Iterator[tuple[int, dict[str, Any]]]:
        """Run the pipeline until the source ends or ``stop`` is set; yield ``(index, event)``
        for each play and take-back (the first ``skip`` are dropped: already stored)."""
        from .observe import referee_observer
        from .pipeline import RefereePipeline
        from .sources import open_source

        out: list[dict[str, Any]] = []

        def collect(m: dict[str, Any]) -> None:
            self._messages = (self._messages + [m])[-20:]
            if m.get("type") in ("play", "take_back"):
                out.append(m)

        index = 0
        with open_source(self.spec, realtime=True, speed=self.speed) as src:
            pipe = RefereePipeline(self.table, referee_observer(self.table), stride=self.stride,
                                   fps=src.fps or 30.0, on_message=collect)
            self._pipe = pipe
            for frame in src:
                if stop.is_set():
                    return
                pipe.step(frame.index, frame.t, frame.image)
                self._latest = (frame.image, frame.t, pipe.last_look, pipe.nertz_piles.snapshot())
                while out:
                    ev = out.pop(0)
                    if index >= skip:
                        yield index, {k: v for k, v in ev.items() if not k.startswith("_")}
                    index += 1

    def frame(self) -> bytes | None:
        """The latest frame with the referee's overlay, JPEG bytes (None before the first)."""
        latest = self._latest
        if latest is None:
            return None
        from .annotate import draw_overlay

        image, t, look, nertz_piles = latest
        img = draw_overlay(image, self.table, self._pipe.tracker, look, self._messages, t, nertz_piles)
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 80])
        return buf.tobytes() if ok else None
