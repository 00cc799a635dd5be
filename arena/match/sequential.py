"""The sequential test of `arena match` over its paired deals, and the figures it reports. Pure.

A match's round r is two games on one deal (`schedule.Format.MATCH`): entrant 0 is NEW, 1 is OLD.

- 2 players: the games are a pair with seats swapped; NEW's score in each game is 1, 1/2 or 0 (its
  rank against OLD's), the pair is a pentanomial outcome, and the test is fastchess's pentanomial
  GSPRT on Elo (`sprt.penta_llr`), bounds elo0 < elo1.
- 3 to 6 players: NEW and OLD each play the deal in the same seat against the same fillers; the
  outcome of the deal is D = OLD's rank - NEW's rank, an integer in [-(k-1), k-1] (positive: NEW did
  better). The test is the same generalized SPRT on a multinomial, in the normal approximation of its
  LLR (`sprt.llr_normal`): D maps to the score a = (D + k - 1) / (2 (k - 1)) in [0, 1], and the bounds
  rank0 < rank1 on the mean of D to the expected scores 1/2 + rank_i / (2 (k - 1)). H1: NEW gains at
  least rank1 places a deal on average; H0: at most rank0. The figures: mean D and mean points
  difference (NEW - OLD) with Student t 95% intervals over deals, and the shares of deals NEW did
  better, equal, worse.

The verdict is the first round after which LLR >= upper (NEW better) or LLR <= lower (NEW not better
by the effect size); undecided if neither happens by the last round. It depends only on the games of
rounds 0..r in order, so a run at any -j, or resumed after a kill, reaches it at the same round.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from typing import Callable, Sequence, TypeVar

from arena.errors import MatchError
from arena.jsonvalue import JSON
from arena.match import sprt
from arena.stats import tdist
from arena.stats.intervals import GameLike


class Verdict(enum.Enum):
    BETTER = "better"  # H1 accepted
    NOT_BETTER = "not-better"  # H0 accepted
    UNDECIDED = "undecided"  # neither by the last game allowed


@dataclass(frozen=True)
class SprtSpec:
    """`--sprt elo0=0 elo1=50 alpha=0.05 beta=0.05` (2 players) or `rank0=0 rank1=0.25 ...` (more)."""

    low: float  # elo0, or rank0
    high: float  # elo1, or rank1
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "normalized"  # 2 players: fastchess's normalized (nElo) or logistic (Elo) model

    @classmethod
    def parse(cls, text: str | None, seats: int) -> "SprtSpec":
        names = ("elo0", "elo1") if seats == 2 else ("rank0", "rank1")
        values: dict[str, str] = {}
        for word in (text or "").replace(",", " ").split():
            key, eq, value = word.partition("=")
            allowed = (*names, "alpha", "beta") + (("model",) if seats == 2 else ())
            if not eq or key not in allowed:
                raise MatchError(f"--sprt: {word!r} is not one of {', '.join(k + '=' for k in allowed)} "
                                 f"(for {seats} players)")
            values[key] = value
        try:
            low = float(values.get(names[0], DEFAULTS[seats == 2][0]))
            high = float(values.get(names[1], DEFAULTS[seats == 2][1]))
            alpha, beta = float(values.get("alpha", 0.05)), float(values.get("beta", 0.05))
        except ValueError as exc:
            raise MatchError(f"--sprt: a bound is not a number: {exc}") from None
        model = values.get("model", "normalized")
        if model not in ("normalized", "logistic"):
            raise MatchError(f"--sprt: model must be normalized or logistic, got {model!r}")
        if not low < high:
            raise MatchError(f"--sprt: {names[0]} must be below {names[1]}, got {low:g} and {high:g}")
        if seats > 2 and not -(seats - 1) < low < high < seats - 1:
            raise MatchError(f"--sprt: rank bounds must lie within +-{seats - 1} places for {seats} players")
        if not (0 < alpha < 1 and 0 < beta < 1 and alpha + beta < 1):
            raise MatchError(f"--sprt: alpha and beta must be in (0, 1) with alpha + beta < 1, got {alpha:g}, {beta:g}")
        return cls(low, high, alpha, beta, model)

    def bounds(self) -> tuple[float, float]:
        return sprt.bounds(self.alpha, self.beta)

    def describe(self, seats: int) -> str:
        if seats == 2:
            unit = "nElo" if self.model == "normalized" else "Elo"
            return f"elo0={self.low:g} elo1={self.high:g} {unit} alpha={self.alpha:g} beta={self.beta:g}"
        return f"rank0={self.low:g} rank1={self.high:g} places a deal, alpha={self.alpha:g} beta={self.beta:g}"

    def to_json(self) -> dict[str, JSON]:
        lo, hi = self.bounds()
        return {"low": self.low, "high": self.high, "alpha": self.alpha, "beta": self.beta,
                "model": self.model, "llr_lower": lo, "llr_upper": hi}


DEFAULTS = {True: (0.0, 50.0), False: (0.0, 0.25)}  # 2 players: nElo; more: places a deal


def _rank(game: GameLike, entrant: int) -> int:
    return game.ranks[game.seats.index(entrant)]


def _score(game: GameLike) -> float:
    """NEW's score against OLD in a 2-player game: 1, 1/2 or 0."""
    new, old = _rank(game, 0), _rank(game, 1)
    return 1.0 if new < old else 0.5 if new == old else 0.0


