"""`python -m bench.bench_spread [--quick] [--write]`: what the default schedule costs in rounds.

With `deals: spread` (the default) no entrant is ever on one deal twice: a deal goes to up to k games
of different entrants, so the luck of the deal is cancelled between the entrants that held the same
cards; below 2k entrants no two games can share a deal and the luck is only averaged. `deals: shared`
(trusted bots) replays a table's deal in every seating. On simulated fields with known strengths
(bench/simfield.py: strengths 1.5 apart, deal luck and game noise of sd 1), the stop rule (confidence
0.95, min_rounds 4, 40 rounds scheduled) settles after how many rounds, and how many games, each way.

`--write` puts the table into BENCHMARKS.md between the markers of its section.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Sequence

from arena.stats.stoprule import StopRule, stopping_round
from arena.tournament.schedule.plan import Deals, ScheduleSpec, count
from bench.simfield import Field, tournament
from bench.stats import write_section

ROOT = Path(__file__).resolve().parents[1]
TITLE = "What spread deals cost: rounds until the stop rule settles"
RULE = StopRule(confidence=0.95, min_rounds=4)
FIELDS = ((4, 4), (4, 2), (5, 3), (6, 3), (9, 3))  # (entrants, seats)


def run(quick: bool) -> list[str]:
    start = time.monotonic()
    trials = 8 if quick else 40
    rows = ["| entrants | seats | deals | games a round | fields | rounds to settle: mean | max | games to settle: mean |",
            "|---|---|---|---|---|---|---|---|"]
    for entrants, seats in FIELDS:
        for deals in (Deals.SHARED, Deals.SPREAD):
            fld = Field(tuple(1.5 * i for i in range(entrants)), seats=seats, deals=deals)
            per_round = count(ScheduleSpec(entrants, seats, deals=deals))
            rounds = [stopping_round(tournament(fld, 40, 7000 + s), entrants, 40, RULE) for s in range(trials)]
            mean = sum(rounds) / len(rounds)
            rows.append(f"| {entrants} | {seats} | {deals.value} | {per_round} | {trials} | {mean:.1f} | {max(rounds)} | "
                        f"{mean * per_round:.0f} |")
    return [f"Command: `.venv/bin/python -m bench.bench_spread{' --quick' if quick else ''} --write`", "", *rows, "",
            f"(took {time.monotonic() - start:.0f} s)"]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    text = "\n".join(run(args.quick))
    print(text)
    if args.write:
        write_section(ROOT / "BENCHMARKS.md", "spread", TITLE, text)


if __name__ == "__main__":
    main()
