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
from arena.tournament.run.dask_pool import BATCH_S, MAX_BATCH, DaskExecutor
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
    """(games/s, coordinator CPU ms per game) of one fresh run; `where` is -j1, -j2, local:N (bots by
    hash, games in batches, each result checked by another worker) or before:N (one game a Dask task,
    no check: how the executor worked before batches and checks; bots by hash all the same)."""
    with tempfile.TemporaryDirectory() as tmp:
        cfg = config(Path(tmp), rounds, think_ms)
        executor: Executor | None = None
        concurrency = 1
        if where.startswith("-j"):
            concurrency = int(where[2:])
        else:
            from arena.tournament.run.player import PlayerSetup

            before = where.startswith("before:")
            spec = ClusterSpec.parse(where.replace("before:", "local:"))
            dask = DaskExecutor(spec, batch=1, verify=False) if before else DaskExecutor(spec)
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
    for where, think in [(w, think_ms) for w in ("-j1", "before:1", "local:1", "-j2", "before:2", "local:2")] + [
            ("before:2", 0.0), ("local:2", 0.0)]:
        samples = [measure(rounds, think, where) for _ in range(repeats)]
        name = f"cluster: Kododo 4p, bots thinking {think:g} ms, {_label(where)}"
        figure = Figure(name, "games/s", tuple(s[0] for s in samples))
        coord = Figure(name, "coordinator CPU ms/game", tuple(s[1] for s in samples))
        figures += [figure, coord]
        tag = where if think else f"instant {where}"
        rates[tag], cost[tag] = figure.median, coord.median
    join_s, restarted = join(repeats)
    figures += [Figure("cluster: a new entrant's first game after `grow`, local pool of 2", "s", join_s["local"]),
                Figure("cluster: a new entrant's first game after `grow`, Dask LocalCluster of 2", "s", join_s["dask"]),
                Figure("cluster: other bots' processes restarted by a join (local pool and Dask)", "processes", restarted)]
    feed = 1000 / cost["instant local:2"]
    game_s = 1 / rates["local:1"]  # one worker's wall time per game
    feeds = game_s / (cost["local:2"] / 1000)
    verdicts = [
        "| target | measured (median) | target | status |",
        "|---|---|---|---|",
        _row("cluster of 1 / local -j 1 (games/s)", rates["local:1"] / rates["-j1"], ">= 0.9"),
        _row("cluster of 2 / local -j 2 (games/s)", rates["local:2"] / rates["-j2"], ">= 0.95"),
        _row("cluster of 2 / cluster of 1 (games/s)", rates["local:2"] / rates["local:1"], ">= 1.85"),
        # The <= 1 ms target is bench_coordinator's, which counts the scheduler apart over long runs; here the
        # LocalCluster's scheduler lives in the coordinating process and a run is 40 games, start-up included.
        f"| coordinator and its in-process scheduler, CPU ms/game, 1 worker (target: bench_coordinator) | {cost['local:1']:.3f} | - | - |",
        f"| coordinator and its in-process scheduler, CPU ms/game, 2 workers (target: bench_coordinator) | {cost['local:2']:.3f} | - | - |",
        _row("other bots restarted by a join", 1.0 - max(restarted), ">= 1.0", max(restarted)),
        "",
        f"Before (one game a Dask task, no check) / after (batches of about {BATCH_S:.0f} s of play, at most {MAX_BATCH}, each result re-simulated by another "
        f"worker): coordinator CPU {fmt(cost['before:1'])} / {fmt(cost['local:1'])} ms per game with 1 worker, "
        f"{fmt(cost['before:2'])} / {fmt(cost['local:2'])} ms with 2. With instant bots (no thinking) the coordinator "
        f"spends {fmt(cost['instant local:2'])} ms of CPU per game, so one coordinator can feed about {feed:.0f} games/s "
        f"({feed * 86400 / 1e6:.1f} million games a day) before it is the bottleneck; measured on this 2-core machine, "
        f"whose two workers play {fmt(rates['instant local:2'])} games/s.",
        "",
        f"Coordinator cost: {fmt(cost['local:2'])} ms of CPU per game (coordinator and scheduler in one process); "
        f"a worker takes {fmt(game_s * 1000)} ms per game, so one coordinator can feed about {feeds:.0f} such "
        "workers before it becomes the bottleneck (more with shorter coordinator work, fewer with faster games).",
    ]
    return figures, verdicts


def _label(where: str) -> str:
    return {"-j1": "local, -j 1", "-j2": "local, -j 2", "local:1": "Dask LocalCluster, 1 worker",
            "local:2": "Dask LocalCluster, 2 workers", "before:1": "Dask LocalCluster, 1 worker, before (a task a game, no check)",
            "before:2": "Dask LocalCluster, 2 workers, before (a task a game, no check)"}[where]


def _row(what: str, value: float, target: str, shown: float | None = None) -> str:
    """`shown`: the figure to print when `value` is only how it is compared (e.g. 1/cost >= 1)."""
    ok = value >= float(target.split()[-1])
    printed = f"{shown:.3f}" if shown is not None else f"{value:.3f}"
    limit = target if shown is None else f"<= {1 / float(target.split()[-1]):g}" if "ms" in what else "0"
    return f"| {what} | {printed} | {limit} | {'met' if ok else 'MISSED'} |"


def join(repeats: int) -> tuple[dict[str, tuple[float, ...]], tuple[float, ...]]:
    """Seconds from `Executor.grow` to the new entrant's first finished game, on a local pool of 2 and a
    Dask LocalCluster of 2, and how many of the other bots' processes were not the same after it."""
    import dataclasses

    import psutil  # type: ignore[import-untyped]

    from arena.core.scheduled import ScheduledGame
    from arena.tournament.run.local_pool import LocalPool
    from arena.tournament.run.messages import GameDone, GameTask, PlayerSetup

    def bots() -> set[int]:
        return {p.pid for p in psutil.Process().children(recursive=True) if BOT.name in " ".join(_cmd(p))}

    def play(executor: Executor, tables: list[tuple[int, ...]], start: int) -> None:
        for i, seats in enumerate(tables):
            executor.submit(GameTask(ScheduledGame(start + i, start + i, 0, 0, seats, 77 + start + i), str(start + i)))
        for _ in tables:
            assert isinstance(executor.next_event(), GameDone)

    seconds: dict[str, list[float]] = {"local": [], "dask": []}
    restarted: list[float] = []
    for _ in range(repeats):
        for where in ("local", "dask"):
            with tempfile.TemporaryDirectory() as tmp:
                full = config(Path(tmp), 1, 0.0)
                full = dataclasses.replace(full, players=2)
                first = dataclasses.replace(full, entrants=full.entrants[:3])
                executor: Executor = LocalPool(2) if where == "local" else DaskExecutor(ClusterSpec.parse("local:2"), batch=1)
                executor.start(PlayerSetup(first, secret="ab" * 16))
                try:
                    play(executor, [(0, 1), (1, 2), (2, 0), (0, 2)], 0)
                    before = bots()
                    started = time.perf_counter()
                    executor.grow(PlayerSetup(full, secret="ab" * 16))
                    play(executor, [(3, 0)], 10)
                    seconds[where].append(time.perf_counter() - started)
                    restarted.append(float(len(before - bots())))
                finally:
                    executor.close(False)
    return {k: tuple(v) for k, v in seconds.items()}, tuple(restarted)


def _cmd(process: object) -> list[str]:
    try:
        return list(process.cmdline())  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - a process that ended meanwhile
        return []


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
