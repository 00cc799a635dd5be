"""The generic contract suite, over every registered game and every player count it allows."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.games import all_games
from arena.games.conformance import check_game, check_not_over_raises
from arena.jsonvalue import dumps

CASES = [(spec.name, n) for spec in all_games() for n in range(spec.min_seats, spec.max_seats + 1)]
SPECS = {spec.name: spec for spec in all_games()}


def test_builtin_games_are_registered():
    """Every built-in game package (a folder of arena/games with a SPEC) is declared as an `arena.games`
    entry point of arena itself, the path every plugin takes, and the cases above cover every player count."""
    from pathlib import Path

    from arena.games import registry

    folder = Path(registry.__file__).parent
    packages = {f"arena.games.{p.name}" for p in folder.iterdir() if (p / "__init__.py").is_file()
                and "SPEC = GameSpec(" in (p / "__init__.py").read_text()}
    declared = {e.module for claims in registry.installed().values() for e in claims if e.distribution.startswith("arena ")}
    assert packages == declared == {spec.factory.__module__.rsplit(".", 1)[0] for spec in SPECS.values()}
    assert all(registry.source(name).startswith("arena ") for name in SPECS)
    for spec in SPECS.values():
        seats = sorted(n for name, n in CASES if name == spec.name)
        assert seats == list(range(spec.min_seats, spec.max_seats + 1)) and seats


@pytest.mark.slow
@pytest.mark.parametrize("name,seats", CASES)
@settings(max_examples=8)
@given(seed=st.integers(min_value=0, max_value=2**63 - 1))
def test_random_games_keep_the_contract(name, seats, seed):
    report = check_game(SPECS[name], seats, seed, deep_every=3)
    assert report.steps > 0
    assert report.state.is_over()


@pytest.mark.slow
@pytest.mark.parametrize("name,seats", CASES)
@settings(max_examples=5, suppress_health_check=[HealthCheck.large_base_example, HealthCheck.too_slow])
@given(data=st.data())
def test_hypothesis_chosen_playthroughs_keep_the_contract(name, seats, data):
    """Actions drawn by hypothesis, so a failure shrinks to a short game."""
    seed = data.draw(st.integers(min_value=0, max_value=2**32), label="seed")
    choose = lambda state, seat, legal: data.draw(st.integers(0, len(legal) - 1))  # noqa: E731
    check_game(SPECS[name], seats, seed, choose=choose, deep_every=5)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_hidden_information_is_exercised(name):
    """resample_hidden must really redraw something, or the view-leak check proves nothing."""
    spec = SPECS[name]
    report = check_game(spec, spec.min_seats, seed=11, deep_every=1)
    assert report.hidden_resampled


@pytest.mark.parametrize("name", sorted(SPECS))
def test_outcome_before_the_end_raises(name):
    check_not_over_raises(SPECS[name], SPECS[name].min_seats)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_seeds_change_the_deal(name):
    spec = SPECS[name]
    snapshots = {dumps(spec.new_game(spec.min_seats, None, seed).snapshot()) for seed in range(5)}
    assert len(snapshots) > 1
