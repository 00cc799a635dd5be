"""The sample bots of every language play every game sandboxed, with the same results as unsandboxed.

Same seeds, deterministic bots: the sandbox must change nothing but what the bots can reach.
"""

from __future__ import annotations

import sys

import pytest

from arena.referee.bot import BotProcess, BotSpec
from arena.referee.clock import TimeControl
from arena.referee.referee import play_game
from arena.sandbox.policy import SandboxPolicy

from .conftest import ROOT

PY = ROOT / "sample_bots" / "python"
TC = TimeControl(decision_ms=5000, shutdown_ms=1000)


def commands(c_bot: str) -> dict[str, tuple[str, ...]]:
    return {
        "c": (c_bot, "3"),
        "python": (sys.executable, str(PY / "random_bot.py"), "4"),
        "js": ("node", str(ROOT / "sample_bots" / "js" / "random_bot.js"), "5"),
        "perl": ("perl", str(ROOT / "sample_bots" / "perl" / "kolpa_greedy.pl"), "6"),
        "kododo-heuristic": (sys.executable, str(PY / "kododo_heuristic.py")),
        "kolpa-heuristic": (sys.executable, str(PY / "kolpa_heuristic.py")),
        "duo-heuristic": (sys.executable, str(PY / "kodama_duo_heuristic.py")),
    }


TABLES = [
    ("kododo", ("c", "python", "js", "kododo-heuristic")),
    ("kolpa", ("c", "python", "js", "perl", "kolpa-heuristic")),
    ("kodama-duo", ("c", "js")),
    ("kodama-duo", ("python", "duo-heuristic")),
    ("kodama-draft", ("c", "python", "js")),
]


def play(game: str, seats: tuple[str, ...], c_bot: str, sandboxed: bool, seed: int) -> tuple[object, ...]:
    cmds = commands(c_bot)
    policy = SandboxPolicy(enabled=sandboxed)
    bots: list[BotProcess] = []
    try:
        for name in seats:
            bots.append(BotProcess.start(BotSpec(name, cmds[name], sandbox=policy), TC))
        assert all((bot.launch is not None) == sandboxed for bot in bots)
        result = play_game(game, bots, seed=seed, time_control=TC, game_id=f"g{seed}")
    finally:
        for bot in bots:
            bot.close()
    assert result.faults == (), result.faults
    return (result.ranks, result.points, result.tiebreaks, result.decisions)


@pytest.mark.parametrize("game,seats", TABLES, ids=[f"{g}-{'-'.join(s)}" for g, s in TABLES])
def test_every_language_plays_sandboxed_with_the_same_results(game, seats, c_bot):
    for seed in (11, 12):
        assert play(game, seats, c_bot, True, seed) == play(game, seats, c_bot, False, seed)
