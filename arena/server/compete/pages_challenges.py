"""The participant's pages of the competition around the ladder: its versions with their ratings and the
one that plays (a form per version: a rollback), its challenges and a form to ask for one, and a
challenge's page (its games and `arena match`'s verdict). Forms are POSTs with the session's CSRF token,
as every page's write (`web_session.check_write`); they call what the API calls.
"""

from __future__ import annotations

import html
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from arena.errors import ServerError
from arena.ladder.states import BotState
from arena.server.compete.api_challenges import challenge_details, challenge_summary, open_challenge, replay_answer, visible
from arena.server.http import ApiError, path_id, state
from arena.server.pages_html import names
from arena.server.pages_account import signin_page
from arena.server.pages_html import esc, nav
from arena.server.web_session import Viewer, access_viewer, check_write, csrf_token, form, html_page, viewer


def _signed_in(request: Request) -> Viewer | Response:
    session = viewer(request)
    if session is None or session.participant is None:
        return signin_page(request, "sign in with your participant token to see your versions and challenges", 401)
    return session


def versions_page(request: Request, message: str = "") -> Response:
    session = _signed_in(request)
    if not isinstance(session, Viewer):
        return session
    assert session.participant is not None
    server = state(request)
    me = session.participant.id
    csrf = f'<input type="hidden" name="csrf" value="{csrf_token(request, session)}">'
    rows = []
    for v in server.read.versions(me):
        action = ""
        if v.status is BotState.RETIRED:
            action = (f'<form method="post" action="/versions/{v.id}/use">{csrf}'
                      f'<button type="submit">play this version</button></form>')
        elif v.status is BotState.ACTIVE:
            action = "<strong>plays now</strong>"
        rows.append(f'<tr><td><a href="/bots/{v.id}">{v.id}</a></td><td>{esc(v.version)}</td><td>{esc(v.status.value)}</td>'
                    f'<td class="num">{v.games}</td><td class="num">{v.mu - 3 * v.sigma:.2f}</td>'
                    f'<td class="num">{v.mu:.2f} ± {3 * v.sigma:.2f}</td><td>{action}</td></tr>')
    others = [b for b in server.read.ranked(False) if b.owner != me]
    options = "".join(f'<option value="{b.id}">{esc(b.participant)} / {esc(b.name)} (bot {b.id}, rating {b.rating:.2f})</option>'
                      for b in others)
    mine = [challenge_summary(server, c) for c in server.competition.challenges.of(me, 20)]
    listed = "".join(f'<tr><td><a href="/challenges/{c["id"]}">challenge {c["id"]}</a></td><td>bot {c["opponent"]}</td>'
                     f'<td>{esc(c["status"])}</td><td>{esc(c["verdict"] or "-")}</td><td class="num">{c["deals"]}</td></tr>'
                     for c in mine)
    quotas = server.config.quotas
    said = f'<p class="status" role="status">{html.escape(message)}</p>' if message else ""
    body = (nav(session.name, False, "/versions") + "<main><h1>your versions</h1>" + said +
            "<p>the ladder plays the version marked active; choose another to roll back (its rating is its own). "
            "A new upload that passes its check becomes active at once.</p>"
            '<table class="grid" id="versions"><thead><tr><th>bot</th><th>version</th><th>status</th><th>games</th>'
            f'<th>rating</th><th>mu ± 3σ</th><th></th></tr></thead><tbody>{"".join(rows)}</tbody></table>'
            "<h2>challenges</h2>"
            f"<p>games of your active bot against a bot you choose: unranked (no rating moves), each deal played twice with "
            f"the seats swapped, at most {quotas.challenge_games} games, stopped by <code>arena match</code>'s sequential "
            f"test; {quotas.challenges_per_day} a day.</p>"
            f'<form method="post" action="/challenges" class="row" id="challenge">{csrf}<label for="opponent">opponent</label>'
            f'<select id="opponent" name="opponent" required>{options}</select><button type="submit">challenge</button></form>'
            '<table class="grid" id="challenges"><thead><tr><th>challenge</th><th>against</th><th>status</th><th>verdict</th>'
            f"<th>deals</th></tr></thead><tbody>{listed}</tbody></table></main>")
    return html_page("your versions", body)


