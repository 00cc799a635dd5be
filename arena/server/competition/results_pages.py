"""The final and its published results on the server: the organiser's final and publish actions (API and
admin page), and everyone's `/results` page with its downloads and the final's report.

`/results` shows the published standings (`arena serve CONFIG publish`, or the organiser's button): each
place with how sure it is, the statistic that decides a place said above the table, and places that are
not settled marked with the reason; the downloads (standings CSV and JSON, the signed results file, the
server's public key); the final's report with a viewer page per game (no bot's stderr); and each
participant's ladder history (every version, its games and rating, its page).
"""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, RedirectResponse, Response
from starlette.routing import Route

from arena.errors import ArenaError, PhaseError
from arena.ladder.competition.final.published import load_published, published_folder
from arena.server.http import ApiError, admin, answer, state
from arena.server.pages_html import esc, nav
from arena.server.web_session import check_write, form, html_page, viewer

DOWNLOADS = {"standings.csv": "text/csv; charset=utf-8", "standings.json": "application/json",
             "results.json": "application/json"}


def _num(value: Any, digits: int = 2) -> str:
    return "–" if not isinstance(value, (int, float)) or isinstance(value, bool) else f"{value:.{digits}f}"


def _p(value: Any) -> str:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "–"
    return ">99%" if 0.995 <= value < 1 else "<1%" if 0 < value <= 0.005 else f"{value:.0%}"


def standings_table(data: dict[str, Any]) -> str:
    rows = []
    for r in data.get("standings") or []:
        settled = bool(r.get("settled"))
        mark = "" if settled else ' <span class="unsettled-mark" aria-hidden="true">?</span>'
        sure = "settled" if settled else f"not settled: {esc(r.get('why'), 400)}"
        rows.append(
            f'<tr class="{"settled" if settled else "unsettled"}" data-name="{esc(r.get("name"))}">'
            f'<td class="num">{int(r.get("place") or 0)}{mark}</td><td class="name">{esc(r.get("display_name") or r.get("name"))}</td>'
            f'<td class="num">{_num(r.get("score"))}</td><td class="num">{_num(r.get("avg_rank"))} '
            f'({_num(r.get("avg_rank_low"))}–{_num(r.get("avg_rank_high"))})</td>'
            f'<td class="num">{r.get("avg_rank_place") or "–"}</td><td class="num">{_p(r.get("p_ahead_of_next"))}</td>'
            f'<td class="num">{int(r.get("games") or 0)}</td><td class="sure">{sure}</td></tr>')
    confidence = data.get("confidence")
    level = f"{confidence:.0%}" if isinstance(confidence, float) else "the confidence"
    return ('<table class="grid" id="final-standings"><caption>the final: place by mu − 3σ; average rank with its '
            f'{level} interval; P(ahead of next): the chance its true average rank beats the next one\'s</caption>'
            '<thead><tr><th>place</th><th class="name">participant</th><th>mu − 3σ</th><th>average rank</th>'
            '<th>by avg rank</th><th>P(ahead of next)</th><th>games</th><th>how sure</th></tr></thead><tbody>'
            + "".join(rows) + "</tbody></table>")


def ladder_history(data: dict[str, Any]) -> str:
    parts = []
    shown = data.get("display_names") or {}
    for who, versions in sorted((data.get("ladder") or {}).items()):
        rows = "".join(
            f'<tr><td><a href="/bots/{int(v["bot"])}">bot {int(v["bot"])}</a></td><td>{esc(v.get("version"))}</td>'
            f'<td>{esc(v.get("status"))}{" (chosen)" if v.get("active") else ""}</td><td class="num">{int(v.get("games") or 0)}</td>'
            f'<td class="num">{_num(v.get("rating"))}</td></tr>' for v in versions if isinstance(v, dict))
        parts.append(f'<details><summary>{esc(shown.get(who) or who)}: {len(versions)} version(s)</summary><table class="grid">'
                     '<thead><tr><th>bot</th><th>version</th><th>state</th><th>ladder games</th><th>rating</th></tr></thead>'
                     f'<tbody>{rows}</tbody></table></details>')
    return "".join(parts) or "<p>no participant</p>"


async def results_page(request: Request) -> Response:
    server = state(request)
    session = viewer(request)
    data = await run_in_threadpool(load_published, server.config)
    head = nav(session.name if session else "", bool(session and session.admin), "/results")
    name = esc(server.config.name)
    if data is None:
        body = (f"{head}<main><h1>{name}: results</h1><p id=\"not-published\">the results are not published yet: "
                "the organiser publishes them once the final has been played</p></main>")
        return html_page(f"{server.config.name}: results", body)  # the page is there; its results are not yet
    settled = bool(data.get("settled"))
    verdict = ("every place is settled" if settled else
               'places marked <span class="unsettled-mark">?</span> are not settled: the statistics disagree on them, '
               "or the games do not make them sure")
    body = (f'{head}<main><h1>{name}: results <small>{esc(data.get("game"))}, published {esc(data.get("published"))}</small></h1>'
            f'<p id="decided-by"><b>a place is decided by</b> {esc(data.get("decided_by"), 600)}</p>'
            f'<p id="stop-line">{esc(data.get("stop"), 600)} · {int(data.get("games") or 0)} games counted</p>'
            f'<p id="settled-line" class="{"ok" if settled else "warn"}">{verdict}</p>'
            f'{standings_table(data)}'
            '<h2>downloads</h2><ul id="downloads">'
            '<li><a href="/results/standings.csv" download>standings.csv</a> and '
            '<a href="/results/standings.json" download>standings.json</a></li>'
            '<li><a href="/results/results.json" download>results.json</a>: every final game\'s replay hash, signed with '
            'the server\'s key (<a href="/api/v1/public-key">public key</a>): '
            '<code>arena verify --key server.pub.pem results.json</code></li>'
            '<li><a href="/results/report/index.html">the final\'s report</a>, with a viewer page for each game</li></ul>'
            f'<h2>each participant\'s ladder</h2><div id="ladder-history">{ladder_history(data)}</div></main>')
    return html_page(f"{server.config.name}: results", body)


