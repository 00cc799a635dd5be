"""`python -m bench.bench_pages [--games N] [--seconds S] [--write]`: the ladder's pages in Chromium.

1. First drawn: `arena serve` (configs/server/ladder.yaml, sandbox on, its ladder running) with N games
   in its store (100,000 by default, written as the ladder writes them, `bench_server.fill_store`);
   a fresh headless Chromium page opens the leaderboard; the figure is the page's first contentful
   paint (`performance` timeline), each repeat in a new browser context (nothing cached).
2. Update latency: one open leaderboard page for S seconds while the ladder plays; each time the page
   swaps in a new table, the newest game it shows is looked up in the store (`games.finished`, when
   the ladder committed it) and the latency is the page's clock minus that (one machine, one clock).
Loopback only; Chromium is the Debian package at /usr/bin/chromium (or $ARENA_CHROMIUM).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.bench_server import Served, _config, _port, fill_store
from bench.stats import Figure, report, write_section

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("ARENA_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
WATCH = """() => {
  window.__updates = [];
  new MutationObserver(function () {
    var s = document.getElementById('ladder-status');
    if (s) { window.__updates.push([Date.now() / 1000, parseInt(s.textContent)]); }
  }).observe(document.getElementById('board'), {childList: true});
}"""


def measure(games: int, repeats: int, seconds: float) -> tuple[list[float], list[float], int]:
    from playwright.sync_api import sync_playwright

    from arena.ladder.config import load

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        config = _config(folder, _port())
        fill_store(folder / "data", games)
        database = load(config).database
        served = Served(folder)
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                paints = []
                for _ in range(repeats):
                    context = browser.new_context()
                    page = context.new_page()
                    page.goto(served.url + "/")
                    page.wait_for_timeout(300)
                    fcp = page.evaluate("performance.getEntriesByName('first-contentful-paint')[0].startTime")
                    shown = int(page.inner_text("#ladder-status").split()[0])
                    assert shown >= games, shown
                    paints.append(float(fcp))
                    context.close()
                page = browser.new_page()
                page.goto(served.url + "/")
                page.evaluate(WATCH)
                page.wait_for_timeout(seconds * 1000)
                updates = page.evaluate("window.__updates")
                browser.close()
        finally:
            served.stop()
        db = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
        finished = dict(db.execute("SELECT seq, finished FROM games WHERE status = 'done'").fetchall())
        db.close()
    latencies = []
    seen = games
    for at, count in updates:
        if count > seen:  # a table that shows a game the page had not shown yet
            latencies.append(at - float(finished[count]))
            seen = count
    return paints, latencies, len(updates)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--write", action="store_true", help="write the figures into BENCHMARKS.md")
    args = parser.parse_args()
    began = time.monotonic()
    paints, latencies, updates = measure(args.games, args.repeats, args.seconds)
    if not latencies:
        sys.exit("no update reached the page: is the ladder playing?")
    figures = [
        Figure(f"pages: leaderboard first drawn (FCP), {args.games:,} games stored, ladder running", "ms", tuple(paints)),
        Figure(f"pages: a finished game to the open leaderboard showing it ({len(latencies)} games)", "s", tuple(latencies)),
    ]
    worst = max(latencies)
    verdicts = [
        f"- first drawn under 1 s: {'yes' if max(paints) < 1000 else 'NO'} (slowest of {len(paints)}: {max(paints):.0f} ms)",
        f"- every update within 2 s of its game: {'yes' if worst < 2 else 'NO'} (slowest of {len(latencies)}: {worst:.2f} s; "
        f"median {statistics.median(latencies):.2f} s; {updates} table swaps in {args.seconds:g} s)",
    ]
    command = f".venv/bin/python -m bench.bench_pages --games {args.games} --seconds {args.seconds:g} --write"
    text = report(command, f"{time.monotonic() - began:.0f} s", verdicts, figures)
    print(text)
    if args.write:
        write_section(ROOT / "BENCHMARKS.md", "pages", "The ladder's pages in Chromium (arena serve)", text)


if __name__ == "__main__":
    main()
