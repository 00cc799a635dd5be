"""A game is one room: everything about a game reaches the rest of arena through its `GameSpec`, so no
module outside `arena/games/` names a built-in game (code, comments, scripts and styles alike)."""

from __future__ import annotations

import re
from pathlib import Path

from arena.games.registry import installed

ARENA = Path(__file__).resolve().parents[2] / "arena"
SOURCES = ("*.py", "*.js", "*.css", "*.html")
GENERATED = {"_native_build.py"}  # setup.py's record of the compiled files, paths included


def builtin_names() -> set[str]:
    """The built-in games' names and their packages' (arena's own entry points), and the families they share."""
    ours = [e for claims in installed().values() for e in claims if e.distribution.startswith("arena ")]
    names = {e.name for e in ours} | {e.module.split(".")[2] for e in ours}
    return names | {n.split("-")[0].split("_")[0] for n in names}


def naming_a_game(root: Path, names: set[str]) -> list[str]:
    pattern = re.compile(r"(?<![a-z])(" + "|".join(sorted(map(re.escape, names))) + r")(?![a-z])", re.I)
    found = []
    for glob in SOURCES:
        for path in sorted(root.rglob(glob)):
            relative = path.relative_to(root)
            if relative.parts[0] == "games" or path.name in GENERATED:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if pattern.search(line):
                    found.append(f"arena/{relative}:{number}: {line.strip()}")
    return found


def test_the_built_in_games_are_known_by_name():
    assert {"kododo", "kolpa", "kodama-duo", "kodama-draft", "kodama"} <= builtin_names()


def test_no_module_outside_arena_games_names_a_built_in_game():
    assert naming_a_game(ARENA, builtin_names()) == []


def test_control_a_module_switching_on_a_game_name_is_found(tmp_path):
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "frames.py").write_text('def label(game):\n    if game == "kolpa":\n        return "round"\n')
    (tmp_path / "web" / "games.js").write_text('var render = { "kodama-duo": kodama };\n')
    (tmp_path / "games" / "kolpa").mkdir(parents=True)
    (tmp_path / "games" / "kolpa" / "__init__.py").write_text('SPEC = "kolpa"\n')  # inside arena/games: allowed
    assert naming_a_game(tmp_path, builtin_names()) == [
        'arena/web/frames.py:2: if game == "kolpa":', 'arena/web/games.js:1: var render = { "kodama-duo": kodama };']
