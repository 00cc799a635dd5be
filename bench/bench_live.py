"""Live games: what the tap costs the referee, and whether a stuck coordinator slows a game.

    .venv/bin/python -m bench.bench_live [--games 20] [--repeats 3] [--write]

Kododo, two seats, the Python sample random bots as real processes (kept across games), `play_game` in
this process. Three cases, each game on its own seed (the same seeds in every case): no live view
(`on_step=None`); a `LiveTap` whose sink takes frames at once (the board); a `LiveTap` whose sink never
returns (a coordinator that stopped reading: every frame after the first is skipped or replaced). The
figures: each game's CPU time in the referee's process (the referee, plus the tap's thread and the board
when live; CPU time, not wall time: the machine is shared and wall times move with its load), and the
time the referee spent inside the tap's hook per call (taking a frame and encoding every seat's view, or
skipping it). The tap here takes a frame at every step it can (`gap_s=0`; the default is 50 ms). `--write` replaces this benchmark's section of
BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any, Sequence

from arena.core.time_control import TimeControl
from arena.games.base import GameState
from arena.jsonvalue import JSON
from arena.live.board import LiveBoard
from arena.live.frame import LiveFrame
from arena.live.tap import LiveTap
from arena.referee.referee import play_game
from arena.referee.session import BotProcess, BotSpec
from bench.stats import Figure, report, write_section

ROOT = Path(__file__).resolve().parents[1]
BOT = ROOT / "sample_bots" / "python" / "random_bot.py"
COMMAND = ".venv/bin/python -m bench.bench_live --write"


class Stuck:
    def __init__(self) -> None:
        self.release = threading.Event()

    def frame(self, frame: LiveFrame) -> None:
        self.release.wait()


def games(n: int, case: str) -> tuple[list[float], list[float]]:
    """Each game's CPU time in this process (ms: the referee, and the tap's thread and the board when live) and
    each hook call's time (µs) for `n` games in `case`."""
    tc = TimeControl(decision_ms=1000)
    bots = [BotProcess.start(BotSpec(f"r{i}", (sys.executable, str(BOT), str(i))), tc) for i in (1, 2)]
    stuck = Stuck()
    board = LiveBoard("kododo")
    tap = None if case == "off" else LiveTap(stuck if case == "stuck" else board, gap_s=0.0)
    walls: list[float] = []
    calls: list[float] = []
    try:
        for seed in range(n):
            hook: Any = None
            if tap is not None:
                board.begin(seed, ["a", "b"])
                inner = tap.hook(seed)

                def hook(step: int, state: GameState, events: Sequence[JSON], over: bool, inner: Any = inner) -> None:
                    began = time.perf_counter()
                    inner(step, state, events, over)
                    calls.append((time.perf_counter() - began) * 1e6)

            began = time.process_time()
            play_game("kododo", bots, seed=1000 + seed, time_control=tc, on_step=hook)
            walls.append((time.process_time() - began) * 1000)
            if tap is not None:
                board.end(seed)
    finally:
        stuck.release.set()
        if tap is not None:
            tap.close()
        for bot in bots:
            bot.close()
    return walls, calls


def run(n: int, repeats: int) -> tuple[list[Figure], list[str]]:
    cases = [("off", "no live view"), ("board", "live: a tap, the board takes each frame"),
             ("stuck", "live: a tap, its sink never returns (a stuck coordinator)")]
    walls: dict[str, list[float]] = {c: [] for c, _ in cases}
    hooks: dict[str, list[float]] = {c: [] for c, _ in cases}
    for _ in range(repeats):
        for case, _ in cases:
            w, h = games(n, case)
            walls[case].append(statistics.median(w))
            if h:
                hooks[case].append(statistics.median(h))
    figures: list[Figure] = []
    rows = ["| case | the referee process's CPU time a game, median | the hook's time per call, median |", "|---|---|---|"]
    for case, label in cases:
        wall = Figure(f"live: a kododo game's CPU time in the referee's process, {label}", "ms", tuple(walls[case]))
        figures.append(wall)
        hook = Figure(f"live: the tap's hook per call, {label}", "µs", tuple(hooks[case])) if hooks[case] else None
        if hook is not None:
            figures.append(hook)
        rows.append(f"| {label} | {wall.median:.1f} ms | {f'{hook.median:.0f} µs' if hook else '-'} |")
    return figures, rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    began = time.monotonic()
    load = os.getloadavg()[0]
    figures, rows = run(args.games, args.repeats)
    note = (f"{time.monotonic() - began:.0f} s; load average at the start {load:.2f}; {args.repeats} repeat(s) of "
            f"{args.games} games per case; medians of the repeats' medians")
    text = report(COMMAND, note, rows, figures)
    print(text)
    if args.write:
        write_section(ROOT / "BENCHMARKS.md", "live", "Live games: what the tap costs a game (issue 41)", text)


if __name__ == "__main__":
    main()
