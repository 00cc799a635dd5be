"""The live page: one game as it is played, drawn by the game's own renderer, fed by an SSE stream.

The page embeds the viewer's share of the game now (`arena.server.live.spectate`) and the address of its
stream; every frame after that comes from the stream, already cut to the viewer's share by the server.
The page never holds more than it shows: a seat it may not see is drawn from the public view (card
backs), because that seat's view was never sent.
"""

from __future__ import annotations

import html

from arena.jsonvalue import JSON
from arena.web import page
from arena.web.viewer import STYLES, game_renderer

_BODY = """
<header><h1 id="title">live game</h1>{back}</header>
<div id="controls"><span id="live-status" aria-live="polite">connecting…</span>
<span id="where"></span> <a id="finished" hidden>the finished game, step by step</a></div>
<main><div id="layout"><div id="board-wrap"><h2 id="now-title">as played: the public view</h2><div id="board"></div>
<section id="full-wrap" hidden><h2 id="full-title">every hand</h2><div id="full"></div></section></div>
<div id="side"><h3>Latest events</h3><ul class="events" id="events"></ul></div></div></main>
"""


def live_page(data: dict[str, JSON], stream: str, finished: str | None, title: str, back_link: str, back_text: str,
              nonce: str | None = None) -> str:
    """The page around `data` (one viewer's share now), following `stream`; `finished`: the finished game's page."""
    back = f'<a href="{html.escape(back_link)}" style="color:#cde">{html.escape(back_text)}</a>'
    code = page.scripts(["games.js"], nonce) + "\n" + game_renderer(data.get("game"), nonce) + "\n" + page.scripts(["live.js"], nonce)
    body = _BODY.format(back=back) + page.data_script({"shown": data, "stream": stream, "finished": finished}) + code
    csp = page.server_csp(nonce) if nonce else page.FILE_CSP
    return page.shell(title, page.styles(STYLES), body, csp)


def games_list(games: list[dict[str, JSON]], link: str) -> str:
    """The games in progress as a list, each a link (`link` with {id}); the page reloads itself every 3 s."""
    rows = "".join(
        f'<li data-live-game="{int(str(g["id"]))}"><a href="{html.escape(link.format(id=g["id"]))}">game {int(str(g["id"]))}</a>: '
        f'{html.escape(" vs ".join(str(p) for p in g["players"]) if isinstance(g["players"], list) else "")}'
        f' <span class="ms">step {g["step"]}, {g["seconds"]} s</span></li>'
        for g in games)
    return ('<meta http-equiv="refresh" content="3"><p class="note">Games being played now: anyone sees the public view '
            'as it is played; every hand only behind the play, or once the game is over.</p>'
            f'<ul id="live-games">{rows or "<li>no game is being played right now</li>"}</ul>')


def list_page(games: list[dict[str, JSON]], link: str, title: str) -> str:
    """`games_list` as a page of its own (`arena run --watch`)."""
    body = f'<header><h1>{html.escape(title)}</h1></header><main>{games_list(games, link)}</main>'
    return page.shell(title, page.styles(STYLES), body, page.FILE_CSP)
