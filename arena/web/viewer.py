"""The replay viewer: one self-contained HTML page per replay and perspective (no network, file://)."""

from __future__ import annotations

import os
from pathlib import Path

from arena.errors import ReplayError
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


def viewer_html(record: GameRecord, perspective: Perspective, back_link: str | None = None, assets: str | None = None) -> str:
    """The page for one perspective: organiser (every seat's views) or seat k (seat k's views only).
    Its frames are compressed; its scripts and styles are inline, or (`assets`, a folder relative to
    the page, see `page.write_assets`) linked, so the pages of one report share one copy."""
    data = viewer_data(record, perspective)
    back = f'<a href="{back_link}" style="color:#cde">← report</a>' if back_link else ""
    title = f"{record.game} {clean(record.game_id, NAME_CHARS)} ({perspective.label})"
    head = page.styles(STYLES) if assets is None else page.linked_styles(STYLES, assets)
    code = page.scripts(SCRIPTS) if assets is None else page.linked_scripts(SCRIPTS, assets)
    body = _BODY.format(back=back) + page.data_script(data, compress=True) + code
    return page.shell(title, head, body, linked=assets is not None)


def write_viewer(replay: str | os.PathLike[str], out: str | os.PathLike[str], seat: int | None = None,
                 back_link: str | None = None, assets: str | None = None) -> Path:
    """Read a replay, write its viewer page to `out`; returns the path written."""
    record = load_game_record(replay)
    text = viewer_html(record, Perspective(seat), back_link, assets)
    target = Path(out)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ReplayError(f"cannot write the viewer page {target}: {exc.strerror or exc}") from None
    return target
