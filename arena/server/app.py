"""The ASGI application (Starlette) and running it (uvicorn), the ladder and checker beside it."""

from __future__ import annotations

import contextlib
import sys
from typing import Any, AsyncIterator

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.middleware import Middleware
from starlette.routing import Route
from starlette.schemas import SchemaGenerator

from arena import __version__
from arena.server import api, api_admin, pages, pages_account
from arena.server.compete import api_challenges, pages_challenges, pages_play
from arena.server.competition import api_competition, pages_competition, results_pages
from arena.server.live import ladder_pages
from arena.server.http import PAGES_PER_MINUTE, BodyLimit, Cache, PageRateLimit, WarningHeader, error_handler
from arena.ladder.service import Server
from arena.server.web_session import error_page, is_page

SCHEMAS = SchemaGenerator({"openapi": "3.0.0", "info": {"title": "arena competition server", "version": f"v1 ({__version__})"},
                           "components": {"securitySchemes": {"token": {"type": "http", "scheme": "bearer"}}}})


def openapi(request: Request) -> Response:
    """This document.
    ---
    responses: {200: {description: the OpenAPI document}}
    """
    return JSONResponse(SCHEMAS.get_schema(routes=request.app.routes))


def build(server: Server, pages_per_minute: int = PAGES_PER_MINUTE) -> Any:
    routes = [*api.ROUTES, *api_admin.ROUTES, *pages.ROUTES, *pages_account.ROUTES, *api_competition.ROUTES,
              *pages_competition.ROUTES, *api_challenges.ROUTES, *pages_challenges.ROUTES, *ladder_pages.ROUTES, *pages_play.ROUTES, *results_pages.ROUTES,
              Route("/api/v1/openapi.json", openapi, include_in_schema=False)]
    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        server.start()  # once the socket is bound: a server that cannot listen plays no game
        try:
            yield
        finally:
            await run_in_threadpool(server.stop)

    async def errors(request: Request, exc: Exception) -> Response:
        if isinstance(exc, HTTPException) and is_page(request):
            return error_page(exc.status_code, str(exc.detail))
        return await error_handler(request, exc)

    app = Starlette(routes=routes, exception_handlers={HTTPException: errors, Exception: error_handler},
                    lifespan=lifespan, middleware=[Middleware(pages_competition.PhaseGate, server=server)])
    app.state.server = server
    app.state.cache = Cache()
    app.state.game_pages = pages.GamePages()
    return WarningHeader(PageRateLimit(BodyLimit(app, server.config.max_request_bytes), pages_per_minute), server.warning)


def run(server: Server, host: str, port: int, tls: tuple[str, str] | None = None) -> None:
    """Serve until Ctrl-C or SIGTERM; the ladder and checker stop with it. With `tls` (certificate and key
    files, PEM) uvicorn serves HTTPS itself, and the sign-in cookie is `Secure` (pages set it so on https)."""
    import uvicorn

    scheme = "https" if tls else "http"
    print(f"arena serve: {server.config.name} ({server.config.game}) on {scheme}://{host}:{port}/api/v1  "
          f"data: {server.config.data}", file=sys.stderr, flush=True)
    if server.warning:
        print(f"arena serve: WARNING: {server.warning}", file=sys.stderr, flush=True)
    uvicorn.run(build(server), host=host, port=port, log_level="warning", access_log=False,
                limit_concurrency=500, timeout_graceful_shutdown=5,
                ssl_certfile=tls[0] if tls else None, ssl_keyfile=tls[1] if tls else None)
