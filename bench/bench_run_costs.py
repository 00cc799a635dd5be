"""What `arena run -j 2` costs outside the referee (issue 25, goal 1): CPU per decision by process role,
this tree interleaved with an earlier build of arena.

`python -m bench.bench_run_costs --baseline DIR --commit COMMIT [--repeats 3] [--rounds 467] [--write]`, where DIR holds an
earlier build's `arena` package (`git archive COMMIT arena | tar -x -C DIR`, or a worktree built in place). Each repeat runs
`arena run CONFIG -j 2 --fresh` (the console script of this tree's virtual environment, so the same
interpreter and libraries) on bench_throughput's config (Kododo 4p, 4 entrants all the instant C bot with
distinct seeds, round-robin, cyclic rotations, `rounds` x 4 rotations), once with PYTHONPATH=DIR (the
earlier build) and once with this tree, the order alternating. CPU comes from /proc as bench_throughput
reads it (schedstat, every ~20 ms, each pid's last value), by role: the coordinator (the `arena` process
itself: schedule, store, ratings, progress, standings), its workers (every other Python process: the
two workers, multiprocessing's resource tracker), bubblewrap, the bots; each over the store's own
`SUM(decisions)`. Before each, a 1-round run (4 games) gives what a run pays once (start-up, the
workers' imports and bots, the standings) in ms of CPU. Both builds are byte-compiled first. A
baseline from `git archive` holds no compiled extension (it runs interpreted); to compare compiled with
compiled, give a worktree of the commit built in place: `git worktree add DIR COMMIT; (cd DIR &&
$PWD/.venv/bin/python setup.py build_ext --inplace)`. A record, not a target: `python -m bench` keeps the section as it is.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench.bench_throughput import ARENA, ROOT, TreeCpu, _pids, write_config
from bench.stats import Figure, byte_compile, fmt, report, write_section

TITLE = "What `arena run -j 2` costs outside the referee: CPU per decision by process role, before and after (issue 25, goal 1)"
ROLES = ("coordinator", "workers", "bwrap", "bots", "other")


def run_once(folder: Path, config: Path, bot: str, baseline: Path | None) -> tuple[dict[str, float], int]:
    """(CPU s by role, decisions) of one `arena run CONFIG -j 2 --fresh`, with the baseline build on the path if given."""
    env = dict(os.environ)
    if baseline is not None:
        env["PYTHONPATH"] = str(baseline)
    outside = _pids()
    proc = subprocess.Popen([str(ARENA), "run", str(config), "-j", "2", "--fresh"], cwd=folder, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    poller = TreeCpu(proc.pid, outside, {})
    thread = threading.Thread(target=poller.poll, daemon=True)
    thread.start()
    _, err = proc.communicate()
    poller.stop.set()
    thread.join()
    if proc.returncode != 0:
        raise RuntimeError(f"arena run exited with {proc.returncode}: {err[-2000:]}")
    with sqlite3.connect(folder / f"{config.stem}.sqlite") as db:
        (decisions,) = db.execute("SELECT SUM(decisions) FROM games").fetchone()
    cpu = dict.fromkeys(ROLES, 0.0)
    for pid, (comm, seconds) in poller.last.items():
        if pid == proc.pid:
            role = "coordinator"
        elif comm.startswith("python") or comm == "arena":
            role = "workers"
        elif comm == "bwrap":
            role = "bwrap"
        elif comm == Path(bot).name[:15]:
            role = "bots"
        else:
            role = "other"
        cpu[role] += seconds
    return cpu, int(decisions)


def summary(figures: list[Figure], labels: list[str]) -> list[str]:
    """One line per role: the medians of the two builds and their difference."""
    median = {f.name: f.median for f in figures}
    before, after = labels
    lines = []
    for role in (*ROLES[:4], "coordinator + workers (arena's own)"):
        b, a = median[f"{before}: {role}"], median[f"{after}: {role}"]
        lines.append(f"- {role}: {fmt(b)} -> {fmt(a)} us/decision ({a - b:+.2f}), medians of interleaved runs")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True, help="a folder holding an earlier build's arena package")
    parser.add_argument("--commit", required=True, help="the commit the baseline was archived from, for the section")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=467)
    parser.add_argument("--write", action="store_true", help="write the section into BENCHMARKS.md")
    args = parser.parse_args()
    if not (args.baseline / "arena" / "__init__.py").is_file():
        sys.exit(f"{args.baseline} holds no arena package (git archive COMMIT arena | tar -x -C {args.baseline})")
    built = any((args.baseline / "arena").rglob("*.so"))  # a worktree built in place: compiled as this tree is
    from bench.bench_referee import ensure_c_bot

    bot = ensure_c_bot()
    byte_compile(args.baseline / "arena")  # both builds, as installed packages are
    load = Path("/proc/loadavg").read_text().split()
    started = time.perf_counter()
    values: dict[tuple[str, str], list[float]] = {}
    builds = {f"before ({args.commit})": args.baseline.resolve(), "this tree": None}
    with tempfile.TemporaryDirectory(prefix="bench-run-costs-") as tmp:
        folder = Path(tmp)
        config = write_config(folder, bot, args.rounds)
        one = write_config(folder, bot, 1, name="one-round")
        for r in range(args.repeats):
            order = list(builds.items()) if r % 2 == 0 else list(builds.items())[::-1]
            for label, path in order:
                fixed, _ = run_once(folder, one, bot, path)  # what a run pays once: start-up, workers, standings
                for role in ("coordinator", "workers"):
                    values.setdefault((f"{label}, a 1-round run (4 games): {role}", "ms of CPU"), []).append(1e3 * fixed[role])
                cpu, decisions = run_once(folder, config, bot, path)
                us = {role: 1e6 * seconds / decisions for role, seconds in cpu.items()}
                for role in ROLES:
                    values.setdefault((f"{label}: {role}", "us/decision"), []).append(us[role])
                values.setdefault((f"{label}: coordinator + workers (arena's own)", "us/decision"), []).append(
                    us["coordinator"] + us["workers"])
                print(f"repeat {r + 1} {label}: " + ", ".join(f"{k} {fmt(v)}" for k, v in us.items()), file=sys.stderr, flush=True)
    figures = [Figure(name, unit, tuple(v)) for (name, unit), v in values.items()]
    fetch = (f"git worktree add DIR {args.commit}; (cd DIR && $PWD/.venv/bin/python setup.py build_ext --inplace)" if built
             else f"git archive {args.commit} arena | tar -x -C DIR")
    command = (f"{fetch}; .venv/bin/python -m bench.bench_run_costs "
               f"--baseline DIR --commit {args.commit} --repeats {args.repeats} --rounds {args.rounds} --write")
    note = (f"{time.perf_counter() - started:.0f} s; load average at the start {' / '.join(load[:3])}; "
            f"Kododo 4p, 4 instant C bots, {args.rounds} rounds x 4 rotations, sandboxed (the default); "
            f"the baseline {'built with its own compiled extensions' if built else 'interpreted (git archive holds no compiled extension)'}")
    text = report(command, note, summary(figures, list(builds)), figures)
    print(text)
    if args.write:
        write_section(ROOT / "BENCHMARKS.md", "run-costs", TITLE, text)


if __name__ == "__main__":
    main()
