"""The table: players, back colours, rules settings, calibration."""

from __future__ import annotations

from fastapi import APIRouter

from nertz.referee.service import schemas
from nertz.referee.service.deps import Live, StateChanging
from nertz.referee.service.views import table_view
from nertz.referee.table import Table

router = APIRouter(prefix="/api/table", tags=["table"])


@router.get("", response_model=schemas.TableOut)
def get_table(live: Live) -> dict:
    """The players (with their back colours), the rules settings and the calibrated regions."""
    return table_view(live)


@router.put(
    "/calibration",
    response_model=schemas.CalibrationOut,
    dependencies=StateChanging,
    responses={401: {"model": schemas.Problem}, 403: {"model": schemas.Problem},
               409: {"model": schemas.Problem}, 422: {"model": schemas.Problem}},
)
def put_calibration(body: schemas.CalibrationIn, live: Live) -> dict:
    """Set the shared area and zones (image pixels of the camera frame) and register back
    colours. Players and rules stay; regions not given stay as they were.

    The calibration is stored (a restart keeps it) and the back count of a photo uses it at
    once. With a camera (``nertz serve --source CAMERA``) its vision pipeline watches with it
    from the next round on, or from the current one when the camera has not started on it
    yet: a round in progress keeps the regions and back colours it started with, by which its
    tracked cards were placed (``camera_from_round`` and ``message`` say which).

    Refused, nothing stored: 403 from a page of another site; 422 for a name not at the table,
    a back colour too close to another player's, a polygon of fewer than 3 points or too small to
    hold a card, or regions that reach outside the camera's frames (without a camera, outside the
    frames the table was calibrated on, its ``calibration.frame_size``, where it names them)."""
    with live.lock:
        assert live.table is not None
        data = live.table.to_dict()
    names = [p["name"] for p in data["players"]]
    for name in list(body.zones) + list(body.backs):
        if name not in names:
            from nertz.referee.errors import TableError

            raise TableError(f"{name!r} is not a player at this table ({', '.join(names)})")
    if body.shared_area is not None:
        data["shared_area"] = body.shared_area
    if body.zones:
        data["zones"] = {**data.get("zones", {}), **body.zones}
    for p in data["players"]:
        if p["name"] in body.backs:
            p["back"] = body.backs[p["name"]].lower()
    with live.lock:
        from_round = live.set_table(Table.from_dict(data, source="calibration"))
        over = live.current.closed
        current = live.current.number
        camera = live.source_takes_table
    return {**table_view(live), "camera_from_round": from_round,
            "message": _calibration_message(camera, from_round, current, over)}


def _calibration_message(camera: bool, from_round: int | None, current: int, over: bool) -> str:
    """The page's line for a saved calibration: who uses it, from when."""
    if not camera:
        return "calibration saved: the back count of a photo uses it"
    if over:
        return "calibration saved: the camera watches with it from the next match on"
    if from_round == current:
        return f"calibration saved: the camera watches with it from this round (round {current}) on"
    return (f"calibration saved: the camera watches with it from round {from_round} on; round {current} keeps the "
            "regions and back colours it started with (its cards were tracked by them)")
