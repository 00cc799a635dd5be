"""The ladder's public pages, served by `arena serve` beside the API: the live leaderboard, a page per
bot, each game's replay in the report's viewer. Signed-in participants see their own bots' stderr;
nobody else does (`web_session` says who is looking).

The leaderboard updates by itself: `/events` is a server-sent event stream that says "the store
changed" (the store's write generation) a moment after any write, and the page then fetches the
table again from `/leaderboard/table`, rendered by the same function as the first page and cached
until the next write. Nothing the page loads comes from anywhere but this server.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
from collections import OrderedDict
from typing import Any, AsyncIterator

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response, StreamingResponse
from starlette.routing import Route

from arena.errors import ArenaError
from arena.jsonvalue import JSON, loads
from arena.ladder import access
from arena.ladder.access import Item
from arena.ladder.states import GameState
from arena.server import pages_html
from arena.server.pages_html import names
from arena.server.compete import pages_play
from arena.server.api import bot_details, held_error, leaderboard_rows
from arena.server.http import ApiError, kept, path_id, state
from arena.server.web_session import COOKIE, Viewer, access_viewer, html_page, security_headers, viewer
from arena.textsafe import clean
from arena.web.frames import Perspective, viewer_data
from arena.web.replay_source import load_game_record
from arena.web.viewer import viewer_page
from arena.replay.reader import replay_exists

EVENT_POLL_S = 0.2
UPDATE_EVERY_S = 1.0
KEEPALIVE_S = 15.0


def _status(request: Request) -> str:
    server = state(request)
    played = server.read.game_counts().get(GameState.DONE, 0)
    ladder = "paused by the organiser" if server.paused else "running"
    return f'<p class="status" id="ladder-status">{played} games played · the ladder is {ladder}</p>'


async def board_fragment(request: Request) -> tuple[str, int]:
    """The status line and the table (cached per write generation: read by every open page at once)."""
    server = state(request)
    generation = server.read.generation

    def make() -> bytes:
        board = leaderboard_rows(server.read)["leaderboard"]
        return (_status(request) + pages_html.leaderboard_table(board, generation)).encode()

    return (await kept(request, ("page-board",), make)).decode(), generation


def _nav(request: Request, session: Viewer | None, current: str) -> str:
    return pages_html.nav(session.name if session else "", bool(session and session.admin), current)


async def leaderboard(request: Request) -> Response:
    session = await run_in_threadpool(viewer, request) if COOKIE in request.cookies else None
    fragment, _ = await board_fragment(request)
    name = pages_html.esc(state(request).config.name)
    body = (_nav(request, session, "/") + f'<main><h1>{name}: leaderboard</h1>'
            '<p id="live" class="note" aria-live="polite">live: updates as games finish</p>'
            f'<div id="board">{fragment}</div></main>')
    return html_page(f"{state(request).config.name}: leaderboard", body)


async def board_table(request: Request) -> Response:
    fragment, generation = await board_fragment(request)
    return HTMLResponse(fragment, headers={"Cache-Control": "no-store", "X-Arena-Generation": str(generation)})


async def events(request: Request) -> Response:
    """Server-sent events: `update` with the store's write generation when it changed, at most one every
    UPDATE_EVERY_S (the ladder writes several times a second; each update makes every open page fetch
    the table again, so a hundred open pages cost a hundred fetches per update)."""
    server = state(request)

    async def stream() -> AsyncIterator[str]:
        yield "retry: 2000\n\n"
        last, quiet, since = -1, 0.0, UPDATE_EVERY_S
        while not server.ladder.stopping.is_set():
            generation = server.read.generation
            if generation != last and since >= UPDATE_EVERY_S:
                last, quiet, since = generation, 0.0, 0.0
                yield f"event: update\ndata: {generation}\n\n"
            elif quiet >= KEEPALIVE_S:
                quiet = 0.0
                yield ": keep-alive\n\n"
            await asyncio.sleep(EVENT_POLL_S)
            quiet += EVENT_POLL_S
            since += EVENT_POLL_S

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


def bot(request: Request) -> Response:
    session = viewer(request)
    read = state(request).read
    bot_id = path_id(request)
    who = access_viewer(session)
    details = bot_details(read, bot_id, 15, who)
    role = who.role(read.bot_refs([bot_id])[bot_id].owner)
    logs = ([{"id": r.id, "status": r.status.value, "reason": r.reason, "report": access.hide_paths(r.report, [r.folder], role)}
             for r in read.submissions_of_bot(bot_id)] if access.may_see(role, Item.SUBMISSION) else [])
    body = pages_html.bot_page(details, names(read), read.head_to_head(bot_id), logs)
    body += pages_play.play_form(request, session, bot_id)  # play it yourself (issue 41)
    return html_page(f"{pages_html.bot_label(details)}", _nav(request, session, "") + f"<main>{body}</main>")


class GamePages:
    """Finished games' pages, each rendered once per view of it (which seats' stderr it holds, whether it
    shows the server's paths) and kept: a finished game never changes, and its page is a re-simulation
    of its replay (tens of milliseconds of CPU). The page's nonce is a placeholder no bot can guess,
    replaced by each answer's own."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self.pages: OrderedDict[tuple[int, frozenset[int], bool], str] = OrderedDict()
        self.lock = threading.Lock()
        self.placeholder = secrets.token_hex(16)
        self.renders = 0

    def get(self, key: tuple[int, frozenset[int], bool]) -> str | None:
        with self.lock:
            page = self.pages.get(key)
            if page is not None:
                self.pages.move_to_end(key)
            return page

    def put(self, key: tuple[int, frozenset[int], bool], page: str) -> None:
        with self.lock:
            self.renders += 1
            self.pages[key] = page
            while len(self.pages) > self.size:
                self.pages.popitem(last=False)


