"""The pages behind a sign-in: signing in and out, submitting a bot and following its check, and the
organiser's page (participants and new tokens, disabling a bot, pausing the ladder, health).

Every write here is a POST from this server's own page with the session's CSRF token
(`web_session.check_write`); the organiser's actions call the same functions as the admin API.
"""

from __future__ import annotations

import html
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from arena.errors import ServerError
from arena.ladder import access
from arena.ladder.states import BotState
from arena.server.http import ApiError, path_id, state, take_upload
from arena.server.pages_html import esc, nav
from arena.server.competition.api_competition import uploads_open
from arena.server.competition.pages_competition import admin_section, upload_closed_note
from arena.server.competition.results_pages import admin_section as final_admin_section
from arena.server.web_session import (COOKIE, PRESIGN, Viewer, check_signin, check_write, csrf_token, form, html_page,
                                      signin_token, viewer)

MAX_AGE_S = 30 * 24 * 3600


def _nav(session: Viewer | None, current: str) -> str:
    return nav(session.name if session else "", bool(session and session.admin), current)


def signin_page(request: Request, error: str = "", status: int = 200) -> Response:
    message = f'<p class="error" role="alert">{html.escape(error)}</p>' if error else ""
    nonce, token = signin_token(request)
    body = (_nav(viewer(request), "/signin") + '<main><h1>sign in</h1>' + message +
            '<form method="post" action="/signin" class="stack">'
            f'<input type="hidden" name="csrf" value="{token}">'
            '<label for="token">your token (the organiser gave it to you)'
            '</label><input id="token" name="token" type="password" autocomplete="current-password" required maxlength="200">'
            '<button type="submit">sign in</button></form>'
            '<p class="note">the token stays in an HttpOnly cookie for this site only; sign out to remove it</p></main>')
    response = html_page("sign in", body, status)
    response.set_cookie(PRESIGN, nonce, max_age=MAX_AGE_S, httponly=True, samesite="strict", path="/signin",
                        secure=request.url.scheme == "https")
    return response


async def signin(request: Request) -> Response:
    fields = await form(request)
    check_signin(request, fields.get("csrf"))
    token = fields.get("token", "").strip()
    server = state(request)
    known = bool(token) and len(token) <= 200 and (server.is_admin(token) or
                                                   await run_in_threadpool(server.participant_by_token, token) is not None)
    if not known:
        return signin_page(request, "unknown token: check it, or ask the organiser for yours", 401)
    response = RedirectResponse("/admin" if server.is_admin(token) else "/submit", 303)
    response.set_cookie(COOKIE, token, max_age=MAX_AGE_S, httponly=True, samesite="strict", path="/",
                        secure=request.url.scheme == "https")
    return response


def signout(request: Request) -> Response:
    response = RedirectResponse("/", 303)
    response.delete_cookie(COOKIE, path="/")
    return response


def submit_page(request: Request) -> Response:
    session = viewer(request)
    if session is None or session.participant is None:
        return signin_page(request, "sign in with your participant token to submit a bot" if session is None else
                           "the organiser's token cannot submit: sign in as a participant", 401)
    subs = state(request).read.submissions_of(session.participant.id, 20)
    rows = "".join(f'<tr><td>{s.id}</td><td>{esc(s.status.value)}</td><td>{esc(s.reason, 300)}</td><td>'
                   + (f'<a href="/bots/{s.bot}">bot {s.bot}</a>' if s.bot is not None else "") + "</td></tr>"
                   for s in subs)
    body = (_nav(session, "/submit") + "<main><h1>submit a bot</h1>"
            "<p>a zip or tar.gz archive with <code>manifest.json</code> at its top: "
            "<code>{\"name\", \"version\", \"command\"}</code> (or <code>arena submit FOLDER</code> from a terminal)</p>"
            + _offered(state(request).config)
            + (upload_closed_note(state(request)) or
               f'<form id="upload" class="stack" data-csrf="{csrf_token(request, session)}">'
               '<label for="archive">archive</label><input id="archive" name="archive" type="file" required '
               'accept=".zip,.tar.gz,.tgz,application/zip,application/gzip"><button type="submit">upload and check</button></form>') +
            '<section aria-live="polite"><p id="verdict"></p><pre id="report" class="stderr" hidden></pre></section>'
            '<h2>your submissions</h2><table class="grid" id="submissions"><thead><tr><th>#</th><th>status</th><th>verdict</th>'
            f"<th>bot</th></tr></thead><tbody>{rows}</tbody></table></main>")
    return html_page("submit a bot", body)


