"""One CPU per worker: each local worker, and every bot it starts, runs on a CPU of its own.

Why: a decision is a hand-off between the referee and a bot through a pipe. When the bot waits on
another CPU, every request and every answer wakes a process across CPUs, and on a virtual machine that
is an interrupt to the host; the bot's and the referee's caches are cold each time. With the worker and
its bots on one CPU the hand-off is a switch on that CPU. Measured as a user runs it (BENCHMARKS.md,
"Tournament throughput as users run it"): the same tournament of instant bots runs faster and the
processes' CPU per decision falls (bench/bench_throughput.py, pinned and unpinned interleaved).

It also keeps concurrent games apart: a bot thinking hard takes its own worker's CPU, never the CPU
another game's bots are timed on.

When: only where it cannot take CPU from a bot.
- As many workers as usable CPUs, or a multiple of it: every CPU then plays the same number of games
  (with fewer workers, a game's bots may use the CPUs no worker has).
- Every entrant sandboxed with a CPU share of at most one CPU (`sandbox.cpus`, 1 by default): a bot
  allowed more CPUs, or running outside the sandbox where nothing bounds it, keeps every CPU.
`arena run --no-pin` (and `arena match --no-pin`) turns it off.
"""

from __future__ import annotations

import os
from typing import Sequence

from arena.tournament.config.entrants import EntrantConfig


def usable_cpus() -> tuple[int, ...]:
    """The CPUs this process may run on (a `taskset` or a container's cpuset narrows them)."""
    return tuple(sorted(os.sched_getaffinity(0)))


def one_cpu_at_most(entrant: EntrantConfig) -> bool:
    """Whether the sandbox bounds all the entrant's processes together to one CPU or less."""
    policy = entrant.sandbox
    return policy.enabled and policy.cpus is not None and policy.cpus <= 1


def worker_cpus(workers: int, entrants: Sequence[EntrantConfig], cpus: Sequence[int]) -> tuple[int, ...] | None:
    """The CPU of each of `workers` workers, or None where pinning could take CPU from a bot."""
    if not cpus or workers < len(cpus) or workers % len(cpus) or not all(one_cpu_at_most(e) for e in entrants):
        return None
    return tuple(cpus[i % len(cpus)] for i in range(workers))


def pin(cpu: int) -> None:
    """Run this process, and every process it starts from now on, on `cpu` only. Where the system refuses
    (the CPU left this process's cpuset since it was chosen), the worker runs unpinned: pinning only saves time."""
    try:
        os.sched_setaffinity(0, {cpu})
    except OSError:
        pass
