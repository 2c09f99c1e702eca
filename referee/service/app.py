"""The referee's web service: FastAPI app factory.

``create_app(live)`` wires the routers (``/api/...``, ``/ws``), the static page (``/``), the
error handlers (input errors are 422, state conflicts 409, unknown items 404; never a 500 for
bad input), a request body size limit, security headers, and, on a loopback address, a
Host-header check (against DNS rebinding). Every state-changing route refuses a request that a
browser sends from another site (403; :func:`nertz.referee.service.deps.require_same_origin`)
and, with a table token, one without it (401). The API is documented at ``/docs`` (Swagger UI
served from this machine) and ``/openapi.json``. Run it with ``nertz serve``.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from nertz.referee.errors import NertzError
from nertz.referee.service.deps import CROSS_SITE, TOKEN_MISSING, require_same_origin, require_token, same_origin, token_ok
from nertz.referee.service.live import Conflict, LiveReferee, NotFound
from nertz.referee.service.photo import MAX_PHOTO_BYTES
from nertz.referee.service.routers import events, match, review, round as round_, table, video, ws

__all__ = ["create_app", "MAX_BODY_BYTES", "MAX_PHOTO_BYTES", "PHOTO_PATHS", "LOCAL_HOSTS"]

MAX_BODY_BYTES = 64 * 1024
"""The largest request body accepted (bytes); an event is about 100 bytes."""

PHOTO_PATHS = ("/api/round/audit/photo",)
"""Paths whose body is a photo: their limit is ``max_photo`` (:data:`MAX_PHOTO_BYTES`)."""

LOCAL_HOSTS = ["127.0.0.1", "localhost", "::1", "[::1]", "testserver"]
"""Host headers accepted when serving on a loopback address (``testserver``: FastAPI's TestClient)."""

_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
    "connect-src 'self' ws: wss:; media-src 'none'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'"
)


