"""`python -m bench.bench_cluster [--quick] [--write]`: the Dask executor against local workers.

The same tournament (Kododo, 4 entrants, 4 seats, every rotation) with bots that think: each decision
takes `--think-ms` (the deterministic test bot sleeps, so the two cores are free for the referee and
the coordinator, as with bots that think on other machines). Games per second:

- local: `arena run -j 1` (in-process) and `-j 2` (two worker processes);
- cluster: a LocalCluster of 1 and of 2 Dask workers (started before the clock starts, as a running
  cluster would be).

And the coordinator's cost per game: the CPU time of the coordinating process (which also holds the
LocalCluster's scheduler) divided by the games it committed. A coordinator can feed about
(one worker's seconds per game) / (coordinator CPU seconds per game) workers before it is the
bottleneck; the figure is printed with that estimate. `--write` puts the table into BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

from arena.tournament.config.cluster import ClusterSpec
from arena.tournament.run.dask_pool import DaskExecutor
from arena.tournament.config import tournament as tconfig
from arena.tournament.run.executor import Executor
from arena.tournament.run.runner import run as run_tournament
from bench.stats import Figure, fmt, report, write_section

ROOT = Path(__file__).resolve().parents[1]
BOT = ROOT / "tests" / "tournament" / "bots" / "det_bot.py"


def config(folder: Path, rounds: int, think_ms: float) -> tconfig.TournamentConfig:
    data = {
        "name": "bench-cluster",
        "game": "kododo",
        "players": 4,
        "entrants": [
            {"name": f"bot{i}", "command": [sys.executable, str(BOT), "--salt", f"s{i}", "--delay-ms", str(think_ms)]}
            for i in range(4)
        ],
        "schedule": {"format": "round-robin", "rotations": "cyclic", "rounds": rounds},
        "seed": 5,
        "sandbox": False,  # the executors are compared, not the sandbox (bench_sandbox measures that)
        "output": {"store": str(folder / "bench.sqlite")},
    }
    return tconfig.parse(data, ROOT / "configs" / "bench.yaml")


class _Started:
    """An executor whose start (cluster and bot start-up) happens before the clock starts."""

    def __init__(self, inner: DaskExecutor) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def start(self, setup: object) -> None:  # already started
        pass


def measure(rounds: int, think_ms: float, where: str) -> tuple[float, float]:
    """(games/s, coordinator CPU ms per game) of one fresh run; `where` is -j1, -j2 or local:N."""
    with tempfile.TemporaryDirectory() as tmp:
        cfg = config(Path(tmp), rounds, think_ms)
        executor: Executor | None = None
        concurrency = 1
        if where.startswith("-j"):
            concurrency = int(where[2:])
        else:
            from arena.tournament.run.player import PlayerSetup

            dask = DaskExecutor(ClusterSpec.parse(where))
            dask.start(PlayerSetup(cfg))
            executor = _Started(dask)  # type: ignore[assignment]
        cpu0 = _cpu()
        try:
            summary = run_tournament(cfg, concurrency=concurrency, fresh=True, quiet=True, executor=executor)
        finally:
            if executor is not None:
                dask.close(False)
        cpu = _cpu() - cpu0
        assert summary.played == summary.total
        return summary.games_per_second, cpu * 1000 / summary.played


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run(repeats: int, rounds: int, think_ms: float) -> tuple[list[Figure], list[str]]:
    figures: list[Figure] = []
    rates: dict[str, float] = {}
    cost: dict[str, float] = {}
    for where in ("-j1", "local:1", "-j2", "local:2"):
        samples = [measure(rounds, think_ms, where) for _ in range(repeats)]
        name = f"cluster: Kododo 4p, bots thinking {think_ms:g} ms, {_label(where)}"
        figure = Figure(name, "games/s", tuple(s[0] for s in samples))
        coord = Figure(name, "coordinator CPU ms/game", tuple(s[1] for s in samples))
        figures += [figure, coord]
        rates[where], cost[where] = figure.median, coord.median
    game_s = 1 / rates["local:1"]  # one worker's wall time per game
    feeds = game_s / (cost["local:2"] / 1000)
    verdicts = [
        "| target | measured (median) | target | status |",
        "|---|---|---|---|",
        _row("cluster of 1 / local -j 1 (games/s)", rates["local:1"] / rates["-j1"], ">= 0.9"),
        _row("cluster of 2 / local -j 2 (games/s)", rates["local:2"] / rates["-j2"], ">= 0.9"),
        _row("cluster of 2 / cluster of 1 (games/s)", rates["local:2"] / rates["local:1"], ">= 1.8"),
        "",
        f"Coordinator cost: {fmt(cost['local:2'])} ms of CPU per game (coordinator and scheduler in one process); "
        f"a worker takes {fmt(game_s * 1000)} ms per game, so one coordinator can feed about {feeds:.0f} such "
        "workers before it becomes the bottleneck (more with shorter coordinator work, fewer with faster games).",
    ]
    return figures, verdicts


def _label(where: str) -> str:
    return {"-j1": "local, -j 1", "-j2": "local, -j 2", "local:1": "Dask LocalCluster, 1 worker", "local:2": "Dask LocalCluster, 2 workers"}[where]


def _row(what: str, value: float, target: str) -> str:
    ok = value >= float(target.split()[-1])
    return f"| {what} | {value:.3f} | {target} | {'met' if ok else 'MISSED'} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one repeat, fewer games")
    parser.add_argument("--think-ms", type=float, default=10.0)
    parser.add_argument("--write", action="store_true", help="write the figures into BENCHMARKS.md")
    args = parser.parse_args()
    started = time.perf_counter()
    figures, verdicts = run(1 if args.quick else 3, 3 if args.quick else 10, args.think_ms)
    command = f".venv/bin/python -m bench.bench_cluster{' --quick' if args.quick else ''} --think-ms {args.think_ms:g}"
    text = report(f"{command} --write", f"{time.perf_counter() - started:.0f} s", verdicts, figures)
    print(text)
    if args.write:
        write_section(ROOT / "BENCHMARKS.md", "cluster", "Many machines: the Dask executor", text)


if __name__ == "__main__":
    main()
