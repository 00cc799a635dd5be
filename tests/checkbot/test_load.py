"""check-bot under load (issue 23, item 7): verdicts that do not flip with the machine's load, the
machine's load said where it was too busy to judge, and sub-millisecond latencies shown as such."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.checkbot import load
from arena.checkbot.checks import CheckResult, Status, check_latency, doubtful, judge
from arena.checkbot.load import Load, spin_slowdown
from arena.cli import main

from .conftest import BROKEN
from tests.support.checkbot import evidence

BUSY, QUIET = Load(slowdown=6.0, per_core=7.0), Load(slowdown=1.0, per_core=0.2)


@pytest.mark.parametrize("ms,shown", [(0.001, "<0.01 ms"), (0.04, "0.04 ms"), (12.345, "12.35 ms")])
def test_sub_millisecond_latencies_are_shown_as_such(ms: float, shown: str) -> None:
    ev = evidence()
    for g in ev.games:
        g.latencies_ms = [ms] * 10
    summary = check_latency(ev).summary
    assert summary.startswith(f"median {shown}, p99 {shown}, max {shown}") and "0.00 ms" not in summary


def test_the_spin_measures_the_share_of_the_wall_clock_the_cpu_gave() -> None:
    ticks = {"cpu": 0.0, "wall": 0.0}

    def cpu() -> float:  # every look at the CPU clock: 1 ms of CPU in 3 ms of wall time (a third of a core)
        ticks["cpu"] += 0.001
        ticks["wall"] += 0.003
        return ticks["cpu"]

    assert spin_slowdown(0.03, wall=lambda: ticks["wall"], cpu=cpu) == pytest.approx(3.0, rel=0.05)
    assert BUSY.busy and not QUIET.busy


def results(*statuses: Status, timing: bool = True) -> list[CheckResult]:
    return [CheckResult(f"c{i}", s, f"summary {i}", timing=timing) for i, s in enumerate(statuses)]


def test_a_failure_on_a_busy_machine_is_repeated_and_a_pass_then_stands() -> None:
    first = results(Status.FAIL, Status.PASS)
    assert doubtful(first, BUSY) and not doubtful(first, QUIET)  # quiet: a failure is the bot's
    final = judge(first, BUSY, results(Status.PASS, Status.PASS), QUIET)
    assert [r.status for r in final] == [Status.PASS, Status.PASS]
    assert final[0].evidence[0].startswith("failed in one of two runs, while the machine was busy (load 7.0 a core")


def test_a_failure_in_both_runs_fails_and_says_when_the_machine_was_too_busy() -> None:
    final = judge(results(Status.FAIL), BUSY, results(Status.FAIL), BUSY)
    assert final[0].status is Status.FAIL and final[0].summary.endswith("(the machine was too busy to judge)")
    quiet = judge(results(Status.FAIL), BUSY, results(Status.FAIL), QUIET)
    assert quiet[0].status is Status.FAIL and "too busy" not in quiet[0].summary


def test_a_failure_no_clock_decided_is_the_bots_whatever_the_load() -> None:
    """A crash or an import error before the hello (issue 36, item 4): not repeated, never 'too busy'."""
    crash = results(Status.FAIL, timing=False)
    assert not doubtful(crash, BUSY)
    final = judge(crash, BUSY, results(Status.FAIL, timing=False), BUSY)
    assert final[0].status is Status.FAIL and "too busy" not in final[0].summary + " ".join(final[0].evidence)
    assert doubtful(results(Status.FAIL, timing=True), BUSY)  # the control: a clock's verdict is repeated


def test_a_crash_before_the_hello_is_not_a_timing_failure_and_time_outs_say_what_was_timed() -> None:
    from arena.checkbot.checks import check_handshake

    ev = evidence()
    ev.handshake.problem = "exited with status 1 before its hello: FileNotFoundError: 'model.bin'"
    assert not check_handshake(ev).timing
    ev = evidence()
    ev.games[0].timeouts = ["game 1 step 3: no answer within 1000 ms"]
    latency = check_latency(ev)
    assert latency.timing and "no answer within" in latency.summary and "answers that came in time" in latency.summary


@pytest.mark.process
@pytest.mark.parametrize("machine,status", [(BUSY, 0), (QUIET, 1)])
def test_a_bot_slowed_once_by_the_machine_passes_on_a_busy_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                machine: Load, status: int) -> None:
    """The bot's first start is slow (as a busy machine makes it): past the start-up allowance. Told the
    machine is busy, check-bot runs again and the bot passes; told it is quiet (the control), it fails."""
    marker = tmp_path / "started-once"
    bot = tmp_path / "once_slow.py"
    bot.write_text(f"import os, sys\nmode = 'ok' if os.path.exists({str(marker)!r}) else 'slow-start'\n"
                   f"open({str(marker)!r}, 'a').close()\nos.execv(sys.executable, [sys.executable, {str(BROKEN)!r}, mode])\n")
    monkeypatch.setattr(load, "measure", lambda: machine)
    done = CliRunner().invoke(main, ["check-bot", "kododo", "--quick", "-v", "--no-sandbox", "--startup-ms", "500",
                                     "--decision-ms", "5000", "--", sys.executable, str(bot)])
    assert done.exit_code == status, done.output
    handshake = next(line for line in done.output.splitlines() if "handshake" in line)
    assert handshake.startswith("PASS" if status == 0 else "FAIL"), done.output
    if status == 0:
        assert "failed in one of two runs, while the machine was busy" in done.output
        assert "the machine was busy (load 7.0 a core" in done.output
