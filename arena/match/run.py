"""`arena match` as a run: the tournament runner with the sequential test as its stop rule.

The hook (`SprtHook`) is asked after every complete round (a deal: two games) with exactly the games of
rounds 0..r in schedule order, and says stop once the LLR crosses a bound; a resumed run asks it about
every stored round again and stops at the same one. Afterwards the verdict and the figures are computed
from the store alone (`summarise`), so the output of a resumed run is the output of an unbroken one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TextIO

from arena.jsonvalue import JSON
from arena.match.sequential import SprtSpec, Tally, Verdict, mean_interval, run_test
from arena.match.sprt import EloEstimate, penta_elo
from arena.tournament.run import runner
from arena.tournament.run.executor import Executor
from arena.tournament.config.tournament import TournamentConfig
from arena.tournament.run.stop.rounds import RoundEnd
from arena.results.store import Store, StoredGame

NEW, OLD = 0, 1


class SprtHook:
    """The runner's stop rule: feeds each complete round to a `Tally`; stop once it has a verdict."""

    def __init__(self, seats: int, spec: SprtSpec) -> None:
        self.tally = Tally(seats, spec)
        self.seen = 0  # games of `results` already fed

    def __call__(self, end: RoundEnd) -> bool:
        games = end.results[self.seen:]
        self.seen = len(end.results)
        ordered = sorted(games, key=lambda g: g.index)
        for first, second in zip(ordered[::2], ordered[1::2]):
            self.tally.add(first, second)
        return self.tally.verdict() is not None

    def progress(self) -> str:
        return self.tally.progress()


@dataclass(frozen=True)
class MatchSummary:
    config: TournamentConfig
    spec: SprtSpec
    verdict: Verdict | None  # None: interrupted before a verdict
    tally: Tally
    rounds: int  # deals the verdict used
    games: int  # games counted (2 a deal)
    played_now: int
    stored_past: int  # games stored beyond the verdict (played in flight), counted nowhere
    faults: tuple[int, int]  # NEW's, OLD's faulted seats in the counted games
    interrupted: bool
    duration_s: float

    @property
    def seats(self) -> int:
        return self.config.players

    def elo(self) -> EloEstimate:
        return penta_elo(self.tally.penta, self.tally.draws, self.games)

    def shares(self) -> tuple[float, float, float]:
        """More players: the shares of deals where NEW did better, the same, worse than OLD."""
        n = len(self.tally.diffs) or 1
        d = self.tally.diffs
        return sum(x > 0 for x in d) / n, sum(x == 0 for x in d) / n, sum(x < 0 for x in d) / n

    def to_json(self) -> dict[str, JSON]:
        lo, hi = self.spec.bounds()
        out: dict[str, JSON] = {
            "game": self.config.game, "players": self.seats,
            "new": " ".join(self.config.entrants[NEW].raw_command), "old": " ".join(self.config.entrants[OLD].raw_command),
            "verdict": self.verdict.value if self.verdict is not None else None,
            "sprt": self.spec.to_json(), "llr": self.tally.llr(), "deals": self.rounds, "games": self.games,
            "max_games": 2 * self.config.schedule.rounds, "faults": {"new": self.faults[0], "old": self.faults[1]},
            "store": str(self.config.store), "seed": self.config.seed, "interrupted": self.interrupted,
        }
        if self.seats == 2:
            out["pentanomial"] = dict(self.tally.penta.to_json())
            out["elo"] = dict(self.elo().to_json())
        else:
            rank, rank_h = mean_interval([float(d) for d in self.tally.diffs])
            pts, pts_h = mean_interval(self.tally.points)
            better, same, worse = self.shares()
            out["rank_difference"] = {"mean": rank, "ci95": _finite(rank_h)}
            out["points_difference"] = {"mean": pts, "ci95": _finite(pts_h)}
            out["share"] = {"better": better, "same": same, "worse": worse}
        _ = (lo, hi)
        return out


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def lookahead(concurrency: int) -> int:
    """Rounds past the undecided one that may start: enough to keep `concurrency` games busy."""
    return max(0, (concurrency + 1) // 2 - 1)


def play(cfg: TournamentConfig, spec: SprtSpec, *, concurrency: int | None = None, fresh: bool = False,
         quiet: bool = False, progress_stream: TextIO | None = None, secret: str | None = None,
         pin: bool = True, executor: Executor | None = None) -> MatchSummary:
    """Play (or resume) the match until a verdict or its last round; the summary comes from the store.
    `executor`: where the games are played (a Dask cluster: `arena match --cluster`), else here."""
    import os

    hook = SprtHook(cfg.players, spec)
    jobs = concurrency or cfg.concurrency or os.cpu_count() or 1
    result = runner.run(cfg, concurrency=jobs, fresh=fresh, quiet=quiet, progress_stream=progress_stream,
                        stop_rule=hook, lookahead=lookahead(jobs), status=hook.progress, secret=secret, pin=pin,
                        executor=executor)
    with Store.open_existing(cfg.store) as store:
        games = list(store.games())
    return summarise(cfg, spec, games, result.played, result.interrupted, result.duration_s)


def summarise(cfg: TournamentConfig, spec: SprtSpec, games: list[StoredGame], played_now: int = 0,
              interrupted: bool = False, duration_s: float = 0.0) -> MatchSummary:
    tally, verdict, rounds = run_test(games, cfg.players, spec, cfg.schedule.rounds, lambda g: g.played.points)
    counted = [g for g in games if g.round < rounds]
    faults = [sum(n for e, n in zip(g.seats, g.played.fault_counts) if e == who) for who in (NEW, OLD) for g in counted]
    half = len(faults) // 2
    return MatchSummary(cfg, spec, verdict, tally, rounds, 2 * rounds, played_now, len(games) - len(counted),
                        (sum(faults[:half]), sum(faults[half:])), interrupted, duration_s)
