"""Dependencies of the routes: the live referee, the same-origin check and the table-token check.

Every state-changing route (``POST``, ``PUT``, ``PATCH``, ``DELETE``) depends on
:data:`StateChanging`: first :func:`require_same_origin`, which refuses (403) what a browser
sends from another site (an HTML form on any page open on the table's screen needs no CORS
preflight, so without it such a page could close the round or start a new match), then
:func:`require_token`. Requests without an ``Origin`` header (curl, scripts, ``nertz``'s own
tools) are not affected; the service's own page is same-origin.

When the service is reachable beyond this machine (``--host`` other than a loopback address)
a table token is generated at start; every state-changing request must carry it (header
``X-Table-Token``, or ``Authorization: Bearer <token>``), and so must the WebSocket (query
``?token=`` or the same headers). Read-only pages and ``GET`` endpoints need none.
"""

from __future__ import annotations

import hmac
from typing import Annotated
from urllib.parse import urlsplit

from fastapi import Depends, Header, HTTPException, Request
from starlette.requests import HTTPConnection

from nertz.referee.service.live import LiveReferee

__all__ = ["get_live", "require_token", "token_ok", "require_same_origin", "same_origin", "Live", "SameOrigin",
           "StateChanging", "TOKEN_MISSING", "CROSS_SITE"]

TOKEN_MISSING = "this table needs its token: open the link shown at start"
"""The 401 answer's ``detail``."""

CROSS_SITE = ("refused: a request sent by a web page of another site may not change this table "
              "(use the referee's own page, or send the request without an Origin header)")
"""The 403 answer's ``detail`` (:func:`require_same_origin`)."""

_DEFAULT_PORTS = {"http": 80, "https": 443}
_HTTP_SCHEME = {"http": "http", "https": "https", "ws": "http", "wss": "https"}


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


def _origin_tuple(scheme: str, netloc: str) -> tuple[str, str, int] | None:
    """``(scheme, host, port)`` of an origin, lower-case, the port filled in from the scheme
    (80 for http, 443 for https); ``None`` for anything that is not a valid http(s) origin."""
    scheme = scheme.lower()
    if scheme not in _DEFAULT_PORTS or not netloc:
        return None
    try:
        parts = urlsplit(f"{scheme}://{netloc}")
        host, port = parts.hostname, parts.port
    except ValueError:  # a port that is not a number or out of range, a broken IPv6 literal
        return None
    if not host or parts.username is not None or parts.password is not None:
        return None
    return scheme, host.lower(), port if port is not None else _DEFAULT_PORTS[scheme]


def same_origin(conn: HTTPConnection) -> bool:
    """Whether a request or WebSocket comes from this service's own page, or from no web
    page at all.

    False when ``Sec-Fetch-Site`` is ``cross-site``, or when an ``Origin`` header is present
    (every one, if several) and is not the origin the request was sent to: its scheme (``http``
    or ``https``, ``ws``/``wss`` counted as those, as the server sees it), and the host and port
    of the ``Host`` header (default ports filled in). ``Origin: null`` (a sandboxed page, a
    local file) is not this origin. True without an ``Origin`` header (curl, scripts).
    """
    if conn.headers.get("sec-fetch-site", "").strip().lower() == "cross-site":
        return False
    origins = conn.headers.getlist("origin")
    if not origins:
        return True
    scheme = _HTTP_SCHEME.get(conn.url.scheme.lower(), "")
    own = _origin_tuple(scheme, conn.headers.get("host", ""))
    if own is None:
        return False
    for origin in origins:
        try:
            parts = urlsplit(origin.strip())
        except ValueError:
            return False
        if parts.path not in ("", "/") or parts.query or parts.fragment or _origin_tuple(parts.scheme, parts.netloc) != own:
            return False
    return True


def require_same_origin(request: Request) -> None:
    """Refuse (403, :data:`CROSS_SITE`) a state-changing request that a browser sends from a
    page of another site (:func:`same_origin`); without an ``Origin`` header it passes."""
    if not same_origin(request):
        raise HTTPException(status_code=403, detail=CROSS_SITE)


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
SameOrigin = [Depends(require_same_origin)]
"""The dependencies of a ``POST`` that changes nothing (a preview): the same-origin check."""
StateChanging = [Depends(require_same_origin), Depends(require_token)]
"""The dependencies of every state-changing route: the same-origin check (403), then the table
token (401)."""
