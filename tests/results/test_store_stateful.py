"""The results store and its ratings cache under any interleaving a tournament run can produce.

A run records finished games in whatever order they finish (singly, or in batches on import), may be
killed and resumed (the file reopened), and `standings` may be asked at any moment; the store caches the
rating book of the longest gap-free prefix of schedule indices. Hypothesis drives those steps in any
order against a plain model (the set of stored games, rated in schedule order from scratch) and checks
after every step that the store holds exactly the model's games, once each, and that its standings,
with and without the cache, are the model's.
"""

from __future__ import annotations

import random
import shutil
import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from arena.core.faults import Fault, FaultKind
from arena.errors import StoreError
from arena.jsonvalue import loads
from arena.stats.ratings import RatingBook, RatingModel, Standing, leaderboard
from arena.core.result import Played
from arena.core.scheduled import ScheduledGame
from arena.results.store import Store, StoredGame
from arena.stats.standings import store_standings

NAMES = ["ann", "bob", "cat", "dan", "eve"]
ENTRANTS = [(n, [n]) for n in NAMES]
TOTAL = 30
DEFAULT = RatingModel()
OTHER = RatingModel(beta=3.0, draw_probability=0.2)  # another model's cache must never be used for DEFAULT
TOL = 1e-9
WORKERS = 4


