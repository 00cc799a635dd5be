"""The `stop:` section of a config: when a round-robin may end before its last round (`stoprule.py`).

    stop: {confidence: 0.95, min_rounds: 4, top: null}

Not part of the config's fingerprint: it changes how many of the scheduled games are played, never what
any game is, so a store can be resumed with another rule (or none) and keeps every stored game.
"""

from __future__ import annotations

from typing import Any

from arena.tournament.config.reader import Reader, join, kind
from arena.stats.stoprule import StopRule

KEYS = {"confidence", "min_rounds", "top"}


def read_stop(r: Reader, value: Any) -> StopRule | None:
    """`stop:` as a StopRule; None when absent or null (`true`: the defaults).

    A rule that cannot stop this schedule (min_rounds not below its rounds) is accepted, so that a
    config can be shrunk for a trial run without removing it; `arena validate` says so (`describe`)."""
    where = "stop"
    if value is None or value is False:
        return None
    if value is True:
        value = {}
    data = r.mapping(value, where, KEYS)
    default = StopRule()
    confidence = data.get("confidence", default.confidence)
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0.5 <= confidence < 1:
        r.fail(join(where, "confidence"), f"expected a number from 0.5 up to (not including) 1, got {kind(confidence)}")
    min_rounds = r.integer(data.get("min_rounds", default.min_rounds), join(where, "min_rounds"), minimum=2)
    top = r.integer(data.get("top", default.top), join(where, "top"), minimum=1, allow_null=True)
    return StopRule(confidence=float(confidence), min_rounds=min_rounds, top=top)


def describe(rule: StopRule | None, rounds: int) -> str:
    """One line for `arena validate`; `rounds`: the schedule's."""
    if rule is None:
        return "stop rule: none (every scheduled round is played)"
    if rule.min_rounds >= rounds:
        return (
            f"stop rule: cannot stop this schedule: stop.min_rounds ({rule.min_rounds}) is not below "
            f"schedule.rounds ({rounds}), so every round is played"
        )
    pairs = "every adjacent pair of the ranking" if rule.top is None else f"the top {rule.top} place{'s' if rule.top != 1 else ''}"
    return (
        f"stop rule: after each round from round {rule.min_rounds} on, stop once {pairs} is ordered "
        f"with confidence {rule.confidence:g} (not in the fingerprint)"
    )
