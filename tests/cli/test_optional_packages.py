"""`make demo` installs arena's own dependencies only (issue 35, item 5): the server's stack, Dask, the
browser driver and the test tools are extras. A command that needs an extra says what to install."""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main

ROOT = Path(__file__).resolve().parents[2]
# hypothesis is not here: `arena check-game` searches with it at run time (a run dependency since issue 40)
EXTRAS_ONLY = ("playwright", "distributed", "starlette", "uvicorn", "httpx", "pytest", "mypy==", "mutmut",
               "import-linter", "jsonschema")


def test_the_run_dependencies_hold_no_test_server_or_cluster_package() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    core = project["dependencies"]
    assert [d for d in core if d.startswith(EXTRAS_ONLY)] == []
    extras = project["optional-dependencies"]
    assert any(d.startswith("starlette") for d in extras["server"]) and any(d.startswith("distributed") for d in extras["dask"])
    assert "arena[server]" in extras["test"]  # make setup / check / test install the server too


@pytest.mark.parametrize("without_starlette", [True, False], ids=["starlette-missing", "control-installed"])
def test_arena_serve_without_the_server_packages_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, without_starlette: bool
) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any) -> Any:
        return None if without_starlette and name == "starlette" else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    result = CliRunner().invoke(main, ["serve", str(tmp_path / "absent.yaml")])
    assert result.exit_code == 2 and "Traceback" not in result.output
    if without_starlette:
        assert "missing here: starlette" in result.output and "pip install -e '.[server]'" in result.output
    else:  # past the check: the missing config is what is reported
        assert "starlette" not in result.output and "absent.yaml" in result.output
