"""A child process that dies with the one that started it (Linux's PR_SET_PDEATHSIG): the server's check
steps (`arena check-bot`, `arena play`), so a `kill -9` of the server takes them with it, and through
bubblewrap's `--die-with-parent` the sandboxed bots under them, instead of their living on until their own
time-outs. The signal is tied to the starting *thread*: start such a child from a thread that outlives it.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from typing import Callable

PR_SET_PDEATHSIG = 1


def die_with_parent() -> Callable[[], None] | None:
    """A preexec function that makes the child get SIGKILL when its parent dies (None where the OS has none)."""
    if not sys.platform.startswith("linux"):
        return None
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    parent = os.getpid()

    def apply() -> None:
        prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        if os.getppid() != parent:  # the parent died between the fork and the prctl: no signal will come
            os._exit(1)

    return apply
