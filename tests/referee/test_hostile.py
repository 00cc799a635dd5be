"""Hostile answers and outputs from issue 11, each from a real misbehaving bot process.

Seat 1 of a 3-player Kododo game is `bots/bad_bot.py`; every game must end, charge exactly the
expected fault to seat 1, write a replay that `arena verify` accepts, and leave no process behind.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.core.time_control import TimeControl
from arena.core.faults import FaultKind
from arena.core.limits import DEFAULT_MEMORY_MB
from arena.referee.referee import play_game
from arena.replay import read_replay
from arena.audit.verify import verify_replay

from tests.support.bots import BAD_BOT, PY_BOT, bad_spec
from tests.support.faults import BAD, kinds, play

pytestmark = pytest.mark.process

def test_a_huge_illegal_action_costs_a_short_detail_and_a_small_replay(start_bots, c_bot, tmp_path):
    """Issue 11 item 4: a 0.9 MB action gave 1.8 MB of details and a 109 MB replay."""
    big = tmp_path / "big.txt"
    big.write_text('{"id": {id}, "action": ["' + "Z" * 900_000 + '"]}')
    bots, result, _ = play(start_bots, c_bot, bad_spec("line_file", LINE_FILE=str(big)), tmp_path)
    assert kinds(result) == [FaultKind.MALFORMED_JSON]
    assert "longer than 16384 bytes" in result.faults[0].detail and len(result.faults[0].detail) < 200
    assert (tmp_path / "game.jsonl").stat().st_size < 200_000


def test_an_illegal_action_within_the_bounds_is_recorded_whole_and_shown_short(start_bots, c_bot, tmp_path):
    big = tmp_path / "big.txt"
    big.write_text('{"id": {id}, "action": ["' + "\\u001b[2J" * 10 + "Z" * 16_000 + '"]}')
    bots, result, records = play(start_bots, c_bot, bad_spec("line_file", LINE_FILE=str(big)), tmp_path)
    assert kinds(result) == [FaultKind.ILLEGAL_ACTION]
    detail = result.faults[0].detail
    assert len(detail) < 300 and "\x1b" not in detail
    (decision,) = [r for r in records if r["type"] == "decision" and r["seat"] == BAD and r["id"] == 1]
    assert decision["answer"][0].endswith("Z" * 16_000) and decision["source"] == "fallback"
    assert (tmp_path / "game.jsonl").stat().st_size < 200_000


def test_a_stdout_stream_without_newlines_is_a_fault_at_its_byte_budget(start_bots, c_bot, tmp_path):
    bots, result, _ = play(start_bots, c_bot, bad_spec("endless", CHUNKS="48"), tmp_path)  # 3 MB, no newline
    assert kinds(result) == [FaultKind.LINE_TOO_LONG]
    assert result.faults[0].request_id == 1
    assert len(bots[BAD].pipes.lines.buf) <= bots[BAD].limits.max_line_bytes


def test_the_whole_game_has_a_wall_clock_limit(start_bots, c_bot, tmp_path):
    from tests.support.bots import c_spec

    tc = TimeControl(decision_ms=1000, shutdown_ms=300, game_ms=700)
    bots = start_bots(c_spec(c_bot, 10), bad_spec("sleep", SLEEP_S="0.3", SLEEP_STEPS="1000"), c_spec(c_bot, 12), time_control=tc)
    replay = tmp_path / "game.jsonl"
    result = play_game("kododo", bots, seed=7, time_control=tc, replay_path=replay)
    verify_replay(replay)
    # Kododo's steps are simultaneous: step 2 starts at ~0.6 s and is cut at 0.7 s; then every seat
    # still in the game is charged, nobody is asked again, and the game is played out with fallbacks.
    assert sorted((f.seat, f.kind) for f in result.faults) == [(s, FaultKind.GAME_TIME) for s in range(3)]
    assert {f.step for f in result.faults} == {2}
    assert result.ranks == (1, 1, 1)  # forfeit: a game over its limit is void
    assert result.duration_s < 0.7 + 0.5
    assert read_replay(replay)[-1]["type"] == "result"


def test_escapes_in_a_bots_name_and_stderr_never_reach_the_terminal(c_bot):
    runner = CliRunner()
    out = runner.invoke(main, ["play", "kododo", "--seed", "3", "--bot", f"{sys.executable} {BAD_BOT} escapes", "--bot", c_bot])
    assert out.exit_code == 0, out.output
    assert "FAULT seat 0 crash" in out.output and "evil" in out.output and "red and a bell" in out.output
    assert "\x1b" not in out.output and "\x07" not in out.output
    as_json = runner.invoke(main, ["play", "kododo", "--seed", "3", "--json", "--bot", f"{sys.executable} {BAD_BOT} escapes", "--bot", c_bot])
    data = json.loads(as_json.output)
    assert data["players"][0] == "evilbot"  # the title-setting and screen-clearing sequences removed whole
    assert "\x1b" not in as_json.output and "\\u001b" not in as_json.output


def test_arena_play_sets_a_memory_limit_and_a_seed_by_default(c_bot, tmp_path):
    log = tmp_path / "limits.log"
    runner = CliRunner()
    bot = f"env BOT_LOG={log} {sys.executable} {BAD_BOT} limits"
    out = runner.invoke(main, ["play", "kododo", "--seed", "7", "--quiet", "--no-sandbox", "--bot", bot, "--bot", c_bot])
    assert out.exit_code == 0, out.output
    seen = json.loads(log.read_text().splitlines()[0])
    assert seen["as"] == [DEFAULT_MEMORY_MB * 1024 * 1024] * 2
    assert seen["seed"] is not None
    runner.invoke(main, ["play", "kododo", "--seed", "7", "--quiet", "--no-sandbox", "--memory-mb", "0", "--bot", bot, "--bot", c_bot])
    assert json.loads(log.read_text().splitlines()[1])["as"][0] == -1  # RLIM_INFINITY: 0 lifts the limit


def test_a_seed_reproduces_a_game_of_random_bots(c_bot, tmp_path):
    """Issue 11 item 10: the random sample bots, given no seed of their own, play the same game again."""
    runner = CliRunner()
    runs = []
    for i in range(3):
        seed = "8" if i == 2 else "7"
        replay = tmp_path / f"g{i}.jsonl"
        out = runner.invoke(
            main,
            ["play", "kododo", "--seed", seed, "--json", "--replay", str(replay), "--bot", f"{sys.executable} {PY_BOT}", "--bot", c_bot, "--bot", c_bot],
        )
        assert out.exit_code == 0, out.output
        verify_replay(replay)
        played = [r["played"] for r in read_replay(replay) if r["type"] == "decision"]
        runs.append((json.loads(out.output)["points"], json.loads(out.output)["game_id"], played))
    assert runs[0] == runs[1]
    assert runs[0][2] != runs[2][2]  # and another seed is another game


def test_the_game_id_derives_from_the_seed_and_does_not_show_it(start_bots, c_bot):
    from tests.support.bots import c_spec

    ids = set()
    for _ in range(2):
        bots = start_bots(c_spec(c_bot, 1), c_spec(c_bot, 2))
        ids.add(play_game("kododo", bots, seed=11).game_id)
    assert len(ids) == 1
    game_id = ids.pop()
    assert re.fullmatch(r"kododo-[0-9a-f]{16}", game_id)  # a hash: the seed is not in it
