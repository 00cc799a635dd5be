"""The competition on the pages: the phase banner on every page, read-only once closed, and the organiser's
controls (the phase, people's tokens reset or revoked) on the admin page.

The banner and the read-only rule are one ASGI middleware (`PhaseGate`), so no page can forget them: every
HTML answer gets the banner right after `<body>`, and once the competition is closed every write is
refused (409) but signing in and out, so the organiser can still read the admin page.
"""

from __future__ import annotations

import html
import json
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena.errors import AccountError, PhaseError, UploadsClosed
from arena.ladder.competition.phases import ORDER, Phase
from arena.ladder.service import Server
from arena.server.http import ApiError, state
from arena.server.pages_html import esc
from arena.server.web_session import Viewer, check_write, form, html_page, viewer

READS = ("GET", "HEAD", "OPTIONS")
WRITES_WHEN_CLOSED = ("/signin", "/signout")  # the organiser signs in to read the admin page
UPLOADS = ("/api/v1/submissions", "/submit")  # closed, an upload is refused as after the deadline: 403 "uploads closed since"


def closed_answer(server: Server, path: str) -> tuple[int, str]:
    """(status, message) for a write to a closed competition: an upload's is the deadline's own (`arena submit`
    then prints "uploads closed since <time>" and exits 3), any other's says the server is read-only."""
    if path in UPLOADS:
        try:
            server.check_upload()
        except UploadsClosed as exc:
            return 403, str(exc)
    return 409, "the competition is closed: this server is read-only now (its pages and results stay served)"


def banner_html(server: Server) -> tuple[Phase, str]:
    found, line = server.phases.banner()
    return found.phase, (f'<div class="phase-banner phase-{found.phase.value}" id="phase-banner" role="status" '
                         f'data-phase="{found.phase.value}">{html.escape(line)}</div>')


class PhaseGate:
    """ASGI middleware: the phase banner in every HTML page; once closed, every write refused (409)."""

    def __init__(self, app: ASGIApp, server: Server) -> None:
        self.app, self.server = app, server

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        writes = scope.get("method", "GET") not in READS and scope.get("path") not in WRITES_WHEN_CLOSED
        if writes and (await run_in_threadpool(self.server.phase)).phase.read_only:
            status, message = await run_in_threadpool(closed_answer, self.server, str(scope.get("path")))
            body = json.dumps({"error": message, "status": status}).encode()
            await send({"type": "http.response.start", "status": status,
                        "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        start: Message | None = None
        chunks: list[bytes] = []

        async def with_banner(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                kind = dict(message.get("headers", [])).get(b"content-type", b"")
                if kind.startswith(b"text/html"):
                    start = message
                    return
            elif start is not None and message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if message.get("more_body", False):
                    return
                text = b"".join(chunks)
                if b"<body>\n" in text:  # a whole page (not the leaderboard's live fragment): the phase is asked for it
                    _, banner = await run_in_threadpool(banner_html, self.server)
                    text = text.replace(b"<body>\n", b"<body>\n" + banner.encode() + b"\n", 1)
                headers = [(k, v) for k, v in start.get("headers", []) if k != b"content-length"]
                await send({**start, "headers": [*headers, (b"content-length", str(len(text)).encode())]})
                await send({"type": "http.response.body", "body": text})
                return
            await send(message)

        await self.app(scope, receive, with_banner)


def upload_closed_note(server: Server) -> str:
    """The upload page's word once uploads are closed (instead of the form); "" while open."""
    try:
        server.check_upload()
    except UploadsClosed as exc:
        return f'<p class="error" id="uploads-closed" role="alert">{esc(exc, 300)}</p>'
    return ""


def admin_section(server: Server, csrf: str) -> str:
    """The organiser's phase control and the accounts (reset, revoke), for the admin page."""
    found = server.phase()
    schedule = server.config.phases
    at = ORDER.index(found.phase)
    following = ORDER[at + 1] if at + 1 < len(ORDER) else None
    control = (f'<form method="post" action="/admin/phase" class="row" id="phase-form">{csrf}'
               f'<input type="hidden" name="phase" value="{following.value}">'
               f'<button type="submit">move to {following.value}</button></form>' if following else
               "<p>closed: the last phase</p>")
    history = "".join(f"<li>{esc(c.before.value)} → {esc(c.after.value)} by {esc(c.who)}, {esc(schedule.show(c.at))}</li>"
                      for c in found.history) or "<li>open since the start</li>"
    deadline = schedule.show(schedule.deadline) if schedule.deadline else "none set (phases: deadline: in the config)"
    rows = []
    for a in server.accounts():
        name = html.escape(a["name"], quote=True)
        actions = "" if found.phase.read_only else "".join(
            f'<form method="post" action="/admin/accounts/{name}/{verb}" class="inline">{csrf}'
            f'<button type="submit">{verb} token</button></form>' for verb in ("reset", "revoke"))
        rows.append(f'<tr><td>{esc(a["name"])}</td><td>{esc(a["display_name"])}</td><td>{esc(a["participant"])}</td>'
                    f'<td>{"revoked" if a["revoked"] else "active"}</td><td>{actions}</td></tr>')
    return (f'<h2>phase</h2><p id="phase-now">the competition is <b>{esc(found.phase.value)}</b>; deadline {esc(deadline)}</p>'
            f'{control}<ul id="phase-history">{history}</ul>'
            '<h2>accounts</h2><p class="note">import a class with <code>arena serve CONFIG accounts import students.csv</code></p>'
            '<table class="grid" id="accounts"><thead><tr><th>name</th><th>display name</th><th>participant</th><th>token</th>'
            f'<th></th></tr></thead><tbody>{"".join(rows)}</tbody></table>')


def _organiser(request: Request) -> Viewer:
    session = viewer(request)
    if session is None or not session.admin:
        raise ApiError(403, "the organiser's page: sign in with the admin token")
    return session


async def phase_action(request: Request) -> Response:
    session = _organiser(request)
    fields = await form(request)
    check_write(request, session, fields.get("csrf"))
    try:
        await run_in_threadpool(state(request).set_phase, fields.get("phase", ""), "organiser (admin page)")
    except PhaseError as exc:
        raise ApiError(409, str(exc)) from None
    return RedirectResponse("/admin", 303)


async def account_action(request: Request) -> Response:
    session = _organiser(request)
    fields = await form(request)
    check_write(request, session, fields.get("csrf"))
    name = str(request.path_params["name"])
    server = state(request)
    try:
        if request.url.path.endswith("/reset"):
            token = await run_in_threadpool(server.reset_token, name)
            return html_page("new token", f'<main><h1>new token</h1><p class="token" role="status">token of {esc(name)} '
                             f'(shown this once; give it to them; the old one no longer works): <code>{html.escape(token)}</code></p>'
                             '<p><a href="/admin">back to the organiser\'s page</a></p></main>')
        await run_in_threadpool(server.revoke_token, name)
    except AccountError as exc:
        raise ApiError(404 if "no account" in str(exc) else 409, str(exc)) from None
    return RedirectResponse("/admin", 303)


def _page(path: str, endpoint: Any) -> Route:
    return Route(path, endpoint, methods=["POST"], include_in_schema=False)


ROUTES = [_page("/admin/phase", phase_action), _page("/admin/accounts/{name:str}/reset", account_action),
          _page("/admin/accounts/{name:str}/revoke", account_action)]
