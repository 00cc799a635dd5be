"""What a language costs: each starter kit's build time, start-up time, and decisions per second of
its random bot in a Kododo 4-player game, all through the same harness.

For each kit whose toolchain is installed: a fresh copy of its source (`arena new-bot`'s copy) is
built by `arena.build.runner.build` in the sandbox, as `arena build` and the server do (a clean
build each repeat: no cache survives, the scratch is fresh); start-up is the time from spawning the
built bot (its manifest's command, no sandbox) to reading its `hello` answer; decisions per second
are those of `play_game` with the bot in all four seats of Kododo (started once, reused across the
games, no sandbox; one untimed warm-up game first), so the referee's own cost is the same in every row and only the bots differ.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from arena.build import folder as bot_folder
from arena.build.languages import DEFAULTS, installed
from arena.build.pack import copy_kit
from arena.build.runner import build
from arena.core.time_control import TimeControl
from arena.referee.referee import play_game
from arena.referee.session import BotProcess, BotSpec
from bench.stats import Figure, report, write_section

ROOT = Path(__file__).resolve().parents[1]
COMMAND = ".venv/bin/python -m bench.bench_kits --write"
TC = TimeControl(decision_ms=5000, startup_ms=20_000)


def startup_ms(argv: tuple[str, ...], cwd: str) -> float:
    started = time.perf_counter()
    proc = subprocess.Popen(list(argv), cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b'{"type":"hello","protocol":1,"referee":"bench"}\n')
    proc.stdin.flush()
    line = proc.stdout.readline()
    elapsed = (time.perf_counter() - started) * 1000
    proc.stdin.close()
    proc.wait(10)
    assert b'"hello"' in line, line
    return elapsed


def decisions_per_s(argv: tuple[str, ...], cwd: str, games: int) -> float:
    bots = [BotProcess.start(BotSpec(f"seat{i}", argv, cwd=cwd), TC) for i in range(4)]
    try:
        play_game("kododo", bots, seed=99, time_control=TC, game_id="bench-warm-up")  # untimed: JIT, caches
        decisions = 0
        started = time.perf_counter()
        for g in range(games):
            result = play_game("kododo", bots, seed=100 + g, time_control=TC, game_id=f"bench-{g}")
            assert not result.faults, result.faults
            decisions += result.decisions
        return decisions / (time.perf_counter() - started)
    finally:
        for bot in bots:
            bot.close()


def run(repeats: int, games: int) -> tuple[list[Figure], list[str]]:
    figures: list[Figure] = []
    rows = ["| kit | clean build (s) | start-up to hello (ms) | decisions/s, Kododo 4p |", "|---|---|---|---|"]
    missing = [lang.name for lang in DEFAULTS if lang not in installed()]
    for language in installed():
        builds, starts, rates = [], [], []
        for _ in range(repeats):
            with tempfile.TemporaryDirectory(prefix=f"bench-kit-{language.name}-") as tmp:
                dest = os.path.join(tmp, "bot")
                copy_kit(str(ROOT / "starters" / language.name), dest)
                result = build(dest, language)
                assert result.ok, result.reason + "\n" + result.tail()
                builds.append(result.seconds)
                argv = bot_folder.read(dest).argv()
                starts.append(statistics.median(startup_ms(argv, dest) for _ in range(5)))
                rates.append(decisions_per_s(argv, dest, games))
        figures += [Figure(f"{language.name}: clean build in the sandbox", "s", tuple(builds)),
                    Figure(f"{language.name}: start-up to hello", "ms", tuple(starts)),
                    Figure(f"{language.name}: decisions/s, Kododo 4p, 4 seats", "decisions/s", tuple(rates))]
        rows.append(f"| {language.name} | {statistics.median(builds):.1f} | {statistics.median(starts):.0f} | "
                    f"{statistics.median(rates):,.0f} |")
    if missing:
        rows.append(f"\nNot measured (toolchain not installed): {', '.join(missing)}.")
    return figures, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--games", type=int, default=5, help="Kododo games per repeat")
    parser.add_argument("--quick", action="store_true", help="one repeat, two games")
    parser.add_argument("--write", action="store_true", help="replace this benchmark's section of BENCHMARKS.md")
    args = parser.parse_args()
    repeats, games = (1, 2) if args.quick else (args.repeats, args.games)
    load = os.getloadavg()[0]
    started = time.perf_counter()
    figures, rows = run(repeats, games)
    text = report(COMMAND, f"{time.perf_counter() - started:.0f} s; load average at the start {load:.2f}; {repeats} repeat(s), "
                  f"{games} games each", [
        "Each kit's random bot, built from a fresh copy in the sandbox (`arena build`'s build), started by its manifest's",
        "command; start-up is the median of 5 spawns to the hello line; decisions/s are the whole game's (the referee and",
        "four bots on this machine's cores), so they compare languages, not absolute speed. Medians over the repeats:",
        "",
        *rows,
    ], figures)
    print(text)
    if args.write:
        write_section(ROOT / "BENCHMARKS.md", "kits", "What a language costs: the starter kits", text)


if __name__ == "__main__":
    main()
