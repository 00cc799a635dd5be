"""The HTTP edge shared by every route: JSON answers and errors, tokens, size and rate limits.

Every answer is JSON (an error is `{"error": message}` with its status code); with `--no-sandbox` every
answer carries the warning, in an `X-Arena-Warning` header and in the JSON body. A token comes as
`Authorization: Bearer TOKEN`: none or an unknown one is 401, a valid one without the right is 403.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena.ladder import access
from arena.ladder.accounts import Participant
from arena.ladder.service import RateLimit, Server

class ApiError(HTTPException):
    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(status, message, headers)


def state(request: Request) -> Server:
    """The competition behind this app: the ladder's facade."""
    server: Server = request.app.state.server
    return server


def answer_cache(request: Request) -> "Cache":
    cache: Cache = request.app.state.cache
    return cache


class Cache:
    """Public answers kept until the next write to the store (the ladder writes a few times a second;
    the leaderboard and bot pages are read far more often)."""

    def __init__(self, size: int = 512) -> None:
        self.size, self.generation = size, -1
        self.items: dict[tuple[Any, ...], bytes] = {}
        self.lock = threading.Lock()
        self.making = threading.Lock()  # one answer made at a time (each is made once per write)

    def get(self, generation: int, key: tuple[Any, ...]) -> bytes | None:
        with self.lock:
            if generation != self.generation:
                self.items.clear()
                self.generation = generation
            return self.items.get(key)

    def put(self, generation: int, key: tuple[Any, ...], value: bytes) -> None:
        with self.lock:
            if generation == self.generation and len(self.items) < self.size:
                self.items[key] = value

    def make(self, generation: int, key: tuple[Any, ...], make: Callable[[], bytes]) -> bytes:
        """The kept answer, or `make()`'s, made once: a write wakes every open page at once, and a
        hundred of them asking together must not each rebuild the same answer."""
        found = self.get(generation, key)
        if found is not None:
            return found
        with self.making:
            found = self.get(generation, key)
            if found is None:
                found = make()
                self.put(generation, key, found)
            return found


async def kept(request: Request, key: tuple[Any, ...], make: Callable[[], bytes]) -> bytes:
    """The answer kept for `key` since the last write, on the event loop itself (no worker thread for a
    read of memory: a write wakes every open page at once); `make()`, in a worker thread, when none is."""
    generation = state(request).read.generation
    store = answer_cache(request)
    found = store.get(generation, key)
    if found is None:
        found = await run_in_threadpool(store.make, generation, key, make)
    return found


async def cached(request: Request, key: tuple[Any, ...], make: Callable[[], dict[str, Any]]) -> Response:
    """`make()`'s JSON answer, from the cache while nothing was written since it was made."""
    body = await kept(request, key, lambda: bytes(answer(request, make()).body))
    return Response(body, media_type="application/json")


def answer(request: Request, body: dict[str, Any], status: int = 200) -> JSONResponse:
    server = state(request)
    if server.warning:
        body = {**body, "warning": server.warning}
    return JSONResponse(body, status_code=status)


async def error_handler(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    detail = exc.detail if isinstance(exc, HTTPException) else "internal error"
    headers = getattr(exc, "headers", None)
    body: dict[str, Any] = {"error": detail, "status": status}
    server = getattr(request.app.state, "server", None)
    if server is not None and server.warning:
        body["warning"] = server.warning
    return JSONResponse(body, status_code=status, headers=headers)


def bearer(request: Request) -> str:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, "a token is needed: send the header 'Authorization: Bearer YOUR_TOKEN'",
                       {"WWW-Authenticate": "Bearer"})
    return token.strip()


def participant(request: Request) -> Participant:
    """The participant whose token came with the request (401 when none or unknown)."""
    server = state(request)
    token = bearer(request)
    who = server.participant_by_token(token)
    if who is None:
        raise ApiError(401, "unknown token (ask the organiser for yours; it was shown once when you were added)",
                       {"WWW-Authenticate": "Bearer"})
    return who


