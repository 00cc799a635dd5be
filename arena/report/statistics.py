"""Text, JSON and CSV of the uncertainty, seating and collusion results, beside the standings."""

from __future__ import annotations

import csv
import io
from typing import Sequence

from arena.jsonvalue import JSON
from arena.textsafe import clean
from arena.stats.collusion import CollusionReport
from arena.stats.ratings import Standing
from arena.report.standings import COLUMNS
from arena.stats.seating import SeatReport
from arena.stats.uncertainty import EntrantUncertainty, Uncertainty

INTERVAL_COLUMNS = ("avg_rank_low", "avg_rank_high", "mu_low", "mu_high", "p_ahead_of_next")


def _f(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _by_name(unc: Uncertainty, names: Sequence[str]) -> dict[str, EntrantUncertainty]:
    return {names[e.entrant]: e for e in unc.entrants}


def interval_values(e: EntrantUncertainty | None) -> dict[str, JSON]:
    if e is None:
        return {c: None for c in INTERVAL_COLUMNS}
    return {
        "avg_rank_low": e.avg_rank.low if e.avg_rank else None,
        "avg_rank_high": e.avg_rank.high if e.avg_rank else None,
        "mu_low": e.rating.low if e.rating else None,
        "mu_high": e.rating.high if e.rating else None,
        "p_ahead_of_next": e.p_ahead,
    }


def intervals_text(standings: Sequence[Standing], unc: Uncertainty, names: Sequence[str]) -> str:
    pct = f"{unc.confidence:.0%}"
    if unc.note and unc.blocks and all(e.avg_rank is None for e in unc.entrants):
        return f"how sure: {unc.note}"
    by = _by_name(unc, names)
    rows = [("#", "entrant", f"avg rank {pct} interval", f"mu {pct} interval", "P(ahead of next)")]
    for s in standings:
        e = by.get(s.name)
        ar = e.avg_rank if e else None
        mu = e.rating if e else None
        rows.append(
            (
                str(s.place),
                clean(s.name),
                f"{_f(ar.low)} - {_f(ar.high)}" if ar else "-",
                f"{_f(mu.low)} - {_f(mu.high)}" if mu else "-",
                f"{e.p_ahead:.0%}" if e and e.p_ahead is not None else "",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) if i == 1 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    head = (
        f"how sure: {pct} intervals by bootstrap over {unc.blocks} deal blocks ({unc.resamples} resamples, "
        f"{unc.rating_resamples} re-rated for mu; seed {unc.seed})"
    )
    return "\n".join([head, *lines, *([f"  ({unc.note})"] if unc.note else [])])


def uncertainty_json(unc: Uncertainty, names: Sequence[str]) -> dict[str, JSON]:
    return {
        "confidence": unc.confidence,
        "resamples": unc.resamples,
        "rating_resamples": unc.rating_resamples,
        "seed": unc.seed,
        "blocks": unc.blocks,
        "method": "stratified bootstrap over deal blocks (a deal under all its seatings is one unit)",
        "note": unc.note or None,
        "entrants": {
            names[e.entrant]: {
                "avg_rank": e.avg_rank.to_json() if e.avg_rank else None,
                "mu": e.rating.to_json() if e.rating else None,
                "p_ahead_of_next": e.p_ahead,
            }
            for e in unc.entrants
        },
    }


def standings_csv(standings: Sequence[Standing], unc: Uncertainty, names: Sequence[str]) -> str:
    by = _by_name(unc, names)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow((*COLUMNS, *INTERVAL_COLUMNS))
    for s in standings:
        d = {**s.to_json(), **interval_values(by.get(s.name))}
        writer.writerow(["" if d[c] is None else d[c] for c in (*COLUMNS, *INTERVAL_COLUMNS)])
    return out.getvalue()


def seats_text(report: SeatReport, names: Sequence[str]) -> str:
    lines = ["seats (average rank over every entrant; a seat advantage shows as a lower number):"]
    for s in range(report.seats):
        lines.append(f"  seat {s}: {report.seat_games[s]} games, average rank {_f(report.seat_avg_rank[s])}")
    b = report.balance
    state = "exact" if b.exact else f"spread {b.spread} ({b.low}-{b.high}), {b.deviation:.0%} of adjacencies off balance"
    lines.append(f"neighbours: each entrant after each other {state}")
    width = max(len(clean(n)) for n in names) if names else 0
    lines.append("  average rank of ROW when COLUMN sits directly before it (games in brackets):")
    lines.append("  " + " " * width + "  " + "  ".join(clean(n)[:10].rjust(12) for n in names))
    for a, name in enumerate(names):
        cells = []
        for b_ in range(len(names)):
            v = report.after_avg_rank[a][b_]
            cells.append(("" if v is None else f"{v:.2f} ({report.next_games[b_][a]})").rjust(12))
        lines.append("  " + clean(name).ljust(width) + "  " + "  ".join(cells))
    return "\n".join(lines)


def collusion_text(report: CollusionReport, names: Sequence[str], show: int = 5) -> str:
    lines = [f"collusion test: {report.test}; alpha {report.alpha}"]
    testable = [p for p in report.pairs if p.p is not None]
    if not testable:
        return lines[0] + "\n  no pair can be tested: every table seats every pair together (needs more entrants than seats)"
    for p in testable[:show]:
        mark = "FLAGGED" if p.flagged else "ok"
        lines.append(
            f"  {mark}: {clean(names[p.partner])} gains {_f(p.partner_gain, 3)} with {clean(names[p.feeder])}, which loses "
            f"{_f(p.feeder_loss, 3)} (pairwise score vs the rest); z {_f(p.z)}, p {p.p:.3g}, adjusted {_f(p.p_adjusted, 3)}"
        )
    return "\n".join(lines)
