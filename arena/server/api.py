"""The JSON API, version 1 (`/api/v1/...`); its OpenAPI document is `/api/v1/openapi.json`.

Public: the competition, the leaderboard, bots, versions, games, signatures and the public key.
A participant's token: submit, follow its submissions, its bots' stderr, files and replays.
The admin token (`arena.server.api_admin`): participants, pausing the ladder, disabling bots.
Route docstrings are the OpenAPI operations (YAML after the `---`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from arena.jsonvalue import JSON, loads
from arena.ladder import access
from arena.ladder.access import Item, Role
from arena.ladder.queries import BotRow, GameRow, Reads
from arena.ladder.results import public_path
from arena.ladder.states import GameState
from arena.server.http import ApiError, answer, api_viewer, cached, int_param, participant, path_id, state, take_upload
from arena.audit.signing import SUFFIX
from arena.server.competition.api_competition import uploads_open
from arena.replay.reader import read_replay_bytes, replay_exists


def _bot(bot: BotRow) -> dict[str, Any]:
    return {
        "id": bot.id, "participant": bot.participant, "name": bot.name, "version": bot.version, "status": bot.status.value,
        "reason": bot.reason, "mu": round(bot.mu, 4), "sigma": round(bot.sigma, 4), "rating": round(bot.rating, 4),
        "games": bot.games, "wins": bot.wins, "faults": bot.faults, "fault_streak": bot.fault_streak, "created": bot.created,
    }


def info(request: Request) -> Response:
    """The competition: game, seats, clocks, the ladder's state and the public key.
    ---
    responses: {200: {description: the competition}}
    """
    server = state(request)
    c = server.config
    counts = server.read.game_counts()
    return answer(request, {
        "api": "v1", "name": c.name, "game": c.game, "options": dict(c.options), "players": c.players,
        "time_control": c.time_control.to_json(),
        "sandbox": server.sandbox, "paused": server.paused, "ladder_error": server.ladder.error,
        "games": counts.get(GameState.DONE, 0), "in_flight": counts.get(GameState.PENDING, 0), "public_key": server.public_key,
        "runtimes": list(c.runtimes), "manifest": "manifest.json: {\"name\", \"version\", \"command\"} or {\"name\", \"version\", \"language\"}",
        "languages": [lang.to_json() for lang in c.build.languages], "build_limits": c.build.limits.describe(),
        "phase": server.phases.banner()[1],  # e.g. "phase: open; deadline 2026-12-01 18:00 (UTC+01:00)"
        "workers": [{"worker": f"worker {i + 1}", "games_per_minute": w.get("games_per_minute", 0), "plays": w.get("plays", True),
                     "cache": {k: v for k, v in dict(w.get("cache") or {}).items() if k != "folder"}}
                    for i, w in enumerate(server.ladder.workers_status())],  # no address or folder: those are the organiser's
    })


def public_key(request: Request) -> Response:
    """The server's Ed25519 public key (PEM): `arena verify --key KEY REPLAY` checks replays with it.
    ---
    responses: {200: {description: PEM text}}
    """
    return PlainTextResponse(state(request).public_key)


async def leaderboard(request: Request) -> Response:
    """Active bots by conservative rating (mu - 3 sigma).
    ---
    parameters: [{name: all, in: query, description: "1: every version, not only active ones", schema: {type: integer}}]
    responses: {200: {description: the leaderboard}}
    """
    every = request.query_params.get("all") == "1"
    return await cached(request, ("leaderboard", every), lambda: leaderboard_rows(state(request).read, every))


FORM_GAMES = 5


def leaderboard_rows(read: Reads, every: bool = False) -> dict[str, Any]:
    """The leaderboard's answer: each bot with its rating interval (mu +- 3 sigma) and recent form, its
    last games newest first: "W" won (rank 1 alone), "D" shared first place, "L" otherwise."""
    out = []
    for i, bot in enumerate(read.ranked(every)):
        form = "".join("L" if rank != 1 else ("W" if firsts == 1 else "D") for rank, firsts in read.form(bot.id, FORM_GAMES))
        out.append({"rank": i + 1, **_bot(bot), "interval": [round(bot.mu - 3 * bot.sigma, 2), round(bot.mu + 3 * bot.sigma, 2)],
                    "form": form})
    return {"leaderboard": out}


def _faults(faults: list[dict[str, JSON]], seats: list[int], roles: dict[int, Role], folders: dict[int, str]) -> list[dict[str, Any]]:
    """A game's stored faults, each with its bot, as the viewer (its role towards each bot) may see them."""
    out = []
    for item in faults:
        seat = item.get("seat")
        bot = seats[seat] if isinstance(seat, int) and 0 <= seat < len(seats) else None
        role = roles.get(bot, Role.ANONYMOUS) if bot is not None else Role.ANONYMOUS
        shown = access.hide_paths(access.fault(item, role), list(folders.values()), role)
        out.append({**(shown if isinstance(shown, dict) else {}), "bot": bot})
    return out


