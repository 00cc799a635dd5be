"""Re-simulate a replay from its seed and actions and check every record against the game.

Trust nothing in the file: each revealed action is checked against its commitment, each played action
against the game's rules (a legal bot answer is played as given; anything else must be the game's own
fallback), each step's events against what the game produces, and the result against the game's outcome
and the fault policy. The first disagreement is reported with its line number.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from arena.errors import ArenaError, IllegalAction, ReplayError
from arena.games.registry import get_game
from arena.jsonvalue import JSON, canonical
from arena.referee.commit import check_commitment
from arena.referee.faults import Fault, FaultKind, FaultPolicy
from arena.referee.referee import apply_policy
from arena.referee.replay import REPLAY_FORMAT, iter_replay


@dataclass(frozen=True)
class VerifyReport:
    game: str
    seed: int
    steps: int
    decisions: int
    commitments: int
    faults: int
    points: tuple[int, ...]
    ranks: tuple[int, ...]


class _Mismatch(Exception):
    pass


def verify_replay(path: str | os.PathLike) -> VerifyReport:
    """Check a replay; raises ReplayError naming the first line that does not agree."""
    where = str(path)
    try:
        return _verify(iter_replay(path))
    except _Mismatch as exc:
        raise ReplayError(f"{where}: {exc}") from None


def _verify(records: Any) -> VerifyReport:
    number, header = _first(records)
    if header.get("type") != "header":
        raise _Mismatch(f"line {number}: the first record must be the header, got {header.get('type')!r}")
    if header.get("format") != REPLAY_FORMAT:
        raise _Mismatch(f"line {number}: replay format {header.get('format')!r}, this arena reads format {REPLAY_FORMAT}")
    try:
        spec = get_game(str(header["game"]))
        if header.get("game_version") != spec.version:
            raise _Mismatch(
                f"line {number}: recorded with {spec.name} version {header.get('game_version')!r}, "
                f"this arena has version {spec.version!r}: the game cannot be re-simulated"
            )
        seats = header["seats"]
        if not isinstance(seats, list) or not all(isinstance(s, dict) for s in seats):
            raise _Mismatch(f'line {number}: the header\'s "seats" must be a list of objects, one per seat')
        options = spec.resolve_options(header["options"])
        seed = int(header["seed"])
        policy = FaultPolicy(header.get("policy", "forfeit"))
        state = spec.new_game(len(seats), options, seed)
    except (KeyError, TypeError, ValueError, ArenaError) as exc:
        if isinstance(exc, _Mismatch):
            raise
        raise _Mismatch(f"line {number}: a header that cannot start the game: {exc}") from None

    step = 0
    commits: dict[int, tuple[int, dict]] = {}
    decisions: dict[int, tuple[int, dict]] = {}
    faults: list[Fault] = []
    n_decisions = n_commits = 0
    result: dict | None = None
    for number, record in records:
        kind = record["type"]
        at = f"line {number} (step {step})"
        if result is not None:
            raise _Mismatch(f"line {number}: a {kind!r} record after the result")
        if kind == "fault":
            try:
                faults.append(Fault.from_json(record))
            except (KeyError, TypeError, ValueError) as exc:
                raise _Mismatch(f"line {number}: an unreadable fault record ({exc})") from None
            continue
        if kind == "result":
            result = record
            _check_result(f"line {number}", record, state, faults, policy, seats)
            continue
        if kind not in ("commit", "decision", "events"):
            raise _Mismatch(f"line {number}: unknown record type {kind!r}")
        if record.get("step") != step:
            raise _Mismatch(f"{at}: a {kind} record for step {record.get('step')!r} where step {step} was expected")
        deciding = state.to_move()
        if not deciding:
            raise _Mismatch(f"{at}: a {kind} record after the game ended")
        if kind in ("commit", "decision"):
            seat = record.get("seat")
            if seat not in deciding:
                raise _Mismatch(f"{at}: a {kind} for seat {seat!r}, which does not decide now (deciding: {list(deciding)})")
            table = commits if kind == "commit" else decisions
            if seat in table:
                raise _Mismatch(f"{at}: a second {kind} for seat {seat}")
            if kind == "commit" and decisions:
                raise _Mismatch(f"{at}: a commitment written after the step's reveal began")
            table[seat] = (number, record)
            continue
        # events: the step is complete; check it and apply it
        played: dict[int, JSON] = {}
        for seat in deciding:
            if seat not in decisions:
                raise _Mismatch(f"{at}: no decision recorded for seat {seat}")
            played[seat] = _check_decision(step, seat, decisions[seat], commits.get(seat), state, faults, len(deciding) > 1)
        unexpected = set(commits) - set(decisions)
        if unexpected:
            raise _Mismatch(f"{at}: a commitment without a decision for seat {min(unexpected)}")
        try:
            events = [event.to_json() for event in state.apply(played)]
        except IllegalAction as exc:
            raise _Mismatch(f"{at}: the game refuses the recorded actions: {exc}") from None
        if canonical(events) != record.get("events"):
            raise _Mismatch(f"{at}: the recorded events differ from the game's: recorded {record.get('events')!r}, game {canonical(events)!r}")
        n_decisions += len(deciding)
        n_commits += len(commits)
        commits, decisions = {}, {}
        step += 1
    if commits or decisions:
        raise _Mismatch(f"step {step} has commitments or decisions but no events record (the replay is cut short)")
    if result is None:
        raise _Mismatch("no result record (the replay is cut short)")
    outcome = state.outcome()
    return VerifyReport(
        game=spec.name,
        seed=seed,
        steps=step,
        decisions=n_decisions,
        commitments=n_commits,
        faults=len(faults),
        points=tuple(outcome.points),
        ranks=tuple(result["ranks"]),
    )


def _first(records: Any) -> tuple[int, dict]:
    for number, record in records:
        return number, record
    raise _Mismatch("the replay is empty")


def _check_decision(
    step: int, seat: int, decision: tuple[int, dict], commit: tuple[int, dict] | None, state: Any, faults: list[Fault], secret: bool
) -> JSON:
    number, record = decision
    at = f"line {number} (step {step}, seat {seat})"
    answered = record.get("answered")
    answer = record.get("answer")
    source = record.get("source")
    played = record.get("played")
    if answered:
        if secret:
            if commit is None:
                raise _Mismatch(f"{at}: a secret answer without a commitment")
            if not check_commitment(str(commit[1].get("commitment")), str(record.get("salt")), step, seat, answer):
                raise _Mismatch(f"{at}: the revealed answer {answer!r} does not match the commitment on line {commit[0]}")
        try:
            state.check(seat, answer)
            legal = True
        except IllegalAction:
            legal = False
        if legal and (source != "bot" or canonical(played) != canonical(answer)):
            raise _Mismatch(f"{at}: the legal answer {answer!r} was not played as given (played {played!r}, source {source!r})")
        if not legal and not _has_fault(faults, seat, step, FaultKind.ILLEGAL_ACTION):
            raise _Mismatch(f"{at}: the answer {answer!r} is illegal but no illegal_action fault was recorded")
    elif commit is not None:
        raise _Mismatch(f"{at}: a commitment (line {commit[0]}) for a seat that did not answer")
    if source != "bot":
        if source != "fallback":
            raise _Mismatch(f"{at}: unknown source {source!r}")
        expected = canonical(state.fallback(seat))
        if canonical(played) != expected:
            raise _Mismatch(f"{at}: the fallback played was {played!r}, the game's fallback is {expected!r}")
        if not any(f.seat == seat and (f.step in (step, -1) or f.kind.fatal or f.kind is FaultKind.ORPHANS) for f in faults):
            raise _Mismatch(f"{at}: a fallback was played but no fault of seat {seat} explains it")
    return played


def _has_fault(faults: list[Fault], seat: int, step: int, kind: FaultKind) -> bool:
    return any(f.seat == seat and f.step == step and f.kind is kind for f in faults)


def _check_result(at: str, record: dict, state: Any, faults: list[Fault], policy: FaultPolicy, seats: list) -> None:
    if state.to_move():
        raise _Mismatch(f"{at}: a result while the game is not over (seats {list(state.to_move())} still decide)")
    outcome = state.outcome()
    expected = {
        "points": list(outcome.points),
        "tiebreaks": [list(t) for t in outcome.tiebreaks],
        "game_ranks": list(outcome.ranks),
        "ranks": list(apply_policy(outcome.ranks, {f.seat for f in faults if f.seat >= 0}, policy)),
        "faults": [f.to_json() for f in faults],
        "players": [s.get("name") for s in seats],
    }
    for key, value in expected.items():
        if canonical(value) != record.get(key):
            raise _Mismatch(f"{at}: result {key} is {record.get(key)!r}, the game and the recorded faults give {value!r}")
