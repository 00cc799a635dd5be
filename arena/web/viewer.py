"""The replay viewer: one self-contained HTML page per replay and perspective (no network, file://)."""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Callable

from arena.errors import ReplayError
from arena.games.registry import get_game
from arena.jsonvalue import JSON
from arena.textsafe import NAME_CHARS, clean
from arena.web import page
from arena.web.frames import Perspective, viewer_data
from arena.web.replay_source import GameRecord, load_game_record

_BODY = """
<header><h1 id="title">replay</h1><label>perspective <select id="perspective"></select></label>
{back}</header>
<div id="controls">
<button id="first" title="first step (Home)">|◀</button>
<button id="prev" title="step back (←)">◀</button>
<button id="play" title="play / pause (space)">▶ play</button>
<button id="next" title="step forward (→)">▶</button>
<button id="end" title="last step (End)">▶|</button>
<label>step <input id="step-input" type="number" min="0" value="0"></label>
<label>round <select id="round-select"></select></label>
<label>speed <select id="speed"><option value="800">slow</option><option value="300" selected>normal</option><option value="60">fast</option></select></label>
<span id="where"></span> <span id="clock" class="ms"></span>
<span class="ms">keys: ← → space Home End</span>
</div>
<main><div id="layout"><div id="board"></div><div id="side"></div></div></main>
"""


STYLES = ["base.css", "viewer.css"]
SCRIPTS = ["games.js", "viewer.js"]
ASSETS = STYLES + SCRIPTS


def viewer_html(record: GameRecord, perspective: Perspective, back_link: str | None = None, assets: str | None = None,
                private: Callable[[int], bool] | None = None) -> str:
    """The page for one perspective: organiser (every seat's views) or seat k (seat k's views only);
    `private` as `viewer_data`'s (whose stderr and fault details the page holds)."""
    title = f"{record.game} {clean(record.game_id, NAME_CHARS)} ({perspective.label})"
    return viewer_page(viewer_data(record, perspective, private), title, back_link, assets=assets)


def viewer_page(data: dict[str, JSON], title: str, back_link: str | None = None, back_text: str = "← report",
                nonce: str | None = None, assets: str | None = None) -> str:
    """The viewer around `data` (from `viewer_data`, possibly redacted further by its caller); with a
    nonce, the page as a server sends it (`page.server_csp`; its data plain JSON: HTTP compresses).
    A file's frames are gzip-compressed (the page inflates them); its scripts and styles are inline,
    or (`assets`, a folder relative to the page, see `page.write_assets`) linked, so that the pages of
    one report share one copy."""
    back = f'<a href="{html.escape(back_link)}" style="color:#cde">{html.escape(back_text)}</a>' if back_link else ""
    head = page.styles(STYLES) if assets is None else page.linked_styles(STYLES, assets)
    code = page.scripts(SCRIPTS[:1], nonce) if assets is None else page.linked_scripts(SCRIPTS[:1], assets)
    code += "\n" + game_renderer(data.get("game"), nonce)  # after the toolkit it uses, before the viewer that calls it
    code += "\n" + (page.scripts(SCRIPTS[1:], nonce) if assets is None else page.linked_scripts(SCRIPTS[1:], assets))
    body = _BODY.format(back=back) + page.data_script(data, compress=nonce is None) + code
    csp = page.server_csp(nonce) if nonce else page.LINKED_CSP if assets is not None else page.FILE_CSP
    return page.shell(title, head, body, csp)


def game_renderer(game: JSON, nonce: str | None) -> str:
    """The game's own viewer module (its `GameSpec.renderer`), inline; nothing for a game without one."""
    renderer = get_game(game).renderer if isinstance(game, str) else None
    return page.inline_script(renderer.source(), nonce) if renderer is not None else ""


def write_viewer(replay: str | os.PathLike[str], out: str | os.PathLike[str], seat: int | None = None,
                 back_link: str | None = None, assets: str | None = None, private: Callable[[int], bool] | None = None) -> Path:
    """Read a replay, write its viewer page to `out`; returns the path written."""
    record = load_game_record(replay)
    text = viewer_html(record, Perspective(seat), back_link, assets, private)
    target = Path(out)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ReplayError(f"cannot write the viewer page {target}: {exc.strerror or exc}") from None
    return target
