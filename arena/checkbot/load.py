"""How busy the machine was while check-bot judged a bot's timing: a verdict about time-outs and
latency means something only if the bot got the CPU when it asked for it.

Two measures, both machine-independent: the slowdown of a short CPU-bound spin (its wall time over
the CPU time it got: 1.0 on an idle core, about the run-queue length on a busy one), and the 1-minute
load average per core (`/proc/loadavg`), which covers a whole check. Either over its threshold and
the machine was too busy to judge timing: a failed check is run again, and the report says so.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Callable

BUSY_SLOWDOWN = 1.5  # a spin that took half again its CPU time: something else had the core
BUSY_LOAD_PER_CORE = 1.5  # more runnable tasks than cores, by half
SPIN_S = 0.03  # CPU time of the calibration spin


@dataclass(frozen=True)
class Load:
    slowdown: float  # wall time / CPU time of the calibration spin
    per_core: float  # 1-minute load average / cores (0 where /proc/loadavg cannot be read)

    @property
    def busy(self) -> bool:
        return self.slowdown > BUSY_SLOWDOWN or self.per_core > BUSY_LOAD_PER_CORE

    def describe(self) -> str:
        return f"load {self.per_core:.1f} a core, a CPU-bound spin took {self.slowdown:.1f}x its CPU time"

    def worst(self, other: "Load") -> "Load":
        return Load(max(self.slowdown, other.slowdown), max(self.per_core, other.per_core))


def load_per_core(path: str = "/proc/loadavg") -> float:
    try:
        with open(path, encoding="ascii") as fh:
            one_minute = float(fh.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 0.0
    return one_minute / (os.cpu_count() or 1)


def spin_slowdown(spin_s: float = SPIN_S, wall: Callable[[], float] = time.perf_counter,
                  cpu: Callable[[], float] = time.thread_time) -> float:
    """Burn `spin_s` of this thread's CPU time; how much longer than that it took on the wall clock."""
    w0, c0 = wall(), cpu()
    x = 0
    while cpu() - c0 < spin_s:
        for i in range(2000):
            x ^= i
    used = cpu() - c0
    return (wall() - w0) / used if used > 0 else 1.0


def measure() -> Load:
    return Load(spin_slowdown(), load_per_core())
