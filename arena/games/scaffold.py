"""`arena new-game NAME`: a pip-installable game package to start from (templates in `skeleton/`).

The package is a complete small game that passes `arena check-game NAME` once installed and plays a
tournament as written: pyproject.toml with the `arena.games` entry point, the spec, the state, the
view, the rules, a renderer for the viewer, a random bot and the package's tests.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

from arena.errors import GameError

NAME = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")

# template -> where it goes ({module}: the Python package's name)
FILES = {
    "pyproject.toml.tmpl": "pyproject.toml",
    "README.md.tmpl": "README.md",
    "__init__.py.tmpl": "{module}/__init__.py",
    "state.py.tmpl": "{module}/state.py",
    "view.py.tmpl": "{module}/view.py",
    "rules.py.tmpl": "{module}/rules.py",
    "renderer.js.tmpl": "{module}/renderer.js",
    "random_bot.py.tmpl": "{module}/random_bot.py",
    "test_game.py.tmpl": "tests/test_{module}.py",
}


class ScaffoldError(GameError):
    pass


def skeleton(name: str) -> dict[str, str]:
    """The package's files by relative path, for the game `name` (lower case, digits, hyphens)."""
    if not NAME.fullmatch(name):
        raise ScaffoldError(f"game name {name!r}: use lower-case letters, digits and single hyphens, starting with a letter")
    module = name.replace("-", "_")
    folder = resources.files("arena.games").joinpath("skeleton")
    return {where.replace("{module}", module): _fill(folder.joinpath(template).read_text(encoding="utf-8"), name, module)
            for template, where in FILES.items()}


def _fill(text: str, name: str, module: str) -> str:
    """A template with its two words put in: `{name}` (the game's) and `{module}` (its package's)."""
    return text.replace("{name}", name).replace("{module}", module)


def write_skeleton(name: str, target: Path) -> list[Path]:
    """Write the package into `target`, which must not exist yet or be empty."""
    files = skeleton(name)
    if target.exists() and any(target.iterdir()):
        raise ScaffoldError(f"{target} is not empty: give another folder with --dir")
    written = []
    for relative, text in files.items():
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if path.name.endswith("_bot.py"):
            path.chmod(0o755)
        written.append(path)
    return written
