"""Seats are shown by entrant name with the bot's own hello name and version beside it, and seeds as
strings (issue 23, item 4): two versions of a bot that both call themselves `det 1` are told apart in
`arena play`, `arena replay` and the viewer, and the viewer page keeps a 64-bit seed's every digit."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.web.frames import Perspective, viewer_data
from arena.web.replay_source import load_game_record

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[2]
DET = ROOT / "tests" / "tournament" / "bots" / "det_bot.py"
SEED = "7859386907950186225"  # above 2**53: a JavaScript number would show 7859386907950186000


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from arena.cli import main; main()", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=120)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    folder = tmp_path_factory.mktemp("names")
    for version in ("v1", "v2"):  # the same program, twice: both say hello as `det` version `1`
        (folder / version).mkdir()
        shutil.copy(DET, folder / version / "det.py")
    done = arena("play", "kolpa", "--bot", f"{sys.executable} v1/det.py", "--bot", f"{sys.executable} v2/det.py",
                 "--seed", SEED, "--replay", "game.jsonl", "--no-sandbox", cwd=folder)
    assert done.returncode == 0, done.stderr
    return folder, done.stdout


def test_play_names_each_seat_by_entrant_with_the_bots_own_name_beside_it(played: tuple[Path, str]) -> None:
    _, out = played
    assert f"seed {SEED}" in out
    assert "  seat 0: v1/det.py (det 1)  (" in out and "  seat 1: v2/det.py (det 1)  (" in out
    result = out[out.index("result of"):]
    assert re.search(r"seat 0  v1/det\.py \(det 1\)", result) and re.search(r"seat 1  v2/det\.py \(det 1\)", result)


def test_replay_names_the_seats_the_same_way(played: tuple[Path, str]) -> None:
    folder, _ = played
    done = arena("replay", "game.jsonl", "--from-step", "3", "--no-sandbox", "-o", "b.jsonl", cwd=folder)
    assert done.returncode == 0, done.stderr
    result = done.stdout[done.stdout.index("result of"):]
    assert re.search(r"seat 0  v1/det\.py \(det 1\)", result) and re.search(r"seat 1  v2/det\.py \(det 1\)", result)


def test_the_viewer_shows_the_seed_as_a_string_and_the_seats_by_entrant(played: tuple[Path, str]) -> None:
    folder, _ = played
    data = viewer_data(load_game_record(folder / "game.jsonl"), Perspective(None))
    assert data["seed"] == SEED  # a string: JSON.parse in the page keeps every digit
    assert data["players"] == ["v1/det.py (det 1)", "v2/det.py (det 1)"]
    done = arena("view", "game.jsonl", cwd=folder)
    assert done.returncode == 0, done.stderr
    page = (folder / "game.html").read_text()
    embedded = re.search(r'<script type="application/json" id="arena-data">(.*?)</script>', page, re.S)
    assert embedded is not None
    assert json.loads(embedded.group(1))["seed"] == SEED
