"""Per-step stderr logs: bounded per step and per game, cleaned, attributed to the step they arrived in,
and a bot flooding its stderr costs neither a big replay nor the other bots' time."""

from __future__ import annotations

import json
import os
import statistics
import sys
from pathlib import Path

import pytest

from arena.core.limits import Limits
from arena.core.time_control import TimeControl
from arena.referee.session import BotSpec
from arena.referee.referee import play_game
from arena.referee.stderr_log import STDERR_LINE_BYTES, LogBounds, StderrLog, StepLog
from arena.audit.verify import verify_replay
from arena.replay import load_replay, read_replay
from arena.textsafe import LINE_CHARS

LOG_BOT = Path(__file__).with_name("bots") / "log_bot.py"


def log_spec(mode: str, **env: str) -> BotSpec:
    return BotSpec(f"log-{mode}", (sys.executable, str(LOG_BOT), mode), env=env)


# --- the log itself ---------------------------------------------------------------------------------


def test_lines_are_kept_whole_across_reads_and_an_unfinished_line_goes_with_its_step():
    log = StderrLog(0)
    for chunk in (b"one\ntw", b"o\nthr", b"ee"):
        log.feed(chunk)
    assert log.take(4) == StepLog(4, 0, ("one", "two", "three"), 0)
    assert log.take(5) is None  # nothing written since
    log.feed(b"four\r\n")
    assert log.take(6) == StepLog(6, 0, ("four",), 0)


def test_bounds_per_step_and_per_game_count_what_they_drop():
    log = StderrLog(1, LogBounds(lines_per_step=3, lines_per_game=5))
    log.feed(b"".join(b"line %d\n" % i for i in range(10)))
    assert log.take(0) == StepLog(0, 1, ("line 0", "line 1", "line 2"), 7)
    log.feed(b"a\nb\nc\nd\n")
    assert log.take(1) == StepLog(1, 1, ("a", "b"), 2)  # the game's 5 lines are used up
    log.feed(b"e\n")
    assert log.take(2) == StepLog(2, 1, (), 1)


def test_characters_are_bounded_per_step_and_kept_lines_stay_a_prefix():
    log = StderrLog(0, LogBounds(chars_per_step=250))
    log.feed(b"a" * 200 + b"\n" + b"b" * 100 + b"\n" + b"c\n")
    assert log.take(0) == StepLog(0, 0, ("a" * 200,), 2)


def test_a_long_line_is_cut_and_says_how_long_it_was():
    log = StderrLog(0)
    log.feed(b"z" * 5_000_000 + b"\nnext\n")
    out = log.take(0)
    assert out is not None and out.lines[1] == "next"
    assert out.lines[0] == "z" * LINE_CHARS + "… [a line of 5000000 bytes, cut]"
    medium = StderrLog(0)
    medium.feed(b"y" * (STDERR_LINE_BYTES - 10) + b"\n")
    taken = medium.take(0)
    assert taken is not None and taken.lines[0].startswith("y" * LINE_CHARS + "… [") and len(taken.lines[0]) < LINE_CHARS + 40


def test_escapes_and_control_characters_are_stripped():
    log = StderrLog(0)
    log.feed(b"\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m \x08bell\x07 \xe2\x80\xaerev \xff\n")
    out = log.take(0)
    assert out is not None
    (line,) = out.lines
    assert "red" in line and "bell" in line and "rev" in line
    assert not any(ord(c) < 32 or 0x7F <= ord(c) <= 0x9F or c == "\u202e" for c in line), repr(line)
    assert "pwned" not in line  # the window-title sequence is removed whole


# --- real games ---------------------------------------------------------------------------------------


