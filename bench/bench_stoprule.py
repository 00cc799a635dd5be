"""`python -m bench.bench_stoprule [--quick] [--write]`: validate the uncertainty tools by simulation.

- Coverage of the bootstrap intervals of average rank, on simulated fields with known strengths.
- The stop rule on simulated fields (identical, graded, clear): how often it stops with a wrong order,
  and the games it saves against the fixed schedule.
- The stop rule on the sample-bot fields of Kododo and Kolpa! (the demo configs' four bots, played
  in-process with the real engines and the sample bots' own decision code): one long run per game
  is the population; each trial draws a tournament of `rounds` rounds from its rounds with replacement,
  and "wrong" means an order the full run contradicts.
- Neighbour imbalance of the cyclic schedules and of the neighbour-balanced ones.
- The collusion test's power on a planted feeder and partner, and its false-positive rate.

`--write` puts the figures into BENCHMARKS.md between the markers of its uncertainty section.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from arena.games.registry import get_game
from arena.stats.collusion import detect
from arena.tournament.schedule.plan import Rotations, ScheduleSpec, build
from arena.stats.seating import balance, next_counts
from arena.stats.stoprule import StopRule, stopping_round
from arena.stats.uncertainty import estimate
from bench.simfield import Field, SimGame, tournament, true_average_ranks
from bench.stats import write_section

ROOT = Path(__file__).resolve().parents[1]
Policy = Callable[[dict[str, Any]], Any]


# --- sample bots in-process ---------------------------------------------------------------------------


def _load(name: str) -> Any:
    sys.path.insert(0, str(ROOT / "sample_bots" / "python"))
    spec = importlib.util.spec_from_file_location(name, ROOT / "sample_bots" / "python" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _random_bot(base: int) -> Callable[[str, int], Policy]:
    def start(game_id: str, seat: int) -> Policy:
        rng = random.Random(f"{base}/{game_id}/{seat}")
        return lambda request: rng.choice(request["legal"])

    return start


def _kododo_heuristic() -> Callable[[str, int], Policy]:
    module = _load("kododo_heuristic")

    def start(game_id: str, seat: int) -> Policy:
        bot = module.Bot()
        bot.on_start({"game_id": game_id, "seat": seat})
        return bot.decide  # type: ignore[no-any-return]

    return start


def _kolpa_heuristic() -> Callable[[str, int], Policy]:
    module = _load("kolpa_heuristic")
    return lambda game_id, seat: module.decide


def play_field(game: str, bots: Sequence[Callable[[str, int], Policy]], rounds: int, seed: int) -> list[SimGame]:
    """A round-robin of the bots with cyclic rotations, played in-process with the real engine."""
    spec = get_game(game)
    out = []
    for g in build(ScheduleSpec(len(bots), len(bots), rounds, master_seed=seed)):
        state = spec.new_game(len(bots), {}, g.seed)
        policies = [bots[e](g.game_id, s) for s, e in enumerate(g.seats)]
        while not state.is_over():
            state.apply({s: policies[s]({"view": state.view(s), "legal": state.legal_actions(s)}) for s in state.to_move()})
        out.append(SimGame(g.index, g.round, g.table, g.rotation, g.seats, tuple(state.outcome().ranks), g.seed))
    return out


# --- measurements ---------------------------------------------------------------------------------------


def coverage(trials: int, confidence: float) -> tuple[float, int]:
    fld = Field((0.0, 0.3, 0.6, 1.0), seats=4)
    truth = true_average_ranks(fld, rounds=4000)
    covered = total = 0
    for trial in range(trials):
        games = tournament(fld, 20, 10_000 + trial)
        for e in estimate(games, 4, confidence=confidence, resamples=1000, rating_resamples=0, seed=trial).entrants:
            assert e.avg_rank is not None
            covered += e.avg_rank.low <= truth[e.entrant] <= e.avg_rank.high
            total += 1
    return covered / total, total


def _order(per_entrant: Sequence[float]) -> list[int]:
    return sorted(range(len(per_entrant)), key=lambda e: (per_entrant[e], e))


def _avg_ranks(games: Sequence[SimGame], entrants: int, rounds: int) -> list[float]:
    tot, n = [0.0] * entrants, [0] * entrants
    for g in games:
        if g.round < rounds:
            for e, r in zip(g.seats, g.ranks):
                tot[e] += r
                n[e] += 1
    return [t / c for t, c in zip(tot, n)]


def stop_trials(
    draw: Callable[[int], list[SimGame]], entrants: int, truth: Sequence[float], max_rounds: int, rule: StopRule, trials: int
) -> dict[str, float]:
    """Run the rule on `trials` tournaments; wrong = a tested pair ordered against the truth (a pair
    that is equal in truth counts as wrong whenever the rule declares an order)."""
    stops = wrong = rounds_used = 0
    for t in range(trials):
        games = draw(t)
        r = stopping_round(games, entrants, max_rounds, rule)
        rounds_used += r
        if r < max_rounds:
            stops += 1
            order = _order(_avg_ranks(games, entrants, r))
            pairs = list(zip(order, order[1:]))[: rule.top] if rule.top else list(zip(order, order[1:]))
            wrong += any(truth[a] >= truth[b] - 1e-9 for a, b in pairs)
    return {"stopped": stops / trials, "wrong": wrong / trials, "saved": 1 - rounds_used / (trials * max_rounds)}


def resampled(pool: Sequence[SimGame], rounds: int) -> Callable[[int], list[SimGame]]:
    by_round: dict[int, list[SimGame]] = {}
    for g in pool:
        by_round.setdefault(g.round, []).append(g)
    keys = sorted(by_round)

    def draw(trial: int) -> list[SimGame]:
        rng = random.Random(trial)
        out = []
        for r in range(rounds):
            src = by_round[rng.choice(keys)]
            out += [SimGame(g.index, r, g.table, g.rotation, g.seats, g.ranks, r * 2**32 + g.seed % 2**32) for g in src]
        return out

    return draw


def _row(name: str, res: dict[str, float], trials: int) -> str:
    return f"| {name} | {trials} | {res['stopped']:.1%} | {res['wrong']:.1%} | {res['saved']:.1%} |"


def run(quick: bool) -> list[str]:
    trials = 60 if quick else 300
    lines = [f"Command: `.venv/bin/python -m bench.bench_stoprule{' --quick' if quick else ''} --write`", ""]
    t0 = time.perf_counter()
    for conf in (0.90, 0.95):
        cov, n = coverage(40 if quick else 300, conf)
        lines.append(f"- Coverage of {conf:.0%} bootstrap intervals of average rank (4 entrants of strengths 0, 0.3, 0.6, 1.0, "
                     f"4 seats, 20 rounds, true value from 4,000 rounds): {cov:.1%} of {n} intervals.")
    lines.append("")
    rule = StopRule(0.95, 4)
    top1 = StopRule(0.95, 4, top=1)
    lines += ["Stop rule `stop: {confidence: 0.95, min_rounds: 4}` (and `top: 1`) against a fixed schedule:", "",
              "| field | trials | stopped early | stopped with a wrong order | games saved |", "|---|---|---|---|---|"]
    for name, strengths, max_rounds in [
        ("simulated: 4 identical bots, 40 rounds", (0.0, 0.0, 0.0, 0.0), 40),
        ("simulated: 4 bots 0 / 0.5 / 1 / 1.5, 50 rounds", (0.0, 0.5, 1.0, 1.5), 50),
        ("simulated: 4 bots 0 / 1 / 2 / 3, 50 rounds", (0.0, 1.0, 2.0, 3.0), 50),
        ("simulated: 3 identical + 1 at +1.5, 50 rounds", (0.0, 0.0, 0.0, 1.5), 50),
    ]:
        fld = Field(strengths, seats=4)
        draw = (lambda f, m: lambda t: tournament(f, m, 50_000 + t))(fld, max_rounds)
        lines.append(_row(name, stop_trials(draw, 4, [-s for s in strengths], max_rounds, rule, trials), trials))
        lines.append(_row(name + ", top 1", stop_trials(draw, 4, [-s for s in strengths], max_rounds, top1, trials), trials))
    for game, bots, pool_rounds, max_rounds in [
        ("kododo", [_random_bot(1), _kododo_heuristic(), _random_bot(2), _random_bot(3)], 15 if quick else 100, 50),
        ("kolpa", [_random_bot(1), _kolpa_heuristic(), _random_bot(2), _random_bot(3)], 10 if quick else 150, 10),
    ]:
        start = time.perf_counter()
        pool = play_field(game, bots, pool_rounds, seed=2024)
        truth = _avg_ranks(pool, 4, pool_rounds)
        elapsed = time.perf_counter() - start
        draw = resampled(pool, max_rounds)
        label = f"{game} sample bots (py-random, heuristic, js/c-random as seeded randoms), {max_rounds} rounds"
        lines.append(_row(label, stop_trials(draw, 4, truth, max_rounds, rule, trials), trials))
        lines.append(_row(label + ", top 1", stop_trials(draw, 4, truth, max_rounds, top1, trials), trials))
        lines.append(f"| ({game} population: {len(pool)} games in {elapsed:.0f} s; average ranks {', '.join(f'{x:.2f}' for x in truth)}) | | | | |")
    lines += ["", "Neighbour imbalance over one round-robin round (spread: most minus fewest times one entrant sat",
              "directly after another; share: part of all adjacencies that would have to move for balance):", "",
              "| entrants | seats | cyclic: games, spread, share | neighbours: games, spread, share |", "|---|---|---|---|"]
    for n, k in [(3, 3), (4, 3), (4, 4), (5, 4), (6, 4), (5, 5), (6, 5), (6, 6), (7, 6)]:
        cells = []
        for rot in (Rotations.CYCLIC, Rotations.NEIGHBOURS):
            games = build(ScheduleSpec(n, k, 1, rotations=rot))
            b = balance(next_counts((g.seats for g in games), n))
            cells.append(f"{len(games)}, {b.spread}, {b.deviation:.0%}")
        lines.append(f"| {n} | {k} | {cells[0]} | {cells[1]} |")
    ctrials = 40 if quick else 200
    lines += ["", f"Collusion test ({ctrials} simulated tournaments each, 6 entrants, 4 seats, 10 rounds, alpha 0.05):", ""]
    for feed in (0.3, 0.5, 0.8):
        fld = Field((0.0,) * 6, seats=4, collusion=((0, 1),), feed=feed)
        hits = other = 0
        for s in range(ctrials):
            report = detect(tournament(fld, 10, s), 6)
            top = report.pairs[0]
            hits += top.flagged and (top.partner, top.feeder) == (1, 0)
            other += any({p.partner, p.feeder} != {0, 1} for p in report.flagged)
        lines.append(f"- power: planted feeder giving {feed} of performance (sd of a seat's performance about 1.4): "
                     f"flagged first, with the right roles, in {hits / ctrials:.0%}; another pair also flagged in {other / ctrials:.0%}")
    for name, fld in [
        ("6 identical bots, 4 seats", Field((0.0,) * 6, 4)),
        ("6 bots of graded strength, 4 seats", Field((0.0, 0.3, 0.6, 0.9, 1.2, 1.5), 4)),
        ("5 identical bots, 3 seats", Field((0.0,) * 5, 3)),
    ]:
        fp = sum(bool(detect(tournament(fld, 10, 90_000 + s), fld.entrants).flagged) for s in range(ctrials))
        lines.append(f"- false positives, {name}: a pair flagged in {fp / ctrials:.1%} of fields")
    lines += ["", f"(whole run: {time.perf_counter() - t0:.0f} s wall time, single process)"]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--write", action="store_true", help="write the figures into BENCHMARKS.md")
    args = parser.parse_args()
    lines = run(args.quick)
    text = "\n".join(lines)
    print(text)
    if args.write:
        write_section(ROOT / "BENCHMARKS.md", "uncertainty", "Uncertainty, stopping, seating, collusion", text)


if __name__ == "__main__":
    main()
