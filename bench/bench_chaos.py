"""`python -m bench.bench_chaos [--kills N] [--write]`: the chaos run of issue 36 and what it counts.

A real `arena serve` (the test config of tests/server/server.py: Kododo 2p, two house bots, one worker,
sandbox on) is SIGKILLed at N random moments (each once the ladder has games in flight, then 0.2-3 s later) with uploads and their checks, pauses and
resumes, bots disabled and enabled, and reads in flight, and restarted each time on the same data
(tests/server/chaos.py). Counted at the end: games stored, lost, stored twice, left pending, submissions
stuck, ratings that differ from a recomputation, `PRAGMA integrity_check`; and the server process's own
CPU over the rounds' wall time (its share of one core while the ladder, checks and requests run).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from bench.stats import write_section

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    from tests.server.chaos import run_chaos

    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        report = run_chaos(Path(tmp), args.kills, log=lambda m: print(m, flush=True))
    took = time.monotonic() - started
    share = 100 * report.server_cpu_s / report.wall_s if report.wall_s else 0.0
    cores = os.cpu_count() or 1
    rows = [("kills (SIGKILL of the server, restarted each time)", report.kills), ("games stored at the end", report.games),
            ("games lost", report.lost), ("games stored twice", report.doubled), ("games left pending", report.pending),
            ("submissions", report.submissions), ("submissions stuck", report.stuck),
            ("bots whose rating differs from a recomputation", report.rating_mismatches),
            ("stored public records whose sha256 differs", report.bad_records), ("PRAGMA integrity_check", report.integrity),
            ("server's own CPU while it ran (share of one core)", f"{share:.1f} % ({report.server_cpu_s:.1f} s of "
                                                                  f"{report.wall_s:.0f} s; {share / cores:.1f} % of the machine)")]
    table = "| figure | value |\n|---|---|\n" + "\n".join(f"| {k} | {v} |" for k, v in rows)
    text = (f"Command: `.venv/bin/python -m bench.bench_chaos --kills {args.kills} --write` ({took:.0f} s). "
            "`tests/server/test_chaos.py` runs the same loop with 20 kills (ARENA_CHAOS_KILLS) in `make test`.\n\n"
            f"{table}\n\nThe server's CPU share here is over the chaos rounds (starts, uploads, checks, ladder games, "
            "admin actions), a busier mix than the steady ladder of the competition-server section above.")
    print(text)
    if args.write:
        write_section(ROOT / "BENCHMARKS.md", "chaos", "Chaos: kill -9 of a busy arena serve (issue 36)", text)


if __name__ == "__main__":
    main()