async def bot_page(request: Request) -> Response:
    """One bot version: rating, its participant's versions, recent games, rating history, faults.
    Fault details and stderr tails only for its owner (with the owner's token) and the organiser.
    ---
    responses: {200: {description: the bot}, 404: {description: no such bot}}
    """
    bot = path_id(request)
    limit = int_param(request, "games", 20, 1, 200)
    read = state(request).read
    if "authorization" not in request.headers:
        return await cached(request, ("bot", bot, limit), lambda: bot_details(read, bot, limit, access.ANONYMOUS))
    return answer(request, await run_in_threadpool(lambda: bot_details(read, bot, limit, api_viewer(request))))


def bot_details(read: Reads, bot_id: int, limit: int, viewer: access.Viewer) -> dict[str, Any]:
    """One bot as the API and the bot page show it to `viewer`, by the access rule (`arena.ladder.access`)."""
    bot = read.bot(bot_id)
    if bot is None:
        raise ApiError(404, f"no bot {bot_id}")
    role = viewer.role(bot.owner)
    recent = []
    faults = []
    seats = read.seats_of(bot_id, limit)
    held = read.deal_open([g.game for g in seats if g.faults])
    for g in seats:
        recent.append({"game": g.game, "seat": g.seat, "rank": g.rank, "points": g.points, "faults": g.faults,
                       "bots": g.bots, "finished": g.finished})
        if g.faults:
            shown = access.while_held(role, access.hands_held(viewer.role(None), g.game in held))
            withheld = shown is not role and access.may_see(role, Item.STDERR)  # its owner reads them once the deal is out
            faults += [{**f, "game": g.game, **({"held": True} if withheld else {})}
                       for f in _faults(g.game_faults, g.bots, {bot_id: shown}, {bot_id: bot.folder}) if f["bot"] == bot_id]
    versions = [{"id": v.id, "version": v.version, "status": v.status.value, "created": v.created, "games": v.games,
                 "mu": v.mu, "sigma": v.sigma} for v in read.versions(bot.owner)]
    body = {**_bot(bot), "versions": versions, "recent_games": recent, "faults": faults,
            "rating_history": [{"game": g, "mu": mu, "sigma": sigma} for g, mu, sigma in read.rating_history(bot_id)],
            "owner_view": access.may_see(role, Item.STDERR)}
    command = access.command(bot.command, bot.folder, role)
    if command is not None:
        body["command"] = command
    return body


def games(request: Request) -> Response:
    """Finished games, newest first; `bot` filters to one bot's, `before` pages back.
    ---
    parameters:
      - {name: bot, in: query, schema: {type: integer}}
      - {name: before, in: query, schema: {type: integer}}
      - {name: limit, in: query, schema: {type: integer}}
    responses: {200: {description: games}}
    """
    limit = int_param(request, "limit", 50, 1, 500)
    before = int_param(request, "before", 2**62, 0, 2**62)
    bot = int_param(request, "bot", 0, 0, 2**62) if request.query_params.get("bot") is not None else None
    rows = state(request).read.finished_games(bot, before, limit)
    return answer(request, {"games": [{"id": g.id, "bots": g.seats, "result": g.result, "finished": g.finished} for g in rows]})


