"""`arena standings STORE` as a user runs it: the whole process, defaults, on stores of 100,000 and
1,000,000 games; wall and CPU time and peak memory from `/usr/bin/time -v`.

`python -m bench.bench_standings [--sizes 100000,1000000] [--repeats 3] [--write]` builds each store
once (Kododo-shaped 4-player games among 4 entrants of different strengths, every deal played under its
4 rotations, as `arena run` stores them), then times, on a fresh copy each repeat (at most 2 repeats
at a million games):
- cold: nothing cached (a store written by an import): rate every game, bootstrap the intervals;
- after a run: the ratings cached (as `arena run` leaves them), the intervals not (a game was added);
- warm: nothing new since the last call: both read from the store's caches.
Each call's output must equal the first cold one's (the caches change no figure). `--write` replaces
this benchmark's section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

from arena.core.result import Played
from arena.core.scheduled import ScheduledGame
from arena.results.store import Store, StoredGame
from bench.stats import Figure, write_section

ROOT = Path(__file__).resolve().parents[1]
ENTRANTS = [("a", ["a"]), ("b", ["b"]), ("c", ["c"]), ("d", ["d"])]
COMMAND = ".venv/bin/python -m bench.bench_standings --write"


def games(count: int, first: int = 0, seed: int = 1) -> Iterator[StoredGame]:
    rnd = random.Random(seed)
    strength = (0.0, 1.0, 2.0, 3.0)  # points ~ N(20 + 6 strength, 30): about one game in 20 has a tie
    for i in range(first, first + count):
        r = i % 4
        seats = tuple((r + s) % 4 for s in range(4))
        points = tuple(round(rnd.gauss(20 + 6 * strength[e], 30)) for e in seats)
        ranks = tuple(1 + sum(1 for q in points if q > p) for p in points)
        yield StoredGame(
            ScheduledGame(index=i, round=i // 4, table=0, rotation=r, seats=seats, seed=i // 4),
            Played(points=points, tiebreaks=((),) * 4, ranks=ranks, game_ranks=ranks, faults=(), versions=("1",) * 4,
                   decisions=72, duration_s=0.01),
            game_id=f"g{i}", replay_path=None,
        )


def build_store(path: Path, count: int) -> Path:
    with Store.create_or_resume(path, name="bench", game="kododo", fingerprint="bench", identity={},
                                entrants=ENTRANTS, total_games=count + 4) as store:
        for start in range(0, count, 100_000):
            store.record_many(list(games(min(100_000, count - start), first=start, seed=start)))
    return path


def timed(store: Path) -> tuple[dict[str, float], str]:
    """One `arena standings STORE`: (wall s, user s, sys s, peak RSS MB), and its output."""
    with tempfile.NamedTemporaryFile("r") as fmt:
        proc = subprocess.run(
            ["/usr/bin/time", "-f", "%e %U %S %M", "-o", fmt.name, str(ROOT / ".venv/bin/arena"), "standings", str(store)],
            capture_output=True, text=True, check=True,
        )
        wall, user, sys_, rss = fmt.read().split()[-4:]
    return {"wall": float(wall), "cpu": float(user) + float(sys_), "rss": int(rss) / 1024}, proc.stdout


def measure(count: int, repeats: int, tmp: Path) -> list[Figure]:
    pristine = build_store(tmp / f"pristine-{count}.sqlite", count)
    runs: dict[str, list[dict[str, float]]] = {"cold": [], "after a run": [], "warm": []}
    reference = None
    for _ in range(repeats):
        db = tmp / "copy.sqlite"
        shutil.copy(pristine, db)
        for kind in ("cold", "after a run", "warm"):
            if kind == "after a run":  # one more game: the ratings cache covers the old ones, the intervals are stale
                with Store.open_existing(db) as store:
                    store.record_many(list(games(1, first=count, seed=99)))
                    n = count + 1
            figures, out = timed(db)
            runs[kind].append(figures)
            if kind == "cold":
                reference = out if reference is None else reference
                assert out == reference, "the standings changed between repeats"
        _, again = timed(db)  # warm once more: the same output as the call that filled the cache
        _, fresh = timed(db)
        assert again == fresh
        assert f"{n}/{count + 4} games" in again
    out = []
    for kind, values in runs.items():
        what = f"arena standings, {count:,} games, {kind}"
        out.append(Figure(what, "s wall", tuple(v["wall"] for v in values)))
        out.append(Figure(what, "s CPU (user + sys)", tuple(v["cpu"] for v in values)))
        out.append(Figure(what, "MB peak RSS", tuple(v["rss"] for v in values)))
    return out


TARGETS = {  # (games, kind): (wall s, MB) of issue 25's goal 2
    (100_000, "warm"): (0.3, 300.0),
    (100_000, "cold"): (3.0, 300.0),
    (1_000_000, "cold"): (30.0, 1500.0),
}


def verdicts(figures: list[Figure]) -> list[str]:
    rows = ["| goal 2: `arena standings` | CPU s (median) | wall s (median) | peak MB (median) | target | status |",
            "|---|---|---|---|---|---|"]
    for (count, kind), (seconds, mb) in TARGETS.items():
        what = f"arena standings, {count:,} games, {kind}"
        got = {f.unit: f.median for f in figures if f.name == what}
        if not got:
            continue
        cpu, wall, rss = got["s CPU (user + sys)"], got["s wall"], got["MB peak RSS"]
        ok = cpu < seconds and rss < mb
        rows.append(f"| {count:,} games, {kind} | {cpu:.2f} | {wall:.2f} | {rss:.0f} | < {seconds:g} s, < {mb:g} MB | "
                    f"{'met' if ok else 'MISSED'} (on CPU time) |")
    return rows


def section(figures: list[Figure], elapsed: float, load: tuple[float, float, float]) -> str:
    return "\n".join([
        f"Command: `{COMMAND}` ({elapsed:.0f} s; load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} on "
        f"{os.cpu_count()} cores at the start: wall times include waiting for a core, CPU time does not).",
        "",
        "What is timed: the whole `arena standings STORE` process with its defaults (2,000 resamples, 95%), "
        "from exec to exit, by `/usr/bin/time`; a fresh copy of the store per repeat. cold: nothing cached; "
        "after a run: one game added since (ratings cache fits, intervals recomputed); warm: nothing new.",
        "",
        *verdicts(figures),
        "",
        "| figure | median | range | unit | repeats |",
        "|---|---|---|---|---|",
        *[f.row() for f in figures],
    ])


def run(sizes: list[int], repeats: int) -> tuple[list[Figure], str]:
    started, load = time.perf_counter(), os.getloadavg()
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory() as tmp:
        for count in sizes:
            print(f"standings: {count:,} games ...", file=sys.stderr, flush=True)
            figures += measure(count, repeats if count < 1_000_000 else min(repeats, 2), Path(tmp))  # a cold 1M call: minutes
    return figures, section(figures, time.perf_counter() - started, load)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.bench_standings", description=__doc__)
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--write", action="store_true", help="replace this section of BENCHMARKS.md")
    args = ap.parse_args(argv)
    _, text = run([int(s) for s in args.sizes.split(",")], args.repeats)
    print(text)
    if args.write:
        write_section(ROOT / "BENCHMARKS.md", "standings", "arena standings (issue 25, goal 2)", text)


if __name__ == "__main__":
    main()
