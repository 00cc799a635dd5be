"""The rating history plot as inline SVG, drawn in Python.

Why SVG and not a plotting library: the plot is static (lines over games, a legend) and sampled to a
few hundred points per entrant, so about 60 lines of Python give a crisp, printable picture with no
JavaScript to vendor, load or keep up to date, and it shows even with scripts disabled.
"""

from __future__ import annotations

import html

from arena.web.report_data import RatingHistory

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22")
WIDTH, HEIGHT = 900, 360
LEFT, RIGHT, TOP, BOTTOM = 50, 180, 14, 34


def _ticks(lo: float, hi: float, count: int = 6) -> list[float]:
    span = hi - lo or 1.0
    raw = span / count
    mag = 10 ** len(str(int(raw))) / 10 if raw >= 1 else 0.1
    step = min((m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw), default=raw)
    first = (lo // step) * step
    out = []
    v = first
    while v <= hi + 1e-9:
        if v >= lo - 1e-9:
            out.append(round(v, 6))
        v += step
    return out


def rating_plot(history: RatingHistory, names: list[str]) -> str:
    """Each entrant's mu (solid) and mu - 3 sigma (dashed) over the games, in schedule order."""
    xs = [x + 1 for x in history.games]  # games played so far
    values = [m for row in history.mu for m in row] + [
        m - 3 * s for mrow, srow in zip(history.mu, history.sigma) for m, s in zip(mrow, srow)
    ]
    lo, hi = (min(values), max(values)) if values else (0.0, 1.0)
    x_hi = max(xs[-1], 1) if xs else 1
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def px(x: float) -> float:
        return LEFT + plot_w * x / x_hi

    def py(y: float) -> float:
        return TOP + plot_h * (1 - (y - lo) / ((hi - lo) or 1.0))

    parts = [
        f'<svg class="plot" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" role="img" '
        'aria-label="rating history" xmlns="http://www.w3.org/2000/svg" font-size="11" font-family="sans-serif">',
        f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="#fff" stroke="#bbb"/>',
    ]
    for t in _ticks(lo, hi):
        y = py(t)
        parts.append(f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eee"/>')
        parts.append(f'<text x="{LEFT - 4}" y="{y + 4:.1f}" text-anchor="end">{t:g}</text>')
    for t in _ticks(0, x_hi):
        x = px(t)
        parts.append(f'<text x="{x:.1f}" y="{HEIGHT - BOTTOM + 14}" text-anchor="middle">{t:g}</text>')
    parts.append(f'<text x="{LEFT + plot_w / 2}" y="{HEIGHT - 4}" text-anchor="middle">games (schedule order)</text>')
    for e, name in enumerate(names):
        colour = PALETTE[e % len(PALETTE)]
        mu = history.mu[e]
        low = [m - 3 * s for m, s in zip(mu, history.sigma[e])]
        for series, dash in ((mu, ""), (low, ' stroke-dasharray="4 3"')):
            pts = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(xs, series))
            parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.6"{dash} points="{pts}"/>')
        ly = TOP + 14 + 16 * e
        parts.append(f'<line x1="{WIDTH - RIGHT + 10}" x2="{WIDTH - RIGHT + 30}" y1="{ly - 4}" y2="{ly - 4}" stroke="{colour}" stroke-width="3"/>')
        parts.append(f'<text x="{WIDTH - RIGHT + 34}" y="{ly}">{html.escape(name[:22])}</text>')
    ly = TOP + 14 + 16 * len(names) + 8
    parts.append(f'<text x="{WIDTH - RIGHT + 10}" y="{ly}" fill="#555">solid: mu; dashed: mu-3σ</text>')
    parts.append("</svg>")
    return "\n".join(parts)
