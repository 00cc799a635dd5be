"""The benchmarks' own inputs stay valid as the store's shapes change: each synthetic store they build
is written through the real Store, so a bench that would crash at its start fails here first."""

from __future__ import annotations

from pathlib import Path

from arena.results.store import Store
from bench import bench_report, bench_standings


def test_the_synthetic_stores_of_the_benches_can_be_written_and_read(tmp_path: Path) -> None:
    games = bench_report.synthetic_games(120)
    assert any(g.played.faults for g in games)
    with Store.create_or_resume(tmp_path / "r.sqlite", name="b", game="kododo", fingerprint="b", identity={},
                                entrants=[(f"e{i}", [f"e{i}"]) for i in range(8)], total_games=120) as store:
        store.record_many(games)
        assert [g.index for g in store.games()] == list(range(120))
    built = bench_standings.build_store(tmp_path / "s.sqlite", 400)
    with Store.open_existing(built) as store:
        assert len(list(store.games())) == 400
