"""The ladder's live pages: the games in progress (`/live`), one game as it is played (`/live/ID`, its
stream `/live/ID/events`), and the same as JSON (`/api/v1/live`, `/api/v1/live/ID`).

A viewer's role towards each seat's bot (anonymous, the bot's owner, another participant, the
organiser) decides its share, by the one rule (`access.live_share`, applied in `spectate`): pages know
the viewer by the sign-in cookie, the JSON by the bearer token, as every other page and answer.
"""

from __future__ import annotations

import secrets

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from arena.jsonvalue import JSON
from arena.ladder import access
from arena.ladder.access import Role
from arena.ladder.service import Server
from arena.server import pages_html
from arena.server.http import api_viewer, path_id, state
from arena.server.live.spectate import Refused, share_of, stream
from arena.server.pages_html import names
from arena.server.web_session import COOKIE, access_viewer, html_page, security_headers, viewer
from arena.web.live_page import games_list, live_page


def _roles(server: Server, game_id: int, who: access.Viewer) -> tuple[list[Role], list[Role], bool]:
    """The viewer's role towards each seat's bot, towards the bots playing the same deal elsewhere now, and
    whether another game of the deal is still to be played (`access.live_share`'s `deal_open`)."""
    seats = server.ladder.live.seats(game_id)
    if seats is None:
        raise Refused(404, f"no game {game_id} in progress (a finished game has its own page: /games/{game_id})")
    elsewhere = server.ladder.live.siblings(game_id)
    refs = server.read.bot_refs([*seats, *elsewhere])
    return ([who.role(refs[b].owner if b in refs else None) for b in seats],
            [who.role(refs[b].owner if b in refs else None) for b in elsewhere],
            game_id in server.read.deal_open([game_id]))


def _players(server: Server, game_id: int) -> list[JSON]:
    labels = names(server.read)
    return [labels.get(b, f"bot {b}") for b in server.ladder.live.seats(game_id) or []]


def _shown(request: Request, who: access.Viewer) -> dict[str, JSON]:
    server = state(request)
    game_id = path_id(request)
    roles, elsewhere, deal_open = _roles(server, game_id, who)
    shown = share_of(server.ladder.live, game_id, roles, request, elsewhere, deal_open)
    return {**shown, "players": _players(server, game_id)}


def _games(request: Request) -> list[dict[str, JSON]]:
    server = state(request)
    labels = names(server.read)
    out: list[dict[str, JSON]] = []
    for g in server.ladder.live.playing():
        seats = server.ladder.live.seats(int(g["id"])) or []
        out.append({**g, "bots": list(seats), "players": [labels.get(b, f"bot {b}") for b in seats]})
    return out


async def live_list(request: Request) -> Response:
    session = await run_in_threadpool(viewer, request) if COOKIE in request.cookies else None
    games = await run_in_threadpool(_games, request)
    nav = pages_html.nav(session.name if session else "", bool(session and session.admin), "/live")
    return html_page(f"{state(request).config.name}: live games",
                     nav + f"<main><h1>Live games</h1>{games_list(games, '/live/{id}')}</main>", scripts=False)


async def live_game(request: Request) -> Response:
    session = await run_in_threadpool(viewer, request)
    shown = await run_in_threadpool(_shown, request, access_viewer(session))
    game_id = int(str(shown["id"]))
    query = request.url.query
    nonce = secrets.token_urlsafe(16)
    text = live_page(shown, f"/live/{game_id}/events" + (f"?{query}" if query else ""), f"/games/{game_id}",
                     f"game {game_id} (live)", "/live", "← live games", nonce)
    return HTMLResponse(text, headers=security_headers(nonce))


async def live_events(request: Request) -> Response:
    session = await run_in_threadpool(viewer, request)
    who = access_viewer(session)
    await run_in_threadpool(_shown, request, who)  # refused (403, 404) before the stream starts
    server = state(request)
    game_id = path_id(request)
    # The store is read once: a game's bots (and so the viewer's roles) and their names do not change while
    # it is played; each poll after that reads the board alone, in memory (a sibling game that begins
    # later on the same deal ends the stream: the browser reconnects, and the rule is applied afresh).
    roles, elsewhere, deal_open = await run_in_threadpool(_roles, server, game_id, who)  # held stays held: safe
    players = await run_in_threadpool(_players, server, game_id)
    known = set(server.ladder.live.siblings(game_id))

    def recheck() -> bool:
        return server.ladder.stopping.is_set() or not set(server.ladder.live.siblings(game_id)) <= known

    def current() -> dict[str, JSON] | None:
        try:
            return {**share_of(server.ladder.live, game_id, roles, request, elsewhere, deal_open), "players": players}
        except Refused:
            return None

    return StreamingResponse(stream(current, recheck), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


async def api_live(request: Request) -> Response:
    """Games in progress: id, bots by seat, step, seconds played.
    ---
    responses: {200: {description: the games in progress}}
    """
    return JSONResponse({"live": await run_in_threadpool(_games, request)}, headers={"Cache-Control": "no-store"})


async def api_live_game(request: Request) -> Response:
    """One game in progress as the token's holder may see it now: the public view, the views of the seats
    it may see (its own bot's, as played), every seat's view behind the play when the delay allows.
    `seat=K` or `full=1` ask for one seat's view or every seat's: 403 when that is more than the rule allows.
    ---
    responses: {200: {description: the viewer's share of the game}, 403: {description: more than the rule allows},
                404: {description: no such game in progress}}
    """
    who = await run_in_threadpool(api_viewer, request)
    return JSONResponse(await run_in_threadpool(_shown, request, who), headers={"Cache-Control": "no-store"})


ROUTES = [
    Route("/live", live_list, include_in_schema=False), Route("/live/{id:int}", live_game, include_in_schema=False),
    Route("/live/{id:int}/events", live_events, include_in_schema=False),
    Route("/api/v1/live", api_live), Route("/api/v1/live/{id:int}", api_live_game),
]
