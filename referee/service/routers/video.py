"""The annotated camera view: an MJPEG stream and single frames."""

from __future__ import annotations

import asyncio
import time
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response, StreamingResponse

from nertz.referee.service.deps import Live
from nertz.referee.service.sources import placeholder_jpeg

router = APIRouter(prefix="/api/video", tags=["video"])

BOUNDARY = "nertzframe"


def _closing(request: Request) -> bool:
    """Whether the service is shutting down (``nertz serve`` keeps its uvicorn server as
    ``app.state.server``). uvicorn waits for every response to end before it stops, so an
    endless stream must end then: Ctrl-C (or SIGTERM) waited for the page showing the camera
    to be closed, with nothing said."""
    server = getattr(request.app.state, "server", None)
    return bool(getattr(server, "should_exit", False))


@router.get("/frame.jpg", response_class=Response, responses={200: {"content": {"image/jpeg": {}}}})
def frame(live: Live) -> Response:
    """The latest camera frame (a 'no camera' placeholder without one), e.g. for calibration."""
    return Response(live.frame() or placeholder_jpeg(), media_type="image/jpeg", headers={"Cache-Control": "no-store"})


@router.get(
    "/stream.mjpg",
    response_class=StreamingResponse,
    responses={200: {"content": {f"multipart/x-mixed-replace; boundary={BOUNDARY}": {}}}},
)
async def stream(
    request: Request,
    live: Live,
    fps: Annotated[float, Query(gt=0, le=30, description="frames per second")] = 5.0,
    frames: Annotated[int | None, Query(ge=1, le=100_000, description="stop after this many frames (default: never)")] = None,
) -> StreamingResponse:
    """The annotated camera view as an MJPEG stream (``multipart/x-mixed-replace``), for an
    ``<img>`` on the page. Without a camera it streams a 'no camera' placeholder. The stream
    ends when the service shuts down."""

    async def gen():  # type: ignore[no-untyped-def]
        n = 0
        while frames is None or n < frames:
            if await request.is_disconnected() or _closing(request):
                return
            jpeg = live.frame() or placeholder_jpeg()
            yield (
                f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(jpeg)}\r\n\r\n".encode() + jpeg + b"\r\n"
            )
            n += 1
            if frames is None or n < frames:
                until = time.monotonic() + 1.0 / fps
                while not _closing(request) and (left := until - time.monotonic()) > 0:
                    await asyncio.sleep(min(left, 0.2))

    return StreamingResponse(
        gen(), media_type=f"multipart/x-mixed-replace; boundary={BOUNDARY}", headers={"Cache-Control": "no-store"}
    )
