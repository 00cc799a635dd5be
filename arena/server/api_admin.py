"""The organiser's API (admin token): participants, the ladder's pause, disabling bots, health."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from arena.errors import ServerError
from arena.ladder.accounts import create_participant, set_bot_status
from arena.server.http import ApiError, admin, answer, path_id, state


async def _json(request: Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except ValueError:
        raise ApiError(400, "the body must be a JSON object") from None
    if not isinstance(body, dict):
        raise ApiError(400, "the body must be a JSON object")
    return body


async def add_participant(request: Request) -> Response:
    """Create a participant; the answer holds its token, shown this once.
    ---
    requestBody: {content: {application/json: {schema: {type: object, properties: {name: {type: string}}}}}}
    responses: {201: {description: created, with the token}, 409: {description: the name is taken}}
    """
    admin(request)
    body = await _json(request)
    name = body.get("name")
    if not isinstance(name, str):
        raise ApiError(400, "give {\"name\": \"...\"}")
    try:
        who, token = create_participant(state(request).db, name)
    except ServerError as exc:
        raise ApiError(409 if "exists" in str(exc) else 400, str(exc)) from None
    return answer(request, {"participant": who.name, "id": who.id, "token": token}, 201)


def participants(request: Request) -> Response:
    """Every participant, with its active bot.
    ---
    responses: {200: {description: participants}}
    """
    admin(request)
    rows = state(request).db.all(
        "SELECT p.id, p.name, p.is_house, p.created, (SELECT b.id FROM bots b WHERE b.participant_id = p.id "
        "AND b.status = 'active') AS active_bot FROM participants p ORDER BY p.id")
    return answer(request, {"participants": [dict(r) for r in rows]})


def _pause(request: Request, paused: bool) -> Response:
    admin(request)
    server = state(request)
    server.db.set_setting("paused", "1" if paused else "0")
    server.ladder.poke()
    return answer(request, {"paused": paused})


def pause(request: Request) -> Response:
    """Pause the ladder: games in flight finish, no new ones start.
    ---
    responses: {200: {description: paused}}
    """
    return _pause(request, True)


def resume(request: Request) -> Response:
    """Resume the ladder.
    ---
    responses: {200: {description: resumed}}
    """
    return _pause(request, False)


async def disable_bot(request: Request) -> Response:
    """Disable a bot: it plays no more games; its games and ratings stay.
    ---
    responses: {200: {description: disabled}, 404: {description: no such bot}}
    """
    admin(request)
    body = await _json(request) if await request.body() else {}
    reason = str(body.get("reason") or "disabled by the organiser")[:300]
    if not set_bot_status(state(request).db, path_id(request), "disabled", reason):
        raise ApiError(404, "no such bot")
    return answer(request, {"bot": path_id(request), "status": "disabled", "reason": reason})


def enable_bot(request: Request) -> Response:
    """Make a disabled or suspended bot its participant's active bot again.
    ---
    responses: {200: {description: enabled}, 404: {description: no such bot}}
    """
    admin(request)
    if not set_bot_status(state(request).db, path_id(request), "active", ""):
        raise ApiError(404, "no such bot")
    state(request).ladder.poke()
    return answer(request, {"bot": path_id(request), "status": "active"})


def health(request: Request) -> Response:
    """The ladder's state (paused, games in flight, games stored by this process, its last error) and each
    background part's (alive, last heartbeat, restarts, last error).
    ---
    responses: {200: {description: health}, 503: {description: a background part is dead or its heartbeat is stale}}
    """
    admin(request)
    report = health_report(state(request))
    return answer(request, report, 200 if report["healthy"] else 503)


def health_report(server: Any) -> dict[str, Any]:
    """The API's health answer and the admin page's: 503 while a background part is dead or stale."""
    ladder = server.ladder
    queued = server.db.one("SELECT COUNT(*) AS n FROM submissions WHERE status IN ('received', 'checking')")
    parts = server.supervisor.health()
    return {"healthy": all(not p["stale"] for p in parts), "paused": ladder.paused, "in_flight": len(ladder.inflight),
            "field": list(ladder.field), "played_since_start": ladder.played, "ladder_error": ladder.error,
            "ladder_alive": server.supervisor.parts["ladder"].alive, "checks_waiting": queued["n"] if queued else 0,
            "parts": parts}


ROUTES = [
    Route("/api/v1/admin/participants", add_participant, methods=["POST"]),
    Route("/api/v1/admin/participants", participants, methods=["GET"]),
    Route("/api/v1/admin/ladder/pause", pause, methods=["POST"]),
    Route("/api/v1/admin/ladder/resume", resume, methods=["POST"]),
    Route("/api/v1/admin/bots/{id:int}/disable", disable_bot, methods=["POST"]),
    Route("/api/v1/admin/bots/{id:int}/enable", enable_bot, methods=["POST"]),
    Route("/api/v1/admin/health", health),
]
