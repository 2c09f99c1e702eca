"""The live referee: a match in progress, fed by a source and by people, kept in the store.

:class:`LiveReferee` owns the state the web service shows. It keeps no rules of its own:
the current round is a :class:`nertz.referee.round.Round` replayed from the round's events
(with people's corrections applied to those events first), and the match is a
:class:`nertz.referee.match.Match` of the closed rounds' results. Every input is appended to
the :class:`nertz.referee.store.EventStore` *before* it changes the state, and on start the
state is rebuilt by folding the store's entries, so a process killed at any moment comes back
exactly as it was.

The back count (issue 7, ``shared/RULES.md`` "Scoring a round"): after the round has ended
(a valid call, everyone stuck, or ended by a person) and before it is closed, a count of the
face-down cards of each back in the shared area can be recorded (:meth:`LiveReferee.record_audit`,
an ``audit`` entry of the store). From then on the round is *scored by the count*:
:func:`nertz.referee.reconcile.reconcile` of the live round (as corrected) and the latest
count gives the scores that the page, ``GET /api/round``, the match and ``round_close`` use,
with the live figures kept beside them and the live plays that may have gone to the wrong owner
listed as suspects. A second count of the same round replaces the first for scoring (the
latest counts); both stay in the store. The reconciliation is never stored: it is recomputed
from the stored inputs (events, corrections, counts), so a correction made after the count
is reflected, and a restart gives the same state.

Thread safety: one re-entrant lock guards every change; the source runs in its own thread;
listeners (the WebSocket) get each message through a callback called under the lock, so they
see the messages in the order the changes happened.
"""

from __future__ import annotations

import copy
import math
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from nertz.referee.errors import EventError, NertzError, TableError
from nertz.referee.events import ResultLine, RulingLine, parse_event
from nertz.referee.match import Match
from nertz.referee.reconcile import Reconciliation, reconcile
from nertz.referee.round import Round
from nertz.referee.store import Entry, EventStore
from nertz.referee.table import Table

from nertz.referee.service.sources import Source

__all__ = ["LiveReferee", "RoundData", "StoredEvent", "StoredAudit", "Conflict", "NotFound", "REVIEW_BELOW",
           "CORRECTION_ACTIONS", "AUDIT_SOURCES", "SOURCE_ERRORS_KEPT"]

REVIEW_BELOW = 0.9
"""Plays reported with a confidence below this go to the review queue (0..1)."""

SOURCE_ERRORS_KEPT = 20
"""How many of the current round's source errors (events that did not apply) are kept to
show, the latest ones; all are counted and printed on the console."""

CORRECTION_ACTIONS = ("confirm", "change_owner", "replace", "reject")
AUDIT_SOURCES = ("json", "photo")
"""Where a recorded back count came from: posted counts, or a photo counted by the service."""
_REPLACEABLE = {"player", "card", "pile", "t", "count", "as"}
_TIMED_BY_PEOPLE = ("play", "call", "take_back", "nertz_left", "round_end", "stuck")
"""The event types that a person's event without ``t`` gets the round clock on (now)."""


class Conflict(NertzError):
    """An action that the match's current state does not allow (HTTP 409)."""


class NotFound(NertzError):
    """An unknown review item or event (HTTP 404)."""


@dataclass
class StoredEvent:
    """An event of a round as stored: its ``seq``, who reported it, the contract event, and
    its index in the source (for source events)."""

    seq: int
    origin: str
    event: dict[str, Any]
    index: int | None = None  # position in the source, for source events


@dataclass
class StoredAudit:
    """A back count of a round as stored: its ``seq``, who recorded it, when (Unix seconds),
    and the ``audit`` entry's data (``counts``, ``nertz_left``, ``unknown``, ``face_up``,
    ``zones``, ``method``, ``source``; see :mod:`nertz.referee.store`)."""

    seq: int
    origin: str
    wall: float
    data: dict[str, Any]


@dataclass
class RoundData:
    """One round's inputs: number, when it started (Unix seconds), the clock speed, its
    events, the corrections by target ``seq``, its back counts (oldest first; the last one
    scores), and whether it was closed into the match."""

    number: int
    wall_start: float
    speed: float
    events: list[StoredEvent] = field(default_factory=list)
    corrections: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    closed: bool = False
    audits: list[StoredAudit] = field(default_factory=list)

    @property
    def audit(self) -> StoredAudit | None:
        """The back count that scores the round (the latest one), or ``None``."""
        return self.audits[-1] if self.audits else None


