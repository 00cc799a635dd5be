"""`python -m bench.bench_load [--games N] [--seconds S] [--viewers V] [--uploaders U] [--write]`: the
competition server under a crowd (issue 36, item 16).

`arena serve` (a copy of configs/server/ladder.yaml, sandbox on, its ladder running) with N games in its
store (100,000 by default, written as the ladder writes them, `bench_server.fill_store`), then for S
seconds, all on loopback at once:
- V page viewers (100): each holds the leaderboard's server-sent event stream (`/events`) open and,
  as the page's script does, fetches the table (`/leaderboard/table`) on every update;
- U participants (30): each uploads a Python bot (an archive, as `arena submit` packs it) over the API,
  again every 12 s (within the 6-a-minute limit), and follows its submissions;
- the leaderboard API (`/api/v1/leaderboard`) is measured by `wrk` (Debian's `wrk`: `apt-get install wrk`),
  a load tool in a process of its own, so the figure is the server's and not this process's: WRK_CONNECTIONS
  connections, each asking again WRK_DELAY_MS after every answer (a Lua `delay()`), for the whole run,
  latencies from wrk's `--latency` distribution (p50, p99);
- a Python probe asks for the leaderboard page `/` every second (p50/p99, measured from this process).
At the end: every accepted upload (202) must be one of its participant's submissions (`/api/v1/me`):
lost uploads are counted; the uploads the checker judged within the run give the upload-to-verdict
times. Then (`--drain`, 300 s by default) nobody uploads or views while the server and its ladder go on,
until every submission has its verdict: the checker keeps up if none is left waiting, and the time from the
crowd's end to the last verdict says by how much it fell behind. The viewers and uploaders are httpx's asyncio client, one connection per simulated client, all in
this process (its own latency shows in their figures, not in wrk's).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import random
import re
import shutil
import tempfile
import time
import zipfile
from pathlib import Path

import httpx

from bench.bench_server import ADMIN, ROOT, Served, _config, _port, fill_store, pct
from bench.stats import Figure, report, write_section

SAMPLES = ROOT / "sample_bots" / "python"
WRK_CONNECTIONS = 4
WRK_DELAY_MS = 50  # each connection asks again 50 ms after an answer: ~80 requests a second in all
UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}


def wrk_latency(output: str) -> tuple[dict[str, float], int, int]:
    """wrk's `--latency` output: its percentiles in ms ({"50%": ..., "99%": ...}), requests, non-2xx answers."""
    pcts = {m[1]: float(m[2]) * UNITS[m[3]] for m in re.finditer(r"^\s+(\d+%)\s+([\d.]+)(us|ms|s|m)\s*$", output, re.M)}
    done = re.search(r"(\d+) requests in", output)
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    return pcts, int(done[1]) if done else 0, int(bad[1]) if bad else 0


