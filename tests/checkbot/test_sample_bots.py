"""check-bot passes every sample bot on every game it plays (the configs say which bot plays which game)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
import yaml

from arena.checkbot import Status

from .conftest import ROOT, quick_check

pytestmark = pytest.mark.process


def sample_pairs() -> list[tuple[str, tuple[str, ...]]]:
    """(game, command) for every sample bot entrant of every ready config, and the Perl bot for Kolpa!."""
    pairs: dict[tuple[str, str], tuple[str, ...]] = {}
    for path in sorted((ROOT / "configs").glob("*.yaml")):
        config = yaml.safe_load(path.read_text())
        for entrant in config["entrants"]:
            argv = entrant["command"]
            bot = next((part for part in argv if "sample_bots/" in part), None)
            if bot is not None and (config["game"], bot) not in pairs:  # one seed of each bot is enough
                pairs[(config["game"], bot)] = tuple(sys.executable if a == "{python}" else a for a in argv)
    pairs[("kolpa", "sample_bots/perl/kolpa_greedy.pl")] = ("perl", "sample_bots/perl/kolpa_greedy.pl", "1")
    return [(game, command) for (game, _), command in pairs.items()]


PAIRS = sample_pairs()


def test_the_table_covers_every_sample_bot_and_game():
    bots = {next(p for p in command if "sample_bots/" in p) for _, command in PAIRS}
    on_disk = {str(p.relative_to(ROOT)) for p in (ROOT / "sample_bots").rglob("*") if p.suffix in (".py", ".js", ".pl")}
    on_disk.discard("sample_bots/python/arenabot.py")  # a helper, not a bot
    assert on_disk <= bots | {"sample_bots/c/random_bot"}
    assert "sample_bots/c/random_bot" in bots
    assert {game for game, _ in PAIRS} == {"kododo", "kolpa", "kodama-duo", "kodama-draft"}


@pytest.mark.parametrize("game,command", PAIRS, ids=[f"{g}:{Path(c[1] if len(c) > 1 and '/' in c[1] else c[0]).name}" for g, c in PAIRS])
def test_check_bot_passes_the_sample_bot(game, command):
    if shutil.which(command[0]) is None and not (ROOT / command[0]).exists():
        pytest.skip(f"{command[0]} is not installed")
    results = quick_check(game, command)
    failures = {name: (r.summary, r.evidence) for name, r in results.items() if r.status is Status.FAIL}
    assert not failures
    assert results["handshake"].status is Status.PASS
    assert results["games"].status is Status.PASS
    assert results["shutdown"].status is Status.PASS
    assert results["unknown-messages"].status is Status.PASS
    assert results["referee"].status is Status.PASS
