"""The current round: its state, the actions for what the camera cannot see, and the back
count that scores it (issue 7)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import cv2
from fastapi import APIRouter, HTTPException, Path, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from nertz.referee.service import schemas
from nertz.referee.service.deps import Live, SameOrigin, StateChanging
from nertz.referee.service.live import Conflict, NotFound
from nertz.referee.service.photo import MAX_PHOTO_BYTES, PHOTO_TYPES, PhotoError, decode_photo
from nertz.referee.service.views import round_view

router = APIRouter(prefix="/api/round", tags=["round"])

_ERRORS = {401: {"model": schemas.Problem}, 403: {"model": schemas.Problem}, 409: {"model": schemas.Problem},
           422: {"model": schemas.Problem}}


@router.get("", response_model=schemas.RoundOut)
def get_round(live: Live) -> dict:
    """The current round: per-player scores (and match totals), the foundations with the
    owner of every card, the events, the rulings and the open review items."""
    return round_view(live)


@router.post("/audit", response_model=schemas.AuditOut, dependencies=StateChanging, responses=_ERRORS)
def audit(body: schemas.AuditIn, live: Live) -> dict:
    """Record the back count of the round's end, which from now on scores the round.

    After the call (or after the round ended otherwise) the players turn the foundations face
    down and spread them; ``counts`` are the face-down cards of each player's back in the
    shared area (``nertz audit --json`` counts them in a photo, and its line can be posted
    as it is). The rules define ownership by the back, so the count is what is scored: ``GET
    /api/round`` (its ``players``, ``result`` and ``audit``), the match and the round's close
    use it, with the live figures kept beside it and the live plays that may have gone to the
    wrong owner listed. A second count replaces the first for scoring (both are stored).

    ``counts`` names every player at the table, 0 for a back with no card in the shared area.

    Refused: 403 from a page of another site; 409 when the round has not ended or is closed (a
    count settles the current round before "Next round"); 422 for a name not at the table, a
    player left out of ``counts`` (the answer names them: an omitted field must not lose a
    player's cards), a negative or fractional count, more cards of a back than its deck holds,
    a Nertz count over the pile's size. Nothing is stored then. ``POST
    /api/round/audit/preview`` answers the same without storing anything."""
    out = live.record_audit(body.counts, body.nertz_counts(live.round.result.caller), unknown=body.unknown, face_up=body.face_up,
                            zones=body.zones, method=None, source="json", origin="api")
    return out


@router.post("/audit/preview", response_model=schemas.ReconciliationOut, dependencies=SameOrigin,
             responses={403: {"model": schemas.Problem}, 422: {"model": schemas.Problem}})
def audit_preview(body: schemas.AuditIn, live: Live) -> dict:
    """What a back count would say, nothing stored and nothing changed: the current round
    scored by the count, the live figures beside it, and the live plays that may have gone to
    the wrong owner. Takes the body of ``POST /api/round/audit`` (every player counted) and
    refuses what it refuses (422); any state of the round."""
    return live.preview_audit(body.counts, body.nertz_counts(live.round.result.caller))


_PHOTO_BODY = {
    "requestBody": {
        "required": True,
        "description": f"the photo's bytes (JPEG or PNG, at most {MAX_PHOTO_BYTES // (1024 * 1024)} MiB)",
        "content": {t: {"schema": {"type": "string", "format": "binary"}} for t in PHOTO_TYPES},
    }
}


@router.post(
    "/audit/photo",
    response_model=schemas.PhotoAuditOut,
    dependencies=StateChanging,
    responses={**_ERRORS, 413: {"model": schemas.Problem}, 415: {"model": schemas.Problem}},
    openapi_extra=_PHOTO_BODY,
)
async def audit_photo(
    request: Request,
    live: Live,
    method: Annotated[Literal["auto", "classical", "learned", "hybrid"], Query(description="how to count "
                      "(nertz.vision.audit.METHODS)")] = "auto",
    dry_run: Annotated[bool, Query(description="count and answer, store nothing")] = False,
) -> dict:
    """Count the backs in a photo of the round's end and record the count (as ``POST
    /api/round/audit``). The body is the photo itself (``Content-Type: image/jpeg`` or
    ``image/png``), taken by the table's calibrated camera: the live table's shared area and
    zones (image pixels) say where each counted card lies. The shared area's counts score the
    foundations; each player's own back in their own zone is their Nertz count (when the table
    has zones). The photo is kept in the store with the count (``GET
    /api/round/audit/photo.jpg``). With ``dry_run=true`` nothing is stored.

    Counting a 1920 x 1080 JPEG took 0.5 s with ``classical`` and 0.8 s with the learned
    strip detector (``auto`` uses it when ``models/audit_strips.onnx`` is shipped), medians of
    3 requests on a loaded 2-core machine.

    Refused: 415 another content type; 413 a body over the size limit; 422 a body that is
    not a JPEG or PNG (or damaged, or too small or too large in pixels), a photo in which no
    registered back is found, a table with no shared area; 409 as ``POST /api/round/audit``.
    Nothing is stored then."""
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype not in PHOTO_TYPES:
        raise HTTPException(status_code=415, detail=f"send the photo as {' or '.join(PHOTO_TYPES)}, "
                            f"not {ctype or 'no content type'}")
    data = await request.body()
    image, jpeg = await run_in_threadpool(decode_photo, data)  # decoding 40 MP takes a while: off the loop
    with live.lock:
        table = live.table
        expect = (live.match_no, live.current.number)
        if not dry_run and (live.current.closed or live.round.result.ended is None):
            raise Conflict("the round has not ended or is closed: the back count is taken after the call, "
                           "before the round is closed")  # checked again when the count is recorded
    from nertz.vision.audit import audit as count_backs  # the vision stack only when a photo comes
    from nertz.vision.audit import check_face_down

    def count_face_down(image: Any, table: Any, method: str) -> Any:
        res = count_backs(image, table, method)
        check_face_down(image, table, res)  # a photo taken during play is refused, not scored
        return res

    try:
        res = await run_in_threadpool(count_face_down, image, table, method)
    except cv2.error as exc:  # OpenCV refusing something of the photo: the photo's fault, not a crash
        raise PhotoError(f"the photo could not be counted ({str(exc).strip().splitlines()[-1]})") from None
    assert table is not None
    with live.lock:
        caller = live.round.result.caller  # a valid call means an empty Nertz pile: not counted
    nertz_left = schemas.nertz_left_from_zones(res.zones, caller, table.names)
    count = {"counts": dict(res.counts), "unknown": int(res.unknown), "face_up": int(res.face_up),
             "zones": {z: dict(c) for z, c in res.zones.items()}, "nertz_left": nertz_left, "method": method,
             "width": int(image.shape[1]), "height": int(image.shape[0])}
    if dry_run:
        return {"stored": False, "seq": None, "audits": None, "count": count,
                "result": live.preview_audit(res.counts, nertz_left)}
    out = await run_in_threadpool(
        lambda: live.record_audit(res.counts, nertz_left, unknown=res.unknown, face_up=res.face_up, zones=count["zones"],
                                  method=method, source="photo", jpeg=jpeg, origin="photo", expect=expect))
    seq, audits = out.pop("seq"), out.pop("audits")
    return {"stored": True, "seq": seq, "audits": audits, "count": count, "result": out}


@router.get("/audit/photo.jpg", response_class=Response, responses={200: {"content": {"image/jpeg": {}}},
                                                                     404: {"model": schemas.Problem}})
def audit_photo_jpeg(live: Live) -> Response:
    """The photo of the current round's latest back count (404 when it has none, or the
    count was posted as numbers)."""
    with live.lock:
        a = live.current.audit
        jpeg = live.store.frame(a.seq) if a is not None else None
    if jpeg is None:
        raise NotFound("the current round has no audit photo")
    return Response(jpeg, media_type="image/jpeg", headers={"Cache-Control": "no-store"})


@router.post("/call", response_model=schemas.Accepted, dependencies=StateChanging, responses=_ERRORS)
def call(body: schemas.PlayerIn, live: Live) -> dict:
    """A player calls "Nertz!" now (by the round clock). A valid call ends the round."""
    return {"detail": live.push_event({"type": "call", "player": body.player}, origin="button")}


@router.post("/stuck", response_model=schemas.Accepted, dependencies=StateChanging, responses=_ERRORS)
def stuck(live: Live) -> dict:
    """Everyone is stuck: the first time everyone turns the waste over; the second time in
    the same round the round ends with no caller."""
    return {"detail": live.stuck()}


@router.post("/end", response_model=schemas.Accepted, dependencies=StateChanging, responses=_ERRORS)
def end(live: Live) -> dict:
    """End the round now with no caller."""
    return {"detail": live.end_round()}


@router.post("/next", response_model=schemas.Accepted, dependencies=StateChanging, responses=_ERRORS)
def next_round(live: Live) -> dict:
    """Close the ended round into the match and start the next (unless the match is over)."""
    return {"detail": live.next_round()}


@router.post(
    "/events/{seq}/correct",
    response_model=schemas.Accepted,
    dependencies=StateChanging,
    responses={**_ERRORS, 404: {"model": schemas.Problem}},
)
def correct(seq: Annotated[int, Path(ge=1, le=2**53)], body: schemas.CorrectionIn, live: Live) -> dict:
    """Correct an event of the current round: ``confirm`` it, ``change_owner``, ``replace``
    fields (player, card, pile, t, count, as) or ``reject`` it (it did not happen); a
    ``confirm`` after a ``reject`` brings the event back as logged (a mistaken reject undone).
    The round is replayed with the correction; the original stays in the store."""
    fields = body.model_dump(by_alias=True, exclude_none=True, exclude={"action"})
    return {"detail": live.correct(seq, body.action, fields)}