def download(request: Request) -> Response:
    name = request.url.path.rsplit("/", 1)[-1]
    path = published_folder(state(request).config) / name
    if name not in DOWNLOADS or not path.is_file():
        raise ApiError(404, "the results are not published yet")
    return FileResponse(path, media_type=DOWNLOADS[name], filename=name,
                        headers={"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"})


def report_file(request: Request) -> Response:
    """A file of the final's published report (its index, its viewer pages and their assets), nothing outside it."""
    root = (published_folder(state(request).config) / "report").resolve()
    wanted = (root / str(request.path_params["path"])).resolve()
    if not wanted.is_relative_to(root) or not wanted.is_file():
        raise ApiError(404, "no such page of the final's report")
    return FileResponse(wanted, headers={"X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache"})


# --- the organiser's actions ---------------------------------------------------------------------------

def _start(request: Request) -> dict[str, Any]:
    server = state(request)
    try:
        started = server.start_final()
    except PhaseError as exc:
        raise ApiError(409, str(exc)) from None
    return {"started": started, **server.final.status()}


async def _publish(request: Request) -> dict[str, Any]:
    server = state(request)
    try:
        published = await run_in_threadpool(server.publish_results)
    except ArenaError as exc:
        raise ApiError(409, str(exc)) from None
    return {"published": str(published.folder), "games": published.games, "page": "/results"}


def api_final(request: Request) -> Response:
    """The final's state: not started, running, done, interrupted, failed (or stored, from an earlier run).
    ---
    responses: {200: {description: the final's state}}
    """
    admin(request)
    return answer(request, state(request).final.status())


def api_start_final(request: Request) -> Response:
    """Play the final (or resume it) in the background; the ladder is paused.
    ---
    responses: {202: {description: "started, or running already (started: false)"}, 409: {description: "not in the final phase (move it there first)"}}
    """
    admin(request)
    return answer(request, _start(request), 202)


async def api_publish(request: Request) -> Response:
    """Publish the final's results at /results (standings, signed results file, report).
    ---
    responses: {200: {description: published}, 409: {description: no final yet, or it is still running}}
    """
    admin(request)
    return answer(request, await _publish(request))


async def page_action(request: Request) -> Response:
    session = viewer(request)
    if session is None or not session.admin:
        raise ApiError(403, "the organiser's page: sign in with the admin token")
    fields = await form(request)
    check_write(request, session, fields.get("csrf"))
    if request.url.path.endswith("/publish"):
        await _publish(request)
        return RedirectResponse("/results", 303)
    _start(request)
    return RedirectResponse("/admin", 303)


def admin_section(request: Request, csrf: str) -> str:
    """The admin page's final: its state and the two buttons (play or resume; publish)."""
    status = state(request).final.status()
    outcome = status.get("outcome") or {}
    facts = f'state: <b id="final-state">{esc(status["state"])}</b>'
    if outcome.get("games") is not None:
        facts += f' · {int(outcome["games"])}/{int(outcome.get("scheduled") or 0)} games'
    if status.get("error"):
        facts += f' · <span class="error">{esc(status["error"], 500)}</span>'
    return ('<h2>the final</h2>'
            f'<p id="final-status">{facts}</p><div class="row">'
            f'<form method="post" action="/admin/final" class="row">{csrf}<button type="submit">play the final '
            '(or resume it)</button></form>'
            f'<form method="post" action="/admin/publish" class="row">{csrf}<button type="submit">publish the results'
            '</button></form></div>')


def api_field(request: Request) -> Response:
    """The participants' active bots as a tournament config (YAML in `yaml`): `arena ladder export --format yaml`.
    Their commands and folders on this server: the organiser's only.
    ---
    responses: {200: {description: the field's tournament config}}
    """
    admin(request)
    server = state(request)
    return answer(request, {"yaml": server.field_yaml(), "name": server.config.name})


def _page(path: str, endpoint: Any, method: str = "GET") -> Route:
    return Route(path, endpoint, methods=[method], include_in_schema=False)


ROUTES = [
    _page("/results", results_page), *(_page(f"/results/{name}", download) for name in DOWNLOADS),
    _page("/results/report/{path:path}", report_file),
    _page("/admin/final", page_action, "POST"), _page("/admin/publish", page_action, "POST"),
    Route("/api/v1/admin/final", api_final, methods=["GET"]), Route("/api/v1/admin/final", api_start_final, methods=["POST"]),
    Route("/api/v1/admin/publish", api_publish, methods=["POST"]), Route("/api/v1/admin/field", api_field),
]
