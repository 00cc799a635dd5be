"""Branches of recorded games: `play_game(script=...)` and `plan_branch`, with real bot processes.

The originals are played by deterministic bots (each answer a hash of the request), so a branch at
step 0 with the same bots must be the same game, record for record (salts and timings aside).
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.errors import BranchError, ReplayError
from arena.referee.session import BotProcess, BotSpec
from arena.audit.branch import BranchPlan, Play, plan_branch
from arena.core.faults import FaultKind
from arena.audit.recorded_bot import Recorded
from arena.referee.referee import play_game
from arena.core.result import GameResult
from arena.replay import Branch, Decision, Events, Replay, Source, load_replay
from arena.audit.verify import resimulate, verify_replay

from tests.support.bots import BAD_BOT, StartBots

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[2]
DET = str(ROOT / "tests" / "tournament" / "bots" / "det_bot.py")


def det(salt: str) -> tuple[str, ...]:
    return (sys.executable, DET, "--salt", salt)


def bad(mode: str) -> tuple[str, ...]:
    return (sys.executable, str(BAD_BOT), mode)


def original(tmp_path: Path, start_bots: StartBots, game: str, *commands: tuple[str, ...], seed: int = 5,
             env: dict[str, str] | None = None) -> Path:
    path = tmp_path / f"{game}.jsonl"
    bots = start_bots(*(BotSpec(f"e{i}", cmd, env=env or {}) for i, cmd in enumerate(commands)))
    play_game(game, bots, seed=seed, replay_path=path)
    return path


def branch(plan: BranchPlan, out: Path, start_bots: StartBots, env: dict[int, dict[str, str]] | None = None) -> GameResult:
    specs = plan.bot_specs(sandboxed=False)
    for seat, extra in (env or {}).items():
        specs[seat] = dataclasses.replace(specs[seat], env={**specs[seat].env, **extra})
    header = plan.replay.header
    bots: list[BotProcess] = start_bots(*specs)
    return play_game(header.game, bots, seed=header.seed, options=header.options, policy=header.policy,
                     replay_path=out, game_id=header.game_id, script=plan.script)


def decisions(replay: Replay) -> list[Decision]:
    return [r for r in replay.body if isinstance(r, Decision)]


def events(replay: Replay) -> list[Events]:
    return [r for r in replay.body if isinstance(r, Events)]


def played(replay: Replay, before: int | None = None) -> list[tuple[int, int, Any]]:
    return [(d.step, d.seat, d.played) for d in decisions(replay) if before is None or d.step < before]


@pytest.mark.parametrize("game", ["kododo", "kolpa"])
def test_branch_at_step_0_with_the_original_bots_is_the_original_game(tmp_path: Path, start_bots: StartBots, game: str) -> None:
    orig_path = original(tmp_path, start_bots, game, det("a"), det("b"))
    plan = plan_branch(str(orig_path), 0, {})
    result = branch(plan, tmp_path / "b.jsonl", start_bots)
    orig, new = load_replay(orig_path), load_replay(tmp_path / "b.jsonl")
    assert new.header.branch == Branch(orig.sha256, 0)
    assert dataclasses.replace(new.header, branch=None) == orig.header  # same game, seed, options, seats, commands
    assert [(d.step, d.seat, d.source, d.played, d.request_id) for d in decisions(new)] == \
           [(d.step, d.seat, d.source, d.played, d.request_id) for d in decisions(orig)]
    assert all(d.source is Source.BOT for d in decisions(new))
    assert events(new) == events(orig)
    r, o = new.result, orig.result
    assert (r.points, r.tiebreaks, r.game_ranks, r.ranks, r.faults, r.decisions) == \
           (o.points, o.tiebreaks, o.game_ranks, o.ranks, o.faults, o.decisions)
    assert result.points == o.points
    assert verify_replay(new).branch_of == orig.sha256


@pytest.mark.parametrize("game", ["kododo", "kolpa"])
def test_branch_at_step_k_shares_the_first_k_steps_and_verifies(tmp_path: Path, start_bots: StartBots, game: str) -> None:
    orig_path = original(tmp_path, start_bots, game, det("a"), det("b"))
    orig = load_replay(orig_path)
    k = verify_replay(orig).steps // 2
    plan = plan_branch(str(orig_path), k, {1: det("other")})
    branch(plan, tmp_path / "b.jsonl", start_bots)
    new = load_replay(tmp_path / "b.jsonl")
    report = verify_replay(new)
    assert report.branch_of == orig.sha256 and new.header.branch == Branch(orig.sha256, k)
    assert new.header.seats[1].command == det("other") and new.header.seats[0].command == det("a")
    assert played(new, k) == played(orig, k)
    assert [e for e in events(new) if e.step < k] == [e for e in events(orig) if e.step < k]
    assert {d.source for d in decisions(new) if d.step < k} == {Source.RECORDED}
    assert {d.source for d in decisions(new) if d.step >= k} == {Source.BOT}
    assert played(new) != played(orig)  # seat 1's new bot plays another game from step k
    assert report.commitments == sum(1 for d in decisions(new) if d.step >= k)


def test_bots_get_the_original_requests_and_their_answers_are_ignored(tmp_path: Path, start_bots: StartBots) -> None:
    """Seat 0 logs every line it is sent; seat 1's new bot answers illegally at its first request: in a
    recorded step that is no fault, and the recorded action is played."""
    log0, log1 = tmp_path / "orig0.log", tmp_path / "branch0.log"
    orig_path = original(tmp_path, start_bots, "kododo", bad("record"), det("b"), env={"BOT_LOG": str(log0)})
    k = 6
    plan = plan_branch(str(orig_path), k, {1: bad("illegal")})
    result = branch(plan, tmp_path / "b.jsonl", start_bots, env={0: {"BOT_LOG": str(log1)}})
    assert result.faults == ()
    new = load_replay(tmp_path / "b.jsonl")
    verify_replay(new)
    assert played(new, k) == played(load_replay(orig_path), k)

    def sent(log: Path, kind: str) -> list[dict[str, Any]]:
        lines = [json.loads(json.loads(line)["line"]) for line in log.read_text().splitlines()]
        return [m for m in lines if m.get("type") == kind]

    before = [m for m in sent(log1, "request") if m["step"] < k]
    assert [m["step"] for m in before] == list(range(k))
    assert before == sent(log0, "request")[:k]  # views, legal actions, events, ids, clocks: all as then
    [start0], [start1] = sent(log0, "start"), sent(log1, "start")
    assert start1["players"] == ["bad-record", "bad-illegal"] and start0["players"] == ["bad-record", "det"]
    assert dict(start1, players=None) == dict(start0, players=None)  # the same game id, seat, options, time control


def test_a_crash_during_the_recorded_steps_is_recorded_at_the_branch_point(tmp_path: Path, start_bots: StartBots) -> None:
    orig_path = original(tmp_path, start_bots, "kododo", det("a"), det("b"))
    k = 5
    plan = plan_branch(str(orig_path), k, {1: bad("crash")})  # crashes at its first request, step 0
    result = branch(plan, tmp_path / "b.jsonl", start_bots)
    new = load_replay(tmp_path / "b.jsonl")
    verify_replay(new)
    [fault] = [f for f in result.faults if f.kind is FaultKind.CRASH]
    assert (fault.seat, fault.step, fault.request_id) == (1, k, None)
    assert fault.detail.startswith("at step 0, a recorded step of the branch:")
    assert result.ranks[1] == 2  # forfeit: the faulty seat is last
    assert {(d.source, d.fault) for d in decisions(new) if d.seat == 1 and d.step >= k} == {(Source.FALLBACK, FaultKind.CRASH)}


def test_recorded_answers_follow_the_record_while_it_is_legal() -> None:
    play = Recorded({0: ["A"], 1: {"x": 1}, 2: ["C"], 3: ["D"]})
    assert play.answer(0, [["Z"], ["A"]]) == ["A"]
    assert play.answer(1, [{"x": 1.5}, {"x": 1}]) == {"x": 1}
    assert play.answer(2, [["Y"], ["Z"]]) == ["Y"]  # not legal any more: the first legal action...
    assert play.answer(3, [["X"], ["D"]]) == ["X"]  # ...for the rest of the game
    assert Recorded({}).answer(0, [True, 1]) is True  # no record: the first legal action


def test_a_recorded_seat_replays_the_original_when_nothing_changes(tmp_path: Path, start_bots: StartBots) -> None:
    orig_path = original(tmp_path, start_bots, "kolpa", det("a"), det("b"))
    plan = plan_branch(str(orig_path), 3, {1: Play.RECORDED})
    assert plan.seats[1].play is Play.RECORDED and plan.bot_specs(sandboxed=True)[1].sandbox.enabled is False  # type: ignore[union-attr]
    branch(plan, tmp_path / "b.jsonl", start_bots)
    orig, new = load_replay(orig_path), load_replay(tmp_path / "b.jsonl")
    verify_replay(new)
    assert played(new) == played(orig) and new.result.points == orig.result.points
    assert {d.source for d in decisions(new) if d.step >= 3} == {Source.BOT}


def test_a_recorded_seat_falls_back_to_the_first_legal_action_once_the_game_diverges(tmp_path: Path, start_bots: StartBots) -> None:
    orig_path = original(tmp_path, start_bots, "kolpa", det("a"), det("b"))
    orig = load_replay(orig_path)
    k = 2
    plan = plan_branch(str(orig_path), k, {0: det("changed"), 1: Play.RECORDED})
    branch(plan, tmp_path / "b.jsonl", start_bots)
    new = load_replay(tmp_path / "b.jsonl")
    recorded = {d.step: d.played for d in decisions(orig) if d.seat == 1}
    following, diverged = True, False
    for step in resimulate(new):
        if step.step < k or 1 not in step.deciding:
            continue
        mine = next(d for d in step.decisions if d.seat == 1)
        assert mine.source is Source.BOT
        following = following and step.step in recorded and recorded[step.step] in step.legal[1]
        expected = recorded[step.step] if following else step.legal[1][0]
        diverged = diverged or not following
        assert mine.played == expected, step.step
    assert diverged  # the changed seat 0 took the game elsewhere, so the record ran out or became illegal


def test_plan_errors_are_one_line_and_name_what_to_fix(tmp_path: Path, start_bots: StartBots) -> None:
    orig_path = original(tmp_path, start_bots, "kolpa", det("a"), det("b"))
    steps = verify_replay(orig_path).steps
    for k in (steps, steps + 10, -1):
        with pytest.raises(BranchError, match=rf"--from-step {k}: .* has {steps} steps, numbered 0 to {steps - 1}"):
            plan_branch(str(orig_path), k, {})
    with pytest.raises(BranchError, match=r"--seat 2: the game in .* has seats 0 to 1"):
        plan_branch(str(orig_path), 1, {2: det("x")})
    lines = orig_path.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if '"type":"events"' in line)
    record = json.loads(lines[at])
    record["events"] = record["events"][:-1]
    lines[at] = json.dumps(record, sort_keys=True, separators=(",", ":"))
    forged = tmp_path / "forged.jsonl"
    forged.write_text("\n".join(lines) + "\n")
    with pytest.raises(BranchError, match=r"cannot branch from a replay that does not verify: .*forged.jsonl: line \d+: "
                                          r"the recorded events differ") as caught:
        plan_branch(str(forged), 1, {})
    assert "\n" not in str(caught.value)
    (tmp_path / "junk.jsonl").write_text("not json\n")
    with pytest.raises(ReplayError):
        plan_branch(str(tmp_path / "junk.jsonl"), 0, {})


def test_with_the_original_bots_every_branch_point_gives_the_original_game(tmp_path: Path, start_bots: StartBots) -> None:
    """Recorded prefix + live rest = the original, wherever the branch point is; a branch of a branch too."""
    orig_path = original(tmp_path, start_bots, "kododo", det("a"), det("b"), det("c"))
    orig = load_replay(orig_path)
    steps = verify_replay(orig).steps
    for k in (1, steps // 3, steps - 1):
        out = tmp_path / f"b{k}.jsonl"
        branch(plan_branch(str(orig_path), k, {}), out, start_bots)
        new = load_replay(out)
        assert played(new) == played(orig) and events(new) == events(orig), k
        assert new.result.points == orig.result.points and verify_replay(new).branch_of == orig.sha256
        assert [d.step for d in decisions(new) if d.source is Source.RECORDED] == [d.step for d in decisions(orig) if d.step < k]
    first = tmp_path / f"b{steps // 3}.jsonl"
    again = tmp_path / "again.jsonl"
    branch(plan_branch(str(first), steps - 2, {}), again, start_bots)
    twice = load_replay(again)
    assert verify_replay(twice).branch_of == load_replay(first).sha256 and played(twice) == played(orig)
