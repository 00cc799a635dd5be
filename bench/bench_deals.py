"""Processes per deal (issue 21): bot starts of the demo tournament at `-j 1`, in-process, with the
slots as shipped and with one slot per entrant (restart where a deal would repeat).

    .venv/bin/python -m bench.bench_deals            # prints games, wall time, bot starts and their time

The whole-process figures of BENCHMARKS.md ("Duplicate deals without memory") are `arena run
configs/kododo.yaml --fresh` timed with /usr/bin/time, interleaved with the build before the slots.
"""

from __future__ import annotations

import time
from pathlib import Path

from arena.referee import session
from arena.tournament.config import tournament as tconfig
from arena.tournament.run.runner import run
from arena.tournament.run.slots import Slots

ROOT = Path(__file__).resolve().parents[1]


def measure(slots_per_entrant: int | None) -> str:
    """One fresh demo run at -j 1; `slots_per_entrant` None: as shipped (the table's seats)."""
    original_start = session.BotProcess.start.__func__  # type: ignore[attr-defined]
    original_init = Slots.__init__
    stats = {"n": 0, "s": 0.0}

    def timed(cls, *args, **kw):  # type: ignore[no-untyped-def]
        started = time.monotonic()
        try:
            return original_start(cls, *args, **kw)
        finally:
            stats["n"] += 1
            stats["s"] += time.monotonic() - started

    def sized(self, size, scratch_root):  # type: ignore[no-untyped-def]
        original_init(self, slots_per_entrant or size, scratch_root)

    session.BotProcess.start = classmethod(timed)  # type: ignore[method-assign]
    Slots.__init__ = sized  # type: ignore[method-assign]
    try:
        config = tconfig.load(ROOT / "configs" / "kododo.yaml")
        started = time.monotonic()
        summary = run(config, concurrency=1, fresh=True, quiet=True)
        wall = time.monotonic() - started
    finally:
        session.BotProcess.start = classmethod(original_start)  # type: ignore[method-assign]
        Slots.__init__ = original_init  # type: ignore[method-assign]
    label = "slots as shipped" if slots_per_entrant is None else f"{slots_per_entrant} slot(s) per entrant"
    return f"{label}: {summary.played} games in {wall:.1f} s; {stats['n']} bot starts taking {stats['s']:.1f} s"


if __name__ == "__main__":
    for size in (None, 1):
        print(measure(size))