def _offered(config: Any) -> str:
    """The runtimes and the languages built from source (a manifest's `language`), for the upload page."""
    languages = "".join(f"<li><code>{esc(lang.name)}</code>: built with <code>{esc(lang.build or 'nothing')}</code>, "
                        f"run as <code>{esc(lang.run)}</code></li>" for lang in config.build.languages)
    return (f'<p id="offered">runtimes: <code>{esc(", ".join(config.runtimes))}</code>; or send source with '
            '<code>"language"</code> in the manifest and the server builds it (the build log is shown to you only):</p>'
            f"<ul>{languages or '<li>no language is built here</li>'}</ul>")


async def upload(request: Request) -> Response:
    """The upload form's POST (the archive's bytes as the body, the CSRF token in a header)."""
    session = check_write(request, viewer(request), request.headers.get("x-arena-csrf"))
    if session.participant is None:
        raise ApiError(403, "the organiser's token cannot submit: sign in as a participant")
    server = state(request)
    await uploads_open(request)  # 403 "uploads closed since <time>" after the deadline
    wait = server.rate.take(session.participant.id)
    if wait:
        raise ApiError(429, f"over {server.config.submissions_per_minute} submissions a minute; try again in {wait:.0f} s")
    data = await request.body()
    if not data:
        raise ApiError(400, "choose an archive first")
    sub, refused = await take_upload(server, session.participant.id, data)
    return JSONResponse({"submission": sub, "status": "refused" if refused else "received", "reason": refused or ""},
                        422 if refused else 202)


def submission(request: Request) -> Response:
    """A submission's state for its owner's page (the cookie, not a bearer token)."""
    session = viewer(request)
    if session is None or session.participant is None:
        raise ApiError(401, "sign in first")
    row = state(request).read.submission(path_id(request))
    if row is None or row.participant != session.participant.id:
        raise ApiError(404, "no such submission of yours")
    return JSONResponse({"submission": row.id, "status": row.status.value, "reason": row.reason,
                         "report": access.hide_paths(row.report, [row.folder], access.Role.OWNER),
                         "bot": row.bot}, headers={"Cache-Control": "no-store"})


def _admin(request: Request) -> Viewer:
    session = viewer(request)
    if session is None or not session.admin:
        raise ApiError(403, "the organiser's page: sign in with the admin token")
    return session


def parts_table(parts: list[dict[str, Any]]) -> str:
    """The background parts' heartbeats, restarts and last errors, for the organiser's page."""
    rows = "".join(f'<tr class="{"stale" if p["stale"] else "ok"}"><td>{esc(p["name"])}</td>'
                   f'<td>{"alive" if p["alive"] else "dead"}{" (stale)" if p["stale"] else ""}</td>'
                   f'<td>{p["heartbeat_age_s"]} s ago</td><td>{int(p["restarts"])}</td><td>{esc(p["last_error"] or "", 300)}</td></tr>'
                   for p in parts)
    return ('<table class="grid" id="parts"><thead><tr><th>part</th><th>state</th><th>last heartbeat</th>'
            f'<th>restarts</th><th>last error</th></tr></thead><tbody>{rows}</tbody></table>')

def workers_table(workers: list[dict[str, Any]]) -> str:
    """The executor's workers: games finished in the last minute, their bot cache, whether they play."""
    rows = []
    for w in workers:
        cache = w.get("cache") or {}
        kept = (f'{int(cache.get("archives", 0))} bots, {int(cache.get("bytes", 0)) >> 10} KiB of {int(cache.get("limit", 0)) >> 20} MiB'
                f' in {esc(cache.get("folder", "?"), 200)}; fetched {int(cache.get("fetched", 0))}, refused {int(cache.get("refused", 0))}'
                if cache else "none (bots run from their own folders)")
        rows.append(f'<tr><td>{esc(w.get("worker"), 100)}</td><td>{int(w.get("games_per_minute", 0))}</td><td>{kept}</td>'
                    f'<td>{"plays" if w.get("plays", True) else "plays nothing"}</td></tr>')
    return ('<table class="grid" id="workers"><thead><tr><th>worker</th><th>games/min</th><th>bot cache</th><th>state</th></tr>'
            f'</thead><tbody>{"".join(rows)}</tbody></table>')


