"""The intervals `arena standings` keeps in the store: read back while nothing changed, recomputed as
soon as a game is added, replaced or renumbered (the key is the store's content, not a timestamp)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.results import derived
from arena.results.store import Store
from arena.stats import standings as standings_mod
from arena.stats.standings import store_standings, store_uncertainty
from arena.stats.uncertainty import estimate
from tests.support.stores import build, game as _game


def _fresh(store: Store) -> object:
    names = store.entrant_names()
    order = [names.index(s.name) for s in store_standings(store, use_cache=False)]
    return estimate(store.counted_games(), len(names), order, resamples=300, rating_resamples=0)


def _cached(store: Store) -> object:
    return store_uncertainty(store, store_standings(store), resamples=300, rating_resamples=0)


def test_cached_intervals_are_recomputed_when_a_game_is_added(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with Store.open_existing(build(tmp_path / "s.sqlite", "rotations")) as store:
        first = _cached(store)
        assert first == _fresh(store)
        calls: list[int] = []
        real = standings_mod.keep  # every computation ends by keeping its result

        def counted(*args: object, **kwargs: object) -> object:
            calls.append(1)
            return real(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(standings_mod, "keep", counted)
        assert _cached(store) == first and calls == []  # nothing new: read back, not computed
        store.record(_game(400, (0, 1, 2, 3), (4, 3, 2, 1), seed=100))  # a new deal: one more block
        second = _cached(store)
        assert calls == [1] and second != first and second == _fresh(store)
        assert _cached(store) == second and calls == [1]
        # control: a key blind to the content gives the stale intervals back after a game is added
        monkeypatch.setattr(standings_mod, "content_key", lambda store: "always the same")
        _cached(store)
        store.record(_game(401, (1, 2, 3, 0), (1, 2, 3, 4), seed=100))
        assert _cached(store) != _fresh(store)


def _without_counter(store: Store) -> None:
    """The store as written before the content counter: no table, no triggers."""
    for trigger in ("games_added", "games_removed", "games_changed"):
        store.conn.execute(f"DROP TRIGGER {trigger}")
    store.conn.execute("DROP TABLE content_version")


@pytest.mark.parametrize("counter", [True, False], ids=["counter", "digest of an old store"])
def test_the_key_changes_when_a_game_is_replaced_or_renumbered(tmp_path: Path, counter: bool) -> None:
    with Store.open_existing(build(tmp_path / "s.sqlite", "fill")) as store:
        if not counter:
            _without_counter(store)
        keys = [derived.content_key(store)]
        store.conn.execute("UPDATE games SET finished_at = finished_at + 1 WHERE idx = 5")  # played again
        keys.append(derived.content_key(store))
        store.conn.execute("UPDATE games SET idx = -1 WHERE idx = 3")  # two games swap places (a reindex)
        store.conn.execute("UPDATE games SET idx = 3 WHERE idx = 4")
        store.conn.execute("UPDATE games SET idx = 4 WHERE idx = -1")
        keys.append(derived.content_key(store))
        store.conn.execute("DELETE FROM games WHERE idx = 7")  # set aside
        keys.append(derived.content_key(store))
        assert len(set(keys)) == 4


def test_the_key_is_read_from_the_counter_without_reading_the_games(tmp_path: Path) -> None:
    """A warm `arena standings` reads one row for the key, whatever the store's size; any writer's change
    to the games (here plain SQL, as another program would) moves the counter through the triggers."""
    with Store.open_existing(build(tmp_path / "s.sqlite", "fill")) as store:
        statements: list[str] = []
        store.conn.set_trace_callback(statements.append)
        key = derived.content_key(store)
        store.conn.set_trace_callback(None)
        assert statements and not any("FROM games" in s for s in statements), statements
        store.conn.execute("UPDATE games SET ranks = ranks WHERE idx = 2")
        assert derived.content_key(store) != key
        # the control: without the triggers a change leaves the counter, and so the key, where it was
        for trigger in ("games_added", "games_removed", "games_changed"):
            store.conn.execute(f"DROP TRIGGER {trigger}")
        stale = derived.content_key(store)
        store.conn.execute("UPDATE games SET ranks = ranks WHERE idx = 2")
        assert derived.content_key(store) == stale


@pytest.mark.process
def test_a_warm_standings_call_loads_no_numpy(tmp_path: Path) -> None:
    """Issue 25: nothing new since the last call, `arena standings` answers from the store's caches
    without loading numpy (a tenth of a second of start-up, more than the answer costs) or the rating
    chains (1,900 generated lines) or numba (which compiles them once many games are rated: here the
    rating intervals' resamples)."""
    import subprocess
    import sys

    store = build(tmp_path / "s.sqlite", "rotations")
    probe = ("import sys; from arena.cli import main; sys.argv = ['arena', 'standings', sys.argv[1]]\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "print('loaded:', *(m for m in ('numpy', 'arena.stats.generated.chains', 'numba') if m in sys.modules), file=sys.stderr)")
    cold = subprocess.run([sys.executable, "-c", probe, str(store)], capture_output=True, text=True, timeout=120)
    # the control: computing needs them all
    assert cold.returncode == 0 and "loaded: numpy arena.stats.generated.chains numba\n" in cold.stderr, cold.stderr
    warm = subprocess.run([sys.executable, "-c", probe, str(store)], capture_output=True, text=True, timeout=120)
    assert warm.returncode == 0 and "loaded:\n" in warm.stderr, warm.stderr
    assert warm.stdout == cold.stdout
