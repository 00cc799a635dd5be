"""The demo's own bots give the same standings whatever the concurrency (they reseed per game), with one secret."""

from __future__ import annotations

from pathlib import Path

import yaml

from arena.tournament.config import tournament as tconfig
from arena.tournament.run.runner import run
import pytest

pytestmark = pytest.mark.process

DEMO = Path(__file__).resolve().parents[2] / "configs" / "kododo.yaml"


def demo_with(tmp_path: Path, concurrency: int):
    data = yaml.safe_load(DEMO.read_text())
    data["schedule"]["rounds"] = 2  # 2 deals x 4 rotations
    data["output"] = {"store": str(tmp_path / f"demo-{concurrency}.sqlite")}
    config = tconfig.parse(data, DEMO)
    return run(config, concurrency=concurrency, fresh=True, quiet=True, secret="0123456789abcdef0123456789abcdef")


def test_demo_standings_do_not_depend_on_concurrency(tmp_path):
    one = demo_with(tmp_path, 1)
    two = demo_with(tmp_path, 2)
    assert one.played == two.played == 8
    assert [(s.name, s.mu, s.sigma, s.wins) for s in one.standings] == [(s.name, s.mu, s.sigma, s.wins) for s in two.standings]
