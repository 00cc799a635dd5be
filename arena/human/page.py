"""The human seat's page: the viewer's drawing of the game (the game's own renderer) around the seat's
view, the legal actions as choices, the clock and the events. Its data comes from the seat's server
(`GET state`, a long poll); its choices go back as JSON POSTs. The HTML is the same shell as every
page of arena (`arena.web.page`), with a per-answer nonce: no script but the page's own runs."""

from __future__ import annotations

import html
from importlib import resources

from arena.web import page
from arena.web.viewer import game_renderer

STYLE = """
#bar { display: flex; gap: 10px; align-items: center; flex-wrap: wrap; padding: 8px 16px; background: #e3e6ea; position: sticky; top: 0; z-index: 2; }
#status { font-weight: 600; }
#clock { font: 600 16px ui-monospace, monospace; padding: 2px 8px; border-radius: 4px; background: #fff; }
#clock.low { background: #ffd6d6; color: #a00; }
#message { min-height: 1.4em; color: #a00; font-weight: 600; padding: 0 16px; }
#message.ok { color: #1d6b2f; }
#choices { background: #fffbe6; border: 1px solid #e2c84f; border-radius: 6px; padding: 6px 8px; margin-bottom: 10px; }
#choices[hidden] { display: none; }
#options button { margin: 2px; font-size: 14px; padding: 4px 10px; }
#picked .part { display: inline-block; background: #2d3a4a; color: #fff; border-radius: 4px; padding: 1px 6px; margin-right: 4px; }
.pickable { outline: 3px solid #e2a400; outline-offset: 1px; cursor: pointer; }
.picked { outline: 3px solid #1d6b2f; outline-offset: 1px; }
#events li { margin-bottom: 2px; }
#result { margin-top: 8px; }
"""

BODY = """
<header><h1 id="title">arena · your seat</h1><span id="players" class="ms"></span></header>
<div id="bar"><span id="status">connecting…</span> <span id="clock" title="time left for this decision"></span>
<span id="step" class="ms"></span></div>
<div id="message" role="alert" aria-live="assertive"></div>
<main><div id="layout"><div id="board-col">
<div id="choices" hidden><div><b>Your move</b> <span id="picked"></span> <button id="clear" type="button">clear</button></div>
<div id="options"></div></div>
<div id="board"></div></div>
<div id="side"><div id="result"></div><h3>Events</h3><ul id="events" class="events"></ul></div></div></main>
"""


def seat_page(game: str, nonce: str, csrf: str = "") -> tuple[str, str]:
    """The page's HTML and its Content-Security-Policy (only scripts with `nonce` run; it may fetch
    from its own server and nothing else). `csrf`: on `arena serve`, the session's token its choices carry."""
    code = page.scripts(["games.js"], nonce)
    code += "\n" + game_renderer(game, nonce)
    script = resources.files("arena.human").joinpath("human.js").read_text(encoding="utf-8")
    code += "\n" + page.inline_script(script, nonce)
    head = page.styles(["base.css", "viewer.css"]) + f"\n<style>{STYLE}</style>"
    if csrf:
        head += f'\n<meta name="arena-csrf" content="{html.escape(csrf)}">'
    csp = page.server_csp(nonce)
    return page.shell(f"arena · {game} · your seat", head, BODY + code, csp), csp
