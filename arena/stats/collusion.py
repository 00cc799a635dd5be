"""Collusion and kingmaking: pairs of entrants whose results move together more than chance allows.

The signature of a feeder F and its partner P: P does better against the rest of the field when F is
at the table, and F does worse against the rest of the field when P is at the table. "Against the rest
of the field" is measured pairwise, so who else happens to sit at the table does not matter: in each
game, A scores 1 against each opponent C other than B that it finishes ahead of (1/2 for a tie).

The test, for an ordered pair (A, B): every deal block (the games of one deal: all its seatings, at one
table or, spread, at several) that contains A gives one residual, the mean over its games and opponents C != B of A's score against C
minus A's overall score against C. Blocks are independent (fresh deals), so a z test compares
the blocks with B at A's table to those without: z(A|B) > 0 when A does better with B present. (It is
a regression on who else sat at the table, so an unbalanced schedule cannot fake it; its t statistic is
turned into the normal score of the same tail probability.) The
pair statistic z = (z(A|B) - z(B|A)) / sqrt(2) is large when one gains while the other loses; its
two-sided p-value is adjusted for the number of pairs tested (Holm), and a pair is flagged when the
adjusted p-value is at most `alpha`. Under no collusion the chance of flagging any pair is at most
about alpha (the two z's are positively correlated, which makes the sqrt(2) conservative).

A pair that always or never shares a table (every table seats everyone) cannot be tested this way:
it is reported with p = None.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Sequence

from arena.jsonvalue import JSON
from arena.stats import tdist
from arena.stats.intervals import DealGame, deal_of

Z_CAP = 1e6  # a perfectly consistent effect (zero residual variance) counts as this many standard errors


@dataclass(frozen=True)
class DirectedEffect:
    """How A does against the rest of the field with B at the table minus without B."""

    entrant: int  # A
    with_entrant: int  # B
    difference: float | None  # in pairwise score (0..1 scale)
    z: float | None
    blocks_with: int
    blocks_without: int


@dataclass(frozen=True)
class PairFlag:
    """One unordered pair: `partner` gains while `feeder` loses (by the sign of z)."""

    partner: int
    feeder: int
    partner_gain: float | None
    feeder_loss: float | None
    z: float | None
    p: float | None
    p_adjusted: float | None
    flagged: bool

    def to_json(self, names: Sequence[str]) -> dict[str, JSON]:
        return {
            "partner": names[self.partner],
            "feeder": names[self.feeder],
            "partner_gain": self.partner_gain,
            "feeder_loss": self.feeder_loss,
            "z": self.z,
            "p": self.p,
            "p_adjusted": self.p_adjusted,
            "flagged": self.flagged,
        }


@dataclass(frozen=True)
class CollusionReport:
    alpha: float
    test: str
    pairs: tuple[PairFlag, ...]  # most suspicious first

    @property
    def flagged(self) -> tuple[PairFlag, ...]:
        return tuple(p for p in self.pairs if p.flagged)


def _pairwise(ranks: Sequence[int], a: int, c: int) -> float:
    return 1.0 if ranks[a] < ranks[c] else 0.5 if ranks[a] == ranks[c] else 0.0


class _Data:
    """Games grouped by deal block, with each entrant's overall pairwise score against each other."""

    def __init__(self, games: Sequence[DealGame], entrants: int) -> None:
        self.entrants = entrants
        blocks: dict[int, list[DealGame]] = {}
        total = [[0.0] * entrants for _ in range(entrants)]
        count = [[0] * entrants for _ in range(entrants)]
        for g in games:
            blocks.setdefault(deal_of(g), []).append(g)
            for s, a in enumerate(g.seats):
                for t, c in enumerate(g.seats):
                    if a != c:
                        total[a][c] += _pairwise(g.ranks, s, t)
                        count[a][c] += 1
        self.blocks = list(blocks.values())
        # who sat with each entrant in a block: its table, not the whole deal (a spread deal's other
        # tables hold other entrants, who did not play A)
        self.tables: list[dict[int, frozenset[int]]] = []
        for block in self.blocks:
            met: dict[int, set[int]] = {}
            for g in block:
                for e in g.seats:
                    met.setdefault(e, set()).update(g.seats)
            self.tables.append({e: frozenset(m) for e, m in met.items()})
        self.score = [[total[a][c] / count[a][c] if count[a][c] else 0.5 for c in range(entrants)] for a in range(entrants)]

    def residual(self, block: Sequence[DealGame], a: int, b: int) -> float | None:
        acc, n = 0.0, 0
        for g in block:
            for s, x in enumerate(g.seats):
                if x != a:
                    continue
                for t, c in enumerate(g.seats):
                    if c != a and c != b:
                        acc += _pairwise(g.ranks, s, t) - self.score[a][c]
                        n += 1
        return acc / n if n else None

    def effect(self, a: int, b: int) -> DirectedEffect:
        """A's residuals (opponents other than B) regressed on who else sat at the table; the effect of
        B is its coefficient minus the mean of the others', so a table's composition cannot fake it."""
        import numpy as np  # here, not at the top: `arena standings` without --collusion never loads it

        others = [x for x in range(self.entrants) if x != a]
        rows: list[list[float]] = []
        ys: list[float] = []
        n_with = 0
        for block, tables in zip(self.blocks, self.tables):
            members = tables.get(a)
            if members is not None:
                r = self.residual(block, a, b)
                if r is not None:
                    rows.append([1.0 if x in members else 0.0 for x in others])
                    ys.append(r)
                    n_with += b in members
        n_without = len(ys) - n_with
        if n_with < 2 or n_without < 2:
            return DirectedEffect(a, b, None, None, n_with, n_without)
        x = np.asarray(rows)
        y = np.asarray(ys)
        keep = [bool(x[:, j].any()) for j in range(x.shape[1])]  # entrants never met by A carry no information
        x = x[:, np.asarray(keep)]
        names = [o for o, k in zip(others, keep) if k]
        coef, _, rank, _ = np.linalg.lstsq(x, y, rcond=None)
        dof = len(y) - rank
        if dof < 1 or len(names) < 2:
            return DirectedEffect(a, b, None, None, n_with, n_without)
        sigma2 = float(np.sum((y - x @ coef) ** 2)) / dof
        contrast = np.full(len(names), -1.0 / (len(names) - 1))
        contrast[names.index(b)] = 1.0
        diff = float(contrast @ coef)
        var = sigma2 * float(contrast @ np.linalg.pinv(x.T @ x) @ contrast)
        t = diff / math.sqrt(var) if var > 0 else math.copysign(math.inf, diff) if diff else 0.0
        # the normal score with the same tail probability as t on `dof` degrees of freedom (with few
        # rounds a plain z would flag too often), through the log of the tail: a blatant effect has a
        # p-value far below the smallest double, and must still come out as a (large) score
        z = min(tdist.normal_score(tdist.log_two_sided_p(t, int(dof))), Z_CAP)
        return DirectedEffect(a, b, diff, math.copysign(z, t), n_with, n_without)


