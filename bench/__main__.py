"""`python -m bench [--quick] [--only a,b]`: run every benchmark and write BENCHMARKS.md.

Every part of BENCHMARKS.md is a marked section (`<!-- key:begin -->` ... `<!-- key:end -->`) that
exactly one benchmark writes (`bench.stats.write_section`), replacing only its own: so this command
regenerates every section without dropping any, and `--only` (section keys, see SECTIONS) or a
single benchmark's own `--write` regenerates some and keeps the rest. A section no benchmark writes
(measured by hand, its commands in it) is kept as it is.

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
from typing import Sequence

import subprocess

from bench import bench_engine, bench_ratings, bench_referee, bench_report, bench_sandbox, bench_standings, bench_throughput, bench_tournament
from bench.stats import Figure, byte_compile, fmt, report, write_section

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
    standings = next(f for f in figures if f.name.startswith("ratings: library call store_standings(), in-process, from scratch")).median
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
        row("store_standings() in-process, 100,000-game store, from scratch (s)", standings, "< 5", standings < 5),
    ]


# key: (title, how it is made). "in-process" sections feed the targets table; the others are their
# module's own `--write`, run as a subprocess (with --quick where it has one).
SECTIONS: dict[str, tuple[str, list[str]]] = {
    "about": ("About these figures", []),
    "targets": ("Targets", []),
    "figures": ("Engine, referee, tournament and ratings figures", []),
    "sandbox": ("The sandbox: start-up and throughput", []),
    "standings": ("arena standings (issue 25, goal 2)", []),
    "report": ("arena report (issue 25, goal 4)", []),
    "uncertainty": ("Uncertainty, stopping, seating, collusion", ["bench.bench_stoprule", "--write"]),
    "numbers": ("Numbers users can trust: coverage, calibration, false flags", ["bench.bench_numbers", "--write"]),
    "spread": ("What spread deals cost: rounds until the stop rule settles", ["bench.bench_spread", "--write"]),
    "throughput": (bench_throughput.TITLE, ["bench.bench_throughput", "--write"]),
    "match": ("Does NEW beat OLD: games `arena match` needs", ["bench.bench_match", "--write"]),
    "pairing": ("What pairing buys `arena match` (3+ players)", ["bench.bench_pairing", "--write"]),
    "stop-runs": ("The stop rule in real runs (`arena run`)", ["bench.bench_stopruns", "--write"]),
    "stderr-logs": ("Per-step stderr logs: a 10 MB stderr writer next to a timed bot", ["bench.bench_stderr_logs", "--write"]),
    "cluster": ("Many machines: the Dask executor", ["bench.bench_cluster", "--write"]),
    "coordinator": ("One coordinator, many Dask workers: its cost per game", ["bench.bench_coordinator", "--write"]),
    "ladder-scale": ("The live leaderboard with a million games stored", ["bench.bench_ladder_scale", "--write"]),
    "server": ("The competition server (arena serve)", ["bench.bench_server", "--seconds", "60", "--requests", "4000", "--write"]),
    "pages": ("The ladder's pages in Chromium (arena serve)", ["bench.bench_pages", "--write"]),
    "chaos": ("Chaos: kill -9 of a busy arena serve (issue 36)", ["bench.bench_chaos", "--kills", "50", "--write"]),
    "server-load": ("Server under a crowd: SSE viewers, uploads, 100,000 games", ["bench.bench_load", "--write"]),
    "archive": ("Hostile archives against the server's unpacker (issue 36)", ["bench.bench_archive", "--write"]),
    "checker": ("The submission checker under a pile of uploads (issue 36)", ["bench.bench_checker", "--participants", "3", "--uploads", "3", "--write"]),
    "kits": ("What a language costs: the starter kits", ["bench.bench_kits", "--write"]),
    "live": ("Live games: what the tap costs a game (issue 41)", ["bench.bench_live", "--write"]),
    "budget": ("Disk and games a day with the game-rate budget and retention (issue 37)", ["bench.bench_budget", "--write"]),
    "final": ("A competition's final: the stop rule against the fixed schedule", ["bench.bench_final", "--write"]),
}
# Sections that are records, not benchmarks: each compares against something no command on this tree can
# rerun (the build before a change, a fresh machine's CI run), so `python -m bench` keeps them as they are.
RECORDS: dict[str, str] = {
    "test-tiers": "the test suite's times: `make check` and fresh-clone `CI=true bash .ci/run` runs, as each session recorded them",
    "deals": "issue 21's before and after: the demo tournament on the build before the slots, interleaved with the shipped one",
    "run-costs": "issue 25 goal 1's costs outside the referee: `arena run -j 2` CPU by process role on an earlier build, "
                 "interleaved with this one (bench.bench_run_costs --baseline)",
    "engine-cost": "issue 25's engine part: the Kododo engine's CPU per decision on the build before its speed-up, interleaved with this one",
}
QUICK = {"bench.bench_stoprule", "bench.bench_numbers", "bench.bench_cluster", "bench.bench_throughput", "bench.bench_stopruns",
         "bench.bench_stderr_logs", "bench.bench_pairing", "bench.bench_kits"}


def issue25_targets(standings: list[Figure], report_figures: list[Figure], sandbox: list[Figure], throughput: Sequence[str] = ()) -> list[str]:
    """One row per goal of issue 25 (goals 1, 2 and 4 in detail in their own sections); `throughput`: goal 1's rows
    as its section holds them (bench_throughput.goal_rows)."""
    rows = ["| issue 25 goal | measured (median) | target | status |", "|---|---|---|---|"]
    rows += list(throughput) or [
        "| 1. tournament throughput, Kododo 4p C bots `-j 2`, vs fastchess and the raw fan-out loop; arena's CPU per decision "
        "| not measured yet (`python -m bench --only throughput`) | >= 10x fastchess, >= 0.7 of raw, <= 25 us | - |"]
    for row in bench_standings.verdicts(standings)[2:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        rows.append(f"| 2. `arena standings`, {cells[0]} | {cells[1]} s CPU, {cells[2]} s wall, {cells[3]} MB | {cells[4]} | {cells[5]} |")
    if not standings:
        rows.append("| 2. `arena standings` | not measured this time | see its section | - |")
    short = [f for f in sandbox if f.name.startswith("sandbox: Kododo 4p tournament, C bots, concurrency 1, sandboxed / unsandboxed")]
    steady = [f for f in sandbox if f.name.startswith("sandbox: Kododo 4p tournament, C bots, concurrency 1, kept-alive bots")
              and f.name.endswith("sandboxed / unsandboxed (per repeat)")]
    if steady:
        r = steady[0].median
        rows.append(f"| 3. sandboxed / unsandboxed, kept-alive C bots, `-j 1`: per decision once the bots run (the marginal rate) "
                    f"| {r:.3f} | >= 0.97 | {'met' if r >= 0.97 else 'MISSED'} |")
    if short:
        r = short[0].median
        start = [f.median for f in sandbox if f.name.startswith("sandbox: start-up overhead per bot")]
        more = f", {start[0]:.0f} ms more each sandboxed" if start else ""
        rows.append(f"| 3. the same, a whole 200-game tournament (16 bot starts{more}) | {r:.3f} | - | - |")
    if not steady and not short:
        rows.append("| 3. sandboxed / unsandboxed throughput, kept-alive bots | not measured this time | >= 0.97 | - |")
    games = bench_report.GAMES
    for row in (bench_report.verdicts(report_figures, games)[2:] if report_figures else []):
        rows.append("| 4. `arena report`, " + row.lstrip("| "))
    if not report_figures:
        rows.append("| 4. `arena report` | not measured this time | see its section | - |")
    rows.append("| 5. BENCHMARKS.md: one command (`make bench`) regenerates every section, each figure says what was timed "
                f"| every benchmark section ({len(SECTIONS)}) written by its own benchmark, replacing only its own; "
                f"{len(RECORDS)} records kept as history ({', '.join(RECORDS)}: each against a build or machine no command here reruns) "
                "| one command | met |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repeats and smaller stores (a smoke run)")
    parser.add_argument("--only", default=",".join(SECTIONS), help="the sections to regenerate (default: all)")
    parser.add_argument("--output", default=str(ROOT / "BENCHMARKS.md"))
    args = parser.parse_args()
    only = {k.strip() for k in args.only.split(",") if k.strip()}
    unknown = only - set(SECTIONS)
    if unknown:
        parser.error(f"unknown sections {sorted(unknown)}; choose from {', '.join(SECTIONS)}")
    out = Path(args.output)
    byte_compile()
    repeats = 2 if args.quick else 5
    started, load = time.perf_counter(), os.getloadavg()
    figures: list[Figure] = []
    sandbox: list[Figure] = []
    standings: list[Figure] = []
    report_figures: list[Figure] = []
    if "figures" in only or "targets" in only:
        print("engine ...", file=sys.stderr, flush=True)
        figures += bench_engine.run(repeats=repeats, seconds=0.3 if args.quick else 1.0)
        print("referee ...", file=sys.stderr, flush=True)
        figures += referee_figures(bench_referee.run(repeats=repeats))
        print("tournament ...", file=sys.stderr, flush=True)
        figures += bench_tournament.run(repeats=repeats)
        print("ratings ...", file=sys.stderr, flush=True)
        figures += bench_ratings.run(repeats=2 if args.quick else 3, games=20_000 if args.quick else 100_000)
    if "sandbox" in only or "targets" in only:
        print("sandbox ...", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        sandbox = bench_sandbox.run(repeats=2 if args.quick else 7, rounds=20 if args.quick else 50)
        verdicts = ["| target | measured (median) | target | status |", "|---|---|---|---|", *bench_sandbox.targets(sandbox)]
        write_section(out, "sandbox", SECTIONS["sandbox"][0], report(
            "make bench   (= .venv/bin/python -m bench --only sandbox)", f"{time.perf_counter() - t0:.0f} s, load average "
            f"before: {os.getloadavg()[0]:.2f}", verdicts, sandbox))
    if "standings" in only or "targets" in only:
        standings, text = bench_standings.run([20_000] if args.quick else [100_000, 1_000_000], 1 if args.quick else 3)
        write_section(out, "standings", SECTIONS["standings"][0], text)
    if "report" in only or "targets" in only:
        report_figures, text = bench_report.run(2_000 if args.quick else bench_report.GAMES, 1 if args.quick else 3)
        write_section(out, "report", SECTIONS["report"][0], text)
    for key, (title, module) in SECTIONS.items():
        if module and key in only:
            print(f"{key} ...", file=sys.stderr, flush=True)
            extra = ["--quick"] if args.quick and module[0] in QUICK else []
            subprocess.run([sys.executable, "-m", *module, *extra], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    elapsed = time.perf_counter() - started
    command = "make bench" + (" ARGS=--quick" if args.quick else "") + "   (= .venv/bin/python -m bench" + (" --quick" if args.quick else "") + ")"
    if "about" in only:
        about = [f"Written by `{command}` ({elapsed:.0f} s for the sections it regenerated this time: {', '.join(k for k in SECTIONS if k in only)}).",
                 f"Load average at the start: {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}.", "", *machine(), "",
                 "Each section is written by one benchmark and says its own command; `python -m bench --only KEY` "
                 f"regenerates some ({', '.join(SECTIONS)}) and keeps the others."]
        write_section(out, "about", SECTIONS["about"][0], "\n".join(about))
    if "targets" in only:
        lines = ["Issue 25 (performance as users run it):", "", *issue25_targets(standings, report_figures, sandbox, bench_throughput.goal_rows(out)), "",
                 "Issue 7 (earlier targets, library-level figures):", ""]
        lines += targets(figures) if not args.quick else ["(a --quick run: figures only, no verdicts)"]
        lines += bench_sandbox.targets(sandbox) if not args.quick else []
        write_section(out, "targets", SECTIONS["targets"][0], "\n".join(lines))
    if "figures" in only:
        lines = [f"Command: `{command}`. Library-level timings (in-process) unless the row says otherwise.", "",
                 "| figure | median | range | unit | repeats |", "|---|---|---|---|---|", *[f.row() for f in figures]]
        write_section(out, "figures", SECTIONS["figures"][0], "\n".join(lines))
    text = out.read_text(encoding="utf-8")
    if not text.startswith("# Benchmarks"):
        out.write_text("# Benchmarks\n\n" + text.lstrip("\n"), encoding="utf-8")
    print(out.read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
