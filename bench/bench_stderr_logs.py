"""Per-step stderr logs: does a neighbour writing 10 MB of stderr slow a timed bot or bloat the replay?

    .venv/bin/python -m bench.bench_stderr_logs [--repeats 3] [--write]

Kodama Duo, seed 5, real processes, `keep_logs=True`, the per-game flood limit raised so the writer stays in
the game. Seat 0 sleeps 40 ms per decision and times itself; its drift is what the referee recorded minus
its own measure (ms). Seat 1 either writes "step N" once per request or 10 MB of stderr as fast as the pipe
takes it; the control lifts the log bounds, and the replay then takes the flood. The bots are the test
suite's `tests/referee/bots/log_bot.py` (`tests/referee/test_stderr_log.py` asserts the same bounds).
`--write` replaces this benchmark's section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from arena.core.limits import Limits
from arena.core.time_control import TimeControl
from arena.referee.referee import play_game
from arena.referee.session import BotProcess, BotSpec
from arena.referee.stderr_log import LogBounds
from arena.replay import read_replay
from bench.stats import Figure, report, write_section

ROOT = Path(__file__).resolve().parents[1]
LOG_BOT = ROOT / "tests" / "referee" / "bots" / "log_bot.py"
COMMAND = ".venv/bin/python -m bench.bench_stderr_logs --write"
OPEN = LogBounds(10**9, 10**9, 10**9, 10**9)


def one_game(folder: Path, neighbour: str, bounds: LogBounds = LogBounds()) -> tuple[list[float], int, int]:
    """Seat 0's drift per decision (ms, sorted), the replay's bytes and the game's faults."""
    tc = TimeControl(decision_ms=1000)
    limits = Limits(max_stderr_bytes_per_game=10**9)
    own_log = folder / f"{neighbour}.own"
    specs = [BotSpec("log-sleep", (sys.executable, str(LOG_BOT), "sleep"), env={"SLEEP_S": "0.04", "BOT_LOG": str(own_log)}),
             BotSpec(f"log-{neighbour}", (sys.executable, str(LOG_BOT), neighbour))]
    bots = [BotProcess.start(spec, tc, limits) for spec in specs]
    replay = folder / f"{neighbour}.jsonl"
    try:
        result = play_game("kodama-duo", bots, seed=5, time_control=tc, replay_path=replay, keep_logs=True, log_bounds=bounds)
    finally:
        for bot in bots:
            bot.close()
    own = {r["id"]: r["took_ms"] for r in map(json.loads, own_log.read_text().splitlines())}
    recorded = {r["id"]: r["elapsed_ms"] for r in read_replay(replay) if r["type"] == "decision" and r["seat"] == 0}
    return sorted(recorded[i] - own[i] for i in own), os.path.getsize(replay), len(result.faults)


def run(repeats: int) -> tuple[list[Figure], list[str]]:
    cases = [("step", "writes \"step N\" once per request", "a quiet neighbour", LogBounds()),
             ("flood", "writes 10 MB of stderr (99,560 lines)", "a 10 MB stderr writer", LogBounds()),
             ("flood", "same, log bounds lifted (the control)", "a 10 MB stderr writer, log bounds lifted (the control)", OPEN)]
    figures: list[Figure] = []
    rows = ["| neighbour in seat 1 | seat 0 drift, median | p90 | replay size | faults |", "|---|---|---|---|---|"]
    results: dict[str, list[tuple[float, float, int, int]]] = {label: [] for _, label, _, _ in cases}
    with tempfile.TemporaryDirectory(prefix="bench-stderr-") as tmp:
        for r in range(repeats):
            for i, (mode, label, _, bounds) in enumerate(cases):
                folder = Path(tmp) / f"{r}-{i}"
                folder.mkdir()
                drift, size, faults = one_game(folder, mode, bounds)
                results[label].append((statistics.median(drift), drift[int(len(drift) * 0.9)], size, faults))
    for _, label, short, _ in cases:
        got = results[label]
        med = Figure(f"stderr logs: timed seat 0's drift next to {short}, median of the game", "ms", tuple(g[0] for g in got))
        p90 = Figure(f"stderr logs: timed seat 0's drift next to {short}, p90 of the game", "ms", tuple(g[1] for g in got))
        size = Figure(f"stderr logs: the replay's size next to {short}", "bytes", tuple(float(g[2]) for g in got))
        figures += [med, p90, size]
        rows.append(f"| {label} | {med.median:.2f} ms | {p90.median:.2f} ms | {size.median:,.0f} bytes | {max(g[3] for g in got)} |")
    return figures, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="one repeat")
    parser.add_argument("--write", action="store_true", help="replace this benchmark's section of BENCHMARKS.md")
    args = parser.parse_args()
    repeats = 1 if args.quick else args.repeats
    load = os.getloadavg()[0]
    started = time.perf_counter()
    figures, rows = run(repeats)
    text = report(COMMAND, f"{time.perf_counter() - started:.0f} s; load average at the start {load:.2f}; {repeats} repeat(s)", [
        "Kodama Duo, seed 5, real processes, per-step logs kept (`play_game(keep_logs=True)`), the per-game flood limit raised",
        "so the writer stays in the game. Seat 0 sleeps 40 ms per decision and times itself; the drift is what the referee",
        "recorded minus the bot's own measure. Medians over the repeats of each game's median and p90:",
        "",
        *rows,
    ], figures)
    print(text)
    if args.write:
        write_section(ROOT / "BENCHMARKS.md", "stderr-logs", "Per-step stderr logs: a 10 MB stderr writer next to a timed bot", text)


if __name__ == "__main__":
    main()
