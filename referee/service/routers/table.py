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
    response_model=schemas.TableOut,
    dependencies=StateChanging,
    responses={401: {"model": schemas.Problem}, 403: {"model": schemas.Problem},
               409: {"model": schemas.Problem}, 422: {"model": schemas.Problem}},
)
def put_calibration(body: schemas.CalibrationIn, live: Live) -> dict:
    """Set the shared area and zones (image pixels of the camera frame) and register back
    colours. Players and rules stay; regions not given stay as they were."""
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
    live.set_table(Table.from_dict(data, source="calibration"))
    return table_view(live)
