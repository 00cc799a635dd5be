"""The source of the TrueSkill chain, one straight-line function per player count, and the files it is
kept in (`arena/stats/generated/chains.py`; the runs below in `generated/runs.py`): `python -m arena.stats.chain_source --write`.

Why generated code: `standings` must rate 100,000 games in well under 3 s, and a loop over lists spends
most of its time indexing them. For a fixed number of players the chain's messages can live in local
variables; we generate that straight-line code once per player count (as `dataclasses` and
`namedtuple` generate theirs), for every count: there is no second, looping copy of the update to keep
in step. `tests/stats/test_ratings.py` checks it against the package.

Why a file: the chains are written twice from this one generator. `chains.py`, with type annotations,
is what every rater calls (a run's live ratings too), compiled by mypyc to machine doubles (pyproject.toml,
`[tool.arena] compiled`; plain Python under ARENA_PURE=1); `runs.py` holds them without annotations for
numba (a cold store: `arena.stats.kernel.compiled_chain`), which keeps compiled code on disk only for
functions defined in a file. `tests/stats/test_chains_native.py` checks the compiled chains against their
plain source bit for bit. A cold store's games go through `runs.run_{n}` (`kernel.compiled_run`): the
chain's text inlined in a loop over the games' arrays, with the totals `RatingBook.apply` keeps, so that
100,000 games cross from Python to machine code a few thousand times (ties) rather than 100,000 times.
The chain is inlined as text, not called: a compiled function calling another is kept on disk without a
note of the other's source, so an edit of the chain would leave a stale run. The runs are a file of their
own so that a rater that never compiles (an `arena run`'s coordinator) does not load them.

Every operation is written so that plain and compiled give the same bits: `** -2.0`
(numba turns `** -2` into a product, Python calls pow), the erfc inlined with the package's own
operations (`-x / sqrt2`, `z / 2.0`), no fused multiply-adds (numba's default). `test_kernel_compiled.py`
checks the compiled chain against the plain one bit for bit.

The messages and their order are those of `trueskill.TrueSkill.run_schedule` for one player per team.
Team variable i receives s (its performance, fixed), lt (from difference factor i-1) and rt (from
difference factor i); difference variable j receives dd (from its sum factor) and tt (from its
truncation factor). Factor j is visited left to right and back (one visit when there are 2 players).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

DELTA = 0.0001  # the package's default min_delta: stop iterating when no message moves more
MAX_ITERATIONS = 10  # the package's hard cap on iterations of the chain schedule
GENERATED_COUNTS = range(2, 7)  # player counts kept in chains.py: every game's seats (2 to 6)

sqrt2 = math.sqrt(2)
inv_sqrt2 = 1.0 / sqrt2
inv_sqrt_2pi = 1 / math.sqrt(2 * math.pi)

GENERATED_DIR = Path(__file__).with_name("generated")  # only generated modules: arena/stats/generated
CHAINS_FILE = GENERATED_DIR / "chains.py"
RUNS_FILE = GENERATED_DIR / "runs.py"


class RatingOverflow(ArithmeticError):
    """An upset so extreme that double precision cannot rate it (the package raises FloatingPointError)."""


# The package's erfc (Numerical Recipes' Chebyshev fit) of `z = |x|` with `t = 1 / (1 + z / 2)`.
_ERFC_FIT = (
    "t * exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806"
    " + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))))"
)

# The package's cdf(x) = erfc(-x / sqrt2) / 2, operation for operation, into `{out}`.
_CDF = """\
            e = -{x} / sqrt2
            z = abs(e)
            t = 1.0 / (1.0 + z / 2.0)
            r = {fit}
            {out} = 0.5 * (2.0 - r if e < 0 else r)
