"""`arena new-game NAME`: a package that passes `arena check-game NAME` once installed (by pip, in a
fresh venv) and plays a tournament as generated; its own tests pass; bad names and folders are refused."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.games.invariants import check_spec
from tests.support.plugins import fake_distribution, on_path
from tests.support.venv import fresh_venv_with


def _new(tmp_path: Path, name: str = "high-noon") -> Path:
    target = tmp_path / "pkg"
    result = CliRunner().invoke(main, ["new-game", name, "--dir", str(target)])
    assert result.exit_code == 0, result.output
    return target


def test_the_skeleton_has_every_part_and_passes_every_check(tmp_path, monkeypatch):
    target = _new(tmp_path)
    files = sorted(str(p.relative_to(target)) for p in target.rglob("*") if p.is_file())
    assert files == ["README.md", "high_noon/__init__.py", "high_noon/random_bot.py", "high_noon/renderer.js",
                     "high_noon/rules.py", "high_noon/state.py", "high_noon/view.py", "pyproject.toml", "tests/test_high_noon.py"]
    assert '[project.entry-points."arena.games"]\nhigh-noon = "high_noon:SPEC"' in (target / "pyproject.toml").read_text()
    site = fake_distribution(tmp_path / "site", "arena-high-noon", "0.1.0", {"high-noon": "high_noon:SPEC"}, {})
    on_path(monkeypatch, target)
    on_path(monkeypatch, site)
    from arena.games.registry import get_game

    spec = get_game("high-noon")
    assert spec.renderer is not None and "G.define(\"high-noon\"" in spec.renderer.source()
    assert all(v.passed for v in check_spec(spec, examples=5))


def test_bad_names_and_a_folder_in_use_are_refused(tmp_path):
    bad = CliRunner().invoke(main, ["new-game", "High Noon", "--dir", str(tmp_path / "x")])
    assert bad.exit_code == 2 and "lower-case letters" in bad.output
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "file").write_text("mine")
    used = CliRunner().invoke(main, ["new-game", "noon", "--dir", str(tmp_path / "used")])
    assert used.exit_code == 2 and "is not empty" in used.output
    assert (tmp_path / "used" / "file").read_text() == "mine"


@pytest.mark.process
@pytest.mark.slow
def test_installed_by_pip_it_passes_check_game_its_tests_and_plays_a_tournament(tmp_path):
    target = _new(tmp_path)
    venv = fresh_venv_with(tmp_path, target, "high_noon")
    checked = venv.run("check-game", "high-noon", "--examples", "10")
    assert "high-noon: 10 of 10 checks pass" in checked.stdout
    own = subprocess.run([str(venv.python), "-m", "pytest", "-q", "-p", "no:cacheprovider", str(target / "tests")],
                         capture_output=True, text=True, cwd=tmp_path)
    assert own.returncode == 0, own.stdout + own.stderr
    bot = venv.package() / "random_bot.py"
    config = tmp_path / "cup.yaml"
    config.write_text(f"""
name: noon-cup
game: high-noon
players: 3
entrants:
  - {{name: r1, command: ["{{python}}", "{bot}"], sandbox: {{shared_folder: true}}}}
  - {{name: r2, command: ["{{python}}", "{bot}"], sandbox: {{shared_folder: true}}}}
  - {{name: r3, command: ["{{python}}", "{bot}"], sandbox: {{shared_folder: true}}}}
schedule: {{format: round-robin, rounds: 2}}
sandbox: false
output: {{store: {tmp_path / 'cup.sqlite'}}}
""")
    venv.run("run", str(config), "--fresh")
    standings = venv.run("standings", str(tmp_path / "cup.sqlite")).stdout
    assert all(name in standings for name in ("r1", "r2", "r3"))
