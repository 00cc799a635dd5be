"""`python -m bench.bench_coordinator [--rounds N] [--write]`: what one coordinator spends per game on Dask.

The deployment's shape: a `dask scheduler` process and `dask worker` processes of their own (as on
other machines), the coordinator (`arena run`'s runner, its store, the Dask client) in this process.
Bots answer at once (no thinking), so games are as short as they get and the coordinator's cost per
game is as large a share as it gets. For each of "before" (one game a Dask task, no check of results)
and "after" (games in batches, each result re-simulated by another worker), with 1 and 2 workers: the
CPU time of this process and of the scheduler's, each divided by the games stored, and games per
second. One coordinator can feed about 1000 / (its ms per game) games per second.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil  # type: ignore[import-untyped]

from arena.tournament.config.cluster import ClusterSpec
from arena.tournament.run.dask_pool import BATCH, BATCH_S, MAX_BATCH, DaskExecutor
from arena.tournament.run.messages import PlayerSetup
from arena.tournament.run.runner import run as run_tournament
from bench.bench_cluster import ROOT, _cpu, _Started, config
from bench.stats import Figure, fmt, report, write_section

DASK = str(Path(sys.executable).parent / "dask")


def cluster(folder: Path, workers: int) -> tuple[str, list[subprocess.Popen[bytes]]]:
    file = folder / "scheduler.json"
    log = (folder / "dask.log").open("ab")
    procs = [subprocess.Popen([DASK, "scheduler", "--scheduler-file", str(file), "--port", "0", "--no-dashboard"],
                              stdout=log, stderr=log)]
    deadline = time.monotonic() + 60
    while not (file.exists() and "address" in file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.1)
    for i in range(workers):
        procs.append(subprocess.Popen([DASK, "worker", "--scheduler-file", str(file), "--nthreads", "1", "--no-dashboard",
                                       "--name", f"w{i}"], stdout=log, stderr=log))
    return json.loads(file.read_text())["address"], procs


MODES = {"before": "before (a task a game, no check)", "fixed": f"batches of {BATCH}, results checked",
         "after": f"after (batches of about {BATCH_S:.0f} s of play, at most {MAX_BATCH}, results checked)"}


def executor(address: str, mode: str) -> DaskExecutor:
    if mode == "before":
        return DaskExecutor(ClusterSpec.parse(address), batch=1, verify=False)
    return DaskExecutor(ClusterSpec.parse(address), batch=BATCH if mode == "fixed" else None)


def _machine() -> tuple[int, int]:
    """(idle, total) jiffies of the whole machine, from /proc/stat."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return fields[3] + fields[4], sum(fields)


BUSY: dict[tuple[int, str], list[float]] = {}  # (workers, mode) -> the machine's busy share of each run