@dataclass
class Tally:
    """The deals of a match so far, in round order, and the test over them."""

    seats: int
    spec: SprtSpec
    penta: sprt.Penta = sprt.Penta()
    draws: int = 0  # 2 players: drawn games
    diffs: list[int] = field(default_factory=list)  # more players: OLD's rank - NEW's rank per deal
    points: list[float] = field(default_factory=list)  # more players: NEW's points - OLD's, when known

    @property
    def deals(self) -> int:
        return self.penta.pairs if self.seats == 2 else len(self.diffs)

    def add(self, first: GameLike, second: GameLike, points: tuple[Sequence[float], Sequence[float]] | None = None) -> None:
        """The two games of one round, in schedule order, and their points by seat where known."""
        if self.seats == 2:
            a, b = _score(first), _score(second)
            self.penta = self.penta.add(a, b)
            self.draws += (a == 0.5) + (b == 0.5)
            return
        self.diffs.append(_rank(second, 1) - _rank(first, 0))
        if points is not None:
            pa, pb = points
            self.points.append(float(pa[first.seats.index(0)]) - float(pb[second.seats.index(1)]))

    def llr(self) -> float:
        if self.deals == 0:
            return 0.0
        if self.seats == 2:
            return sprt.penta_llr(self.penta, self.spec.low, self.spec.high, self.spec.model)
        k1 = self.seats - 1
        counts = [0] * (2 * k1 + 1)
        for d in self.diffs:
            counts[d + k1] += 1
        scores = [j / (2 * k1) for j in range(2 * k1 + 1)]
        return sprt.llr_normal(scores, counts, 0.5 + self.spec.low / (2 * k1), 0.5 + self.spec.high / (2 * k1))

    def verdict(self) -> Verdict | None:
        """H1 or H0 once the LLR has crossed a bound, else None (play on)."""
        lo, hi = self.spec.bounds()
        value = self.llr()
        return Verdict.BETTER if value >= hi else Verdict.NOT_BETTER if value <= lo else None

    def estimate(self) -> str:
        """The effect so far, in a few words: `Elo +35.2 +- 40.1` or `rank +0.62 +- 0.31 places`."""
        if self.seats == 2:
            e = sprt.penta_elo(self.penta, self.draws, 2 * self.deals)
            return f"Elo {_signed(e.elo)} +- {_num(e.elo_error)}, nElo {_signed(e.nelo)}"
        m, h = mean_interval([float(d) for d in self.diffs])
        return f"rank {_signed(m, 2)} +- {_num(h, 2)} places"

    def progress(self) -> str:
        lo, hi = self.spec.bounds()
        return f"LLR {self.llr():.2f} in ({lo:.2f}, {hi:.2f}), {self.deals} deals, {self.estimate()}"


def mean_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float]:
    """Mean and the half-width of its Student t interval (inf with fewer than two values)."""
    n = len(values)
    if n == 0:
        return 0.0, math.inf
    mean = sum(values) / n
    if n < 2:
        return mean, math.inf
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    return mean, tdist.quantile(0.5 + confidence / 2, n - 1) * sd / math.sqrt(n)


def _num(x: float, digits: int = 1) -> str:
    return f"{x:.{digits}f}" if math.isfinite(x) else "inf"


def _signed(x: float, digits: int = 1) -> str:
    return f"{x:+.{digits}f}" if math.isfinite(x) else ("+inf" if x > 0 else "-inf")


Game = TypeVar("Game", bound=GameLike)


def rounds_in_order(games: Sequence[Game]) -> list[tuple[Game, Game]]:
    """The complete rounds from round 0 on, each as its (NEW's game, OLD's game), stopping at a gap."""
    by_round: dict[int, list[Game]] = {}
    for g in games:
        by_round.setdefault(g.round, []).append(g)
    out: list[tuple[Game, Game]] = []
    r = 0
    while len(by_round.get(r, ())) == 2:
        first, second = sorted(by_round[r], key=lambda g: g.index)
        out.append((first, second))
        r += 1
    return out


def run_test(games: Sequence[Game], seats: int, spec: SprtSpec, max_rounds: int,
             points: Callable[[Game], Sequence[float]] | None = None) -> tuple[Tally, Verdict | None, int]:
    """The test as a run applies it: (tally at the stop, verdict, rounds used). The verdict is None
    while rounds remain and neither bound is crossed; UNDECIDED once all `max_rounds` are in.
    `points`: a game's points by seat, where the games carry them (the figures, not the test)."""
    tally = Tally(seats, spec)
    rounds = rounds_in_order(games)
    for i, (first, second) in enumerate(rounds[:max_rounds]):
        tally.add(first, second, None if points is None else (points(first), points(second)))
        verdict = tally.verdict()
        if verdict is not None:
            return tally, verdict, i + 1
    used = min(len(rounds), max_rounds)
    return tally, (Verdict.UNDECIDED if used >= max_rounds else None), used