"""

_STEP = """\
        ap = s_pi{j} + lt_pi{j}
        at = s_tau{j} + lt_tau{j}
        bp = s_pi{k} + rt_pi{k}
        bt = s_tau{k} + rt_tau{k}
        d_pi = 1.0 / (1.0 / ap + 1.0 / bp)
        d_tau = d_pi * (at / ap - bt / bp)
        old_pi = d_pi + tt_pi{j}
        old_tau = d_tau + tt_tau{j}
        sqrt_pi = sqrt(d_pi)
        diff = d_tau / sqrt_pi
        dm = margin * sqrt_pi
        if draw{j}:
            abs_diff = diff if diff >= 0 else -diff
            xa = dm - abs_diff
            xb = -dm - abs_diff
{cdf_a}{cdf_b}            denom = cdf_a - cdf_b
            if not denom:
                raise RatingOverflow("draw too unlikely to rate in double precision")
            pdf_a = inv_sqrt_2pi * exp(-(xa * xa) / 2)
            pdf_b = inv_sqrt_2pi * exp(-(xb * xb) / 2)
            v_abs = (pdf_b - pdf_a) / denom
            v = -v_abs if diff < 0 else v_abs
            w = v_abs * v_abs + (xa * pdf_a - xb * pdf_b) / denom
        else:
            x = diff - dm
            z = x * inv_sqrt2
            if z < 0:
                z = -z
            t = 1.0 / (1.0 + z * 0.5)
            r = {fit}
            c = 0.5 * (2.0 - r if x > 0 else r)
            v = (inv_sqrt_2pi * exp(-(x * x) / 2) / c) if c else -x
            w = v * (v + x)
            if not 0 < w < 1:
                raise RatingOverflow("win too unlikely to rate in double precision")
        omw = 1.0 - w
        new_pi = d_pi / omw
        new_tau = (d_tau + sqrt_pi * v) / omw
        tt_pi{j} = new_pi - d_pi
        tt_tau{j} = new_tau - d_tau
        change = old_tau - new_tau
        if change < 0:
            change = -change
        if change > delta:
            delta = change
        change = old_pi - new_pi
        if change < 0:
            change = -change
        if change > delta * delta:
            delta = sqrt(change)
"""

_UP_RIGHT = """\
{ind}if ap == 0 or tt_pi{j} == 0:
{ind}    lt_pi{k} = lt_tau{k} = 0.0
{ind}else:
{ind}    pi = 1.0 / (1.0 / ap + 1.0 / tt_pi{j})
{ind}    lt_pi{k} = pi
{ind}    lt_tau{k} = pi * (at / ap - tt_tau{j} / tt_pi{j})
"""

_UP_LEFT = """\
{ind}if tt_pi{j} == 0 or bp == 0:
{ind}    rt_pi{j} = rt_tau{j} = 0.0
{ind}else:
{ind}    pi = 1.0 / (1.0 / tt_pi{j} + 1.0 / bp)
{ind}    rt_pi{j} = pi
{ind}    rt_tau{j} = pi * (tt_tau{j} / tt_pi{j} + bt / bp)
"""


def _step(j: int) -> str:
    cdf_a = _CDF.format(x="xa", out="cdf_a", fit=_ERFC_FIT)
    cdf_b = _CDF.format(x="xb", out="cdf_b", fit=_ERFC_FIT)
    return _STEP.format(j=j, k=j + 1, cdf_a=cdf_a, cdf_b=cdf_b, fit=_ERFC_FIT).rstrip("\n")


def _update_lines(n: int, prior: str) -> list[str]:
    """The chain's update of n players sorted best first, up to the posteriors `q_pi{i}` / `q_tau{i}`;
    `prior` is the expression of player i's (mu, sigma), with `{i}` in it."""
    m = n - 1
    lines = []
    for i in range(n):
        lines += [
            "mu, sigma = " + prior.format(i=i),
            f"p_pi{i}: float = sqrt(sigma * sigma + tau2) ** -2.0",  # float ** float is Any to mypy
            f"p_tau{i} = p_pi{i} * mu",
            f"a = 1.0 / (1.0 + beta2 * p_pi{i})",
            "perf_pi = a * p_pi" + str(i),
            f"s_pi{i} = 1.0 / (1.0 / perf_pi)",
            f"s_tau{i} = s_pi{i} * ((a * p_tau{i}) / perf_pi)",
            f"lt_pi{i} = lt_tau{i} = rt_pi{i} = rt_tau{i} = 0.0",
        ]
    for j in range(m):
        lines.append(f"tt_pi{j} = tt_tau{j} = 0.0")
    loop = ["for _ in range(MAX_ITERATIONS):", "    delta = 0.0"]
    if m == 1:
        loop.append(_step(0)[4:].replace("\n    ", "\n"))
    else:
        for j in range(m - 1):
            loop.append(_step(j)[4:].replace("\n    ", "\n"))
            loop.append(_UP_RIGHT.format(ind="    ", j=j, k=j + 1).rstrip("\n"))
        for j in range(m - 1, 0, -1):
            loop.append(_step(j)[4:].replace("\n    ", "\n"))
            loop.append(_UP_LEFT.format(ind="    ", j=j).rstrip("\n"))
    loop += ["    if delta <= DELTA:", "        break"]
    lines += "\n".join(loop).split("\n")
    # The two ends: factor 0 to its left variable, factor m-1 to its right one.
    lines += ["bp = s_pi1 + rt_pi1", "bt = s_tau1 + rt_tau1", _UP_LEFT.format(ind="", j=0).rstrip("\n")]
    lines += [f"ap = s_pi{m - 1} + lt_pi{m - 1}", f"at = s_tau{m - 1} + lt_tau{m - 1}",
              _UP_RIGHT.format(ind="", j=m - 1, k=m).rstrip("\n")]
    for i in range(n):
        lines += [
            f"u_pi = lt_pi{i} + rt_pi{i}",
            f"u_tau = lt_tau{i} + rt_tau{i}",
            "if u_pi:",
            "    u_mu = u_tau / u_pi",
            "    u_pi = 1.0 / (1.0 / u_pi)",
            "    u_tau = u_pi * u_mu",
            "a = 1.0 / (1.0 + beta2 * u_pi)",
            f"q_pi{i} = p_pi{i} + a * u_pi",
            f"q_tau{i} = p_tau{i} + a * u_tau",
        ]
    return "\n".join(lines).split("\n")


