"""`python -m bench [--quick]`: run every benchmark and write BENCHMARKS.md (machine, figures, targets).

Figures are medians with their range over repeats. The referee's ratio to the raw pipe is taken within
each repeat, since the raw rate itself moves with where the scheduler puts the two processes.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

from bench import bench_engine, bench_ratings, bench_referee, bench_sandbox, bench_tournament
from bench.stats import Figure, fmt, marked_sections

ROOT = Path(__file__).resolve().parents[1]


def machine() -> list[str]:
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kb / 1024 / 1024:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    return [
        f"- Machine: {os.cpu_count()} cores ({model}){mem}, {platform.system()} {platform.release()}",
        f"- Python: {platform.python_implementation()} {platform.python_version()}",
        f"- Date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
    ]


def referee_figures(report: dict) -> list[Figure]:
    names = {
        "raw_round_trips_per_s": ("referee: raw Python-to-C pipe loop, unpinned", "round trips/s"),
        "raw_cross_core_round_trips_per_s": ("referee: raw Python-to-C pipe loop, pinned to different cores", "round trips/s"),
        "raw_same_core_round_trips_per_s": ("referee: raw Python-to-C pipe loop, pinned to one core", "round trips/s"),
        "kododo_c_4_decisions_per_s": ("referee: Kododo 4p, instant C bots", "decisions/s"),
        "kododo_c_2_decisions_per_s": ("referee: Kododo 2p, instant C bots", "decisions/s"),
        "kododo_python_4_decisions_per_s": ("referee: Kododo 4p, instant Python bots", "decisions/s"),
        "kododo_python_2_decisions_per_s": ("referee: Kododo 2p, instant Python bots", "decisions/s"),
    }
    for lang in ("c", "python"):
        for seats in (1, 2, 4):
            names[f"relay_{lang}_{seats}_decisions_per_s"] = (f"referee: relay game, {seats} deciding seat(s), instant {lang} bots", "decisions/s")
            names[f"relay_{lang}_{seats}_step_us"] = (f"referee: relay game, {seats} deciding seat(s), instant {lang} bots", "us/step")
    for seats in (1, 4):
        names[f"relay_thinking2ms_{seats}_step_us"] = (f"referee: relay game, {seats} seat(s), bots thinking 2 ms", "us/step")
    names["kododo_c_4_vs_raw_per_repeat"] = ("referee: Kododo 4p C decisions/s / raw round trips/s (unpinned)", "ratio")
    names["kododo_c_4_vs_raw_cross_core_per_repeat"] = ("referee: Kododo 4p C decisions/s / raw round trips/s (different cores)", "ratio")
    names["kododo_c_4_vs_raw_same_core_per_repeat"] = ("referee: Kododo 4p C decisions/s / raw round trips/s (one core)", "ratio")
    names["relay_c_step_4_vs_1_per_repeat"] = ("referee: 4-seat step / 1-seat step, instant C bots", "ratio")
    out = []
    for key, (name, unit) in names.items():
        if key in report:
            entry = report[key]
            values = tuple(entry["values"]) if "values" in entry else (entry["min"], entry["median"], entry["max"])
            out.append(Figure(name, unit, values))
    return out


def find(figures: list[Figure], name: str, unit: str) -> Figure:
    return next(f for f in figures if f.name == name and f.unit == unit)


def targets(figures: list[Figure]) -> list[str]:
    def row(what: str, value: float, target: str, ok: bool) -> str:
        return f"| {what} | {fmt(value)} | {target} | {'met' if ok else 'MISSED'} |"

    engine = find(figures, "engine: kododo, 4 players", "random games/s").median
    ratio_unpinned = find(figures, "referee: Kododo 4p C decisions/s / raw round trips/s (unpinned)", "ratio").median
    ratio = find(figures, "referee: Kododo 4p C decisions/s / raw round trips/s (different cores)", "ratio").median
    ratio_same = find(figures, "referee: Kododo 4p C decisions/s / raw round trips/s (one core)", "ratio").median
    c2 = find(figures, "tournament: Kododo 4p, C bots, concurrency 2", "decisions/s").median
    step = find(figures, "referee: 4-seat step / 1-seat step, instant C bots", "ratio").median
    think1 = find(figures, "referee: relay game, 1 seat(s), bots thinking 2 ms", "us/step").median
    think4 = find(figures, "referee: relay game, 4 seat(s), bots thinking 2 ms", "us/step").median
    alive = find(figures, "tournament: Kododo 4p, Python bots, concurrency 1", "games/s").median
    restarted = find(figures, "tournament: Kododo 4p, Python bots, restarted every game, concurrency 1", "games/s").median
    standings = next(f for f in figures if f.name.startswith("ratings: standings from scratch")).median
    return [
        "| target | measured (median) | target | status |",
        "|---|---|---|---|",
        row("referee overhead: Kododo 4p C decisions/s over the raw pipe loop's round trips/s, both unpinned, same run", ratio_unpinned, ">= 0.5", ratio_unpinned >= 0.5),
        row("the same, raw loop pinned to two different cores", ratio, ">= 0.5", ratio >= 0.5),
        row("the same, raw loop pinned to one core (its fastest hand-off, no cross-core wake-up)", ratio_same, ">= 0.5", ratio_same >= 0.5),
        row("Kododo 4p tournament, C bots, concurrency 2 (decisions/s)", c2, ">= 10,000", c2 >= 10_000),
        row("4-seat step / 1-seat step, instant C bots", step, "<= 1.5", step <= 1.5),
        row("4-seat step / 1-seat step, bots thinking 2 ms", think4 / think1, "<= 1.5", think4 / think1 <= 1.5),
        row("alive / restarted, Python bots (games/s ratio)", alive / restarted, ">= 10", alive / restarted >= 10),
        row("engine: random 4-player Kododo games/s, one core", engine, ">= 1,000", engine >= 1000),
        row("standings from a 100,000-game store (s)", standings, "< 5", standings < 5),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repeats and smaller stores (a smoke run)")
    parser.add_argument("--output", default=str(ROOT / "BENCHMARKS.md"))
    args = parser.parse_args()
    repeats = 2 if args.quick else 5
    started = time.perf_counter()
    figures: list[Figure] = []
    print("engine ...", file=sys.stderr, flush=True)
    figures += bench_engine.run(repeats=repeats, seconds=0.3 if args.quick else 1.0)
    print("referee ...", file=sys.stderr, flush=True)
    figures += referee_figures(bench_referee.run(repeats=repeats))
    print("tournament ...", file=sys.stderr, flush=True)
    figures += bench_tournament.run(repeats=repeats)
    print("sandbox ...", file=sys.stderr, flush=True)
    sandbox = bench_sandbox.run(repeats=2 if args.quick else 5, rounds=20 if args.quick else 50)
    figures += sandbox
    print("ratings ...", file=sys.stderr, flush=True)
    figures += bench_ratings.run(repeats=2 if args.quick else 3, games=20_000 if args.quick else 100_000)
    elapsed = time.perf_counter() - started
    command = "make bench" + (" ARGS=--quick" if args.quick else "") + "   (= .venv/bin/python -m bench" + (" --quick" if args.quick else "") + ")"
    lines = ["# Benchmarks", "", f"Written by `{command}` in {elapsed:.0f} s.", "", *machine(), "", "## Targets (issue 7)", ""]
    if not args.quick:
        lines += targets(figures)
        lines += bench_sandbox.targets(sandbox)
    else:
        lines.append("(a --quick run: figures only, no verdicts)")
    lines += ["", "## Figures", "", "| figure | median | range | unit | repeats |", "|---|---|---|---|---|"]
    lines += [f.row() for f in figures]
    out = Path(args.output)
    kept = marked_sections(out.read_text(encoding="utf-8")) if out.exists() else []  # other benchmarks' sections
    lines += ["", *kept, ""] if kept else [""]
    out.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
