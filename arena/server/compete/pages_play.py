"""Pages of the games a participant plays in person against the ladder's bots (issue 41, item 2).

The bot page carries a form ("play against this bot"); its POST starts a game
(`arena.ladder.competition.human_games`) and sends the browser to the game's page, the same page as
`arena play --human` (`arena.human.page`). The page's requests (`state`, a long poll, and `choose`, a
JSON POST carrying the session's CSRF token in `X-Arena-CSRF`) come here and are forwarded to the
seat's own server on loopback, whose per-game secret never leaves this process: only the signed-in
participant who started the game reaches its seat; anyone else (another participant, an opponent's
owner, an anonymous visitor) gets 404, as for a game that does not exist. A finished game's public
record (`access.public_replay`, as any ladder game's) is anyone's; a game in progress is its player's only.
"""

from __future__ import annotations

import secrets
import urllib.error
import urllib.request
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from arena.errors import PlayRefused
from arena.human.page import seat_page
from arena.jsonvalue import dumps, loads
from arena.ladder import access
from arena.ladder.competition.human_games import HumanGame
from arena.server.http import ApiError, path_id, state
from arena.server.pages_html import esc
from arena.server.web_session import Viewer, check_write, csrf_token, form, html_page, security_headers, viewer

FORWARD_TIMEOUT_S = 10.0  # the seat's long poll answers within LONG_POLL_S (2 s)
MAX_CHOICE_BYTES = 4096


def play_form(request: Request, session: Viewer | None, bot_id: int) -> str:
    """The bot page's form: play this bot (and other ladder bots) yourself; empty for a visitor who cannot."""
    server = state(request)
    if session is None or session.participant is None:
        return ""
    active = server.db.all("SELECT b.id, b.name, b.version, p.name AS who FROM bots b JOIN participants p "
                           "ON p.id = b.participant_id WHERE b.status = 'active' ORDER BY b.id")
    if not any(int(r["id"]) == bot_id for r in active):
        return ""
    players = server.config.players
    rules = server.config.human_games
    left = max(0, rules.per_day - server.human.used_today(session.participant.id))

    def choices(chosen: int) -> str:
        return "".join(f'<option value="{int(r["id"])}"{" selected" if int(r["id"]) == chosen else ""}>'
                       f'bot {int(r["id"])}: {esc(r["who"], 40)} / {esc(r["name"], 40)} ({esc(r["version"], 20)})</option>'
                       for r in active)

    seats = "".join(f'<option value="{s}">seat {s}</option>' for s in range(players))
    others = "".join(f'<label for="opponent{j}">other seat {j + 1}</label><select id="opponent{j}" name="opponent{j}">'
                     f"{choices(bot_id)}</select>" for j in range(players - 1))
    return (f'<section id="play"><h2>play against this bot</h2><p>an unranked game: no rating moves. You have {left} of '
            f'{rules.per_day} game(s) left today (<a href="/play">your games</a>).</p>'
            f'<form method="post" action="/bots/{bot_id}/play" class="stack">'
            f'<input type="hidden" name="csrf" value="{csrf_token(request, session)}">'
            f'<label for="seat">your seat</label><select id="seat" name="seat">{seats}</select>{others}'
            '<button type="submit">play</button></form></section>')


def _player(request: Request) -> Viewer:
    session = viewer(request)
    if session is None or session.participant is None:
        raise ApiError(401, "sign in as a participant first (your token, on the sign-in page)")
    return session


def _own(request: Request, session: Viewer) -> HumanGame:
    """The game in the path, if it is this participant's; else 404, as a game that does not exist."""
    game = state(request).human.game(path_id(request))
    if game is None or session.participant is None or game.participant != session.participant.id:
        raise ApiError(404, "no such game of yours")
    return game


async def start(request: Request) -> Response:
    """The bot page's form: start a game, then go to its page."""
    fields = await form(request)
    session = check_write(request, viewer(request), fields.get("csrf"))
    if session.participant is None:
        raise ApiError(403, "the organiser's token cannot play: sign in as a participant")
    server = state(request)
    try:
        seat = int(fields.get("seat", ""))
        opponents = [int(fields[f"opponent{j}"]) for j in range(server.config.players - 1) if f"opponent{j}" in fields]
    except ValueError:
        raise ApiError(400, "seat and opponents are numbers: use the form on a bot's page") from None
    try:
        game = await run_in_threadpool(server.human.start, session.participant.id, seat, opponents)
    except PlayRefused as exc:
        raise ApiError(exc.status, str(exc)) from None
    return RedirectResponse(f"/play/{game}/", 303)


def games(request: Request) -> Response:
    """The participant's own games against the ladder's bots."""
    session = _player(request)
    assert session.participant is not None
    rows = "".join(f'<tr><td><a href="/play/{g.id}/">{g.id}</a></td><td>{g.seat}</td>'
                   f'<td>{", ".join("you" if b is None else f"bot {b}" for b in g.bots)}</td><td>{esc(g.status)}</td>'
                   f'<td>{esc(_points(g))}</td><td>{esc(g.reason, 200)}</td>'
                   f'<td>{_replay_link(g)}</td></tr>'
                   for g in state(request).human.games_of(session.participant.id))
    body = ('<header class="nav"><nav aria-label="pages"><a href="/">leaderboard</a> <a href="/submit">submit</a>'
            '</nav></header><main><h1>your games against the ladder\'s bots</h1><p>unranked: they move no rating.</p>'
            '<table class="grid" id="human-games"><thead><tr><th>#</th><th>your seat</th><th>seats</th><th>status</th>'
            f"<th>points</th><th>note</th><th></th></tr></thead><tbody>{rows}</tbody></table></main>")
    return html_page("your games", body)