def _no_raise(line: str) -> str:
    """In a run, a chain's raise leaves the iterations with `overflow` set: the game goes back to `apply`."""
    if "raise RatingOverflow" not in line:
        return line
    pad = line[: len(line) - len(line.lstrip())]
    return f"{pad}overflow = True\n{pad}break"


def _indent(lines: list[str], by: int) -> list[str]:
    return [" " * by + line if line else line for line in lines]


def chain_source(n: int, typed: bool = False) -> str:
    """`chain_{n}(priors, draws, beta2, tau2, margin)`: posteriors of n players sorted best first. `typed`:
    with the annotations mypyc compiles to machine doubles (chains.py); numba reads them without (runs.py)."""
    if typed:
        lines = [f"def chain_{n}(priors: Sequence[tuple[float, float]], draws: Sequence[bool], beta2: float, tau2: float,",
                 "            margin: float) -> list[tuple[float, float]]:"]
    else:
        lines = [f"def chain_{n}(priors, draws, beta2, tau2, margin):"]
    lines.append("    (" + "".join(f"draw{j}, " for j in range(n - 1)) + ") = draws")
    lines += _indent(_update_lines(n, "priors[{i}]"), 4)
    out = [f"(q_tau{i} / q_pi{i}, sqrt(1 / q_pi{i}))" for i in range(n)]
    lines.append("    return [" + ", ".join(out) + "]")
    return "\n".join(lines) + "\n"


