"""The competition's API: its phase (public), and the organiser's phase changes and accounts (admin token).

Route docstrings are the OpenAPI operations (YAML after the `---`), request bodies with examples.
"""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from arena.errors import AccountError, PhaseError, UploadsClosed
from arena.ladder.competition.phases import PhaseState
from arena.ladder.competition.roster import check_people
from arena.ladder.service import Server
from arena.server.api_admin import _json
from arena.server.http import ApiError, admin, answer, state

MAX_ACCOUNTS = 5000


def phase_body(server: Server, found: PhaseState, history: bool = False) -> dict[str, Any]:
    schedule = server.config.phases
    body: dict[str, Any] = {"phase": found.phase.value, "since": found.since, "since_text": schedule.show(found.since) if found.since else None,
                            "uploads": found.phase.uploads, "ladder": found.phase.ladder, "read_only": found.phase.read_only,
                            "schedule": schedule.to_json(), "deadline_text": schedule.show(schedule.deadline) if schedule.deadline else None}
    if history:
        body["history"] = [{"from": c.before.value, "to": c.after.value, "who": c.who, "at": c.at} for c in found.history]
    return body


async def phase(request: Request) -> Response:
    """The competition's phase (open, frozen, final, closed), since when, and its deadline.
    ---
    responses: {200: {description: 'the phase, e.g. {"phase": "frozen", "since": 1764608400.0, "uploads": false}'}}
    """
    server = state(request)
    return answer(request, phase_body(server, await run_in_threadpool(server.phase)))


async def admin_phase(request: Request) -> Response:
    """The phase with its history of changes (from, to, who, when).
    ---
    responses: {200: {description: the phase and its history}}
    """
    admin(request)
    server = state(request)
    return answer(request, phase_body(server, await run_in_threadpool(server.phase), history=True))


async def set_phase(request: Request) -> Response:
    """Move the competition to its next phase: open -> frozen -> final -> closed, one step at a time.
    ---
    requestBody:
      required: true
      content:
        application/json:
          schema: {type: object, required: [phase], properties: {phase: {type: string, enum: [frozen, final, closed]}}}
          example: {phase: frozen}
    responses:
      200: {description: changed; the new phase and its history}
      400: {description: not a phase}
      409: {description: out of order (e.g. final before frozen); nothing changed}
    """
    admin(request)
    body = await _json(request)
    target = body.get("phase")
    if not isinstance(target, str):
        raise ApiError(400, 'give {"phase": "frozen"} (or final, closed)')
    server = state(request)
    try:
        await run_in_threadpool(server.set_phase, target, "organiser (admin API)")
    except PhaseError as exc:
        raise ApiError(400 if "unknown phase" in str(exc) else 409, str(exc)) from None
    return answer(request, phase_body(server, await run_in_threadpool(server.phase), history=True))


def accounts(request: Request) -> Response:
    """Every account (a person's login name, display name, e-mail, participant, whether revoked); no token.
    ---
    responses: {200: {description: the accounts}}
    """
    admin(request)
    return answer(request, {"accounts": state(request).accounts()})


async def import_accounts(request: Request) -> Response:
    """Import people (a class): each gets a token of their own, shown in this answer only. People with the
    same `team` share one participant. All or nothing: with any mistake (a bad or duplicate name, a name
    taken), 400 or 409 lists every one and nothing is written.
    ---
    requestBody:
      required: true
      content:
        application/json:
          schema:
            type: object
            required: [accounts]
            properties:
              accounts:
                type: array
                items:
                  type: object
                  required: [name, display_name]
                  properties:
                    name: {type: string, description: "login name: 1-40 ASCII letters, digits, '-', '_', '.'"}
                    display_name: {type: string, description: what the pages show (1-60 printable characters)}
                    email: {type: string}
                    team: {type: string, description: people with the same team share one participant}
          example:
            accounts:
              - {name: ada, display_name: Ada Lovelace, email: ada@example.org}
              - {name: alan, display_name: Alan T., team: bletchley}
              - {name: joan, display_name: Joan C., team: bletchley}
    responses:
      201: {description: 'imported: {"accounts": [{"name", "display_name", "team", "token"}]}'}
      400: {description: 'mistakes in the list (every one named); nothing written'}
      409: {description: 'names already taken (every one named); nothing written'}
    """
    admin(request)
    body = await _json(request)
    rows = body.get("accounts")
    if not isinstance(rows, list) or not rows or len(rows) > MAX_ACCOUNTS or not all(isinstance(r, dict) for r in rows):
        raise ApiError(400, f'give {{"accounts": [{{"name": ..., "display_name": ..., "email": ..., "team": ...}}]}} '
                            f"(1 to {MAX_ACCOUNTS} people)")
    items = [(f"accounts[{i}]", {"name": str(r.get("name") or ""), "display name": str(r.get("display_name") or ""),
                                 "email": str(r.get("email") or ""), "team": str(r.get("team") or "")}) for i, r in enumerate(rows)]
    server = state(request)
    try:
        people = check_people(items, "the request")
    except AccountError as exc:
        raise ApiError(400, str(exc)) from None
    try:
        issued = await run_in_threadpool(server.import_accounts, people)
    except AccountError as exc:
        raise ApiError(409, str(exc)) from None
    return answer(request, {"accounts": [{"name": p.login, "display_name": p.display_name, "team": p.team, "token": p.token}
                                         for p in issued]}, 201)


async def reset(request: Request) -> Response:
    """A new token for one person (the old one stops working at once); shown in this answer only.
    ---
    responses: {200: {description: 'the new token: {"name": "ada", "token": "..."}'}, 404: {description: no account of that name}}
    """
    admin(request)
    name = str(request.path_params["name"])
    try:
        token = await run_in_threadpool(state(request).reset_token, name)
    except AccountError as exc:
        raise ApiError(404 if "no account" in str(exc) else 409, str(exc)) from None
    return answer(request, {"name": name, "token": token})


async def revoke(request: Request) -> Response:
    """Revoke one person's token: it stops working at once (a reset gives them a new one).
    ---
    responses: {200: {description: revoked}, 404: {description: no account of that name}}
    """
    admin(request)
    name = str(request.path_params["name"])
    try:
        await run_in_threadpool(state(request).revoke_token, name)
    except AccountError as exc:
        raise ApiError(404 if "no account" in str(exc) else 409, str(exc)) from None
    return answer(request, {"name": name, "revoked": True})


async def uploads_open(request: Request) -> None:
    """403 `{"error": "uploads closed since <time>: ..."}` once the deadline has passed."""
    try:
        await run_in_threadpool(state(request).check_upload)
    except UploadsClosed as exc:
        raise ApiError(403, str(exc)) from None


ROUTES = [
    Route("/api/v1/phase", phase), Route("/api/v1/admin/phase", admin_phase),
    Route("/api/v1/admin/phase", set_phase, methods=["POST"]),
    Route("/api/v1/admin/accounts", accounts), Route("/api/v1/admin/accounts", import_accounts, methods=["POST"]),
    Route("/api/v1/admin/accounts/{name:str}/reset", reset, methods=["POST"]),
    Route("/api/v1/admin/accounts/{name:str}/revoke", revoke, methods=["POST"]),
]