def game_pages(request: Request) -> GamePages:
    pages: GamePages = request.app.state.game_pages
    return pages


async def game(request: Request) -> Response:
    """The replay in the report's viewer, every seat's view (the game is over), under the bots' ladder
    names; each seat's stderr lines and fault details only where the access rule allows."""
    session = viewer(request)
    server = state(request)
    game_id = path_id(request)
    row = server.read.finished_game(game_id)
    if row is None or not row.replay or not replay_exists(row.replay):
        raise ApiError(404, f"no finished game {game_id} with a replay")
    who = access_viewer(session)
    if access.hands_held(who.role(None), game_id in server.read.deal_open([game_id])):
        raise held_error(game_id)  # before the cache is read
    refs = server.read.bot_refs(row.seats)
    private = access.private_seats([who.role(refs[b].owner if b in refs else None) for b in row.seats])
    folders = [refs[b].folder for b in row.seats if b in refs]
    key = (game_id, private, access.may_see(who.role(None), Item.HOST_PATH))
    cache = game_pages(request)
    text = cache.get(key)
    if text is None:
        try:
            record = await run_in_threadpool(load_game_record, row.replay)
        except ArenaError as exc:
            raise ApiError(500, f"game {game_id}: its replay does not read: {clean(exc, 300)}") from None
        data = named(viewer_data(record, Perspective(None), private.__contains__), row.seats, names(server.read))
        data = {k: access.hide_paths(v, folders, who.role(None)) for k, v in data.items()}  # the server's paths
        text = viewer_page(data, f"game {game_id}", "/", "← leaderboard", cache.placeholder)
        cache.put(key, text)
    nonce = secrets.token_urlsafe(16)
    return HTMLResponse(text.replace(cache.placeholder, nonce), headers=security_headers(nonce))


def named(data: dict[str, JSON], seats: list[int], bot_names: dict[int, str]) -> dict[str, JSON]:
    """The viewer's data with the seats under the bots' ladder names."""
    return {**data, "players": [bot_names.get(b, f"bot {b}") for b in seats]}


ROUTES = [Route(path, endpoint, include_in_schema=False)  # pages: not in the API's OpenAPI document
          for path, endpoint in (("/", leaderboard), ("/leaderboard/table", board_table), ("/events", events),
                                 ("/bots/{id:int}", bot), ("/games/{id:int}", game))]