@pytest.mark.process
def test_each_step_log_holds_what_the_bot_wrote_while_deciding_that_step(start_bots, tmp_path):
    """The bot writes "step N" on stderr when asked at step N: the replay's log puts it at step N."""
    bots = start_bots(log_spec("step"), log_spec("escapes"))
    replay = tmp_path / "r.jsonl"
    seen: list[StepLog] = []
    play_game("kodama-duo", bots, seed=3, replay_path=replay, keep_logs=True, on_log=seen.append)
    logs = load_replay(replay).logs
    assert logs and tuple(seen) == tuple(StepLog(g.step, g.seat, g.lines, g.dropped) for g in logs)
    asked = {(r["step"], r["seat"]) for r in read_replay(replay) if r["type"] == "decision"}
    assert {(g.step, g.seat) for g in logs} == asked  # one record per request, none elsewhere
    for g in logs:
        expected = (f"step {g.step}",) if g.seat == 0 else (g.lines[0], f"step {g.step}")
        assert g.lines == expected and g.dropped == 0
        if g.seat == 1:
            assert "\x1b" not in g.lines[0] and "\x07" not in g.lines[0] and "red" in g.lines[0]
    verify_replay(replay)


@pytest.mark.process
def test_without_keep_logs_the_replay_has_no_log_records(start_bots, tmp_path):
    bots = start_bots(log_spec("step"), log_spec("step"))
    replay = tmp_path / "r.jsonl"
    play_game("kodama-duo", bots, seed=3, replay_path=replay)
    assert all(r["type"] != "log" for r in read_replay(replay))


def _game_next_to(start_bots, tmp_path: Path, neighbour: str, limits: Limits,
                  bounds: LogBounds = LogBounds()) -> tuple[list[float], int, list]:
    """Seat 0 sleeps 40 ms per decision and times itself; returns its recorded minus own times (ms),
    the replay's size and the game's faults."""
    tc = TimeControl(decision_ms=1000)
    own_log = tmp_path / f"{neighbour}.own"
    bots = start_bots(log_spec("sleep", SLEEP_S="0.04", BOT_LOG=str(own_log)), log_spec(neighbour), time_control=tc, limits=limits)
    replay = tmp_path / f"{neighbour}.jsonl"
    result = play_game("kodama-duo", bots, seed=5, time_control=tc, replay_path=replay, keep_logs=True, log_bounds=bounds)
    own = {r["id"]: r["took_ms"] for r in map(json.loads, own_log.read_text().splitlines())}
    recorded = {r["id"]: r["elapsed_ms"] for r in read_replay(replay) if r["type"] == "decision" and r["seat"] == 0}
    verify_replay(replay)
    return sorted(recorded[i] - own[i] for i in own), os.path.getsize(replay), list(result.faults)


@pytest.mark.process
def test_ten_megabytes_of_stderr_cost_a_bounded_replay_and_none_of_the_neighbours_time(start_bots, tmp_path):
    """Real processes: a neighbour writing 10 MB of stderr (in the game, flood limit raised so it stays)
    against a quiet one. The replay stays small, the sleeping bot's recorded times move by no more than
    the pipes' latency, and nobody times out. Control: with the log bounds lifted, the replay takes the
    flood (so the bound is what keeps it small)."""
    limits = Limits(max_stderr_bytes_per_game=10**9)
    quiet, quiet_size, quiet_faults = _game_next_to(start_bots, tmp_path, "step", limits)
    noisy, noisy_size, noisy_faults = _game_next_to(start_bots, tmp_path, "flood", limits)
    print(f"\nseat 0 drift, ms: quiet neighbour median {statistics.median(quiet):.2f} p90 {quiet[int(len(quiet) * 0.9)]:.2f}; "
          f"flooding neighbour median {statistics.median(noisy):.2f} p90 {noisy[int(len(noisy) * 0.9)]:.2f}; "
          f"replays {quiet_size} and {noisy_size} bytes", file=sys.stderr)
    assert quiet_faults == [] and noisy_faults == []  # no timeout, no flood fault
    assert noisy_size < quiet_size + 150_000  # 10 MB written, ~100 KB of log kept at most
    flood_logs = [g for g in load_replay(tmp_path / "flood.jsonl").logs if g.seat == 1]
    assert sum(len(g.lines) + g.dropped for g in flood_logs) == 10_000_000 // 65_500 * 655  # every line counted
    assert abs(statistics.median(noisy)) < 5 and noisy[int(len(noisy) * 0.9)] < 20, noisy
    (tmp_path / "open").mkdir()
    _, open_size, _ = _game_next_to(start_bots, tmp_path / "open", "flood", limits, LogBounds(10**9, 10**9, 10**9, 10**9))
    print(f"with the log bounds lifted: replay {open_size} bytes", file=sys.stderr)
    assert open_size > 5_000_000
