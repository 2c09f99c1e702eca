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

A webcam's or stream's frames are timed on the round clock (the ``clock`` the live referee gives
:meth:`CameraSource.events`, read when the camera is opened, plus the camera's own monotonic
seconds since), a video file's by its media time. A camera opened again in a round under way
(``nertz serve`` started again: the round resumes from its store) so goes on from the round's
time, not from 0; its events follow those stored (none is skipped: unlike a file, a live camera
does not see the same round again), and the cards its fresh tracker finds on the foundations are
the round's piles as ruled so far (:meth:`CameraSource.round_piles`), not new plays.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any

import cv2

from nertz.referee.cards import Card
from nertz.referee.errors import CardError
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
        self._run_piles: tuple[dict[int, str], int] | None = None  # round_piles, for the coming run
        self._now: Callable[[], float] | None = None  # the running run's clock (now())
        self._runs = 0  # new_round() calls: a run that started before the latest one sets no clock

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
        self._runs += 1
        self._now = None  # the last run's clock is not the next one's
        for ev in events:
            self.heard(ev)

    def round_piles(self, piles: dict[int, str], next_pile: int) -> None:
        """The round's foundations as ruled so far, for the next run of :meth:`events`: ``piles``
        maps each pile number with cards to its top card (``{1: "AD"}``), ``next_pile`` is the
        number a new pile gets (``Foundations.new_pile_number``). Called by the live referee,
        under its lock, before each run (after :meth:`new_round`). A live camera's run in a round
        under way (``piles`` not empty, or ``next_pile`` above 1) names its tracker's piles by
        them (:class:`_RoundPiles`); a file's run, which sees the round from its start, and a
        round's first run ignore them."""
        self._run_piles = ({int(n): str(c) for n, c in piles.items()}, int(next_pile))

    def now(self) -> float | None:
        """The time now on the clock of the events of the run in progress (seconds), for what
        the page says without a time (a call, "stuck"): for a webcam or stream, the time a frame
        read now would carry (the round clock at its opening plus its seconds since); for a
        video file, the time of the frame being watched (the one the page shows, within a frame),
        which falls behind the round clock when the machine cannot keep up. ``None`` when no run
        watches (before the camera is opened, after its video ended)."""
        now = self._now
        return now() if now is not None else None

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
        docstring). From a file the first ``skip`` are dropped (already stored: the file is seen
        again from its start); a live camera's are numbered from ``skip`` on, timed on
        ``clock()`` (the round clock, seconds), and named by :meth:`round_piles`. The pipeline
        watches with the table :meth:`new_round` took (the table held now without one).

        Raises:
            nertz.vision.sources.SourceError: a webcam or stream dropped out and could not be
                reopened, or cannot be opened. Raised after what the camera saw: first the plays
                the pipeline still held back (a contested pair within its hold, doubtful plays)
                are yielded, each once, as at a normal end; and the Nertz counts of a call timed
                at or before the last frame, counted from what was seen up to it (each Nertz
                pile's top card, the spread frames kept if any). A call timed after the last
                frame gets no count from the camera (nothing was seen of it: the page gives the
                counts, else the round rules "no count").
        """
        from .observe import referee_observer
        from .pipeline import RefereePipeline
        from .sources import SourceError, open_source

        out: list[dict[str, Any]] = []

        def collect(m: dict[str, Any]) -> None:
            self._messages = (self._messages + [m])[-20:]
            if m.get("type") in ("play", "take_back"):
                out.append(m)

        index = 0
        table, self._run_table = (self._run_table or self.table), None
        run_piles, self._run_piles = self._run_piles, None
        run = self._runs
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

        def named(ev: dict[str, Any]) -> dict[str, Any] | None:
            ev = {k: v for k, v in ev.items() if not k.startswith("_")}
            return piles.place(ev) if piles is not None else ev

        with open_source(self.spec, realtime=True, speed=self.speed) as src:
            live = bool(getattr(src, "live", False))
            # a live camera on the round clock; a file by its media time
            offset = float(clock()) if live else 0.0
            piles = None
            if live:
                index = skip  # it sees the round anew: nothing it reports was stored before
                if run_piles is not None and (run_piles[0] or run_piles[1] > 1):
                    piles = _RoundPiles(*run_piles)
            pipe = RefereePipeline(table, referee_observer(table), stride=self.stride,
                                   fps=src.fps or 30.0, on_message=collect)
            self._pipe = pipe
            watching = [0.0]  # the time of the frame being watched
            clock_now: Callable[[], float] = (lambda: offset + src.elapsed()) if live else (lambda: watching[0])
            if run == self._runs:  # (a run of an earlier round that is still closing sets nothing)
                self._now = clock_now
            lost: SourceError | None = None  # the camera dropped out and could not be reopened
            try:
                for frame in src:
                    if stop.is_set():
                        return
                    t = frame.t + offset
                    watching[0] = t
                    hear(t)
                    pipe.step(frame.index, t, frame.image)
                    self._latest = (frame.image, t, pipe.last_look, pipe.nertz_piles.snapshot())
                    if pipe.counts_due:
                        out.extend(counted(t))
                    while out:
                        ev = named(out.pop(0))
                        if ev is None:
                            continue
                        if index >= skip:
                            yield index, ev
                        index += 1
            except SourceError as exc:  # (raised by the source's iteration, not at a yield)
                lost = exc
            finally:
                if self._now is clock_now:  # the source has ended (or the run stopped): no clock
                    self._now = None
            if stop.is_set():
                return
            # the source has ended: a call heard for a later time is now; a camera that gave up
            # saw nothing after its last frame, so a call after it is not the camera's to count
            hear(float("inf") if lost is None else pipe.stats.media_s)
            pipe.flush()  # the plays still held back (a contested pair's hold, doubtful ones)
            out.extend(counted(pipe.stats.media_s))
            for ev in filter(None, map(named, out)):
                if index >= skip:
                    yield index, ev
                index += 1
            if lost is not None:
                raise lost  # reported after what the camera saw (the live referee: source stopped)
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


class _RoundPiles:
    """The piles of a round under way, as a live camera's new run must name them: its fresh
    tracker numbers piles from 1 in the order it sees them, the round by its own numbers.

    The first card the run reports on a pile of its tracker decides which pile that is: the
    round's pile with that card on top (the card was ruled before the camera came back: not
    reported again), else the round's one pile of that suit it goes up (a card played while the
    camera was away: reported, the rules judge it), else a new pile (the round's next number).

    Args:
        piles: ``{round pile number: top card}`` (contract notation, ``"AD"``).
        next_pile: the number the round's next new pile gets.
    """

    def __init__(self, piles: dict[int, str], next_pile: int) -> None:
        self.waiting = dict(piles)  # the round's piles this run has not found yet
        self.names: dict[int, int] = {}  # tracker pile -> round pile
        self.next = next_pile

    def place(self, ev: dict[str, Any]) -> dict[str, Any] | None:
        """The event with the round's pile number; ``None`` for the report of a card that lay
        there before the run."""
        pile = ev.get("pile")
        if pile is None:
            return ev
        if pile not in self.names:
            card = str(ev.get("card", "")) if ev.get("type") == "play" else ""
            on_top = [n for n, top in sorted(self.waiting.items()) if top == card]
            if on_top:
                self.names[pile] = on_top[0]
                del self.waiting[on_top[0]]
                return None
            below = [n for n, top in sorted(self.waiting.items()) if _goes_up(card, top)]
            if len(below) == 1:
                self.names[pile] = below[0]
                del self.waiting[below[0]]
            else:
                self.names[pile] = self.next
                self.next += 1
        return {**ev, "pile": self.names[pile]}


def _goes_up(card: str, top: str) -> bool:
    """Whether ``card`` is of ``top``'s suit and of a higher rank (contract notation, read by
    :meth:`nertz.referee.cards.Card.parse`; a joker or an unreadable label never)."""
    try:
        c, t = Card.parse(card), Card.parse(top)
    except CardError:
        return False
    return c.suit is not None and c.suit == t.suit and c.rank is not None and t.rank is not None and c.rank > t.rank
