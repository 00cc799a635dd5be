"""A `kill -9` of the server takes its check's processes with it (issue 36): the check's steps
(`arena check-bot`, `arena play`) get SIGKILL when the process that started them dies (PR_SET_PDEATHSIG,
arena/sandbox/parent.py), and the sandboxed bot under them dies with its `arena` (bubblewrap's
--die-with-parent). Without it (the control), the step and its bot live on, here waiting for a hello that
never comes until the 60 s start-up allowance ends.

Real processes, a real `kill -9`: a stand-in for the server process runs the checker's own `_run` on a
check of a bot that hangs before its hello, from a thread as the checker does."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.process, pytest.mark.sandbox]

SERVER = """import sys, threading
from arena.ladder import checker
checker.DIE_WITH_SERVER = sys.argv[1] == "protected"
argv = checker.ARENA + ["check-bot", "kododo", "--quick", "--startup-ms", "60000", "--sandbox", "--", "python3", sys.argv[2]]
threading.Thread(target=checker._run, args=(argv, sys.argv[3], 300.0)).start()
print("started", flush=True)
threading.Event().wait()
"""

HANG = "import time\ntime.sleep(600)  # never says hello\n"


def _marked(marker: str) -> list[int]:
    """Processes whose command line holds `marker` (the check-bot step, bwrap and the bot under it)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
                state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if marker.encode() in cmdline and state != "Z":
                found.append(int(entry))
    return found


def _wait(predicate: object, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize("mode", ["protected", "control-unprotected"])
def test_the_checks_processes_die_with_the_server(tmp_path: Path, mode: str) -> None:
    folder = tmp_path / f"bot-{mode}"
    folder.mkdir()
    hang = folder / "hang_bot.py"
    hang.write_text(HANG)
    marker = str(hang)
    server = subprocess.Popen([sys.executable, "-c", SERVER, mode, marker, str(folder)], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None and server.stdout.readline().strip() == "started"
        # the step, bwrap and the bot (its python3 under bwrap): the check is waiting for the hello
        assert _wait(lambda: len(_marked(marker)) >= 3, 30.0), _marked(marker)
        before = _marked(marker)
        os.kill(server.pid, signal.SIGKILL)
        server.wait(10)
        gone = _wait(lambda: not _marked(marker), 5.0)
        if mode == "protected":
            assert gone, f"left after the kill -9: {_marked(marker)} of {before}"
        else:
            assert not gone, "the control: without the protection the check's processes outlive the server"
    finally:
        for pid in _marked(marker):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if server.poll() is None:
            server.kill()
