"""`arena report`: the tournament report as static HTML (index.html + one viewer page per replay).

Everything a reader needs is in the files: tables are rendered here as HTML, the game list's data is
embedded as JSON and paged by a small script, the rating plot is inline SVG. Nothing is fetched, so the
report opens from file:// on any machine, and it can be copied or published as a folder.
"""

from __future__ import annotations

import html
import os
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

from arena.errors import ArenaError, ReportError
from arena.jsonvalue import JSON
from arena.textsafe import LINE_CHARS, NAME_CHARS, clean
from arena.stats.ratings import Standing
from arena.core.faults import Fault
from arena.stats.analysis import AnalysisOptions, analyse
from arena.stats.seating import SeatReport, seat_report
from arena.results.store import StoredGame
from arena.stats.intervals import Uncertainty
from arena.web import page
from arena.web.report_data import BySeat, HeadToHead, by_seat, game_faults, head_to_head, rating_history
from arena.web.report_svg import rating_plot
from arena.web.report_tables import by_seat_table, faults_section, head_to_head_table, neighbours_table, standings_table
from arena.web import viewer

REPLAY_DIR = "replays"
ASSET_DIR = "assets"  # in REPLAY_DIR: the viewer pages' one copy of their scripts and styles


@dataclass(frozen=True)
class ReportSummary:
    index: Path
    games: int
    viewer_pages: int  # written now (pages already up to date are kept)
    viewer_errors: tuple[str, ...]
    seconds: float


def _viewer_pages(games: Sequence[StoredGame], out: Path, public: bool = False) -> tuple[dict[int, str], int, list[str]]:
    """Write a viewer page per stored replay that has none or an older one; links by game index."""
    links: dict[int, str] = {}
    written = 0
    errors: list[str] = []
    if any(g.replay_path for g in games):
        try:
            page.write_assets(out / REPLAY_DIR / ASSET_DIR, viewer.ASSETS)  # one copy for every viewer page
        except OSError as exc:
            return links, written, [clean(f"viewer assets: {exc}", LINE_CHARS)]
    for g in games:
        if not g.replay_path:
            continue
        replay = Path(g.replay_path)
        rel = f"{REPLAY_DIR}/{g.index:06d}.html"
        target = out / rel
        try:
            if not replay.is_file():
                continue
            if not target.is_file() or target.stat().st_mtime < replay.stat().st_mtime:
                viewer.write_viewer(replay, target, None, back_link="../index.html", assets=ASSET_DIR,
                                    private=_nobody if public else None)
                written += 1
            links[g.index] = rel
        except (ArenaError, OSError) as exc:
            errors.append(clean(f"game {g.index}: {exc}", LINE_CHARS))
    return links, written, errors


def _games_json(games: Sequence[StoredGame], links: dict[int, str]) -> dict[str, JSON]:
    """The game list, column by column (compact for 100,000 games)."""
    return {
        "index": [g.index for g in games],
        "round": [g.round for g in games],
        "table": [g.table for g in games],
        "rotation": [g.scheduled.rotation for g in games],
        "seats": [list(g.seats) for g in games],
        "points": [list(g.played.points) for g in games],
        "ranks": [list(g.ranks) for g in games],
        "faults": [sum(g.played.fault_counts) for g in games],
        "decisions": [g.played.decisions for g in games],
        "duration": [round(g.played.duration_s, 3) for g in games],
        "replay": [links.get(g.index) for g in games],
    }


_NAV = [("standings", "Standings"), ("ratings", "Rating history"), ("h2h", "Head to head"),
        ("seats", "By seat"), ("faults", "Faults"), ("games", "Games")]


