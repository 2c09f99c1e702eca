"""Posting events in the contract format."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body

from nertz.referee.service import schemas
from nertz.referee.service.deps import Live, StateChanging

router = APIRouter(prefix="/api", tags=["events"])


@router.post(
    "/events",
    response_model=schemas.Accepted,
    dependencies=StateChanging,
    responses={401: {"model": schemas.Problem}, 403: {"model": schemas.Problem},
               409: {"model": schemas.Problem}, 422: {"model": schemas.Problem}},
)
def post_event(event: Annotated[schemas.EventIn, Body()], live: Live) -> dict:
    """Add one event to the current round (``shared/DESIGN.md``), e.g.
    ``{"type": "call", "player": "red"}``. A missing ``t`` means now, by the round clock.
    It is stored, ruled and broadcast on ``/ws``; an event that does not validate or replay
    (unknown player, take-back of a card never played, ...) is refused with 422; 409 when the
    match is over, or for a ``stuck`` or ``round_end`` after the round has ended (as the page's
    buttons, ``POST /api/round/stuck`` and ``/api/round/end``, answer). Nothing is stored then."""
    data = event.model_dump(by_alias=True, exclude_none=True)
    return {"detail": live.push_event(data, origin="api")}
