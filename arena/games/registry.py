"""Games by name. A game joins by calling `register` when its package is imported."""

from __future__ import annotations

import importlib

from arena.errors import UnknownGame
from arena.games.base import GameSpec

_GAMES: dict[str, GameSpec] = {}

# The built-in games, imported on first use so that importing arena stays cheap.
BUILTIN_MODULES = ("arena.games.kododo", "arena.games.kolpa", "arena.games.kodama_duo", "arena.games.kodama_draft")
_loaded = False


def register(spec: GameSpec) -> GameSpec:
    if spec.name in _GAMES and _GAMES[spec.name] is not spec:
        raise ValueError(f"a game named {spec.name!r} is already registered")
    _GAMES[spec.name] = spec
    return spec


def _load_builtin() -> None:
    global _loaded
    if _loaded:
        return
    for module in BUILTIN_MODULES:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:  # a real import error inside a game must not be hidden
                raise
    _loaded = True  # only once every game imported: a failed import is retried and reported again


def builtin_module(name: str) -> str | None:
    """The package of the built-in game `name` (each is named after its game), or None."""
    module = "arena.games." + name.replace("-", "_")
    return module if module in BUILTIN_MODULES else None


def get_game(name: str) -> GameSpec:
    found = _GAMES.get(name)
    if found is not None:
        return found
    module = builtin_module(name)
    if module is not None:
        importlib.import_module(module)  # only that game: a run's coordinator plays one
        if name in _GAMES:
            return _GAMES[name]
    _load_builtin()
    try:
        return _GAMES[name]
    except KeyError:
        known = ", ".join(sorted(_GAMES)) or "none"
        raise UnknownGame(f"unknown game {name!r} (known games: {known})") from None


def all_games() -> list[GameSpec]:
    _load_builtin()
    return [_GAMES[name] for name in sorted(_GAMES)]