def _game(request: Request) -> GameRow:
    game_id = path_id(request)
    row = state(request).read.finished_game(game_id)
    if row is None:
        raise ApiError(404, f"no finished game {game_id}")
    return row


def _seats(request: Request, seats: list[int]) -> tuple[dict[int, Role], dict[int, str]]:
    """The viewer's role towards each bot of a game, and each bot's folder."""
    viewer = api_viewer(request)
    refs = state(request).read.bot_refs(seats)
    return ({b: viewer.role(refs[b].owner if b in refs else None) for b in seats},
            {b: ref.folder for b, ref in refs.items()})


def game(request: Request) -> Response:
    """One finished game: bots by seat, result, faults (as the access rule shows them), SHA-256, signature;
    `deal` is shared by the games played on one deal (its seat rotations); the seed played is in the replay.
    `held`: another game of its deal is still to be played, so its replay is withheld (403) and its faults
    show their kind and step only, until the deal is over (the organiser's token sees everything).
    ---
    responses: {200: {description: the game}, 404: {description: no such game}}
    """
    g = _game(request)
    roles, folders = _seats(request, g.seats)
    held = _held(request, g)
    roles = {b: access.while_held(r, held) for b, r in roles.items()}
    return answer(request, {"id": g.id, "bots": g.seats, "deal": g.deal, "result": g.result,
                            "faults": _faults(g.faults, g.seats, roles, folders), "finished": g.finished,
                            "sha256": g.sha256, "signature": g.signature, "held": held})


def _held(request: Request, g: GameRow) -> bool:
    """Are game `g`'s hands withheld from this viewer now (`access.hands_held`: its deal is still played)?"""
    return access.hands_held(api_viewer(request).role(None), g.id in state(request).read.deal_open([g.id]))


def held_error(game_id: int) -> ApiError:
    return ApiError(403, f"game {game_id}'s deal is still being played at another table: its replay is shown "
                    "once every game of the deal is over", {"Cache-Control": "no-store"})


def replay(request: Request) -> Response:
    """The replay file (JSON lines): the game's public record (no stderr, no fault details, no commands
    or paths; the file the server signs, the same for everyone), or the file as played for the organiser.
    403 while another game of its deal is still to be played (its hands are the deal's), but for the organiser.
    ---
    responses: {200: {description: the replay}, 403: {description: its deal is still being played}, 404: {description: no such game}}
    """
    g = _game(request)
    full = Path(g.replay) if g.replay else None
    if full is None or not replay_exists(full):
        raise ApiError(404, f"game {g.id} has no replay")
    if _held(request, g):
        raise held_error(g.id)
    name = f"game-{g.id}.jsonl"
    if api_viewer(request).organiser:
        if full.is_file():
            return FileResponse(full, media_type="application/x-ndjson", filename=name)
        return Response(read_replay_bytes(full), media_type="application/x-ndjson",  # compressed at rest
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})
    public = public_path(full)
    data = read_replay_bytes(public) if replay_exists(public) else access.public_replay(read_replay_bytes(full), len(g.seats))
    return Response(data, media_type="application/x-ndjson", headers={"Content-Disposition": f'attachment; filename="{name}"'})


def signature(request: Request) -> Response:
    """The signed result record of a game's public record (save it beside the replay as REPLAY.sig.json).
    ---
    responses: {200: {description: the signature record}}
    """
    g = _game(request)
    path = Path(str(public_path(Path(str(g.replay)))) + SUFFIX)
    if not path.is_file():
        path = Path(str(g.replay) + SUFFIX)  # a game stored before the public record was signed
    if not path.is_file():
        raise ApiError(404, f"game {g.id} has no signature record")
    return JSONResponse(loads(path.read_bytes()))