def report_html(
    title: str,
    subtitle: str,
    names: list[str],
    standings: Sequence[Standing],
    uncertainty: Uncertainty,
    entrant_names: Sequence[str],
    h2h: HeadToHead,
    seats: BySeat,
    neighbours: SeatReport,
    plot_svg: str,
    faults: list[dict[str, JSON]],
    bot_faults: list[tuple[str, Fault]],
    games: dict[str, JSON],
    notes: list[str],
) -> str:
    nav = " · ".join(f'<a href="#{a}">{t}</a>' for a, t in _NAV)
    sections = [
        f'<header><h1>{html.escape(title)}</h1><span>{html.escape(subtitle)}</span><nav>{nav}</nav></header><main>',
        f'<section id="standings"><h2>Standings</h2>{standings_table(standings, uncertainty, entrant_names)}'
        "<p class=\"note\">Ranked by mu - 3 sigma (TrueSkill, games rated in schedule order), as <code>arena standings</code>.</p></section>",
        f'<section id="ratings"><h2>Rating history</h2>{plot_svg}</section>',
        f'<section id="h2h"><h2>Head to head</h2><p class="note">Row entrant finished ahead of column entrant in '
        f"<b>a</b> of the <b>m</b> games where both played (a/m).</p>{head_to_head_table(h2h, names)}</section>",
        f'<section id="seats"><h2>Results by seat</h2>{by_seat_table(seats, names)}{neighbours_table(neighbours, names)}</section>',
        f'<section id="faults"><h2>Faults</h2>{faults_section(faults, bot_faults)}</section>',
        '<section id="games"><h2>Games</h2><div id="game-controls">'
        '<label>filter <input id="game-filter" type="search" placeholder="entrant name"></label> '
        '<label><input id="faults-only" type="checkbox"> with faults only</label> '
        '<span id="game-count"></span> <button id="page-prev">◀</button> <span id="page-info"></span> '
        '<button id="page-next">▶</button></div><table id="game-table" class="grid"><thead><tr>'
        '<th data-key="index">#</th><th data-key="round">round</th><th data-key="table">table</th>'
        '<th class="name">seats (points, rank)</th><th data-key="winner" class="name">winner</th>'
        '<th data-key="faults">faults</th><th data-key="decisions">decisions</th><th data-key="duration">s</th>'
        "<th>replay</th></tr></thead><tbody></tbody></table></section>",
    ]
    if notes:
        sections.append('<section id="notes"><h2>Notes</h2><ul>' + "".join(f"<li>{html.escape(n)}</li>" for n in notes) + "</ul></section>")
    sections.append("</main>")
    data: dict[str, JSON] = {"names": names, "games": games}
    body = "\n".join(sections) + page.data_script(data) + page.scripts(["report.js"])
    return page.shell(title, page.styles(["base.css", "report.css"]), body)


def _nobody(seat: int) -> bool:
    return False


def build_report(store_path: str | os.PathLike[str], out_dir: str | os.PathLike[str], viewers: bool = True,
                 public: bool = False) -> ReportSummary:
    """Write out_dir/index.html (and out_dir/replays/*.html for stored replays). `public` (a competition's
    published results): no bot's stderr and no fault's detail, on any page (a bot's stderr is its owner's)."""
    started = time.perf_counter()
    out = Path(out_dir)
    # the facts of `arena standings` with its defaults, and the same cached intervals, except the re-rated mu
    # intervals: the page does not show them, and they cost seconds on a big store
    a = analyse(store_path, AnalysisOptions(rating_resamples=0, seats=True))
    seats = a.seats if a.seats is not None else seat_report(list(a.games), len(a.names))  # always set with seats=True
    info, raw_names, standings, games = a.info, list(a.names), list(a.standings), list(a.games)
    names = [clean(n, NAME_CHARS) for n in raw_names]
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReportError(f"cannot create the report folder {out}: {exc.strerror or exc} (choose another with -o)") from None
    links, written, errors = _viewer_pages(games, out, public) if viewers else ({}, 0, [])
    history = rating_history([g.rated() for g in games], len(names))
    subtitle = f"{info.game} · {info.counted_games}/{info.total_games} games · {len(names)} entrants"
    if info.stop is not None:
        subtitle += f" · stopped after round {info.stop.after_round + 1} of {info.stop.rounds} by the stop rule"
    text = report_html(
        clean(info.name, NAME_CHARS),
        subtitle,
        names,
        standings,
        a.uncertainty,
        raw_names,
        head_to_head(games, len(names)),
        by_seat(games, len(names)),
        seats,
        rating_plot(history, names),
        [{k: v for k, v in f.items() if k not in ("detail", "stderr_tail")} for f in game_faults(games, names)] if public
        else game_faults(games, names),
        [(n, replace(f, detail="", stderr_tail=())) for n, f in a.bot_faults] if public else list(a.bot_faults),
        _games_json(games, links),
        [f"no viewer page: {e}" for e in errors],
    )
    index = out / "index.html"
    try:
        index.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ReportError(f"cannot write {index}: {exc.strerror or exc}") from None
    return ReportSummary(index, len(games), written, tuple(errors), time.perf_counter() - started)
