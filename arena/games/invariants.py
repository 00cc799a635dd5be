"""`arena check-game`: the conformance checks driven by hypothesis over player counts, seeds and actions.

Hypothesis draws the number of seats, the seed and the action of each decision (an index into its legal
actions, for the first `DRAWN` decisions; then the first legal action), plays the game with
`conformance.check_game`, and on a violation shrinks to the smallest failing example: few seats, a small
seed, a short list of choices. Each failing check is then made blind and the search run again, so every
check gets its own verdict; a game that raises outside any check fails "robustness" and stops the search.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Collection

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import strategies as st

from arena.games.base import GameSpec, Seat
from arena.games.conformance import CHECKS, ContractViolation, check_game, check_not_over_raises

ROBUSTNESS = "robustness"
DRAWN = 64  # decisions whose action hypothesis draws (and shrinks); later ones take the first legal action
ALL_CHECKS: dict[str, str] = {**CHECKS, ROBUSTNESS: "the game's own code raises nothing but IllegalAction, GameOver and GameNotOver"}
# Checks run elsewhere (`arena check-game --browser`: arena.web.renderer_check), with their verdicts here.
OTHER_CHECKS: dict[str, str] = {"renderer": "the game's viewer module draws every step of random games in Chromium without throwing"}


@dataclass(frozen=True)
class Verdict:
    check: str
    passed: bool | None  # None: not run (an earlier failure stopped the search)
    problem: str = ""
    step: int | None = None
    seed: int | None = None
    seats: int | None = None
    choices: tuple[int, ...] = ()  # the smallest failing example's action choices

    def line(self) -> str:
        if self.passed is None:
            return f"SKIP {self.check}: not run (the game crashed first)"
        if self.passed:
            return f"PASS {self.check}: {ALL_CHECKS.get(self.check) or OTHER_CHECKS[self.check]}"
        return (f"FAIL {self.check}: step {self.step}, seed {self.seed}, {self.seats} seats; smallest failing example: "
                f"seats={self.seats} seed={self.seed} choices={list(self.choices)}: {self.problem}")


@dataclass
class _Failure:
    check: str
    problem: str
    step: int
    seats: int
    seed: int
    choices: tuple[int, ...]


def _search(spec: GameSpec, blind: frozenset[str], examples: int, deep_every: int) -> _Failure | None:
    """One hypothesis search with `blind` off; the smallest failure found, or None."""
    last: list[_Failure] = []

    @settings(max_examples=examples, database=None, deadline=None, derandomize=True, print_blob=False,
              verbosity=Verbosity.quiet, suppress_health_check=list(HealthCheck),
              phases=(Phase.explicit, Phase.generate, Phase.shrink))  # no "explain": it replays each failure many times
    @given(seats=st.integers(spec.min_seats, spec.max_seats), seed=st.integers(0, 2**32 - 1), data=st.data())
    def play(seats: int, seed: int, data: st.DataObject) -> None:
        choices: list[int] = []

        def choose(state: Any, seat: Seat, legal: list[Any]) -> int:
            if len(choices) >= DRAWN:
                return 0
            choices.append(data.draw(st.integers(0, len(legal) - 1)))
            return choices[-1]

        try:
            check_game(spec, seats, seed, choose=choose, deep_every=deep_every, blind=blind)
            if "outcome" not in blind:
                check_not_over_raises(spec, seats, seed)
        except ContractViolation as exc:
            last.append(_Failure(exc.check, exc.problem, exc.step, seats, seed, _trimmed(choices)))
            raise
        except Exception as exc:  # noqa: BLE001 - the game's own code, raising what it should not
            last.append(_Failure(ROBUSTNESS, f"{type(exc).__name__}: {exc}", -1, seats, seed, _trimmed(choices)))
            raise

    try:
        play()
    except Exception:  # noqa: BLE001 - hypothesis re-raises the smallest example's failure last
        return last[-1] if last else _Failure(ROBUSTNESS, "hypothesis stopped without an example", -1, 0, 0, ())
    return None


def _trimmed(choices: list[int]) -> tuple[int, ...]:
    """The choices without their trailing zeros (after the list, every decision takes legal action 0)."""
    while choices and choices[-1] == 0:
        choices = choices[:-1]
    return tuple(choices)


def check_spec(spec: GameSpec, examples: int = 25, deep_every: int = 1, blind: Collection[str] = ()) -> list[Verdict]:
    """A verdict for every check (those in `blind` are left out: the tests' controls)."""
    off = frozenset(blind)
    failed: list[Verdict] = []
    while True:
        found = _search(spec, off, examples, deep_every)
        if found is None:
            break
        failed.append(Verdict(found.check, False, found.problem, found.step, found.seed, found.seats, found.choices))
        if found.check == ROBUSTNESS or found.check in off:
            break
        off = off | {found.check}
    done = {v.check for v in failed}
    crashed = any(v.check == ROBUSTNESS for v in failed)
    rest = [Verdict(name, None if crashed else True) for name in ALL_CHECKS if name not in done and name not in blind]
    return [*failed, *rest]
