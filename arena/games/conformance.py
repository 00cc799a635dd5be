"""The conformance checks every game must pass (after PettingZoo's api_test), each one named.

Shipped inside the package so that whoever writes a game runs the same checks on it, from the command
line (`arena check-game NAME`, which drives them with hypothesis: `invariants.py`) or from Python:

    from arena.games.conformance import check_game
    check_game(get_game("mygame"), seats=3, seed=7)

`check_game` plays one game to the end and checks the contract at every step; it raises
`ContractViolation` naming the check, the step and what broke. `blind` switches named checks off (the
tests' controls: a check made blind lets the faulty game it catches pass). With "legal-actions" blind,
an `apply` that raises on a legal action is not looked at: the step is played with other legal actions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Collection, Mapping, Sequence

from arena.errors import GameNotOver, IllegalAction
from arena.games.base import Event, GameSpec, GameState, Seat
from arena.games.docs import undocumented
from arena.core.ranking import competition_ranks, outcome_keys
from arena.jsonvalue import canonical, dumps, loads
from arena.rng import Rng

Chooser = Callable[[GameState, Seat, list[Any]], int]

# Every check, by name, with what it promises (`arena check-game` prints a verdict for each).
CHECKS: dict[str, str] = {
    "determinism": "the same seed and actions give the same states, seats to move and events; replayed from its "
                   "seed and recorded actions (as `arena verify` replays), a game gives the same events and outcome",
    "legal-actions": "every listed legal action is accepted (by check and apply), nothing else is, a refusal changes nothing",
    "termination": "every game ends within the spec's max_steps",
    "json-views": "views, legal actions, events and the outcome are plain JSON; a view given out never changes",
    "hidden-information": "a seat's view and legal actions are the same whatever it cannot see",
    "clone": "a clone equals its original and is independent of it",
    "serialisation": "the snapshot (the whole state) is plain JSON that survives a round trip",
    "outcome": "the outcome gives every seat points, tie-breaks and the rank they imply; none before the end",
    "documented": "every view holds exactly the members its spec's view_schema documents, each of its documented type (its protocol.md section)",
}

TRIED_ACTIONS = 8  # legal actions of each seat applied (on clones) at each deep step

# Values no game should accept as an action at any step.
GARBAGE_ACTIONS: tuple[Any, ...] = (None, "", "not an action", -1, 3.5, {}, {"x": 1}, [], [None], [[[]]], True)


class ContractViolation(AssertionError):
    def __init__(self, check: str, game: str, step: int, problem: str) -> None:
        self.check, self.game, self.step, self.problem = check, game, step, problem
        super().__init__(f"{game}, step {step}: {problem}")


@dataclass
class CheckReport:
    """What one checked game did: its final state, its length, and whether hiding was exercised."""

    state: GameState
    steps: int
    hidden_resampled: bool  # some resample_hidden() call produced a different full state
    actions: list[dict[Seat, Any]]  # every step's actions, in order


def _is_json(value: Any) -> bool:
    try:
        return bool(canonical(value) == value)
    except TypeError:
        return False


def random_chooser(seed: int) -> Chooser:
    rng = Rng(seed)
    return lambda state, seat, legal: rng.below(len(legal))


class _Checker:
    def __init__(self, spec: GameSpec, blind: Collection[str]) -> None:
        unknown = set(blind) - set(CHECKS)
        if unknown:
            raise ValueError(f"no check named {sorted(unknown)[0]!r} (checks: {', '.join(CHECKS)})")
        self.spec, self.blind = spec, frozenset(blind)

    def on(self, check: str) -> bool:
        return check not in self.blind

    def fail(self, check: str, step: int, message: str) -> None:
        if self.on(check):
            raise ContractViolation(check, self.spec.name, step, message)


def check_game(
    spec: GameSpec,
    seats: int,
    seed: int,
    options: Mapping[str, Any] | None = None,
    choose: Chooser | None = None,
    max_steps: int | None = None,
    deep_every: int = 1,
    blind: Collection[str] = (),
) -> CheckReport:
    """Play one game with `choose` (random by default), checking the contract at every step.

    `deep_every` spaces out the costly checks (hidden-information resampling, illegal actions,
    clone independence) for long games: 1 checks every step.
    """
    c = _Checker(spec, blind)
    choose = choose or random_chooser(seed ^ 0x5EED)
    limit = spec.max_steps if max_steps is None else max_steps
    state = spec.new_game(seats, options, seed)
    same = c.on("determinism")
    twin = spec.new_game(seats, options, seed) if same else state  # same seed, same actions: must stay identical
    if state.num_seats != seats:
        c.fail("outcome", 0, f"num_seats is {state.num_seats}, expected {seats}")
    resampled_differs = False
    kept: list[tuple[int, Seat, Any, bytes]] = []  # views handed out, with what they said then
    played: list[dict[Seat, Any]] = []
    events_seen: list[list[dict[str, Any]]] = []
    step = 0
    while True:
        if dumps(state.snapshot()) != dumps(twin.snapshot()):
            c.fail("determinism", step, "two games with the same seed and the same actions differ")
        deciding = state.to_move()
        if deciding != twin.to_move():
            c.fail("determinism", step, "two identical games disagree on who is to move")
        if not deciding:
            break
        if step >= limit:
            c.fail("termination", step, f"game did not end within {limit} steps (its spec's max_steps) of legal play")
            return CheckReport(state, step, resampled_differs, played)
        if list(deciding) != sorted(set(deciding)) or any(not 0 <= s < seats for s in deciding):
            c.fail("legal-actions", step, f"to_move() must list distinct seats in order, got {deciding}")
        deep = step % deep_every == 0
        actions: dict[Seat, Any] = {}
        legals: dict[Seat, list[Any]] = {}
        for seat in deciding:
            view = state.view(seat)
            legal = state.legal_actions(seat)
            if not _is_json(view):
                c.fail("json-views", step, f"view of seat {seat} is not plain JSON: {view!r:.200}")
            kept.append((step, seat, view, _bytes(view)))
            if c.on("documented") and isinstance(view, dict) and (gap := undocumented(spec, view)):
                c.fail("documented", step, f"seat {seat}: {gap}")
            _check_split(c, step, state, seat, view)
            if not legal:
                c.fail("legal-actions", step, f"seat {seat} is to move but has no legal action")
                return CheckReport(state, step, resampled_differs, played)
            if not _is_json(legal):
                c.fail("json-views", step, f"legal actions of seat {seat} are not plain JSON: {legal!r:.200}")
            if len({_bytes(a) for a in legal}) != len(legal):
                c.fail("legal-actions", step, f"legal actions of seat {seat} repeat an action")
            fallback = state.fallback(seat)
            if _bytes(fallback) not in {_bytes(a) for a in legal}:
                c.fail("legal-actions", step, f"fallback {fallback!r} of seat {seat} is not among its legal actions")
            if deep:
                for action in legal:
                    try:
                        state.check(seat, action)
                    except IllegalAction as exc:
                        c.fail("legal-actions", step, f"listed legal action {action!r} of seat {seat} is refused: {exc.reason}")
                if c.on("hidden-information"):
                    _check_hidden(c, step, state, seat, seed)
                    if any(dumps(state.resample_hidden(seat, seed + k).snapshot()) != dumps(state.snapshot()) for k in range(3)):
                        resampled_differs = True
            legals[seat] = legal
            actions[seat] = legal[choose(state, seat, legal) % len(legal)]
        if deep:
            if c.on("legal-actions"):
                _check_refusals(c, step, state, actions)
                _check_every_legal_applies(c, step, state, actions, legals)
            if c.on("clone"):
                _check_clone(c, step, state, actions)
            if c.on("serialisation"):
                _check_serialisation(c, step, state, actions)
        actions, events = _apply(c, step, state, actions, legals)
        _check_events(c, step, state, events)
        if same and [e.to_json() for e in events] != [e.to_json() for e in twin.apply(actions)]:
            c.fail("determinism", step, "two identical games gave different events")
        played.append(actions)
        events_seen.append([e.to_json() for e in events])
        step += 1
    for at, seat, view, said in kept:  # a view is a snapshot: one kept by a caller never changes later
        if _bytes(view) != said:
            c.fail("json-views", at, f"the view given to seat {seat} changed after it was given (it shares state with the game)")
    _check_outcome(c, step, state)
    if c.on("determinism"):
        _check_replay(c, spec, seats, options, seed, played, events_seen, state)
    return CheckReport(state, step, resampled_differs, played)


def _bytes(value: Any) -> bytes:
    try:
        return dumps(value)
    except TypeError:
        return repr(value).encode()


def _apply(c: _Checker, step: int, state: GameState, actions: dict[Seat, Any],
           legals: Mapping[Seat, list[Any]]) -> tuple[dict[Seat, Any], list[Event]]:
    """Apply the chosen actions; an apply that raises breaks "legal-actions" (blind: other legal actions are tried)."""
    tries = [actions, {s: state.fallback(s) for s in actions}] + [{s: legals[s][(legals[s].index(a) + k) % len(legals[s])] for s, a in actions.items()}
                         for k in range(1, max(len(v) for v in legals.values()))]
    for attempt in tries:
        copy = state.clone()
        try:
            copy.apply(attempt)
        except Exception as exc:  # noqa: BLE001 - the game's own code, whatever it raises
            c.fail("legal-actions", step, f"apply raised {type(exc).__name__}: {exc} on the legal actions {attempt!r}")
            continue
        return attempt, state.apply(attempt)
    c.fail("legal-actions", step, "apply raised on every legal action tried")
    raise ContractViolation("legal-actions", c.spec.name, step, "apply raised on every legal action tried")


def _check_every_legal_applies(c: _Checker, step: int, state: GameState, actions: Mapping[Seat, Any],
                               legals: Mapping[Seat, list[Any]]) -> None:
    """Each seat's legal actions (up to `TRIED_ACTIONS` of them, spread over the list), with the others'
    chosen ones, are taken by apply (on a clone)."""
    for seat, legal in legals.items():
        for action in legal[::max(1, -(-len(legal) // TRIED_ACTIONS))]:
            try:
                state.clone().apply({**actions, seat: action})
            except Exception as exc:  # noqa: BLE001
                c.fail("legal-actions", step, f"apply raised {type(exc).__name__}: {exc} on seat {seat}'s legal action {action!r}")


def _check_split(c: _Checker, step: int, state: GameState, seat: Seat, view: Any) -> None:
    """`view(seat)` is `own_view(seat)` and `public_view()` together, their keys apart: the referee sends
    their union, the public part encoded once for every seat."""
    own, public = state.own_view(seat), state.public_view()
    both = set(own) & set(public)
    if both:
        c.fail("json-views", step, f"own_view({seat}) and public_view() both hold {sorted(both)}")
    if _bytes({**own, **public}) != _bytes(view):
        c.fail("json-views", step, f"own_view({seat}) and public_view() together are not view({seat})")


def _check_hidden(c: _Checker, step: int, state: GameState, seat: Seat, seed: int) -> None:
    view = _bytes(state.view(seat))
    legal = _bytes(state.legal_actions(seat))
    for k in range(3):
        other = state.resample_hidden(seat, seed * 7919 + step * 31 + k)
        if _bytes(other.view(seat)) != view:
            c.fail("hidden-information", step, f"seat {seat}'s view changes when only what it cannot see changes")
        if _bytes(other.legal_actions(seat)) != legal:
            c.fail("hidden-information", step, f"seat {seat}'s legal actions change when only what it cannot see changes")
        if other.to_move() != state.to_move():
            c.fail("hidden-information", step, "resample_hidden changed who is to move")


def _check_refusals(c: _Checker, step: int, state: GameState, actions: Mapping[Seat, Any]) -> None:
    before = dumps(state.snapshot())
    seat = next(iter(actions))
    for garbage in GARBAGE_ACTIONS:
        try:
            state.check(seat, garbage)
        except IllegalAction as exc:
            if not exc.reason:
                c.fail("legal-actions", step, f"refusal of {garbage!r} gives no reason")
        else:
            c.fail("legal-actions", step, f"check accepted the garbage action {garbage!r}")
        try:
            state.apply({**actions, seat: garbage})
        except IllegalAction:
            pass
        else:
            c.fail("legal-actions", step, f"apply accepted the garbage action {garbage!r}")
        if dumps(state.snapshot()) != before:
            c.fail("legal-actions", step, f"a refused action {garbage!r} changed the state")
    missing = dict(actions)
    missing.pop(seat)
    try:
        state.apply(missing)
    except IllegalAction:
        pass
    else:
        c.fail("legal-actions", step, "apply accepted decisions with a deciding seat missing")
    if dumps(state.snapshot()) != before:
        c.fail("legal-actions", step, "a refused apply changed the state")
    bystanders = [s for s in range(state.num_seats) if s not in actions]
    if bystanders:
        try:
            state.check(bystanders[0], next(iter(actions.values())))
        except IllegalAction:
            pass
        else:
            c.fail("legal-actions", step, f"seat {bystanders[0]} may act although it is not to move")


def _check_clone(c: _Checker, step: int, state: GameState, actions: Mapping[Seat, Any]) -> None:
    before = dumps(state.snapshot())
    copy = state.clone()
    if dumps(copy.snapshot()) != before:
        c.fail("clone", step, "clone() differs from the original")
    try:
        copy.apply(actions)
    except Exception:  # noqa: BLE001 - an apply that raises is "legal-actions"'s to report
        return
    if dumps(state.snapshot()) != before:
        c.fail("clone", step, "applying actions to a clone changed the original")


def _check_serialisation(c: _Checker, step: int, state: GameState, actions: Mapping[Seat, Any]) -> None:
    """The snapshot is plain JSON that survives a round trip, and it follows the game: a clone's snapshot,
    once the same actions are applied to both, is the original's."""
    snap = state.snapshot()
    if not _is_json(snap) or loads(dumps(snap)) != snap:
        c.fail("serialisation", step, "snapshot() is not plain JSON that survives a round trip")
        return
    if snap is state.snapshot():
        c.fail("serialisation", step, "snapshot() hands out the same object twice (it shares state with the game)")