def admin_page(request: Request, new_token: tuple[str, str] | None = None) -> Response:
    session = viewer(request)
    if session is None or not session.admin:
        return signin_page(request, "the organiser's page: sign in with the admin token", 403)
    server = state(request)
    csrf = f'<input type="hidden" name="csrf" value="{csrf_token(request, session)}">'
    health = server.health()
    rows = []
    for p in server.read.participants():
        action = bot = ""
        latest = p.latest_bot
        if latest is not None:
            verb = "disable" if latest.status is BotState.ACTIVE else "enable"
            action = (f'<form method="post" action="/admin/bots/{latest.id}/{verb}">{csrf}'
                      f'<button type="submit">{verb} bot {latest.id}</button></form>')
            bot = f'<a href="/bots/{latest.id}">{esc(latest.name)} v{esc(latest.version)}</a> ({esc(latest.status.value)})'
        bot = bot or "-"
        rows.append(f'<tr><td>{p.id}</td><td>{esc(p.name)}{" (house)" if p.is_house else ""}</td>'
                    f"<td>{bot}</td><td>{action}</td></tr>")
    shown = ""
    if new_token is not None:
        shown = (f'<p class="token" role="status">token of {esc(new_token[0])} (shown this once; give it to them): '
                 f"<code>{html.escape(new_token[1])}</code></p>")
    pause = "resume" if health["paused"] else "pause"
    facts = "".join(f"<dt>{html.escape(k.replace('_', ' '))}</dt><dd>{esc(v, 300)}</dd>" for k, v in health.items() if k not in ("parts", "workers"))
    body = (_nav(session, "/admin") + "<main><h1>organiser</h1>"
            f'<h2>server health</h2><dl class="facts" id="health">{facts}</dl>{parts_table(health["parts"])}{workers_table(health["workers"])}'
            f'<form method="post" action="/admin/ladder/{pause}">{csrf}<button type="submit">{pause} the ladder</button></form>'
            + final_admin_section(request, csrf) +
            f'<h2>participants</h2>{shown}<form method="post" action="/admin/participants" class="row">{csrf}'
            '<label for="pname">new participant</label><input id="pname" name="name" required maxlength="40" '
            'pattern="[A-Za-z0-9._\\-]+"><button type="submit">add and show its token</button></form>'
            '<table class="grid" id="participants"><thead><tr><th>#</th><th>participant</th><th>latest bot</th><th></th></tr>'
            f'</thead><tbody>{"".join(rows)}</tbody></table>{admin_section(server, csrf)}</main>')
    return html_page("organiser", body)


async def admin_action(request: Request) -> Response:
    session = _admin(request)
    fields = await form(request)
    check_write(request, session, fields.get("csrf"))
    server = state(request)
    action = request.url.path.rsplit("/", 1)[-1]
    if request.url.path.startswith("/admin/ladder/"):
        server.set_paused(action == "pause")
    elif request.url.path == "/admin/participants":
        try:
            who, token = server.add_participant(fields.get("name", "").strip())
        except ServerError as exc:
            raise ApiError(400, str(exc)) from None
        return admin_page(request, (who.name, token))
    else:
        done = (server.disable_bot(path_id(request), "disabled by the organiser") if action == "disable"
                else server.enable_bot(path_id(request)))
        if not done:
            raise ApiError(404, "no such bot")
    return RedirectResponse("/admin", 303)


def _page(path: str, endpoint: Any, method: str = "GET") -> Route:
    return Route(path, endpoint, methods=[method], include_in_schema=False)  # pages: not in the API's document


ROUTES = [
    _page("/signin", signin_page), _page("/signin", signin, "POST"), _page("/signout", signout),
    _page("/submit", submit_page), _page("/submit", upload, "POST"), _page("/submissions/{id:int}.json", submission),
    _page("/admin", admin_page), _page("/admin/ladder/pause", admin_action, "POST"),
    _page("/admin/ladder/resume", admin_action, "POST"), _page("/admin/participants", admin_action, "POST"),
    _page("/admin/bots/{id:int}/disable", admin_action, "POST"), _page("/admin/bots/{id:int}/enable", admin_action, "POST"),
]