def _replay_link(game: HumanGame) -> str:
    return f'<a href="/play/{game.id}/replay.jsonl">replay</a>' if game.status == "over" and game.replay else ""


def _points(game: HumanGame) -> str:
    result = game.result if isinstance(game.result, dict) else {}
    return " / ".join(str(p) for p in result.get("points", []))


def seat(request: Request) -> Response:
    """The game's page, the seat's own (as `arena play --human`'s), for the participant who plays it."""
    session = _player(request)
    _own(request, session)
    nonce = secrets.token_urlsafe(16)
    text, _csp = seat_page(state(request).config.game, nonce, csrf_token(request, session))
    return Response(text, 200, media_type="text/html; charset=utf-8", headers=security_headers(nonce))


def _forward(url: str, body: bytes | None) -> tuple[int, bytes]:
    headers = {"Content-Type": "application/json"} if body is not None else {}
    ask = urllib.request.Request(url, data=body, headers=headers, method="POST" if body is not None else "GET")
    try:
        with urllib.request.urlopen(ask, timeout=FORWARD_TIMEOUT_S) as got:  # noqa: S310 - our own loopback seat
            return int(got.status), got.read(65536 * 16)
    except urllib.error.HTTPError as exc:
        return int(exc.code), exc.read(65536)
    except (urllib.error.URLError, OSError):
        return 0, b""


async def seat_state(request: Request) -> Response:
    """The seat's state (a long poll), forwarded; once the seat is gone, the game's end (`_end_state`)."""
    session = _player(request)
    game = _own(request, session)
    url = state(request).human.seat_url(game.id)
    since = request.query_params.get("since", "-1")
    since = since if since.lstrip("-").isdigit() and len(since) < 12 else "-1"
    human = state(request).human
    if url is not None:
        status, body = await run_in_threadpool(_forward, f"{url}state?since={since}", None)
        if status == 200:
            human.keep_state(game.id, body)  # the base of the end shown once the seat is gone
            return Response(body, 200, media_type="application/json", headers={"Cache-Control": "no-store"})
    if game.status in ("over", "failed"):
        end = _end_state(human.kept_state(game.id), game, state(request).config.game)
        return Response(end, 200, media_type="application/json", headers={"Cache-Control": "no-store"})
    return Response(status_code=503 if game.status in ("starting", "playing") else 410,
                    content=b'{"refused": "the seat is not being played now"}', media_type="application/json",
                    headers={"Cache-Control": "no-store"})


def _end_state(last: bytes | None, game: HumanGame, name: str) -> bytes:
    """The game's end for a page whose seat is gone: the seat's own `over` state where the page was
    forwarded it; else the last state it was forwarded (its view and events), closed with the result as
    stored (the seat may exit before a slow page fetches its end, and a page reloaded later has none)."""
    try:
        data = loads(last) if last is not None else {}
    except ValueError:
        data = {}
    if not isinstance(data, dict) or not data:
        data = {"game": name, "game_id": None, "seat": game.seat, "players": [], "time_control": None, "step": None,
                "view": None, "events": [], "events_dropped": 0}
    elif data.get("phase") == "over" and last is not None:  # the seat's own end, as it was forwarded
        return last
    stored = game.result if isinstance(game.result, dict) else {}
    result = {"points": stored.get("points"), "ranks": stored.get("ranks")} if game.status == "over" and stored else None
    version = data.get("version")
    return dumps({**data, "version": (version if isinstance(version, int) else 0) + 1, "phase": "over",
                  "request_id": None, "legal": [], "remaining_ms": None, "result": result,
                  **({} if result is not None else {"reason": game.reason or "the game ended without a result"})})


async def choose(request: Request) -> Response:
    """The person's choice, checked here (signed in, own game, this server's page and CSRF token) and
    then by the seat itself (`HumanTable.choose`)."""
    session = check_write(request, viewer(request), request.headers.get("x-arena-csrf"))
    game = _own(request, session)
    url = state(request).human.seat_url(game.id)
    body = await request.body()
    if len(body) > MAX_CHOICE_BYTES:
        raise ApiError(413, f"a choice is a JSON body of at most {MAX_CHOICE_BYTES} bytes")
    if url is None:
        raise ApiError(409, "refused: this game is not being played now")
    status, answer = await run_in_threadpool(_forward, f"{url}choose", body)
    if status == 0:
        raise ApiError(503, "the seat did not answer: is the game still running?")
    return Response(answer, status, media_type="application/json", headers={"Cache-Control": "no-store"})


def replay(request: Request) -> Response:
    """A finished game's public record (the bytes anyone gets of a ladder game); nothing while it is played."""
    game = state(request).human.game(path_id(request))
    if game is None or game.status != "over" or not game.replay:
        raise ApiError(404, "no such finished game")
    data = _read(game.replay)
    return Response(access.public_replay(data, len(game.bots)), 200, media_type="application/x-ndjson",
                    headers={"Cache-Control": "no-store"})


def _read(path: str) -> bytes:
    with open(path, "rb") as fh:
        return fh.read()


def _page(path: str, endpoint: Any, method: str = "GET") -> Route:
    return Route(path, endpoint, methods=[method], include_in_schema=False)


ROUTES = [
    _page("/bots/{id:int}/play", start, "POST"), _page("/play", games), _page("/play/{id:int}/", seat),
    _page("/play/{id:int}/state", seat_state), _page("/play/{id:int}/choose", choose, "POST"),
    _page("/play/{id:int}/replay.jsonl", replay),
]
