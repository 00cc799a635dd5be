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
        real = standings_mod.estimate_blocks

        def counted(*args: object, **kwargs: object) -> object:
            calls.append(1)
            return real(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(standings_mod, "estimate_blocks", counted)
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


def test_the_key_changes_when_a_game_is_replaced_or_renumbered(tmp_path: Path) -> None:
    with Store.open_existing(build(tmp_path / "s.sqlite", "fill")) as store:
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
