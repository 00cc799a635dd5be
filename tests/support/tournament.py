"""Helpers to write small tournament configs around the deterministic test bot."""

from __future__ import annotations

import os
import sqlite3
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

from click.testing import CliRunner

from arena.cli import main
from arena.jsonvalue import loads

REPO = Path(__file__).parents[2]
BOT = REPO / "tests" / "tournament" / "bots" / "det_bot.py"
ARENA = [str(Path(sys.executable).parent / "arena")]  # the installed command, run as a user runs it
SECRET = "0123456789abcdef0123456789abcdef"  # one secret for runs whose results are compared


def det_entrants(count: int, delay_ms: float = 0.0) -> list[dict[str, Any]]:
    return [
        {"name": f"bot{i}", "command": ["{python}", str(BOT), "--salt", f"s{i}", "--delay-ms", str(delay_ms)]}
        for i in range(count)
    ]


def small(rounds: int, delay_ms: float = 0.0, **extra: Any) -> dict[str, Any]:
    return {
        "name": "small",
        "game": "kododo",
        "players": 3,
        "entrants": det_entrants(4, delay_ms),
        "schedule": {"rounds": rounds},
        "seed": 3,
        **extra,
    }


def standings_json(store: Path) -> list[dict[str, Any]]:
    result = CliRunner().invoke(main, ["standings", "--json", str(store)])
    assert result.exit_code == 0, result.output
    return loads(result.stdout)["standings"]


def stored_count(path: Path) -> int:
    if not path.exists():
        return 0
    try:
        conn = sqlite3.connect(path, timeout=5)
        try:
            return conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.OperationalError:
        return 0


def wait_for(predicate: Callable[[], bool], timeout: float, what: str, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if proc is not None and proc.poll() is not None:
            out, err = proc.communicate()
            raise AssertionError(f"the run ended (status {proc.returncode}) before {what}: {err.decode()}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def group_gone(pgid: int) -> bool:
    """No live process in the group. Zombies do not count: they have exited, and whether pid 1 reaps
    them at once (multiprocessing's resource tracker ends as one) is up to the container."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            state, group = fields[0], int(fields[2])
            if group == pgid and state not in (b"Z", b"X"):
                return False
    return True


def bots_running(marker: str) -> list[int]:
    """Processes whose command line mentions `marker` (our test's private folder): the bots."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if marker.encode() in f.read():
                        pids.append(int(entry))
            except OSError:
                continue
    return pids


def _children(pid: int) -> list[tuple[int, bytes]]:
    """(pid, command line) of each child of `pid`."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    out = []
    for child in map(int, children):
        try:
            out.append((child, Path(f"/proc/{child}/cmdline").read_bytes()))
        except OSError:
            continue
    return out


def worker_pids(pid: int) -> list[int]:
    """The worker processes of the `arena run` coordinator `pid`: the children of its fork server (not
    its resource tracker)."""
    return [worker for server, cmdline in _children(pid) if b"forkserver" in cmdline
            for worker, _ in _children(server)]


def start_run(config: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [*ARENA, "run", "--quiet", "--secret", SECRET, *args, str(config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own group, as a terminal would give it
        cwd=REPO,
        preexec_fn=_ctrl_c_as_a_terminal_gives_it,
    )


def _ctrl_c_as_a_terminal_gives_it() -> None:
    """SIGINT at its default in the run, as a terminal's foreground job has it, whoever started the tests: a
    shell without job control starts its background jobs (`make test &`) with SIGINT ignored, and that
    inherited disposition would make the run ignore the Ctrl-C the tests send."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
