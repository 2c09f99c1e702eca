"""Events: the JSON lines that feed the referee (the contract of ``shared/DESIGN.md``).

Times ``t`` are seconds from the start of the source. Input events::

    {"t": 12.40, "type": "play", "player": "red", "card": "5H", "pile": 3, "confidence": 0.97}
    {"t": 80.10, "type": "call", "player": "red"}
    {"t": 95.00, "type": "nertz_left", "player": "blue", "count": 4}
    {"t": 60.00, "type": "round_end", "reason": "stuck"}

and, additive in this project:

- ``play`` may carry ``"as": "8H"`` for a declared joker (``"card": "JK"``);
- ``take_back`` ``{"t", "player", "card", "pile"}``: a card lifted out of the shared area;
- ``declare`` ``{"pile", "as"}``: a joker's declared identity, given after it was played;
- ``resolve`` ``{"id", "winner" | "as"}``: a person's answer to a review item;
- ``stuck`` ``{"t"}``: the whole table was stuck and turned its wastes (information only).

``ruling``, ``review``, ``result`` and ``audit`` lines are the referee's output; in an input
log they are accepted and ignored, so a log written by the simulator (which records its own
rulings) or by ``nertz referee --json`` (with ``--audit``, its back count's ``audit`` line) can
be scored as it is: by its plays and Nertz counts, not by a back count.

Each event is an immutable pydantic model; :func:`parse_event` validates one decoded line.
Values must have their JSON types (:mod:`nertz.referee.jsonvalues`): times and confidences are
finite JSON numbers (not ``"1"``, ``true``, ``NaN`` or ``Infinity``), piles and counts JSON
integers (times at most :data:`MAX_T` seconds, pile numbers at most :data:`MAX_PILE`, the
limits the service's API sets too), and cards are written in the upper-case notation (``"AS"``, not ``"as"``; ``"TH"``,
not ``"10H"``: :meth:`~nertz.referee.cards.Card.from_notation`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    TypeAdapter,
    ValidationError,
    field_validator,
)

from nertz.referee.cards import Card
from nertz.referee.errors import CardError, EventError
from nertz.referee.jsonvalues import FiniteNumber, OptionalFiniteNumber, WholeNumber

MAX_T = 1e6
"""The latest time an event may carry, seconds (11.6 days: no round is that long; a larger
``t`` is a broken log, and the live service would wait for it forever)."""
MAX_PILE = 10_000
"""The largest foundation number an event may name (a round has four foundations per player,
one per ace)."""

__all__ = [
    "MAX_T",
    "MAX_PILE",
    "Play",
    "Call",
    "NertzLeft",
    "RoundEnd",
    "TakeBack",
    "Declare",
    "Resolve",
    "Stuck",
    "RulingLine",
    "ResultLine",
    "Event",
    "parse_event",
]


def _to_card(value: Any) -> Card:
    if isinstance(value, Card):
        return value
    try:
        return Card.from_notation(value)
    except CardError as exc:
        raise ValueError(str(exc)) from None


CardField = Annotated[Card, BeforeValidator(_to_card), PlainSerializer(str, return_type=str)]
"""A card in the contract's notation (``"7S"``, upper case: :meth:`~nertz.referee.cards.Card.from_notation`),
validated into a :class:`~nertz.referee.cards.Card`."""


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore", arbitrary_types_allowed=True, populate_by_name=True)

    def to_json(self) -> dict[str, Any]:
        """The event as a JSON-ready dict in the contract format."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class Play(_Event):
    """A card put on a foundation.

    Attributes:
        t: the release time, seconds (the first frame the card is seen on the pile).
        player: who played it (an owner, or a partner's name).
        card: the physical card; ``JK`` for a joker.
        pile: the foundation's number.
        confidence: the tracker's confidence in this event, 0..1 (1 when written by hand).
        as_: a joker's declared identity (JSON key ``"as"``), or ``None``.
    """

    type: Literal["play"] = "play"
    t: FiniteNumber = Field(ge=0, le=MAX_T)
    player: str
    card: CardField
    pile: WholeNumber = Field(ge=0, le=MAX_PILE)
    confidence: FiniteNumber = Field(1.0, ge=0, le=1)
    as_: CardField | None = Field(None, alias="as")

    @field_validator("as_")
    @classmethod
    def _as_is_real(cls, v: Card | None) -> Card | None:
        if v is not None and v.is_joker:
            raise ValueError("a joker is declared as a real card, e.g. 'as': '5H'")
        return v


class Call(_Event):
    """A player calls "Nertz!" (it comes from outside the video: a key, a button, the CLI).

    Attributes:
        t: when, seconds.
        player: who called.
    """

    type: Literal["call"] = "call"
    t: FiniteNumber = Field(ge=0, le=MAX_T)
    player: str


