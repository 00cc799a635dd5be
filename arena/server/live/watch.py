"""`arena run --watch`: a page of the running tournament's games, live, on 127.0.0.1 at a random port.

Its address holds a secret (a random path prefix): another local user, or a bot on this machine without
the sandbox's network isolation, cannot guess it. Whoever has the link is a spectator: the public
view as played, every hand only behind the play (`--watch-delay`) or once the game is over, by the
same rule as the ladder's live pages (`access.live_share` for an anonymous viewer at every seat).
"""

from __future__ import annotations

import hmac
import secrets
import socket
import threading
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from arena.jsonvalue import JSON
from arena.ladder.access import Role
from arena.live.board import LiveBoard
from arena.server.live.spectate import Refused, share_of, stream
from arena.server.web_session import security_headers
from arena.web.live_page import list_page, live_page


class Watch:
    def __init__(self, board: LiveBoard, title: str) -> None:
        self.board, self.title = board, title
        self.secret = secrets.token_urlsafe(18)
        self.stopping = threading.Event()
        self.server: Any = None
        self.thread: threading.Thread | None = None
        self.url = ""

    def _check(self, request: Request) -> None:
        if not hmac.compare_digest(str(request.path_params.get("secret", "")).encode(), self.secret.encode()):
            raise HTTPException(404, "not found")

    def _shown(self, request: Request) -> dict[str, JSON]:
        self._check(request)
        game_id = int(request.path_params["id"])
        seats = self.board.seats(game_id)
        if seats is None:
            raise Refused(404, f"no game {game_id} in progress")
        return share_of(self.board, game_id, [Role.ANONYMOUS] * len(seats), request)

    async def games(self, request: Request) -> Response:
        self._check(request)
        return HTMLResponse(list_page(self.board.playing(), f"/{self.secret}/live/{{id}}", f"{self.title}: live games"),
                            headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})

    async def game(self, request: Request) -> Response:
        shown = self._shown(request)
        nonce = secrets.token_urlsafe(16)
        base = f"/{self.secret}/live/{shown['id']}"
        query = f"?{request.url.query}" if request.url.query else ""
        text = live_page(shown, f"{base}/events{query}", None, f"game {shown['id']} (live)", f"/{self.secret}/",
                         "← live games", nonce)
        return HTMLResponse(text, headers={**security_headers(nonce), "Referrer-Policy": "no-referrer"})

    async def game_json(self, request: Request) -> Response:
        return JSONResponse(self._shown(request), headers={"Cache-Control": "no-store"})

    async def events(self, request: Request) -> Response:
        self._shown(request)

        def current() -> dict[str, JSON] | None:
            try:
                return self._shown(request)
            except HTTPException:
                return None

        return StreamingResponse(stream(current, self.stopping.is_set), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store"})

    def app(self) -> Starlette:
        return Starlette(routes=[
            Route("/{secret}/", self.games), Route("/{secret}/live/{id:int}", self.game),
            Route("/{secret}/live/{id:int}.json", self.game_json), Route("/{secret}/live/{id:int}/events", self.events),
        ])

    def start(self) -> str:
        """Serve in a thread on 127.0.0.1, a port the system picks; the page's address (with its secret)."""
        import uvicorn

        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        config = uvicorn.Config(self.app(), log_level="warning", access_log=False, lifespan="off", timeout_graceful_shutdown=1)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, name="arena-watch", daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{port}/{self.secret}/"
        return self.url

    def stop(self) -> None:
        self.stopping.set()
        if self.server is not None:
            self.server.should_exit = True
        if self.thread is not None:
            self.thread.join(5.0)
