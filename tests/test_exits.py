"""One description of how a process ended, for a plain process and for bubblewrap's 128 + N."""

from __future__ import annotations

from arena.exits import describe_exit, signal_of


def test_plain_and_sandboxed_exits() -> None:
    assert describe_exit(None) == "still running"
    assert describe_exit(0) == "exited with status 0" and describe_exit(3) == "exited with status 3"
    assert describe_exit(-9) == describe_exit(137, sandboxed=True) == "killed by signal SIGKILL"
    assert describe_exit(137) == "exited with status 137"  # a plain process may exit with 137 itself
    assert describe_exit(-64) == "killed by signal 64" or describe_exit(-64).startswith("killed by signal SIGRTM")
    assert signal_of(129, sandboxed=True) == 1 and signal_of(128, sandboxed=True) is None and signal_of(200, True) is None