def _check_events(c: _Checker, step: int, state: GameState, events: Sequence[Event]) -> None:
    for event in events:
        if not isinstance(event, Event):
            c.fail("json-views", step, f"apply returned {event!r}, not an Event")
            continue
        if event.to is not None and not 0 <= event.to < state.num_seats:
            c.fail("json-views", step, f"event {event.kind!r} is addressed to seat {event.to}, which does not exist")
        if not _is_json(event.to_json()):
            c.fail("json-views", step, f"event {event.kind!r} is not plain JSON")


def _check_outcome(c: _Checker, step: int, state: GameState) -> None:
    outcome = state.outcome()
    n = state.num_seats
    if not (len(outcome.points) == len(outcome.tiebreaks) == len(outcome.ranks) == n):
        c.fail("outcome", step, "outcome must give points, tie-breaks and a rank for every seat")
        return
    if len({len(t) for t in outcome.tiebreaks}) > 1:
        c.fail("outcome", step, "every seat must have the same number of tie-break values")
    if outcome.drawn:  # stopped by a safety rule: a draw, every seat first
        expected = tuple(1 for _ in range(n))
    else:
        expected = competition_ranks(outcome_keys(outcome.points, outcome.tiebreaks))
    if tuple(outcome.ranks) != expected:
        c.fail("outcome", step, f"ranks {list(outcome.ranks)} disagree with points and tie-breaks (expected {list(expected)})")
    if not _is_json(outcome.to_json()):
        c.fail("json-views", step, "outcome is not plain JSON")


