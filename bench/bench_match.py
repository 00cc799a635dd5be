"""`python -m bench.bench_match [--runs N] [--write]`: how many games `arena match` needs to a verdict.

Measured as a user runs it: the `arena match` command as a whole process, with its default test and
sandbox, `-j 2`, each run with its own --seed and store. For each game that has a sample heuristic:
the heuristic against the sample random bot at 2 players and at 4 (where the game allows), the
median number of games to a verdict; two identical random bots (different seeds of the same
program), how often it says NEW is better; and, at 4 players, paired against unpaired deals (OLD
given its own deal, `--unpaired`), the games each needs. The pure test is also simulated many times
under H0 (identical bots) for the false-"better" rate with more runs than real games allow.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arena.games.registry import all_games
from bench.stats import Figure, report, write_section

# each game's sample heuristic bot (GameSpec.sample_bots), by file name in sample_bots/python
HEURISTIC = {spec.name: spec.sample_bots[0].command[1].rsplit('/', 1)[1] for spec in all_games() if spec.sample_bots}

ROOT = Path(__file__).resolve().parents[1]
ARENA = str(Path(sys.executable).parent / "arena")
BOTS = ROOT / "sample_bots" / "python"


def match(game: str, new: str, old: str, players: int, seed: int, *extra: str) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run([ARENA, "match", game, new, old, "--players", str(players), "--seed", str(seed),
                               "--json", "-q", "-j", "2", *extra], cwd=tmp, capture_output=True, text=True)
    if proc.returncode not in (0, 1, 3):
        raise RuntimeError(proc.stderr)
    return dict(json.loads(proc.stdout))


def simulate_h0(runs: int, seats: int) -> float:
    """The share of runs of the pure test on identical bots that end "better" (tests/match/test_sprt.py's model)."""
    from arena.match.sequential import SprtSpec, Tally, Verdict
    from tests.match.test_sprt import G

    rng = random.Random(seats)
    spec = SprtSpec.parse(None, seats)
    better = 0
    for _ in range(runs):
        tally = Tally(seats, spec)
        for r in range(500):
            if seats == 2:
                games = []
                for new_seat in (0, 1):
                    u = rng.random()
                    ranks = (1, 1) if u < 0.1 else (1, 2) if u < 0.55 else (2, 1)
                    games.append(G(r, 0, (0, 1) if new_seat == 0 else (1, 0), ranks if new_seat == 0 else ranks[::-1]))
                tally.add(games[0], games[1])
            else:
                tally.add(G(r, 0, (0,), (rng.randint(1, seats),)), G(r, 1, (1,), (rng.randint(1, seats),)))
            verdict = tally.verdict()
            if verdict is not None:
                better += verdict is Verdict.BETTER
                break
    return better / runs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3, help="real matches per case")
    parser.add_argument("--write", action="store_true", help="write the figures into BENCHMARKS.md")
    args = parser.parse_args()
    started = time.perf_counter()
    figures: list[Figure] = []
    verdicts: list[str] = ["| case | verdicts | median games to verdict |", "|---|---|---|"]
    rnd = f"python3 {BOTS / 'random_bot.py'} 3"
    for game, script in HEURISTIC.items():
        for players in (2, 4) if game != "kodama-duo" else (2,):
            outs = [match(game, f"python3 {BOTS / script}", rnd, players, seed) for seed in range(1, args.runs + 1)]
            games = tuple(float(str(o["games"])) for o in outs)
            figures.append(Figure(f"match: {game} {players}p heuristic vs random, games to a verdict", "games", games))
            verdicts.append(f"| {game} {players}p heuristic vs random | {', '.join(str(o['verdict']) for o in outs)} | {statistics.median(games):.0f} |")
    for label, extra in (("paired", ()), ("unpaired", ("--unpaired",))):
        outs = [match("kododo", f"python3 {BOTS / 'kododo_heuristic.py'}", rnd, 4, seed, *extra) for seed in range(1, args.runs + 1)]
        games = tuple(float(str(o["games"])) for o in outs)
        figures.append(Figure(f"match: kododo 4p heuristic vs random, {label} deals, games to a verdict", "games", games))
        verdicts.append(f"| kododo 4p {label} | {', '.join(str(o['verdict']) for o in outs)} | {statistics.median(games):.0f} |")
    same = [match("kododo", f"python3 {BOTS / 'random_bot.py'} 11", f"python3 {BOTS / 'random_bot.py'} 12", p, seed, "--games", "200")
            for p in (2, 4) for seed in range(1, args.runs + 1)]
    wrong = sum(o["verdict"] == "better" for o in same)
    verdicts.append(f"| kododo identical random bots (2p and 4p, at most 200 games) | {', '.join(str(o['verdict']) for o in same)} | - |")
    verdicts.append("")
    verdicts.append(f"Identical bots, real runs: NEW declared better in {wrong} of {len(same)}. "
                    f"Simulated pure test, 1000 runs each: {100 * simulate_h0(1000, 2):.1f}% (2 players), "
                    f"{100 * simulate_h0(1000, 4):.1f}% (4 players) declared better, against alpha = 5%.")
    command = f".venv/bin/python -m bench.bench_match --runs {args.runs}"
    text = report(f"{command} --write", f"{time.perf_counter() - started:.0f} s", verdicts, figures)
    print(text)
    if args.write:
        write_section(ROOT / "BENCHMARKS.md", "match", "Does NEW beat OLD: games `arena match` needs", text)


if __name__ == "__main__":
    main()
