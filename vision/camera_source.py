"""The camera as an event source of the live service (``nertz serve --source VIDEO|INDEX|URL``).

:class:`CameraSource` implements the service's ``Source`` protocol
(:mod:`nertz.referee.service.sources`): in the service's source thread it reads frames
(:func:`nertz.vision.sources.open_source`, a file paced at media time), runs the referee's
vision pipeline on them (:class:`nertz.vision.pipeline.RefereePipeline`) and yields the play and
take-back events the tracker reports; the live referee rules them (and turns low-confidence
plays into review items). ``frame()`` gives the latest frame with the overlay, as JPEG, for
the page's camera view. Calls, Nertz counts and the end of the round come from the page; the
live referee passes them on (:meth:`CameraSource.heard`), and after a call the camera counts
the Nertz cards left of the players nobody gave a count for, as ``nertz referee`` does (from
each Nertz pile's top card, checked against the spread after the call), and reports them as
``nertz_left`` events once the spread's frames are in (about 8 s after the call, then the
count itself, roughly 15-25 s on 2 cores), or when the source ends; a call heard after a video
file has ended gets its counts too (:meth:`CameraSource.late_events`).

The table a run watches with is the one the source holds when the run starts: the page's
click-to-calibrate (``PUT /api/table/calibration``) and a resumed match's stored table reach it
through :meth:`CameraSource.set_table`, and the pipeline of the next run (the next round's)
uses them; a run in progress keeps its own (its tracker placed the round's cards by those
regions and back colours).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any

import cv2

from nertz.referee.table import Table

__all__ = ["CameraSource"]

_NO_REGIONS = "the camera needs a table file with the shared_area and the players' zones (nertz calibrate)"


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

    Attributes:
        table: the table the next run of :meth:`events` watches with (:meth:`set_table`).
        size: the source's ``(width, height)`` in pixels, as read when it was opened.
    """

    def __init__(self, spec: Any, table: Table, stride: int = 3, speed: float = 1.0) -> None:
        from .sources import open_source

        self.spec, self.stride = spec, stride
        self.speed = float(speed)
        self.name = "camera"
        if table.shared_area is None or not table.zones:  # before opening: the cheaper mistake first
            raise ValueError(_NO_REGIONS)
        src = open_source(spec)  # fail now, with a clear message, not in the source thread
        self.size: tuple[int, int] = tuple(src.size)  # type: ignore[assignment]
        src.close()
        self.set_table(table)
        self._run_table: Table | None = None  # the table new_round took for the coming run
        self._pipe: Any = None
        self._latest: tuple[Any, float, Any, dict] | None = None  # image, t, look, Nertz piles (snapshot)
        self._messages: list[dict[str, Any]] = []
        self._heard: queue.SimpleQueue[dict[str, Any]] = queue.SimpleQueue()
        self._ended_run: tuple[Any, ...] | None = None  # what late_events needs after a run's end

    def set_table(self, table: Table) -> None:
        """Watch with ``table`` (new regions and back colours: the page's calibration, or the
        stored table of a resumed match) from the next run of :meth:`events` on (the live
        referee starts one per round): the run in progress keeps the table it started with,
        as its tracker's cards were placed by it. Thread-safe.

        Raises:
            ValueError: the table has no shared area or no zones, or its polygons reach outside
                this source's frames (:func:`nertz.vision.sources.table_misfit`); the table
                held stays as it was.
        """
        from .sources import table_misfit

        if table.shared_area is None or not table.zones:
            raise ValueError(_NO_REGIONS)
        misfit = table_misfit(table, self.size)
        if misfit:
            raise ValueError(misfit)
        self.table = table

    def new_round(self, events: list[dict[str, Any]]) -> None:
        """A round starts (or resumes) with these events from outside the camera (the page's):
        what the next :meth:`events` run hears first (see :meth:`heard`); called by the live
        referee, under its lock, before that run starts. The run watches with the table held
        now (:meth:`set_table`), one set later goes to the run after it."""
        heard: queue.SimpleQueue[dict[str, Any]] = queue.SimpleQueue()
        self._heard = heard
        self._run_table = self.table
        for ev in events:
            self.heard(ev)

    def heard(self, event: dict[str, Any]) -> None:
        """An event of the current round that did not come from the camera (a contract event
        dict, validated by the live referee): a ``call`` is passed to the pipeline at its
        ``t`` (seconds, the round clock; at once if the camera is past it), which starts the
        Nertz count; a ``nertz_left`` is a count the camera need not make. Thread-safe."""
        if event.get("type") in ("call", "nertz_left") and event.get("player"):
            self._heard.put(dict(event))

    def events(self, skip: int, clock: Callable[[], float], stop: threading.Event) -> Iterator[tuple[int, dict[str, Any]]]:
        """Run the pipeline until the source ends or ``stop`` is set; yield ``(index, event)``
        for each play and take-back, and after a call the ``nertz_left`` counts (module
        docstring); the first ``skip`` are dropped: already stored. The pipeline watches with
        the table :meth:`new_round` took (the table held now without one)."""
        from .observe import referee_observer
        from .pipeline import RefereePipeline
        from .sources import open_source

        out: list[dict[str, Any]] = []

        def collect(m: dict[str, Any]) -> None:
            self._messages = (self._messages + [m])[-20:]
            if m.get("type") in ("play", "take_back"):
                out.append(m)

        index = 0
        table, self._run_table = (self._run_table or self.table), None
        heard = self._heard  # this run's (new_round gives the next run its own)
        calls: list[tuple[str, float]] = []
        given: set[str] = set()

        def hear(t_now: float) -> None:
            while True:
                try:
                    ev = heard.get_nowait()
                except queue.Empty:
                    break
                if ev["type"] == "nertz_left":
                    given.add(ev["player"])
                else:
                    calls.append((ev["player"], float(ev.get("t") or 0.0)))
            for call in [c for c in calls if c[1] <= t_now]:
                calls.remove(call)
                pipe.call(call[0], max(call[1], pipe.stats.media_s))

        def counted(t: float) -> list[dict[str, Any]]:
            return [{"t": round(t, 4), "type": "nertz_left", "player": name, "count": int(n)}
                    for name, n in pipe.count_nertz_left(given).items()]

        with open_source(self.spec, realtime=True, speed=self.speed) as src:
            pipe = RefereePipeline(table, referee_observer(table), stride=self.stride,
                                   fps=src.fps or 30.0, on_message=collect)
            self._pipe = pipe
            for frame in src:
                if stop.is_set():
                    return
                hear(frame.t)
                pipe.step(frame.index, frame.t, frame.image)
                self._latest = (frame.image, frame.t, pipe.last_look, pipe.nertz_piles.snapshot())
                if pipe.counts_due:
                    out.extend(counted(frame.t))
                while out:
                    ev = out.pop(0)
                    if index >= skip:
                        yield index, {k: v for k, v in ev.items() if not k.startswith("_")}
                    index += 1
            if stop.is_set():
                return
            hear(float("inf"))  # the source has ended: a call heard for a later time is now
            pipe.flush()  # the plays still held back (a contested pair's hold, doubtful ones)
            out.extend(counted(pipe.stats.media_s))
            for ev in out:
                if index >= skip:
                    yield index, {k: v for k, v in ev.items() if not k.startswith("_")}
                index += 1
            self._ended_run = (pipe, heard, given, index, skip)

    def late_events(self, stop: threading.Event, poll_s: float = 0.25) -> Iterator[tuple[int, dict[str, Any]]]:
        """After :meth:`events` has run to the source's end (a video file played out): wait,
        until ``stop`` is set, for a call heard since (the page's call after the video ended)
        and yield the ``nertz_left`` counts it needs, as :meth:`events` would have, numbered
        after that run's events. They are counted from what the run saw: each Nertz pile's top
        card up to the video's end (there are no frames after such a call, so no spread to
        check it against). Nothing when :meth:`events` did not reach the end, or once the
        counts were taken. ``poll_s``: seconds between looks at ``stop``."""
        run = self._ended_run
        if run is None:
            return
        self._ended_run = None
        pipe, heard, given, index, skip = run
        while not stop.is_set():
            try:
                ev = heard.get(timeout=poll_s)
            except queue.Empty:
                continue
            if ev["type"] == "nertz_left":
                given.add(ev["player"])
                continue
            t = max(float(ev.get("t") or 0.0), pipe.stats.media_s)
            pipe.call(ev["player"], t)
            for name, n in pipe.count_nertz_left(given).items():
                if index >= skip:
                    yield index, {"t": round(t, 4), "type": "nertz_left", "player": name, "count": int(n)}
                index += 1

    def frame(self) -> bytes | None:
        """The latest frame with the referee's overlay, JPEG bytes (None before the first):
        the regions drawn are those the pipeline watches with (the run's table)."""
        latest, pipe = self._latest, self._pipe
        if latest is None or pipe is None:
            return None
        from .annotate import draw_overlay

        image, t, look, nertz_piles = latest
        img = draw_overlay(image, pipe.table, pipe.tracker, look, self._messages, t, nertz_piles)
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 80])
        return buf.tobytes() if ok else None