def _check_replay(c: _Checker, spec: GameSpec, seats: int, options: Mapping[str, Any] | None, seed: int,
                  played: list[dict[Seat, Any]], events: list[list[dict[str, Any]]], final: GameState) -> None:
    """The recorded game, played again in a fresh state from its seed and actions (what `arena verify`
    does with a replay file), gives the same events at every step and the same outcome."""
    again = spec.new_game(seats, options, seed)
    for step, (actions, seen) in enumerate(zip(played, events)):
        try:
            got = [e.to_json() for e in again.apply({s: loads(dumps(a)) for s, a in actions.items()})]
        except Exception as exc:  # noqa: BLE001
            c.fail("determinism", step, f"the recorded actions, replayed from JSON, are refused: {type(exc).__name__}: {exc}")
            return
        if got != seen:
            c.fail("determinism", step, "the game replayed from its seed and recorded actions gives other events")
            return
    if dumps(again.outcome().to_json()) != dumps(final.outcome().to_json()):
        c.fail("determinism", len(played), "the game replayed from its seed and recorded actions ends with another outcome")


def check_not_over_raises(spec: GameSpec, seats: int, seed: int = 0) -> None:
    state = spec.new_game(seats, None, seed)
    try:
        state.outcome()
    except GameNotOver:
        return
    raise ContractViolation("outcome", spec.name, 0, "outcome() of a new game must raise GameNotOver")