async def wrk(url: str, seconds: float) -> str:
    """`wrk` on the leaderboard API for `seconds`, paced by a Lua `delay()`; its report."""
    exe = shutil.which("wrk")
    if exe is None:
        raise SystemExit("bench_load needs wrk (Debian: apt-get install wrk) to measure the leaderboard's latency")
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(f"function delay() return {WRK_DELAY_MS} end\n")
    try:
        proc = await asyncio.create_subprocess_exec(
            exe, "-t", "1", "-c", str(WRK_CONNECTIONS), "-d", f"{int(seconds)}s", "--timeout", "10s", "--latency",
            "-s", script.name, url + "/api/v1/leaderboard", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
        out, _ = await proc.communicate()
    finally:
        os.unlink(script.name)
    return out.decode("utf-8", "replace")


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
        self.times: dict[str, list[float]] = {"leaderboard page": [], "table on update": []}
        self.wrk = ""  # wrk's report on the leaderboard API
        self.accepted: dict[str, list[tuple[int, float]]] = {}  # token -> (submission, when sent)
        self.refused_at_door = 0
        self.updates = 0
        self.errors: list[str] = []
        self.server_share = 0.0  # the server process's own CPU time over the run's wall time (cores)
        self.load = os.getloadavg()
        self.ran_s = self.waited_s = 0.0
        self.loop_ran_s = self.loop_waited_s = 0.0  # the event loop's thread alone
        self.replaced = 0  # submissions refused unchecked: their participant sent a newer one while they waited
        self.ended = 0.0  # when the crowd stopped (time.time(), as the store's timestamps)
        self.judged_all: list[tuple[float, float]] = []  # every submission's (created, finished), the drain's included
        self.drained_s: float | None = None  # from the crowd's end to the last verdict (--drain)
        self.route_ms: list[float] = []  # the leaderboard route's own work, profiled before the crowd  # the server process's threads: running, and runnable but waiting for a CPU

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
            try:
                r = await http.post("/api/v1/submissions", content=archive(f"{n}.{version}"),
                                    headers={"Authorization": f"Bearer {token}"})
            except httpx.HTTPError as exc:  # e.g. a kept-alive connection the server closed as it was reused
                self.errors.append(f"upload: {type(exc).__name__}")
            else:
                if r.status_code == 202:
                    self.accepted.setdefault(token, []).append((int(r.json()["submission"]), time.time()))
                elif r.status_code == 429:
                    self.refused_at_door += 1
                else:
                    self.errors.append(f"upload: {r.status_code} {r.text[:100]}")
            await asyncio.sleep(12 + rng.uniform(0, 1))

    async def probe(self, http: httpx.AsyncClient) -> None:
        while time.monotonic() < self.deadline:  # the page once a second: one address may ask for 300 pages a minute
            began = time.perf_counter()
            try:
                r = await http.get("/")
            except httpx.HTTPError as exc:  # e.g. a kept-alive connection the server closed as it was reused
                self.errors.append(f"probe: {type(exc).__name__}")
                await asyncio.sleep(1)
                continue
            self.times["leaderboard page"].append((time.perf_counter() - began) * 1000)
            if r.status_code != 200:
                self.errors.append(f"/: {r.status_code}")
            await asyncio.sleep(1.0)

    async def measured(self, seconds: float) -> None:
        self.wrk = await wrk(self.url, seconds)


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
                             *(run.uploader(http, t, n) for n, t in enumerate(tokens)), run.probe(probe),
                             run.measured(seconds))
        mine = {}
        for token in tokens:
            r = await http.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"})
            mine[token] = r.json()["submissions"]
    return run, mine


def route_ms(database: Path, repeats: int = 200) -> list[float]:
    """The leaderboard route's own work (its answer built from the store, no HTTP), in ms, on a quiet server."""
    from arena.ladder.db import Database
    from arena.ladder.queries import Reads
    from arena.server.api import leaderboard_rows

    db = Database(database)
    try:
        read, times = Reads(db), []
        for _ in range(repeats):
            began = time.perf_counter()
            leaderboard_rows(read)
            times.append((time.perf_counter() - began) * 1000)
        return times
    finally:
        db.close()


def sched(pid: int) -> tuple[float, float, float, float]:
    """Seconds the process's threads have run and waited on a run queue for a CPU (/proc/PID/task/*/schedstat),
    then the same for its main thread alone (uvicorn's event loop: every page and API answer)."""
    ran = waited = main_ran = main_waited = 0.0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            fields = (task / "schedstat").read_text().split()
        except OSError:
            continue  # a thread that ended meanwhile
        ran, waited = ran + int(fields[0]) / 1e9, waited + int(fields[1]) / 1e9
        if task.name == str(pid):
            main_ran, main_waited = int(fields[0]) / 1e9, int(fields[1]) / 1e9
    return ran, waited, main_ran, main_waited


