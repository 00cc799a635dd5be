"""The conformance checks every registered game must pass (after PettingZoo's api_test).

Shipped inside the package so that whoever adds a game can run the same checks on it:

    from arena.games.conformance import check_game
    check_game(get_game("mygame"), seats=3, seed=7)

`check_game` plays one game to the end and checks the contract at every step; it raises
`ContractViolation` naming the step and what broke. tests/games/test_conformance.py drives it with
hypothesis over every registered game, player count and seed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from arena.errors import GameNotOver, IllegalAction
from arena.games.base import Event, GameSpec, GameState, Seat
from arena.core.ranking import competition_ranks, outcome_keys
from arena.jsonvalue import canonical, dumps
from arena.rng import Rng

Chooser = Callable[[GameState, Seat, list[Any]], int]

# Values no game should accept as an action at any step.
GARBAGE_ACTIONS: tuple[Any, ...] = (None, "", "not an action", -1, 3.5, {}, {"x": 1}, [], [None], [[[]]], True)

DEFAULT_MAX_STEPS = 200_000


class ContractViolation(AssertionError):
    pass


@dataclass
class CheckReport:
    """What one checked game did: its final state, its length, and whether hiding was exercised."""

    state: GameState
    steps: int
    hidden_resampled: bool  # some resample_hidden() call produced a different full state


def _fail(spec: GameSpec, step: int, message: str) -> None:
    raise ContractViolation(f"{spec.name}, step {step}: {message}")


def _is_json(value: Any) -> bool:
    try:
        return bool(canonical(value) == value)
    except TypeError:
        return False


def random_chooser(seed: int) -> Chooser:
    rng = Rng(seed)
    return lambda state, seat, legal: rng.below(len(legal))


def check_game(
    spec: GameSpec,
    seats: int,
    seed: int,
    options: Mapping[str, Any] | None = None,
    choose: Chooser | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
    deep_every: int = 1,
) -> CheckReport:
    """Play one game with `choose` (random by default), checking the contract at every step.

    `deep_every` spaces out the costly checks (hidden-information resampling, illegal actions,
    clone independence) for long games: 1 checks every step.
    """
    choose = choose or random_chooser(seed ^ 0x5EED)
    state = spec.new_game(seats, options, seed)
    twin = spec.new_game(seats, options, seed)  # same seed, same actions: must stay identical
    if state.num_seats != seats:
        _fail(spec, 0, f"num_seats is {state.num_seats}, expected {seats}")
    resampled_differs = False
    kept: list[tuple[int, Seat, Any, bytes]] = []  # views handed out, with what they said then
    step = 0
    while True:
        if dumps(state.snapshot()) != dumps(twin.snapshot()):
            _fail(spec, step, "two games with the same seed and the same actions differ")
        deciding = state.to_move()
        if deciding != twin.to_move():
            _fail(spec, step, "two identical games disagree on who is to move")
        if not deciding:
            break
        if step >= max_steps:
            _fail(spec, step, f"game did not end within {max_steps} steps of random legal play")
        if list(deciding) != sorted(set(deciding)) or any(not 0 <= s < seats for s in deciding):
            _fail(spec, step, f"to_move() must list distinct seats in order, got {deciding}")
        deep = step % deep_every == 0
        actions: dict[Seat, Any] = {}
        for seat in deciding:
            view = state.view(seat)
            legal = state.legal_actions(seat)
            if not _is_json(view):
                _fail(spec, step, f"view of seat {seat} is not plain JSON: {view!r}")
            kept.append((step, seat, view, dumps(view)))
            _check_split(spec, step, state, seat, view)
            if not legal:
                _fail(spec, step, f"seat {seat} is to move but has no legal action")
            if not _is_json(legal):
                _fail(spec, step, f"legal actions of seat {seat} are not plain JSON: {legal!r}")
            if len({dumps(a) for a in legal}) != len(legal):
                _fail(spec, step, f"legal actions of seat {seat} repeat an action")
            fallback = state.fallback(seat)
            if dumps(fallback) not in {dumps(a) for a in legal}:
                _fail(spec, step, f"fallback {fallback!r} of seat {seat} is not among its legal actions")
            if deep:
                for action in legal:
                    try:
                        state.check(seat, action)
                    except IllegalAction as exc:
                        _fail(spec, step, f"listed legal action {action!r} of seat {seat} is refused: {exc.reason}")
                _check_hidden(spec, step, state, seat, seed)
                if any(dumps(state.resample_hidden(seat, seed + k).snapshot()) != dumps(state.snapshot()) for k in range(3)):
                    resampled_differs = True
            actions[seat] = legal[choose(state, seat, legal)]
        if deep:
            _check_refusals(spec, step, state, actions)
            _check_clone(spec, step, state, actions)
        events = state.apply(actions)
        twin_events = twin.apply(actions)
        _check_events(spec, step, state, events)
        if [e.to_json() for e in events] != [e.to_json() for e in twin_events]:
            _fail(spec, step, "two identical games gave different events")
        step += 1
    for at, seat, view, said in kept:  # a view is a snapshot: one kept by a caller never changes later
        if dumps(view) != said:
            _fail(spec, at, f"the view given to seat {seat} changed after it was given (it shares state with the game)")
    _check_outcome(spec, step, state)
    return CheckReport(state, step, resampled_differs)


def _check_split(spec: GameSpec, step: int, state: GameState, seat: Seat, view: Any) -> None:
    """`view(seat)` is `own_view(seat)` and `public_view()` together, their keys apart: the referee sends
    their union, the public part encoded once for every seat."""
    own, public = state.own_view(seat), state.public_view()
    both = set(own) & set(public)
    if both:
        _fail(spec, step, f"own_view({seat}) and public_view() both hold {sorted(both)}")
    if dumps({**own, **public}) != dumps(view):
        _fail(spec, step, f"own_view({seat}) and public_view() together are not view({seat})")


def _check_hidden(spec: GameSpec, step: int, state: GameState, seat: Seat, seed: int) -> None:
    view = dumps(state.view(seat))
    legal = dumps(state.legal_actions(seat))
    for k in range(3):
        other = state.resample_hidden(seat, seed * 7919 + step * 31 + k)
        if dumps(other.view(seat)) != view:
            _fail(spec, step, f"seat {seat}'s view changes when only what it cannot see changes")
        if dumps(other.legal_actions(seat)) != legal:
            _fail(spec, step, f"seat {seat}'s legal actions change when only what it cannot see changes")
        if other.to_move() != state.to_move():
            _fail(spec, step, "resample_hidden changed who is to move")


def _check_refusals(spec: GameSpec, step: int, state: GameState, actions: Mapping[Seat, Any]) -> None:
    before = dumps(state.snapshot())
    seat = next(iter(actions))
    for garbage in GARBAGE_ACTIONS:
        try:
            state.check(seat, garbage)
        except IllegalAction as exc:
            if not exc.reason:
                _fail(spec, step, f"refusal of {garbage!r} gives no reason")
        else:
            _fail(spec, step, f"check accepted the garbage action {garbage!r}")
        try:
            state.apply({**actions, seat: garbage})
        except IllegalAction:
            pass
        else:
            _fail(spec, step, f"apply accepted the garbage action {garbage!r}")
        if dumps(state.snapshot()) != before:
            _fail(spec, step, f"a refused action {garbage!r} changed the state")
    if len(actions) > 0:
        missing = dict(actions)
        missing.pop(seat)
        try:
            state.apply(missing)
        except IllegalAction:
            pass
        else:
            _fail(spec, step, "apply accepted decisions with a deciding seat missing")
        if dumps(state.snapshot()) != before:
            _fail(spec, step, "a refused apply changed the state")
    bystanders = [s for s in range(state.num_seats) if s not in actions]
    if bystanders:
        try:
            state.check(bystanders[0], next(iter(actions.values())))
        except IllegalAction:
            pass
        else:
            _fail(spec, step, f"seat {bystanders[0]} may act although it is not to move")


def _check_clone(spec: GameSpec, step: int, state: GameState, actions: Mapping[Seat, Any]) -> None:
    before = dumps(state.snapshot())
    copy = state.clone()
    if dumps(copy.snapshot()) != before:
        _fail(spec, step, "clone() differs from the original")
    copy.apply(actions)
    if dumps(state.snapshot()) != before:
        _fail(spec, step, "applying actions to a clone changed the original")


def _check_events(spec: GameSpec, step: int, state: GameState, events: Sequence[Event]) -> None:
    for event in events:
        if not isinstance(event, Event):
            _fail(spec, step, f"apply returned {event!r}, not an Event")
        if event.to is not None and not 0 <= event.to < state.num_seats:
            _fail(spec, step, f"event {event.kind!r} is addressed to seat {event.to}, which does not exist")
        if not _is_json(event.to_json()):
            _fail(spec, step, f"event {event.kind!r} is not plain JSON")


def _check_outcome(spec: GameSpec, step: int, state: GameState) -> None:
    outcome = state.outcome()
    n = state.num_seats
    if not (len(outcome.points) == len(outcome.tiebreaks) == len(outcome.ranks) == n):
        _fail(spec, step, "outcome must give points, tie-breaks and a rank for every seat")
    if len({len(t) for t in outcome.tiebreaks}) > 1:
        _fail(spec, step, "every seat must have the same number of tie-break values")
    if outcome.drawn:  # stopped by a safety rule: a draw, every seat first
        expected = tuple(1 for _ in range(n))
    else:
        expected = competition_ranks(outcome_keys(outcome.points, outcome.tiebreaks))
    if tuple(outcome.ranks) != expected:
        _fail(spec, step, f"ranks {list(outcome.ranks)} disagree with points and tie-breaks (expected {list(expected)})")
    if not _is_json(outcome.to_json()):
        _fail(spec, step, "outcome is not plain JSON")


def check_not_over_raises(spec: GameSpec, seats: int, seed: int = 0) -> None:
    state = spec.new_game(seats, None, seed)
    try:
        state.outcome()
    except GameNotOver:
        return
    raise ContractViolation(f"{spec.name}: outcome() of a new game must raise GameNotOver")
