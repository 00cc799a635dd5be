"""`python -m bench.bench_load [--games N] [--seconds S] [--viewers V] [--uploaders U] [--write]`: the
competition server under a crowd (issue 36, item 16).

`arena serve` (a copy of configs/server/ladder.yaml, sandbox on, its ladder running) with N games in its
store (100,000 by default, written as the ladder writes them, `bench_server.fill_store`), then for S
seconds, all on loopback at once:
- V page viewers (100): each holds the leaderboard's server-sent event stream (`/events`) open and,
  as the page's script does, fetches the table (`/leaderboard/table`) on every update;
- U participants (30): each uploads a Python bot (an archive, as `arena submit` packs it) over the API,
  again every 12 s (within the 6-a-minute limit), and follows its submissions;
- one probe asks for `/api/v1/leaderboard` every 100 ms and the leaderboard page `/` every second: p50/p99.
At the end: every accepted upload (202) must be one of its participant's submissions (`/api/v1/me`):
lost uploads are counted; the uploads the checker judged within the run give the upload-to-verdict
times. Clients are httpx's asyncio client, one connection per simulated client.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import random
import tempfile
import time
import zipfile
from pathlib import Path

import httpx

from bench.bench_server import ADMIN, ROOT, Served, _config, _port, fill_store, pct
from bench.stats import Figure, report, write_section

SAMPLES = ROOT / "sample_bots" / "python"


def archive(version: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("manifest.json", json.dumps({"name": "loadbot", "version": version, "command": "python3 random_bot.py"}))
        for name in ("random_bot.py", "arenabot.py"):
            zf.writestr(name, (SAMPLES / name).read_bytes())
    return buf.getvalue()


class Run:
    def __init__(self, url: str, seconds: float) -> None:
        self.url, self.deadline = url, time.monotonic() + seconds
        self.times: dict[str, list[float]] = {"leaderboard API": [], "leaderboard page": [], "table on update": []}
        self.accepted: dict[str, list[tuple[int, float]]] = {}  # token -> (submission, when sent)
        self.refused_at_door = 0
        self.updates = 0
        self.errors: list[str] = []
        self.server_share = 0.0  # the server process's own CPU time over the run's wall time (cores)

    async def viewer(self, http: httpx.AsyncClient) -> None:
        try:
            async with http.stream("GET", "/events", timeout=None) as events:
                async for line in events.aiter_lines():
                    if time.monotonic() > self.deadline:
                        return
                    if line.startswith("event: update"):
                        self.updates += 1
                        began = time.perf_counter()
                        r = await http.get("/leaderboard/table")
                        self.times["table on update"].append((time.perf_counter() - began) * 1000)
                        if r.status_code != 200:
                            self.errors.append(f"table: {r.status_code}")
        except httpx.HTTPError as exc:
            self.errors.append(f"viewer: {type(exc).__name__}")

    async def uploader(self, http: httpx.AsyncClient, token: str, n: int) -> None:
        rng = random.Random(n)
        await asyncio.sleep(rng.uniform(0, 12))
        version = 0
        while time.monotonic() < self.deadline:
            version += 1
            r = await http.post("/api/v1/submissions", content=archive(f"{n}.{version}"),
                                headers={"Authorization": f"Bearer {token}"})
            if r.status_code == 202:
                self.accepted.setdefault(token, []).append((int(r.json()["submission"]), time.time()))
            elif r.status_code == 429:
                self.refused_at_door += 1
            else:
                self.errors.append(f"upload: {r.status_code} {r.text[:100]}")
            await asyncio.sleep(12 + rng.uniform(0, 1))

    async def probe(self, http: httpx.AsyncClient) -> None:
        tick = 0
        while time.monotonic() < self.deadline:
            tick += 1
            asks = [("leaderboard API", "/api/v1/leaderboard")] + ([("leaderboard page", "/")] if tick % 10 == 0 else [])
            for kind, path in asks:  # the page once a second: one address may ask for 300 pages a minute
                began = time.perf_counter()
                r = await http.get(path)
                self.times[kind].append((time.perf_counter() - began) * 1000)
                if r.status_code != 200:
                    self.errors.append(f"{path}: {r.status_code}")
            await asyncio.sleep(0.1)


async def crowd(url: str, seconds: float, viewers: int, uploaders: int) -> tuple[Run, dict[str, list[dict[str, object]]]]:
    admin = {"Authorization": f"Bearer {ADMIN}"}
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        tokens = []
        for i in range(uploaders):
            r = await http.post("/api/v1/admin/participants", json={"name": f"load{i}"}, headers=admin)
            tokens.append(str(r.json()["token"]))
    run = Run(url, seconds)
    # A connection for each viewer's event stream and one for its fetches, as a browser keeps several per
    # site; the probe has a client of its own, so that it never queues behind the crowd in this process.
    crowd_size = 2 * viewers + uploaders + 8
    limits = httpx.Limits(max_connections=crowd_size, max_keepalive_connections=crowd_size)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as http, \
            httpx.AsyncClient(base_url=url, timeout=60) as probe:
        await asyncio.gather(*(run.viewer(http) for _ in range(viewers)),
                             *(run.uploader(http, t, n) for n, t in enumerate(tokens)), run.probe(probe))
        mine = {}
        for token in tokens:
            r = await http.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"})
            mine[token] = r.json()["submissions"]
    return run, mine


def measure(games: int, seconds: float, viewers: int, uploaders: int) -> tuple[Run, int, int, list[float], int]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _config(folder, _port())
        fill_store(folder / "data", games)
        served = Served(folder)  # its pages allow 300 a minute per address; every simulated client here is 127.0.0.1
        try:
            time.sleep(3)
            cpu0, wall0 = served.own_cpu(), time.monotonic()
            run, mine = asyncio.run(crowd(served.url, seconds, viewers, uploaders))
            run.server_share = (served.own_cpu() - cpu0) / (time.monotonic() - wall0)
        finally:
            served.stop()
        lost = accepted = 0
        for token, sent in run.accepted.items():
            stored = {int(s["id"]): s for s in mine[token]}  # type: ignore[call-overload]
            for sub, when in sent:
                accepted += 1
                if sub not in stored:
                    lost += 1
        import sqlite3

        with sqlite3.connect(folder / "data" / "server.sqlite") as db:
            judged = db.execute("SELECT created, finished FROM submissions WHERE finished IS NOT NULL").fetchall()
            waiting = db.execute("SELECT COUNT(*) FROM submissions WHERE finished IS NULL").fetchone()[0]
        verdicts = [f - c for c, f in judged]
        return run, accepted, lost, verdicts, int(waiting)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--viewers", type=int, default=100)
    parser.add_argument("--uploaders", type=int, default=30)
    parser.add_argument("--write", action="store_true", help="write the figures into BENCHMARKS.md")
    args = parser.parse_args()
    run, accepted, lost, verdicts, waiting = measure(args.games, args.seconds, args.viewers, args.uploaders)
    figures = []
    verdict_rows = ["| target | measured | target | status |", "|---|---|---|---|"]
    for kind, values in run.times.items():
        if not values:
            continue
        p50, p99 = pct(values, 0.5), pct(values, 0.99)
        label = f"server under a crowd ({args.viewers} SSE viewers, {args.uploaders} uploaders, {args.games} games): {kind}"
        figures += [Figure(label, "ms p50", (p50,)), Figure(label, "ms p99", (p99,))]
        if kind == "leaderboard API":
            verdict_rows.append(f"| leaderboard p99, {len(values)} requests | {p99:.1f} ms | < 50 ms | {'met' if p99 < 50 else 'missed'} |")
    verdict_rows.append(f"| uploads lost | {lost} of {accepted} accepted | 0 | {'met' if lost == 0 else 'missed'} |")
    if verdicts:
        figures.append(Figure("server under a crowd: upload to verdict (judged within the run)", "s p50", (pct(verdicts, 0.5),)))
        figures.append(Figure("server under a crowd: upload to verdict (judged within the run)", "s max", (max(verdicts),)))
    verdict_rows += ["", f"{accepted} uploads accepted, {run.refused_at_door} refused at the door (rate limit), "
                     f"{len(verdicts)} judged within the run and {waiting} still waiting for the checker at its end; "
                     f"{run.updates} table fetches on updates; errors: {len(run.errors)} {sorted(set(run.errors))[:5]}. "
                     f"The server process itself used {run.server_share:.2f} of a core (its API, pages, matchmaking, "
                     "signing, SQLite; the checker's and the ladder's bots run in other processes), while every "
                     "simulated client runs in this one Python process on the same loaded machine: the times above "
                     "include the clients' own wait for a CPU (not measured apart). "
                     f"Load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (shared machine)."]
    command = (f"python -m bench.bench_load --games {args.games} --seconds {args.seconds:g} --viewers {args.viewers} "
               f"--uploaders {args.uploaders} --write")
    text = report(command, "loopback, sandbox on, the ladder running", verdict_rows, figures)
    print(text)
    if args.write:
        write_section(ROOT / "BENCHMARKS.md", "server-load", "Server under a crowd: SSE viewers, uploads, 100,000 games", text)


if __name__ == "__main__":
    main()