def drain(database: Path, limit_s: float) -> float | None:
    """Seconds from the crowd's end until the checker has given every submission its verdict (the ladder
    and the server still running, nobody uploading), or None if some still wait after `limit_s`."""
    import sqlite3

    began = time.monotonic()
    while time.monotonic() - began < limit_s:
        with sqlite3.connect(database) as db:
            if not db.execute("SELECT COUNT(*) FROM submissions WHERE finished IS NULL").fetchone()[0]:
                return time.monotonic() - began
        time.sleep(0.5)
    return None


def measure(games: int, seconds: float, viewers: int, uploaders: int,
            drain_s: float = 0.0) -> tuple[Run, int, int, list[float], int]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _config(folder, _port())
        fill_store(folder / "data", games)
        route = route_ms(folder / "data" / "server.sqlite")
        served = Served(folder)  # its pages allow 300 a minute per address; every simulated client here is 127.0.0.1
        try:
            time.sleep(3)
            cpu0, wall0, sched0 = served.own_cpu(), time.monotonic(), sched(served.proc.pid)
            run, mine = asyncio.run(crowd(served.url, seconds, viewers, uploaders))
            run.ended = time.time()
            run.server_share = (served.own_cpu() - cpu0) / (time.monotonic() - wall0)
            sched1 = sched(served.proc.pid)
            run.ran_s, run.waited_s = sched1[0] - sched0[0], sched1[1] - sched0[1]
            run.loop_ran_s, run.loop_waited_s = sched1[2] - sched0[2], sched1[3] - sched0[3]
            run.route_ms = route
            if drain_s:
                run.drained_s = drain(folder / "data" / "server.sqlite", drain_s)
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
            judged = db.execute("SELECT created, finished FROM submissions WHERE finished IS NOT NULL "
                                "AND reason NOT LIKE 'not checked:%' AND finished <= ?", (run.ended,)).fetchall()
            run.judged_all = db.execute("SELECT created, finished FROM submissions WHERE finished IS NOT NULL").fetchall()
            run.replaced = db.execute("SELECT COUNT(*) FROM submissions WHERE reason LIKE 'not checked:%'").fetchone()[0]
            waiting = db.execute("SELECT COUNT(*) FROM submissions WHERE finished IS NULL OR finished > ?",
                                 (run.ended,)).fetchone()[0]
        verdicts = [f - c for c, f in judged]
        return run, accepted, lost, verdicts, int(waiting)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--viewers", type=int, default=100)
    parser.add_argument("--uploaders", type=int, default=30)
    parser.add_argument("--drain", type=float, default=300.0,
                        help="then wait up to this many seconds for the checker to judge every upload (0: not)")
    parser.add_argument("--write", action="store_true", help="write the figures into BENCHMARKS.md")
    args = parser.parse_args()
    run, accepted, lost, verdicts, waiting = measure(args.games, args.seconds, args.viewers, args.uploaders, args.drain)
    figures = []
    verdict_rows = ["| target | measured | target | status |", "|---|---|---|---|"]
    games_label = f"{args.games:,}"
    crowd = f"server under a crowd ({args.viewers} SSE viewers, {args.uploaders} uploaders, {args.games} games)"
    pcts, requests, non_2xx = wrk_latency(run.wrk)
    if "99%" not in pcts:
        raise SystemExit(f"wrk reported no latency distribution:\n{run.wrk}")
    figures += [Figure(f"{crowd}: leaderboard API (wrk)", "ms p50", (pcts["50%"],)),
                Figure(f"{crowd}: leaderboard API (wrk)", "ms p99", (pcts["99%"],))]
    verdict_rows.append(f"| leaderboard p99 (wrk, {requests} requests, {non_2xx} not 200) | {pcts['99%']:.1f} ms | < 50 ms | "
                        f"{'met' if pcts['99%'] < 50 and non_2xx == 0 else 'missed'} |")
    for kind, values in run.times.items():
        if values:
            label = f"{crowd}: {kind} (from the crowd's process)"
            figures += [Figure(label, "ms p50", (pct(values, 0.5),)), Figure(label, "ms p99", (pct(values, 0.99),))]
    verdict_rows.append(f"| uploads lost | {lost} of {accepted} accepted | 0 | {'met' if lost == 0 else 'missed'} |")
    if args.drain:
        every = [f - c for c, f in run.judged_all]
        drained = run.drained_s is not None
        verdict_rows.append(f"| the checker keeps up: every upload judged after the crowd stops | "
                            + (f"all {len(every)}, the last {run.drained_s:.0f} s after" if drained else
                               f"not all within {args.drain:.0f} s") + f" | within {args.drain:.0f} s | "
                            f"{'met' if drained else 'missed'} |")
        if drained and run.drained_s is not None:
            figures.append(Figure("server under a crowd: from the crowd's end to the last verdict", "s", (run.drained_s,)))
        if every:
            figures += [Figure("server under a crowd: upload to verdict (every upload, the drain's included)", "s p50",
                               (pct(every, 0.5),)),
                        Figure("server under a crowd: upload to verdict (every upload, the drain's included)", "s max",
                               (max(every),))]
    if verdicts:
        figures.append(Figure("server under a crowd: upload to verdict (judged within the run)", "s p50", (pct(verdicts, 0.5),)))
        figures.append(Figure("server under a crowd: upload to verdict (judged within the run)", "s max", (max(verdicts),)))
    verdict_rows += ["", f"{accepted} uploads accepted, {run.refused_at_door} refused at the door (rate limit), "
                     f"{len(verdicts)} checked within the run, {run.replaced} replaced unchecked by their participant's newer "
                     f"upload (the fair queue checks only a participant's newest), {waiting} still waiting for the checker "
                     "at its end; "
                     f"{run.updates} table fetches on updates; errors: {len(run.errors)} {sorted(set(run.errors))[:5]}. "
                     f"The server process itself used {run.server_share:.2f} of a core (its API, pages, matchmaking, "
                     "signing, SQLite; the checker's and the ladder's bots run in other processes); over the run its "
                     f"threads ran {run.ran_s:.1f} s and waited {run.waited_s:.1f} s on a run queue for a CPU "
                     f"(/proc/PID/task/*/schedstat), of which its event loop's thread (every page and API answer) ran "
                     f"{run.loop_ran_s:.1f} s and waited {run.loop_waited_s:.1f} s and its other threads (the ladder, "
                     f"the checker's waits, the supervisor, worker threads) ran {run.ran_s - run.loop_ran_s:.1f} s: "
                     "where the server's time goes beyond its own work. The leaderboard "
                     f"route's own work against the {games_label} stored games (its answer built from the store, no HTTP, "
                     f"{len(run.route_ms)} calls): p50 {pct(run.route_ms, 0.5):.2f} ms, p99 {pct(run.route_ms, 0.99):.2f} ms. The leaderboard "
                     f"API's latency is wrk's ({WRK_CONNECTIONS} connections, each asking again {WRK_DELAY_MS} ms "
                     "after an answer, in a process of its own); the viewers, uploaders and the page probe run in "
                     "one Python process on the same machine, so their times include that process's own wait for "
                     f"a CPU. Load average at the start {run.load[0]:.1f}, at the end {os.getloadavg()[0]:.1f}, on "
                     f"{os.cpu_count()} cores (a machine shared with other work).",
                     "", "wrk's report:", "", "```", run.wrk.strip(), "```"]
    command = (f"python -m bench.bench_load --games {args.games} --seconds {args.seconds:g} --viewers {args.viewers} "
               f"--uploaders {args.uploaders} --drain {args.drain:g} --write")
    text = report(command, "loopback, sandbox on, the ladder running", verdict_rows, figures)
    print(text)
    if args.write:
        write_section(ROOT / "BENCHMARKS.md", "server-load", "Server under a crowd: SSE viewers, uploads, 100,000 games", text)


if __name__ == "__main__":
    main()
