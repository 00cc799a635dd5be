"""`python -m bench.bench_checker [--participants P] [--uploads K] [--write]`: the submission checker's
throughput, as it was and as it is (issue 36: "the checker does not keep up with 30 uploaders").

P participants each upload the sample Python bot K times (new version numbers, the same program), all
waiting at once, as a crowd's uploads pile up; the checker of the shipped ladder config (sandbox on, the
real `arena check-bot` and check games against the house bots) judges them. Measured twice in one run,
on one store each: "before", the checker as it was (oldest first, every submission checked, one at a
time, a check's steps one after the other, same priority as the server) and "now" (the fair queue, a
program checked once per participant, `check_workers` checks at once, a check's steps at once, nice 10).
The figures: the time until every participant's newest upload has its verdict, and the checks run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from arena.ladder import checker as checker_module
from arena.ladder.accounts import create_participant
from arena.ladder.checker import Checker
from arena.ladder.config import load
from arena.ladder.db import Database, now
from arena.ladder.states import SubmissionState
from arena.ladder.supervisor import Part
from bench.bench_server import ROOT, _config, _port
from bench.stats import Figure, report, write_section

SAMPLES = ROOT / "sample_bots" / "python"


def _uploads(db: Database, data: Path, participants: int, uploads: int) -> list[int]:
    newest = []
    for p in range(participants):
        who, _ = create_participant(db, f"p{p}")
        for k in range(uploads):
            folder = data / "uploads" / f"p{p}-{k}"
            folder.mkdir(parents=True)
            for name in ("random_bot.py", "arenabot.py"):
                shutil.copy(SAMPLES / name, folder / name)
            (folder / "manifest.json").write_text(json.dumps({"name": "b", "version": f"{p}.{k}", "command": "python3 random_bot.py"}))
            manifest = json.dumps({"name": "b", "version": f"{p}.{k}", "command": ["python3", str(folder / "random_bot.py")]})
            with db.write() as conn:
                cur = conn.execute("INSERT INTO submissions (participant_id, created, status, manifest, folder) VALUES (?, ?, ?, ?, ?)",
                                   (who.id, now(), SubmissionState.RECEIVED, manifest, str(folder)))
            if k == uploads - 1:
                newest.append(int(cur.lastrowid or 0))
    return newest


def measure(participants: int, uploads: int, before: bool) -> tuple[float, int, int]:
    """Seconds until every participant's newest upload is judged, checks run, submissions passed."""
    saved = (Checker.FAIR, Checker.REUSE, checker_module.PARALLEL_STEPS, checker_module.CHECK_NICE)
    if before:
        Checker.FAIR, Checker.REUSE, checker_module.PARALLEL_STEPS, checker_module.CHECK_NICE = False, False, False, 0
    runs = [0]
    real = checker_module.check_submission

    def counted(*args: Any, **kwargs: Any) -> checker_module.Verdict:
        runs[0] += 1
        return real(*args, **kwargs)

    checker_module.check_submission = counted
    try:
        with tempfile.TemporaryDirectory() as tmp:
            config = load(_config(Path(tmp), _port()))
            if before:
                from dataclasses import replace

                config = replace(config, ladder=replace(config.ladder, check_workers=1))
            config.data.mkdir(parents=True, exist_ok=True)
            db = Database(config.data / "server.sqlite")
            newest = _uploads(db, config.data, participants, uploads)
            checker = Checker(db, config, True, lambda _bot: None)
            part = Part("checker", checker.run, 600.0)
            thread = threading.Thread(target=checker.run, args=(part,), daemon=True)
            began = time.monotonic()
            thread.start()
            while any(db.one("SELECT finished FROM submissions WHERE id = ?", s)["finished"] is None for s in newest):  # type: ignore[index]
                time.sleep(0.2)
            took = time.monotonic() - began
            part.stopping.set()
            thread.join(300)
            passed = db.one("SELECT COUNT(*) AS n FROM submissions WHERE status = ?", SubmissionState.PASSED)
            db.close()
            return took, runs[0], int(passed["n"]) if passed else 0
    finally:
        checker_module.check_submission = real
        Checker.FAIR, Checker.REUSE, checker_module.PARALLEL_STEPS, checker_module.CHECK_NICE = saved


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--participants", type=int, default=4)
    parser.add_argument("--uploads", type=int, default=3)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    load0 = os.getloadavg()[0]
    rows = ["| checker | every participant's newest upload judged after | checks run | passed |", "|---|---|---|---|"]
    figures = []
    for label, before in (("before (oldest first, each upload, one at a time, steps in turn)", True),
                          ("now (fair queue, once per program, 2 at a time, steps at once, nice 10)", False)):
        took, runs, passed = measure(args.participants, args.uploads, before)
        rows.append(f"| {label} | {took:.1f} s | {runs} | {passed} |")
        figures.append(Figure(f"checker, {args.participants} participants x {args.uploads} uploads: {label.split(' (')[0]}",
                              "s until judged", (took,)))
    rows += ["", f"{args.participants} participants each uploaded the sample Python bot {args.uploads} times (the same "
             "program, new version numbers), all waiting at once; the shipped ladder config's check (sandbox on, "
             f"check-bot --quick and 2 games against the house bots). Load average at the start {load0:.1f}, at the end "
             f"{os.getloadavg()[0]:.1f}, on {os.cpu_count()} cores (a machine shared with other work)."]
    command = f"python -m bench.bench_checker --participants {args.participants} --uploads {args.uploads} --write"
    text = report(command, "the real check, sandbox on", rows, figures)
    print(text)
    if args.write:
        write_section(ROOT / "BENCHMARKS.md", "checker", "The submission checker under a pile of uploads (issue 36)", text)


if __name__ == "__main__":
    main()
