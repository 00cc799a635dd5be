"""Fixtures for the sandbox tests: the C sample bot, host-side process checks, and the machine's support.

The sandbox tests must run (not skip) wherever CI runs: a machine without a working bwrap fails them.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.sandbox.probe import probe

ROOT = Path(__file__).resolve().parents[2]
C_BOT = ROOT / "sample_bots" / "c" / "random_bot"
ESCAPE_BOT = Path(__file__).with_name("bots") / "escape_bot.py"


@pytest.fixture(scope="session", autouse=True)
def sandbox_available() -> None:
    support = probe()
    assert support.sandbox, f"the sandbox tests need bubblewrap with user namespaces: {support.reason}"


def host_processes(needle: bytes) -> list[int]:
    """Live host pids whose command line contains `needle` (read from the host's /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            stat = Path(f"/proc/{entry}/stat").read_bytes()
        except OSError:
            continue
        state = stat[stat.rfind(b")") + 2 :].split()[0]
        if needle in cmdline and state not in (b"Z", b"X"):
            found.append(int(entry))
    return found


def program_pids(program: str) -> list[int]:
    """Host pids of processes whose argv[0] is `program` (the bot itself, not the bwrap around it)."""
    return [pid for pid in host_processes(program.encode()) if Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0] == program.encode()]
