"""Standings as text, CSV and JSON: one place, so the CLI and the runner print the same thing."""

from __future__ import annotations

import csv
import io
from typing import Sequence

from arena.jsonvalue import JSON, dumps_str
from arena.textsafe import NAME_CHARS, clean
from arena.stats.ratings import Standing

COLUMNS = ("place", "name", "score", "mu", "sigma", "games", "wins", "avg_points", "avg_rank", "faults")
HEADERS = ("#", "entrant", "mu-3sigma", "mu", "sigma", "games", "wins", "avg pts", "avg rank", "faults")


def _number(value: float | None, digits: int) -> str:
    if value is None:
        return "-"
    text = f"{value:.{digits}f}"
    return "0" if text.strip("-0.") == "" and digits == 0 else text


def _wins(value: float) -> str:
    """Shared wins are fractions (a win shared by 2 counts 0.5): show them without noise."""
    return str(int(value)) if value == int(value) else f"{value:.2f}"


def table(standings: Sequence[Standing]) -> str:
    """A fixed-width table, best first. Names are cleaned (an escape code or a newline in one would
    break the columns, or the terminal)."""
    rows = [HEADERS] + [
        (
            str(s.place),
            clean(s.name, NAME_CHARS),
            _number(s.score, 2),
            _number(s.mu, 2),
            _number(s.sigma, 2),
            str(s.games),
            _wins(s.wins),
            _number(s.avg_points, 2),
            _number(s.avg_rank, 2),
            str(s.faults),
        )
        for s in standings
    ]
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADERS))]
    lines = []
    for r in rows:
        cells = [r[i].ljust(widths[i]) if i == 1 else r[i].rjust(widths[i]) for i in range(len(r))]
        lines.append("  ".join(cells).rstrip())
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def as_csv(standings: Sequence[Standing]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for s in standings:
        d = s.to_json()
        writer.writerow(["" if d[c] is None else d[c] for c in COLUMNS])
    return out.getvalue()


def as_json(standings: Sequence[Standing], meta: dict[str, JSON] | None = None) -> str:
    return dumps_str({**(meta or {}), "standings": [s.to_json() for s in standings]})


def bot_faults(faults: Sequence[tuple[str, str, str]]) -> str:
    """Faults found when bot processes were closed (no game to charge them to), one line each."""
    if not faults:
        return ""
    lines = [f"faults outside games ({len(faults)}): found when bot processes were closed; they change no rating"]
    lines += [f"  {clean(entrant, NAME_CHARS)}: {clean(kind, NAME_CHARS)}: {clean(detail)}" for entrant, kind, detail in faults]
    return "\n".join(lines)
