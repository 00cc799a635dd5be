"""`arena standings` and the bootstrap intervals give the same answer, to the last bit, on fixed stores.

The golden file was written by the code before the intervals were computed in compact chunks and
cached (issue 25): a faster path must not move any figure. Regenerate it only for a change that is
meant to alter results: `.venv/bin/python -m tests.tournament.test_standings_golden`.
"""

from __future__ import annotations

import json
import random
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main as cli
from arena.results.store import Store, StoredGame
from arena.stats.uncertainty import estimate
from bench.simfield import Field, SimGame, tournament

GOLDEN = Path(__file__).parent / "golden" / "standings.json"
OPTIONS = {
    "defaults": [],
    "options": ["--confidence", "0.9", "--resamples", "300", "--rating-resamples", "30", "--seed", "7"],
}


def _game(i: int, seats: tuple[int, ...], ranks: tuple[int, ...], seed: int, table: int = 0) -> StoredGame:
    n = len(seats)
    return StoredGame(
        index=i, game_id=f"g{i}", round=i // 8, table=table, rotation=i % n, seed=seed, seats=seats,
        points=tuple(float(10 * (n - r)) for r in ranks), tiebreaks=((),) * n, ranks=ranks, game_ranks=ranks,
        faults=(), fault_counts=(0,) * n, versions=("1",) * n, decisions=10, duration_s=0.01, replay_path=None,
    )


def _ranks(perf: list[float]) -> tuple[int, ...]:
    return tuple(1 + sum(1 for q in perf if q > p) for p in perf)


def fixed_games(shape: str) -> tuple[int, list[StoredGame]]:
    """(entrants, games) of a fixed store: `rotations` (4 seats, a deal under its 4 rotations, ties),
    `tables` (6 entrants at 3-seat tables, a late joiner with few deals), `fill` (an entrant in two seats)."""
    rnd = random.Random(shape)
    out: list[StoredGame] = []
    if shape == "rotations":
        for i in range(400):
            seats = tuple((i + s) % 4 for s in range(4))
            out.append(_game(i, seats, _ranks([round(rnd.gauss(e, 2.0)) for e in seats]), seed=i // 4))
        return 4, out
    if shape == "tables":
        tables = [(0, 1, 2), (0, 3, 4), (1, 3, 4), (2, 3, 4), (0, 1, 5)]
        i = 0
        for deal in range(90):
            t = deal % len(tables) if deal < 80 else 4  # entrant 5 plays only a few deals
            members = tables[t]
            for r in range(3):
                seats = tuple(members[(r + s) % 3] for s in range(3))
                out.append(_game(i, seats, _ranks([rnd.gauss(0.4 * e, 1.0) for e in seats]), seed=deal, table=t))
                i += 1
        return 6, out
    for i in range(240):  # fill: 3 entrants, 4 seats, entrant i % 3 twice
        e = i % 3
        seats = (e, (e + 1) % 3, e, (e + 2) % 3)
        out.append(_game(i, seats, _ranks([rnd.gauss(0.5 * x, 1.0) for x in seats]), seed=i // 2))
    return 3, out


def build(path: Path, shape: str) -> Path:
    entrants, games = fixed_games(shape)
    with Store.create_or_resume(path, name=shape, game="kododo", fingerprint="golden", identity={},
                                entrants=[(f"bot{k}", [f"bot{k}"]) for k in range(entrants)], total_games=len(games)) as store:
        store.record_many(games)
    return path


def standings_outputs(db: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, opts in OPTIONS.items():
        for fmt in ("--json", "--csv"):
            result = CliRunner().invoke(cli, ["standings", str(db), fmt, *opts], catch_exceptions=False)
            assert result.exit_code == 0, result.output
            out[f"{name} {fmt}"] = json.loads(result.output) if fmt == "--json" else result.output
    return out


def estimates() -> dict[str, Any]:
    """`estimate` on simulated tournaments: several tables (strata), rating resamples, another confidence."""
    out: dict[str, Any] = {}
    cases = [("5 entrants 3 seats", Field((0.0, 0.3, 0.6, 0.9, 1.2), seats=3), 8, 3),
             ("4 entrants 4 seats", Field((0.0, 0.3, 0.6, 1.0), seats=4), 12, 5)]
    for name, fld, rounds, seed in cases:
        games: list[SimGame] = tournament(fld, rounds=rounds, seed=seed)
        unc = estimate(games, fld.entrants, list(range(fld.entrants)), confidence=0.9, resamples=700, rating_resamples=25, seed=seed)
        out[name] = json.loads(json.dumps(asdict(unc)))
    return out


def snapshot(tmp: Path) -> dict[str, Any]:
    return {"stores": {s: standings_outputs(build(tmp / f"{s}.sqlite", s)) for s in ("rotations", "tables", "fill")}, "estimates": estimates()}


@pytest.mark.parametrize("shape", ["rotations", "tables", "fill"])
def test_standings_of_fixed_stores_are_unchanged(tmp_path: Path, shape: str) -> None:
    golden = json.loads(GOLDEN.read_text())["stores"][shape]
    db = build(tmp_path / f"{shape}.sqlite", shape)
    assert standings_outputs(db) == golden
    assert standings_outputs(db) == golden  # the second call answers from the caches: still the same


def test_intervals_of_fixed_tournaments_are_unchanged() -> None:
    assert estimates() == json.loads(GOLDEN.read_text())["estimates"]


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        GOLDEN.write_text(json.dumps(snapshot(Path(d)), indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}")
