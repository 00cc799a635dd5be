"""Installing a game plugin for a test without pip: a distribution's metadata (`NAME-VERSION.dist-info`
with its `entry_points.txt`) and its modules in a folder put on the import path, which is all
importlib.metadata reads. A subprocess sees the same plugin through PYTHONPATH (`plugin_env`)."""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

import pytest


def fake_distribution(root: Path, dist: str, version: str, entries: dict[str, str], modules: dict[str, str]) -> Path:
    """Write distribution `dist` into `root`: its `arena.games` entry points and its module files."""
    info = root / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n", encoding="utf-8")
    lines = "".join(f"{name} = {value}\n" for name, value in entries.items())
    (info / "entry_points.txt").write_text(f"[arena.games]\n{lines}", encoding="utf-8")
    for relative, text in modules.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def on_path(monkeypatch: pytest.MonkeyPatch, root: Path) -> None:
    """`root`'s distributions and modules visible to this process for the test (the registry forgets
    what it loaded from them afterwards)."""
    from arena.games import registry

    monkeypatch.syspath_prepend(str(root))
    importlib.invalidate_caches()
    monkeypatch.setattr(registry, "_GAMES", dict(registry._GAMES))
    monkeypatch.setattr(registry, "_SOURCES", dict(registry._SOURCES))


def plugin_env(*roots: Path) -> dict[str, str]:
    """The environment of a subprocess that sees the plugins in `roots`."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*map(str, roots), *filter(None, [env.get("PYTHONPATH")])])
    return env


def arena_command() -> list[str]:
    return [str(Path(sys.executable).parent / "arena")]
