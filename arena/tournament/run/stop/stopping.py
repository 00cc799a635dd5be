"""The config's `stop:` rule as the runner's round hook, and what a run records of its decision.

The runner's `RoundGate` asks the hook after every complete round, in schedule order, with exactly the
games of rounds 0..r (`RoundEnd.results`); the hook answers with the pure rule (`stoprule.decide`) over
them. So the answer depends only on those games: a run at any concurrency, or resumed after a kill,
stops after the same round as an uninterrupted run at concurrency 1, with the same standings.

Where the decision is kept: the store's meta (`StopRecord`), written the moment the rule says stop.
`arena standings` and the report then count only the games of rounds 0..r; a rerun asks the rule again
about every stored round (the same games, the same answer) and plays nothing more.
"""

from __future__ import annotations

from typing import Sequence

from arena.jsonvalue import JSON
from arena.textsafe import NAME_CHARS, clean
from arena.tournament.run.stop.rounds import RoundEnd
from arena.stats.stoprule import StopDecision, StopRule, decide, weakest_pair
from arena.results.stored import StopRecord


class SettledHook:
    """`stop_rule` for `runner.run`: stop once the ranking (or its top places) is settled."""

    def __init__(self, rule: StopRule, names: Sequence[str], rounds: int) -> None:
        self.rule = rule
        self.names = [clean(n, NAME_CHARS) for n in names]
        self.rounds = rounds  # in the schedule
        self.last: StopDecision | None = None  # the decision about the last complete round
        self.stopped: StopDecision | None = None

    def __call__(self, end: RoundEnd) -> bool:
        self.last = decide(end.results, len(self.names), end.round + 1, self.rounds, self.rule)
        if self.last.stop and self.stopped is None:
            self.stopped = self.last
        return self.last.stop

    def rule_json(self) -> dict[str, JSON]:
        return {"confidence": self.rule.confidence, "min_rounds": self.rule.min_rounds, "top": self.rule.top}

    def progress(self) -> str:
        """The test's state for the progress line: `settled 2/3 after 12 rounds, weakest p=0.04>0.0011`."""
        if self.last is None:
            return f"stop test from round {self.rule.min_rounds}"
        return self.last.progress()

    def state(self) -> str:
        """The decision in words, for the run's last line and the store: which pair was the hardest."""
        d = self.stopped or self.last
        if d is None:
            return "no round complete yet"
        if not d.pairs:
            return d.reason
        done = sum(1 for p in d.pairs if p.settled(d.level))
        weakest = weakest_pair(d.pairs, d.level)
        scope = "adjacent pairs" if self.rule.top is None else f"pairs deciding the top {self.rule.top}"
        if d.stop:
            verdict = "settled"
        elif done == len(d.pairs) and d.rounds >= self.rounds:
            verdict = "settled only by the last round"  # nothing left to save
        else:
            verdict = "not settled"
        sign = "<=" if weakest.p <= d.level else ">"
        if weakest.settled(d.level) and weakest.tied:
            return (
                f"{verdict} after {d.rounds} rounds: {done}/{len(d.pairs)} {scope} ordered or tied at confidence "
                f"{self.rule.confidence:g}; {self.names[weakest.ahead]} and {self.names[weakest.behind]} tied in every round"
            )
        return (
            f"{verdict} after {d.rounds} rounds: {done}/{len(d.pairs)} {scope} ordered at confidence "
            f"{self.rule.confidence:g}; weakest {self.names[weakest.ahead]} ahead of {self.names[weakest.behind]}, "
            f"p={weakest.p:.2g} {sign} {d.level:.2g}"
        )

    def record(self, after_round: int, games: int) -> StopRecord:
        return StopRecord(after_round, self.rounds, games, self.rule_json(), self.state())