def api_viewer(request: Request) -> access.Viewer:
    """Who asks the API: the organiser (admin token), a participant (its token), or anonymous (none);
    an unknown token is 401, not anonymous."""
    if "authorization" not in request.headers:
        return access.ANONYMOUS
    if state(request).is_admin(bearer(request)):
        return access.ORGANISER
    return access.Viewer(participant(request).id)


def admin(request: Request) -> None:
    server = state(request)
    token = bearer(request)
    if server.is_admin(token):
        return
    if server.participant_by_token(token) is not None:
        raise ApiError(403, "this is the organiser's action; a participant's token cannot do it")
    raise ApiError(401, "unknown token", {"WWW-Authenticate": "Bearer"})


def int_param(request: Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ApiError(400, f"query parameter {name!r} must be a whole number") from None
    if not low <= value <= high:
        raise ApiError(400, f"query parameter {name!r} must be between {low} and {high}")
    return value


def path_id(request: Request, name: str = "id") -> int:
    value = request.path_params[name]
    if not isinstance(value, int):
        raise ApiError(400, f"{name} must be a whole number")
    return value


class BodyLimit:
    """ASGI middleware: a request body over `limit` bytes is refused with 413 before it is read whole."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length" and value.isdigit() and int(value) > self.limit:
                await _too_large(self.limit, send)
                return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise ApiError(413, f"the request is over {self.limit} bytes")
            return message

        await self.app(scope, limited, send)


async def _too_large(limit: int, send: Send) -> None:
    response = JSONResponse({"error": f"the request is over {limit} bytes (the server's max_request_kb)", "status": 413},
                            status_code=413)
    await response({"type": "http"}, _no_receive, send)


async def _no_receive() -> Message:
    return {"type": "http.disconnect"}


PAGES_PER_MINUTE = 300  # page answers (re-simulated replays, bot pages) one client may ask for a minute


class PageRateLimit:
    """ASGI middleware: at most `per_minute` page requests a minute from one client address (the API's
    public answers are cached per write, its writes limited per token; pages cost the server CPU)."""

    def __init__(self, app: ASGIApp, per_minute: int = PAGES_PER_MINUTE) -> None:
        self.app = app
        self.rate = RateLimit(per_minute)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and not path.startswith("/api/") and path not in ("/events", "/leaderboard/table"):
            client = scope.get("client")
            wait = self.rate.take(str(client[0]) if client else "")
            if wait:
                response = JSONResponse({"error": f"too many pages from your address: try again in {wait:.0f} s",
                                         "status": 429}, status_code=429, headers={"Retry-After": str(int(wait) + 1)})
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


class WarningHeader:
    """ASGI middleware: with --no-sandbox, the warning rides on every answer's headers."""

    def __init__(self, app: ASGIApp, warning: str) -> None:
        self.app, self.warning = app, warning

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def with_warning(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-arena-warning", self.warning.encode())]
            await send(message)

        await self.app(scope, receive, with_warning if self.warning and scope["type"] == "http" else send)


async def take_upload(server: Any, participant: int, data: bytes) -> tuple[int, str | None]:
    """`Server.submit` off the event loop; a full disk is 507 with Retry-After, never an internal error."""
    from starlette.concurrency import run_in_threadpool

    from arena.errors import QuotaExceeded, StorageFull, UploadsClosed

    try:
        result: tuple[int, str | None] = await run_in_threadpool(server.submit, participant, data)
    except QuotaExceeded as exc:
        raise ApiError(429, str(exc), {"Retry-After": str(int(exc.retry_after) + 1)}) from None
    except StorageFull as exc:
        raise ApiError(507, str(exc), {"Retry-After": "60"}) from None
    except UploadsClosed as exc:  # the deadline passed while the upload came in
        raise ApiError(403, str(exc)) from None
    return result
