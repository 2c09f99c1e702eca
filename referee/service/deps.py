"""Dependencies of the routes: the live referee and the table-token check.

When the service is reachable beyond this machine (``--host`` other than a loopback address)
a table token is generated at start; every state-changing request must carry it (header
``X-Table-Token``, or ``Authorization: Bearer <token>``), and so must the WebSocket (query
``?token=`` or the same headers). Read-only pages and ``GET`` endpoints need none.
"""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Depends, Header, HTTPException, Request
from starlette.requests import HTTPConnection

from nertz.referee.service.live import LiveReferee

__all__ = ["get_live", "require_token", "token_ok", "Live", "TokenChecked", "TOKEN_MISSING"]

TOKEN_MISSING = "this table needs its token: open the link shown at start"
"""The 401 answer's ``detail``."""


def get_live(request: Request) -> LiveReferee:
    """The app's :class:`LiveReferee`."""
    return request.app.state.live


def token_ok(conn: HTTPConnection) -> bool:
    """Whether a request or WebSocket carries the table token (always true without one)."""
    expected: str | None = conn.app.state.token
    if expected is None:
        return True
    supplied = conn.headers.get("x-table-token")
    auth = conn.headers.get("authorization", "")
    if supplied is None and auth.lower().startswith("bearer "):
        supplied = auth[7:].strip()
    if supplied is None:
        supplied = conn.query_params.get("token")
    if not supplied:
        return False
    return hmac.compare_digest(supplied.encode("utf-8", "replace"), expected.encode("utf-8"))


def require_token(
    request: Request,
    x_table_token: Annotated[
        str | None, Header(max_length=200, description="the table token (needed when serving beyond this machine)")
    ] = None,
) -> None:
    """Refuse (401) a state-changing request without the table token, in remote mode."""
    if not token_ok(request):
        raise HTTPException(status_code=401, detail=TOKEN_MISSING)


Live = Annotated[LiveReferee, Depends(get_live)]
TokenChecked = [Depends(require_token)]
