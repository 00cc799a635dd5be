"""The report's tables as HTML: every text escaped here, every bot-controlled text cleaned first."""

from __future__ import annotations

import html
from typing import Sequence

from arena.core.faults import STDERR_TAIL_LINES, Fault
from arena.jsonvalue import JSON
from arena.textsafe import LINE_CHARS, NAME_CHARS, clean
from arena.report import standings as text_report
from arena.report.statistics import p_text
from arena.stats.ratings import Standing
from arena.stats.seating import SeatReport
from arena.stats.intervals import EntrantUncertainty, Uncertainty
from arena.web.report_data import BySeat, HeadToHead

# Optional fields a Standing may carry (uncertainty from a stop rule, for example) get a column each,
# after the standard ones, with these headers when known and the field name otherwise.
OPTIONAL_HEADERS = {"ci_low": "CI low", "ci_high": "CI high", "p_best": "P(best)", "rank_range": "rank range"}


def _cell(value: JSON, digits: int = 2) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    if isinstance(value, list):
        return "–".join(_cell(v, digits) for v in value)
    return html.escape(str(value))


def standings_table(standings: Sequence[Standing], unc: Uncertainty | None = None, names: Sequence[str] = ()) -> str:
    """The standings as `arena standings` prints them; with `unc` (and `names`, entrant names by index,
    as the standings name them) two more columns: the average-rank interval and P(ahead of next)."""
    rows = [s.to_json() for s in standings]
    extra: list[str] = []
    for r in rows:
        extra += [k for k in r if k not in text_report.COLUMNS and k not in extra]
    columns = list(text_report.COLUMNS) + extra
    headers = list(text_report.HEADERS) + [OPTIONAL_HEADERS.get(k, k) for k in extra]
    by_name = {names[e.entrant]: e for e in unc.entrants} if unc is not None else {}
    if unc is not None:
        headers += [f"avg rank ({unc.confidence:.0%} interval)", "P(ahead of next)"]
    out = ['<table id="standings-table" class="grid"><thead><tr>']
    out += [f'<th{" class=name" if c == "name" else ""}>{html.escape(h)}</th>' for c, h in zip(columns + ["", ""], headers)]
    out.append("</tr></thead><tbody>")
    for s, r in zip(standings, rows):
        out.append("<tr>")
        for c in columns:
            v = r.get(c)
            if c == "name":
                out.append(f'<td class="name">{html.escape(clean(str(v), 64))}</td>')
            elif c == "wins" and isinstance(v, float) and v == int(v):
                out.append(f"<td>{int(v)}</td>")
            else:
                out.append(f'<td data-col="{c}">{_cell(v)}</td>')
        if unc is not None:
            out.append(_interval_cells(by_name.get(s.name), names))
        out.append("</tr>")
    out.append("</tbody></table>")
    if unc is not None:
        out.append(f'<p class="note" id="standings-uncertainty">{html.escape(_uncertainty_note(unc))}</p>')
    return "".join(out)


def _interval_cells(e: EntrantUncertainty | None, names: Sequence[str]) -> str:
    ar = e.avg_rank if e is not None else None
    if ar is None:
        why = f' title="{html.escape(e.why)}"' if e is not None and e.why else ""
        cells = f'<td data-col="avg_rank_interval"{why}>-</td>'
    else:
        cells = (f'<td data-col="avg_rank_interval" data-estimate="{ar.estimate:.6f}" data-low="{ar.low:.6f}" data-high="{ar.high:.6f}">'
                 f'{ar.estimate:.2f} <span class="ms">[{ar.low:.2f}, {ar.high:.2f}]</span></td>')
    p = e.p_ahead if e is not None else None
    if p is None:
        return cells + '<td data-col="p_ahead_of_next">-</td>'
    over = f' <span class="ms">over {html.escape(clean(names[e.next], 64))}</span>' if e is not None and e.next is not None else ""
    return cells + f'<td data-col="p_ahead_of_next" data-p="{p:.6f}">{p_text(p)}{over}</td>'


def _uncertainty_note(unc: Uncertainty) -> str:
    if unc.note and all(e.avg_rank is None for e in unc.entrants):
        return f"How sure: {unc.note}."
    text = (f"How sure: {unc.confidence:.0%} intervals of each entrant's average rank, by bootstrap over {unc.blocks} "
            f"deal blocks (a deal under all its seatings is one unit; {unc.resamples} resamples, seed {unc.seed}), as "
            "arena standings shows them; each widened for the entrant's own number of deals and kept within 1..seats). "
            "P(ahead of next): the chance that the entrant's true average rank is better than that of the entrant "
            "next to it by average rank (named in the cell).")
    return text + (f" ({unc.note})" if unc.note else "")


def head_to_head_table(h2h: HeadToHead, names: list[str]) -> str:
    out = ['<table id="h2h-table" class="grid"><thead><tr><th class="name">ahead of →</th>']
    out += [f"<th>{html.escape(n)}</th>" for n in names]
    out.append("</tr></thead><tbody>")
    for i, row in enumerate(names):
        out.append(f'<tr><th class="name">{html.escape(row)}</th>')
        for j in range(len(names)):
            met = h2h.met[i][j]
            if i == j or met == 0:
                out.append('<td class="none">-</td>')
                continue
            a = h2h.ahead[i][j]
            share = a / met
            hue = 120 if share > 0.5 else 0 if share < 0.5 else 60
            alpha = abs(share - 0.5) * 1.2
            out.append(
                f'<td data-ahead="{a}" data-met="{met}" style="background:hsla({hue},60%,50%,{alpha:.2f})" '
                f'title="{html.escape(row)} ahead of {html.escape(names[j])} in {a} of {met} games">{a}/{met}</td>'
            )
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _pct(value: JSON) -> str:
    return "-" if not isinstance(value, (int, float)) else f"{100 * value:.1f}%"


