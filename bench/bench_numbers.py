"""`python -m bench.bench_numbers [--quick] [--write]`: are the printed numbers what they claim, under
models other than the one the code was tuned on?

Fields of simulated bots with known strengths (bench/simfield.py) under several models of a game:
normal noise (Thurstone), Gumbel noise (ranks follow Plackett-Luce), heavy tails (Student t, 3 df),
blow-outs (1 game in 10 with 5 times the noise), a seat effect, near-ties, 3 to 6 seats, 2 to 200
rounds, and a late joiner (an entrant that played only the last rounds). For each:

- coverage: the share of printed 90% average-rank intervals that hold the true expected average rank
  (Monte Carlo over many rounds of the same model, once per model: `TRUTH_ROUNDS`), with its standard
  error taken over fields (the entrants of one field are not independent), and the share of entrants
  given no interval;
- P(ahead of next): pairs pooled by the stated probability, against the share truly ahead, and per
  model its calibration in the large (the mean stated against the share truly ahead);
- the collusion test with no colluders: the share of fields with any pair flagged (nominal 5%);
- the stop rule on identical bots with `min_rounds: 2` (the smallest the config accepts): the share
  of fields where it stops, i.e. declares an order between equal entrants (nominal at most 5%).

Every field is scheduled as a tournament is by default (`deals: spread`: no entrant on one deal twice;
a deal's games are one block of the bootstrap, the collusion test regresses on each entrant's own
table); one cell keeps the trusted schedule (`deals: shared`) for comparison.

`--write` puts the tables into BENCHMARKS.md between the markers of its section.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Sequence

from arena.stats import uncertainty
from arena.stats.collusion import detect
from arena.stats.stoprule import StopRule, stopping_round
from arena.stats.uncertainty import estimate
from arena.tournament.schedule.plan import Deals
from bench.simfield import Field, SimGame, tournament, true_average_ranks
from bench.stats import write_section

ROOT = Path(__file__).resolve().parents[1]
CONFIDENCE = 0.90
BINS = ((0.5, 0.8), (0.8, 0.95), (0.95, 0.99), (0.99, 1.0001))


def _spread(n: int, step: float) -> tuple[float, ...]:
    return tuple(step * i for i in range(n))


MODELS: dict[str, Field] = {
    "normal": Field(_spread(5, 0.4), seats=3),
    "Plackett-Luce": Field(_spread(5, 0.4), seats=3, shape="gumbel"),
    "heavy tails": Field(_spread(5, 0.4), seats=3, shape="t3"),
    "blow-outs": Field(_spread(5, 0.4), seats=3, shape="blowout"),
    "seat effect": Field(_spread(5, 0.4), seats=3, seat_effect=0.5),
    "near-ties": Field(_spread(5, 0.05), seats=3),
}


TRUTH_ROUNDS = {True: 3000, False: 20000}  # --quick, full: the truth's error is under a tenth of an interval's


@dataclass
class Tally:
    covered: int = 0
    intervals: int = 0
    missing: int = 0
    entrants: int = 0
    stated: list[float] | None = None
    ahead: list[int] | None = None
    field_shares: list[float] = field(default_factory=list)  # each field's share of intervals covering

    @property
    def coverage_se(self) -> float:
        """The standard error of the coverage over fields (the unit that is independent)."""
        n = len(self.field_shares)
        if n < 2:
            return float("nan")
        mean = sum(self.field_shares) / n
        return math.sqrt(sum((x - mean) ** 2 for x in self.field_shares) / (n - 1) / n)

    def add_p(self, p: float, truly: bool) -> None:
        if self.stated is None or self.ahead is None:
            self.stated, self.ahead = [], []
        self.stated.append(p)
        self.ahead.append(int(truly))


def _se(share: float, n: int) -> float:
    return math.sqrt(max(share * (1 - share), 1e-12) / n) if n else float("nan")


def _with_seats(fld: Field, seats: int) -> Field:
    return replace(fld, strengths=_spread(seats + 1, fld.strengths[1]), seats=seats)


def late_joiner(fld: Field, rounds: int, late: int, seed: int) -> list[SimGame]:
    """The field without its last entrant for `rounds` rounds, plus that entrant's games of `late` rounds
    of the whole field (a store grown by a newcomer)."""
    old = tournament(replace(fld, strengths=fld.strengths[:-1]), rounds, seed)
    new = [g for g in tournament(fld, late, seed + 7919) if fld.entrants - 1 in g.seats]
    return old + [SimGame(1_000_000 + g.index, g.round, g.table, g.rotation, g.seats, g.ranks, g.seed) for g in new]


_TRUTH: dict[tuple[Field, int], list[float]] = {}


def truth_of(fld: Field, rounds: int) -> list[float]:
    """The true expected average ranks of a field (the same for any number of rounds of a full schedule)."""
    key = (fld, rounds)
    if key not in _TRUTH:
        _TRUTH[key] = true_average_ranks(fld, rounds=rounds)
    return _TRUTH[key]


def measure(fld: Field, rounds: int, trials: int, late: int = 0, truth_rounds: int = 3000) -> Tally:
    if late:
        truth_games = late_joiner(fld, rounds * 100, late * 100, 987654321)
        tot, cnt = [0.0] * fld.entrants, [0] * fld.entrants
        for g in truth_games:
            for who, r in zip(g.seats, g.ranks):
                tot[who] += r
                cnt[who] += 1
        truth = [t / c for t, c in zip(tot, cnt)]
    else:
        truth = truth_of(fld, truth_rounds)
    tally = Tally()
    for trial in range(trials):
        games = late_joiner(fld, rounds, late, 1000 + trial) if late else tournament(fld, rounds, 1000 + trial)
        result = estimate(games, fld.entrants, confidence=CONFIDENCE, resamples=400, rating_resamples=0, seed=trial)
        shown = hit = 0
        for e in result.entrants:
            tally.entrants += 1
            if e.avg_rank is None:
                tally.missing += 1
                continue
            tally.intervals += 1
            shown += 1
            hit += e.avg_rank.low <= truth[e.entrant] <= e.avg_rank.high
            if e.p_ahead is not None and e.next is not None:
                tally.add_p(e.p_ahead, truth[e.entrant] < truth[e.next])
        tally.covered += hit
        if shown:
            tally.field_shares.append(hit / shown)
    return tally


def coverage_rows(quick: bool) -> list[str]:
    trials = 12 if quick else 150
    rows = ["| model | seats | entrants | rounds | fields | coverage of 90% intervals | s.e. (over fields) | no interval |",
            "|---|---|---|---|---|---|---|---|"]
    pooled: dict[tuple[float, float], list[tuple[float, int]]] = {b: [] for b in BINS}
    cells: list[tuple[str, Field, int, int]] = []
    for name, fld in MODELS.items():
        for rounds in ((4, 20) if quick else (2, 4, 8, 20)):
            cells.append((name, fld, rounds, 0))
    for seats in (4, 6):
        for rounds in ((4,) if quick else (2, 4, 20)):
            cells.append(("normal", _with_seats(MODELS["normal"], seats), rounds, 0))
    if not quick:
        cells.append(("normal", MODELS["normal"], 200, 0))
        cells.append(("Plackett-Luce", MODELS["Plackett-Luce"], 200, 0))
    cells.append(("late joiner (3 of 12 rounds)", MODELS["normal"], 12, 3))
    # Fields big enough for a spread deal to have several games (the default schedule: no entrant on a deal
    # twice; at 5 entrants and 3 seats above, every game has a deal of its own), and the trusted schedule
    # (a table's seatings on one deal) as it was measured before.
    for entrants, seats in ((4, 2), (6, 3), (9, 3)):
        for rounds in ((4,) if quick or entrants == 9 else (4, 20)):
            cells.append((f"normal, spread deals of {entrants // seats} games", replace(MODELS["normal"], strengths=_spread(entrants, 0.4),
                                                                                      seats=seats), rounds, 0))
    for rounds in ((4,) if quick else (4, 20)):
        cells.append(("normal, deals: shared (trusted)", replace(MODELS["normal"], deals=Deals.SHARED), rounds, 0))
    by_model: dict[str, list[tuple[float, int]]] = {}
    for name, fld, rounds, late in cells:
        fields = max(8, trials // 4) if rounds >= 200 else trials
        t = measure(fld, rounds, fields, late, TRUTH_ROUNDS[quick])
        cov = t.covered / t.intervals if t.intervals else float("nan")
        rows.append(
            f"| {name} | {fld.seats} | {fld.entrants} | {rounds} | {fields} | "
            + (f"{cov:.1%} | {t.coverage_se:.1%}" if t.intervals else "- | -")
            + f" | {t.missing / t.entrants:.0%} |"
        )
        by_model.setdefault(name, []).extend(zip(t.stated or [], t.ahead or []))
        for p, a in zip(t.stated or [], t.ahead or []):
            for lo, hi in BINS:
                if lo <= p < hi:
                    pooled[(lo, hi)].append((p, a))
    cal = ["| stated P(ahead of next) | pairs | mean stated | truly ahead | s.e. |", "|---|---|---|---|---|"]
    for (lo, hi), items in pooled.items():
        if items:
            share = sum(a for _, a in items) / len(items)
            mean = sum(p for p, _ in items) / len(items)
            cal.append(f"| {lo:.2f} - {min(hi, 1.0):.2f} | {len(items)} | {mean:.3f} | {share:.3f} | {_se(share, len(items)):.3f} |")
    large = ["| model | pairs | mean stated P(ahead of next) | share truly ahead | s.e. |", "|---|---|---|---|---|"]
    for name, items in by_model.items():
        if items:
            share = sum(a for _, a in items) / len(items)
            large.append(f"| {name} | {len(items)} | {sum(p for p, _ in items) / len(items):.3f} | {share:.3f} | "
                         f"{_se(share, len(items)):.3f} |")
    # The control: the same near-ties cells with P(ahead) unshrunk (the field's spread taken as unbounded).
    real = uncertainty.field_spread
    uncertainty.field_spread = lambda *args: 1e12
    try:
        flat: list[tuple[float, int]] = []
        for name, fld, rounds, late in cells:
            if name == "near-ties":
                t = measure(fld, rounds, trials, late, TRUTH_ROUNDS[quick])
                flat.extend(zip(t.stated or [], t.ahead or []))
    finally:
        uncertainty.field_spread = real
    if flat:
        share = sum(a for _, a in flat) / len(flat)
        large.append(f"| near-ties, unshrunk (the control: a plain t, as before) | {len(flat)} | "
                     f"{sum(p for p, _ in flat) / len(flat):.3f} | {share:.3f} | {_se(share, len(flat)):.3f} |")
    return (rows + ["", "P(ahead of next), every cell above pooled:", ""] + cal
            + ["", "P(ahead of next) per model, calibration in the large (every cell of the model pooled):", ""] + large)


def collusion_rows(quick: bool) -> list[str]:
    trials = 15 if quick else 100
    rows = ["| model | seats | entrants | rounds | fields with a false flag (nominal <= 5%) | s.e. |", "|---|---|---|---|---|---|"]
    for name, fld in MODELS.items():
        for seats, rounds in ((3, 2), (3, 10), (4, 4)):
            f = replace(fld, strengths=_spread(seats + 2, fld.strengths[1]), seats=seats)
            flagged = sum(bool(detect(tournament(f, rounds, 5000 + i), f.entrants).flagged) for i in range(trials))
            share = flagged / trials
            rows.append(f"| {name} | {seats} | {f.entrants} | {rounds} | {share:.1%} | {_se(share, trials):.1%} |")
    for seats, entrants, rounds in ((2, 4, 10), (3, 6, 4)):  # spread deals of several games
        f = replace(MODELS["normal"], strengths=_spread(entrants, 0.4), seats=seats)
        flagged = sum(bool(detect(tournament(f, rounds, 5000 + i), f.entrants).flagged) for i in range(trials))
        share = flagged / trials
        rows.append(f"| normal, spread deals of {entrants // seats} games | {seats} | {entrants} | {rounds} | {share:.1%} | "
                    f"{_se(share, trials):.1%} |")
    return rows


def stop_rows(quick: bool) -> list[str]:
    trials = 30 if quick else 200
    rows = ["| model | seats | entrants | min_rounds | fields stopped with an order between equal bots (nominal <= 5%) | s.e. |",
            "|---|---|---|---|---|---|"]
    rule = StopRule(confidence=0.95, min_rounds=2)
    for name, fld in MODELS.items():
        for seats in (2, 3):
            f = replace(fld, strengths=(0.0,) * (seats + 1), seats=seats)
            stopped = sum(stopping_round(tournament(f, 20, 9000 + i), f.entrants, 20, rule) < 20 for i in range(trials))
            share = stopped / trials
            rows.append(f"| {name} | {seats} | {f.entrants} | 2 | {share:.1%} | {_se(share, trials):.1%} |")
    for seats, entrants in ((2, 4), (3, 6)):  # spread deals of several games
        f = replace(MODELS["normal"], strengths=(0.0,) * entrants, seats=seats)
        stopped = sum(stopping_round(tournament(f, 20, 9000 + i), f.entrants, 20, rule) < 20 for i in range(trials))
        share = stopped / trials
        rows.append(f"| normal, spread deals of {entrants // seats} games | {seats} | {entrants} | 2 | {share:.1%} | "
                    f"{_se(share, trials):.1%} |")
    return rows


def run(quick: bool) -> list[str]:
    start = time.monotonic()
    out = [f"Command: `.venv/bin/python -m bench.bench_numbers{' --quick' if quick else ''} --write`", ""]
    out += ["Average-rank intervals (90%), each cell its own fields:", ""] + coverage_rows(quick)
    out += ["", "The collusion test on fields with no colluders (alpha 0.05, Holm over every pair):", ""] + collusion_rows(quick)
    out += ["", "The stop rule (confidence 0.95) on identical bots, 20 rounds scheduled:", ""] + stop_rows(quick)
    out += ["", f"(took {time.monotonic() - start:.0f} s)"]
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    text = "\n".join(run(args.quick))
    print(text)
    if args.write:
        write_section(ROOT / "BENCHMARKS.md", "numbers", "Numbers users can trust: coverage, calibration, false flags", text)


if __name__ == "__main__":
    main()
