"""The review queue: low-confidence plays and the rules engine's open questions."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path
from fastapi.responses import Response

from nertz.referee.service import schemas
from nertz.referee.service.deps import Live, StateChanging
from nertz.referee.service.sources import placeholder_jpeg

router = APIRouter(prefix="/api/review", tags=["review"])

ItemId = Annotated[str, Path(min_length=1, max_length=100, pattern=r"^(play:\d{1,15}|tie:\d{1,6}:[A-Z0-9]{2}|joker:\d{1,6})$")]


@router.get("", response_model=list[schemas.ReviewItemOut])
def get_reviews(live: Live) -> list:
    """The open review items of the current round."""
    return live.reviews()


@router.post(
    "/{item_id}",
    response_model=schemas.Accepted,
    dependencies=StateChanging,
    responses={401: {"model": schemas.Problem}, 403: {"model": schemas.Problem}, 404: {"model": schemas.Problem},
               409: {"model": schemas.Problem}, 422: {"model": schemas.Problem}},
)
def answer(item_id: ItemId, body: schemas.ReviewAnswer, live: Live) -> dict:
    """Answer a review item: ``confirm``, ``change_owner`` (with ``player``) or ``reject`` a
    low-confidence play; ``resolve`` a tie (``player``: the winner) or a joker (``as``)."""
    return {"detail": live.resolve_review(item_id, body.action, player=body.player, as_=body.as_)}


@router.get("/{item_id}/frame.jpg", response_class=Response, responses={200: {"content": {"image/jpeg": {}}}})
def frame(item_id: ItemId, live: Live) -> Response:
    """The camera frame kept with a low-confidence play (a placeholder when none was kept)."""
    jpeg = None
    if item_id.startswith("play:"):
        jpeg = live.store.frame(int(item_id.split(":", 1)[1]))
    return Response(jpeg or placeholder_jpeg("no frame kept"), media_type="image/jpeg")