class NertzLeft(_Event):
    """How many cards a player's Nertz pile holds, as counted at time ``t``.

    The last count of each player (by time) is the one scored; the caller's count at the
    call decides whether the call was valid. ``t`` may be omitted: the count is then taken
    as made at the end of the log.
    """

    type: Literal["nertz_left"] = "nertz_left"
    t: OptionalFiniteNumber = Field(None, ge=0, le=MAX_T)
    player: str
    count: WholeNumber = Field(ge=0, le=13)


class RoundEnd(_Event):
    """The round ends without a caller (``reason`` ``"stuck"``: everyone stuck twice;
    ``"ended"``: ended by a person). ``t`` omitted means at the end of the log."""

    type: Literal["round_end"] = "round_end"
    t: OptionalFiniteNumber = Field(None, ge=0, le=MAX_T)
    reason: Literal["stuck", "ended", "call"] = "stuck"


class TakeBack(_Event):
    """A card lifted back out of the shared area by ``player``."""

    type: Literal["take_back"] = "take_back"
    t: FiniteNumber = Field(ge=0, le=MAX_T)
    player: str
    card: CardField
    pile: WholeNumber = Field(ge=0, le=MAX_PILE)


class Declare(_Event):
    """A joker's identity declared after it was played (answers a ``declare`` ruling)."""

    type: Literal["declare"] = "declare"
    t: OptionalFiniteNumber = Field(None, ge=0, le=MAX_T)
    pile: WholeNumber = Field(ge=0, le=MAX_PILE)
    as_: CardField = Field(alias="as")
    player: str | None = None


class Resolve(_Event):
    """A person's answer to a review item, named by its ``id`` (from the ``review`` ruling).

    Attributes:
        id: the review item, e.g. ``"tie:3:5H"`` (a strict tie on pile 3) or ``"joker:4"``.
        winner: for a tie, the owner whose card stays.
        as_: for an undeclared joker, what it stands for.
    """

    type: Literal["resolve"] = "resolve"
    t: OptionalFiniteNumber = Field(None, ge=0, le=MAX_T)
    id: str = Field(min_length=1, max_length=100)
    winner: str | None = None
    as_: CardField | None = Field(None, alias="as")


class Stuck(_Event):
    """Everyone was stuck and turned their waste over (information only)."""

    type: Literal["stuck"] = "stuck"
    t: OptionalFiniteNumber = Field(None, ge=0, le=MAX_T)


class RulingLine(_Event):
    """A ruling or review line found in an input log (the referee's output; ignored when
    scoring): ``nertz referee --json`` prints a ``review`` line for each play it is unsure of."""

    model_config = ConfigDict(frozen=True, extra="allow")
    type: Literal["ruling", "review"] = "ruling"
    t: float | None = None


class ResultLine(_Event):
    """A result line, or the back count's ``audit`` line that ``nertz referee --json --audit``
    prints before it, found in an input log (ignored when scoring)."""

    model_config = ConfigDict(frozen=True, extra="allow")
    type: Literal["result", "audit"] = "result"


Event = Annotated[
    Union[Play, Call, NertzLeft, RoundEnd, TakeBack, Declare, Resolve, Stuck, RulingLine, ResultLine],
    Field(discriminator="type"),
]
"""Any event of the log, told apart by its ``type``."""

_ADAPTER: TypeAdapter[Any] = TypeAdapter(Event)
_TYPES = ("play", "call", "nertz_left", "round_end", "take_back", "declare", "resolve", "stuck", "ruling", "review",
          "result", "audit")


def parse_event(data: Any) -> Any:
    """Validate one decoded JSON line into its event model.

    Args:
        data: the decoded JSON value (a dict), or an event model (returned as is).

    Raises:
        EventError: not an object, unknown ``type``, a missing or invalid field; the
            message names the field.
    """
    if isinstance(data, _Event):
        return data
    if not isinstance(data, dict):
        raise EventError(f"an event is a JSON object, not {type(data).__name__}")
    kind = data.get("type")
    if kind not in _TYPES:
        raise EventError(f"unknown event type {kind!r} (expected one of: {', '.join(_TYPES)})")
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc = [str(x) for x in err.get("loc", ())][1:]  # drop the union tag
            where = ".".join(loc)
            msg = err.get("msg", "invalid").removeprefix("Value error, ")
            if err.get("type") == "missing":
                msg = "missing"
            problems.append(f"{where}: {msg}" if where else msg)
        raise EventError(f"invalid {kind} event: " + "; ".join(problems)) from None
