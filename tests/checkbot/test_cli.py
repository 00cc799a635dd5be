"""`arena check-bot` through the command line: both ways to give the bot, --json, the exit status."""

from __future__ import annotations

import subprocess
import sys

from arena.jsonvalue import loads
from arena.sandbox.probe import probe

from .conftest import BROKEN, ROOT
import pytest

pytestmark = pytest.mark.process


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from arena.cli import main; main()", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_json_report_and_zero_exit_for_a_good_bot():
    done = arena("check-bot", "kododo", "--quick", "--decision-ms", "5000", "--json", "--", sys.executable, str(BROKEN), "ok")
    assert done.returncode == 0, done.stderr
    report = loads(done.stdout)
    assert report["passed"] is True and report["bot"]["name"] == "broken-ok"
    assert [c["name"] for c in report["checks"]][:2] == ["handshake", "games"]
    assert report["sandbox"] is probe().sandbox  # on by default wherever it can run, as `arena play`


def test_no_sandbox_says_so_and_the_report_shows_it():
    done = arena("check-bot", "kododo", "--quick", "--no-sandbox", "--decision-ms", "5000", "--json", "--",
                 sys.executable, str(BROKEN), "ok")
    assert done.returncode == 0, done.stderr
    assert loads(done.stdout)["sandbox"] is False
    assert "sandbox off (--no-sandbox)" in done.stderr


def test_text_report_and_exit_1_for_a_broken_bot():
    done = arena("check-bot", "kododo", "--quick", "--decision-ms", "5000", "--bot", f"{sys.executable} {BROKEN} stdout-noise")
    assert done.returncode == 1
    assert "FAIL  stdout" in done.stdout and done.stdout.rstrip().splitlines()[-1].startswith("FAILED")


def test_a_missing_command_is_a_one_line_error():
    done = arena("check-bot", "kododo")
    assert done.returncode == 2
    assert done.stderr.startswith("arena: error: no bot command") and "Traceback" not in done.stderr


def test_an_unknown_game_or_a_missing_program_is_a_one_line_error():
    for args in (("nogame", "--", "true"), ("kododo", "--", "/nonexistent/bot"), ("kododo", "--bot", "true", "--", "true")):
        done = arena("check-bot", *args)
        assert done.returncode == 2, done
        assert done.stderr.startswith("arena: error: ") and "Traceback" not in done.stderr
