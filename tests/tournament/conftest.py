from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml


@pytest.fixture
def write_config(tmp_path: Path):
    """Write a config (a dict) to a YAML file in tmp_path; returns its path."""

    def write(data: dict[str, Any], name: str = "t.yaml") -> Path:
        path = tmp_path / name
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        return path

    return write
