"""Tournament throughput: the Kododo demo schedule with instant bots, as `arena run` plays it.

Games and decisions per second at concurrency 1 and 2, with bot processes kept alive across games
versus restarted for every game (the cost a runner without process reuse pays). Every row runs the
bots unsandboxed (`sandbox: false`), as these figures were first measured, so they stay comparable
across runs and machines; the sandbox's own cost is `bench.bench_sandbox`'s, measured side by side.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from arena.tournament.config import tournament as tconfig
from arena.tournament.run.runner import run as run_tournament
from bench.bench_referee import PY_BOT, ensure_c_bot
from bench.stats import Figure

ROOT = Path(__file__).resolve().parents[1]


def demo_config(folder: Path, command: list[str], rounds: int, sandbox: bool = False) -> tconfig.TournamentConfig:
    """The demo's shape (4 entrants, 4 seats, every rotation) with one kind of instant bot; the
    sandbox is off unless asked for (the default of a config is on wherever bubblewrap runs)."""
    data = {
        "name": "bench",
        "game": "kododo",
        "players": 4,
        "entrants": [{"name": f"bot{i}", "command": command + [str(i + 1)]} for i in range(4)],
        "schedule": {"format": "round-robin", "rotations": "cyclic", "rounds": rounds},
        "seed": 7,
        "sandbox": sandbox,
        "output": {"store": str(folder / f"bench-{'sandboxed' if sandbox else 'plain'}.sqlite")},
    }
    return tconfig.parse(data, ROOT / "configs" / "bench.yaml")


def measure(command: list[str], rounds: int, concurrency: int, restart: bool) -> tuple[float, float]:
    """(games/s, decisions/s) of one fresh run."""
    with tempfile.TemporaryDirectory() as tmp:
        config = demo_config(Path(tmp), command, rounds)
        summary = run_tournament(config, concurrency=concurrency, fresh=True, restart_bots=restart, quiet=True)
        assert summary.played == summary.total
        return summary.games_per_second, summary.decisions_per_second


def run(repeats: int = 3) -> list[Figure]:
    c_bot = [ensure_c_bot()]
    py_bot = [sys.executable, str(PY_BOT)]
    figures: list[Figure] = []
    cases = [
        ("C bots", c_bot, 50, 1, False),
        ("C bots", c_bot, 50, 2, False),
        ("Python bots", py_bot, 25, 1, False),
        ("Python bots", py_bot, 25, 2, False),
        ("Python bots, restarted every game", py_bot, 3, 1, True),
        ("Python bots, restarted every game", py_bot, 3, 2, True),
    ]
    for label, command, rounds, concurrency, restart in cases:
        samples = [measure(command, rounds, concurrency, restart) for _ in range(repeats)]
        name = f"tournament: Kododo 4p, {label}, concurrency {concurrency}"
        figures.append(Figure(name, "games/s", tuple(s[0] for s in samples)))
        figures.append(Figure(name, "decisions/s", tuple(s[1] for s in samples)))
    return figures


if __name__ == "__main__":
    for figure in run(repeats=1):
        print(figure.row())
