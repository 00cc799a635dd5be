"""check-bot fails each broken bot, on the check that names its flaw, and on that one alone."""

from __future__ import annotations

from arena.checkbot import Status

import sys

from .conftest import ROOT, broken, quick_check
import pytest

pytestmark = pytest.mark.process


def failing(results):
    return {name for name, r in results.items() if r.status is Status.FAIL}


def test_a_correct_bot_passes():
    results = quick_check("kododo", broken("ok"))
    assert failing(results) == set()


def test_no_flush_after_the_first_game():
    results = quick_check("kododo", broken("no-flush-after-first-game"), decision_ms=1500)
    assert failing(results) == {"games", "latency"}  # one game a process under the referee: fine
    games = results["games"]
    assert games.summary == "game 2 on one process failed"
    assert "no answer to request" in games.evidence[0]
    assert "flush stdout" in games.evidence[1]
    assert results["handshake"].status is Status.PASS


def test_crash_on_an_unknown_event_kind():
    results = quick_check("kododo", broken("crash-on-unknown-event"))
    assert failing(results) == {"unknown-messages"}
    unknown = results["unknown-messages"]
    assert "event of unknown kind" in unknown.summary
    assert "exited with status 1" in unknown.evidence[0]
    assert "x-checkbot-unknown-event" in unknown.evidence[0]  # the bot's own stderr, quoted


def test_ignoring_shutdown():
    results = quick_check("kododo", broken("ignore-shutdown"))
    assert failing(results) == {"shutdown", "referee"}
    assert all("no_exit at close" in line for line in results["referee"].evidence)
    assert results["shutdown"].summary.startswith("still running 1000 ms after shutdown")


def test_slow_start():
    results = quick_check("kododo", broken("slow-start"), startup_ms=300)
    assert failing(results) == {"handshake", "referee"}  # the referee does not start it either
    summary = results["handshake"].summary
    assert "over the start-up allowance of 300 ms" in summary
    late = float(summary.split(" after ")[1].split(" ms")[0])
    assert 700 <= late < 2300  # it sleeps 0.8 s, and its time is reported


def test_illegal_action_on_a_rare_decision_kind():
    results = quick_check("kodama-duo", broken("illegal-on-spirit"))
    assert failing(results) == {"decisions", "referee"}
    assert "illegal_action" in results["referee"].evidence[0]
    decisions = results["decisions"]
    assert decisions.summary.endswith("to spirit decisions")
    assert "illegal answer to a 'spirit' decision" in decisions.evidence[0]
    assert "dragon" in decisions.evidence[0]


def test_stdout_noise_is_reported_and_sanitised():
    results = quick_check("kododo", broken("stdout-noise"))
    assert failing(results) == {"stdout", "referee"}
    assert "malformed_json" in results["referee"].evidence[0]
    stdout = results["stdout"]
    assert "debug:" in stdout.evidence[0]
    assert not any("\x1b" in line for line in stdout.evidence)


def test_a_bot_that_never_says_hello_fails_the_handshake_and_nothing_else_runs():
    results = quick_check("kododo", broken("silent"), startup_ms=300)
    assert failing(results) == {"handshake"}
    assert results["handshake"].summary.startswith("no hello within 2300 ms (the allowance is 300 ms)")
    assert {r.status for name, r in results.items() if name != "handshake"} == {Status.SKIP}


def test_a_time_out_shows_what_the_bot_wrote_on_stderr_before_it(tmp_path):
    """Issue 36, item 4: a time-out's report carries the bot's stderr of that moment."""
    bot = tmp_path / "thinker.py"
    bot.write_text(f"import sys, time\nsys.path.insert(0, {str(ROOT / 'sample_bots/python')!r})\nimport arenabot\n"
                   "def act(request):\n    sys.stderr.write('still thinking about move 1\\n'); sys.stderr.flush()\n"
                   "    time.sleep(3600)\narenabot.run(act, name='thinker', version='1')\n")
    results = quick_check("kododo", (sys.executable, str(bot)), decision_ms=300, sandbox=False)
    latency = results["latency"]
    assert latency.status is Status.FAIL and latency.timing
    assert "still thinking about move 1" in " ".join(latency.evidence + results["games"].evidence), latency
