"""The WebSocket: every event, ruling and score change of the live referee, in order."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from nertz.referee.service.deps import same_origin, token_ok
from nertz.referee.service.views import round_view

router = APIRouter()


@router.websocket("/ws")
async def websocket(ws: WebSocket) -> None:
    """Messages (JSON): first ``{"type": "hello", "state": <GET /api/round>}``; then, in the
    order they happened, ``event`` (``seq``, ``origin``, ``event``), ``ruling``
    (``ruling``), ``ruling_withdrawn`` (an earlier ruling a late report or a correction
    undid), ``score`` (``result``), ``correction``, ``round_start``, ``round_close``,
    ``match_start``, ``table``, ``audit`` (a back count was recorded: ``seq``, ``origin``,
    ``audit`` the stored count, ``result`` the round as now scored; a ``score`` follows) and
    ``source_error`` (an event of the source that was not applied: ``index``, ``t``,
    ``event``, ``message``, ``count`` this round; also kept in ``GET /api/round``'s
    ``source_errors``; with ``stopped`` true it is the source's own failure, a camera that could
    not be reopened, and a ``source_end`` with its ``message`` follows) and ``source_end`` (the
    source has ended this round: ``source``). Each carries ``n`` (increasing), ``match`` and ``round``. With a table token, connect with ``?token=``.
    Client messages are ignored. A page of another site may not open the socket (cross-site
    WebSocket hijacking: :func:`nertz.referee.service.deps.same_origin`); such a socket, or one
    without the token, is closed with code 1008."""
    if not token_ok(ws) or not same_origin(ws):
        await ws.close(code=1008)
        return
    live = ws.app.state.live
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    def listener(message: dict[str, Any]) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, message)

    await ws.accept()
    with live.lock:  # the snapshot and the subscription happen at the same point
        unsubscribe = live.subscribe(listener)
        hello = {"type": "hello", "state": round_view(live)}
    try:
        await ws.send_json(hello)
        receiver = asyncio.ensure_future(ws.receive())
        while True:
            getter = asyncio.ensure_future(queue.get())
            done, _ = await asyncio.wait({getter, receiver}, return_when=asyncio.FIRST_COMPLETED)
            if getter in done:
                await ws.send_json(getter.result())
            else:
                getter.cancel()
            if receiver in done:
                if receiver.result()["type"] == "websocket.disconnect":
                    break
                receiver = asyncio.ensure_future(ws.receive())  # client messages are ignored
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        unsubscribe()
        if "receiver" in locals():
            receiver.cancel()
