"""check-bot's ordinary games look like real ones (issue 21, item 6): a bot cannot pass check-bot by
recognising its games. The attack is a real bot (`bots/two_faced_bot.py`) that plays legally only
where it recognises check-bot and quits elsewhere."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from arena.checkbot import driver as driver_module
from arena.checkbot.driver import OTHER_NAMES, players
from arena.referee.referee import default_game_id
from arena.rng import Rng

from .conftest import quick_check

pytestmark = pytest.mark.process

TWO_FACED = (sys.executable, str(Path(__file__).parent / "bots" / "two_faced_bot.py"))


def test_a_bot_that_behaves_only_under_check_bot_fails_it():
    results = quick_check("kododo", TWO_FACED)
    assert results["games"].status.value == "fail"  # it took check-bot's games for real ones, and quit


def test_control_with_the_old_game_ids_and_names_the_two_faced_bot_passes(monkeypatch):
    monkeypatch.setattr(driver_module, "default_game_id", lambda game, seed: f"check-{game}-{seed}-1")
    monkeypatch.setattr(driver_module, "players", lambda seat, count, own, rng, others=(): [f"seat{i}" for i in range(count)])
    results = quick_check("kododo", TWO_FACED)
    assert results["games"].status.value == "pass"


def test_check_bot_game_ids_and_names_have_the_shape_of_real_ones():
    game_id = default_game_id("kolpa", 12345)
    assert re.fullmatch(r"kolpa-[0-9a-f]{16}", game_id) and "12345" not in game_id
    names = players(1, 4, "mine", Rng(3))
    assert names[1] == "mine" and all(n in OTHER_NAMES for i, n in enumerate(names) if i != 1)


@pytest.mark.parametrize("seed", [None, 5])
def test_check_bot_seeds_are_random_unless_given(seed):
    from click.testing import CliRunner

    from arena.cli import main

    args = ["check-bot", "kododo", "--games", "1", "--no-sandbox", "--json", "--decision-ms", "5000"]
    if seed is not None:
        args += ["--seed", str(seed)]
    seeds = set()
    for _ in range(2):
        out = CliRunner().invoke(main, args + ["--", sys.executable, str(Path(__file__).parents[2] / "sample_bots" / "python" / "random_bot.py")])
        seeds.add(json.loads(out.stdout)["seed"])
    assert len(seeds) == (2 if seed is None else 1)
