"""Request and response models of the referee service (pydantic; they make the OpenAPI schema).

Request bodies are strict (unknown keys refused, bounded strings and numbers) so that bad input
is a 422 with the field named, never a 500. Events in the contract format are validated a
second time by the rules engine (:func:`nertz.referee.events.parse_event`), which is the
authority on their meaning.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

from nertz.referee.events import MAX_PILE, MAX_T
from nertz.referee.jsonvalues import FiniteNumber, WholeNumber
from nertz.referee.reconcile import Suspect

CARD_PATTERN = r"^([A2-9TJQK][SHDC]|JK)$"
REAL_CARD_PATTERN = r"^[A2-9TJQK][SHDC]$"
HEX_PATTERN = r"^#[0-9a-fA-F]{6}$"

Name = Annotated[str, Field(min_length=1, max_length=40, description="a player's (or partner's) name")]
CardText = Annotated[str, Field(pattern=CARD_PATTERN, description="card notation, e.g. '7S', 'TH', 'JK'")]
RealCard = Annotated[str, Field(pattern=REAL_CARD_PATTERN, description="a real card, e.g. '5H'")]
# JSON types as the event log reader checks them (nertz.referee.jsonvalues): "1" and true are
# no pile number, NaN no time
Seconds = Annotated[FiniteNumber, Field(ge=0, le=MAX_T, description="seconds from the start of the round's source")]
PileNo = Annotated[WholeNumber, Field(ge=0, le=MAX_PILE, description="a foundation's number")]
Confidence = Annotated[FiniteNumber, Field(ge=0, le=1, description="the play's confidence, 0..1")]
NertzCount = Annotated[WholeNumber, Field(ge=0, le=13, description="cards left in a Nertz pile")]


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class PlayIn(_In):
    """A card put on a foundation (``t`` omitted: now, by the round clock)."""

    type: Literal["play"]
    t: Seconds | None = None
    player: Name
    card: CardText
    pile: PileNo
    confidence: Confidence = 1.0
    as_: RealCard | None = Field(None, alias="as")


class CallIn(_In):
    """A player calls "Nertz!" (``t`` omitted: now)."""

    type: Literal["call"]
    t: Seconds | None = None
    player: Name


class NertzLeftIn(_In):
    """A player's Nertz pile count."""

    type: Literal["nertz_left"]
    t: Seconds | None = None
    player: Name
    count: NertzCount


class RoundEndIn(_In):
    """The round ends with no caller."""

    type: Literal["round_end"]
    t: Seconds | None = None
    reason: Literal["stuck", "ended"] = "stuck"


class TakeBackIn(_In):
    """A card lifted out of the shared area."""

    type: Literal["take_back"]
    t: Seconds | None = None
    player: Name
    card: CardText
    pile: PileNo


class DeclareIn(_In):
    """A joker's identity, declared after it was played."""

    type: Literal["declare"]
    t: Seconds | None = None
    pile: PileNo
    as_: RealCard = Field(alias="as")
    player: Name | None = None


class ResolveIn(_In):
    """A person's answer to one of the rules engine's review items (``tie:..``, ``joker:..``)."""

    type: Literal["resolve"]
    t: Seconds | None = None
    id: str = Field(min_length=1, max_length=100)
    winner: Name | None = None
    as_: RealCard | None = Field(None, alias="as")


class StuckIn(_In):
    """Everyone was stuck and turned the waste over (information only)."""

    type: Literal["stuck"]
    t: Seconds | None = None


EventIn = Annotated[
    Union[PlayIn, CallIn, NertzLeftIn, RoundEndIn, TakeBackIn, DeclareIn, ResolveIn, StuckIn],
    Field(discriminator="type"),
]
"""An input event in the contract format of ``shared/DESIGN.md``."""


class PlayerIn(_In):
    """One player named in an action."""

    player: Name


CardCount = Annotated[int, Field(ge=0, le=10_000, strict=True, description="cards")]


def nertz_left_from_zones(zones: dict[str, dict[str, int]], caller: str | None,
                          names: list[str] | None = None) -> dict[str, int] | None:
    """The Nertz counts a back count's zones give: each player's own back counted in their own
    zone (``zones``: zone name -> {back owner or ``"unknown"``: cards}, as ``nertz audit``
    gives them), for the players in ``names`` order (default: the zones' order), except
    ``caller``: a valid call means an empty Nertz pile, so what lies in the caller's zone is
    not their Nertz pile. ``None`` when no player is left."""
    order = names if names is not None else list(zones)
    return {n: zones[n].get(n, 0) for n in order if n in zones and n != caller} or None


