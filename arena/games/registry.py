"""Games by name, found through the `arena.games` entry points (importlib.metadata).

Every game, the built-in ones included, is a package that declares an entry point in the group
`arena.games`: its name is the game's name, its value the `GameSpec` (`"arena.games.kododo:SPEC"`, in
arena's own pyproject.toml, or `"goofspiel.spec:SPEC"` in a plugin's). A game is imported when first
asked for, and only that game. A plugin that fails to import, is not a `GameSpec`, names another game,
or claims a name another package claims too is a `PluginError` naming it; the other games still work.
`register` adds a spec directly (a game checked from its module by `arena check-game`, tests).
"""

from __future__ import annotations

import importlib
import importlib.metadata as metadata
from dataclasses import dataclass

from arena.errors import PluginError, UnknownGame
from arena.games.base import GameSpec

GROUP = "arena.games"

_GAMES: dict[str, GameSpec] = {}
_SOURCES: dict[str, str] = {}


@dataclass(frozen=True)
class Installed:
    """One entry point of the group: where a game comes from, before it is imported."""

    name: str
    value: str  # "module:attribute"
    distribution: str  # the package that declares it, with its version

    @property
    def module(self) -> str:
        return self.value.partition(":")[0]

    @property
    def source(self) -> str:
        return f"{self.distribution} ({self.value})"


def register(spec: GameSpec, source: str = "registered in-process") -> GameSpec:
    if spec.name in _GAMES and _GAMES[spec.name] is not spec:
        raise PluginError(f"a game named {spec.name!r} is already registered (from {_SOURCES.get(spec.name, '?')})")
    _GAMES[spec.name] = spec
    _SOURCES.setdefault(spec.name, source)
    return spec


def installed() -> dict[str, list[Installed]]:
    """Every entry point of the group by game name (one per declaring package; two packages may clash)."""
    found: dict[str, list[Installed]] = {}
    for ep in metadata.entry_points(group=GROUP):
        dist = ep.dist
        label = f"{dist.name} {dist.version}" if dist is not None else "an unnamed package"
        entry = Installed(ep.name, ep.value, label)
        same = found.setdefault(ep.name, [])
        if all(e.value != entry.value for e in same):  # one package seen twice on the path is one claim
            same.append(entry)
    return found


def _load(name: str, claims: list[Installed]) -> GameSpec:
    if len(claims) > 1:
        who = " and ".join(c.source for c in claims)
        raise PluginError(f"game {name!r} is claimed by two packages: {who}; uninstall one of them")
    entry = claims[0]
    module, _, attr = entry.value.partition(":")
    try:
        obj: object = importlib.import_module(module)
        for part in attr.split(".") if attr else []:
            obj = getattr(obj, part)
    except Exception as exc:  # noqa: BLE001 - a plugin's import may fail in any way: one line, named
        raise PluginError(f"game {name!r} from {entry.source} cannot be loaded: {type(exc).__name__}: {exc}") from None
    if not isinstance(obj, GameSpec):
        raise PluginError(f"game {name!r} from {entry.source} is a {type(obj).__name__}, not an arena GameSpec")
    if obj.name != name:
        raise PluginError(f"entry point {name!r} from {entry.source} gives a game named {obj.name!r}: make them one name")
    _SOURCES[name] = entry.source
    return register(obj, entry.source)


def get_game(name: str) -> GameSpec:
    found = _GAMES.get(name)
    if found is not None:
        return found
    claims = installed()
    if name in claims:
        return _load(name, claims[name])
    known = ", ".join(sorted(set(claims) | set(_GAMES))) or "none"
    raise UnknownGame(f"unknown game {name!r} (known games: {known})")


def game_module(name: str) -> str | None:
    """The module an installed game's spec is in (a worker pool imports it once, ahead), or None."""
    claims = installed().get(name, [])
    return claims[0].module if len(claims) == 1 else None


def source(name: str) -> str:
    """Where the game `name` comes from: its package and entry point."""
    get_game(name)
    return _SOURCES.get(name, "registered in-process")


@dataclass(frozen=True)
class Catalogue:
    """Every game that loads, and one error per entry point that does not."""

    games: list[GameSpec]
    broken: list[PluginError]


def catalogue() -> Catalogue:
    games: dict[str, GameSpec] = dict(_GAMES)
    broken: list[PluginError] = []
    for name, claims in sorted(installed().items()):
        if name in games and len(claims) == 1:
            continue
        try:
            games[name] = _load(name, claims)
        except PluginError as exc:
            games.pop(name, None)
            broken.append(exc)
    return Catalogue([games[n] for n in sorted(games)], broken)


def all_games() -> list[GameSpec]:
    """Every game that loads (a broken plugin is left out: `catalogue` says why)."""
    return catalogue().games


def find_game(target: str) -> GameSpec:
    """A game by its name, else from a module (`package` or `package.module`, optionally `:ATTRIBUTE`;
    by default its `SPEC`) that need not be installed: registered in-process so the referee finds it."""
    try:
        return get_game(target)
    except PluginError:
        raise
    except UnknownGame as unknown:
        module, _, attr = target.partition(":")
        try:
            obj: object = importlib.import_module(module)
        except ImportError:
            raise UnknownGame(f"{unknown}; nor is {module!r} an importable module holding a game's SPEC") from None
        except Exception as exc:  # noqa: BLE001 - a game's import may fail in any way: one line
            raise PluginError(f"module {module!r} cannot be imported: {type(exc).__name__}: {exc}") from None
        obj = getattr(obj, attr or "SPEC", None)
        if not isinstance(obj, GameSpec):
            raise UnknownGame(f"module {module!r} has no GameSpec named {attr or 'SPEC'}") from None
        found = _GAMES.get(obj.name)
        return found if found is obj else register(obj, f"module {module}")