def by_seat_table(seats: BySeat, names: list[str]) -> str:
    n = len(seats.overall)
    tables = sorted(seats.players)
    expected = " or ".join(f"{100 / p:.1f}%" for p in tables) or "-"
    out = [f'<p class="note">A seat with no advantage wins 1/players of its games ({expected}); wins shared by k seats count 1/k.</p>']
    out.append('<table id="seat-table" class="grid"><thead><tr><th class="name"></th>')
    out += [f"<th>seat {s}</th>" for s in range(n)]
    out.append("</tr></thead><tbody>")

    def row(label: str, lines: list[JSON], cls: str) -> None:
        out.append(f'<tr class="{cls}"><th class="name">{html.escape(label)}</th>')
        for s in range(n):
            d = lines[s] if s < len(lines) else None
            if not isinstance(d, dict) or not d.get("games"):
                out.append("<td>-</td>")
                continue
            out.append(
                f'<td data-seat="{s}" data-games="{d["games"]}" data-wins="{d["wins"]}">{_pct(d["win_rate"])} wins'
                f'<br><span class="ms">{d["games"]} games · avg rank {_cell(d["avg_rank"])} · avg pts {_cell(d["avg_points"])}</span></td>'
            )
        out.append("</tr>")

    data = seats.to_json()
    overall = data["overall"]
    per = data["per_entrant"]
    row("all entrants", overall if isinstance(overall, list) else [], "overall")
    for e, name in enumerate(names):
        lines = per[e] if isinstance(per, list) and isinstance(per[e], list) else []
        row(name, lines, "entrant")
    out.append("</tbody></table>")
    return "".join(out)


def neighbours_table(seats: SeatReport, names: list[str]) -> str:
    """Average rank of the row entrant when the column entrant sits directly before it (its right-hand
    neighbour in play order), with the number of such games: who profits from whom."""
    b = seats.balance
    state = "exactly balanced" if b.exact else (
        f"off balance: spread {b.spread} ({b.low} to {b.high} games), {b.deviation:.0%} of adjacencies would have to move")
    out = [f'<h3>Neighbours</h3><p class="note" id="neighbour-balance">How often each entrant sat directly after each '
           f"other one: {html.escape(state)}. Cell: average rank of the row entrant when the column entrant sits directly "
           "before it (games in brackets).</p>"]
    out.append('<table id="neighbour-table" class="grid"><thead><tr><th class="name">row after →</th>')
    out += [f"<th>{html.escape(n)}</th>" for n in names]
    out.append("</tr></thead><tbody>")
    for a, row in enumerate(names):
        out.append(f'<tr><th class="name">{html.escape(row)}</th>')
        for b_ in range(len(names)):
            v = seats.after_avg_rank[a][b_] if a < len(seats.after_avg_rank) else None
            games = seats.next_games[b_][a] if b_ < len(seats.next_games) else 0
            if v is None or not games:
                out.append('<td class="none">-</td>')
            else:
                out.append(f'<td data-after="{b_}" data-games="{games}" data-avg-rank="{v:.6f}">{v:.2f} '
                           f'<span class="ms">({games})</span></td>')
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def faults_section(faults: list[dict[str, JSON]], bot_faults: Sequence[tuple[str, Fault]]) -> str:
    if not faults and not bot_faults:
        return '<p id="no-faults">No faults: every bot answered every request in time, legally.</p>'
    out: list[str] = []
    if faults:
        out.append(f'<p>{len(faults)} fault(s) in games (the game went on with the fallback action).</p><div id="fault-list">')
        for f in faults[:1000]:
            tail = f.get("stderr_tail")
            lines = [clean(x, LINE_CHARS) for x in tail[-STDERR_TAIL_LINES:]] if isinstance(tail, list) else []
            out.append(
                f'<div class="fault"><b>{html.escape(clean(f.get("kind"), 40))}</b> · {html.escape(clean(f.get("entrant"), 64))} '
                f'(seat {_cell(f.get("seat"))}) · game {_cell(f.get("game"))} step {_cell(f.get("step"))}'
                f'<div class="detail">{html.escape(clean(f.get("detail")))}</div>'
                + (f'<pre class="stderr">{html.escape(chr(10).join(lines))}</pre>' if lines else "")
                + "</div>"
            )
        if len(faults) > 1000:
            out.append(f"<p>… and {len(faults) - 1000} more (the game list's fault filter finds their games).</p>")
        out.append("</div>")
    if bot_faults:
        out.append(f"<p>{len(bot_faults)} fault(s) found when bot processes were closed: they belong to no game and change no rating.</p>")
        for entrant, bf in bot_faults:
            lines = [clean(x, LINE_CHARS) for x in bf.stderr_tail[-STDERR_TAIL_LINES:]]
            out.append(
                f'<div class="fault"><b>{html.escape(bf.kind.value)}</b> · {html.escape(clean(entrant, NAME_CHARS))}'
                f'<div class="detail">{html.escape(clean(bf.detail))}</div>'
                + (f'<pre class="stderr">{html.escape(chr(10).join(lines))}</pre>' if lines else "")
                + "</div>"
            )
    return "".join(out)