def run_source(n: int) -> str:
    """`run_{n}(...)`: a run of n-player games, each seat a different entrant, counted and rated in schedule
    order with the chain inlined (numba compiles it as one loop: `arena.stats.kernel.compiled_run`). Per game
    it does what `RatingBook.apply` does: the same totals added in the same order, the same chain on the
    same sorted priors, so the same bits. It returns at the first game whose rating it leaves to the
    caller, its totals counted (a tie, averaged over orderings; an upset beyond double precision), or
    at the end of the rows. `totals` holds a row per `EntrantStats` field, in its order, a column per
    entrant (counts too: whole numbers are exact in doubles)."""
    seat = range(n)
    pairs = [(a, b) for a in seat for b in seat if a < b]
    lines = [
        f"def run_{n}(seats, ranks, points, faults, start, place, totals, beta2, tau2, margin):",
        "    mus, sigmas, games, seat_counts, wins, point_sums, rank_sums, fault_counts = totals",
        "    " + " = ".join(f"draw{j}" for j in range(n - 1)) + " = False",
        "    for g in range(start, seats.shape[0]):",
        "        row = seats[g]",
        "        rank = ranks[g]",
        "        " + ", ".join(f"k{s}" for s in seat) + " = " + ", ".join(f"rank[{s}]" for s in seat),
        "        winners = " + " + ".join(f"(k{s} == 1)" for s in seat),
        f"        for s in range({n}):",
        "            who = row[s]",
        "            seat_counts[who] += 1",
        "            point_sums[who] += points[g, s]",
        "            rank_sums[who] += rank[s]",
        "            fault_counts[who] += faults[g, s]",
        "            if rank[s] == 1:",
        "                wins[who] += 1.0 / winners",
        "            games[who] += 1",
        "        if " + " or ".join(f"k{a} == k{b}" for a, b in pairs) + ":",
        "            return g",
    ]
    # the seat at each place, best first (ranks are distinct here): sorted(range(n), key=rank)
    for s in seat:
        lines.append("        place[0 + " + " + ".join(f"(k{t} < k{s})" for t in seat if t != s) + f"] = {s}")  # an int, not a bool
    lines.append("        " + ", ".join(f"e{i}" for i in seat) + " = " + ", ".join(f"row[place[{i}]]" for i in seat))
    lines.append("        overflow = False")
    update = _update_lines(n, "mus[e{i}], sigmas[e{i}]")
    end = update.index("bp = s_pi1 + rt_pi1")  # after the iterations, before the two ends
    lines += _indent([part for line in update[:end] for part in _no_raise(line).split("\n")], 8)
    lines += ["        if overflow:", "            return g"]
    lines += _indent(update[end:], 8)
    for i in seat:
        lines += [f"        mus[e{i}] = q_tau{i} / q_pi{i}", f"        sigmas[e{i}] = sqrt(1 / q_pi{i})"]
    lines.append("    return seats.shape[0]")
    return "\n".join(lines) + "\n"


HEADER = '''\
# GENERATED by `python -m arena.stats.chain_source --write`; do not edit (edit arena/stats/chain_source.py).
"""Generated: do not edit.

{what}; see `arena.stats.chain_source` for what and why."""

{mypy}# fmt: off
from math import exp, sqrt
{typing}
from arena.stats.chain_source import {imports}

__all__ = [{names}]
'''

_IMPORTS = "DELTA, MAX_ITERATIONS, RatingOverflow, inv_sqrt2, inv_sqrt_2pi, sqrt2"


def module_source() -> str:
    """The whole text of chains.py: the chains, loaded by every rater (a run's live ratings too)."""
    counts = list(GENERATED_COUNTS)
    parts = [HEADER.format(what=f"The TrueSkill chain for {counts[0]} to {counts[-1]} players", imports=_IMPORTS,
                           names=", ".join(f'"chain_{n}"' for n in counts), mypy="",
                           typing="from typing import Sequence\n")]
    parts += ["\n" + chain_source(n, typed=True) for n in counts]
    return "\n".join(parts)


def runs_module_source() -> str:
    """The whole text of runs.py: the compiled runs of a cold store, apart so that a rater that never
    compiles (an `arena run`'s coordinator) does not load them. Each inlines its chain's text, so the
    two files cannot go stale against each other in numba's cache."""
    counts = list(GENERATED_COUNTS)
    parts = [HEADER.format(what=f"The chains and the runs of {counts[0]} to {counts[-1]}-player games that numba compiles",
                           imports=_IMPORTS, names=", ".join(f'"{f}_{n}"' for f in ("chain", "run") for n in counts),
                           mypy="# mypy: ignore-errors\n", typing="")]
    parts += ["\n" + chain_source(n) for n in counts]
    parts += ["\n" + run_source(n) for n in counts]
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write (or check) arena/stats/generated/chains.py and runs.py from this generator.")
    parser.add_argument("--write", action="store_true", help="rewrite both files; without it, exit 1 when one is stale")
    args = parser.parse_args(argv)
    stale = 0
    for path, text in ((CHAINS_FILE, module_source()), (RUNS_FILE, runs_module_source())):
        if args.write:
            path.write_text(text)
        elif not path.exists() or path.read_text() != text:
            print(f"{path} is stale: run `python -m arena.stats.chain_source --write`", file=sys.stderr)
            stale = 1
    return stale


if __name__ == "__main__":
    sys.exit(main())