def make_game(index: int, rnd: random.Random, version: str = "1") -> StoredGame:
    """Game `index` of the schedule: 3 or 4 seats among the 5 entrants, random points, ties and faults."""
    n = rnd.choice((3, 4))
    if rnd.random() < 0.1:  # `fill: cycle`: fewer entrants than seats, one entrant in two seats
        few = rnd.sample(range(5), n - 1)
        seats = tuple(few[s % len(few)] for s in range(n))
    else:
        seats = tuple(rnd.sample(range(5), n))
    points = tuple(float(rnd.randint(0, 4)) for _ in range(n))  # few values: ties are common
    fault_counts = tuple(rnd.choice((0, 0, 0, 0, 1, 2)) for _ in range(n))
    game_ranks = tuple(1 + sum(1 for q in points if q > p) for p in points)
    # Fault policy "forfeit": a seat that faulted shares last place; the others keep their order.
    clean = [s for s in range(n) if not fault_counts[s]]
    ranks = tuple(
        1 + sum(1 for q in clean if points[q] > points[s]) if not fault_counts[s] else len(clean) + 1 for s in range(n)
    )
    faults = tuple(
        Fault(s, FaultKind.TIMEOUT, k, k, "late")
        for s in range(n)
        for k in range(fault_counts[s])
    )
    stored = StoredGame(
        ScheduledGame(index=index, round=index // 3, table=index % 3, rotation=0, seats=seats, seed=rnd.getrandbits(62)),
        Played(points=points, tiebreaks=((),) * n, ranks=ranks, game_ranks=game_ranks, faults=faults,
               versions=(version,) * n, decisions=rnd.randint(1, 90), duration_s=0.01),
        game_id=f"r{index // 3}-t{index % 3}",
        replay_path=None,
    )
    assert stored.played.fault_counts == fault_counts
    return stored


def reference_book(games: dict[int, StoredGame], model: RatingModel, below: int | None = None) -> RatingBook:
    """The plain model: every stored game (below `below`) rated from scratch in schedule order."""
    book = RatingBook.new(model, len(NAMES))
    book.apply_all(games[i].rated() for i in sorted(games) if below is None or i < below)
    return book


def assert_same_standings(got: list[Standing], want: list[Standing]) -> None:
    assert [s.name for s in got] == [s.name for s in want]
    for g, w in zip(got, want):
        assert g.place == w.place, (g, w)
        assert g.games == w.games and g.faults == w.faults, (g, w)
        for field in ("mu", "sigma", "score", "wins"):
            assert abs(getattr(g, field) - getattr(w, field)) <= TOL, (field, g, w)
        for field in ("avg_points", "avg_rank"):
            a, b = getattr(g, field), getattr(w, field)
            assert (a is None) == (b is None) and (a is None or abs(a - b) <= TOL), (field, g, w)


def assert_same_book(got: RatingBook, want: RatingBook) -> None:
    assert (got.rated, got.unrated, got.last_index) == (want.rated, want.unrated, want.last_index)
    assert got.model == want.model
    for g, w in zip(got.entrants, want.entrants, strict=True):
        assert (g.games, g.seats, g.faults) == (w.games, w.seats, w.faults), (g, w)
        for a, b in zip(g.to_json(), w.to_json()):
            assert abs(a - b) <= TOL, (g, w)


class StoreMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.dir = Path(tempfile.mkdtemp(prefix="arena-store-stateful-"))
        self.path = self.dir / "results.sqlite"
        self.store: Store | None = None
        self.schedule: list[StoredGame] = []
        self.stored: dict[int, StoredGame] = {}  # the model: what the store must hold

    # --- helpers ----------------------------------------------------------------------------------------

    def _open(self) -> Store:
        return Store.create_or_resume(
            self.path,
            name="stateful",
            game="kododo",
            fingerprint="fp",
            identity={"seed": 1},
            entrants=ENTRANTS,
            total_games=TOTAL,
        )

    def missing(self) -> list[int]:
        return [i for i in range(TOTAL) if i not in self.stored]

    def prefix(self) -> int:
        """Length of the longest run 0..P-1 of stored indices."""
        p = 0
        while p in self.stored:
            p += 1
        return p

    def cache_row(self) -> tuple[int, RatingModel, RatingBook] | None:
        assert self.store is not None
        row = self.store.conn.execute("SELECT prefix, model, book FROM ratings_cache").fetchone()
        if row is None:
            return None
        return row[0], RatingModel(**loads(row[1])), RatingBook.from_json(loads(row[2]))

    def expected(self, model: RatingModel = DEFAULT) -> list[Standing]:
        return leaderboard(reference_book(self.stored, model), NAMES)

    def assert_refused_and_unchanged(self, games: list[StoredGame], batch: bool) -> None:
        assert self.store is not None
        before = self.store.conn.execute("SELECT * FROM games ORDER BY idx").fetchall()
        with pytest.raises(StoreError, match="never stored twice"):
            if batch:
                self.store.record_many(games)
            else:
                self.store.record(games[0])
        assert self.store.conn.execute("SELECT * FROM games ORDER BY idx").fetchall() == before
        assert not self.store.conn.in_transaction

    # --- rules ------------------------------------------------------------------------------------------

    @initialize(seed=st.integers(0, 2**32 - 1))
    def create(self, seed: int) -> None:
        rnd = random.Random(seed)
        self.schedule = [make_game(i, rnd) for i in range(TOTAL)]
        self.store = self._open()

    def _record(self, i: int) -> None:
        assert self.store is not None
        self.store.record(self.schedule[i])
        self.stored[i] = self.schedule[i]

    @precondition(lambda self: len(self.stored) < TOTAL)
    @rule(data=st.data())
    def record_one_in_flight(self, data: st.DataObject) -> None:
        """A game finishes: one of the lowest indices not stored yet (the games in flight, up to WORKERS)."""
        in_flight = data.draw(st.integers(1, WORKERS), label="in flight")
        self._record(data.draw(st.sampled_from(self.missing()[:in_flight]), label="index"))

    @precondition(lambda self: len(self.stored) < TOTAL)
    @rule(data=st.data())
    def record_one_anywhere(self, data: st.DataObject) -> None:
        """A game finishes: any index not stored yet (a rerun with other workers, a partial import)."""
        self._record(data.draw(st.sampled_from(self.missing()), label="index"))

    @precondition(lambda self: len(self.stored) < TOTAL)
    @rule(data=st.data())
    def record_batch(self, data: st.DataObject) -> None:
        """Several games stored in one transaction, in any order, mostly from the front of the schedule."""
        missing = self.missing()
        if data.draw(st.booleans(), label="near the front"):
            missing = missing[: 2 * WORKERS]
        picked = data.draw(
            st.lists(st.sampled_from(missing), min_size=1, max_size=min(4, len(missing)), unique=True), label="batch"
        )
        assert self.store is not None
        self.store.record_many([self.schedule[i] for i in picked])
        for i in picked:
            self.stored[i] = self.schedule[i]

    @precondition(lambda self: bool(self.stored))
    @rule(data=st.data(), changed=st.booleans())
    def record_again(self, data: st.DataObject, changed: bool) -> None:
        """A stored index again (the same result, or another one, as a rerun would make): refused, no change."""
        i = data.draw(st.sampled_from(sorted(self.stored)), label="stored index")
        game = make_game(i, random.Random(i * 7919 + 1), version="2") if changed else self.schedule[i]
        self.assert_refused_and_unchanged([game], batch=False)

    @precondition(lambda self: bool(self.stored))
    @rule(data=st.data())
    def record_batch_with_a_stored_game(self, data: st.DataObject) -> None:
        """A batch holding one stored index among new ones: refused as a whole (the new ones are not kept)."""
        again = data.draw(st.sampled_from(sorted(self.stored)), label="stored index")
        missing = self.missing()
        new = data.draw(st.lists(st.sampled_from(missing), max_size=3, unique=True), label="new") if missing else []
        batch = [self.schedule[i] for i in new]
        batch.insert(data.draw(st.integers(0, len(batch)), label="position"), self.schedule[again])
        self.assert_refused_and_unchanged(batch, batch=True)

    @rule()
    def standings_with_cache(self) -> None:
        assert self.store is not None
        assert_same_standings(store_standings(self.store, DEFAULT), self.expected())
        # The call leaves the cache at the longest gap-free prefix (nothing to cache when game 0 is missing).
        p = self.prefix()
        row = self.cache_row()
        if p == 0:
            assert row is None or row[1] != DEFAULT
        else:
            assert row is not None and row[0] == p and row[1] == DEFAULT

    @rule()
    def standings_without_cache(self) -> None:
        assert self.store is not None
        before = self.cache_row()
        assert_same_standings(store_standings(self.store, DEFAULT, use_cache=False), self.expected())
        after = self.cache_row()
        assert (before is None) == (after is None)
        if before is not None and after is not None:
            assert before[:2] == after[:2]
            assert_same_book(after[2], before[2])

    @rule()
    def standings_with_other_constants(self) -> None:
        """Standings with other rating constants: they replace the cache, which DEFAULT must then not use."""
        assert self.store is not None
        assert_same_standings(store_standings(self.store, OTHER), self.expected(OTHER))

    @rule(existing=st.booleans())
    def kill_and_resume(self, existing: bool) -> None:
        """The run is killed and resumed (`arena run` again), or the file opened by `arena standings`."""
        assert self.store is not None
        self.store.close()
        self.store = Store.open_existing(self.path) if existing else self._open()

    # --- invariants -------------------------------------------------------------------------------------

    @invariant()
    def holds_exactly_the_models_games_once(self) -> None:
        if self.store is None:
            return
        assert self.store.done_indices() == set(self.stored)
        info = self.store.info()
        assert info.stored_games == len(self.stored) and info.total_games == TOTAL
        assert list(self.store.games()) == [self.stored[i] for i in sorted(self.stored)]

    @invariant()
    def totals_count_every_game_once(self) -> None:
        if self.store is None:
            return
        games = [0] * len(NAMES)
        wins = [0.0] * len(NAMES)
        for g in self.stored.values():
            for e in set(g.seats):
                games[e] += 1
            winners = g.ranks.count(1)
            for e, r in zip(g.seats, g.ranks):
                if r == 1:
                    wins[e] += 1 / winners
        table = {s.name: s for s in store_standings(self.store, DEFAULT, use_cache=False)}
        assert [table[n].games for n in NAMES] == games
        assert all(abs(table[n].wins - w) <= TOL for n, w in zip(NAMES, wins))
        assert sum(s.games for s in table.values()) == sum(len(set(g.seats)) for g in self.stored.values())

    @invariant()
    def standings_with_and_without_cache_are_the_models(self) -> None:
        """Asked now, with the cache as it is: on a throwaway in-memory copy, so the check writes nothing."""
        if self.store is None:
            return
        want = self.expected()
        copy = sqlite3.connect(":memory:", isolation_level=None)
        try:
            self.store.conn.backup(copy)
            peek = Store(self.path, copy)
            assert_same_standings(store_standings(peek, DEFAULT, use_cache=True), want)
            assert_same_standings(store_standings(peek, DEFAULT, use_cache=True), want)  # from the cache just written
        finally:
            copy.close()
        assert_same_standings(store_standings(self.store, DEFAULT, use_cache=False), want)

    @invariant()
    def cache_covers_a_stored_gap_free_prefix(self) -> None:
        if self.store is None:
            return
        row = self.cache_row()
        if row is None:
            return
        prefix, model, book = row
        assert 0 < prefix <= self.prefix()
        assert book.last_index == prefix - 1 and book.rated == prefix
        assert_same_book(book, reference_book(self.stored, model, below=prefix))

    def teardown(self) -> None:
        if self.store is not None:
            self.store.close()
        shutil.rmtree(self.dir, ignore_errors=True)


StoreMachine.TestCase.settings = settings(
    max_examples=60,
    stateful_step_count=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestStoreStateful = StoreMachine.TestCase
TestStoreStateful.pytestmark = [pytest.mark.slow]  # type: ignore[attr-defined]