async def submit(request: Request) -> Response:
    """Upload a bot: the body is the archive (zip or tar.gz) with manifest.json at its top.
    202 when it goes to the check (follow /api/v1/submissions/ID), 422 with the reason when refused.
    ---
    requestBody: {content: {application/octet-stream: {schema: {type: string, format: binary}}}}
    responses: {202: {description: accepted for checking}, 403: {description: 'uploads closed since <time> (the deadline has passed)'},
                422: {description: refused}, 429: {description: too many},
                507: {description: the server's disk is full; nothing stored, try again later}}
    """
    server = state(request)
    who = await run_in_threadpool(participant, request)
    if who.is_house:
        raise ApiError(403, "house bots are set in the server's config")
    await uploads_open(request)  # 403 "uploads closed since <time>" after the deadline
    wait = server.rate.take(who.id)
    if wait:
        raise ApiError(429, f"over {server.config.submissions_per_minute} submissions a minute; try again in {wait:.0f} s",
                       {"Retry-After": str(int(wait) + 1)})
    data = await request.body()
    if not data:
        raise ApiError(400, "an empty upload: send the archive's bytes as the request body")
    sub, refused = await take_upload(server, who.id, data)
    if refused is not None:
        return answer(request, {"submission": sub, "status": "refused", "error": refused}, 422)
    return answer(request, {"submission": sub, "status": "received", "follow": f"/api/v1/submissions/{sub}"}, 202)


def submission(request: Request) -> Response:
    """A submission's status, verdict and check report (with the bot's stderr): its owner only.
    ---
    responses: {200: {description: the submission}, 403: {description: not yours}}
    """
    who = participant(request)
    sub = path_id(request)
    row = state(request).read.submission(sub)
    if row is None:
        raise ApiError(404, f"no submission {sub}")
    if row.participant != who.id:
        raise ApiError(403, "this submission is another participant's")
    return answer(request, {"submission": sub, "status": row.status.value, "reason": row.reason,
                            "report": access.hide_paths(row.report, [row.folder], Role.OWNER), "bot": row.bot,
                            "created": row.created, "finished": row.finished})


def me(request: Request) -> Response:
    """The token's participant, its bots and its submissions.
    ---
    responses: {200: {description: you}}
    """
    who = participant(request)
    read = state(request).read
    subs = [{"id": s.id, "status": s.status.value, "reason": s.reason, "bot_id": s.bot, "created": s.created}
            for s in read.submissions_of(who.id, 50)]
    return answer(request, {"participant": who.name, "bots": [_bot(b) for b in read.bots_of(who.id)], "submissions": subs})


def bot_files(request: Request) -> Response:
    """The files of one of your bots (names and sizes): its owner only.
    ---
    responses: {200: {description: files}, 403: {description: not yours}}
    """
    who = participant(request)
    bot = path_id(request)
    ref = state(request).read.bot_refs([bot]).get(bot)
    if ref is None:
        raise ApiError(404, "no such bot")
    if not access.may_see(access.Viewer(who.id).role(ref.owner), Item.COMMAND):
        raise ApiError(403, "this bot is another participant's")
    root = Path(ref.folder)
    files = [{"path": str(p.relative_to(root)), "bytes": p.stat().st_size} for p in sorted(root.rglob("*")) if p.is_file()]
    return answer(request, {"files": files[:2000]})


ROUTES = [
    Route("/api/v1", info), Route("/api/v1/public-key", public_key), Route("/api/v1/leaderboard", leaderboard),
    Route("/api/v1/bots/{id:int}", bot_page), Route("/api/v1/bots/{id:int}/files", bot_files),
    Route("/api/v1/games", games), Route("/api/v1/games/{id:int}", game), Route("/api/v1/games/{id:int}/replay", replay),
    Route("/api/v1/games/{id:int}/signature", signature), Route("/api/v1/submissions", submit, methods=["POST"]),
    Route("/api/v1/submissions/{id:int}", submission), Route("/api/v1/me", me),
]
