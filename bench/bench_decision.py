"""The game engine's CPU per decision (issue 25, goal 1): Kododo, 4 players, random legal play, no bots.

A decision costs the referee, in the engine: `legal_actions(s)` and `view(s)` for every deciding seat, one
`apply` for the step and `to_json()` of its events (new games included). Random games are recorded
first, then replayed and timed (process CPU time, the best of a few passes), so the random choices are
not counted:

    .venv/bin/python -m bench.bench_decision                       # this tree
    .venv/bin/python -m bench.bench_decision --against 1b07364     # and an older build, interleaved
    .venv/bin/python -m bench.bench_decision --against 1b07364 --write   # the record in BENCHMARKS.md

`--against REV` extracts REV with `git archive` and times both trees in fresh processes, alternately.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SEATS = 4
KEY, TITLE = "engine-cost", "The game engine's CPU per decision (issue 25, goal 1)"


def measure(games: int, passes: int = 3) -> dict[str, float]:
    """us/decision of the engine alone and with the views, in whatever `arena` this process imports."""
    from arena.games.registry import get_game
    from arena.rng import Rng

    spec = get_game("kododo")
    recorded: list[list[dict[int, Any]]] = []
    rng = Rng(2026)
    for seed in range(games):
        state = spec.new_game(SEATS, None, seed)
        steps = []
        while state.to_move():
            actions = {s: (lambda legal: legal[rng.below(len(legal))])(state.legal_actions(s)) for s in state.to_move()}
            steps.append(actions)
            state.apply(actions)
        recorded.append(steps)
    decisions = SEATS * sum(len(steps) for steps in recorded)

    def replay(views: bool) -> float:
        started = time.process_time()
        for seed, steps in enumerate(recorded):
            state = spec.new_game(SEATS, None, seed)
            for actions in steps:
                for s in actions:
                    state.legal_actions(s)
                    if views:
                        state.view(s)
                for event in state.apply(actions):
                    event.to_json()
        return 1e6 * (time.process_time() - started) / decisions

    from bench.bench_engine import games_per_second  # the `figures` section's engine row, on the same tree

    return {"engine": min(replay(False) for _ in range(passes)), "views": min(replay(True) for _ in range(passes)),
            "games_per_s": games_per_second(spec, SEATS, 0.5)}


def measure_tree(tree: Path, games: int) -> dict[str, float]:
    """`measure` in a fresh process importing `arena` from `tree`."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, __file__, "--measure", str(games)], cwd=tree, env=env, check=True,
                         capture_output=True, text=True).stdout
    return dict(json.loads(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--against", metavar="REV", help="an older commit to time too, interleaved")
    parser.add_argument("--write", action="store_true", help=f"write the {KEY!r} record of BENCHMARKS.md")
    parser.add_argument("--measure", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure is not None:
        print(json.dumps(measure(args.measure)))
        return
    with tempfile.TemporaryDirectory(prefix="bench-decision-") as tmp:
        trees = {"this build": ROOT}
        if args.against:
            old = Path(tmp) / "old"
            old.mkdir()
            archive = subprocess.run(["git", "archive", args.against], cwd=ROOT, check=True, capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
            trees = {f"before ({args.against})": old, **trees}
        load = os.getloadavg()[0]
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
        for _ in range(args.runs):  # interleaved, so that the machine's load falls on both alike
            for name, tree in trees.items():
                runs[name].append(measure_tree(tree, args.games))
    command = f"python -m bench.bench_decision --games {args.games} --runs {args.runs}" + (f" --against {args.against}" if args.against else "")
    lines = [
        f"Command: `{command}` (load average at the start {load:.2f}; {args.runs} runs per build, interleaved; each the",
        f"best of 3 timed replays of {args.games} recorded random 4-player Kododo games).",
        "",
        "Engine: `legal_actions` of each deciding seat, one `apply` per step and its events' `to_json()`, new games",
        "included; views: the same plus `view(s)` of each deciding seat (what the referee asks of the game per decision).",
        "The last column is `bench.bench_engine.games_per_second` (0.5 s, random choices included) in the same runs.",
        "",
        "| build | engine, us/decision (runs) | median | engine + views, us/decision (runs) | median | bench_engine: random 4p games/s (median) |",
        "|---|---|---|---|---|---|",
    ]
    for name, results in runs.items():
        engine, views = [r["engine"] for r in results], [r["views"] for r in results]
        lines.append(f"| {name} | {', '.join(f'{x:.2f}' for x in engine)} | {statistics.median(engine):.2f} | "
                     f"{', '.join(f'{x:.2f}' for x in views)} | {statistics.median(views):.2f} | "
                     f"{statistics.median(r['games_per_s'] for r in results):,.0f} |")
    text = "\n".join(lines)
    print(text)
    if args.write:
        from bench.stats import write_section

        write_section(ROOT / "BENCHMARKS.md", KEY, TITLE, text)


if __name__ == "__main__":
    main()
