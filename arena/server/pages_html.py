"""The ladder's pages as HTML, from the API's own answers: every text escaped here, every text a bot
or participant chose cleaned first (`arena.textsafe`). The rating plot is the report's (`report_svg`)."""

from __future__ import annotations

import html
from typing import Any

from arena.core.faults import STDERR_TAIL_LINES
from arena.ladder.queries import Reads
from arena.textsafe import LINE_CHARS, NAME_CHARS, clean
from arena.web.report_data import RatingHistory
from arena.web.report_svg import rating_plot


FAULTS_SHOWN = 8


def names(read: Reads) -> dict[int, str]:
    """Every bot version as pages name it: participant / bot vVERSION (cleaned)."""
    return {bot: f"{clean(who, NAME_CHARS)} / {clean(name, NAME_CHARS)} ({clean(version, NAME_CHARS)})"
            for bot, who, name, version in read.bot_labels()}


def esc(value: object, limit: int = NAME_CHARS) -> str:
    return html.escape(clean(value, limit))


def nav(who: str, admin: bool, current: str) -> str:
    links = [("/", "leaderboard"), ("/live", "live games"), ("/submit", "submit a bot"), ("/results", "results")] + ([("/admin", "admin")] if admin else [])
    links += [("/versions", "versions and challenges")] if who and not admin else []
    items = "".join(f'<a href="{h}"{" aria-current=page" if h == current else ""}>{t}</a>' for h, t in links)
    account = (f'<span class="who">signed in: {esc(who)}</span> <a href="/signout">sign out</a>' if who
               else '<a href="/signin">sign in</a>')
    return f'<header class="nav"><nav aria-label="pages">{items}</nav><span class="account">{account}</span></header>'


def bot_label(bot: dict[str, Any]) -> str:
    return f"{clean(bot['participant'], NAME_CHARS)} / {clean(bot['name'], NAME_CHARS)}"


def leaderboard_table(board: list[dict[str, Any]], generation: int) -> str:
    """The table the leaderboard page shows, and what its live update swaps in."""
    rows = []
    for b in board:
        rows.append(
            f'<tr data-bot="{int(b["id"])}"><td>{int(b["rank"])}</td>'
            f'<td class="name"><a href="/bots/{int(b["id"])}">{html.escape(bot_label(b))}</a></td>'
            f'<td>{esc(b["version"])}</td><td class="num">{b["rating"]:.2f}</td>'
            f'<td class="num">{b["interval"][0]:.1f}–{b["interval"][1]:.1f}</td>'
            f'<td class="num games">{int(b["games"])}</td>'
            f'<td class="form" aria-label="recent form, newest first">{_form(b["form"])}</td>'
            f'<td class="num">{int(b["faults"])}</td></tr>')
    if not rows:
        rows.append('<tr><td colspan="8">no active bot yet</td></tr>')
    return (f'<table id="leaderboard" class="grid" data-generation="{generation}"><caption>active bots by rating '
            '(mu − 3σ); interval mu ± 3σ</caption><thead><tr><th>#</th><th class="name">bot</th><th>version</th>'
            '<th>rating</th><th>interval</th><th>games</th><th>form</th><th>faults</th></tr></thead><tbody>'
            + "".join(rows) + "</tbody></table>")


def _form(form: str) -> str:
    return "".join(f'<span class="f{c}">{c}</span>' for c in form if c in "WDL")


def bot_page(bot: dict[str, Any], names: dict[int, str], h2h: list[dict[str, Any]], logs: list[dict[str, Any]]) -> str:
    label = bot_label(bot)
    status = esc(bot["status"]) + (f" — {esc(bot['reason'], 400)}" if bot["reason"] else "")
    history = bot["rating_history"]
    plot = (rating_plot(RatingHistory([i for i in range(len(history))], [[h["mu"] for h in history]],
                                      [[h["sigma"] for h in history]]), [label])
            if history else "<p>no rated games yet</p>")
    parts = [
        f'<h1>{html.escape(label)} <small>version {esc(bot["version"])}</small></h1>',
        f'<p class="status">status: {status}</p>',
        f'<dl class="facts"><dt>rating</dt><dd>{bot["rating"]:.2f}</dd><dt>mu</dt><dd>{bot["mu"]:.2f}</dd>'
        f'<dt>sigma</dt><dd>{bot["sigma"]:.2f}</dd><dt>games</dt><dd>{int(bot["games"])}</dd>'
        f'<dt>wins</dt><dd>{bot["wins"]:g}</dd></dl>',
        f'<h2>rating history</h2><div class="plotbox">{plot}</div>',
        "<h2>versions</h2>" + _versions(bot),
        "<h2>recent games</h2>" + _recent(bot, names),
        "<h2>head to head</h2>" + _h2h(h2h, names),
        "<h2>faults</h2>" + _faults(bot["faults"], bot["owner_view"]),
    ]
    if bot["owner_view"]:
        parts.append('<h2>your logs</h2><p>the check reports of your submissions (only you see them)</p>' + _logs(logs))
    return "\n".join(parts)