def _apply_corrections(ev: dict[str, Any], corrections: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The event as the corrections leave it (``None``: rejected, it did not happen).

    Applied in order: ``reject`` drops the event; ``confirm`` after a ``reject`` brings it
    back as logged (the play stands as reported: a mistaken reject undone), and otherwise
    keeps it as it stands; ``change_owner`` and ``replace`` change fields of the event as it
    stands (of the logged event after a ``reject``).
    """
    current: dict[str, Any] | None = ev
    for c in corrections:
        action = c["action"]
        if action == "reject":
            current = None
        elif action == "confirm":
            if current is None:
                current = dict(ev)
        elif action in ("change_owner", "replace"):
            current = dict(current if current is not None else ev)
            for key, value in c.get("fields", {}).items():
                current[key] = value
    return current


class LiveReferee:
    """A match in progress, restored from and written to an event store.

    Args:
        store: the append-only store (its last match is resumed, if any).
        table: the table for a new match; ignored when the store holds a match (its own
            table is resumed); required when the store is empty.
        source: where live events come from (``None``: only people post events). A source
            that takes a table (``set_table``: the camera) is given the resumed match's table,
            and each calibration (:meth:`set_table`).
        review_below: plays with a lower confidence go to the review queue.

    Raises:
        NertzError: an empty store and no table, or a store whose entries do not replay.
        TableError: the source cannot use the resumed match's table (its regions reach
            outside the camera's frames, or it has none).
    """

    def __init__(
        self,
        store: EventStore,
        table: Table | None = None,
        source: Source | None = None,
        review_below: float = REVIEW_BELOW,
    ) -> None:
        self.store = store
        self.source = source
        self.review_below = review_below
        self._lock = threading.RLock()
        self._listeners: list[Callable[[dict[str, Any]], None]] = []
        self._msg_n = 0
        self.match_no = 0
        self.table: Table | None = None
        self.rounds: list[RoundData] = []
        self._round: Round | None = None
        self._announced: list[dict[str, Any]] = []
        self._last_result: dict[str, Any] | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._source_errors: list[dict[str, Any]] = []
        self._source_error_count = 0
        self.resumed = False
        self._source_round: tuple[int, int] | None = None  # (match, round) whose source run took its table
        self._restore()
        if self.table is None:
            if table is None:
                raise NertzError("the store holds no match: a table is needed to start one")
            self._start_match(table, origin="service")
        else:
            self.resumed = True
            self._table_to_source(self.table)  # the camera watches with the match's table, as last calibrated
            self._repair()

    # -- restore -------------------------------------------------------------------------

    def _restore(self) -> None:
        entries = list(self.store.entries())
        last_start = max((e.match for e in entries if e.kind == "match_start"), default=0)
        if not last_start:
            return
        for e in entries:
            if e.match == last_start:
                self._fold(e)
        self._rebuild_round()
        self._announced = [r.to_json() for r in self._round.rulings] if self._round else []
        self._last_result = self.scored_result(self.rounds[-1]) if self._round else None

    def _repair(self) -> None:
        """Finish a step that a kill cut in two: a match started without its first round, or
        a round closed without the next one started (each half is its own transaction)."""
        if not self.rounds:
            self._start_round(1, origin="service")
        elif self.current.closed and not self.match(include_current=False).is_over:
            self._start_round(self.current.number + 1, origin="service")

    def _fold(self, e: Entry) -> None:
        d = e.data
        if e.kind == "match_start":
            self.match_no = e.match
            self.table = Table.from_dict(d["table"], source="stored table")
            self.rounds = []
        elif e.kind == "table":
            self.table = Table.from_dict(d["table"], source="stored table")
        elif e.kind == "round_start":
            self.rounds.append(RoundData(int(d["number"]), float(d["wall_start"]), float(d.get("speed", 1.0))))
        elif e.kind == "event":
            self.rounds[-1].events.append(StoredEvent(e.seq, e.origin, d["event"], d.get("index")))
        elif e.kind == "correction":
            self.rounds[-1].corrections.setdefault(int(d["target"]), []).append(d)
        elif e.kind == "round_close":
            self.rounds[-1].closed = True
        elif e.kind == "audit":
            self.rounds[-1].audits.append(StoredAudit(e.seq, e.origin, e.wall, d))

    # -- building rounds and the match ---------------------------------------------------

    def _effective(self, rd: RoundData) -> list[tuple[StoredEvent, dict[str, Any]]]:
        out = []
        for se in rd.events:
            ev = _apply_corrections(se.event, rd.corrections.get(se.seq, []))
            if ev is not None:
                out.append((se, ev))
        return out

    @property
    def source_takes_table(self) -> bool:
        """Whether the source watches with the table (the camera: ``set_table``), so that a
        calibration reaches it (:meth:`set_table`)."""
        return getattr(self.source, "set_table", None) is not None

    @property
    def lock(self) -> threading.RLock:
        """The lock that guards the state; hold it to read several things consistently."""
        return self._lock

    def effective_events(self, rd: RoundData) -> list[tuple[StoredEvent, dict[str, Any]]]:
        """A round's events as its corrections leave them (rejected ones left out)."""
        return self._effective(rd)

    def round_of(self, rd: RoundData) -> Round:
        """A round replayed from its (corrected) events."""
        return self._build(rd)

    def _build(self, rd: RoundData, extra: list[dict[str, Any]] = ()) -> Round:  # type: ignore[assignment]
        assert self.table is not None
        game = Round(self.table, [ev for _, ev in self._effective(rd)] + list(extra))
        game.replay()  # raises EventError for a history that does not replay
        return game

    def _rebuild_round(self) -> None:
        self._round = self._build(self.rounds[-1]) if self.rounds else None

    def _closed_results(self) -> list[dict[str, int]]:
        return [self.round_scores(rd) for rd in self.rounds if rd.closed]

    def _game(self, rd: RoundData) -> Round:
        """The round replayed (the cached one for the current round)."""
        return self._round if rd is self.rounds[-1] and self._round is not None else self._build(rd)

    def reconciliation(self, rd: RoundData | None = None) -> Reconciliation | None:
        """The round (default: the current one) scored by its latest back count, or ``None``
        when it has none.

        Raises:
            NertzError: a stored count that no longer fits the table (cannot happen through
                :meth:`record_audit`, which checks it first).
        """
        with self._lock:
            rd = self.current if rd is None else rd
            a = rd.audit
            if a is None:
                return None
            try:
                return reconcile(self._game(rd), a.data["counts"], a.data.get("nertz_left"))
            except ValueError as exc:
                raise NertzError(f"the back count {a.seq} of round {rd.number} does not fit: {exc}") from None

    def round_scores(self, rd: RoundData) -> dict[str, int]:
        """A round's score per owner, points: the back count's when the round has one, else
        the live attribution's."""
        with self._lock:
            rec = self.reconciliation(rd)
            if rec is not None:
                return {n: o.score for n, o in rec.owners.items()}
            return {n: s.score for n, s in self._game(rd).result.players.items()}

    def scored_result(self, rd: RoundData | None = None) -> dict[str, Any]:
        """The round's result line as scored: the live result (``ended``, ``end_t``,
        ``reviews``, ...) with, when the round has a back count, ``players`` replaced by the
        count's and the keys ``scored_by`` (``"audit"``), ``live`` (the live foundation cards
        and scores per owner), ``suspects`` and ``audit_seq`` added
        (:meth:`nertz.referee.reconcile.Reconciliation.to_json`)."""
        with self._lock:
            rd = self.current if rd is None else rd
            out = self._game(rd).result.to_json()
            rec = self.reconciliation(rd)
            if rec is not None:
                out.update(rec.to_json())
                out["audit_seq"] = rd.audit.seq  # type: ignore[union-attr]
            return out

    def match(self, include_current: bool = True) -> Match:
        """The match so far: the closed rounds, plus the current one once it has ended
        (and is not closed yet) when ``include_current``."""
        with self._lock:
            assert self.table is not None
            rounds = self._closed_results()
            rd = self.rounds[-1]
            if include_current and not rd.closed and self._round is not None and self._round.result.ended:
                rounds.append(self.round_scores(rd))
            m = Match(self.table.names, self.table.rules.target)
            for r in rounds:
                if m.is_over:
                    break
                m.add_round(r)
            return m

    # -- the clock -----------------------------------------------------------------------

    @property
    def current(self) -> RoundData:
        """The current round's data (the last one of the match)."""
        return self.rounds[-1]

    def clock(self) -> float:
        """The current round's clock: source seconds since the round started, on the clock the
        source's events are timed by. While the source watches this round on a clock of its own
        (``now()``: a camera, whose video falls behind the wall clock when the machine cannot keep
        up), that clock; else the wall-clock time since the round started, at the source's speed.
        What a person says without a time (the page's call, "stuck", the end) is stamped by it."""
        rd = self.current
        now = getattr(self.source, "now", None)
        if now is not None and self._source_round == (self.match_no, rd.number):
            t = now()
            if t is not None:
                return max(0.0, float(t))
        return max(0.0, (time.time() - rd.wall_start) * rd.speed)

    @property
    def round(self) -> Round:
        """The current round, replayed from its (corrected) events."""
        assert self._round is not None
        return self._round

    # -- listeners -----------------------------------------------------------------------

    def subscribe(self, callback: Callable[[dict[str, Any]], None]) -> Callable[[], None]:
        """Call ``callback(message)`` for every change, in order; returns an unsubscribe."""
        with self._lock:
            self._listeners.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._listeners:
                    self._listeners.remove(callback)

        return unsubscribe

    def _emit(self, message: dict[str, Any]) -> None:
        self._msg_n += 1
        message = {"n": self._msg_n, "match": self.match_no, "round": self.current.number, **message}
        for cb in list(self._listeners):
            try:
                cb(message)
            except Exception:  # a broken listener must not stop the referee
                self._listeners.remove(cb)

    def _announce_changes(self) -> None:
        """Store and emit the rulings and the score that changed with the last input."""
        assert self._round is not None
        rulings = [r.to_json() for r in self._round.rulings]
        old = Counter(_key(r) for r in self._announced)
        new = Counter(_key(r) for r in rulings)
        # A late report or a correction can change earlier rulings: withdraw what no longer holds.
        for r in self._announced:
            k = _key(r)
            if new[k] > 0:
                new[k] -= 1
                continue
            self._emit({"type": "ruling_withdrawn", "ruling": r})
        for r in rulings:
            k = _key(r)
            if old[k] > 0:
                old[k] -= 1
                continue
            self.store.append("ruling", {"ruling": r}, match=self.match_no, round=self.current.number, origin="referee")
            self._emit({"type": "ruling", "ruling": r})
        self._announced = rulings
        result = self.scored_result()
        if result != self._last_result:
            self._last_result = result
            self._emit({"type": "score", "result": result})

    # -- inputs --------------------------------------------------------------------------

    def push_event(self, event: dict[str, Any], origin: str = "api", index: int | None = None) -> dict[str, Any]:
        """Add one contract event to the current round: validated, stored, ruled, broadcast.

        A missing ``t`` is filled with the round clock: on a play, call or take-back, and on
        a Nertz count, a round end or everyone stuck reported by a person (not by the source,
        whose log is replayed as ``nertz score`` rules it). An untimed count or round end is
        ruled after every timed event, so a round ended through the API went on taking plays, and
        a count of 0 typed after one of 2 left the 2 standing at the caller's call.

        Returns:
            ``{"seq": ..., "event": the stored event}``.

        Raises:
            EventError: the event does not validate or does not replay (unknown player,
                a take-back of a card never played, an unknown review id, ...).
            Conflict: the round is closed (the match is over), or its back count would no
                longer fit (:meth:`_check_count_fits`); a person's ``stuck`` or ``round_end``
                after the round has ended (as the page's buttons, :meth:`stuck` and
                :meth:`end_round`: it would change nothing; a source's is stored, as its log
                is replayed as ``nertz score`` rules it).
        """
        with self._lock:
            rd = self.current
            if rd.closed:
                raise Conflict("the match is over: start a new match")
            ev = dict(event)
            timed = ("play", "call", "take_back") if origin.startswith("source:") else _TIMED_BY_PEOPLE
            if ev.get("t") is None and ev.get("type") in timed:
                ev["t"] = round(self.clock(), 3)
            parsed = parse_event(ev)
            if isinstance(parsed, (RulingLine, ResultLine)):
                raise EventError("ruling, review, result and audit lines are the referee's output, not events")
            ev = parsed.to_json()
            if ev.get("type") in ("stuck", "round_end") and not origin.startswith("source:"):
                # was stored with no effect from the API while the buttons answered 409
                self._refuse_if_ended()
            # a person answers an open question (a mistyped id is a 422); a source's log may
            # answer ahead of its question, as `nertz score` reads it (answers hold for the
            # whole round): refused, the log's tie stayed open and was scored otherwise
            if (ev.get("type") == "resolve" and not origin.startswith("source:")
                    and ev.get("id") not in self.round.result.reviews):
                raise EventError(f"no open review item {ev.get('id')!r} in this round")
            game = self._build(rd, [ev])
            self._check_count_fits(rd, game)
            jpeg = None
            if ev.get("type") == "play" and ev.get("confidence", 1.0) < self.review_below and self.source is not None:
                jpeg = self.source.frame()
            data: dict[str, Any] = {"event": ev}
            if index is not None:
                data["index"] = index
            entry = self.store.append("event", data, match=self.match_no, round=rd.number, origin=origin, jpeg=jpeg)
            rd.events.append(StoredEvent(entry.seq, origin, ev, index))
            self._round = game
            heard = getattr(self.source, "heard", None)
            if heard is not None and not origin.startswith("source:") and _for_source(ev, game):
                heard(ev)  # the camera counts the Nertz cards left after a call nobody gave
            self._emit({"type": "event", "seq": entry.seq, "origin": origin, "event": ev})
            self._announce_changes()
            return {"seq": entry.seq, "event": ev}

    def correct(self, target: int, action: str, fields: dict[str, Any] | None = None, origin: str = "api") -> dict[str, Any]:
        """Correct an earlier event of the current round (stored as a correction entry;
        the round is replayed with it).

        Args:
            target: the ``seq`` of the event.
            action: ``confirm`` (it was right; after a ``reject``, it stands again as
                logged), ``change_owner`` (``fields["player"]``), ``replace`` (any of
                ``player``, ``card``, ``pile``, ``t``, ``count``, ``as``), ``reject`` (it did
                not happen).

        Raises:
            NotFound: no such event in the current round.
            EventError: the corrected round does not validate.
            Conflict: the round is closed, or its back count would no longer fit
                (:meth:`_check_count_fits`).
        """
        fields = dict(fields or {})
        with self._lock:
            rd = self.current
            if rd.closed:
                raise Conflict("the round is closed: corrections apply to the current round")
            se = next((s for s in rd.events if s.seq == target), None)
            if se is None:
                raise NotFound(f"no event {target} in the current round")
            if action not in CORRECTION_ACTIONS:
                raise EventError(f"unknown correction {action!r} (one of: {', '.join(CORRECTION_ACTIONS)})")
            if action == "change_owner" and set(fields) != {"player"}:
                raise EventError("change_owner needs exactly one field: player")
            if action == "change_owner" and "player" not in se.event:
                # the player would be ignored (stored, ruled as before): say so instead
                raise EventError(f"a {se.event.get('type')} event has no player to change")
            if action == "replace":
                if not fields:
                    raise EventError("replace needs at least one field to change")
                bad = set(fields) - _REPLACEABLE
                bad |= {k for k in fields if k not in se.event and not (k == "as" and se.event.get("type") == "play")}
                if bad:
                    raise EventError(f"a {se.event.get('type')} event has no field(s) {', '.join(sorted(bad))} to correct")
            if action in ("confirm", "reject"):
                fields = {}
            corr = {"target": target, "action": action, "fields": fields}
            trial = copy.deepcopy(rd)
            trial.corrections.setdefault(target, []).append(corr)
            effective = _apply_corrections(se.event, trial.corrections[target])
            if effective is not None:
                parse_event(effective)  # a field of the wrong form is an EventError
            game = self._build(trial)
            self._check_count_fits(trial, game)
            self.store.append("correction", corr, match=self.match_no, round=rd.number, origin=origin)
            rd.corrections.setdefault(target, []).append(corr)
            self._round = game
            self._emit({"type": "correction", **corr})
            self._announce_changes()
            return corr

    def _check_count_fits(self, rd: RoundData, game: Round) -> None:
        """Refuse a change of round ``rd`` (``game``: the round as it would be) that its back
        count no longer fits: a Nertz count it gives the player whose valid call would now end
        the round (a call corrected to another caller, a call reported late). Stored, such a
        change made every ``GET /api/round`` a 422 and the store refused at start-up.

        Raises:
            Conflict: the latest back count does not reconcile with ``game``.
        """
        a = rd.audit
        if a is None:
            return
        try:
            reconcile(game, a.data["counts"], a.data.get("nertz_left"))
        except ValueError as exc:
            raise Conflict(f"refused: the round's back count (entry {a.seq}) would no longer fit ({exc}); record "
                           "a back count that fits first (without that Nertz count)") from None

    def resolve_review(self, item_id: str, action: str, *, player: str | None = None, as_: str | None = None) -> dict[str, Any]:
        """Answer a review item.

        - ``play:<seq>`` (a low-confidence play): ``confirm``, ``change_owner`` (to
          ``player``) or ``reject``;
        - ``tie:<pile>:<card>``: ``resolve`` with ``player`` the winner (a ``resolve`` event);
        - ``joker:<pile>``: ``resolve`` with ``as_`` the card it stands for.

        Raises:
            NotFound: no such open item. EventError: an answer that does not fit the item.
        """
        with self._lock:
            items = {i["id"]: i for i in self.reviews()}
            if item_id not in items:
                raise NotFound(f"no open review item {item_id!r}")
            if item_id.startswith("play:"):
                if action not in ("confirm", "change_owner", "reject"):
                    raise EventError("a play under review is answered with confirm, change_owner or reject")
                fields = {"player": player} if action == "change_owner" else {}
                if action == "change_owner" and not player:
                    raise EventError("change_owner needs the player who really played the card")
                return self.correct(int(item_id.split(":", 1)[1]), action, fields, origin="review")
            if action not in ("resolve", "confirm"):
                raise EventError(f"{item_id} is answered with action 'resolve'")
            ev: dict[str, Any] = {"type": "resolve", "id": item_id}
            if item_id.startswith("tie:"):
                if not player:
                    raise EventError("a tie is resolved by naming the player whose card stays")
                ev["winner"] = player
            else:
                if not as_:
                    raise EventError("a joker is resolved by naming the card it stands for ('as')")
                ev["as"] = as_
            return self.push_event(ev, origin="review")

    def reviews(self) -> list[dict[str, Any]]:
        """The open review items of the current round: low-confidence plays not yet
        answered, and the rules engine's open items (strict ties, undeclared jokers)."""
        with self._lock:
            rd = self.current
            game = self.round
            out: list[dict[str, Any]] = []
            for se in rd.events:
                ev = se.event
                if ev.get("type") != "play" or ev.get("confidence", 1.0) >= self.review_below:
                    continue
                if rd.corrections.get(se.seq):
                    continue
                ruling = next(
                    (
                        r.to_json()
                        for r in game.rulings
                        if r.kind in ("accepted", "rejected")
                        and r.t == ev["t"]
                        and r.card == ev["card"]
                        and r.pile == ev["pile"]
                        and r.player == self.table.owner_of(ev["player"])  # type: ignore[union-attr]
                    ),
                    None,
                )
                out.append(
                    {
                        "id": f"play:{se.seq}",
                        "kind": "low_confidence",
                        "seq": se.seq,
                        "event": ev,
                        "ruling": ruling,
                        "message": f"{ev['player']}'s {ev['card']} on pile {ev['pile']} was seen with confidence "
                        f"{ev.get('confidence', 1.0):.2f}: is it right?",
                        "has_frame": self.store.frame(se.seq) is not None,
                        "actions": ["confirm", "change_owner", "reject"],
                    }
                )
            for rid in game.result.reviews:
                ruling = next((r.to_json() for r in game.rulings if r.id == rid), None)
                out.append(
                    {
                        "id": rid,
                        "kind": "tie" if rid.startswith("tie:") else "joker",
                        "seq": None,
                        "event": None,
                        "ruling": ruling,
                        "message": (ruling or {}).get("message", rid),
                        "has_frame": False,
                        "actions": ["resolve"],
                    }
                )
            return out

    def stuck(self, origin: str = "button") -> dict[str, Any]:
        """Everyone is stuck: the first time in a round a ``stuck`` event (everyone turns
        the waste over, play resumes); the second time the round ends with no caller.

        Raises:
            Conflict: the round has already ended.
        """
        with self._lock:
            self._refuse_if_ended()
            already = any(se.event.get("type") == "stuck" for se in self.current.events)
            if already:
                return self.push_event({"type": "round_end", "reason": "stuck", "t": round(self.clock(), 3)}, origin)
            return self.push_event({"type": "stuck", "t": round(self.clock(), 3)}, origin)

    def _refuse_if_ended(self) -> None:
        """Raise :class:`Conflict` when the current round has already ended (by a call,
        everyone stuck, or a person)."""
        res = self.round.result
        if res.ended is not None:
            how = {"call": f"{res.caller} called Nertz" if res.caller else "a player called Nertz",
                   "stuck": "everyone was stuck"}.get(res.ended, "it was ended with no caller")
            raise Conflict(f"the round has already ended ({how}): record the back count or start the next round")

    def end_round(self, origin: str = "button") -> dict[str, Any]:
        """End the round with no caller (a person decided).

        Raises:
            Conflict: the round has already ended (by a call, everyone stuck, or a person).
        """
        with self._lock:
            self._refuse_if_ended()
            return self.push_event({"type": "round_end", "reason": "ended", "t": round(self.clock(), 3)}, origin)

    def next_round(self, origin: str = "button") -> dict[str, Any]:
        """Close the current (ended) round into the match and start the next one, unless the
        match is now over.

        Raises:
            Conflict: the round has not ended, or it is already closed.
        """
        with self._lock:
            rd = self.current
            if rd.closed:
                raise Conflict("the match is over: start a new match")
            result = self.round.result
            if result.ended is None:
                raise Conflict("the round has not ended: call Nertz, declare everyone stuck or end it first")
            self._stop_source()
            scored = self.scored_result(rd)
            self.store.append("round_close", {"result": scored}, match=self.match_no, round=rd.number, origin=origin)
            rd.closed = True
            m = self.match(include_current=False)
            self._emit({"type": "round_close", "result": scored, "over": m.is_over, "winner": m.winner})
            if not m.is_over:
                self._start_round(rd.number + 1, origin)
            return {"closed": rd.number, "over": m.is_over, "winner": m.winner, "round": self.current.number}

    def record_audit(
        self,
        counts: dict[str, int],
        nertz_left: dict[str, int] | None = None,
        *,
        unknown: int | None = None,
        face_up: int | None = None,
        zones: dict[str, dict[str, int]] | None = None,
        method: str | None = None,
        source: str = "json",
        jpeg: bytes | None = None,
        origin: str = "api",
        expect: tuple[int, int] | None = None,
    ) -> dict[str, Any]:
        """Record the back count of the current round's end; from now on it scores the round.

        Args:
            counts: face-down cards per back in the shared area, keyed by player (or partner)
                name; every player must be there (0 for a back with no card in the shared
                area): one left out is refused rather than scored 0. Partners' counts are added.
            nertz_left: Nertz cards left per player, or ``None`` to keep the round's own
                ``nertz_left`` events (an owner left out keeps them too).
            unknown, face_up, zones, method: the photo audit's other figures, kept for the
                record (``nertz audit --json``'s ``unknown``, ``face_up``, ``zones``, and how it
                counted).
            source: one of :data:`AUDIT_SOURCES`.
            jpeg: the photo, kept as the entry's frame.
            origin: who recorded it (``"api"``, ``"photo"``, ``"button"``).
            expect: ``(match, round)`` the count was taken for; refused if the current round
                is another one by now (a photo counted while the round moved on).

        Returns:
            ``{"seq": the audit entry, "audits": counts recorded for this round, **the
            reconciliation's JSON}``.

        Raises:
            EventError (checked first): an unknown name, a negative count, more cards of one
                back (in the shared area and the Nertz pile together) than its deck holds (52,
                54 with jokers), a Nertz count over the pile's size or above 0 for the valid
                caller, a value that is not a whole number, or ``counts`` leaving a player out.
            Conflict: the round has not ended, is closed, or is not the expected one.
        """
        with self._lock:
            assert self.table is not None
            rd = self.current
            if expect is not None and expect != (self.match_no, rd.number):
                raise Conflict(f"the count was taken for match {expect[0]} round {expect[1]}, "
                               f"but the current one is match {self.match_no} round {rd.number}")
            if source not in AUDIT_SOURCES:
                raise EventError(f"unknown audit source {source!r} (one of: {', '.join(AUDIT_SOURCES)})")
            counts, left, rec = self._checked_audit(counts, nertz_left)
            if rd.closed:
                raise Conflict("the round is closed: a back count settles the current round before it is closed")
            if self.round.result.ended is None:
                raise Conflict("the round has not ended: the back count is taken after the call "
                               "(or after everyone was stuck, or the round was ended)")
            data: dict[str, Any] = {
                "counts": counts,
                "nertz_left": left,
                "unknown": None if unknown is None else int(unknown),
                "face_up": None if face_up is None else int(face_up),
                "zones": zones,
                "method": method,
                "source": source,
            }
            entry = self.store.append("audit", data, match=self.match_no, round=rd.number, origin=origin, jpeg=jpeg)
            rd.audits.append(StoredAudit(entry.seq, origin, entry.wall, data))
            result = self.scored_result(rd)
            self._emit({"type": "audit", "seq": entry.seq, "origin": origin, "audit": data, "result": result})
            self._last_result = result
            self._emit({"type": "score", "result": result})
            return {"seq": entry.seq, "audits": len(rd.audits), **rec.to_json()}

    def preview_audit(self, counts: dict[str, int], nertz_left: dict[str, int] | None = None) -> dict[str, Any]:
        """What a back count would say of the current round, in any state, nothing stored:
        the reconciliation's JSON (:meth:`nertz.referee.reconcile.Reconciliation.to_json`).

        Raises:
            EventError: the values :meth:`record_audit` refuses.
        """
        with self._lock:
            return self._checked_audit(counts, nertz_left)[2].to_json()

    def _checked_audit(
        self, counts: dict[str, int], nertz_left: dict[str, int] | None
    ) -> tuple[dict[str, int], dict[str, int] | None, Reconciliation]:
        """The count's values checked and the current round reconciled with them.

        Raises:
            EventError: see :meth:`record_audit`.
        """
        assert self.table is not None
        counts = _whole_numbers(counts, "back count")
        left = None if nertz_left is None else _whole_numbers(nertz_left, "Nertz count")
        deck = 52 + (2 if self.table.rules.jokers else 0)
        per_owner: dict[str, int] = {}
        for name, n in counts.items():
            owner = self.table.owner_of(name)
            if owner is not None:
                per_owner[owner] = per_owner.get(owner, 0) + n
        per_counted = set(per_owner)  # the owners the count names (a partner's name counts for the partnership)
        for name, n in (left or {}).items():
            if n > self.table.rules.nertz_pile:
                raise EventError(f"Nertz count of {n} for {name!r}: the Nertz pile holds {self.table.rules.nertz_pile}")
            owner = self.table.owner_of(name)
            if owner is not None:
                per_owner[owner] = per_owner.get(owner, 0) + n
        for owner, n in per_owner.items():
            if n > deck:
                raise EventError(f"{n} cards counted for {owner} (foundations and Nertz pile), whose deck holds {deck}")
        try:
            rec = reconcile(self.round, counts, left)
        except ValueError as exc:
            raise EventError(str(exc)) from None
        # after the checks above, so that a misspelt name is reported as such
        missing = [owner for owner in self.table.names if owner not in per_counted]
        if missing:
            raise EventError(f"the back count leaves out {', '.join(missing)}: give every player's count, "
                             "0 for a back with no card in the shared area (one left out is not scored as 0)")
        return counts, left, rec

    def new_match(self, origin: str = "button") -> dict[str, Any]:
        """Start a new match at the same table (the old one stays in the store)."""
        with self._lock:
            self._stop_source()
            assert self.table is not None
            self._start_match(self.table, origin)
            return {"match": self.match_no, "round": self.current.number}

    def set_table(self, table: Table, origin: str = "calibration") -> int | None:
        """Replace the table's calibration (regions, back colours). The players and the rules
        must stay as they are (they are the match's). The service's own uses (the back count
        of a photo, the page) take it at once; a source that takes a table (the camera's
        vision pipeline, ``set_table``) gets it too, and watches with it from its next run:
        from the current round when its run of this round has not started yet, else from the
        next round (the run in progress placed the round's cards by the old regions and back
        colours; changing them mid-round would lose them).

        Returns:
            The number of the round of this match from which the source watches with the new
            table; ``None`` without a source that takes a table, or when the match is over
            (the next match uses it).

        Raises:
            Conflict: the players or the rules differ.
            TableError: the source cannot use it (a region reaching outside the camera's
                frames); without a source that takes a table, a region reaching outside the
                frames the table names (its ``calibration.frame_size``), as far as the camera
                would refuse it (:func:`nertz.vision.sources.calibrated_misfit`). Nothing is
                stored or changed then.
        """
        with self._lock:
            assert self.table is not None
            if table.names != self.table.names or table.rules != self.table.rules:
                raise Conflict("calibration may change regions and back colours, not the players or the rules")
            if not self.source_takes_table:
                # no camera to ask: the table's own frames bound its regions the same way
                # (before, anything was stored without a camera, 3000 px out of a 1280x720 table)
                from nertz.vision.sources import calibrated_misfit

                misfit = calibrated_misfit(table)
                if misfit:
                    raise TableError(f"this table cannot use these regions: {misfit}")
            old = self.table
            takes = self._table_to_source(table)
            try:
                self.store.append("table", {"table": table.to_dict()}, match=self.match_no, round=0, origin=origin)
            except BaseException:
                self._table_to_source(old)
                raise
            self.table = table
            self._rebuild_round()
            self._emit({"type": "table", "table": table.to_dict()})
            rd = self.current
            if not takes or rd.closed:
                return None
            return rd.number + 1 if self._source_round == (self.match_no, rd.number) else rd.number

    def _table_to_source(self, table: Table) -> bool:
        """Give ``table`` to the source when it takes one (``set_table``); whether it does.

        Raises:
            TableError: the source refuses it (its ``ValueError``).
        """
        if not self.source_takes_table:
            return False
        try:
            self.source.set_table(table)  # type: ignore[union-attr]
        except ValueError as exc:
            raise TableError(f"the camera cannot use this table: {exc}") from None
        return True

    def _start_match(self, table: Table, origin: str) -> None:
        self.match_no += 1
        existing = max((e.match for e in self.store.entries() if e.kind == "match_start"), default=0)
        self.match_no = max(self.match_no, existing + 1)
        self.store.append("match_start", {"table": table.to_dict()}, match=self.match_no, round=0, origin=origin)
        self.table = table
        self.rounds = []
        self._start_round(1, origin)
        self._emit({"type": "match_start", "table": table.to_dict()})

    def _start_round(self, number: int, origin: str) -> None:
        speed = self.source.speed if self.source is not None else 1.0
        wall = time.time()
        self.store.append(
            "round_start", {"number": number, "wall_start": wall, "speed": speed}, match=self.match_no, round=number, origin=origin
        )
        self.rounds.append(RoundData(number, wall, speed))
        self._rebuild_round()
        self._source_errors, self._source_error_count = [], 0
        self._announced = []
        self._last_result = self.scored_result()
        self._emit({"type": "round_start", "wall_start": wall, "speed": speed})
        if self._running:
            self._start_source()

    # -- the source thread ---------------------------------------------------------------

    _running = False
    _source_ended: tuple[int, int] | None = None  # (match, round) whose source has ended

    def start(self) -> None:
        """Start feeding the current round from the source (no-op without one)."""
        with self._lock:
            self._running = True
            self._start_source()

    def stop(self) -> None:
        """Stop the source thread (the state stays in the store)."""
        with self._lock:
            self._running = False
        self._stop_source(join=True)

    def _start_source(self) -> None:
        if self.source is None or self.current.closed:
            return
        self._stop_source()
        stop = threading.Event()
        self._stop = stop
        rd = self.current
        done = [se.index for se in rd.events if se.index is not None and se.origin == f"source:{self.source.name}"]
        skip = max(done) + 1 if done else 0
        self._thread = threading.Thread(target=self._feed, args=(rd.number, skip, stop), name="nertz-source", daemon=True)
        self._thread.start()

    def _stop_source(self, join: bool = False) -> None:
        # The feeding thread checks the stop flag under the lock before each push, so a
        # thread still waiting for the lock pushes nothing after this; joining is only
        # safe without the lock held (stop()).
        self._stop.set()
        th = self._thread
        if join and th is not None and th is not threading.current_thread():
            th.join(timeout=5)
        self._thread = None

    def _feed(self, number: int, skip: int, stop: threading.Event) -> None:
        assert self.source is not None
        origin = f"source:{self.source.name}"
        new_round = getattr(self.source, "new_round", None)
        with self._lock:
            if stop.is_set() or self.current.number != number:
                return
            self._source_round = (self.match_no, number)  # this run watches with the table given so far
            if new_round is not None:  # what the page said in this round so far (a call, counts), once
                game = self.round
                new_round([se.event for se in self.current.events
                           if not se.origin.startswith("source:") and _for_source(se.event, game)])
            round_piles = getattr(self.source, "round_piles", None)
            if round_piles is not None:  # what lies on the foundations already (a run in a round under way)
                f = self.round.replay().foundations
                round_piles({n: str(p.top.card) for n, p in sorted(f.piles.items()) if p.top is not None},
                            f.new_pile_number())
        try:
            if not self._push_from_source(self.source.events(skip, self.clock, stop), number, origin, stop):
                return
            with self._lock:
                if stop.is_set() or self.current.number != number:
                    return
                self._source_ended = (self.match_no, number)
                self._emit({"type": "source_end", "source": self.source.name})
            late = getattr(self.source, "late_events", None)
            if late is None:
                return
            self._push_from_source(late(stop), number, origin, stop)  # a call after a video's end
        except NertzError as exc:  # the source itself failed (push_event's own errors are caught per event)
            self._source_failed(number, stop, str(exc))

    def _source_failed(self, number: int, stop: threading.Event, message: str) -> None:
        """The source raised instead of reporting (``SourceError``: a camera or stream that
        dropped out and could not be reopened after its tries, or that cannot be opened at a
        round's start): the round goes on without it. Its source has ended
        (:attr:`source_ended`); the failure is printed on the console as one line, kept for the
        page at the end of :attr:`source_errors` (``stopped`` true, no ``index`` or ``event``; not
        counted in :attr:`source_error_count`, which counts events) and broadcast as
        ``source_error`` (``stopped`` true) then ``source_end`` (``message``). Nothing stored
        changes. A run of a round that has since closed or changed says nothing (the next
        round's run opens the source again itself)."""
        assert self.source is not None
        with self._lock:
            if stop.is_set() or self.current.number != number or self.current.closed:
                return
            name = self.source.name
            failure = {"index": None, "t": round(self.clock(), 3), "event": None, "message": message, "stopped": True}
            self._source_errors = (self._source_errors + [failure])[-SOURCE_ERRORS_KEPT:]
            self._source_ended = (self.match_no, number)
            print(f"source stopped: {message}; round {number} goes on without the {name} (scores and corrections "
                  f"kept, the next round tries it again): to watch this round again, restart nertz serve with --source",
                  file=sys.stderr, flush=True)
            self._emit({"type": "source_error", **failure, "count": self._source_error_count})
            self._emit({"type": "source_end", "source": name, "message": message})

    def _push_from_source(self, events: Iterator[tuple[int, dict[str, Any]]], number: int, origin: str,
                          stop: threading.Event) -> bool:
        """Push the source's ``(index, event)`` pairs into round ``number`` as they come (an
        event that does not apply: :meth:`_source_error`); False once ``stop`` is set or the
        round has changed or closed (the rest is dropped), True at the events' end."""
        for index, event in events:
            with self._lock:
                if stop.is_set() or self.current.number != number or self.current.closed:
                    return False
                try:
                    self.push_event(event, origin=origin, index=index)
                except NertzError as exc:
                    self._source_error(index, event, str(exc))
        return True

    def _source_error(self, index: int, event: dict[str, Any], message: str) -> None:
        """An event of the source that did not apply (unknown player, a take-back of a card
        never played, ...): printed on the console, kept for the page (the latest
        :data:`SOURCE_ERRORS_KEPT` of the round) and broadcast as ``source_error``."""
        assert self.source is not None
        t = event.get("t") if isinstance(event, dict) else None
        ok_t = isinstance(t, (int, float)) and not isinstance(t, bool) and math.isfinite(t)
        error = {"index": index, "t": float(t) if ok_t else None, "event": event, "message": message}
        self._source_error_count += 1
        self._source_errors = (self._source_errors + [error])[-SOURCE_ERRORS_KEPT:]
        print(f"source error: {self.source.name} event {index} (round {self.current.number}) not applied: {message}",
              file=sys.stderr, flush=True)
        self._emit({"type": "source_error", **error, "count": self._source_error_count})

    @property
    def source_errors(self) -> list[dict[str, Any]]:
        """The current round's latest source events that did not apply (at most
        :data:`SOURCE_ERRORS_KEPT`, oldest first): each ``{"index": position in the source,
        "t": the event's time (source seconds) or None, "event": the event as reported,
        "message": why it was refused}``; when the source itself failed (a camera that could
        not be reopened: :meth:`_source_failed`), last ``{"index": None, "t": the round clock
        then, "event": None, "message": what failed, "stopped": True}``. Not stored: a restart
        starts the list afresh."""
        with self._lock:
            return [dict(e) for e in self._source_errors]

    @property
    def source_error_count(self) -> int:
        """How many source events of the current round did not apply (all of them, not only
        the kept ones)."""
        return self._source_error_count

    @property
    def source_ended(self) -> bool:
        """Whether the source has ended in the current round (a video or event log played to
        its end, a camera that could not be reopened): nothing more will come from it."""
        return self.source is not None and self._source_ended == (self.match_no, self.current.number)

    def frame(self) -> bytes | None:
        """The source's latest JPEG frame, or ``None``."""
        return self.source.frame() if self.source is not None else None


def _for_source(ev: dict[str, Any], game: Round) -> bool:
    """Whether a source hears ``ev`` (an event from the page; see ``Source``): a call only
    when it is the one that ended the round (a false call, with cards left, does not end the
    camera's watch of the play that goes on), Nertz counts always."""
    return ev.get("type") != "call" or game.result.caller == ev.get("player")


def _whole_numbers(values: dict[str, Any], what: str) -> dict[str, int]:
    """``{name: n}`` with every ``n`` a whole number of cards, 0 or more.

    Raises:
        EventError: a value that is not a whole number (a bool, a fraction, text) or negative.
    """
    if not isinstance(values, dict):
        raise EventError(f"the {what} must be an object of player: cards")
    out: dict[str, int] = {}
    for name, n in values.items():
        if isinstance(n, bool) or not isinstance(n, (int, float)) or not math.isfinite(n) or n != int(n):
            raise EventError(f"{what} for {name!r} is not a whole number of cards ({n!r})")
        if n < 0:
            raise EventError(f"{what} for {name!r} is negative ({n})")
        out[str(name)] = int(n)
    return out


def _key(r: dict[str, Any]) -> str:
    import json

    return json.dumps(r, sort_keys=True)
