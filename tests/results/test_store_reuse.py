"""Item 11 of issue 11: a store is reused game by game (more rounds, a new entrant, a fixed command),
and one run at a time holds it. Item 9: the fingerprint covers every setting that changes a result."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Callable

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.errors import StoreError, StoreInUse
from arena.core.limits import Limits
from arena.core.time_control import TimeControl
from arena.tournament.config import tournament as tconfig
from arena.tournament.run import runner

from tests.support.tournament import BOT, SECRET, det_entrants, small

pytestmark = pytest.mark.process


def _rows(store: Path) -> dict[str, tuple[Any, ...]]:
    """key -> (seats as names, points, finished_at): what a reused game must keep."""
    with sqlite3.connect(store) as conn:
        names = [n for (n,) in conn.execute("SELECT name FROM entrants ORDER BY idx")]
        out = {}
        for key, seats, points, at in conn.execute("SELECT key, seats, points, finished_at FROM games"):
            out[key] = (tuple(names[int(e)] for e in seats.strip("[]").split(",")), points, at)
        return out


def test_more_rounds_keep_the_games_played_and_equal_a_fresh_run(write_config: Callable[..., Path]) -> None:
    path = write_config(small(1, output={"store": "grow.sqlite"}), "grow.yaml")
    first = runner.run(tconfig.load(path), concurrency=1, quiet=True, secret=SECRET)
    before = _rows(first.store)
    path = write_config(small(2, output={"store": "grow.sqlite"}), "grow.yaml")
    second = runner.run(tconfig.load(path), concurrency=2, quiet=True, secret=SECRET)
    assert (first.played, second.stored_before, second.played, second.reused) == (12, 12, 12, 12)
    after = _rows(second.store)
    assert all(after[k] == v for k, v in before.items())  # the same rows, not played again
    fresh = runner.run(tconfig.load(write_config(small(2, output={"store": "fresh.sqlite"}), "fresh.yaml")), concurrency=1, quiet=True, secret=SECRET)
    assert second.standings == fresh.standings


def test_a_new_entrant_keeps_every_game_of_the_old_field(write_config: Callable[..., Path]) -> None:
    path = write_config(small(1, output={"store": "field.sqlite"}), "field.yaml")
    first = runner.run(tconfig.load(path), concurrency=1, quiet=True, secret=SECRET)
    before = _rows(first.store)
    grown = small(1, output={"store": "field.sqlite"})
    grown["entrants"] = det_entrants(5)
    second = runner.run(tconfig.load(write_config(grown, "field.yaml")), concurrency=1, quiet=True, secret=SECRET)
    assert second.total == 30 and second.stored_before == 12 and second.played == 18 and second.reused == 12
    after = _rows(second.store)
    assert all(after[k] == v for k, v in before.items())
    fresh_data = dict(grown, output={"store": "fresh.sqlite"})
    fresh = runner.run(tconfig.load(write_config(fresh_data, "fresh.yaml")), concurrency=1, quiet=True, secret=SECRET)
    assert second.standings == fresh.standings


def test_a_command_fixed_after_a_run_that_stored_nothing_needs_no_fresh(write_config: Callable[..., Path]) -> None:
    broken = small(1, output={"store": "fix.sqlite"})
    broken["entrants"][0]["command"] = ["{python}", str(BOT), "--salt", "typo"]
    runner.open_store(tconfig.load(write_config(broken, "fix.yaml"))).close()  # a run that stored nothing
    fixed = runner.run(tconfig.load(write_config(small(1, output={"store": "fix.sqlite"}), "fix.yaml")), concurrency=1, quiet=True, secret=SECRET)
    assert fixed.played == 12


def test_a_change_that_alters_stored_games_is_refused_naming_it(write_config: Callable[..., Path]) -> None:
    runner.run(tconfig.load(write_config(small(1, output={"store": "s.sqlite"}), "s.yaml")), concurrency=1, quiet=True, secret=SECRET)
    changed = small(1, output={"store": "s.sqlite"}, time_control={"decision_ms": 500})
    with pytest.raises(StoreError, match=r"12 game\(s\) the changed config would not play again \(differs in: time_control\).*--fresh"):
        runner.run(tconfig.load(write_config(changed, "s.yaml")), concurrency=1, quiet=True, secret=SECRET)


def test_a_second_run_on_the_same_store_says_store_in_use(write_config: Callable[..., Path]) -> None:
    path = write_config(small(1, output={"store": "busy.sqlite"}), "busy.yaml")
    holder = runner.open_store(tconfig.load(path))  # as a run in progress holds it
    try:
        with pytest.raises(StoreInUse, match="store in use"):
            runner.run(tconfig.load(path), concurrency=1, quiet=True, secret=SECRET)
        result = CliRunner().invoke(main, ["run", "--quiet", str(path)])
        assert result.exit_code == 2
        assert result.output.count("\n") == 1 and "store in use" in result.output and "Traceback" not in result.output
        with pytest.raises(StoreInUse):
            runner.run(tconfig.load(path), concurrency=1, fresh=True, quiet=True, secret=SECRET)  # --fresh cannot delete it either
        assert holder.info().stored_games == 0
    finally:
        holder.close()
    assert runner.run(tconfig.load(path), concurrency=1, quiet=True, secret=SECRET).played == 12  # released


def _fingerprint(write_config: Callable[..., Path], **changes: Any) -> str:
    data = small(1)
    for key, value in changes.items():
        if key.startswith("entrant_"):
            data["entrants"][0][key.removeprefix("entrant_")] = value
        else:
            data[key] = value
    return tconfig.load(write_config(data, "fp.yaml")).fingerprint()


def test_the_fingerprint_covers_every_setting_that_can_change_a_result(write_config: Callable[..., Path], tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    base = _fingerprint(write_config)
    changed = {
        "cwd": _fingerprint(write_config, entrant_cwd="sub"),
        "env": _fingerprint(write_config, entrant_env={"LEVEL": "3"}),
        "command": _fingerprint(write_config, entrant_command=["{python}", str(BOT)]),
        "time control": _fingerprint(write_config, time_control={"increment_ms": 5}),
        "limits": _fingerprint(write_config, limits={"memory_mb": 1024}),
        "options": _fingerprint(write_config, options={"long": True}),
        "seed": _fingerprint(write_config, seed=4),
        "rounds": _fingerprint(write_config, schedule={"rounds": 2}),
        "rotations": _fingerprint(write_config, schedule={"rotations": "all"}),
        "policy": _fingerprint(write_config, fault_policy="continue"),
    }
    assert all(fp != base for fp in changed.values()), [k for k, fp in changed.items() if fp == base]
    assert len(set(changed.values())) == len(changed)


def test_config_defaults_are_the_referees(write_config: Callable[..., Path]) -> None:
    cfg = tconfig.load(write_config(small(1), "d.yaml"))
    assert cfg.time_control == TimeControl() and cfg.limits == Limits()
    tuned = tconfig.load(write_config(small(1, time_control={"decision_ms": 250}, limits={"cpu_seconds": 60}), "t.yaml"))
    assert tuned.time_control == TimeControl(decision_ms=250) and tuned.limits == Limits(cpu_seconds=60)


def test_game_ms_is_set_in_the_yaml_and_changes_the_fingerprint(write_config: Callable[..., Path]) -> None:
    limited = tconfig.load(write_config(small(1, time_control={"game_ms": 90_000}), "g.yaml"))
    assert limited.time_control == TimeControl(game_ms=90_000)
    unlimited = tconfig.load(write_config(small(1, time_control={"game_ms": None}), "n.yaml"))
    assert unlimited.time_control.game_ms is None
    assert limited.rules()["time_control"] == TimeControl(game_ms=90_000).to_json()  # the one JSON form
    assert len({limited.fingerprint(), unlimited.fingerprint(), tconfig.load(write_config(small(1), "d.yaml")).fingerprint()}) == 3
    with pytest.raises(Exception, match=r"time_control\.game_ms: expected a number >= 1, got 0"):
        tconfig.load(write_config(small(1, time_control={"game_ms": 0}), "z.yaml"))


def test_an_edited_bot_is_a_new_version_whose_games_are_played_again(write_config: Callable[..., Path], tmp_path: Path) -> None:
    # Before: the store looked at the command line only, so an edited bot (same file name) kept
    # v1's games and standings: `12/12 games stored (0 played now)`.
    import io

    from arena.results.store import Store

    folder = tmp_path / "mine"
    folder.mkdir()
    script = folder / "bot.py"
    script.write_text(BOT.read_text(encoding="utf-8"), encoding="utf-8")
    data = small(1, output={"store": "edit.sqlite"})
    data["entrants"][0]["command"][1] = str(script)
    path = write_config(data, "edit.yaml")
    first = runner.run(tconfig.load(path), concurrency=1, quiet=True)
    assert first.played == 12 and first.changed == []
    same = runner.run(tconfig.load(path), concurrency=1, quiet=True)
    assert same.played == 0 and same.changed == []  # unchanged files: nothing to play
    (folder / "notes.txt").write_text("a file beside the bot counts too\n", encoding="utf-8")
    script.write_text(script.read_text(encoding="utf-8") + "\n# version 2\n", encoding="utf-8")
    said = io.StringIO()
    second = runner.run(tconfig.load(path), concurrency=1, quiet=True, notices=said)
    assert second.changed == [("bot0", 9)] and second.played == 9  # bot0 sits at 3 of the 4 tables
    assert "bot bot0 changed since the stored games: playing its 9 game(s) again" in said.getvalue()
    with sqlite3.connect(second.store) as conn:
        (kept,) = conn.execute("SELECT COUNT(*) FROM superseded_games").fetchone()
        assert kept == 9  # the old version's games stay in the store
    with Store.open_existing(second.store) as store:
        versions = store.entrant_versions()
    assert versions[0][1] != versions[1][1] and all(v[1] for v in versions)
    result = CliRunner().invoke(main, ["standings", str(second.store)])
    assert "versions: bot0 files " + str(versions[0][1]) in result.output
