"""`python -m bench.bench_server [--seconds S] [--write]`: the competition server as a user runs it.

1. Ladder throughput: `arena serve` (a copy of configs/server/ladder.yaml: Kododo 2p, the three sample house
   bots, one worker, sandbox on) runs for S seconds; games stored per hour, and the server process's
   own CPU time (API, matchmaking, signing, SQLite; read from /proc before it stops) against the CPU
   time of the whole tree (the server, its workers and every bot, from getrusage after it exits).
2. Submission to first ladder game: a Python random bot uploaded over HTTP, timed until the API shows
   its first finished ladder game (check-bot --quick and the check games come first).
3. API under load: 100,000 games written into the store first (rows as the ladder writes them: games,
   seats, rating history; replay files are not needed to read the API), then the server started with
   its ladder running and 50 concurrent loopback clients asking for the leaderboard and bot pages,
   bounded to N requests and 120 s; p50/p99 per endpoint.
Loopback only: every request goes to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bench.stats import Figure, report, write_section

ROOT = Path(__file__).resolve().parents[1]
ADMIN = "bench-admin-token-0123456789abcdef"
ARENA = [sys.executable, "-c", "import sys; from arena.cli import main; sys.argv[0]='arena'; main()"]


def _cpu(pid: int, children: bool) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = int(fields[11]) + int(fields[12]) + (int(fields[13]) + int(fields[14]) if children else 0)
    return ticks / os.sysconf("SC_CLK_TCK")


def _config(folder: Path, port: int) -> Path:
    text = (ROOT / "configs/server/ladder.yaml").read_text()
    text = text.replace("root: ../..", f"root: {ROOT}").replace("data: out/ladder-server", f"data: {folder / 'data'}")
    text = text.replace("admin_token_file: out/ladder-server/admin-token", f"port: {port}")
    path = folder / "ladder.yaml"
    path.write_text(text)
    return path


def _port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Served:
    def __init__(self, folder: Path) -> None:
        self.port = _port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.config = _config(folder, self.port)
        self.log = open(folder / "server.log", "ab")
        self.proc = subprocess.Popen([*ARENA, "serve", str(self.config)], env={**os.environ, "ARENA_ADMIN_TOKEN": ADMIN},
                                     stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/api/v1", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("the server did not start")

    def own_cpu(self) -> float:
        return _cpu(self.proc.pid, children=False)

    def tree_cpu(self) -> float:
        """CPU of the server and every live process under it (workers, sandboxes, bots), with what
        each has reaped: workers and bots live across games, so two samples bracket a window."""
        parents: dict[int, int] = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                except (OSError, ValueError, IndexError):
                    pass
        tree, todo = set(), [self.proc.pid]
        while todo:
            pid = todo.pop()
            tree.add(pid)
            todo += [c for c, p in parents.items() if p == pid and c not in tree]
        return sum(_cpu(pid, children=True) for pid in tree)

    def games(self) -> int:
        return int(httpx.get(self.url + "/api/v1", timeout=10).json()["games"])

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(120)


def throughput(seconds: float) -> tuple[float, float, float]:
    """(games per hour, server CPU / tree CPU, server CPU / machine time), over a window after start-up."""
    with tempfile.TemporaryDirectory() as tmp:
        served = Served(Path(tmp))
        try:
            time.sleep(5)  # workers up, bots started
            g0, c0, w0, t0 = served.games(), served.own_cpu(), served.tree_cpu(), time.monotonic()
            time.sleep(seconds)
            g1, c1, w1, t1 = served.games(), served.own_cpu(), served.tree_cpu(), time.monotonic()
        finally:
            served.stop()
        return (g1 - g0) / (t1 - t0) * 3600, (c1 - c0) / (w1 - w0), (c1 - c0) / ((t1 - t0) * (os.cpu_count() or 1))


def first_game() -> float:
    sys.path.insert(0, str(ROOT))
    from tests.server.bots import python_random

    with tempfile.TemporaryDirectory() as tmp:
        served = Served(Path(tmp))
        try:
            token = httpx.post(served.url + "/api/v1/admin/participants", headers={"Authorization": f"Bearer {ADMIN}"},
                               json={"name": "bench"}).json()["token"]
            auth = {"Authorization": f"Bearer {token}"}
            began = time.monotonic()
            sub = httpx.post(served.url + "/api/v1/submissions", headers=auth, content=python_random(), timeout=60).json()["submission"]
            while time.monotonic() - began < 300:
                body = httpx.get(f"{served.url}/api/v1/submissions/{sub}", headers=auth).json()
                if body["status"] == "refused":
                    raise RuntimeError(body["reason"])
                if body["bot"] and httpx.get(f"{served.url}/api/v1/bots/{body['bot']}").json()["games"] >= 1:
                    return time.monotonic() - began
                time.sleep(0.1)
            raise RuntimeError("no ladder game within 300 s")
        finally:
            served.stop()


def fill_store(data: Path, games: int) -> list[int]:
    """`games` finished games among the house bots and 17 retired versions, as the ladder stores them."""
    from arena.jsonvalue import dumps
    from arena.ladder.config import load
    from arena.ladder.service import Server

    os.environ["ARENA_ADMIN_TOKEN"] = ADMIN
    server = Server(load(data.parent / "ladder.yaml"), sandbox=True)
    db = server.db
    with db.write() as conn:
        owner = conn.execute("INSERT INTO participants(name, token_hash, created) VALUES('filler', 'x', 0)").lastrowid
        for i in range(17):
            conn.execute("INSERT INTO bots(participant_id, name, version, command, folder, status, created, mu, sigma) "
                         "VALUES(?, 'old', ?, '[]', '/nonexistent', 'retired', 0, 25, 8.3)", (owner, str(i)))
    bots = [int(r["id"]) for r in db.all("SELECT id FROM bots")]
    rng = random.Random(1)
    with db.write() as conn:
        for g in range(games):
            seats = rng.sample(bots, 2)
            ranks = [1, 2] if rng.random() < 0.5 else [2, 1]
            result = {"points": [50, 30] if ranks[0] == 1 else [30, 50], "ranks": ranks, "game_ranks": ranks,
                      "fault_counts": [0, 0], "decisions": 60, "duration_s": 0.2}
            cur = conn.execute("INSERT INTO games(status, seq, seats, seed, created, finished, result, faults, replay, sha256) "
                               "VALUES('done', ?, ?, ?, 0, 0, ?, '[]', NULL, NULL)",
                               (g + 1, dumps(seats).decode(), g, dumps(result).decode()))
            for s, bot in enumerate(seats):
                conn.execute("INSERT INTO game_seats VALUES(?, ?, ?, ?, ?, 0, 25.0, 3.0)",
                             (cur.lastrowid, s, bot, ranks[s], result["points"][s]))
        conn.execute("UPDATE bots SET games = (SELECT COUNT(*) FROM game_seats WHERE bot_id = bots.id)")
    db.reader().close()
    db._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    server.lock.release()  # the data folder's lock (one server per folder): the `arena serve` started next takes it
    return bots


async def _load(url: str, bots: list[int], requests: int, clients: int, limit_s: float, think_s: float) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"leaderboard": [], "bot page": []}
    left = requests
    deadline = time.monotonic() + limit_s

    async def client(n: int, http: httpx.AsyncClient) -> None:
        nonlocal left
        rng = random.Random(n)
        await asyncio.sleep(rng.uniform(0, think_s))  # clients arrive spread over one think time
        while left > 0 and time.monotonic() < deadline:
            left -= 1
            kind = "leaderboard" if rng.random() < 0.5 else "bot page"
            path = "/api/v1/leaderboard" if kind == "leaderboard" else f"/api/v1/bots/{rng.choice(bots)}"
            began = time.perf_counter()
            r = await http.get(path)
            times[kind].append((time.perf_counter() - began) * 1000)
            assert r.status_code == 200, r.text
            await asyncio.sleep(rng.uniform(0.5, 1.5) * think_s)

    # One client object with a connection per simulated client: building 50 httpx clients (an SSL
    # context each) would block the event loop for seconds and charge it to the first requests.
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, timeout=30, limits=limits) as http:
        await asyncio.gather(*(client(n, http) for n in range(clients)))
    return times


def api_load(games: int, requests: int, clients: int, think_s: float) -> tuple[dict[str, list[float]], int]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        port = _port()
        _config(folder, port)
        bots = fill_store(folder / "data", games)
        served = Served(folder)
        try:
            time.sleep(3)
            g0 = served.games()
            times = asyncio.run(_load(served.url, bots, requests, clients, 120.0, think_s))
            played = served.games() - g0
        finally:
            served.stop()
        return times, played


def pct(values: list[float], q: float) -> float:
    return sorted(values)[min(len(values) - 1, int(q * len(values)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=120.0, help="how long the throughput run lasts")
    parser.add_argument("--games", type=int, default=100_000, help="games in the store for the API load")
    parser.add_argument("--requests", type=int, default=5000, help="requests of the API load (bounded by 120 s too)")
    parser.add_argument("--think-ms", type=float, default=1000.0,
                        help="each client's pause between an answer and its next request (uniform 0.5x-1.5x)")
    parser.add_argument("--write", action="store_true", help="write the figures into BENCHMARKS.md")
    args = parser.parse_args()
    started = time.perf_counter()
    rate, tree_share, machine_share = throughput(args.seconds)
    latency = first_game()
    times, played = api_load(args.games, args.requests, 50, args.think_ms / 1000)
    figures = [
        Figure("server: ladder, Kododo 2p, 3 sample bots, 1 worker, sandbox", "games/hour", (rate,)),
        Figure("server: its own CPU / CPU of server, workers and bots", "%", (100 * tree_share,)),
        Figure("server: its own CPU / machine time (all cores)", "%", (100 * machine_share,)),
        Figure("server: submission of a Python bot to its first ladder game", "s", (latency,)),
    ]
    verdicts = ["| target | measured | target | status |", "|---|---|---|---|",
                f"| server's share of the CPU time of the ladder (server, workers, bots) | {100 * tree_share:.1f} % ({100 * machine_share:.1f} % of the machine) | < 10 % | {'met' if tree_share < 0.10 else 'missed'} |",
                f"| submission to first ladder game (Python) | {latency:.1f} s | < 30 s | {'met' if latency < 30 else 'missed'} |"]
    for kind, values in times.items():
        p50, p99 = pct(values, 0.50), pct(values, 0.99)
        figures.append(Figure(f"server: {kind}, {args.games} games stored, 50 clients (think {args.think_ms:g} ms), ladder running", "ms p50", (p50,)))
        figures.append(Figure(f"server: {kind}, {args.games} games stored, 50 clients (think {args.think_ms:g} ms), ladder running", "ms p99", (p99,)))
        verdicts.append(f"| {kind} p99, {len(values)} requests | {p99:.1f} ms | < 50 ms | {'met' if p99 < 50 else 'missed'} |")
    verdicts.append("")
    verdicts.append(f"During the API load the ladder stored {played} games. Load average at the end: "
                    f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (other jobs share this machine).")
    command = f".venv/bin/python -m bench.bench_server --seconds {args.seconds:g} --think-ms {args.think_ms:g} --requests {args.requests}"
    text = report(f"{command} --write", f"{time.perf_counter() - started:.0f} s", verdicts, figures)
    print(text)
    if args.write:
        write_section(ROOT / "BENCHMARKS.md", "server", "The competition server (arena serve)", text)


if __name__ == "__main__":
    main()
