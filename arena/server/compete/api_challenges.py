"""The API of the competition around the ladder: choosing the version that plays, and challenges.

- `POST /api/v1/bots/{id}/use` (the owner's token): this version plays from now on (a rollback).
- `POST /api/v1/challenges` `{"opponent": BOT_ID or "participant-name"}`: games of your active bot against
  it, unranked, paired deals, until `arena match`'s sequential test decides (429 over the day's quota).
- `GET /api/v1/challenges` (yours), `GET /api/v1/challenges/{id}`: its games and the test's verdict;
  `.../games/{game}/replay` and `/signature`: a game's public record and its signature, as a ladder game's.
A challenge is its challenger's (and the organiser's): the access rule's `Item.CHALLENGE`; in its games,
each seat's stderr and fault details follow the same rule as a ladder game's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from arena.audit.signing import SUFFIX
from arena.errors import QuotaExceeded, ServerError
from arena.jsonvalue import loads
from arena.ladder import access
from arena.ladder.access import Item
from arena.ladder.competition.challenges import Challenge
from arena.ladder.results import public_path
from arena.ladder.service import Server
from arena.replay.reader import read_replay_bytes, replay_exists
from arena.server.api import _faults
from arena.server.http import ApiError, admin, answer, api_viewer, participant, path_id, state

BODY_BYTES = 4096


async def use_version(request: Request) -> Response:
    """Make this version of your bot the one that plays the ladder (a rollback); your others are retired.
    ---
    responses: {200: {description: done}, 404: {description: not a version of yours}, 409: {description: it cannot be chosen now}}
    """
    server = state(request)
    who = await run_in_threadpool(participant, request)
    bot = path_id(request)
    try:
        said = await run_in_threadpool(server.competition.choose, server, who.id, bot)
    except ServerError as exc:
        raise ApiError(404 if "no version" in str(exc) else 409, str(exc)) from None
    server.ladder.poke()
    return answer(request, {"bot": bot, "active": True, "message": said})


def opponent_bot(server: Server, value: Any) -> int:
    """A bot id, or a participant's name (its active bot); 400/404 naming what to send."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    if isinstance(value, str) and value:
        for p in server.read.participants():
            if p.name == value:
                if p.active_bot is None:
                    raise ApiError(409, f"{value!r} has no active bot to challenge")
                return p.active_bot
        raise ApiError(404, f"no participant named {value[:60]!r}: the leaderboard lists who can be challenged")
    raise ApiError(400, 'send {"opponent": BOT_ID} or {"opponent": "participant-name"}')


async def create_challenge(request: Request) -> Response:
    """Ask for games of your active bot against another bot (or a house bot): unranked, paired deals, stopping
    when `arena match`'s sequential test decides; within your quota of challenges a day.
    ---
    requestBody:
      content:
        application/json:
          schema: {type: object, properties: {opponent: {oneOf: [{type: integer}, {type: string}]}}, required: [opponent]}
          example: {opponent: house-py-heuristic}
    responses: {201: {description: the challenge}, 409: {description: it cannot be played}, 429: {description: over the day's quota}}
    """
    server = state(request)
    who = await run_in_threadpool(participant, request)
    body = await request.body()
    if len(body) > BODY_BYTES:
        raise ApiError(413, "the request is too large")
    try:
        data = loads(body)
    except ValueError:
        raise ApiError(400, 'the body must be JSON: {"opponent": BOT_ID or "participant-name"}') from None
    if not isinstance(data, dict):
        raise ApiError(400, 'the body must be a JSON object: {"opponent": ...}')
    ch = await run_in_threadpool(open_challenge, server, who.id, data.get("opponent"))
    return answer(request, {"challenge": ch.id, "status": ch.status, "follow": f"/api/v1/challenges/{ch.id}",
                            "page": f"/challenges/{ch.id}"}, 201)


def open_challenge(server: Server, participant_id: int, opponent: Any) -> Challenge:
    """A challenge for the API and the page: 429 over quota, 409 when it cannot be played."""
    bot = opponent_bot(server, opponent)
    try:
        ch = server.competition.challenge(participant_id, bot)
    except QuotaExceeded as exc:
        raise ApiError(429, str(exc), {"Retry-After": str(int(exc.retry_after) + 1)}) from None
    except ServerError as exc:
        raise ApiError(409, str(exc)) from None
    server.ladder.poke()
    return ch


def challenges(request: Request) -> Response:
    """Your challenges, newest first.
    ---
    responses: {200: {description: your challenges}}
    """
    server = state(request)
    who = participant(request)
    return answer(request, {"challenges": [challenge_summary(server, c) for c in server.competition.challenges.of(who.id)]})


