"""Tournament throughput as a user runs it (issue 25, goal 1): `arena run CONFIG -j 2 --fresh` as a whole process,
with its defaults (sandboxed wherever bubblewrap runs), next to its two anchors in the same run.

`python -m bench.bench_throughput [--quick] [--write]`. Each repeat, interleaved (the order rotates):
  - arena: the `arena` console script on a Kododo 4p config, 4 entrants all the instant C bot with distinct
    seeds, round-robin with cyclic rotations, sized by two warm-up runs (5, 20 rounds) to last about 6 s (3 s, --quick).
    Decisions come from the store (`SUM(decisions)` over its games, the runner's own count) and are divided
    by the whole process's wall clock; the runner's own rate (from the games/s it prints) is shown too.
    CPU: every ~20 ms /proc is walked for the process's descendants (ppid tree) and each pid's last CPU
    time is kept (schedstat's ns, as utime+stime come in 10 ms ticks): python processes are arena's own (the
    CLI, its workers), bwrap the sandbox, random_bot the bots. The last <20 ms of a process's life can be
    missed (the workers and the kept-alive bots live the whole run; arena's exit after its standings does
    not); the poller's own CPU is shown. arena's CPU is given per decision over the whole run (its start-up
    included, as a user pays it) and marginal: less that of a 20-round run, per extra decision.
  - arena --no-pin: the same run with every process free to run on any core (the default puts each worker and
    its bots on a core of their own, `arena.tournament.run.affinity`): what pinning buys, in the same repeat.
  - raw fan-out: two processes (as `-j 2`), each a plain `selectors` loop over 4 of the same C bots started
    directly (no sandbox): the protocol's hello, then real Kododo traffic captured once from `arena run`
    (start, every step's request to all 4 seats, end), writing the step's 4 requests and reading the 4
    answers. No JSON, no engine, no store: the upper bound of a Python process relaying decisions.
  - fastchess (a dev-only anchor, never built by this code): stockfish self-play at `nodes=1`, so engines
    answer at once and the harness is what is timed; moves/s = plies in its PGN / the process's wall clock
    (which holds its fixed costs: each engine's start, ~0.25 s for stockfish's network; fastchess's wait for
    the last game, checked once a second; 0.1 s per engine's exit).
    Found from $FASTCHESS, PATH, /work/anchors/fastchess or /work/anchors/fastchess-src/fastchess, and
    stockfish from $STOCKFISH, PATH, /usr/games/stockfish or /work/anchors/stockfish. Without them the ratio
    row says "not measured". To get them (Debian): `apt-get install stockfish` (/usr/games/stockfish);
    `git clone https://github.com/Disservin/fastchess && make -C fastchess -j2` (C++17), then
    `FASTCHESS=$PWD/fastchess/fastchess`.
  - what 0.7 of the raw loop needs: each repeat, the CPU per decision arena's own processes could spend if
    both cores were busy all the time (2 cores / (0.7 x the raw loop's rate), less the arena run's bots' and
    bwrap's CPU). After the repeats, two parts that every referee running the engine in Python pays, each timed
    alone in this process: the engine with views (`bench.bench_decision.measure`), and the protocol's JSON on the
    captured traffic (each request encoded as the referee does, the parts all seats share once a step, checked
    to give the captured bytes; an answer parsed per request). What they leave of the budget is set against
    the raw loop's own CPU: its relay alone.
Ratios are taken within each repeat (the machine's state moves between repeats); figures are medians with
their range. The bots, sandboxed or not, and arena run on the same 2 cores as the anchors do.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import selectors
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.stats import Figure, byte_compile, fmt, marked_sections, report, write_section

ROOT = Path(__file__).resolve().parents[1]
ARENA = ROOT / ".venv" / "bin" / "arena"
CORES = 2  # -j 2 on this machine's 2 cores
BUDGET = ("what arena's own processes could spend at 0.7 of the raw loop, both cores always busy: "
          "2 cores / (0.7 x raw decisions/s), less the same repeat's bots' and bwrap's CPU")
ENGINE = "the Kododo engine with views, no referee (bench.bench_decision: legal actions, view, apply, events)"
JSON_COST = ("the protocol's JSON alone on the captured traffic: each request encoded (the parts all seats share "
             "once a step), an answer parsed")
TITLE = "Tournament throughput as users run it: `arena run -j 2` vs fastchess and the raw fan-out loop (issue 25, goal 1)"
TICK = 0.02
CLK = os.sysconf("SC_CLK_TCK")


# ---- CPU of a process tree, from /proc ------------------------------------------------------------------

def _listdir(path: str) -> list[str]:
    try:
        return os.listdir(path)
    except OSError:
        return []


def _pids() -> set[int]:
    return {int(p) for p in _listdir("/proc") if p.isdigit()}


@dataclass
class TreeCpu:
    """Polls /proc for `root` and its descendants; `seconds()` sums each pid's last CPU time by kind.

    A pid's CPU is the larger of utime+stime (every thread's, in whole 10 ms ticks: a bwrap that ran 5 ms reads 0)
    and schedstat's ns (its main thread's); its /proc files stay open and are re-read with pread (cheaper)."""
    root: int
    outside: set[int]  # pids that are not the root's descendants (existed before it, or another parent)
    kinds: dict[str, str]  # comm -> kind; python* is "python", anything else "other"
    last: dict[int, tuple[str, float]] = field(default_factory=dict)  # pid -> (comm, CPU s), the dead ones too
    fds: dict[int, tuple[int, int]] = field(default_factory=dict)  # live pid -> its stat and schedstat
    simple: set[int] = field(default_factory=set)  # live single-threaded non-python pids: schedstat alone, mostly
    polls: int = 0
    stop: threading.Event = field(default_factory=threading.Event)
    own_cpu: float = 0.0  # the poller thread's CPU time

    def read(self, pid: int) -> tuple[int, str, float] | None:
        """(ppid, comm, CPU s) of a live pid, else None (and its files closed)."""
        try:
            if pid not in self.fds:
                self.fds[pid] = (os.open(f"/proc/{pid}/stat", os.O_RDONLY), os.open(f"/proc/{pid}/schedstat", os.O_RDONLY))
            stat, sched = (os.pread(fd, 4096, 0) for fd in self.fds[pid])
            head, _, rest = stat.rpartition(b")")
            fields = rest.split()
            ran = int(sched.split()[0])  # the main thread's: a multi-threaded process falls back on its ticks
            ticks = (int(fields[11]) + int(fields[12])) / CLK  # every thread's, the dead ones too
            comm = head.partition(b"(")[2].decode(errors="replace")
            if int(fields[17]) == 1 and not comm.startswith("python"):
                self.simple.add(pid)
            return int(fields[1]), comm, max(ticks, ran / 1e9)
        except (OSError, ValueError, IndexError):
            self.close(pid)
            return None

    def close(self, pid: int) -> None:
        self.simple.discard(pid)
        for fd in self.fds.pop(pid, ()):
            os.close(fd)

    def refresh(self, pid: int) -> None:
        """A known pid's CPU: a bot's or bwrap's from schedstat alone, but for every 10th poll (its comm can
        change at exec, from bwrap to the bot it starts), else from both files."""
        comm, cpu = self.last[pid]
        if pid in self.simple and self.polls % 10:
            try:
                self.last[pid] = (comm, max(cpu, int(os.pread(self.fds[pid][1], 256, 0).split()[0]) / 1e9))
            except (OSError, ValueError, IndexError):
                self.close(pid)
        elif (st := self.read(pid)) is not None:
            self.last[pid] = st[1:]

    def scan(self) -> None:
        self.polls += 1
        for pid in list(self.fds):
            self.refresh(pid)
        pending = {}
        for pid in _pids() - self.outside - self.last.keys():
            st = self.read(pid)
            if st is not None:
                pending[pid] = st
        tree, grew = self.last.keys() | {self.root}, True
        while grew:  # a child can be listed before its parent is known to be ours
            grew = False
            for pid, (ppid, comm, cpu) in list(pending.items()):
                if pid in tree or ppid in tree:
                    tree.add(pid)
                    self.last[pid] = (comm, cpu)
                    del pending[pid]
                    grew = True
        for pid in pending:
            self.outside.add(pid)
            self.close(pid)

    def poll(self) -> None:
        start = time.thread_time()
        while not self.stop.is_set():
            self.scan()
            self.stop.wait(TICK)
        self.own_cpu = time.thread_time() - start
        for pid in list(self.fds):
            self.close(pid)

    def seconds(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for comm, cpu in self.last.values():
            kind = self.kinds.get(comm, "python" if comm.startswith("python") else "other")
            out[kind] = out.get(kind, 0.0) + cpu
        return out


def timed(cmd: list[str], kinds: dict[str, str], cwd: Path) -> tuple[float, str, dict[str, float], float]:
    """Run `cmd` to its end: (wall s, stdout, CPU s of its process tree by kind, the poller's own CPU s)."""
    outside = _pids()
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    poller = TreeCpu(proc.pid, outside, kinds)
    thread = threading.Thread(target=poller.poll, daemon=True)
    thread.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - started
    poller.stop.set()
    thread.join()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited with {proc.returncode}: {err[-2000:]}")
    return wall, out, poller.seconds(), poller.own_cpu


# ---- arena, as a user runs it ---------------------------------------------------------------------------

def write_config(folder: Path, bot: str, rounds: int, name: str = "throughput", extra: str = "", wrap: bool = False) -> Path:
    """A Kododo 4p config: 4 entrants, each the instant C bot with its own seed; `sandbox` left unset
    (the default: on wherever bubblewrap runs). `wrap` records each bot's input with tee (capture only)."""
    def command(i: int) -> list[str]:
        if wrap:
            return ["sh", "-c", f'tee "{folder}/capture-$0-$$.jsonl" | "{bot}" $0', str(i)]
        return [bot, str(i)]
    entrants = "\n".join(f"  - {{name: c{i}, command: {json.dumps(command(i))}}}" for i in range(1, 5))
    path = folder / f"{name}.yaml"
    path.write_text(f"name: {name}\ngame: kododo\nplayers: 4\nroot: {json.dumps(str(ROOT))}\n{extra}entrants:\n{entrants}\n"
                    f"schedule: {{format: round-robin, rotations: cyclic, rounds: {rounds}}}\nseed: 7\n"
                    f"output: {{store: {json.dumps(str(folder / (name + '.sqlite')))}}}\n")
    return path


@dataclass
class ArenaRun:
    wall: float
    decisions: int
    runner_s: float  # the run's own duration: games / the games/s `arena run` prints
    sandboxed: str  # "4 of 4", as `arena run` prints it
    cpu: dict[str, float]
    poller: float


def run_arena(folder: Path, bot: str, rounds: int, *flags: str) -> ArenaRun:
    config = write_config(folder, bot, rounds)
    wall, out, cpu, poller = timed([str(ARENA), "run", str(config), "-j", "2", "--fresh", *flags],
                                         {"arena": "python", "bwrap": "bwrap", Path(bot).name[:15]: "bot"}, folder)
    with sqlite3.connect(folder / "throughput.sqlite") as db:
        games, decisions = db.execute("SELECT COUNT(*), COALESCE(SUM(decisions), 0) FROM games").fetchone()
    assert games == 4 * rounds, (games, rounds)
    rate = re.search(r"played now in [\d.]+ s, ([\d.]+) games/s", out)  # finer than its seconds
    boxed = re.search(r"sandbox: (\d+ of \d+)", out)
    return ArenaRun(wall, int(decisions), games / float(rate.group(1)) if rate else wall, boxed.group(1) if boxed else "?",
                    cpu, poller)


def capture(folder: Path, bot: str) -> Path:
    """Real Kododo traffic: one round (4 games) through `arena run` with tee in front of each bot (unsandboxed,
    so tee can write), as JSON: the hello line, then per game the start lines, the steps' requests, the end lines."""
    config = write_config(folder, bot, 1, name="capture", extra="sandbox: false\n", wrap=True)
    subprocess.run([str(ARENA), "run", str(config), "-j", "1", "--fresh", "-q"], cwd=folder, check=True, capture_output=True)
    games: dict[str, list[tuple[int, dict[str, object], str]]] = {}  # game id -> (seat, message, line), seat by seat
    for path in sorted(folder.glob("capture-*.jsonl")):
        hello, *lines = path.read_text().splitlines()
        messages = [json.loads(line) for line in lines]
        games.setdefault(messages[0]["game_id"], []).extend((messages[0]["seat"], m, line) for m, line in zip(messages, lines))
    out = []
    for seen in games.values():
        def of(kind: str, step: object = None) -> list[tuple[int, str]]:
            return [(seat, line) for seat, m, line in sorted(seen, key=lambda x: x[0]) if m.get("type") == kind and m.get("step") == step]
        steps = sorted({int(str(m["step"])) for _, m, _ in seen if m.get("type") == "request"})
        out.append({"start": of("start"), "steps": [of("request", k) for k in steps], "end": of("end")})
    path = folder / "traffic.json"
    path.write_text(json.dumps({"hello": hello, "games": out}))
    return path


# ---- the raw fan-out loop -------------------------------------------------------------------------------

def fanout(traffic: Path, bot: str, seconds: float) -> None:
    """One raw loop over 4 bots (a worker process): handshake, say ready, wait for "go", relay for `seconds`."""
    data = json.loads(traffic.read_text())
    procs = [subprocess.Popen([bot, str(i + 1)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0) for i in range(4)]
    wfd = [p.stdin.fileno() for p in procs if p.stdin is not None]
    rfd = [p.stdout.fileno() for p in procs if p.stdout is not None]
    sel = selectors.DefaultSelector()
    for fd in rfd:
        sel.register(fd, selectors.EVENT_READ)
        os.set_blocking(fd, False)

    def answers(n: int) -> None:
        while n > 0:
            for key, _ in sel.select():
                n -= os.read(key.fd, 65536).count(b"\n")

    for fd in wfd:
        os.write(fd, data["hello"].encode() + b"\n")
    answers(4)
    games = [([(s, (line + "\n").encode()) for s, line in g["start"]],
              [[(s, (line + "\n").encode()) for s, line in step] for step in g["steps"]],
              [(s, (line + "\n").encode()) for s, line in g["end"]]) for g in data["games"]]
    print("ready", flush=True)
    sys.stdin.readline()
    decisions, cpu, started = 0, time.process_time(), time.perf_counter()
    while time.perf_counter() - started < seconds:
        for starts, steps, ends in games:
            for seat, line in starts:
                os.write(wfd[seat], line)
            for step in steps:
                for seat, line in step:
                    os.write(wfd[seat], line)
                answers(len(step))
                decisions += len(step)
            for seat, line in ends:
                os.write(wfd[seat], line)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    for fd, proc in zip(wfd, procs):
        os.write(fd, b'{"type":"shutdown"}\n')
        os.close(fd)
        proc.wait(5)
    print(json.dumps({"decisions": decisions, "seconds": elapsed, "cpu": cpu}), flush=True)


def run_fanout(traffic: Path, bot: str, seconds: float, loops: int = 2) -> tuple[float, float]:
    """(decisions/s summed over `loops` concurrent loops, the loops' own CPU us per decision)."""
    cmd = [sys.executable, "-m", "bench.bench_throughput", "--fanout", str(traffic), "--bot", bot, "--seconds", str(seconds)]
    workers = [subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for _ in range(loops)]
    for w in workers:
        assert w.stdout is not None and w.stdout.readline().strip() == "ready"
    for w in workers:
        assert w.stdin is not None
        w.stdin.write("go\n")
        w.stdin.flush()
    results = [json.loads(w.communicate()[0]) for w in workers]
    decisions = sum(r["decisions"] for r in results)
    return sum(r["decisions"] / r["seconds"] for r in results), 1e6 * sum(r["cpu"] for r in results) / decisions


def json_cost(traffic: Path, passes: int = 5, rounds: int = 100) -> float:
    """CPU us per decision of the protocol's JSON alone, on the captured traffic, encoded the way the referee
    does it: per step, the view's lists and objects that every seat's request holds alike encoded once
    (`arena.jsonvalue.encoded`) and placed in each request; each request then encoded (`dumps_line`), and an
    answer line per request parsed (its first legal action, `jsonvalue.loads`). The best of `passes`, each the
    traffic `rounds` times over (one time over is about a millisecond: too short to time alone)."""
    from arena.jsonvalue import dumps_line, encoded, loads

    data = json.loads(traffic.read_text())
    steps = [[json.loads(line) for _, line in step] for g in data["games"] for step in g["steps"]]
    answers = [[json.dumps({"action": r["legal"][0], "id": r["id"]}).encode() for r in step] for step in steps]
    # Found before the timing (the referee knows them: the game's `public_view`): the view's keys whose lists and
    # objects every seat's request holds alike, their values, and each request with a view of its own to place them in.
    alike = [[k for k, v in step[0]["view"].items() if type(v) in (list, dict) and all(r["view"].get(k) == v for r in step)]
             for step in steps]
    values = [[step[0]["view"][k] for k in keys] for step, keys in zip(steps, alike)]
    messages = [[{**r, "view": dict(r["view"])} for r in step] for step in steps]
    captured = [[(line + "\n").encode() for _, line in step] for g in data["games"] for step in g["steps"]]
    for step, keys, shared, lines in zip(messages, alike, values, captured):  # the bytes the bots were sent, exactly
        for message, line in zip(step, lines):
            message["view"].update({k: encoded(v) for k, v in zip(keys, shared)})
            if dumps_line(message) != line:
                raise AssertionError(f"the JSON part's encoding differs from the captured request {line[:80]!r}")
    best, decisions = float("inf"), sum(map(len, steps)) * rounds
    for _ in range(passes):
        started = time.process_time()
        for _ in range(rounds):
            for step, lines, keys, shared in zip(messages, answers, alike, values):
                placed = [encoded(v) for v in shared]
                for message, answer in zip(step, lines):
                    view = message["view"]
                    for k, v in zip(keys, placed):
                        view[k] = v
                    dumps_line(message)
                    loads(answer)
        best = min(best, time.process_time() - started)
    return 1e6 * best / decisions


# ---- fastchess ------------------------------------------------------------------------------------------

def size(a: int, wall_a: float, b: int, wall_b: float, seconds: float) -> int:
    """Rounds for a run of about `seconds`, from two runs' walls (a fixed cost, then a cost per round)."""
    per_round = max((wall_b - wall_a) / (b - a), 0.2 * wall_b / b)  # a floor: walls come in steps (fastchess's in 1 s)
    return max(a, round((seconds - (wall_a - a * per_round)) / per_round))


def find(env: str, name: str, places: list[str]) -> str | None:
    for candidate in [os.environ.get(env, ""), shutil.which(name) or "", *places]:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def plies(pgn: str) -> int:
    moves = re.sub(r"\{[^}]*\}|\([^)]*\)|;[^\n]*", " ", "\n".join(line for line in pgn.splitlines() if not line.startswith("[")))
    return sum(1 for t in moves.split() if not re.fullmatch(r"\d+\.+|1-0|0-1|1/2-1/2|\*|\$\d+", t))


def run_fastchess(folder: Path, fastchess: str, stockfish: str, rounds: int) -> tuple[int, float, dict[str, float]]:
    """(plies, wall s, CPU s by kind) of `rounds` x 2 games of stockfish self-play at nodes=1, -concurrency 2."""
    pgn = folder / "fastchess.pgn"
    pgn.unlink(missing_ok=True)
    cmd = [fastchess, "-engine", f"cmd={stockfish}", "name=a", "-engine", f"cmd={stockfish}", "name=b",
           "-each", "tc=inf", "nodes=1", "-rounds", str(rounds), "-games", "2", "-concurrency", "2",
           "-pgnout", f"file={pgn}", "notation=uci"]
    wall, _, cpu, _ = timed(cmd, {"fastchess": "harness", "stockfish": "engine"}, folder)
    return plies(pgn.read_text()), wall, cpu


# ---- the benchmark --------------------------------------------------------------------------------------

def run(repeats: int, seconds: float) -> tuple[list[Figure], list[str], str]:
    from bench.bench_referee import ensure_c_bot

    bot = ensure_c_bot()
    fastchess = find("FASTCHESS", "fastchess", ["/work/anchors/fastchess", "/work/anchors/fastchess-src/fastchess"])
    stockfish = find("STOCKFISH", "stockfish", ["/usr/games/stockfish", "/work/anchors/stockfish"])
    anchored = fastchess is not None and stockfish is not None
    values: dict[tuple[str, str], list[float]] = {}

    def add(name: str, unit: str, value: float) -> None:
        values.setdefault((name, unit), []).append(value)

    with tempfile.TemporaryDirectory(prefix="bench-throughput-") as tmp:
        folder = Path(tmp)
        traffic = capture(folder, bot)
        run_arena(folder, bot, 5)  # warm-up: the first run after byte-compiling, the C bot's first starts
        # Sized to `seconds` from two runs far enough apart that a hiccup in either moves the size little:
        # from 5 and 20 rounds, the size moved several-fold between runs on this machine (991 rounds in
        # BENCHMARKS.md at 9e131d4, 278 in a run of the next make bench, not kept), and a whole run's
        # figures (start-up included) with it.
        small, warm = run_arena(folder, bot, 20), run_arena(folder, bot, 80)
        rounds = size(20, small.wall, 80, warm.wall, seconds)
        fc_rounds = 0
        if fastchess is not None and stockfish is not None:
            fc_small, fc_big = run_fastchess(folder, fastchess, stockfish, 2)[1], run_fastchess(folder, fastchess, stockfish, 40)[1]
            fc_rounds = size(2, fc_small, 40, fc_big, seconds)
        sandboxed = warm.sandboxed
        arena_name = f"arena run -j 2, Kododo 4p, instant C bots, defaults ({rounds} rounds x 4 rotations)"
        for r in range(repeats):
            rates: dict[str, float] = {}
            others = 0.0  # the arena run's bots' and bwrap's CPU per decision
            parts = ["arena", "unpinned", "raw"] + (["fastchess"] if anchored else [])
            for part in parts[r % len(parts):] + parts[: r % len(parts)]:
                if part == "arena":
                    a = run_arena(folder, bot, rounds)
                    rates["arena"], rates["runner"] = a.decisions / a.wall, a.decisions / a.runner_s
                    add(f"{arena_name}, whole process", "decisions/s", rates["arena"])
                    add(f"{arena_name}, the runner's own rate (as it prints)", "decisions/s", rates["runner"])
                    add(f"{arena_name}: wall clock of the process", "s", a.wall)
                    for kind, label in (("python", "arena's own processes (python)"), ("bwrap", "the sandbox (bwrap)"),
                                        ("bot", "the bots"), ("other", "other processes")):
                        add(f"{arena_name}: CPU of {label}", "us/decision", 1e6 * a.cpu.get(kind, 0.0) / a.decisions)
                    add(f"{arena_name}: CPU of arena's own processes, marginal (less a 20-round run's)", "us/decision",
                        1e6 * (a.cpu["python"] - small.cpu["python"]) / (a.decisions - small.decisions))
                    add(f"{arena_name}: CPU of the whole tree", "us/decision", 1e6 * sum(a.cpu.values()) / a.decisions)
                    others = 1e6 * (a.cpu.get("bot", 0.0) + a.cpu.get("bwrap", 0.0)) / a.decisions
                    add(f"{arena_name}: the /proc poller's own CPU", "% of one core", 100 * a.poller / a.wall)
                elif part == "unpinned":  # the same run with --no-pin: what one core per worker buys
                    u = run_arena(folder, bot, rounds, "--no-pin")
                    rates["unpinned"] = u.decisions / u.wall
                    unpinned = "arena run -j 2 --no-pin, the same tournament (every process on any core)"
                    add(f"{unpinned}, whole process", "decisions/s", rates["unpinned"])
                    add(f"{unpinned}: CPU of arena's own processes (python)", "us/decision", 1e6 * u.cpu.get("python", 0.0) / u.decisions)
                    add(f"{unpinned}: CPU of the bots", "us/decision", 1e6 * u.cpu.get("bot", 0.0) / u.decisions)
                elif part == "raw":
                    rates["raw"], cpu = run_fanout(traffic, bot, seconds / 2)
                    add("raw fan-out loop: 2 processes x 4 C bots, unsandboxed, captured Kododo traffic", "decisions/s", rates["raw"])
                    add("raw fan-out loop: the loops' own CPU", "us/decision", cpu)
                elif fastchess is not None and stockfish is not None:
                    n, wall, fc_cpu = run_fastchess(folder, fastchess, stockfish, fc_rounds)
                    rates["fastchess"] = n / wall
                    name = f"fastchess -concurrency 2, stockfish self-play nodes=1 ({fc_rounds} rounds x 2 games)"
                    add(f"{name}, whole process", "moves/s", rates["fastchess"])
                    add(f"{name}: CPU of fastchess", "us/move", 1e6 * fc_cpu.get("harness", 0.0) / n)
                    add(f"{name}: CPU of the engines", "us/move", 1e6 * fc_cpu.get("engine", 0.0) / n)
            add("arena decisions/s / raw fan-out decisions/s (same repeat)", "ratio", rates["arena"] / rates["raw"])
            add(BUDGET, "us/decision", 1e6 * CORES / (0.7 * rates["raw"]) - others)
            add("the same, the runner's own rate / raw fan-out", "ratio", rates["runner"] / rates["raw"])
            add("arena decisions/s, defaults (a core per worker) / with --no-pin (same repeat)", "ratio", rates["arena"] / rates["unpinned"])
            if anchored:
                add("arena decisions/s / fastchess moves/s (same repeat)", "ratio", rates["arena"] / rates["fastchess"])
            print(f"repeat {r + 1}/{repeats}: " + ", ".join(f"{k} {fmt(v)}" for k, v in rates.items()), file=sys.stderr, flush=True)
        from bench.bench_decision import measure

        for _ in range(3):  # after the runs: nothing else runs now
            add(ENGINE, "us/decision", measure(300)["views"])
            add(JSON_COST, "us/decision", json_cost(traffic))
    figures = [Figure(name, unit, tuple(v)) for (name, unit), v in values.items()]
    return figures, verdicts(figures, anchored, arena_name, fc_rounds), f"{sandboxed} entrants sandboxed"


def verdicts(figures: list[Figure], anchored: bool, arena: str, fc_rounds: int) -> list[str]:
    """The goal's rows (their first cell starts "1." so `python -m bench` can copy them into its targets)."""
    def get(prefix: str, unit: str) -> Figure:
        return next(f for f in figures if f.name.startswith(prefix) and f.unit == unit)


    def row(what: str, f: Figure, target: str, ok: bool, unit: str = "") -> str:
        return (f"| 1. {what} | {fmt(f.median)}{unit} ({fmt(min(f.values))} - {fmt(max(f.values))}) | {target} "
                f"| {'met' if ok else 'MISSED'} |")

    raw, cpu = get("arena decisions/s / raw fan-out", "ratio"), get(f"{arena}: CPU of arena's own processes (python)", "us/decision")
    rows = ["| issue 25 goal 1 | measured: median (range) | target | status |", "|---|---|---|---|"]
    if anchored:
        fc = get("arena decisions/s / fastchess", "ratio")
        rows.append(row("`arena run -j 2` decisions/s / fastchess moves/s, same repeat, whole processes", fc, ">= 10", fc.median >= 10))
    else:
        rows.append("| 1. `arena run -j 2` decisions/s / fastchess moves/s | not measured: fastchess not found (see how to get "
                    "it in bench/bench_throughput.py's docstring) | >= 10 | - |")
    rows.append(row("`arena run -j 2` decisions/s / the raw fan-out loop's, same repeat", raw, ">= 0.7", raw.median >= 0.7))
    rows.append(row("CPU of arena's own processes (python: the CLI, its workers) per decision, whole run", cpu, "<= 25 us",
                    cpu.median <= 25, " us"))
    budget, relay = get(BUDGET, "us/decision").median, get("raw fan-out loop: the loops' own CPU", "us/decision").median
    engine, coded = get(ENGINE, "us/decision").median, get(JSON_COST, "us/decision").median
    rest = budget - engine - coded
    rows += ["", f"What 0.7 of the raw loop needs: with both cores busy all the time, arena's own processes could spend "
                 f"{fmt(budget)} us of CPU per decision ({BUDGET}); they spend {fmt(cpu.median)} (the row above). The "
                 f"game and the protocol take {fmt(engine + coded)} of it in any referee that runs the engine in Python: "
                 f"the engine with views ({fmt(engine)}) and the JSON ({fmt(coded)}). That leaves {fmt(rest)} us for "
                 f"relaying the lines, the clocks, judging, replays, the store and the coordinator, where the raw loop's "
                 f"relay alone, with none of the rest, takes {fmt(relay)} us."]
    if anchored:
        engines, harness = (get(f"fastchess -concurrency 2, stockfish self-play nodes=1 ({fc_rounds} rounds x 2 games): CPU of {who}",
                                "us/move").median for who in ("the engines", "fastchess"))
        rows += ["", f"fastchess's moves/s are bound by its engines: stockfish at nodes=1 spends {fmt(engines)} us of CPU per move, "
                     f"fastchess itself {fmt(harness)} us (each process's start-up included)."]
    return rows


def goal_rows(path: Path) -> list[str]:
    """The goal's rows as the throughput section of `path` (BENCHMARKS.md) last wrote them, else none."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    for section in marked_sections(text):
        if section.startswith("<!-- throughput:begin -->"):
            return [line for line in section.splitlines() if line.startswith("| 1. ")]
    return []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 repeats of about 3 s each part")
    parser.add_argument("--write", action="store_true", help="write the section into BENCHMARKS.md")
    parser.add_argument("--fanout", type=Path, help=argparse.SUPPRESS)  # a raw loop's worker process
    parser.add_argument("--bot", help=argparse.SUPPRESS)
    parser.add_argument("--seconds", type=float, default=3.0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.fanout is not None:
        fanout(args.fanout, args.bot, args.seconds)
        return
    byte_compile()
    load = Path("/proc/loadavg").read_text().split()
    started = time.perf_counter()
    figures, rows, boxed = run(2 if args.quick else 5, 3.0 if args.quick else 6.0)
    command = f".venv/bin/python -m bench.bench_throughput{' --quick' if args.quick else ''} --write"
    note = f"{time.perf_counter() - started:.0f} s; load average at the start {' / '.join(load[:3])}; {boxed}"
    text = report(command, note, rows, figures)
    print(text)
    if args.write:
        write_section(ROOT / "BENCHMARKS.md", "throughput", TITLE, text)


if __name__ == "__main__":
    main()
