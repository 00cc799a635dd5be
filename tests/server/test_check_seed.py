"""A bot cannot tell it is being checked by recomputing the check games' seeds (issue 36, item 14).

The attacker has read the source: check games were `arena play --seed 1000+g`, and a bot's ARENA_SEED
is a public one-way hash of the game's seed and its seat. It recomputes those ARENA_SEEDs, plays fair
when its own is one of them (or when it has none: check-bot), and cheats (an illegal action) otherwise.
On today's checker its check games have random seeds, so it cheats there and is refused; the control
puts the old seeds back and the same bot passes its check."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.ladder import checker
from arena.ladder.config import parse
from tests.server.bots import ROOT, SAMPLES

pytestmark = [pytest.mark.process, pytest.mark.sandbox]

RECOMPUTES = """import hashlib, os, random, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import arenabot

def bot_seed(master, seat):  # arena.rng.bot_seed, as published
    text = repr((int(master), "bot", str(seat))).encode("utf-8")
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") >> 1

CHECK_SEEDS = {str(bot_seed(1000 + g, seat)) for g in range(20) for seat in range(6)}
mine = os.environ.get("ARENA_SEED")
checked = mine is None or mine in CHECK_SEEDS
rng = random.Random(1)
arenabot.run(lambda request: rng.choice(request["legal"]) if checked else "cheat", name="recomputes", version="1")
"""


def _verdict(tmp_path: Path) -> checker.Verdict:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.py").write_text(RECOMPUTES)
    (folder / "arenabot.py").write_bytes((SAMPLES / "python/arenabot.py").read_bytes())
    house = [{"name": "random", "command": f"python3 {SAMPLES / 'python/random_bot.py'} 3"}]
    config = parse({"name": "seedcheck", "game": "kododo", "players": 2, "root": str(ROOT), "data": str(tmp_path / "data"),
                    "ladder": {"check_games": 2}, "house_bots": house}, tmp_path / "ladder.yaml")
    return checker.check_submission(config, ("python3", str(folder / "bot.py")), str(folder), sandbox=True)


def test_a_bot_that_recomputes_the_check_seeds_is_caught_cheating(tmp_path: Path) -> None:
    verdict = _verdict(tmp_path)
    assert not verdict.passed and "illegal_action" in verdict.reason, verdict.reason


def test_the_control_with_the_old_fixed_seeds_the_bot_passes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checker, "check_seed", lambda game: 1000 + game)
    verdict = _verdict(tmp_path)
    assert verdict.passed, verdict.reason + verdict.report[-2000:]
