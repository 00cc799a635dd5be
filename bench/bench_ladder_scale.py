"""`python -m bench.bench_ladder_scale [--games N] [--rate R] [--write]`: the live leaderboard with a
million games stored, while games are stored at the coordinator's rate.

A server store (arena/ladder/db.py's schema) is filled with N finished games of 30 bots (2 seats each,
their seats and ratings; direct inserts in one transaction). The server's app is served by uvicorn on
loopback (its ladder not started: no bot process), and a thread of the same process stores R games a
second through the ladder's own write path (`results.reserve` then `results.commit`: the ratings they
move, the write generation that empties the page cache), so nearly every request builds its answer
afresh, as on a busy ladder. `wrk` then measures GET / (the leaderboard page), /api/v1/leaderboard,
/api/v1 (the facts `arena ladder status` reads), /api/v1/games and a bot's page, each for a few seconds.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from arena.core.result import Played
from arena.ladder import results
from arena.ladder.config import parse
from arena.ladder.db import TALLY_SQL, Database
from arena.ladder.service import Server
from arena.ladder.states import BotState, GameState
from arena.stats.ratings import FastRater
from bench.stats import Figure, report, write_section

ROOT = Path(__file__).resolve().parents[1]
BOTS = 30
PATHS = ("/", "/api/v1/leaderboard", "/api/v1", "/api/v1/games", "/bots/7")


def fill(db_path: Path, games: int) -> None:
    """`games` finished games between BOTS bots, in one transaction (the fill, not what is measured)."""
    db = Database(db_path)
    rng = random.Random(1)
    conn = db._writer  # noqa: SLF001 - the fill writes as the store's own writer, in one transaction
    conn.execute("BEGIN")
    for i in range(1, BOTS + 1):
        conn.execute("INSERT INTO participants(id, name, token_hash, is_house, created) VALUES(?,?,?,0,0)", (i, f"p{i}", f"h{i}"))
        conn.execute("INSERT INTO bots(id, participant_id, name, version, command, folder, status, created, mu, sigma, games) "
                     "VALUES(?,?,?,?,?,?,?,0,?,?,?)", (i, i, f"bot{i}", "1", '["true"]', "/nonexistent", BotState.ACTIVE,
                                                      25.0 + rng.random(), 1.0 + rng.random(), games * 2 // BOTS))
    result = '{"points":[3,1],"ranks":[1,2],"game_ranks":[1,2],"fault_counts":[0,0],"decisions":40,"duration_s":0.01}'

    def pairs() -> list[tuple[int, int]]:
        return [tuple(rng.sample(range(1, BOTS + 1), 2)) for _ in range(10_000)]  # type: ignore[misc]

    for start in range(1, games + 1, 10_000):
        seats = pairs()[: min(10_000, games + 1 - start)]
        conn.executemany("INSERT INTO games(id, status, seq, seats, seed, created, finished, result, faults) "
                         "VALUES(?,?,?,?,?,?,?,?,'[]')",
                         ((start + k, GameState.DONE, start + k, f"[{a},{b}]", start + k, 0.0, 0.0, result)
                          for k, (a, b) in enumerate(seats)))
        conn.executemany("INSERT INTO game_seats(game_id, seat, bot_id, rank, points, faults, mu, sigma) VALUES(?,?,?,?,?,0,25,2)",
                         ((start + k, s, bot, s + 1, 3 - 2 * s) for k, pair in enumerate(seats) for s, bot in enumerate(pair)))
    conn.execute(TALLY_SQL)  # the bot page's tally, as the ladder's commits would have kept it
    conn.execute("COMMIT")
    conn.execute("ANALYZE")


class Writer(threading.Thread):
    """Stores `rate` games a second through the ladder's own write path until stopped."""

    def __init__(self, db: Database, rate: float) -> None:
        super().__init__(daemon=True)
        self.db, self.rate, self.stored, self.stop = db, rate, 0, threading.Event()

    def run(self) -> None:
        rater, rng = FastRater(results.MODEL), random.Random(2)
        played = Played((3, 1), ((), ()), (1, 2), (1, 2), (), ("1", "1"), 40, 0.01)
        started = time.perf_counter()
        while not self.stop.is_set():
            seats = tuple(rng.sample(range(1, BOTS + 1), 2))
            game = results.reserve(self.db, seats, rng.getrandbits(31))
            results.commit(self.db, results.Finished(game, played, None), 10, rater)
            self.stored += 1
            lag = started + self.stored / self.rate - time.perf_counter()
            if lag > 0:
                time.sleep(lag)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wrk(url: str, seconds: int, connections: int) -> tuple[float, float, float]:
    """(requests/s, median ms, 99th percentile ms) by `wrk --latency`."""
    out = subprocess.run(["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", url],
                         capture_output=True, text=True, check=True).stdout

    def ms(label: str) -> float:
        found = re.search(rf"^\s*{label}\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
        assert found, out
        return float(found.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[found.group(2)]

    rate = re.search(r"Requests/sec:\s+([\d.]+)", out)
    assert rate and "Non-2xx" not in out, out
    return float(rate.group(1)), ms("50%"), ms("99%")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--rate", type=float, default=1000.0, help="games stored a second while measuring (what one coordinator can feed: about 1000)")
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--write", action="store_true", help="write the figures into BENCHMARKS.md")
    args = parser.parse_args()
    import uvicorn

    from arena.server.app import build

    os.environ.setdefault("ARENA_ADMIN_TOKEN", "bench-admin-token-0123456789abcdef")
    began = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        config = parse({"name": "scale", "game": "kododo", "players": 2, "data": f"{tmp}/data"}, Path(tmp) / "ladder.yaml")
        config.database.parent.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        fill(config.database, args.games)
        filled = time.perf_counter() - t0
        server = Server(config, sandbox=False)
        assert server.read.game_counts()[GameState.DONE] == args.games, "the server does not read the filled store"
        port = free_port()
        web = uvicorn.Server(uvicorn.Config(build(server, pages_per_minute=10**9), host="127.0.0.1", port=port,
                                            lifespan="off", log_level="warning"))
        threading.Thread(target=web.run, daemon=True).start()
        while not web.started:
            time.sleep(0.05)
        writer = Writer(server.db, args.rate)
        writer.start()
        figures: list[Figure] = []
        stored0, t1 = writer.stored, time.perf_counter()
        for path in PATHS:
            rps, p50, p99 = wrk(f"http://127.0.0.1:{port}{path}", args.seconds, args.connections)
            name = f"ladder of {args.games:,} games, {args.rate:.0f} games/s being stored: GET {path}"
            figures += [Figure(name + ", median", "ms", (p50,)), Figure(name + ", 99th percentile", "ms", (p99,)),
                        Figure(name, "requests/s", (rps,))]
        stored_rate = (writer.stored - stored0) / (time.perf_counter() - t1)
        writer.stop.set()
        writer.join()
        web.should_exit = True
        time.sleep(0.5)
    lines = [f"Filled {args.games:,} games (and their {2 * args.games:,} seats) in {filled:.0f} s; while measuring, "
             f"{stored_rate:.0f} games/s were stored (asked {args.rate:.0f}) through the ladder's own commit, each write "
             f"emptying the page cache. wrk, 1 thread, {args.connections} connections, {args.seconds} s a route; "
             "server and writer in one process (as `arena serve`), on a 2-core machine."]
    command = f".venv/bin/python -m bench.bench_ladder_scale --games {args.games} --rate {args.rate:.0f}"
    text = report(f"{command} --write", f"{time.perf_counter() - began:.0f} s", lines, figures)
    print(text)
    if args.write:
        write_section(ROOT / "BENCHMARKS.md", "ladder-scale", "The live leaderboard with a million games stored", text)


if __name__ == "__main__":
    main()
