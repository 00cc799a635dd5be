"""What a run pays once per process: the coordinator of a worker pool never loads the referee, a worker
never loads the CLI, YAML or the stop rule, and the `arena` script is not run again in each worker."""

from __future__ import annotations

import multiprocessing.spawn
import subprocess
import sys
import types

import pytest

import arena.cli
from arena.tournament.run.local_pool import arena_script_not_rerun

_NOT_IN_COORDINATOR = ("arena.referee", "arena.replay")
_NOT_IN_WORKER = ("arena.cli", "click", "yaml", "arena.stats.stoprule", "arena.results.store")


def _loaded(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys; print(' '.join(sys.modules))"],
                         capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_a_coordinator_of_workers_does_not_import_the_referee() -> None:
    loaded = _loaded("import arena.cli.run, arena.tournament.run.local_pool")
    assert "arena.tournament.run.runner" in loaded  # control: the coordinator's modules are there
    assert not [m for m in _NOT_IN_COORDINATOR if m in loaded]


def test_a_worker_imports_only_what_plays_games() -> None:
    # What a spawned worker does: unpickle its setup (the config), then import the worker loop.
    code = (
        "import pickle, pathlib\n"
        "from arena.tournament.config.tournament import parse\n"
        "from arena.tournament.run.messages import PlayerSetup\n"
        "cfg = parse({'game': 'kododo', 'players': 4, 'entrants': [{'name': f'b{i}', 'command': ['true']} for i in range(4)],"
        " 'stop': {'confidence': 0.95}}, pathlib.Path('x.yaml'))\n"
        "blob = pickle.dumps(PlayerSetup(cfg))\n"
    )
    setup = subprocess.run([sys.executable, "-c", code + "import sys; sys.stdout.buffer.write(blob)"],
                           capture_output=True, check=True).stdout
    worker = ("import pickle, sys\nsetup = pickle.loads(sys.stdin.buffer.read())\n"
              "import arena.tournament.run.local_worker\n"
              "assert setup.config.stop is not None\n"
              "print(' '.join(sys.modules))")
    ran = subprocess.run([sys.executable, "-c", worker], input=setup, capture_output=True, check=True)
    loaded = set(ran.stdout.decode().split())
    assert "arena.referee" in loaded  # control: the worker loop and the referee are there
    assert "arena.stats.stoprule" in loaded  # a config with a stop rule brings it along when unpickled
    assert not [m for m in _NOT_IN_WORKER if m in loaded and m != "arena.stats.stoprule"]


def test_a_worker_without_a_stop_rule_does_not_import_it() -> None:
    loaded = _loaded("import arena.tournament.run.local_worker, arena.tournament.run.messages")
    assert "arena.tournament.run.player" in loaded
    assert not [m for m in _NOT_IN_WORKER if m in loaded]


@pytest.fixture
def arena_script(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """`__main__` as the `arena` console script makes it: a file that imported the CLI's main."""
    script = types.ModuleType("__main__")
    script.__file__ = "/somewhere/bin/arena"
    script.__spec__ = None
    script.main = arena.cli.main  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "__main__", script)
    return script


def test_the_arena_script_is_not_run_again_in_a_worker(arena_script: types.ModuleType) -> None:
    assert multiprocessing.spawn.get_preparation_data("w").get("init_main_from_path") == "/somewhere/bin/arena"  # control
    with arena_script_not_rerun():
        assert "init_main_from_path" not in multiprocessing.spawn.get_preparation_data("w")
    assert arena_script.__file__ == "/somewhere/bin/arena"


def test_another_main_script_is_still_run_in_a_worker(arena_script: types.ModuleType) -> None:
    arena_script.main = lambda: None  # type: ignore[attr-defined]  # a user's own script: it may define what workers need
    with arena_script_not_rerun():
        assert multiprocessing.spawn.get_preparation_data("w").get("init_main_from_path") == "/somewhere/bin/arena"


def test_a_game_looked_up_by_name_imports_that_game_only() -> None:
    loaded = _loaded("from arena.games.registry import get_game\nget_game('kodama-duo')")
    assert "arena.games.kodama_duo" in loaded
    assert not [m for m in ("arena.games.kododo", "arena.games.kolpa", "arena.games.kodama_draft") if m in loaded]
    # the control: listing every game (`arena games`) imports every game (an unknown name lists the entry
    # points' names, importing none)
    every = _loaded("from arena.games.registry import all_games\nall_games()")
    assert {"arena.games.kododo", "arena.games.kolpa", "arena.games.kodama_duo", "arena.games.kodama_draft"} <= every