def challenge_summary(server: Server, ch: Challenge) -> dict[str, Any]:
    tally, verdict, deals = server.competition.challenges.test(ch)
    lo, hi = tally.spec.bounds()
    return {"id": ch.id, "bot": ch.bot, "opponent": ch.opponent, "fillers": list(ch.fillers), "status": ch.status,
            "verdict": verdict.value if verdict is not None else None, "deals": deals, "max_games": ch.max_games,
            "llr": round(tally.llr(), 4), "llr_bounds": [round(lo, 4), round(hi, 4)], "estimate": tally.estimate(),
            "test": tally.spec.describe(ch.players), "created": ch.created, "finished": ch.finished}


def visible(request: Request, who: access.Viewer) -> tuple[Server, Challenge]:
    """The challenge in the path, if `who` may see it (the access rule: its challenger and the organiser)."""
    server = state(request)
    ch = server.competition.challenges.get(path_id(request))
    if ch is None or not access.may_see(who.role(ch.participant), Item.CHALLENGE):
        raise ApiError(404, "no such challenge of yours")
    return server, ch


def challenge_details(server: Server, ch: Challenge, who: access.Viewer) -> dict[str, Any]:
    """A challenge with its games, each seat's faults as the viewer's role towards its bot allows."""
    refs = server.read.bot_refs(ch.entrants)
    roles = {b: who.role(refs[b].owner if b in refs else None) for b in ch.entrants}
    folders = {b: r.folder for b, r in refs.items()}
    games = [{"id": g.game_id, "deal": g.round, "bots": list(g.bots), "ranks": list(g.ranks), "points": list(g.points),
              "faults": _faults(list(g.faults), list(g.bots), roles, folders),
              "replay": f"/api/v1/challenges/{ch.id}/games/{g.game_id}/replay"} for g in server.competition.challenges.games(ch)]
    return {**challenge_summary(server, ch), "games": games}


def challenge(request: Request) -> Response:
    """One of your challenges: its games and the sequential test's verdict (the challenger's and the organiser's).
    ---
    responses: {200: {description: the challenge}, 404: {description: no such challenge of yours}}
    """
    who = api_viewer(request)
    server, ch = visible(request, who)
    return answer(request, challenge_details(server, ch, who))


def _game_replay(request: Request, who: access.Viewer) -> tuple[Challenge, int, Path]:
    server, ch = visible(request, who)
    game = path_id(request, "game")
    if game not in server.competition.challenges.game_ids(ch):
        raise ApiError(404, f"game {game} is not a finished game of challenge {ch.id}")
    replay = server.competition.challenges.replay_of(game)
    if replay is None or not replay_exists(replay):
        raise ApiError(404, f"game {game} has no replay")
    return ch, game, Path(replay)


def replay_answer(request: Request, who: access.Viewer) -> Response:
    """A challenge game's replay for `who`: the public record the server signed (as a ladder game's), or the
    file as played for the organiser."""
    ch, game, full = _game_replay(request, who)
    public = public_path(full)
    if who.organiser:
        data = read_replay_bytes(full)
    else:  # made from the file as played where the public record is missing
        data = read_replay_bytes(public) if replay_exists(public) else access.public_replay(read_replay_bytes(full), ch.players)
    return Response(data, media_type="application/x-ndjson",
                    headers={"Content-Disposition": f'attachment; filename="challenge-game-{game}.jsonl"'})


def challenge_replay(request: Request) -> Response:
    """A challenge game's public record (as a ladder game's: no stderr, no fault details, no paths), or the file
    as played for the organiser.
    ---
    responses: {200: {description: the replay}, 404: {description: no such game}}
    """
    return replay_answer(request, api_viewer(request))


def challenge_signature(request: Request) -> Response:
    """The signed record of a challenge game's public record (save it beside the replay as REPLAY.sig.json).
    ---
    responses: {200: {description: the signature record}}
    """
    _ch, game, full = _game_replay(request, api_viewer(request))
    path = Path(str(public_path(full)) + SUFFIX)
    if not path.is_file():
        raise ApiError(404, f"game {game} has no signature record")
    return JSONResponse(loads(path.read_bytes()))


def upkeep(request: Request) -> Response:
    """The organiser runs the upkeep now (it runs every minute anyway): replays compressed, old ones thinned as
    `budget:` says, old reports of refused submissions emptied, the disk measured again.
    ---
    responses: {200: {description: what the sweep did, and the disk}}
    """
    admin(request)
    server = state(request)
    done = server.competition.upkeep.sweep()
    return answer(request, {**done, "disk_budget": server.competition.meter.describe(),
                            "disk_a_day": server.competition.disk_a_day()})


ROUTES = [
    Route("/api/v1/bots/{id:int}/use", use_version, methods=["POST"]),
    Route("/api/v1/challenges", create_challenge, methods=["POST"]), Route("/api/v1/challenges", challenges),
    Route("/api/v1/challenges/{id:int}", challenge),
    Route("/api/v1/challenges/{id:int}/games/{game:int}/replay", challenge_replay),
    Route("/api/v1/challenges/{id:int}/games/{game:int}/signature", challenge_signature),
    Route("/api/v1/admin/upkeep", upkeep, methods=["POST"]),
]
