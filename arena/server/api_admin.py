"""The organiser's API (admin token): participants, the ladder's pause, disabling bots, health."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from arena.errors import ServerError
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
    requestBody: {content: {application/json: {schema: {type: object, required: [name], properties: {name: {type: string}}},
                                               example: {name: alice}}}}
    responses: {201: {description: created, with the token}, 409: {description: the name is taken}}
    """
    admin(request)
    body = await _json(request)
    name = body.get("name")
    if not isinstance(name, str):
        raise ApiError(400, "give {\"name\": \"...\"}")
    try:
        who, token = state(request).add_participant(name)
    except ServerError as exc:
        raise ApiError(409 if "exists" in str(exc) else 400, str(exc)) from None
    return answer(request, {"participant": who.name, "id": who.id, "token": token}, 201)


def participants(request: Request) -> Response:
    """Every participant, with its active bot.
    ---
    responses: {200: {description: participants}}
    """
    admin(request)
    rows = state(request).read.participants()
    return answer(request, {"participants": [{"id": p.id, "name": p.name, "is_house": int(p.is_house), "created": p.created,
                                              "active_bot": p.active_bot} for p in rows]})


def _pause(request: Request, paused: bool) -> Response:
    admin(request)
    state(request).set_paused(paused)
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
    requestBody: {required: false, content: {application/json: {schema: {type: object, properties: {reason: {type: string}}},
                                                               example: {reason: plays illegal moves on purpose}}}}
    responses: {200: {description: disabled}, 404: {description: no such bot}}
    """
    admin(request)
    body = await _json(request) if await request.body() else {}
    reason = str(body.get("reason") or "disabled by the organiser")[:300]
    if not state(request).disable_bot(path_id(request), reason):
        raise ApiError(404, "no such bot")
    return answer(request, {"bot": path_id(request), "status": "disabled", "reason": reason})


def enable_bot(request: Request) -> Response:
    """Make a disabled or suspended bot its participant's active bot again.
    ---
    responses: {200: {description: enabled}, 404: {description: no such bot}}
    """
    admin(request)
    if not state(request).enable_bot(path_id(request)):
        raise ApiError(404, "no such bot")
    return answer(request, {"bot": path_id(request), "status": "active"})


def health(request: Request) -> Response:
    """The ladder's state (paused, games in flight, games stored by this process, its last error) and each
    background part's (alive, last heartbeat, restarts, last error).
    ---
    responses: {200: {description: health}, 503: {description: a background part is dead or its heartbeat is stale}}
    """
    admin(request)
    report = state(request).health()
    return answer(request, report, 200 if report["healthy"] else 503)


ROUTES = [
    Route("/api/v1/admin/participants", add_participant, methods=["POST"]),
    Route("/api/v1/admin/participants", participants, methods=["GET"]),
    Route("/api/v1/admin/ladder/pause", pause, methods=["POST"]),
    Route("/api/v1/admin/ladder/resume", resume, methods=["POST"]),
    Route("/api/v1/admin/bots/{id:int}/disable", disable_bot, methods=["POST"]),
    Route("/api/v1/admin/bots/{id:int}/enable", enable_bot, methods=["POST"]),
    Route("/api/v1/admin/health", health),
]
