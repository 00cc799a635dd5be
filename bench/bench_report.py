"""The HTML report: time to build it from a store of 10,000 games, and to open it in Chromium.

`python -m bench.bench_report [--games N] [--repeats R]` builds (once, in a temporary folder) a store of
N synthetic 4-player games among 8 entrants (one game in 50 with a fault, with stderr), then times
`arena report` (build_report, no replays) and opening index.html from file:// in headless Chromium:
from navigation start to the load event, after which the first page of the game list is drawn.
It also times building and opening the viewer of a real Kolpa replay (the longest game).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from arena.results.store import Store, StoredGame
from arena.web.report_page import build_report

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
        faults: tuple = ()
        if i % 50 == 0:
            faults = ({"seat": 1, "kind": "timeout", "step": 3, "request_id": 4, "detail": "no answer within 1000 ms",
                       "stderr_tail": ["thinking...", "still thinking"]},)
        out.append(StoredGame(
            index=i, game_id=f"kododo-{i}", round=i // 70, table=i % 70, rotation=0, seed=i, seats=seats, points=points,
            tiebreaks=((),) * 4, ranks=ranks, game_ranks=ranks, faults=faults,
            fault_counts=(0, len(faults), 0, 0), versions=("1",) * 4, decisions=72, duration_s=0.01, replay_path=None,
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


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "bench.sqlite"
        with Store.create_or_resume(store, name="bench", game="kododo", fingerprint="b", identity={},
                                    entrants=ENTRANTS, total_games=args.games) as s:
            s.record_many(synthetic_games(args.games))
        builds = []
        for k in range(args.repeats):
            started = time.perf_counter()
            summary = build_report(store, Path(tmp) / "report", viewers=False)
            builds.append(time.perf_counter() - started)
        size = summary.index.stat().st_size
        opens = open_seconds(summary.index.as_uri(), args.repeats, "#game-table tbody tr")
        print(f"report of {args.games} games: {size / 1e6:.2f} MB")
        print(f"  build: median {statistics.median(builds):.2f} s (range {min(builds):.2f}-{max(builds):.2f}, {args.repeats} runs)")
        print(f"  open in Chromium (file://, to load + first rows): median {statistics.median(opens):.2f} s "
              f"(range {min(opens):.2f}-{max(opens):.2f})")
        _viewer(Path(tmp), args.repeats)


def _viewer(tmp: Path, repeats: int) -> None:
    from click.testing import CliRunner

    from arena.cli import main as cli

    root = Path(__file__).resolve().parents[1]
    replay = tmp / "kolpa.jsonl"
    bots = [f"{sys.executable} {root}/sample_bots/python/random_bot.py 1", f"{root}/sample_bots/c/random_bot 2",
            f"{root}/sample_bots/c/random_bot 3", f"{root}/sample_bots/c/random_bot 4"]
    args = ["play", "kolpa", "--seed", "5", "--replay", str(replay), "--quiet"]
    for b in bots:
        args += ["--bot", b]
    CliRunner().invoke(cli, args, catch_exceptions=False)
    steps = sum(1 for line in replay.read_text().splitlines() if '"type":"events"' in line)
    from arena.web.viewer import write_viewer

    builds = []
    for _ in range(repeats):
        started = time.perf_counter()
        page = write_viewer(replay, tmp / "kolpa.html")
        builds.append(time.perf_counter() - started)
    opens = open_seconds(page.as_uri(), repeats, "#board .seat")
    print(f"viewer of a 4-player Kolpa replay ({steps} steps, {page.stat().st_size / 1e6:.2f} MB): "
          f"build median {statistics.median(builds):.2f} s, open median {statistics.median(opens):.2f} s")


if __name__ == "__main__":
    main()