def _mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs)


def _var(xs: Sequence[float]) -> float:
    m = _mean(xs)
    return sum((x - m) ** 2 for x in xs) / (len(xs) - 1)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment: controls the chance of any false flag at the nominal level."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    out = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        out[i] = running
    return out


def _tests(games: Sequence[DealGame], entrants: int, pairs: Sequence[tuple[int, int]]) -> dict[tuple[int, int], PairFlag]:
    data = _Data(games, entrants)
    out = {}
    for a, b in pairs:
        ab, ba = data.effect(a, b), data.effect(b, a)
        z = (ab.z - ba.z) / math.sqrt(2) if ab.z is not None and ba.z is not None else None
        partner, feeder = (ab, ba) if z is None or z >= 0 else (ba, ab)
        out[(a, b)] = PairFlag(
            partner=partner.entrant,
            feeder=feeder.entrant,
            partner_gain=partner.difference,
            feeder_loss=-feeder.difference if feeder.difference is not None else None,
            z=abs(z) if z is not None else None,
            p=math.exp(tdist.log_normal_two_sided(z)) if z is not None else None,
            p_adjusted=None,
            flagged=False,
        )
    return out


def detect(games: Sequence[DealGame], entrants: int, alpha: float = 0.05) -> CollusionReport:
    """Test every unordered pair of entrants (Holm step-down); flag those adjusted to at most alpha.

    After a pair is flagged, the blocks where it sits together are left out of the later steps: a
    feeder also changes how everyone else fares against its partner, and without its games together
    that echo of a flagged pair cannot be flagged as a second pair.
    """
    remaining = [(a, b) for a in range(entrants) for b in range(a + 1, entrants)]
    current = _tests(games, entrants, remaining)
    m = sum(1 for t in current.values() if t.p is not None)
    done: list[PairFlag] = []
    together: list[tuple[int, int]] = []
    running = 0.0
    while True:
        testable = sorted((-(t.z or 0.0), key) for key, t in current.items() if t.p is not None)
        if not testable:
            break
        key = testable[0][1]  # the largest z: the smallest p, also where p underflows to 0
        p = current[key].p or 0.0
        running = max(running, min(1.0, (m - len(done)) * p))
        flag = running <= alpha
        done.append(replace(current.pop(key), p_adjusted=running, flagged=flag))
        if not flag:
            continue  # the step-down has stopped: the rest get their adjusted p-values, unflagged
        together.append(key)
        kept = [g for g in games if not any(a in g.seats and b in g.seats for a, b in together)]
        current = _tests(kept, entrants, list(current))
    done.extend(current.values())  # untestable pairs
    test = "regression z on deal-block residuals of pairwise scores, pair z = (z(A|B) - z(B|A)) / sqrt 2, Holm step-down"
    return CollusionReport(alpha, test, tuple(done))