class AuditIn(_In):
    """A back count of the round's end: face-down cards of each player's back in the shared
    area (``counts``: every player at the table, 0 for a back with no card there; a count that
    leaves a player out is a 422 naming them, so that no one's cards are lost to an omitted
    field; a partner's name counts for the partnership); optionally the Nertz cards left per
    player (``nertz_left``; left out: the round's own ``nertz_left`` events stand). The line that
    ``nertz audit --json`` prints can be posted as it is: its ``type``, ``unknown``,
    ``face_up`` and ``zones`` are accepted and kept for the record, and without
    ``nertz_left`` each player's own back counted in their own zone is their Nertz count.
    Counts are whole numbers (``1.0`` and ``"1"`` are refused); a back counted more often than
    its deck holds (52, 54 with jokers) or a Nertz count over the pile's size is a 422."""

    type: Literal["audit"] | None = None
    counts: dict[Name, CardCount] = Field(max_length=64)
    nertz_left: dict[Name, Annotated[int, Field(ge=0, le=13, strict=True)]] | None = Field(None, max_length=64)
    unknown: CardCount | None = Field(None, description="face-down cards of no registered back (record only)")
    face_up: CardCount | None = Field(None, description="face-up cards seen (record only)")
    zones: dict[Name, dict[Name, CardCount]] | None = Field(
        None, max_length=64, description="zone -> {player or 'unknown': cards} (nertz audit's zones)"
    )

    def nertz_counts(self, caller: str | None = None) -> dict[str, int] | None:
        """``nertz_left`` as given, else each player's own back in their own zone (from
        ``zones``; not for ``caller``, whose valid call means an empty Nertz pile: what lies in
        the caller's zone is not their Nertz pile), else ``None``."""
        if self.nertz_left is not None:
            return dict(self.nertz_left)
        return nertz_left_from_zones(self.zones or {}, caller)


class OwnerCountOut(BaseModel):
    """One owner's foundation cards, Nertz count and round score (points), as the count
    scores them (``players``) or as the live referee had them (``live``)."""

    foundation: int
    nertz_left: int
    score: int


class ReconciliationOut(BaseModel):
    """The current round scored by a back count, the live figures beside it."""

    type: Literal["result"] = "result"
    caller: str | None
    scored_by: Literal["audit"] = "audit"
    players: dict[str, dict[str, int]]
    live: dict[str, OwnerCountOut]
    suspects: list[Suspect]


class AuditOut(ReconciliationOut):
    """A back count recorded: the reconciliation it gives, the store entry, and how many
    counts this round has (the latest scores)."""

    seq: int
    audits: int


class PhotoCountOut(BaseModel):
    """What the photo audit counted (``nertz audit --json``'s line)."""

    counts: dict[str, int]
    unknown: int
    face_up: int
    zones: dict[str, dict[str, int]]
    nertz_left: dict[str, int] | None = Field(description="each player's own back in their own zone (None: no zones)")
    method: str
    width: int = Field(description="the photo's width, pixels")
    height: int = Field(description="the photo's height, pixels")


class PhotoAuditOut(BaseModel):
    """A photo counted: the count, and the reconciliation (recorded unless ``dry_run``)."""

    stored: bool
    seq: int | None
    audits: int | None
    count: PhotoCountOut
    result: ReconciliationOut


class AuditOwnerOut(BaseModel):
    name: str
    back: str
    audit: int = Field(description="face-down cards of this back counted in the shared area")
    live: int = Field(description="foundation cards credited by the live attribution")
    difference: int = Field(description="audit - live")
    nertz_left: int
    score: int = Field(description="round score by the count (the one that counts), points")
    live_score: int = Field(description="round score by the live attribution, points")


class AuditViewOut(BaseModel):
    """The current round's back count beside the live attribution (``GET /api/round``)."""

    seq: int
    origin: str
    wall: float = Field(description="when it was recorded, Unix seconds")
    source: str
    method: str | None
    counts: dict[str, int]
    nertz_left: dict[str, int] | None
    unknown: int | None
    face_up: int | None
    zones: dict[str, dict[str, int]] | None
    has_photo: bool
    audits: int = Field(description="counts recorded for this round (the latest scores)")
    agrees: bool
    owners: list[AuditOwnerOut]
    suspects: list[Suspect]


class ReviewAnswer(_In):
    """An answer to a review item.

    ``play:<seq>`` items: ``confirm``, ``change_owner`` (with ``player``) or ``reject``.
    ``tie:<pile>:<card>``: ``resolve`` with ``player`` (the winner). ``joker:<pile>``:
    ``resolve`` with ``as``.
    """

    action: Literal["confirm", "change_owner", "reject", "resolve"]
    player: Name | None = None
    as_: RealCard | None = Field(None, alias="as")


class CorrectionIn(_In):
    """A correction of an event of the current round, named by its ``seq``."""

    action: Literal["confirm", "change_owner", "replace", "reject"]
    player: Name | None = None
    card: CardText | None = None
    pile: PileNo | None = None
    t: Seconds | None = None
    count: NertzCount | None = None
    as_: RealCard | None = Field(None, alias="as")


Point = Annotated[list[Annotated[float, Field(ge=-1e5, le=1e5)]], Field(min_length=2, max_length=2)]
Polygon = Annotated[list[Point], Field(min_length=3, max_length=64)]


