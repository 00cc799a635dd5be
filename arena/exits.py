"""The one description of how a process ended, for fault details, logs and check-bot's reports."""

from __future__ import annotations

import signal


def signal_of(returncode: int | None, sandboxed: bool = False) -> int | None:
    """The signal that ended the process, if one did. Sandboxed, the process is bubblewrap, which exits
    with 128 + N when the bot died of signal N."""
    if returncode is None:
        return None
    if returncode < 0:
        return -returncode
    return returncode - 128 if sandboxed and 128 < returncode < 128 + 65 else None


def describe_exit(returncode: int | None, sandboxed: bool = False) -> str:
    """`still running`, `exited with status N` or `killed by signal SIGKILL` (the number when unnamed)."""
    if returncode is None:
        return "still running"
    sig = signal_of(returncode, sandboxed)
    if sig is None:
        return f"exited with status {returncode}"
    try:
        return f"killed by signal {signal.Signals(sig).name}"
    except ValueError:
        return f"killed by signal {sig}"