async def use_version(request: Request) -> Response:
    session = check_write(request, viewer(request), (await form(request)).get("csrf"))
    if session.participant is None:
        raise ApiError(403, "the organiser's token has no versions: sign in as a participant")
    server = state(request)
    try:
        said = await run_in_threadpool(server.competition.choose, server, session.participant.id, path_id(request))
    except ServerError as exc:
        raise ApiError(409, str(exc)) from None
    server.ladder.poke()
    return versions_page(request, said)


async def ask_challenge(request: Request) -> Response:
    session = check_write(request, viewer(request), (fields := await form(request)).get("csrf"))
    if session.participant is None:
        raise ApiError(403, "the organiser's token cannot challenge: sign in as a participant")
    ch = await run_in_threadpool(open_challenge, state(request), session.participant.id, fields.get("opponent", ""))
    return RedirectResponse(f"/challenges/{ch.id}", 303)


def challenge_page(request: Request) -> Response:
    session = viewer(request)
    who = access_viewer(session)
    server, ch = visible(request, who)
    data = challenge_details(server, ch, who)
    label = names(server.read)
    verdict = {"better": "your bot is better (H1 accepted)", "not-better": "your bot is not better by the effect size (H0 accepted)",
               "undecided": "undecided at the most games"}.get(str(data["verdict"]), "no verdict yet: the test plays on")
    games = "".join(
        f'<tr><td>{g["id"]}</td><td class="num">{g["deal"]}</td><td>'
        + ", ".join(f"{html.escape(label.get(int(b), str(b)))}: rank {int(r)}" for b, r in zip(g["bots"], g["ranks"]))
        + f'</td><td class="num">{len(g["faults"])}</td><td><a href="/challenges/{ch.id}/games/{g["id"]}/replay">replay</a>'
        "</td></tr>" for g in data["games"])
    lo, hi = data["llr_bounds"]
    body = (nav(session.name if session else "", bool(session and session.admin), "") +
            f'<main><h1>challenge {ch.id}</h1><p>{html.escape(label.get(ch.bot, str(ch.bot)))} against '
            f'{html.escape(label.get(ch.opponent, str(ch.opponent)))}: unranked, paired deals</p>'
            f'<dl class="facts" id="verdict"><dt>status</dt><dd>{esc(data["status"])}</dd><dt>verdict</dt><dd>{html.escape(verdict)}</dd>'
            f'<dt>test</dt><dd>SPRT {esc(data["test"], 200)} (as <code>arena match</code>)</dd>'
            f'<dt>LLR</dt><dd>{data["llr"]:.2f} in ({lo:.2f}, {hi:.2f})</dd><dt>estimate</dt><dd>{esc(data["estimate"], 200)}</dd>'
            f'<dt>deals</dt><dd>{data["deals"]} of at most {ch.max_games // 2}</dd></dl>'
            '<h2>games</h2><table class="grid" id="challenge-games"><thead><tr><th>game</th><th>deal</th><th>ranks</th>'
            f"<th>faults</th><th></th></tr></thead><tbody>{games}</tbody></table></main>")
    return html_page(f"challenge {ch.id}", body)


def challenge_game_replay(request: Request) -> Response:
    """A challenge game's replay for the signed-in viewer (the API's answer, with the page's cookie)."""
    return replay_answer(request, access_viewer(viewer(request)))


def _page(path: str, endpoint: Any, method: str = "GET") -> Route:
    return Route(path, endpoint, methods=[method], include_in_schema=False)


ROUTES = [_page("/versions", versions_page), _page("/versions/{id:int}/use", use_version, "POST"),
          _page("/challenges", ask_challenge, "POST"), _page("/challenges/{id:int}", challenge_page),
          _page("/challenges/{id:int}/games/{game:int}/replay", challenge_game_replay)]
