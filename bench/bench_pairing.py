"""What pairing buys `arena match` with more than 2 players: the spread of the per-deal rank difference D
(OLD's rank - NEW's rank) with paired deals (NEW and OLD on the same deal, in the same seat, against the
same fillers playing it alike) and unpaired ones (OLD on a deal of its own, `--unpaired`).

    .venv/bin/python -m bench.bench_pairing [--runs 4] [--deals 100] [--write]

Each run is `arena match` as a user runs it (whole process, sandboxed, `-j 2`, its own --seed and store)
held to a fixed number of deals (bounds no run can reach), so both designs see as many deals. A
sequential test needs a number of games in proportion to the variance of D for the same effect, so
(sd paired / sd unpaired)^2 is the share of games pairing needs. Two contrasts: two versions of one bot
(the Kododo heuristic with 48 and with 12 sampled endings per choice), the case `arena match` is for;
and the heuristic against the random bot, whose games part at the first choice.
`--write` replaces this benchmark's section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.stats import Figure, report, write_section

ROOT = Path(__file__).resolve().parents[1]
ARENA = str(Path(sys.executable).parent / "arena")
BOTS = ROOT / "sample_bots" / "python"
COMMAND = ".venv/bin/python -m bench.bench_pairing --write"
FIXED = "rank0=0 rank1=0.05 alpha=0.0000001 beta=0.0000001"  # bounds no run of this length reaches
CONTRASTS = {
    "two versions: Kododo heuristic, 48 vs 12 sampled endings": (f"python3 {BOTS / 'kododo_heuristic.py'}", f"python3 {BOTS / 'kododo_heuristic.py'} 12"),
    "heuristic vs random bot": (f"python3 {BOTS / 'kododo_heuristic.py'}", f"python3 {BOTS / 'random_bot.py'} 3"),
}


def spread(new: str, old: str, deals: int, seed: int, unpaired: bool) -> float:
    """The sample standard deviation of D over `deals` deals of one `arena match` run."""
    with tempfile.TemporaryDirectory() as tmp:
        extra = ["--unpaired"] if unpaired else []
        proc = subprocess.run([ARENA, "match", "kododo", new, old, "--players", "4", "--seed", str(seed), "--games", str(2 * deals),
                               "--sprt", FIXED, "--json", "-q", "-j", "2", *extra], cwd=tmp, capture_output=True, text=True)
    if proc.returncode not in (0, 1, 3):
        raise RuntimeError(proc.stderr)
    out = json.loads(proc.stdout)
    half = out["rank_difference"]["ci95"]  # 1.96 sd / sqrt(deals), as arena.match reports it
    return float(half) * math.sqrt(int(out["deals"])) / 1.96


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--quick", action="store_true", help="one run of 40 deals")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    runs, deals = (1, 40) if args.quick else (args.runs, args.deals)
    load = os.getloadavg()[0]
    started = time.perf_counter()
    figures: list[Figure] = []
    rows = ["| contrast (Kododo, 4 players) | sd of D, paired | sd of D, unpaired | games pairing needs, as a share of unpaired |",
            "|---|---|---|---|"]
    for label, (new, old) in CONTRASTS.items():
        paired, unpaired = [], []
        for seed in range(1, runs + 1):  # interleaved
            paired.append(spread(new, old, deals, seed, False))
            unpaired.append(spread(new, old, deals, seed, True))
        fp = Figure(f"pairing: {label}, sd of the per-deal rank difference, paired", "places", tuple(paired))
        fu = Figure(f"pairing: {label}, sd of the per-deal rank difference, unpaired", "places", tuple(unpaired))
        share = (statistics.mean(x * x for x in paired) / statistics.mean(x * x for x in unpaired))
        figures += [fp, fu, Figure(f"pairing: {label}, variance paired / unpaired (games needed, as a share)", "ratio", (share,))]
        rows.append(f"| {label} | {fp.median:.2f} | {fu.median:.2f} | {100 * share:.0f}% |")
    text = report(COMMAND, f"{time.perf_counter() - started:.0f} s; load average at the start {load:.2f}; {runs} runs of {deals} "
                  "deals per design and contrast, interleaved", [
        "`arena match kododo NEW OLD --players 4` held to a fixed number of deals, paired (the default) and `--unpaired`. A",
        "sequential test needs games in proportion to the variance of the per-deal difference D, so the last column is the",
        "share of games pairing needs for the same verdict (the mean of the runs' variances, paired over unpaired).",
        "",
        *rows,
    ], figures)
    print(text)
    if args.write:
        write_section(ROOT / "BENCHMARKS.md", "pairing", "What pairing buys `arena match` (3+ players)", text)


if __name__ == "__main__":
    main()
