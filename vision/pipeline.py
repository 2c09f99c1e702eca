"""The referee's vision pipeline: frames -> looks -> tracker -> events -> referee.

:class:`RefereePipeline` runs one round. Every frame goes into the arrival buffer (cheap: a
half-size grey copy); every ``stride``-th frame is a *look*: the observer (the models, or the
labels of a rendered round) turns it into card sightings, and the tracker turns looks into
``play`` and ``take_back`` events. Calls come from outside the video (``--call NAME@SECONDS``)
and are pushed when media time reaches them. Each event goes to a
:class:`nertz.referee.round.Round`, whose rulings are reported as they appear; the pipeline
applies no rules itself.
"""

from __future__ import annotations

import json
import time
from collections import deque
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable

import numpy as np

from nertz.referee.round import Round
from nertz.referee.table import Table

from .arms import ArmReader
from .arrival import ArrivalTimer
from .nertz_pile import NertzPileWatch
from .observe import Observer
from .spread_count import count_spreads
from .tracker import RoundTracker, TrackerSettings

__all__ = ["RefereePipeline", "PipelineStats", "REVIEW_BELOW", "SPREAD_AFTER_S"]

REVIEW_BELOW = 0.9
"""Plays whose confidence is below this are also reported as review items (as in the service)."""

SPREAD_AFTER_S = 2.0
"""Seconds after the call from which frames are taken to show the players' spreads (the Nertz
cards left, counted by :func:`~nertz.vision.spread_count.count_spreads`): it takes the players
that long to lay them out (rendered rounds: about 3 s)."""

_TIME_EPS = 1e-6  # seconds: frame times compared with a margin (media time in milliseconds
# and index / fps differ in the last bits, which chose other frames for the spread count)
_KEEP_EVERY_S = 0.6  # full frames kept for the spread count: one every this many seconds ...
_KEEP_BEFORE = 3  # ... until the first call, the last this many (1.2 s) ...
_KEEP_AFTER = 10  # ... and from SPREAD_AFTER_S after it, the first this many (6 s). Each kept
# frame is audited once at the end (about 1-2 s each on 2 cores). Every 0.3 s instead (20
# frames after the call, until 2026-12-03) took twice as long for about the same counts on
# r9201-r9212: 24 of 36 exact, 30 within one, 64 points off; every 0.6 s 23, 30, 62.


@dataclass
class PipelineStats:
    """What a run cost.

    Attributes:
        frames: frames read. looks: frames observed. media_s: media time covered, seconds.
        wall_s: processing time, seconds. look_ms: per-look observer (and arm reading)
        times, milliseconds.
        latency_s: per event, media time between the change's first sighting and its report.
    """

    frames: int = 0
    looks: int = 0
    media_s: float = 0.0
    wall_s: float = 0.0
    look_ms: list[float] = field(default_factory=list)
    latency_s: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """Medians and ratios as a JSON-able dict."""
        med = lambda xs: round(float(np.median(xs)), 3) if xs else None  # noqa: E731
        return {"frames": self.frames, "looks": self.looks, "media_s": round(self.media_s, 2),
                "wall_s": round(self.wall_s, 2),
                "realtime_ratio": round(self.wall_s / self.media_s, 3) if self.media_s else None,
                "look_ms_median": med(self.look_ms), "event_latency_s_median": med(self.latency_s),
                "event_latency_s_max": round(max(self.latency_s), 3) if self.latency_s else None}