def _versions(bot: dict[str, Any]) -> str:
    rows = "".join(f'<tr><td><a href="/bots/{int(v["id"])}">{int(v["id"])}</a></td><td>{esc(v["version"])}</td>'
                   f'<td>{esc(v["status"])}</td><td class="num">{int(v["games"])}</td>'
                   f'<td class="num">{v["mu"] - 3 * v["sigma"]:.2f}</td></tr>' for v in bot["versions"])
    return ('<table class="grid"><thead><tr><th>bot</th><th>version</th><th>status</th><th>games</th><th>rating</th>'
            f"</tr></thead><tbody>{rows}</tbody></table>")


def _recent(bot: dict[str, Any], names: dict[int, str]) -> str:
    if not bot["recent_games"]:
        return "<p>no games yet</p>"
    rows = []
    for g in bot["recent_games"]:
        others = ", ".join(f'<a href="/bots/{int(b)}">{html.escape(names.get(int(b), str(b)))}</a>'
                           for b in g["bots"] if int(b) != int(bot["id"]))
        rows.append(f'<tr><td><a href="/games/{int(g["game"])}">game {int(g["game"])}</a></td><td class="num">{int(g["rank"])}</td>'
                    f'<td class="num">{g["points"]:g}</td><td class="num">{int(g["faults"])}</td><td>{others}</td></tr>')
    return ('<table class="grid" id="recent-games"><thead><tr><th>replay</th><th>rank</th><th>points</th><th>faults</th>'
            f'<th>against</th></tr></thead><tbody>{"".join(rows)}</tbody></table>')


def _h2h(h2h: list[dict[str, Any]], names: dict[int, str]) -> str:
    if not h2h:
        return "<p>no games yet</p>"
    rows = "".join(f'<tr><td class="name"><a href="/bots/{int(r["other"])}">{html.escape(names.get(int(r["other"]), "?"))}</a></td>'
                   f'<td class="num">{int(r["games"])}</td><td class="num">{int(r["ahead"])}</td>'
                   f'<td class="num">{int(r["level"])}</td><td class="num">{int(r["behind"])}</td></tr>' for r in h2h)
    return ('<table class="grid" id="head-to-head"><thead><tr><th class="name">against</th><th>games</th><th>ahead</th>'
            f'<th>level</th><th>behind</th></tr></thead><tbody>{rows}</tbody></table>')


def _faults(faults: list[dict[str, Any]], owner: bool) -> str:
    if not faults:
        return "<p>no faults in its recent games</p>"
    out = ['<ul class="faults">']
    for f in faults[:FAULTS_SHOWN]:
        out.append(f'<li><a href="/games/{int(f.get("game", 0))}">game {int(f.get("game", 0))}</a>, step {esc(f.get("step"))}: '
                   f'<b>{esc(f.get("kind"))}</b> {esc(f.get("detail", ""), 300)}')
        tail = f.get("stderr_tail")
        if owner and tail:
            lines = "\n".join(clean(line, LINE_CHARS) for line in tail[-STDERR_TAIL_LINES:])
            out.append(f'<pre class="stderr" aria-label="your bot\'s stderr">{html.escape(lines)}</pre>')
        elif owner and f.get("held"):
            out.append('<p class="note held">its stderr and the fault\'s detail are shown once every table of this deal '
                       'has been played</p>')
        out.append("</li>")
    out.append("</ul>")
    if len(faults) > FAULTS_SHOWN:
        out.append(f'<p class="note">and {len(faults) - FAULTS_SHOWN} more faults in its recent games</p>')
    if not owner:
        out.append("<p class=\"note\">a bot's stderr is shown to its owner only</p>")
    return "".join(out)


def _logs(logs: list[dict[str, Any]]) -> str:
    if not logs:
        return "<p>none</p>"
    return "".join(f'<details><summary>submission {int(s["id"])}: {esc(s["status"])} — {esc(s["reason"], 300)}</summary>'
                   f'<pre class="stderr">{html.escape(clean(s["report"], 20_000, keep_newlines=True))}</pre></details>'
                   for s in logs)
