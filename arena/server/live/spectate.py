"""One viewer's share of a game in progress, for every channel (the live page, its SSE stream, the JSON).

The share comes from the one rule, `arena.ladder.access.live_share`, given the viewer's role towards
each seat; nothing here widens it. A request may narrow what it asks for (`?seat=K`: one seat's view;
`?full=1`: every seat's view now) and is refused (403) when that is more than its share: asking is never
a way round the rule, and a refusal says so rather than quietly showing less.
"""

from __future__ import annotations

import asyncio
from typing import AsyncIterator, Callable, Sequence

from starlette.exceptions import HTTPException
from starlette.requests import Request

from arena.jsonvalue import JSON, dumps_str
from arena.ladder import access
from arena.ladder.access import Role
from arena.live.board import LiveBoard

POLL_S = 0.25
KEEPALIVE_S = 15.0
MAX_STREAM_S = 600.0  # a stream ends after this (the browser reconnects by itself): no connection held for ever


class Refused(HTTPException):
    def __init__(self, status: int, detail: str) -> None:
        super().__init__(status, detail)


def share_of(board: LiveBoard, game_id: int, roles: Sequence[Role], request: Request,
             elsewhere: Sequence[Role] = (), deal_open: bool = False) -> dict[str, JSON]:
    """What this viewer sees of game `game_id` now, narrowed to what the request asks; 404 when no such
    game is in progress (or just over) here, 403 when it asks for more than its share. `elsewhere`: its
    roles towards the bots playing the same deal at other tables; `deal_open`: another game of the deal is
    still to be played (both `access.live_share`)."""
    over = board.over(game_id)
    share = access.live_share(roles, over, elsewhere, deal_open)
    if not share.public:
        raise Refused(403, "your bot is playing this game's deal at another table: this game is shown to you "
                      "once it is over")
    asked = request.query_params.get("seat")
    seats = share.seats
    if asked is not None:
        if not asked.isdigit() or int(asked) not in share.seats:
            raise Refused(403, f"seat {asked[:8]}'s view of this game is not yours to see while it is played")
        seats = frozenset({int(asked)})
    if request.query_params.get("full") not in (None, "0") and len(share.seats) < len(roles):
        raise Refused(403, "every hand of this game is shown only "
                      + ("after the delay, behind the play" if share.delayed else
                         "once every game of its deal is over" if deal_open else "once it is over"))
    shown = board.show(game_id, seats, share.delayed and asked is None)
    if shown is None:
        raise Refused(404, f"no game {game_id} in progress here (a finished game has its own page)")
    return shown


def sse(data: dict[str, JSON]) -> str:
    return f"event: frame\ndata: {dumps_str(data)}\n\n"


async def stream(current: Callable[[], dict[str, JSON] | None], stopping: Callable[[], bool]) -> AsyncIterator[str]:
    """`frame` events, each the viewer's share when it changed; `over` once the game is over (then the
    stream ends), or `gone` when the game left the board. `stopping()` true ends the stream as it is (the
    browser reconnects by itself: the server stops, or the rule must be applied afresh)."""
    yield "retry: 2000\n\n"
    last = ""
    loop = asyncio.get_running_loop()
    began = quiet = loop.time()
    while True:
        shown = current()
        if shown is None:
            yield "event: gone\ndata: {}\n\n"
            return
        text = dumps_str(shown)
        if text != last:
            last, quiet = text, loop.time()
            yield f"event: frame\ndata: {text}\n\n"
        if shown.get("over"):
            yield "event: over\ndata: {}\n\n"
            return
        if loop.time() - began >= MAX_STREAM_S or stopping():
            return
        if loop.time() - quiet >= KEEPALIVE_S:
            quiet = loop.time()
            yield ": keep-alive\n\n"
        await asyncio.sleep(POLL_S)
