"""check-bot passes the sample bots: once per language (Python, JavaScript, C, Perl), each on another game,
so every language's protocol code and every game's messages are checked without running check-bot for
every bot and game (that the other bot/game pairs play their games is what the configs' tournaments and
the referee tests show)."""

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


ALL_PAIRS = sample_pairs()
# language (the sample_bots folder) -> the game its bot is checked on: together every game once at least
GAME_OF = {"python": "kodama-duo", "js": "kodama-draft", "c": "kododo", "perl": "kolpa"}


def _language(command: tuple[str, ...]) -> str:
    return next(p for p in command if "sample_bots/" in p).split("/")[1]


PAIRS = [next((g, c) for g, c in ALL_PAIRS if _language(c) == lang and g == game) for lang, game in GAME_OF.items()]


def test_the_table_covers_every_sample_bot_and_game():
    bots = {next(p for p in command if "sample_bots/" in p) for _, command in ALL_PAIRS}
    on_disk = {str(p.relative_to(ROOT)) for p in (ROOT / "sample_bots").rglob("*") if p.suffix in (".py", ".js", ".pl")}
    on_disk.discard("sample_bots/python/arenabot.py")  # a helper, not a bot
    assert on_disk <= bots | {"sample_bots/c/random_bot"}
    assert "sample_bots/c/random_bot" in bots
    assert {game for game, _ in ALL_PAIRS} == {"kododo", "kolpa", "kodama-duo", "kodama-draft"}
    # the checked pairs: every language of sample_bots/ once, every game once
    languages = {p.name for p in (ROOT / "sample_bots").iterdir() if p.is_dir()}
    assert {_language(c) for _, c in PAIRS} == languages == set(GAME_OF)
    assert {g for g, _ in PAIRS} == {"kododo", "kolpa", "kodama-duo", "kodama-draft"}


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
