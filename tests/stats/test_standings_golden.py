"""`arena standings` and the bootstrap intervals give the same answer, to the last bit, on fixed stores.

The golden file was written by the code before the intervals were computed in compact chunks and
cached (issue 25): a faster path must not move any figure. Regenerate it only for a change that is
meant to alter results: `.venv/bin/python -m tests.stats.test_standings_golden`.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main as cli
from arena.stats import kernel
from arena.stats.uncertainty import estimate
from arena.tournament.schedule.plan import Deals
from bench.simfield import Field, SimGame, tournament
from tests.support.stores import build

GOLDEN = Path(__file__).parent / "golden" / "standings.json"
OPTIONS = {
    "defaults": [],
    "options": ["--confidence", "0.9", "--resamples", "300", "--rating-resamples", "30", "--seed", "7"],
}


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
    cases = [("5 entrants 3 seats", Field((0.0, 0.3, 0.6, 0.9, 1.2), seats=3, deals=Deals.SHARED), 8, 3),
             ("4 entrants 4 seats", Field((0.0, 0.3, 0.6, 1.0), seats=4, deals=Deals.SHARED), 12, 5)]
    for name, fld, rounds, seed in cases:
        games: list[SimGame] = tournament(fld, rounds=rounds, seed=seed)
        unc = estimate(games, fld.entrants, list(range(fld.entrants)), confidence=0.9, resamples=700, rating_resamples=25, seed=seed)
        out[name] = json.loads(json.dumps(asdict(unc)))
    return out


def snapshot(tmp: Path) -> dict[str, Any]:
    return {"stores": {s: standings_outputs(build(tmp / f"{s}.sqlite", s)) for s in ("rotations", "tables", "fill")}, "estimates": estimates()}


# "compiled": every chain compiled from the first game, as a cold store past `COMPILE_FROM` games is rated.
KERNELS = pytest.mark.parametrize("compile_from", [kernel.COMPILE_FROM, 1], ids=["plain", "compiled"])


@KERNELS
# The rotations store (the biggest, about 9 s a kernel) in the slow tier; tables and fill keep `make check` on it.
@pytest.mark.parametrize("shape", [pytest.param("rotations", marks=pytest.mark.slow), "tables", "fill"])
def test_standings_of_fixed_stores_are_unchanged(tmp_path: Path, shape: str, compile_from: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kernel, "COMPILE_FROM", compile_from)
    golden = json.loads(GOLDEN.read_text())["stores"][shape]
    db = build(tmp_path / f"{shape}.sqlite", shape)
    assert standings_outputs(db) == golden
    assert standings_outputs(db) == golden  # the second call answers from the caches: still the same


@KERNELS
def test_intervals_of_fixed_tournaments_are_unchanged(compile_from: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kernel, "COMPILE_FROM", compile_from)
    assert estimates() == json.loads(GOLDEN.read_text())["estimates"]


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        GOLDEN.write_text(json.dumps(snapshot(Path(d)), indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}")
