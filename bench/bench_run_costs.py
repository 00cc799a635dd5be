"""What `arena run -j 2` costs outside the referee (issue 25, goal 1): CPU per decision by process role,
this tree interleaved with an earlier build of arena.

`python -m bench.bench_run_costs --baseline DIR --commit COMMIT [--repeats 3] [--rounds 467] [--write]`, where DIR holds an
earlier build's `arena` package (`git archive COMMIT arena | tar -x -C DIR`). Each repeat runs
`arena run CONFIG -j 2 --fresh` (the console script of this tree's virtual environment, so the same
interpreter and libraries) on bench_throughput's config (Kododo 4p, 4 entrants all the instant C bot with
distinct seeds, round-robin, cyclic rotations, `rounds` x 4 rotations), once with PYTHONPATH=DIR (the
earlier build) and once with this tree, the order alternating. CPU comes from /proc as bench_throughput
reads it (schedstat, every ~20 ms, each pid's last value), by role: the coordinator (the `arena` process
itself: schedule, store, ratings, progress, standings), its workers (every other Python process: the
two workers, multiprocessing's resource tracker), bubblewrap, the bots; each over the store's own
`SUM(decisions)`. Before each, a 1-round run (4 games) gives what a run pays once (start-up, the
workers' imports and bots, the standings) in ms of CPU. Both builds are byte-compiled first. With
`--shared-extensions` the baseline gets this tree's mypyc extensions for the compiled modules it has
unchanged (`git archive` holds none), so that compiled is compared with compiled. A record, not a target: `python -m bench` keeps the section as it is.
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


def share_extensions(baseline: Path) -> list[str]:
    """Copy this tree's mypyc extensions into the baseline's package for every compiled module whose source
    the baseline has unchanged (and the group's shared library they load): then only what changed since
    differs between the builds, not compiled against interpreted. Returns the modules left interpreted."""
    import shutil
    import tomllib

    compiled = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["arena"]["compiled"]
    left = []
    for source in compiled:
        theirs = baseline / source
        if not theirs.is_file() or theirs.read_bytes() != (ROOT / source).read_bytes():
            left.append(source)
            continue
        for built in (ROOT / source).parent.glob(Path(source).stem + ".cpython-*.so"):
            shutil.copy2(built, theirs.parent / built.name)
    for group in (ROOT / "arena").glob("_native__mypyc.cpython-*.so"):
        shutil.copy2(group, baseline / "arena" / group.name)
    return left


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
    parser.add_argument("--shared-extensions", action="store_true",
                        help="give the baseline this tree's compiled extensions where its compiled sources are unchanged")
    parser.add_argument("--write", action="store_true", help="write the section into BENCHMARKS.md")
    args = parser.parse_args()
    if not (args.baseline / "arena" / "__init__.py").is_file():
        sys.exit(f"{args.baseline} holds no arena package (git archive COMMIT arena | tar -x -C {args.baseline})")
    built = "interpreted (git archive holds no compiled extension)"
    if args.shared_extensions:
        left = share_extensions(args.baseline)
        built = "with this tree's compiled extensions" + (f", but for {', '.join(left)} (changed since: interpreted)" if left else "")
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
    command = (f"git archive {args.commit} arena | tar -x -C DIR; .venv/bin/python -m bench.bench_run_costs "
               f"--baseline DIR --commit {args.commit} --repeats {args.repeats} --rounds {args.rounds}"
               f"{' --shared-extensions' if args.shared_extensions else ''} --write")
    note = (f"{time.perf_counter() - started:.0f} s; load average at the start {' / '.join(load[:3])}; "
            f"Kododo 4p, 4 instant C bots, {args.rounds} rounds x 4 rotations, sandboxed (the default); "
            f"the baseline {built}")
    text = report(command, note, summary(figures, list(builds)), figures)
    print(text)
    if args.write:
        write_section(ROOT / "BENCHMARKS.md", "run-costs", TITLE, text)


if __name__ == "__main__":
    main()
