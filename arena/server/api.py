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

from arena.jsonvalue import loads
from arena.server.accounts import Participant
from arena.server.http import ApiError, answer, cached, int_param, optional_participant, participant, path_id, state
from arena.server.signing import SUFFIX


def _bot(row: Any) -> dict[str, Any]:
    return {
        "id": row["id"], "participant": row["participant"], "name": row["name"], "version": row["version"],
        "status": row["status"], "reason": row["reason"], "mu": round(row["mu"], 4), "sigma": round(row["sigma"], 4),
        "rating": round(row["mu"] - 3 * row["sigma"], 4), "games": row["games"], "wins": row["wins"],
        "faults": row["faults"], "fault_streak": row["fault_streak"], "created": row["created"],
    }


BOT_SQL = "SELECT b.*, p.name AS participant, p.id AS owner FROM bots b JOIN participants p ON p.id = b.participant_id"


def info(request: Request) -> Response:
    """The competition: game, seats, clocks, the ladder's state and the public key.
    ---
    responses: {200: {description: the competition}}
    """
    server = state(request)
    c = server.config
    counts = {r["status"]: r["n"] for r in server.db.all("SELECT status, COUNT(*) AS n FROM games GROUP BY status")}
    return answer(request, {
        "api": "v1", "name": c.name, "game": c.game, "options": dict(c.options), "players": c.players,
        "time_control": c.time_control.to_json(),
        "sandbox": server.sandbox, "paused": server.ladder.paused, "ladder_error": server.ladder.error,
        "games": counts.get("done", 0), "in_flight": counts.get("pending", 0), "public_key": server.public_key,
        "runtimes": list(c.runtimes), "manifest": "manifest.json: {\"name\", \"version\", \"command\"} or {\"name\", \"version\", \"language\"}",
        "languages": [lang.to_json() for lang in c.build.languages], "build_limits": c.build.limits.describe(),
    })


def public_key(request: Request) -> Response:
    """The server's Ed25519 public key (PEM): `arena verify --key KEY REPLAY` checks replays with it.
    ---
    responses: {200: {description: PEM text}}
    """
    return PlainTextResponse(state(request).public_key)


def leaderboard(request: Request) -> Response:
    """Active bots by conservative rating (mu - 3 sigma).
    ---
    parameters: [{name: all, in: query, description: "1: every version, not only active ones", schema: {type: integer}}]
    responses: {200: {description: the leaderboard}}
    """
    every = request.query_params.get("all") == "1"
    where = "" if every else " WHERE b.status = 'active'"

    return cached(request, ("leaderboard", every), lambda: leaderboard_rows(state(request).db, every))


FORM_GAMES = 5


def leaderboard_rows(db: Any, every: bool = False) -> dict[str, Any]:
    """The leaderboard's answer: each bot with its rating interval (mu +- 3 sigma) and recent form, its
    last games newest first: "W" won (rank 1 alone), "D" shared first place, "L" otherwise."""
    where = "" if every else " WHERE b.status = 'active'"
    rows = db.all(f"{BOT_SQL}{where} ORDER BY b.mu - 3 * b.sigma DESC, b.id LIMIT 1000")
    out = []
    for i, r in enumerate(rows):
        last = db.all("SELECT s.rank, (SELECT COUNT(*) FROM game_seats t WHERE t.game_id = s.game_id AND t.rank = 1) AS firsts "
                      "FROM game_seats s WHERE s.bot_id = ? ORDER BY s.game_id DESC LIMIT ?", r["id"], FORM_GAMES)
        form = "".join("L" if g["rank"] != 1 else ("W" if g["firsts"] == 1 else "D") for g in last)
        out.append({"rank": i + 1, **_bot(r), "interval": [round(r["mu"] - 3 * r["sigma"], 2), round(r["mu"] + 3 * r["sigma"], 2)],
                    "form": form})
    return {"leaderboard": out}


def _faults(raw: str | None, seats: list[int], mine: set[int]) -> list[dict[str, Any]]:
    out = []
    for fault in loads(raw) if raw else []:
        seat = int(fault.get("seat", -1))
        bot = seats[seat] if 0 <= seat < len(seats) else None
        item = {**fault, "bot": bot}
        if bot not in mine:
            item.pop("stderr_tail", None)  # a bot's stderr is its owner's alone
        out.append(item)
    return out


