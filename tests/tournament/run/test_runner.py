"""The runner with real bot processes: concurrency does not change results; kills and Ctrl-C lose nothing."""

from __future__ import annotations

import os
import signal
import sqlite3
from pathlib import Path
from typing import Callable

import pytest

from arena.tournament.config import tournament as tconfig
from arena.tournament.run import runner
from arena.results.store import Store

from tests.support.tournament import SECRET, bots_running, group_gone, small, standings_json, start_run, stored_count, wait_for

pytestmark = pytest.mark.process

def test_concurrency_1_and_2_give_identical_standings(write_config: Callable[..., Path]) -> None:
    cfg1 = tconfig.load(write_config(small(1, output={"store": "one.sqlite"}), "one.yaml"))
    cfg2 = tconfig.load(write_config(small(1, output={"store": "two.sqlite"}), "two.yaml"))
    s1 = runner.run(cfg1, concurrency=1, quiet=True, secret=SECRET)
    s2 = runner.run(cfg2, concurrency=2, quiet=True, secret=SECRET)
    assert s1.played == s2.played == len(cfg1.games()) == 12
    assert s1.standings == s2.standings
    with Store.open_existing(cfg1.store) as a, Store.open_existing(cfg2.store) as b:
        strip = lambda g: (g.index, g.seed, g.seats, g.played.points, g.ranks)  # noqa: E731
        assert [strip(g) for g in a.games()] == [strip(g) for g in b.games()]
    # A second run of the same config finds everything stored and plays nothing.
    again = runner.run(cfg1, concurrency=2, quiet=True, secret=SECRET)
    assert again.played == 0 and again.stored == 12 and again.standings == s1.standings


def test_restart_bots_every_game_gives_the_same_results(write_config: Callable[..., Path]) -> None:
    cfg = tconfig.load(write_config(small(1, output={"store": "r.sqlite"}), "r.yaml"))
    ref = tconfig.load(write_config(small(1, output={"store": "k.sqlite"}), "k.yaml"))
    restarted = runner.run(cfg, concurrency=1, restart_bots=True, quiet=True, secret=SECRET)
    kept = runner.run(ref, concurrency=1, quiet=True, secret=SECRET)
    assert restarted.standings == kept.standings


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc to look for leftover processes")
def test_sigkill_then_rerun_equals_an_uninterrupted_run(write_config: Callable[..., Path], tmp_path: Path) -> None:
    killed_cfg = write_config(small(4, delay_ms=3, output={"store": "killed.sqlite"}), "killed.yaml")
    whole_cfg = write_config(small(4, output={"store": "whole.sqlite"}), "whole.yaml")
    killed_store, whole_store = tmp_path / "killed.sqlite", tmp_path / "whole.sqlite"

    proc = start_run(killed_cfg, "--concurrency", "2")
    try:
        wait_for(lambda: stored_count(killed_store) >= 5, 60, "some games to be stored", proc)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    stored_at_kill = stored_count(killed_store)
    assert 5 <= stored_at_kill < 48
    # The workers notice their parent is gone, finish or drop their game, and close their bots.
    wait_for(lambda: group_gone(proc.pid), 30, "the killed run's workers to exit")
    wait_for(lambda: not bots_running(str(tmp_path)), 30, "the killed run's bots to exit")

    rerun = start_run(killed_cfg, "--concurrency", "2")
    out, err = rerun.communicate(timeout=120)
    assert rerun.returncode == 0, err.decode()
    assert f"48/48 games stored" in out.decode()

    whole = start_run(whole_cfg, "--concurrency", "1")
    out, err = whole.communicate(timeout=120)
    assert whole.returncode == 0, err.decode()

    with sqlite3.connect(killed_store) as conn:
        count, distinct = conn.execute("SELECT COUNT(*), COUNT(DISTINCT idx) FROM games").fetchone()
    assert count == distinct == 48
    assert standings_json(killed_store) == standings_json(whole_store)


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc to look for leftover processes")
def test_ctrl_c_stops_cleanly_keeps_what_finished_and_resumes(write_config: Callable[..., Path], tmp_path: Path) -> None:
    cfg = write_config(small(4, delay_ms=3, output={"store": "c.sqlite"}), "c.yaml")
    store = tmp_path / "c.sqlite"
    proc = start_run(cfg, "--concurrency", "2")
    wait_for(lambda: stored_count(store) >= 3, 60, "some games to be stored", proc)
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole foreground group
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err.decode()
    assert "interrupted" in err.decode() and "Traceback" not in err.decode()
    # Workers were joined before the exit; multiprocessing's resource tracker ends when it sees us go.
    wait_for(lambda: group_gone(proc.pid), 5, "the run's processes to exit")
    assert not bots_running(str(tmp_path))
    kept = stored_count(store)
    assert kept >= 3
    rerun = start_run(cfg)
    out, err = rerun.communicate(timeout=120)
    assert rerun.returncode == 0, err.decode()
    assert stored_count(store) == 48


def test_a_run_rates_each_game_once_and_leaves_the_ratings_cached(write_config: Callable[..., Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 25: the run rates every game as it is stored (for the live leader) and keeps that book as
    the store's rating cache, so its closing standings rate nothing a second time; the cached book is
    exactly the one rated from scratch."""
    from arena.stats import ratings as ratings_mod
    from arena.stats.standings import store_ratings

    cfg = tconfig.load(write_config(small(2, output={"store": "once.sqlite"}), "once.yaml"))
    applied: list[int] = []
    real = ratings_mod.RatingBook.apply

    def counted(self: ratings_mod.RatingBook, game: ratings_mod.RatedGame) -> None:
        applied.append(game.index)
        real(self, game)

    monkeypatch.setattr(ratings_mod.RatingBook, "apply", counted)
    summary = runner.run(cfg, concurrency=1, quiet=True, secret=SECRET)
    assert summary.played == 24
    assert sorted(applied) == list(range(24))  # each game once, none again for the closing standings
    monkeypatch.setattr(ratings_mod.RatingBook, "apply", real)
    with Store.open_existing(cfg.store) as store:
        cached = store_ratings(store).current()
        fresh = store_ratings(store, use_cache=False).current()
        assert cached.to_json() == fresh.to_json() and cached.rated == 24
