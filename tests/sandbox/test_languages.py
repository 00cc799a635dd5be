"""The sample bots of every language play every game sandboxed, with the same results as unsandboxed.

Same seeds, deterministic bots: the sandbox must change nothing but what the bots can reach.
"""

from __future__ import annotations

import sys

import pytest

from arena.referee.session import BotProcess, BotSpec
from arena.core.time_control import TimeControl
from arena.referee.referee import play_game
from arena.sandbox.policy import SandboxPolicy

from .conftest import ROOT

pytestmark = pytest.mark.sandbox

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
        "draft-heuristic": (sys.executable, str(PY / "kodama_draft_heuristic.py")),  # imports its sibling
    }


TABLES = [
    ("kododo", ("c", "python", "js", "kododo-heuristic")),
    ("kolpa", ("c", "python", "js", "perl", "kolpa-heuristic")),
    ("kodama-duo", ("c", "js")),
    ("kodama-duo", ("python", "duo-heuristic")),
    ("kodama-draft", ("c", "python", "js", "draft-heuristic")),
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


def test_a_tournament_has_identical_standings_sandboxed_and_not(c_bot, tmp_path):
    from arena.tournament.config import tournament as tconfig
    from arena.tournament.run.runner import run as run_tournament
    from tests.support.tournament import SECRET

    cmds = commands(c_bot)
    standings = []
    for sandboxed in (True, False):
        data = {
            "name": "same",
            "game": "kododo",
            "players": 3,
            "entrants": [{"name": n, "command": list(cmds[n]), "sandbox": {"shared_folder": True}}  # one folder, two samples
                         for n in ("c", "python", "js", "kododo-heuristic")],
            "schedule": {"rounds": 1},
            "seed": 3,
            "sandbox": sandboxed,
            "output": {"store": str(tmp_path / f"{sandboxed}.sqlite")},
        }
        config = tconfig.parse(data, tmp_path / "same.yaml")
        summary = run_tournament(config, concurrency=1, fresh=True, quiet=True, secret=SECRET)  # the same deals
        assert summary.played == summary.total > 0 and not summary.bot_faults
        standings.append(summary.standings)
    assert standings[0] == standings[1]


def test_a_bot_and_its_runtime_under_tmp_start_sandboxed(tmp_path_factory: pytest.TempPathFactory) -> None:
    """A venv under /tmp (as a CI clone's may be) stays visible: /tmp then holds it read-only
    instead of becoming the scratch folder, which would hide it."""
    import os
    import shutil
    import tempfile

    root = tempfile.mkdtemp(prefix="arena-under-tmp-", dir="/tmp")
    try:
        runtime = os.path.join(root, "venv", "bin")
        os.makedirs(runtime)
        python = os.path.join(runtime, "python3")
        os.symlink(os.path.realpath(sys.executable), python)  # a runtime prefix under /tmp, as a venv is
        spec = BotSpec("tmp-bot", (python, str(PY / "random_bot.py"), "1"), sandbox=SandboxPolicy(enabled=True))
        bot = BotProcess.start(spec, TC)  # its script outside /tmp: only its runtime lives there
        try:
            assert bot.alive and bot.launch is not None  # the handshake went through bwrap
        finally:
            bot.close()
    finally:
        shutil.rmtree(root)
