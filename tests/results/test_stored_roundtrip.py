"""A stored game is typed on both sides of the SQL edge: any `StoredGame` (a `ScheduledGame`, a
`Played` with typed faults, whatever text a bot put in a fault) written through the real store reads
back equal, and the ratings' fast path reads the same fault counts as the typed game."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.core.faults import Fault, FaultKind
from arena.core.result import Played
from arena.core.scheduled import ScheduledGame
from arena.results.store import Store, StoredGame

ENTRANTS = 6
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)  # any text a bot may send, no lone surrogates
INT = st.integers(-(2**31), 2**31)


@st.composite
def stored_games(draw: st.DrawFn, index: int) -> StoredGame:
    n = draw(st.integers(2, 5))
    seats = tuple(draw(st.lists(st.integers(0, ENTRANTS - 1), min_size=n, max_size=n)))
    faults = tuple(
        Fault(draw(st.integers(-1, n - 1)), draw(st.sampled_from(FaultKind)), draw(st.integers(-1, 500)),
              draw(st.none() | st.integers(0, 10**6)), draw(TEXT), tuple(draw(st.lists(TEXT, max_size=3))))
        for _ in range(draw(st.integers(0, 4)))
    )
    played = Played(
        points=tuple(draw(st.lists(INT, min_size=n, max_size=n))),
        tiebreaks=tuple(tuple(draw(st.lists(INT, max_size=2))) for _ in range(n)),
        ranks=tuple(draw(st.lists(st.integers(1, n), min_size=n, max_size=n))),
        game_ranks=tuple(draw(st.lists(st.integers(1, n), min_size=n, max_size=n))),
        faults=faults,
        versions=tuple(draw(st.lists(TEXT, min_size=n, max_size=n))),
        decisions=draw(st.integers(0, 10**6)),
        duration_s=draw(st.floats(0, 1e6, allow_nan=False)),
    )
    scheduled = ScheduledGame(index=index, round=draw(st.integers(0, 10**4)), table=draw(st.integers(0, 10**4)),
                              rotation=draw(st.integers(0, 120)), seats=seats, seed=draw(st.integers(0, 2**63 - 1)))
    return StoredGame(scheduled, played, game_id=draw(TEXT), replay_path=draw(st.none() | TEXT), key=draw(st.none() | TEXT))


@st.composite
def batches(draw: st.DrawFn) -> list[StoredGame]:
    indices = draw(st.lists(st.integers(0, 10**6), min_size=1, max_size=6, unique=True))
    return [draw(stored_games(i)) for i in indices]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches(), st.booleans())
def test_any_stored_game_reads_back_equal(games: list[StoredGame], one_by_one: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.sqlite"
        with Store.create_or_resume(path, name="t", game="kododo", fingerprint="f", identity={},
                                    entrants=[(f"e{i}", ["x"]) for i in range(ENTRANTS)], total_games=10**6 + 1) as store:
            if one_by_one:
                for g in games:
                    store.record(g)
            else:
                store.record_many(games)
        with Store.open_existing(path) as store:
            back = list(store.games())
            rated = [g for rows in store.rated_rows() for g in rows.games()]
    ordered = sorted(games, key=lambda g: g.index)
    assert back == ordered
    assert all(isinstance(f, Fault) and isinstance(f.kind, FaultKind) for g in back for f in g.played.faults)
    assert [r.faults for r in rated] == [g.played.fault_counts for g in ordered]
    assert [r.rated() for r in back] == rated


def test_a_fault_held_by_no_seat_is_charged_to_none() -> None:
    faults = (Fault(1, FaultKind.CRASH, 3, None, "x"), Fault(-1, FaultKind.NO_EXIT, -1, None, "y"),
              Fault(1, FaultKind.TIMEOUT, 4, 2, "z"))
    played = Played((1, 2, 3), ((), (), ()), (1, 3, 2), (1, 2, 3), faults, ("1",) * 3, 9, 0.5)
    assert played.fault_counts == (0, 2, 0)