def measure(rounds: int, workers: int, mode: str) -> tuple[float, float, float]:
    """(games/s, coordinator CPU ms/game, scheduler CPU ms/game) of one run on a fresh cluster; the
    machine's busy share over the run goes to BUSY."""
    with tempfile.TemporaryDirectory() as tmp:
        address, procs = cluster(Path(tmp), workers)
        try:
            cfg = config(Path(tmp), rounds, 0.0)
            dask = executor(address, mode)
            from distributed import Client

            with Client(address) as waiting:  # type: ignore[no-untyped-call]
                waiting.wait_for_workers(workers, timeout=60)
            dask.start(PlayerSetup(cfg))
            scheduler = psutil.Process(procs[0].pid)
            sched0, cpu0, machine0 = sum(scheduler.cpu_times()[:2]), _cpu(), _machine()
            summary = run_tournament(cfg, fresh=True, quiet=True, executor=_Started(dask))  # type: ignore[arg-type]
            cpu, sched, machine1 = _cpu() - cpu0, sum(scheduler.cpu_times()[:2]) - sched0, _machine()
            BUSY.setdefault((workers, mode), []).append(1 - (machine1[0] - machine0[0]) / max(1, machine1[1] - machine0[1]))
            dask.close(False)
        finally:
            for proc in reversed(procs):
                proc.terminate()
            for proc in procs:
                proc.wait(30)
        assert summary.played == summary.total
        return summary.games_per_second, cpu * 1000 / summary.played, sched * 1000 / summary.played


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50, help="rounds of 4 games (default 50: 200 games a run)")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--write", action="store_true", help="write the figures into BENCHMARKS.md")
    args = parser.parse_args()
    started = time.perf_counter()
    figures: list[Figure] = []
    cost: dict[tuple[int, str], float] = {}
    rate: dict[tuple[int, str], float] = {}
    for workers in (1, 2):
        for mode, label in MODES.items():
            samples = [measure(args.rounds, workers, mode) for _ in range(args.repeats)]
            name = f"coordinator: Kododo 4p, instant bots, {workers} dask worker(s), {label}"
            figures += [Figure(name, "games/s", tuple(s[0] for s in samples)),
                        Figure(name, "coordinator CPU ms/game", tuple(s[1] for s in samples)),
                        Figure(name, "scheduler CPU ms/game", tuple(s[2] for s in samples))]
            rate[workers, mode], cost[workers, mode] = figures[-3].median, figures[-2].median
    feed = 1000 / cost[2, "after"]
    verdicts = [
        "| target | measured (median) | target | status |", "|---|---|---|---|",
        *(f"| coordinator CPU ms/game, {w} worker(s), after | {fmt(cost[w, 'after'])} | <= 1 | "
          f"{'met' if cost[w, 'after'] <= 1 else 'MISSED'} |" for w in (1, 2)),
        f"| workers 2 / 1, instant bots (games/s, after; the goal is bench_cluster's, bots that think) | "
        f"{rate[2, 'after'] / rate[1, 'after']:.3f} | - | - |",
        "",
        f"With instant bots the machine is the limit, not the executor: one worker kept the 2-core machine "
        f"{100 * sorted(BUSY[1, 'after'])[len(BUSY[1, 'after']) // 2]:.0f}% busy (its referee and bots, their "
        f"checks, the coordinator and the scheduler), two kept it {100 * sorted(BUSY[2, 'after'])[len(BUSY[2, 'after']) // 2]:.0f}% "
        "busy (/proc/stat over each run, median), so a second worker can add only what the first left idle. "
        "The workers 2 / 1 goal (>= 1.85) is measured by `bench.bench_cluster`, whose bots think 10 ms a move "
        "as bots on other machines would leave the cores free.",
        "",
        f"Coordinator CPU per game, before (a task a game) / batches of {BATCH} / after (batches sized by the games' "
        f"times): {fmt(cost[1, 'before'])} / {fmt(cost[1, 'fixed'])} / {fmt(cost[1, 'after'])} ms with 1 worker, "
        f"{fmt(cost[2, 'before'])} / {fmt(cost[2, 'fixed'])} / {fmt(cost[2, 'after'])} ms with 2. Games this short "
        f"(instant bots) go in batches of {MAX_BATCH}; most of the coordinator's cost is per batch (the submit, the "
        f"result's gather, the check's submit and gather). At {fmt(cost[2, 'after'])} ms a game one coordinator "
        f"can feed about {feed:.0f} games/s ({feed * 86400 / 1e6:.1f} million a day); the scheduler (its own process) "
        "is counted apart. Measured on a 2-core machine, where the workers, the scheduler "
        "and the coordinator compete for the same cores.",
    ]
    command = f".venv/bin/python -m bench.bench_coordinator --rounds {args.rounds} --repeats {args.repeats}"
    text = report(f"{command} --write", f"{time.perf_counter() - started:.0f} s", verdicts, figures)
    print(text)
    if args.write:
        write_section(ROOT / "BENCHMARKS.md", "coordinator", "One coordinator, many Dask workers: its cost per game", text)


if __name__ == "__main__":
    main()
