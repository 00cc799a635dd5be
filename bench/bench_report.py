"""The HTML report as a user makes it: `arena report` as a whole process, its size, and opening a page.

`python -m bench.bench_report [--games N] [--repeats R] [--write]` builds (in a temporary folder) a store
of N synthetic 4-player games among 8 entrants (one game in 50 with a fault, with stderr) and times
`arena report --no-viewers` on it; plays the Kolpa! demo (`arena run configs/kolpa.yaml`, 40 games,
with replays) and times `arena report` of it with a viewer page per game, measures the folder, and
opens one viewer page from file:// in headless Chromium. `--write` replaces this benchmark's section
of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import tempfile
import time
from pathlib import Path

import yaml

from arena.core.faults import Fault, FaultKind
from arena.core.result import Played
from arena.core.scheduled import ScheduledGame
from arena.results.store import Store, StoredGame
from bench.stats import Figure, write_section

ROOT = Path(__file__).resolve().parents[1]

ENTRANTS = [(f"bot-{k}", [f"bot-{k}"]) for k in range(8)]
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]


def synthetic_games(count: int, seed: int = 1) -> list[StoredGame]:
    rnd = random.Random(seed)
    out = []
    for i in range(count):
        seats = tuple(rnd.sample(range(8), 4))
        points = tuple(round(rnd.gauss(20 + 3 * e, 25)) for e in seats)
        ranks = tuple(1 + sum(1 for q in points if q > p) for p in points)
        faults: tuple[Fault, ...] = ()
        if i % 50 == 0:
            faults = (Fault(1, FaultKind.TIMEOUT, 3, 4, "no answer within 1000 ms", ("thinking...", "still thinking")),)
        out.append(StoredGame(
            ScheduledGame(index=i, round=i // 70, table=i % 70, rotation=0, seats=seats, seed=i),
            Played(points=points, tiebreaks=((),) * 4, ranks=ranks, game_ranks=ranks, faults=faults, versions=("1",) * 4,
                   decisions=72, duration_s=0.01),
            game_id=f"kododo-{i}", replay_path=None,
        ))
    return out


def open_seconds(url: str, repeats: int, ready: str) -> list[float]:
    from playwright.sync_api import sync_playwright

    out = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            for _ in range(repeats):
                page = browser.new_page()
                started = time.perf_counter()
                page.goto(url, wait_until="load")
                page.wait_for_selector(ready)
                out.append(time.perf_counter() - started)
                page.close()
        finally:
            browser.close()
    return out


def timed(args: list[str]) -> dict[str, float]:
    """One whole `arena ...` process: wall s, CPU s (user + sys), peak RSS MB, from /usr/bin/time."""
    with tempfile.NamedTemporaryFile("r") as fmt:
        subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", fmt.name, str(ROOT / ".venv/bin/arena"), *args],
                       capture_output=True, text=True, check=True)
        wall, user, sys_, rss = fmt.read().split()[-4:]
    return {"wall": float(wall), "cpu": float(user) + float(sys_), "rss": int(rss) / 1024}


def folder_mb(folder: Path, pattern: str = "**/*") -> float:
    return sum(p.stat().st_size for p in folder.glob(pattern) if p.is_file()) / 1e6


def kolpa_tournament(tmp: Path) -> Path:
    """`arena run` of the Kolpa! demo config (4 bots, 10 rounds: 40 games) with its replays; the store."""
    config = yaml.safe_load((ROOT / "configs" / "kolpa.yaml").read_text(encoding="utf-8"))
    config["root"] = str(ROOT)
    config["output"] = {"store": str(tmp / "kolpa.sqlite"), "replays": str(tmp / "replays")}
    (tmp / "kolpa.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    subprocess.run([str(ROOT / ".venv/bin/arena"), "run", "--fresh", "-j", "2", "--quiet", str(tmp / "kolpa.yaml")],
                   check=True, capture_output=True, text=True)
    return tmp / "kolpa.sqlite"


def measure(games: int, repeats: int, tmp: Path) -> list[Figure]:
    store = tmp / "bench.sqlite"
    with Store.create_or_resume(store, name="bench", game="kododo", fingerprint="b", identity={},
                                entrants=ENTRANTS, total_games=games) as s:
        s.record_many(synthetic_games(games))
    big = [timed(["report", str(store), "-o", str(tmp / f"report-{k}"), "--no-viewers"]) for k in range(repeats)]
    kolpa = kolpa_tournament(tmp)
    with_viewers = [timed(["report", str(kolpa), "-o", str(tmp / f"kolpa-report-{k}")]) for k in range(repeats)]
    report = tmp / "kolpa-report-0"
    pages = len(list((report / "replays").glob("*.html")))
    opens = open_seconds(next(iter(sorted((report / "replays").glob("*.html")))).as_uri(), repeats, "html[data-ready='1'] #board .seat")
    out = []
    for name, runs in ((f"arena report, {games:,} games, no replays", big), (f"arena report, Kolpa! demo ({pages} games), with viewer pages", with_viewers)):
        out.append(Figure(name, "s wall", tuple(r["wall"] for r in runs)))
        out.append(Figure(name, "s CPU (user + sys)", tuple(r["cpu"] for r in runs)))
        out.append(Figure(name, "MB peak RSS", tuple(r["rss"] for r in runs)))
    out.append(Figure(f"report size, {games:,} games (index.html)", "MB", (folder_mb(tmp / "report-0"),)))
    out.append(Figure(f"report size, Kolpa! demo with {pages} viewer pages (whole folder)", "MB", (folder_mb(report),)))
    out.append(Figure("of which the shared viewer assets (replays/assets)", "MB", (folder_mb(report / "replays" / "assets"),)))
    out.append(Figure("Kolpa! viewer page opened in Chromium from file:// (to frames inflated and drawn)", "s wall", tuple(opens)))
    return out


def verdicts(figures: list[Figure], games: int) -> list[str]:
    got = {(f.name, f.unit): f.median for f in figures}
    cpu = got[(f"arena report, {games:,} games, no replays", "s CPU (user + sys)")]
    size = next(f.median for f in figures if f.name.startswith("report size, Kolpa!"))
    return [
        "| goal 4: `arena report` | measured (median) | target | status |",
        "|---|---|---|---|",
        f"| {games:,} games, whole process | {cpu:.2f} s CPU | < 2 s | {'met' if cpu < 2 else 'MISSED'} (on CPU time) |",
        f"| Kolpa! demo (40 games) with viewer pages, folder size | {size:.2f} MB | <= 4.5 MB (a tenth of 45 MB, issue 25) | "
        f"{'met' if size <= 4.5 else 'MISSED'} |",
    ]


COMMAND = ".venv/bin/python -m bench.bench_report --write"


GAMES = 10_000


def run(games: int = GAMES, repeats: int = 3) -> tuple[list[Figure], str]:
    started, load = time.perf_counter(), os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        figures = measure(games, repeats, Path(tmp))
    text = "\n".join([
        f"Command: `{COMMAND}` ({time.perf_counter() - started:.0f} s; load average {load[0]:.1f} / {load[1]:.1f} / "
        f"{load[2]:.1f} on {os.cpu_count()} cores at the start: wall times include waiting for a core, CPU time does not).",
        "",
        f"What is timed: the whole `arena report STORE -o DIR` process (`/usr/bin/time`), into a new folder each repeat: "
        f"a store of {games:,} synthetic 4-player games among 8 entrants (`--no-viewers`: no replays), and the store of "
        "`arena run configs/kolpa.yaml` with its replays (a viewer page per game, frames gzip-compressed, scripts and "
        "styles in one shared copy). Opening: headless Chromium, navigation to `html[data-ready]` (frames inflated by "
        "DecompressionStream) and the board drawn.",
        "",
        *verdicts(figures, games),
        "",
        "| figure | median | range | unit | repeats |",
        "|---|---|---|---|---|",
        *[f.row() for f in figures],
    ])
    return figures, text


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.bench_report", description=__doc__)
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--write", action="store_true", help="replace this section of BENCHMARKS.md")
    args = ap.parse_args(argv)
    _, text = run(args.games, args.repeats)
    print(text)
    if args.write:
        write_section(ROOT / "BENCHMARKS.md", "report", "arena report (issue 25, goal 4)", text)


if __name__ == "__main__":
    main()