def bot_page(request: Request) -> Response:
    """One bot version: rating, its participant's versions, recent games, rating history, faults.
    Stderr tails only for its owner (with the owner's token).
    ---
    responses: {200: {description: the bot}, 404: {description: no such bot}}
    """
    bot = path_id(request)
    limit = int_param(request, "games", 20, 1, 200)
    db = state(request).db
    if "authorization" not in request.headers:
        return cached(request, ("bot", bot, limit), lambda: bot_details(db, bot, limit, None))
    return answer(request, bot_details(db, bot, limit, optional_participant(request)))


def bot_details(db: Any, bot: int, limit: int, viewer: Participant | None) -> dict[str, Any]:
    """One bot as the API and the bot page show it; stderr tails and its command only when `viewer` owns it."""
    row = db.one(f"{BOT_SQL} WHERE b.id = ?", bot)
    if row is None:
        raise ApiError(404, f"no bot {bot}")
    owner = viewer if viewer is not None and viewer.id == int(row["owner"]) else None
    mine = {bot} if owner is not None else set()
    versions = db.all("SELECT id, version, status, created, games, mu, sigma FROM bots WHERE participant_id = ? ORDER BY id",
                      row["owner"])
    games = db.all("SELECT g.id, g.seats, g.result, g.faults, g.finished, s.seat, s.rank, s.points, s.faults AS nf, s.mu, s.sigma "
                   "FROM game_seats s JOIN games g ON g.id = s.game_id WHERE s.bot_id = ? ORDER BY s.game_id DESC LIMIT ?",
                   bot, limit)
    history = db.all("SELECT game_id, mu, sigma FROM game_seats WHERE bot_id = ? ORDER BY game_id DESC LIMIT 500", bot)
    recent = []
    faults = []
    for g in games:
        seats = loads(g["seats"])
        recent.append({"game": g["id"], "seat": g["seat"], "rank": g["rank"], "points": g["points"], "faults": g["nf"],
                       "bots": seats, "finished": g["finished"]})
        if g["nf"]:
            faults += [{**f, "game": g["id"]} for f in _faults(g["faults"], seats, mine) if f["bot"] == bot]
    body = {**_bot(row), "versions": [dict(v) for v in versions], "recent_games": recent, "faults": faults,
            "rating_history": [{"game": h["game_id"], "mu": h["mu"], "sigma": h["sigma"]} for h in reversed(history)],
            "owner_view": owner is not None}
    if owner is not None:
        body["command"] = loads(row["command"])
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
    db = state(request).db
    limit = int_param(request, "limit", 50, 1, 500)
    before = int_param(request, "before", 2**62, 0, 2**62)
    bot = request.query_params.get("bot")
    if bot is not None:
        rows = db.all("SELECT g.id, g.seats, g.result, g.finished FROM game_seats s JOIN games g ON g.id = s.game_id "
                      "WHERE s.bot_id = ? AND s.game_id < ? ORDER BY s.game_id DESC LIMIT ?",
                      int_param(request, "bot", 0, 0, 2**62), before, limit)
    else:
        rows = db.all("SELECT id, seats, result, finished FROM games WHERE status = 'done' AND id < ? ORDER BY id DESC LIMIT ?",
                      before, limit)
    return answer(request, {"games": [{"id": r["id"], "bots": loads(r["seats"]), "result": loads(r["result"]),
                                       "finished": r["finished"]} for r in rows]})


def _game(request: Request) -> Any:
    game = path_id(request)
    row = state(request).db.one("SELECT * FROM games WHERE id = ? AND status = 'done'", game)
    if row is None:
        raise ApiError(404, f"no finished game {game}")
    return row


def _my_bots(request: Request, seats: list[int]) -> set[int]:
    who = optional_participant(request)
    if who is None:
        return set()
    rows = state(request).db.all(f"SELECT id FROM bots WHERE participant_id = ? AND id IN ({','.join('?' * len(seats))})",
                                 who.id, *seats)
    return {int(r["id"]) for r in rows}


def game(request: Request) -> Response:
    """One finished game: bots by seat, result, faults (stderr tails only for their owners), SHA-256, signature.
    ---
    responses: {200: {description: the game}, 404: {description: no such game}}
    """
    row = _game(request)
    seats = loads(row["seats"])
    return answer(request, {"id": row["id"], "bots": seats, "seed": row["seed"], "result": loads(row["result"]),
                            "faults": _faults(row["faults"], seats, _my_bots(request, seats)), "finished": row["finished"],
                            "sha256": row["sha256"], "signature": row["signature"]})