class CalibrationIn(_In):
    """New calibration: the shared area, players' zones (image pixels) and back colours."""

    shared_area: Polygon | None = None
    zones: dict[Annotated[str, Field(min_length=1, max_length=40)], Polygon] = Field(default_factory=dict, max_length=12)
    backs: dict[Annotated[str, Field(min_length=1, max_length=40)], Annotated[str, Field(pattern=HEX_PATTERN)]] = Field(
        default_factory=dict, max_length=12
    )


# -- responses --------------------------------------------------------------------------------


class PlayerOut(BaseModel):
    name: str
    back: str
    members: list[str] = []


class TableOut(BaseModel):
    players: list[PlayerOut]
    rules: dict[str, Any]
    shared_area: list[list[float]] | None = None
    zones: dict[str, list[list[float]]] = {}


class CalibrationOut(TableOut):
    """The table as calibrated, and when each user of it takes the new calibration."""

    camera_from_round: int | None = Field(
        None,
        description="the round of this match from which the camera's vision pipeline watches with the new regions "
        "and back colours: the current one when its camera run has not started yet, else the next one (a round "
        "in progress keeps the ones it started with); null without a camera or when the match is over (the "
        "next match uses them)",
    )
    message: str = Field(description="what took the calibration and when, a sentence for the page")


class PlacedOut(BaseModel):
    card: str
    owner: str
    t: float
    as_: str | None = Field(None, serialization_alias="as")


class PileOut(BaseModel):
    pile: int
    top: str | None
    suit: str | None
    complete: bool
    cards: list[PlacedOut]


class PlayerScoreOut(BaseModel):
    name: str
    back: str
    foundation: int
    nertz_left: int
    nertz_known: bool = Field(description="a Nertz pile count was reported (else nertz_left is 0 by default)")
    score: int
    called: bool
    total: int = Field(description="match total, as GET /api/match's totals: the closed rounds, and this round "
                       "once it has ended (not while it is under way); counted_rounds says how many")
    live_foundation: int | None = Field(None, description="with a back count: the live attribution's foundation cards")
    live_score: int | None = Field(None, description="with a back count: the live attribution's round score")


class StoredEventOut(BaseModel):
    seq: int
    origin: str
    event: dict[str, Any]
    corrections: list[dict[str, Any]] = []


class ReviewItemOut(BaseModel):
    id: str
    kind: Literal["low_confidence", "tie", "joker"]
    seq: int | None
    event: dict[str, Any] | None
    ruling: dict[str, Any] | None
    message: str
    has_frame: bool
    actions: list[str]


class SourceErrorOut(BaseModel):
    index: int | None = Field(description="the event's position in the source")
    t: float | None = Field(None, description="the event's time, source seconds")
    event: Any = Field(description="the event as the source reported it")
    message: str = Field(description="why it was not applied; for the source's failure, what failed")
    stopped: bool = Field(False, description="not an event: the source itself failed here and ended (a camera that "
                          "could not be reopened after its tries); index and event are null")


class RoundOut(BaseModel):
    match: int
    round: int
    closed: bool
    clock: float = Field(description="the round clock, source seconds (with a camera, its own: the time of the "
                                   "frame being watched of a video file, the camera's for a webcam or stream)")
    speed: float = Field(description="source seconds per wall-clock second (1 for a camera)")
    source: str | None
    source_ended: bool = Field(False, description="the source has ended (a video file or event log "
                               "played to its end, a camera gone: then source_errors ends with its failure, "
                               "stopped true): nothing more comes from it this round")
    source_errors: list[SourceErrorOut] = Field([], description="the latest events of the source this round that "
                                                "were not applied (an unknown player, ...), oldest first; at most 20; "
                                                "and last, the source's failure (stopped true) when it failed")
    source_error_count: int = Field(0, description="how many events of the source this round were not applied "
                                    "(the source's failure is not counted)")
    ended: str | None
    end_t: float | None
    caller: str | None
    target: int
    counted_rounds: int = Field(0, description="how many rounds the players' totals count (GET /api/match's "
                                "rounds): the closed ones, and this one once it has ended")
    players: list[PlayerScoreOut]
    piles: list[PileOut]
    events: list[StoredEventOut]
    rulings: list[dict[str, Any]]
    reviews: list[ReviewItemOut]
    result: dict[str, Any]
    audit: AuditViewOut | None = Field(None, description="the round's back count, when one was recorded")


class MatchOut(BaseModel):
    match: int
    players: list[str]
    target: int
    rounds: list[dict[str, int]] = Field(description="each counted round's scores, closed rounds first")
    current_counted: bool = Field(description="the current round has ended and is counted in rounds")
    totals: dict[str, int]
    rounds_won: dict[str, int]
    over: bool
    winner: str | None
    leaders: list[str]
    settlement: dict[str, int]


class Accepted(BaseModel):
    """What an action did."""

    ok: bool = True
    detail: dict[str, Any] = {}


class Problem(BaseModel):
    detail: Any
