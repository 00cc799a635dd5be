"""The generated code is fenced and fresh (fast tier): every generated module of arena lives in a
`generated` folder and says so on its first line, and the kept files are what their generator writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.stats import chain_source

ARENA = Path(chain_source.__file__).resolve().parents[1]


def generated_modules() -> list[Path]:
    return sorted(p for p in ARENA.rglob("*.py") if "generated" in p.relative_to(ARENA).parts[:-1] and p.name != "__init__.py")


def test_the_kept_chains_are_what_the_generator_writes() -> None:
    assert chain_source.main([]) == 0, "run `python -m arena.stats.chain_source --write`"  # chains.py and runs.py


def test_a_stale_generated_file_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    stale = tmp_path / "chains.py"  # the control: a hand edit of the generated chains
    stale.write_text(chain_source.CHAINS_FILE.read_text().replace("** -2.0", "** -2", 1))
    monkeypatch.setattr(chain_source, "CHAINS_FILE", stale)
    assert chain_source.main([]) == 1
    assert "is stale" in capsys.readouterr().err


def test_generated_code_is_fenced_in_generated_folders_and_marked() -> None:
    generated = generated_modules()
    assert {p.name for p in generated} >= {"chains.py", "runs.py"}
    for path in generated:
        assert path.read_text(encoding="utf-8").startswith("# GENERATED "), path
    elsewhere = [p for p in ARENA.rglob("*.py") if p not in generated and "generated" not in p.relative_to(ARENA).parts[:-1]
                 and p.name != "_native_build.py" and p.read_text(encoding="utf-8").startswith(("# GENERATED", '"""GENERATED'))]
    assert elsewhere == [], "generated modules belong in a `generated` folder"