class RefereePipeline:
    """Referees one round from frames.

    Args:
        table: the table file (``shared_area`` and ``zones`` in frame pixels are required).
        observer: frame -> :class:`~nertz.vision.tracker.Look` (see :mod:`nertz.vision.observe`).
        stride: observe every ``stride``-th frame (1: every frame).
        fps: the source's frame rate (frames per second), for the arrival buffer.
        calls: ``(player, t)`` calls to push at media time ``t`` seconds.
        settings: tracker settings.
        on_message: called with each output line (a contract event or ruling dict) as it happens.
        nertz_left: Nertz counts known ahead (``{player: cards}``), pushed with the first call.
        read_arms: read, at every look, the player each hand over the shared area reaches back
            to (:class:`~nertz.vision.arms.ArmReader`; the hand tracks take it as the hand's
            player). 37 rendered rounds 9324-9360 with the models (1989 plays, true Nertz
            counts): plays all right 1826 -> 1843, owners wrong 39 -> 22, rounds exact 17 ->
            21, points off 56 -> 46; perfect eyes 1892 -> 1892, rounds exact 30 -> 32; fresh
            rounds 9361-9370 with the models 474 -> 474 of 521, rounds exact 2 -> 4, points off
            24 -> 20; new rounds 9371-9374 201 -> 207 of 229. It costs about 3 ms a look
            (counted in :attr:`PipelineStats.look_ms`).
        counts_from_video: when the round ends (:meth:`finish`), count the Nertz cards left
            of the players whose count nobody gave, from the video, two ways: from the changes
            of each Nertz pile's top card until 1 s after the first call
            (:class:`~nertz.vision.nertz_pile.NertzPileWatch`, :attr:`pile_counts`), and from
            the frames of the 6 s that start :data:`SPREAD_AFTER_S` after the first call, one
            every 0.6 s, which show the players' spreads
            (:func:`~nertz.vision.spread_count.count_spreads`, :attr:`spread_counts`). The
            pile's count is scored where there is one (74 counts of rendered rounds 9324-9344:
            exact 73 against the spread's 50), the spread's elsewhere (the scored ones:
            :attr:`video_counts`); where both are and differ, a ``review`` line says so. The spread count holds up to 13 full frames
            (about 36 MB at 1280 x 720) and audits each once, at the end (roughly 15-25 s on 2
            cores).

    Raises:
        ValueError: the table has no shared area, or a call names no player of the table.
    """

    def __init__(self, table: Table, observer: Observer, stride: int = 3, fps: float = 30.0,
                 calls: Iterable[tuple[str, float]] = (), settings: TrackerSettings | None = None,
                 on_message: Callable[[dict[str, Any]], None] | None = None,
                 nertz_left: dict[str, int] | None = None, counts_from_video: bool = True,
                 read_arms: bool = True) -> None:
        self.table = table
        self.nertz_left = dict(nertz_left or {})
        self.counts_from_video = counts_from_video
        self.nertz_piles = NertzPileWatch(table)
        self.pile_counts: dict[str, int] = {}
        self.spread_counts: dict[str, int] = {}
        self.video_counts: dict[str, int] = {}  # the counts from the video that were scored
        self._kept: deque[tuple[float, np.ndarray]] = deque(maxlen=_KEEP_BEFORE)  # (t, full frame) before the call
        self._spreads: list[tuple[float, np.ndarray]] = []  # (t, full frame) after it
        self._spreads_counted = False
        self._finished = False  # finish() has run: the counts from the video are in
        self._call: tuple[str, float, list[np.ndarray]] | None = None  # the first call, the frames before it
        self.observer = observer
        self.stride = max(int(stride), 1)
        self.arrival = ArrivalTimer(fps=fps)
        self.tracker = RoundTracker(table, settings, arrival=self.arrival, changed=self.arrival.changed,
                                    second_landing=self.arrival.second_landing,
                                    covered_landing=self.arrival.covered_landing,
                                    covering_landing=self.arrival.covering_landing,
                                    hands_seen=self.arrival.push_hands,
                                    pair_landing=self.arrival.pair_landing)
        self.arm_reader = ArmReader(table.zones, table.shared_area) if read_arms else None  # (a shared area: checked above)
        names = set(table.names)
        self.calls = sorted(calls, key=lambda c: c[1])
        for name, _ in self.calls:
            if name not in names:
                raise ValueError(f"--call {name}: no such player in the table file (players: {', '.join(sorted(names))})")
        self.round = Round(table)
        self.on_message = on_message or (lambda m: None)
        self.events: list[dict[str, Any]] = []
        self.reported_at: dict[int, float] = {}  # id(event) -> media time of the look that reported it
        self.stats = PipelineStats()
        self._reported: set[str] = set()
        self.last_look = None

    def _push(self, ev: dict[str, Any], report: bool = True) -> None:
        self.events.append(ev)
        if ev.get("type") == "play":
            self.nertz_piles.played(ev["player"], ev["card"], ev["t"])
        elif ev.get("type") == "take_back":
            self.nertz_piles.taken_back(ev["player"], ev["card"], ev["t"])
        self.round.push(ev)
        self.on_message(ev)
        if ev.get("type") == "play" and ev.get("confidence", 1.0) < REVIEW_BELOW:
            self.on_message({"t": ev["t"], "type": "review", "pile": ev["pile"], "card": ev["card"],
                             "player": ev["player"], "confidence": ev["confidence"],
                             "message": f"whose {ev['card']} on pile {ev['pile']}? the camera is not sure it was {ev['player']}'s"})
        if report:
            self._report_rulings()

    def _report_rulings(self) -> None:
        # a late-timed event can change earlier rulings: report every ruling not reported yet;
        # "no count" waits for the end: the counts may still come then, from the video or
        # given to finish() (an end-of-round photo's)
        for r in self.round.rulings:
            if r.kind == "no_count" and not self._finished:
                continue
            j = r.to_json()
            key = json.dumps(j, sort_keys=True)
            if key not in self._reported:
                self._reported.add(key)
                self.on_message(j)

    def _push_call(self, name: str, t: float) -> None:
        # the call and the counts known ahead are ruled together (the round's end is not
        # reported as "no count" for counts that follow at the same moment)
        self._push({"t": t, "type": "call", "player": name}, report=False)
        if self._call is None:
            self._call = (name, t, [f for _, f in self._kept])
            self._kept.clear()
            self.nertz_piles.call(t)
        self.tracker.end(t)
        for player, n in list(self.nertz_left.items()):
            self._push({"t": t, "type": "nertz_left", "player": player, "count": int(n)}, report=False)
        self.nertz_left = {}
        self._report_rulings()

    def call(self, player: str, t: float) -> None:
        """A Nertz call heard now (a key press, the page): pushed at ``t`` seconds.

        Raises:
            ValueError: no such player.
        """
        if player not in self.table.names:
            raise ValueError(f"no player {player!r} (players: {', '.join(self.table.names)})")
        self._push_call(player, round(t, 4))

    def step(self, index: int, t: float, frame: np.ndarray) -> None:
        """Feed one frame (``(H, W, 3) uint8`` BGR, frame ``index`` at ``t`` seconds)."""
        self.stats.frames += 1
        self.stats.media_s = t
        while self.calls and self.calls[0][1] <= t:
            name, tc = self.calls.pop(0)
            self._push_call(name, tc)
        self.arrival.push(index, t, frame)
        if self.counts_from_video:
            self._keep(t, frame)
        if index % self.stride:
            return
        t0 = time.perf_counter()
        look = self.observer(index, t, frame)
        if self.arm_reader is not None:
            self.arm_reader.push(frame)
            look = replace(look, hand_players=self.arm_reader.owners(look.hands))
        self.stats.look_ms.append((time.perf_counter() - t0) * 1000)
        self.stats.looks += 1
        self.last_look = look
        if self.counts_from_video:
            self.nertz_piles.push(look)  # it reads the piles until shortly after the call
        for ev in self.tracker.update(look):
            self.stats.latency_s.append(t - ev["t"])
            self._push(ev)
            self.reported_at[id(ev)] = t

    @property
    def spread_frames(self) -> int:
        """Frames of the players' spreads kept after the call and not yet counted (each is
        audited by :meth:`finish`, about 1-2 s a frame on 2 cores)."""
        if self._spreads_counted or not self.counts_from_video or self._call is None:
            return 0
        return len(self._spreads) if self._to_count(self.nertz_left) else 0

    def _to_count(self, given: dict[str, int]) -> list[str]:
        """The players (the caller aside) with a zone whose Nertz count is neither in ``given``
        nor already pushed."""
        known = set(given) | {e["player"] for e in self.events if e.get("type") == "nertz_left"}
        return [n for n in self.table.names if n != self._call[0] and n not in known and n in self.table.zones]

    def _keep(self, t: float, frame: np.ndarray) -> None:
        """Keep a copy of ``frame`` for the spread count: one every ``_KEEP_EVERY_S``, the last
        ``_KEEP_BEFORE`` until the first call, then the first ``_KEEP_AFTER`` from
        :data:`SPREAD_AFTER_S` after it."""
        every = _KEEP_EVERY_S - _TIME_EPS  # 18 frames at 30 fps, whether t is index / fps or the decoder's
        if self._call is None:
            if not self._kept or t - self._kept[-1][0] >= every:
                self._kept.append((t, frame.copy()))
        elif (not self._spreads_counted and t >= self._call[1] + SPREAD_AFTER_S - _TIME_EPS
              and len(self._spreads) < _KEEP_AFTER and (not self._spreads or t - self._spreads[-1][0] >= every)):
            self._spreads.append((t, frame.copy()))

    def run(self, frames: Iterable[tuple[int, float, np.ndarray]]) -> dict[str, Any]:
        """Feed all ``(index, t, frame)`` of a source, then end the round; returns the result
        line (the contract's ``{"type": "result", ...}``)."""
        t0 = time.perf_counter()
        for index, t, frame in frames:
            self.step(index, t, frame)
        self.stats.wall_s = time.perf_counter() - t0
        return self.finish()

    def finish(self, nertz_left: dict[str, int] | None = None) -> dict[str, Any]:
        """End the round: push the remaining calls, the Nertz counts (``{player: cards}``) if
        known, else those counted from the video (``counts_from_video``), and return the
        result line. Calling it again pushes only what is new (for
        instance the counts an end-of-round audit found)."""
        self.end_source()
        end_t = round(max([self.stats.media_s] + [e["t"] for e in self.events]), 4)  # (as every event's t)
        given = {**self.nertz_left, **(nertz_left or {})}
        for name, n in self._counted_from_video(given, end_t).items():
            given[name] = n
        for name, n in given.items():
            self._push({"t": end_t, "type": "nertz_left", "player": name, "count": int(n)}, report=False)
        self.nertz_left = {}
        self._finished = True
        self._report_rulings()
        return self.round.result.to_json()

    def end_source(self) -> None:
        """The source has ended: :meth:`flush`, then push the calls timed after its end, so
        that :attr:`round` knows its caller before :meth:`finish` is given the Nertz counts
        (``finish`` does this first; doing it twice pushes nothing new)."""
        self.flush()
        for name, tc in self.calls:
            self._push_call(name, tc)
        self.calls = []

    def flush(self) -> None:
        """The source has ended: report the plays the tracker still holds back (contested
        pairs whose hold has not passed, doubtful plays), as :meth:`finish` does first."""
        for ev in self.tracker.flush():
            self._push(ev)

    def skip_spreads(self) -> None:
        """Leave the spreads kept after the call uncounted (an interrupted run): the Nertz counts
        from the video are then the piles' alone."""
        self._spreads.clear()

    @property
    def counts_due(self) -> bool:
        """True once the frames the Nertz counts need are in and the counts are not yet taken:
        the media time has reached the end of the spread's window after the first call
        (:data:`SPREAD_AFTER_S` plus 6 s), with ``counts_from_video``. A live source, which
        has no end, counts then (:meth:`count_nertz_left`)."""
        if not self.counts_from_video or self._call is None or self._spreads_counted:
            return False
        window_end = self._call[1] + SPREAD_AFTER_S + _KEEP_AFTER * _KEEP_EVERY_S
        return len(self._spreads) >= _KEEP_AFTER or self.stats.media_s >= window_end - _TIME_EPS

    def count_nertz_left(self, given: Iterable[str] = ()) -> dict[str, int]:
        """The Nertz cards left (``{player: cards}``), counted from the video as :meth:`finish`
        counts them (see ``counts_from_video``), of the players other than the caller whose
        count is neither in ``given`` (names) nor already pushed; for a live source (the
        service's camera), which cannot wait for the end. Pushes nothing (the counts are the
        caller's to push). Counts once: empty before the first call and after the counts
        were taken (here or by :meth:`finish`). Auditing the kept spread frames takes roughly
        15-25 s on 2 cores."""
        return self._counted_from_video({name: 0 for name in given}, self.stats.media_s)

    def _counted_from_video(self, given: dict[str, int], end_t: float) -> dict[str, int]:
        """The Nertz cards left of the players (the caller aside) whose count is neither in
        ``given`` nor already pushed, from the video (see ``counts_from_video``): the pile's
        count where there is one, else the spread's; empty when there is nothing to count. A
        player whose two counts differ gets a ``review`` line (at ``end_t``)."""
        if not self.counts_from_video or self._call is None or self._spreads_counted:
            return {}
        todo = self._to_count(given)
        if not todo:
            return {}
        piles = self.nertz_piles.counts()
        self.pile_counts = {n: piles[n] for n in todo if n in piles}
        _, _, before = self._call
        after = [f for _, f in self._spreads]
        spreads = count_spreads(before, after, self.table) if after else {}
        self.spread_counts = {n: spreads[n] for n in todo if n in spreads}
        self._spreads.clear()  # counted once
        self._spreads_counted = True
        counts = {**self.spread_counts, **self.pile_counts}
        for n in todo:
            a, b = self.pile_counts.get(n), self.spread_counts.get(n)
            if a is not None and b is not None and a != b:
                self.on_message({"t": end_t, "type": "review", "player": n,
                                 "message": f"{n}'s Nertz cards left: {a} from the changes of the pile's top card "
                                            f"(scored), {b} counted in the spread after the call; "
                                            f"--nertz-left {n}=N gives the count instead"})
        self.video_counts = {n: counts[n] for n in todo if n in counts}
        return dict(self.video_counts)
