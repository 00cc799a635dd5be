"""Referee throughput: decisions per second with instant bots, next to the raw pipe round-trip rate.

`run()` measures, in one process and one run (so the ratio is meaningful on a shared machine):
  - raw: a minimal Python-to-C loop over pipes (blocking write, blocking read, one line each way);
  - relay: a trivial game where 1, 2 or 4 seats decide at once every step, so the cost measured is the
    referee's (request, barrier, apply), with the C and the Python random bots;
  - kododo: real Kododo games with 2 and 4 players, C and Python random bots;
  - thinking: the relay game with bots that take 2 ms per decision, 1 and 4 seats: with instant bots a
    4-seat step costs 4 writes, 4 reads and 4 wake-ups on 2 cores, so the 4-vs-1 step ratio that shows
    whether seats really decide in parallel is the one with bots that take time.
Each figure is the median over `repeats`; bots are started once per configuration and reused across
games, as a tournament does.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Mapping

from arena.games.base import Event, GameSpec, GameState, Mode, Outcome
from arena.jsonvalue import JSON
from arena.referee.session import BotProcess, BotSpec
from arena.referee.referee import play_game

ROOT = Path(__file__).resolve().parents[1]
C_BOT = ROOT / "sample_bots" / "c" / "random_bot"
PY_BOT = ROOT / "sample_bots" / "python" / "random_bot.py"


class RelayState(GameState):
    """Every seat decides every step among three numbers; the game ends after `steps` steps."""

    def __init__(self, seats: int, options: dict[str, Any], seed: int) -> None:
        self.n = seats
        self.left = int(options["steps"])
        self.score = [0] * seats

    @property
    def num_seats(self) -> int:
        return self.n

    def to_move(self) -> tuple[int, ...]:
        return tuple(range(self.n)) if self.left else ()

    def view(self, seat: int) -> dict[str, JSON]:
        return {"left": self.left, "score": self.score[seat]}

    def legal_actions(self, seat: int) -> list[JSON]:
        return [0, 1, 2]

    def check(self, seat: int, action: JSON) -> None:
        self.check_seat_decides(seat, action)
        if action not in (0, 1, 2) or isinstance(action, bool):
            from arena.errors import IllegalAction

            raise IllegalAction(seat, action, "play 0, 1 or 2")

    def apply(self, actions: Mapping[int, JSON]) -> list[Event]:
        self.check_all(actions)
        for seat, action in actions.items():
            self.score[seat] += action
        self.left -= 1
        return [Event("played", {"actions": [actions[s] for s in range(self.n)]})]

    def fallback(self, seat: int) -> JSON:
        return 0

    def outcome(self) -> Outcome:
        points = tuple(self.score)
        return Outcome(points, tuple(() for _ in points), tuple(1 + sum(o > p for o in points) for p in points))

    def clone(self) -> "RelayState":
        other = RelayState(self.n, {"steps": self.left}, 0)
        other.score = list(self.score)
        return other

    def snapshot(self) -> dict[str, JSON]:
        return {"left": self.left, "score": list(self.score)}

    def resample_hidden(self, seat: int, seed: int) -> "RelayState":
        return self.clone()


from arena.games.base import Option  # noqa: E402

RELAY = GameSpec(
    name="relay",
    version="1",
    description="Benchmark game: every seat picks 0, 1 or 2 every step.",
    min_seats=1,
    max_seats=8,
    mode=Mode.SIMULTANEOUS,
    factory=RelayState,
    options=(Option("steps", int, 500, "Steps per game.", minimum=1),),
)


# A bot that thinks for 2 ms (sleeping, so that 4 of them fit on 2 cores): how well steps overlap.
THINKING_BOT = (
    "import json, sys, time\n"
    "for line in sys.stdin:\n"
    "    m = json.loads(line)\n"
    "    if m['type'] == 'hello': print(json.dumps({'type': 'hello', 'protocol': 1, 'name': 'thinker'}), flush=True)\n"
    "    elif m['type'] == 'request': time.sleep(0.002); print(json.dumps({'id': m['id'], 'action': 0}), flush=True)\n"
    "    elif m['type'] == 'shutdown': break\n"
)


def ensure_c_bot() -> str:
    if not C_BOT.exists():
        subprocess.run(["make", "-s", "sample_bots/c/random_bot"], cwd=ROOT, check=True)
    return str(C_BOT)


def raw_round_trips_per_s(c_bot: str, seconds: float = 0.5, placement: str | None = None) -> float:
    """The floor: one tiny request and one answer over blocking pipes, nothing else.

    `placement` pins the two processes: "same" puts both on one core (a hand-off without a cross-core
    wake-up, several times faster), "cross" puts them on different cores (what a referee fanning out
    to several bots on 2 cores mostly pays); None leaves it to the scheduler, which flips between the
    two from run to run.
    """
    proc = subprocess.Popen([c_bot, "1"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert proc.stdin is not None and proc.stdout is not None
    wfd, rfd = proc.stdin.fileno(), proc.stdout.fileno()
    mine = os.sched_getaffinity(0)
    cores = sorted(mine)
    if placement is not None and len(cores) >= 2:
        os.sched_setaffinity(0, {cores[0]})
        os.sched_setaffinity(proc.pid, {cores[0] if placement == "same" else cores[1]})
    try:
        rounds = 0
        started = time.perf_counter()
        deadline = started + seconds
        while True:
            for i in range(200):
                os.write(wfd, b'{"id":%d,"legal":[0,1,2],"type":"request"}\n' % (rounds + i + 1))
                os.read(rfd, 4096)
            rounds += 200
            now = time.perf_counter()
            if now >= deadline:
                return rounds / (now - started)
    finally:
        os.sched_setaffinity(0, mine)
        proc.stdin.close()
        proc.wait(5)


def decisions_per_s(game: GameSpec | str, command: tuple[str, ...], seats: int, options: dict, games: int) -> tuple[float, float]:
    """(decisions per second, seconds per step) over `games` games with bots kept alive."""
    bots = [BotProcess.start(BotSpec(f"b{i}", command + (str(i + 1),))) for i in range(seats)]
    try:
        play_game(game, bots, seed=0, options=options)  # warm-up: imports, page faults, caches
        decisions = 0
        steps = 0
        started = time.perf_counter()
        for seed in range(1, games + 1):
            result = play_game(game, bots, seed=seed, options=options)
            assert not result.faults, result.faults
            decisions += result.decisions
            steps += result.decisions // seats
        elapsed = time.perf_counter() - started
        return decisions / elapsed, elapsed / steps
    finally:
        for bot in bots:
            bot.close()


def run(repeats: int = 3) -> dict[str, Any]:
    c_bot = ensure_c_bot()
    bots = {"c": (c_bot,), "python": (sys.executable, str(PY_BOT))}
    thinking = (sys.executable, "-c", THINKING_BOT)
    samples: dict[str, list[float]] = {}

    def add(key: str, value: float) -> None:
        samples.setdefault(key, []).append(value)

    for _ in range(repeats):
        add("raw_round_trips_per_s", raw_round_trips_per_s(c_bot))
        add("raw_cross_core_round_trips_per_s", raw_round_trips_per_s(c_bot, placement="cross"))
        add("raw_same_core_round_trips_per_s", raw_round_trips_per_s(c_bot, placement="same"))
        for lang, command in bots.items():
            for seats in (1, 2, 4):
                rate, step = decisions_per_s(RELAY, command, seats, {"steps": 500}, 2 if lang == "c" else 1)
                add(f"relay_{lang}_{seats}_decisions_per_s", rate)
                add(f"relay_{lang}_{seats}_step_us", step * 1e6)
            for seats in (2, 4):
                rate, _ = decisions_per_s("kododo", command, seats, {}, 40 if lang == "c" else 10)
                add(f"kododo_{lang}_{seats}_decisions_per_s", rate)
        for seats in (1, 4):
            _, step = decisions_per_s(RELAY, thinking, seats, {"steps": 100}, 1)
            add(f"relay_thinking2ms_{seats}_step_us", step * 1e6)
        # Ratios within one repeat: the raw rate moves with core placement, so compare like with like.
        kododo = samples["kododo_c_4_decisions_per_s"][-1]
        add("kododo_c_4_vs_raw_per_repeat", kododo / samples["raw_round_trips_per_s"][-1])
        add("kododo_c_4_vs_raw_cross_core_per_repeat", kododo / samples["raw_cross_core_round_trips_per_s"][-1])
        add("kododo_c_4_vs_raw_same_core_per_repeat", kododo / samples["raw_same_core_round_trips_per_s"][-1])
        add("relay_c_step_4_vs_1_per_repeat", samples["relay_c_4_step_us"][-1] / samples["relay_c_1_step_us"][-1])
    report: dict[str, Any] = {
        k: {"median": statistics.median(v), "min": min(v), "max": max(v), "values": v} for k, v in samples.items()
    }
    raw = report["raw_round_trips_per_s"]["median"]
    report["ratios"] = {
        "kododo_c_4_vs_raw": report["kododo_c_4_decisions_per_s"]["median"] / raw,
        "kododo_c_2_vs_raw": report["kododo_c_2_decisions_per_s"]["median"] / raw,
        "relay_c_step_4_vs_1": report["relay_c_4_step_us"]["median"] / report["relay_c_1_step_us"]["median"],
        "relay_python_step_4_vs_1": report["relay_python_4_step_us"]["median"] / report["relay_python_1_step_us"]["median"],
        "relay_thinking2ms_step_4_vs_1": report["relay_thinking2ms_4_step_us"]["median"] / report["relay_thinking2ms_1_step_us"]["median"],
    }
    return report


if __name__ == "__main__":
    from arena.jsonvalue import dumps

    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    sys.stdout.write(dumps(run(repeats)).decode() + "\n")
