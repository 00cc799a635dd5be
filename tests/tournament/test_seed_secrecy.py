"""No bot can derive a deal's seed (issue 21, item 3): a secret per store keys every deal seed and
game id, `arena play` draws 63-bit seeds and opaque game ids.

The attack is a real bot (`bots/seed_guess_bot.py`) carrying a copy of the public engine; a find is
checked against the seed the game was really played with.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.games.registry import get_game
from arena.referee.referee import play_game
from arena.referee.session import BotProcess, BotSpec
from arena.rng import derive_seed
from arena.tournament.config import tournament as tconfig
from arena.tournament.run import player as player_module
from arena.tournament.run.runner import run
from arena.results.store import Store

from tests.support.tournament import REPO, SECRET

pytestmark = pytest.mark.process

BOTS = Path(__file__).parent / "bots"
ARENA = str(Path(sys.executable).parent / "arena")
FOUND = re.compile(r"FOUND seed=(\d+)")


@pytest.fixture(scope="module")
def attacker(tmp_path_factory) -> Path:
    """The attack bot in a folder of its own, with its copy of the public engine."""
    folder = tmp_path_factory.mktemp("attacker")
    shutil.copytree(REPO / "arena", folder / "arena", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(BOTS / "seed_guess_bot.py", folder / "seed_guess_bot.py")
    return folder / "seed_guess_bot.py"


def cup(tmp_path: Path, attacker: Path, store: str = "cup.sqlite") -> tconfig.TournamentConfig:
    data: dict[str, Any] = {
        "name": "cup",
        "game": "kododo",
        "players": 2,
        "entrants": [
            {"name": "guess", "command": ["{python}", str(attacker), "guess", "det"]},  # the table's public names
            {"name": "det", "command": ["{python}", str(BOTS / "det_bot.py")]},
        ],
        "schedule": {"rotations": "cyclic", "deals": "shared", "rounds": 1},  # the old seeds the control tries
        "seed": 2024,  # the demo's: small enough to try every master seed below it
        "time_control": {"decision_ms": 30000},
        "output": {"store": str(tmp_path / store)},
    }
    return tconfig.parse(data, tmp_path / "cup.yaml")


def finds(config: tconfig.TournamentConfig) -> list[tuple[int, int]]:
    """(seed found, seed played) for each find the attack bot reported."""
    out = []
    with Store.open_existing(config.store) as store:
        for game in store.games():
            for fault in game.played.faults:
                for line in fault.stderr_tail:
                    m = FOUND.search(str(line))
                    if m:
                        out.append((int(m.group(1)), game.seed))
    return out


def test_a_bot_with_the_engine_cannot_find_a_tournament_deal(tmp_path, attacker):
    config = cup(tmp_path, attacker)
    summary = run(config, concurrency=1, quiet=True)
    assert summary.played == 2
    assert [(guess, real) for guess, real in finds(config) if guess == real] == []  # (a wrong guess can match a hand)


def test_control_with_the_old_seeds_and_game_ids_the_bot_finds_every_deal(tmp_path, attacker, monkeypatch):
    config = cup(tmp_path, attacker)
    old_ids = {g.index: f"{config.name}-{g.game_id}" for g in config.games()}
    monkeypatch.setattr(player_module, "played_seed", lambda secret, seed: seed)
    monkeypatch.setattr(player_module, "played_game_id", lambda secret, game, scheduled: old_ids[scheduled.index])
    run(config, concurrency=1, quiet=True)
    found = finds(config)
    assert len(found) == 2 and all(guess == real for guess, real in found)


def stored_seeds(config: tconfig.TournamentConfig) -> list[int]:
    with Store.open_existing(config.store) as store:
        return [g.seed for g in store.games()]


def test_each_new_store_draws_its_secret_and_a_given_secret_reproduces_the_deals(tmp_path):
    data: dict[str, Any] = {
        "name": "s", "game": "kododo", "players": 2, "seed": 1,
        "entrants": [{"name": f"b{i}", "command": ["{python}", str(BOTS / "det_bot.py"), "--salt", str(i)]} for i in range(2)],
        "output": {"store": str(tmp_path / "s.sqlite")},
    }
    config = tconfig.parse(data, tmp_path / "s.yaml")
    run(config, concurrency=1, quiet=True)
    first = stored_seeds(config)
    run(config, concurrency=1, quiet=True, fresh=True)
    assert stored_seeds(config) != first  # the same config on a fresh store: other deals
    with Store.open_existing(config.store) as store:
        secret = store.secret()
    assert len(secret) == 32
    schedule_seed = next(iter(config.games())).seed
    assert stored_seeds(config)[0] == player_module.played_seed(secret, schedule_seed) != schedule_seed
    run(config, concurrency=1, quiet=True, fresh=True, secret=SECRET)
    again = stored_seeds(config)
    run(config, concurrency=1, quiet=True, fresh=True, secret=SECRET)
    assert stored_seeds(config) == again  # the same secret: the same deals
    shown = subprocess.run([ARENA, "secret", str(config.store)], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == SECRET


def play_finds(output: str) -> tuple[int | None, int]:
    result = json.loads(output)
    found = [int(m.group(1)) for f in result["faults"] for line in f["stderr_tail"] for m in [FOUND.search(line)] if m]
    return (found[0] if found else None), int(result["seed"])


def test_arena_play_gives_a_bot_nothing_to_find_its_seed_from(tmp_path, attacker):
    proc = subprocess.run(
        [ARENA, "play", "kododo", "--bot", f"{sys.executable} {attacker}", "--bot", f"{sys.executable} {BOTS / 'det_bot.py'}",
         "--decision-ms", "30000", "--json"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    found, seed = play_finds(proc.stdout)
    assert found != seed and seed.bit_length() > 48  # a 63-bit seed, and the bot did not find it


def test_control_with_the_old_play_game_id_the_bot_finds_the_seed(attacker):
    spec = get_game("kododo")
    seed = 123456789012
    old_id = f"kododo-{seed}-{derive_seed(seed, 'game-id', 'kododo') % 16**8:08x}"  # the old default game id
    bots = [BotProcess.start(BotSpec("guess", (sys.executable, str(attacker)), str(attacker.parent))),
            BotProcess.start(BotSpec("det", (sys.executable, str(BOTS / "det_bot.py"))))]
    try:
        result = play_game(spec, bots, seed=seed, game_id=old_id)
    finally:
        for bot in bots:
            bot.close()
    lines = [line for f in result.faults for line in f.stderr_tail]
    assert f"FOUND seed={seed}" in lines
