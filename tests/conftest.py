"""Shared by every test folder: the Hypothesis profiles (`dev` for quick local runs, `ci`, the default under
CI=true, for thorough ones), `write_config` and the C sample bot (`c_bot`)."""

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, settings

from tests.support.bots import C_BOT, ROOT

settings.register_profile("dev", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "ci", max_examples=100, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


pytest_plugins = ["tests.support.browser"]  # the Chromium fixtures, one session browser for every folder


@pytest.fixture
def write_config(tmp_path: Path):
    """Write a config (a dict) to a YAML file in tmp_path; returns its path."""

    def write(data: dict[str, Any], name: str = "t.yaml") -> Path:
        path = tmp_path / name
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        return path

    return write


@pytest.fixture(scope="session")
def c_bot() -> str:
    """The C sample bot, built once (make) for every test folder that plays it."""
    subprocess.run(["make", "-s", "sample_bots/c/random_bot"], cwd=ROOT, check=True)
    return str(C_BOT)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test in tests/sandbox needs the sandbox: marked here, so a new file there cannot slip into
    `make check` unmarked."""
    sandbox = Path(__file__).parent / "sandbox"
    for item in items:
        if sandbox in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.sandbox)