def replay(request: Request) -> Response:
    """The replay file (JSON lines). It holds the bots' commands and stderr tails, so only a participant
    with a bot in the game (or the admin) may download it.
    ---
    responses: {200: {description: the replay}, 401: {description: no token}, 403: {description: not yours}}
    """
    row = _game(request)
    _may_see(request, loads(row["seats"]))
    if not row["replay"] or not Path(row["replay"]).is_file():
        raise ApiError(404, f"game {row['id']} has no replay")
    return FileResponse(row["replay"], media_type="application/x-ndjson", filename=f"game-{row['id']}.jsonl")


def signature(request: Request) -> Response:
    """The signed result record of a game (save it beside the replay as REPLAY.sig.json).
    ---
    responses: {200: {description: the signature record}}
    """
    row = _game(request)
    path = Path(str(row["replay"]) + SUFFIX)
    if not path.is_file():
        raise ApiError(404, f"game {row['id']} has no signature record")
    return JSONResponse(loads(path.read_bytes()))


def _may_see(request: Request, seats: list[int]) -> None:
    server = state(request)
    from arena.server.http import bearer

    if server.is_admin(bearer(request)):
        return
    if not _my_bots(request, seats):
        raise ApiError(403, "only participants with a bot in this game may download its replay")


async def submit(request: Request) -> Response:
    """Upload a bot: the body is the archive (zip or tar.gz) with manifest.json at its top.
    202 when it goes to the check (follow /api/v1/submissions/ID), 422 with the reason when refused.
    ---
    requestBody: {content: {application/octet-stream: {schema: {type: string, format: binary}}}}
    responses: {202: {description: accepted for checking}, 422: {description: refused}, 429: {description: too many}}
    """
    server = state(request)
    who = await run_in_threadpool(participant, request)
    if who.is_house:
        raise ApiError(403, "house bots are set in the server's config")
    wait = server.rate.take(who.id)
    if wait:
        raise ApiError(429, f"over {server.config.submissions_per_minute} submissions a minute; try again in {wait:.0f} s",
                       {"Retry-After": str(int(wait) + 1)})
    data = await request.body()
    if not data:
        raise ApiError(400, "an empty upload: send the archive's bytes as the request body")
    sub, refused = await run_in_threadpool(server.submit, who.id, data)
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
    row = state(request).db.one("SELECT * FROM submissions WHERE id = ?", sub)
    if row is None:
        raise ApiError(404, f"no submission {sub}")
    if int(row["participant_id"]) != who.id:
        raise ApiError(403, "this submission is another participant's")
    return answer(request, {"submission": sub, "status": row["status"], "reason": row["reason"], "report": row["report"],
                            "bot": row["bot_id"], "created": row["created"], "finished": row["finished"]})


def me(request: Request) -> Response:
    """The token's participant, its bots and its submissions.
    ---
    responses: {200: {description: you}}
    """
    who = participant(request)
    db = state(request).db
    bots = db.all(f"{BOT_SQL} WHERE b.participant_id = ? ORDER BY b.id", who.id)
    subs = db.all("SELECT id, status, reason, bot_id, created FROM submissions WHERE participant_id = ? ORDER BY id DESC LIMIT 50",
                  who.id)
    return answer(request, {"participant": who.name, "bots": [_bot(b) for b in bots], "submissions": [dict(s) for s in subs]})


def bot_files(request: Request) -> Response:
    """The files of one of your bots (names and sizes): its owner only.
    ---
    responses: {200: {description: files}, 403: {description: not yours}}
    """
    who = participant(request)
    row = state(request).db.one("SELECT participant_id, folder FROM bots WHERE id = ?", path_id(request))
    if row is None:
        raise ApiError(404, "no such bot")
    if int(row["participant_id"]) != who.id:
        raise ApiError(403, "this bot is another participant's")
    root = Path(row["folder"])
    files = [{"path": str(p.relative_to(root)), "bytes": p.stat().st_size} for p in sorted(root.rglob("*")) if p.is_file()]
    return answer(request, {"files": files[:2000]})


ROUTES = [
    Route("/api/v1", info), Route("/api/v1/public-key", public_key), Route("/api/v1/leaderboard", leaderboard),
    Route("/api/v1/bots/{id:int}", bot_page), Route("/api/v1/bots/{id:int}/files", bot_files),
    Route("/api/v1/games", games), Route("/api/v1/games/{id:int}", game), Route("/api/v1/games/{id:int}/replay", replay),
    Route("/api/v1/games/{id:int}/signature", signature), Route("/api/v1/submissions", submit, methods=["POST"]),
    Route("/api/v1/submissions/{id:int}", submission), Route("/api/v1/me", me),
]
