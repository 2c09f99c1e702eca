"""The match: rounds, totals, target, winner, settlement; exports."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse, PlainTextResponse

from nertz.referee.service import schemas
from nertz.referee.service.deps import Live, StateChanging
from nertz.referee.service.views import match_csv, match_export, match_view

router = APIRouter(prefix="/api/match", tags=["match"])


@router.get("", response_model=schemas.MatchOut)
def get_match(live: Live) -> dict:
    """The match so far: each counted round's scores (the current one once it has ended),
    totals, rounds won, the target, the winner and the settlement table."""
    return match_view(live)


@router.post("/new", response_model=schemas.Accepted, dependencies=StateChanging,
             responses={401: {"model": schemas.Problem}, 403: {"model": schemas.Problem}})
def new_match(live: Live) -> dict:
    """Start a new match at the same table (the old one stays in the store)."""
    return {"detail": live.new_match()}


@router.get("/export.csv", response_class=PlainTextResponse)
def export_csv(live: Live) -> PlainTextResponse:
    """The match history as CSV (rounds, totals, settlement)."""
    return PlainTextResponse(
        match_csv(live),
        media_type="text/csv",
        headers={"Content-Disposition": f'attachment; filename="nertz-match-{live.match_no}.csv"'},
    )


@router.get("/export.json")
def export_json(live: Live) -> JSONResponse:
    """The whole match as JSON: table, summary, and every round's events, corrections,
    rulings and result."""
    return JSONResponse(
        match_export(live),
        headers={"Content-Disposition": f'attachment; filename="nertz-match-{live.match_no}.json"'},
    )
