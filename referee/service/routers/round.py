"""The current round: its state, and the actions for what the camera cannot see."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from nertz.referee.errors import NertzError
from nertz.referee.reconcile import reconcile
from nertz.referee.service import schemas
from nertz.referee.service.deps import Live, TokenChecked
from nertz.referee.service.views import round_view

router = APIRouter(prefix="/api/round", tags=["round"])

_ERRORS = {401: {"model": schemas.Problem}, 409: {"model": schemas.Problem}, 422: {"model": schemas.Problem}}


@router.get("", response_model=schemas.RoundOut)
def get_round(live: Live) -> dict:
    """The current round: per-player scores (and match totals), the foundations with the
    owner of every card, the events, the rulings and the open review items."""
    return round_view(live)


@router.post("/audit", response_model=schemas.ReconciliationOut, responses={422: {"model": schemas.Problem}})
def audit(body: schemas.AuditIn, live: Live) -> dict:
    """Compare a back count of the round's end (``nertz audit --json`` counts the backs in a
    photo) with the live attribution of the current round: the round scored by the count (the
    rules define ownership by the back), the live figures beside it, and the live plays that
    may have gone to the wrong owner. Nothing is stored and the match is not changed: this
    answers what the count says."""
    with live.lock:
        try:
            rec = reconcile(live.round, body.counts, body.nertz_left)
        except ValueError as exc:
            raise NertzError(str(exc)) from None
    return rec.to_json()


@router.post("/call", response_model=schemas.Accepted, dependencies=TokenChecked, responses=_ERRORS)
def call(body: schemas.PlayerIn, live: Live) -> dict:
    """A player calls "Nertz!" now (by the round clock). A valid call ends the round."""
    return {"detail": live.push_event({"type": "call", "player": body.player}, origin="button")}


@router.post("/stuck", response_model=schemas.Accepted, dependencies=TokenChecked, responses=_ERRORS)
def stuck(live: Live) -> dict:
    """Everyone is stuck: the first time everyone turns the waste over; the second time in
    the same round the round ends with no caller."""
    return {"detail": live.stuck()}


@router.post("/end", response_model=schemas.Accepted, dependencies=TokenChecked, responses=_ERRORS)
def end(live: Live) -> dict:
    """End the round now with no caller."""
    return {"detail": live.end_round()}


@router.post("/next", response_model=schemas.Accepted, dependencies=TokenChecked, responses=_ERRORS)
def next_round(live: Live) -> dict:
    """Close the ended round into the match and start the next (unless the match is over)."""
    return {"detail": live.next_round()}


@router.post(
    "/events/{seq}/correct",
    response_model=schemas.Accepted,
    dependencies=TokenChecked,
    responses={**_ERRORS, 404: {"model": schemas.Problem}},
)
def correct(seq: Annotated[int, Path(ge=1, le=2**53)], body: schemas.CorrectionIn, live: Live) -> dict:
    """Correct an event of the current round: ``confirm`` it, ``change_owner``, ``replace``
    fields (player, card, pile, t, count, as) or ``reject`` it (it did not happen). The round
    is replayed with the correction; the original stays in the store."""
    fields = body.model_dump(by_alias=True, exclude_none=True, exclude={"action"})
    return {"detail": live.correct(seq, body.action, fields)}
