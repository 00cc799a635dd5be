"""Text, JSON and CSV of the uncertainty, seating and collusion results, beside the standings."""

from __future__ import annotations

import csv
import io
from typing import Sequence

from arena.jsonvalue import JSON
from arena.textsafe import NAME_CHARS, clean
from arena.stats.collusion import CollusionReport
from arena.stats.ratings import Standing
from arena.report.standings import COLUMNS
from arena.stats.seating import SeatReport
from arena.stats.intervals import EntrantUncertainty, Uncertainty

INTERVAL_COLUMNS = ("avg_rank_low", "avg_rank_high", "mu_low", "mu_high", "p_ahead_of_next", "next_by_avg_rank")


def _f(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def versions_text(versions: Sequence[tuple[str, str | None, str | None]]) -> str:
    """Which version of each bot the counted games are of: its files' content hash and its hello's version."""
    parts = []
    for name, files, hello in versions:
        said = f" (hello version {clean(hello, NAME_CHARS)!r})" if hello else ""
        parts.append(f"{clean(name, NAME_CHARS)} files {files or 'not recorded'}{said}")
    return "versions: " + "; ".join(parts)


def _by_name(unc: Uncertainty, names: Sequence[str]) -> dict[str, EntrantUncertainty]:
    return {names[e.entrant]: e for e in unc.entrants}


def p_text(p: float) -> str:
    """A probability as a person reads it: never "100%" for something short of certain."""
    if p >= 0.995:
        return ">99%" if p < 1 else "100%"
    if p <= 0.005:
        return "<1%" if p > 0 else "0%"
    return f"{p:.0%}"


def interval_values(e: EntrantUncertainty | None, names: Sequence[str] = ()) -> dict[str, JSON]:
    if e is None:
        return {c: None for c in INTERVAL_COLUMNS}
    return {
        "avg_rank_low": e.avg_rank.low if e.avg_rank else None,
        "avg_rank_high": e.avg_rank.high if e.avg_rank else None,
        "mu_low": e.rating.low if e.rating else None,
        "mu_high": e.rating.high if e.rating else None,
        "p_ahead_of_next": e.p_ahead,
        "next_by_avg_rank": names[e.next] if e.next is not None and e.next < len(names) else None,
    }


def intervals_text(standings: Sequence[Standing], unc: Uncertainty, names: Sequence[str]) -> str:
    """The intervals, ordered by average rank (the quantity they and P(ahead of next) are about), with
    each entrant's place in the standings; entrants without an interval say why below the table."""
    pct = f"{unc.confidence:.0%}"
    if unc.note and unc.blocks and all(e.avg_rank is None for e in unc.entrants):
        return f"how sure: {unc.note}"
    place = {s.name: s.place for s in standings}
    rows = [("place", "entrant", "avg rank", f"{pct} interval", f"mu {pct} interval", "P(ahead of next)")]
    why = []
    listed = list(unc.order) + [e.entrant for e in unc.entrants if e.entrant not in unc.order]
    for i in listed:
        e = unc.entrants[i]
        ar, mu = e.avg_rank, e.rating
        if ar is None and e.why:
            why.append(f"  {clean(names[i])}: {e.why}")
        rows.append(
            (
                str(place.get(names[i], "-")),
                clean(names[i]),
                _f(ar.estimate) if ar else "-",
                f"{_f(ar.low)} - {_f(ar.high)}" if ar else "-",
                f"{_f(mu.low)} - {_f(mu.high)}" if mu else "-",
                p_text(e.p_ahead) if e.p_ahead is not None else "",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) if i == 1 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    head = (
        f"how sure: {pct} intervals by bootstrap over {unc.blocks} deal blocks ({unc.resamples} resamples, "
        f"{unc.rating_resamples} re-rated for mu; seed {unc.seed}), ordered by average rank; "
        "P(ahead of next): the chance that its true average rank is better than the next row's"
    )
    return "\n".join([head, *lines, *why, *([f"  ({unc.note})"] if unc.note else [])])


def uncertainty_json(unc: Uncertainty, names: Sequence[str]) -> dict[str, JSON]:
    return {
        "confidence": unc.confidence,
        "resamples": unc.resamples,
        "rating_resamples": unc.rating_resamples,
        "seed": unc.seed,
        "blocks": unc.blocks,
        "method": "stratified bootstrap over deal blocks (a deal under all its seatings is one unit), each entrant's "
        "interval widened by sqrt(n/df) t(df)/z from its own n deal blocks (df = n - tables), clipped to 1..seats",
        "note": unc.note or None,
        "entrants": {
            names[e.entrant]: {
                "avg_rank": e.avg_rank.to_json() if e.avg_rank else None,
                "mu": e.rating.to_json() if e.rating else None,
                "p_ahead_of_next": e.p_ahead,
                "next_by_avg_rank": names[e.next] if e.next is not None else None,
                "no_interval_because": e.why or None,
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
        d = {**s.to_json(), **interval_values(by.get(s.name), names)}
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


def _chance(p: float) -> str:
    if p >= 0.01:
        return f"{p:.0%}"
    if p < 1e-12:
        return "below 1 in a trillion"
    return f"1 in {1 / p:,.0f}" if p >= 1e-6 else f"1 in {1 / p:.1e}"


def collusion_text(report: CollusionReport, names: Sequence[str], show: int = 10) -> str:
    """The collusion test in an organiser's words: every pair flagged, the `show` most suspicious of
    the others, and how many pairs were not listed (all are in `--json`)."""
    tested = [p for p in report.pairs if p.p is not None]
    untestable = len(report.pairs) - len(tested)
    lines = [
        "collusion check: does one entrant finish ahead of the other players more often when a certain other "
        "entrant is at its table, while that entrant finishes ahead of them less often?",
        f"  {len(tested)} pair(s) tested"
        + (f", {untestable} could not be (they always or never share a table)" if untestable else "")
        + f"; the chance that any innocent pair is flagged is at most {report.alpha:.0%}",
    ]
    if not tested:
        lines.append("  no pair can be tested: every table seats every pair together (needs more entrants than seats, "
                     "and 2 deals with and without each pair)")
        return "\n".join(lines)
    flagged = [p for p in tested if p.flagged]
    rest = [p for p in tested if not p.flagged]
    listed = flagged + rest[:show]
    for p in listed:
        mark = "SUSPICIOUS" if p.flagged else "no sign   "
        gain = f"{(p.partner_gain or 0.0) * 100:+.0f}" if p.partner_gain is not None else "?"
        loss = f"{-(p.feeder_loss or 0.0) * 100:+.0f}" if p.feeder_loss is not None else "?"
        a, b = clean(names[p.partner]), clean(names[p.feeder])
        chance = _chance(p.p_adjusted if p.p_adjusted is not None else 1.0)
        lines.append(
            f"  {mark} {a} gains with {b}: {a} {gain} points in how often it finishes ahead of the others when {b} "
            f"is at the table, {b} {loss} points when {a} is; chance by luck (allowing for {len(tested)} pairs): {chance}"
        )
    if len(listed) < len(tested):
        lines.append(f"  ... and {len(tested) - len(listed)} more pair(s) with no sign (every pair is in --json)")
    return "\n".join(lines)
