"""`arena check-game`: each seeded faulty game is caught by the check named for its fault, with the step,
the seed and the smallest failing example; as the control, that check made blind lets the game pass."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.games.invariants import check_spec

FAULTY = Path(__file__).resolve().parent / "faulty"
sys.path.insert(0, str(FAULTY))

import faulty_games  # noqa: E402


@pytest.fixture(autouse=True)
def _registry_restored(monkeypatch):
    """`arena check-game MODULE` registers the module's game in-process: forgotten after each test."""
    from arena.games import registry

    monkeypatch.setattr(registry, "_GAMES", dict(registry._GAMES))
    monkeypatch.setattr(registry, "_SOURCES", dict(registry._SOURCES))


@pytest.mark.parametrize("name,check", sorted(faulty_games.FAULTS.items()))
def test_each_faulty_game_is_caught_by_its_check(name, check):
    verdicts = check_spec(getattr(faulty_games, name), examples=10)
    failed = [v for v in verdicts if v.passed is False]
    assert [v.check for v in failed] == [check]
    assert failed[0].seed is not None and failed[0].step is not None and failed[0].seats in (2, 3)


@pytest.mark.parametrize("name,check", sorted(faulty_games.FAULTS.items()))
def test_control_the_check_made_blind_lets_its_faulty_game_pass(name, check):
    verdicts = check_spec(getattr(faulty_games, name), examples=10, blind=[check])
    assert all(v.passed for v in verdicts) and check not in {v.check for v in verdicts}


def test_the_failure_is_shrunk_to_the_smallest_example_hypothesis_finds():
    """The fault needs seat 0 to open with its highest card (index 2 of 3 legal actions): found, then
    shrunk to that one choice, 2 seats and seed 0, failing at step 1."""
    [late] = [v for v in check_spec(faulty_games.LATE_RAISES, examples=50) if v.passed is False]
    assert (late.check, late.step, late.seats, late.seed, late.choices) == ("legal-actions", 1, 2, 0, (2,))
    assert "ValueError: the highest card again in round 2" in late.problem


def test_the_sound_games_pass_every_check():
    assert all(v.passed for v in check_spec(faulty_games.GOOD, examples=10))
    assert all(v.passed for v in check_spec(faulty_games.DOCUMENTED, examples=10))


def test_the_command_prints_each_verdict_with_step_seed_and_example_and_fails():
    result = CliRunner().invoke(main, ["check-game", "faulty_games:LEAKS", "--examples", "3"])
    assert result.exit_code == 1, result.output
    fail = [line for line in result.output.splitlines() if line.startswith("FAIL")]
    assert len(fail) == 1 and fail[0].startswith("FAIL hidden-information: step 0, seed ")
    assert "smallest failing example: seats=2 seed=0 choices=[]" in fail[0]
    assert sum(line.startswith("PASS ") for line in result.output.splitlines()) == 9


def test_the_command_exits_0_when_every_check_passes_and_skip_is_the_control():
    ok = CliRunner().invoke(main, ["check-game", "faulty_games:GOOD", "--examples", "3"])
    assert ok.exit_code == 0 and "10 of 10 checks pass" in ok.output
    skipped = CliRunner().invoke(main, ["check-game", "faulty_games:LEAKS", "--examples", "3", "--skip", "hidden-information"])
    assert skipped.exit_code == 0, skipped.output


def test_an_unknown_target_is_one_line():
    result = CliRunner().invoke(main, ["check-game", "no_such_game_module"])
    assert result.exit_code == 2 and "unknown game 'no_such_game_module'" in result.output
    assert "Traceback" not in result.output


@pytest.mark.slow
@pytest.mark.parametrize("name", ["kododo", "kolpa", "kodama-duo", "kodama-draft"])
def test_the_built_in_games_pass_check_game(name):
    from arena.games.registry import get_game

    verdicts = check_spec(get_game(name), examples=3, deep_every=7)
    assert [v.line() for v in verdicts if not v.passed] == []
