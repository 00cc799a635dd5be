"""The misbehaving-bot suite: each fault contained, recorded, ranked, and no process left behind.

Each test plays a real 3-player Kododo game: the C sample bot in seats 0 and 2, a misbehaving bot in
seat 1. The game must end with a result, exactly the expected faults of seat 1, a replay that verifies,
and (checked by the `start_bots` fixture) no process of any bot still running after close.
Faults in what a bot says (bad lines, early or second answers) are judged on the fake transport in
test_protocol_faults.py; here is what needs a real process.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from arena.core.limits import Limits
from arena.core.time_control import TimeControl
from arena.core.faults import FaultKind
from arena.referee.referee import play_game
from arena.core.result import GameResult
from arena.replay import read_replay
from arena.audit.verify import verify_replay

from tests.support.bots import assert_group_gone, bad_spec, c_spec
from tests.support.faults import BAD, kinds, play

pytestmark = pytest.mark.process

def decisions_of(records: list[dict], seat: int) -> list[dict]:
    return [r for r in records if r["type"] == "decision" and r["seat"] == seat]


def assert_forfeited(result: GameResult) -> None:
    assert result.ranks[BAD] == 3
    assert sorted(result.ranks[s] for s in (0, 2)) in ([1, 2], [1, 1])


def test_timeout_gets_fallback_and_the_late_answer_is_ignored(start_bots, c_bot, tmp_path):
    tc = TimeControl(decision_ms=200, shutdown_ms=300)
    bots, result, records = play(start_bots, c_bot, bad_spec("timeout", SLEEP_S="0.32"), tmp_path, time_control=tc)
    assert kinds(result) == [FaultKind.TIMEOUT]
    assert result.faults[0].request_id == 1 and result.faults[0].step == 0
    mine = decisions_of(records, BAD)
    assert mine[0]["source"] == "fallback" and mine[0]["fault"] == "timeout" and "salt" not in mine[0]
    assert all(d["source"] == "bot" for d in mine[1:])  # the bot recovered; its late answer was not used
    assert bots[BAD].alive
    assert_forfeited(result)


def test_crash_mid_game_records_exit_and_stderr_and_plays_fallbacks(start_bots, c_bot, tmp_path):
    bots, result, records = play(start_bots, c_bot, bad_spec("crash", BAD_AT="2"), tmp_path)
    assert kinds(result) == [FaultKind.CRASH]
    fault = result.faults[0]
    assert fault.request_id == 2 and fault.step == 1
    assert "exited with status 3" in fault.detail
    assert any("crashing on purpose" in line for line in fault.stderr_tail)
    mine = decisions_of(records, BAD)
    assert [d["source"] for d in mine[:2]] == ["bot", "fallback"]
    assert all(d["source"] == "fallback" and d["id"] is None for d in mine[2:])  # no more requests
    assert not bots[BAD].alive
    assert_group_gone(bots[BAD].pgid)  # gone already, before close
    assert_forfeited(result)


def test_exit_leaving_a_child_holding_stdout_is_a_crash_with_orphans(start_bots, c_bot, tmp_path):
    tc = TimeControl(decision_ms=300, shutdown_ms=300)
    bots, result, _ = play(start_bots, c_bot, bad_spec("crash_orphan", BAD_AT="2"), tmp_path, time_control=tc)
    assert kinds(result) == [FaultKind.CRASH, FaultKind.ORPHANS]
    assert "exited with status 4" in result.faults[0].detail
    assert_group_gone(bots[BAD].pgid)


def test_line_too_long_is_discarded_without_buffering_it(start_bots, c_bot, tmp_path):
    limits = Limits(max_line_bytes=4096)
    bots, result, records = play(start_bots, c_bot, bad_spec("line_too_long"), tmp_path, limits=limits)
    assert kinds(result) == [FaultKind.LINE_TOO_LONG]
    assert result.faults[0].request_id == 1
    assert len(bots[BAD].pipes.lines.buf) <= 4096
    mine = decisions_of(records, BAD)
    assert mine[0]["source"] == "fallback"
    assert all(d["source"] == "bot" for d in mine[1:])  # back in step after the long line's newline


def test_stdout_flood_stops_the_bot(start_bots, c_bot, tmp_path):
    bots, result, _ = play(start_bots, c_bot, bad_spec("stdout_flood"), tmp_path)
    found = kinds(result)
    limit = Limits().max_unasked_lines_per_game
    assert found == [FaultKind.UNEXPECTED_ANSWER] * (limit + 1) + [FaultKind.FLOOD]  # id 0 answers nothing
    assert result.faults[-1].request_id == 1  # the pending request got the fallback
    assert not bots[BAD].alive
    assert_forfeited(result)


def test_stderr_flood_is_drained_then_stopped(start_bots, c_bot, tmp_path):
    limits = Limits(max_stderr_bytes_per_game=1_000_000)
    started = time.monotonic()
    bots, result, _ = play(start_bots, c_bot, bad_spec("stderr_flood"), tmp_path, limits=limits)
    assert kinds(result) == [FaultKind.FLOOD]
    assert result.faults[0].request_id == 1
    # the tail is bounded too: 500 characters of text, then a marker saying how much was cut
    assert all(len(line.split("… [")[0]) <= 500 and len(line) < 540 for line in result.faults[0].stderr_tail)
    assert not bots[BAD].alive
    assert time.monotonic() - started < 5


def test_answer_sent_with_the_hello_is_never_used(start_bots, c_bot, tmp_path):
    bots, result, records = play(start_bots, c_bot, bad_spec("early_hello"), tmp_path)
    assert kinds(result) == [FaultKind.UNEXPECTED_ANSWER]
    assert result.faults[0].step == -1  # judged before the first step
    first = decisions_of(records, BAD)[0]
    # The decision is the answer sent after request 1 arrived (its first legal action), committed when it
    # came, never the early line's action, which is not even a legal action of any game.
    assert first["id"] == 1 and first["source"] == "bot"
    assert first["played"] != "sent-with-the-hello"


def test_refusing_to_exit_is_killed_and_recorded(start_bots, c_bot, tmp_path):
    (bot,) = start_bots(bad_spec("no_exit"), time_control=TimeControl(shutdown_ms=200))
    started = time.monotonic()
    bot.close()
    assert [f.kind for f in bot.close_faults] == [FaultKind.NO_EXIT]
    assert time.monotonic() - started < 3
    assert bot.exit_detail == "killed by signal SIGKILL"  # it ignored SIGTERM
    assert_group_gone(bot.pgid)
    bot.close()  # idempotent
    assert len(bot.close_faults) == 1


def test_children_left_behind_are_recorded_and_killed(start_bots, c_bot, tmp_path):
    bots, result, _ = play(start_bots, c_bot, bad_spec("orphans"), tmp_path)
    assert result.faults == ()  # a child while the bot runs is its business
    bot = bots[BAD]
    bot.close()
    assert [f.kind for f in bot.close_faults] == [FaultKind.ORPHANS]
    assert_group_gone(bot.pgid)


def test_spy_learns_nothing_of_other_decisions_before_its_deadline(start_bots, c_bot, tmp_path):
    log = tmp_path / "spy.jsonl"
    tc = TimeControl(decision_ms=250, shutdown_ms=300)
    bots, result, records = play(start_bots, c_bot, bad_spec("spy", BOT_LOG=str(log), SPY_STEPS="2"), tmp_path, time_control=tc)
    assert result.faults == ()
    seen = [json.loads(line) for line in log.read_text().splitlines()]
    assert [s["step"] for s in seen] == [0, 1]
    assert all(s["received_while_waiting"] == [] for s in seen)
    for step in (0, 1):
        commits = {r["seat"]: r["elapsed_ms"] for r in records if r["type"] == "decision" and r["step"] == step}
        # The others had answered long before the spy did: their decisions existed, and were not sent.
        assert commits[0] < 100 and commits[2] < 100 and commits[BAD] > 150


def test_dead_bot_at_game_start_is_a_start_failure(start_bots, c_bot, tmp_path):
    bots = start_bots(c_spec(c_bot, 1), c_spec(c_bot, 2))
    bots[1].close()
    result = play_game("kododo", bots, seed=3)
    assert [(f.seat, f.kind) for f in result.faults] == [(1, FaultKind.START_FAILED)]
    assert result.ranks == (1, 2)


def test_every_fault_kind_is_covered_by_this_suite():
    """Every FaultKind is asserted by a test of the referee suite (or parametrizes one): read from the
    source, so a new kind without a test fails here."""
    import ast

    covered: set[FaultKind] = set()
    # every referee test module, and the sandbox's escapes (the `limit` kind is a sandbox kill)
    sources = [*Path(__file__).parent.glob("test_*.py"), Path(__file__).parents[1] / "sandbox" / "test_escapes.py"]
    for node in (n for source in sources for n in ast.parse(source.read_text(encoding="utf-8")).body):
        if not isinstance(node, ast.FunctionDef) or not node.name.startswith("test_"):
            continue
        if node.name == "test_every_fault_kind_is_covered_by_this_suite":
            continue
        checks = [n for n in ast.walk(node) if isinstance(n, ast.Assert)] + node.decorator_list  # parametrize
        for check in checks:
            for ref in ast.walk(check):
                if isinstance(ref, ast.Attribute) and isinstance(ref.value, ast.Name) and ref.value.id == "FaultKind":
                    covered.add(FaultKind[ref.attr])
    missing = sorted(k.name for k in set(FaultKind) - covered)
    assert not missing, f"no test of this suite asserts these fault kinds: {missing}"


def test_what_a_bot_does_after_end_is_not_a_fault_of_the_finished_game(start_bots, tmp_path):
    # Seat 1 never reads, so the referee spends its 0.2 s flush allowance on seat 1's `end` after
    # seat 0 got its own: seat 0 exits meanwhile. That exit must not become a fault written to the
    # replay after the result was built (the replay would then contradict its own result).
    tc = TimeControl(decision_ms=20, shutdown_ms=300)
    bots = start_bots(bad_spec("exit_on_end"), bad_spec("no_read"), time_control=tc)
    replay = tmp_path / "game.jsonl"
    result = play_game("kodama-duo", bots, seed=1, time_control=tc, replay_path=replay)
    assert [f for f in result.faults if f.seat == 0] == []
    assert [r for r in read_replay(replay) if r["type"] == "fault" and r["seat"] == 0] == []
    verify_replay(replay)


def test_a_bot_that_stops_reading_its_stdin_is_stopped_before_its_backlog_grows_without_bound(start_bots, c_bot, tmp_path):
    tc = TimeControl(decision_ms=20, shutdown_ms=300)
    limits = Limits(max_unread_bytes=65536)
    bots = start_bots(bad_spec("no_read"), c_spec(c_bot, 1), time_control=tc, limits=limits)
    replay = tmp_path / "game.jsonl"
    result = play_game("kodama-duo", bots, seed=1, time_control=tc, replay_path=replay)
    verify_replay(replay)
    crashes = [f for f in result.faults if f.kind is FaultKind.CRASH]
    assert [f.seat for f in crashes] == [0] and "stopped reading its stdin" in crashes[0].detail
    assert not bots[0].alive
    assert len(bots[0].pipes._out_pending) <= limits.max_unread_bytes
    assert_group_gone(bots[0].pgid)