class BodyLimitMiddleware:
    """Refuse request bodies larger than ``max_bytes`` with 413 (declared or streamed).

    The body is read up to the limit before the app sees it (bodies here are small JSON;
    the paths in ``paths`` have their own limits, e.g. a photo's).
    """

    def __init__(self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES, paths: dict[str, int] | None = None) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.paths = dict(paths or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.paths.get(scope.get("path", ""), self.max_bytes)
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None:
            if not declared.isdigit() or int(declared) > limit:
                await _send_json(send, 413, {"detail": f"request body larger than {limit} bytes"})
                return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            msg = await receive()
            if msg["type"] == "http.disconnect":
                return
            chunk = msg.get("body", b"")
            chunks.append(chunk)
            size += len(chunk)
            more = bool(msg.get("more_body", False))
            if size > limit:
                await _send_json(send, 413, {"detail": f"request body larger than {limit} bytes"})
                return
        body = b"".join(chunks)
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


class SecurityHeadersMiddleware:
    """Add a content security policy and related headers to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(msg: Message) -> None:
            if msg["type"] == "http.response.start":
                extra = [
                    (b"content-security-policy", _CSP.encode()),
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"no-referrer"),
                    (b"x-frame-options", b"DENY"),
                ]
                msg = {**msg, "headers": list(msg.get("headers", [])) + extra}
            await send(msg)

        await self.app(scope, receive, send_with_headers)


def _finite(value: Any) -> Any:
    """``value`` (decoded JSON) with every NaN or infinite float written as a string
    (``"nan"``, ``"inf"``, ``"-inf"``), so that it can be answered as JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _depends_on(request: Request, check: Callable[..., Any]) -> bool:
    """Whether the route the request matched depends on ``check`` (e.g. :func:`require_token`),
    directly or through another dependency."""
    route = request.scope.get("route")
    dependant = getattr(route, "dependant", None)
    if dependant is None:
        return False
    pending = list(dependant.dependencies)
    while pending:
        dep = pending.pop()
        if dep.call is check:
            return True
        pending.extend(dep.dependencies)
    return False


def _swagger_ui_dir() -> str | None:
    """The Swagger UI files (``swagger-ui-bundle.js``, ``swagger-ui.css``) that the
    ``fastapi-offline`` package ships, if it is installed."""
    try:
        import fastapi_offline  # type: ignore[import-untyped]
    except ImportError:
        return None
    folder = Path(fastapi_offline.__file__).parent / "static"
    return str(folder) if (folder / "swagger-ui-bundle.js").is_file() else None


async def _send_json(send: Send, status: int, body: dict[str, Any]) -> None:
    data = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": data})


def create_app(
    live: LiveReferee,
    *,
    token: str | None = None,
    allowed_hosts: list[str] | None = None,
    max_body: int = MAX_BODY_BYTES,
    max_photo: int = MAX_PHOTO_BYTES,
    start_source: bool = True,
) -> FastAPI:
    """Build the service around a live referee.

    Args:
        live: the match in progress (its store, table and source).
        token: the table token; ``None`` on a loopback address (no token needed). With a
            token, every state-changing request and the WebSocket must carry it.
        allowed_hosts: Host headers accepted; default :data:`LOCAL_HOSTS` without a token,
            any with one.
        max_body: the largest request body, bytes (larger: 413).
        max_photo: the largest photo body (:data:`PHOTO_PATHS`), bytes (larger: 413).
        start_source: start feeding the round from ``live.source`` while the app runs.

    Returns:
        The FastAPI app; its lifespan starts and stops the source thread.
    """

    @asynccontextmanager
    async def lifespan(app: FastAPI):  # type: ignore[no-untyped-def]
        app.state.loop = asyncio.get_running_loop()
        if start_source:
            live.start()
        try:
            yield
        finally:
            live.stop()

    app = FastAPI(
        docs_url=None,  # FastAPI's pages load Swagger UI from a CDN; ours serves it locally
        redoc_url=None,
        title="Nertz referee",
        version="0.1.0",
        description="The live referee of a Nertz table: scoreboard, foundations, rulings, review queue and match. "
        "Events follow the contract of shared/DESIGN.md.",
        lifespan=lifespan,
    )
    app.state.live = live
    app.state.token = token
    app.state.loop = None

    @app.exception_handler(NertzError)
    async def _nertz_error(request: Request, exc: NertzError) -> JSONResponse:
        status = 409 if isinstance(exc, Conflict) else 404 if isinstance(exc, NotFound) else 422
        return JSONResponse({"detail": str(exc)}, status_code=status)

    @app.exception_handler(RequestValidationError)
    async def _invalid_request(request: Request, exc: RequestValidationError) -> Response:
        # FastAPI decodes the body before it runs the dependencies, so a malformed body (or a
        # form posted to a JSON endpoint) would be answered 422 before the same-origin and token
        # checks: a page of another site is refused (403), a request without the token learns
        # nothing (401)
        if _depends_on(request, require_same_origin) and not same_origin(request):
            return JSONResponse({"detail": CROSS_SITE}, status_code=403)
        if _depends_on(request, require_token) and not token_ok(request):
            return JSONResponse({"detail": TOKEN_MISSING}, status_code=401)
        # FastAPI's own answer echoes each bad value back; a NaN or an infinity (JSON's
        # ``NaN``, ``Infinity``, ``1e400``) cannot be written as JSON, which made it a 500
        return JSONResponse({"detail": _finite(jsonable_encoder(exc.errors()))}, status_code=422)

    for module in (round_, events, match, table, review, video):
        app.include_router(module.router)
    app.include_router(ws.router)

    static_dir = resources.files("nertz.referee.service").joinpath("static")
    swagger_dir = _swagger_ui_dir()
    if swagger_dir is not None:  # mounted before /static, which would shadow it
        app.mount("/static/swagger", StaticFiles(directory=swagger_dir), name="swagger")
    app.mount("/static", StaticFiles(directory=str(static_dir)), name="static")

    @app.api_route("/docs", methods=["GET", "HEAD"], include_in_schema=False)  # HEAD: link checkers, uptime probes
    def docs() -> Response:
        if swagger_dir is None:
            return HTMLResponse(
                "<!doctype html><title>Nertz referee API</title><p>The API schema is at "
                '<a href="/openapi.json">/openapi.json</a> (install fastapi-offline for this page).</p>'
            )
        return FileResponse(str(static_dir.joinpath("docs.html")), media_type="text/html")

    @app.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(str(static_dir.joinpath("index.html")), media_type="text/html")

    app.add_middleware(BodyLimitMiddleware, max_bytes=max_body, paths={p: max_photo for p in PHOTO_PATHS})
    hosts = allowed_hosts if allowed_hosts is not None else (["*"] if token else LOCAL_HOSTS)
    if hosts != ["*"]:
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=hosts)
    app.add_middleware(SecurityHeadersMiddleware)
    return app
