"""`python -m bench.bench_budget [--seconds S] [--write]`: disk a day and games a day of the shipped ladder
config (configs/server/ladder.yaml: Kododo, 2 players, its three house bots, one worker), without and with
the game-rate budget and replay retention, and the server's own CPU share while the ladder runs (issue 37).

Each run is a real `arena serve` (sandboxed bots) on loopback for S seconds in a fresh data folder:
- without: `budget: {compress: false}` (no rate limit, no retention: the server as it was);
- with: `budget: {games_per_hour: 1200, settled_after: 50, settled_games_per_hour: 120, keep_days: 1,
  keep_sample: 0.1, compress: true}`;
- settled: `budget: {settled_after: 20, settled_top: 1, settled_games_per_hour: 120, compress: true}` (idle when
  settled alone: full speed until the leader has held first place over 20 games, then 120 games an hour).
Games a day = games stored / S x 86400; bytes a game = the bytes of replays/ after the upkeep's sweep
(compression) / games; disk a day = their product. With retention the folder stops growing at one day
of replays and then grows by the sample's share a day. CPU: the server process's own (its threads: the
ladder loop, HTTP, checks, upkeep) against the whole tree's (workers, sandboxes, bots), sampled with psutil
every half second. `--write` puts the table into BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import psutil

from bench.stats import write_section

ROOT = Path(__file__).resolve().parents[1]
ADMIN = "bench-budget-admin-token-0123456789"
WITH = ("budget: {games_per_hour: 1200, settled_after: 50, settled_games_per_hour: 120, keep_days: 1, keep_sample: 0.1, "
        "compress: true}")
WITHOUT = "budget: {compress: false}"
SETTLED = "budget: {settled_after: 20, settled_top: 1, settled_games_per_hour: 120, compress: true}"


def tree_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def cpu_of(proc: psutil.Process) -> float:
    t = proc.cpu_times()
    return float(t.user + t.system + t.children_user + t.children_system)


def run(budget: str, seconds: float, tmp: Path, port: int) -> dict[str, Any]:
    """One server run: games, bytes, CPU."""
    shipped = (ROOT / "configs/server/ladder.yaml").read_text()
    data = tmp / "data"
    config = tmp / "ladder.yaml"
    lines = [line for line in shipped.splitlines() if not line.startswith(("root:", "data:", "admin_token_file:"))]
    config.write_text("\n".join([f"root: {ROOT}", f"data: {data}", *lines, budget, ""]))
    env = {**os.environ, "ARENA_ADMIN_TOKEN": ADMIN}
    log = tmp / "server.log"
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from arena.cli import main; sys.argv[0]='arena'; main()",
                             "serve", str(config), "--port", str(port)], env=env, stdout=open(log, "wb"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        while True:
            try:
                if httpx.get(url + "/api/v1", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None:
                raise RuntimeError(log.read_text())
            time.sleep(0.2)
        server = psutil.Process(proc.pid)
        first = int(httpx.get(url + "/api/v1").json()["games"])
        own0 = server.cpu_times().user + server.cpu_times().system
        seen: dict[int, float] = {}
        base: dict[int, float] = {}
        for child in server.children(recursive=True):
            try:
                base[child.pid] = cpu_of(child)
            except psutil.Error:
                pass
        started = time.monotonic()
        half: int | None = None
        while time.monotonic() - started < seconds:
            if half is None and time.monotonic() - started >= seconds / 2:
                half = int(httpx.get(url + "/api/v1").json()["games"])
            for child in server.children(recursive=True):
                try:
                    seen[child.pid] = max(seen.get(child.pid, 0.0), cpu_of(child))
                except psutil.Error:
                    pass
            time.sleep(0.5)
        wall = time.monotonic() - started
        own = server.cpu_times().user + server.cpu_times().system - own0
        others = sum(v - base.get(pid, 0.0) for pid, v in seen.items())
        games = int(httpx.get(url + "/api/v1").json()["games"]) - first
        sweep = httpx.post(url + "/api/v1/admin/upkeep", headers={"Authorization": f"Bearer {ADMIN}"}, timeout=120).json()
        replays = tree_bytes(data / "replays")
        stored = int(httpx.get(url + "/api/v1").json()["games"])
        rate = str(httpx.get(url + "/api/v1/admin/health", headers={"Authorization": f"Bearer {ADMIN}"}, timeout=60).json()
                   .get("game_rate", ""))
    finally:
        proc.terminate()
        proc.wait(60)
    said = next((line.split("disk a day: ", 1)[1] for line in log.read_text().splitlines() if "disk a day: " in line), "")
    return {"games": games, "wall": wall, "stored": stored, "replays": replays, "own": own, "others": others, "said": said,
            "sweep": sweep, "rate": rate,
            "late": (stored - (half if half is not None else first)) / (wall / 2) * 86400}


def row(name: str, r: dict[str, Any]) -> str:
    per_day = r["games"] / r["wall"] * 86400
    per_game = r["replays"] / max(1, r["stored"])
    disk = r["late"] * per_game  # at the rate it keeps (the second half: once settled, the idle rate)
    share = r["own"] / max(1e-9, r["own"] + r["others"])
    return (f"| {name} | {r['games']} in {r['wall']:.0f} s | {per_day:,.0f} ({r['late']:,.0f}) | {per_game / 1024:.1f} KB | "
            f"{disk / 1e9:.2f} GB | {100 * share:.1f}% ({100 * r['own'] / r['wall']:.1f}% of a core) |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=90.0)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    results = {}
    for name, budget, port in (("without", WITHOUT, 8791), ("with", WITH, 8792), ("settled", SETTLED, 8793)):
        with tempfile.TemporaryDirectory() as tmp:
            results[name] = run(budget, args.seconds, Path(tmp), port)
        print(name, {k: v for k, v in results[name].items() if k != "sweep"}, flush=True)
    kept = results["with"]
    per_day = kept["late"]
    per_game = kept["replays"] / max(1, kept["stored"])
    text = "\n".join([
        f"Command: `.venv/bin/python -m bench.bench_budget --seconds {args.seconds:g} --write` (the shipped "
        "`configs/server/ladder.yaml`: Kododo, 2 players, 3 house bots, one worker, sandboxed; a real `arena serve` a run).",
        "",
        "| config | ladder games | games a day (over the run's second half) | bytes a game on disk | disk a day (at the second half's rate) | server's own CPU share of the tree |",
        "|---|---|---|---|---|---|",
        row("as shipped, `budget: {compress: false}`", results["without"]),
        row("`games_per_hour: 1200`, idle when settled (50 games, then 120 an hour), `keep_days: 1`, "
            "`keep_sample: 0.1`, gzip at rest", kept),
        row("idle when settled alone: `settled_after: 20, settled_top: 1, settled_games_per_hour: 120`, gzip at rest",
            results["settled"]),
        "",
        f"With retention the replays stop growing at one day's: {per_day * per_game / 1e9:.2f} GB, then "
        f"{0.1 * per_day * per_game / 1e6:.0f} MB a day (the 10% sample); once settled the rate is 120 games an hour "
        f"({120 * 24 * per_game / 1e6:.0f} MB a day before retention).",
        f"The game rate at the end of the run with the budget: {kept['rate']}; of the idle-when-settled run: "
        f"{results['settled']['rate']}.",
        f"`arena serve` printed at start: without: \"{results['without']['said']}\"; with: \"{kept['said']}\".",
        "The server's own CPU is its process (ladder loop, storing and signing games, HTTP, upkeep); the rest is the "
        "worker, its sandboxes and the bots. This machine: 2 cores shared with other jobs, so the rates are a floor.",
    ])
    print(text)
    if args.write:
        write_section(ROOT / "BENCHMARKS.md", "budget", "Disk and games a day with the game-rate budget and retention (issue 37)", text)


if __name__ == "__main__":
    main()
