"""Telling a game's own failure from anything else: an exception raised inside the game's package.

The referee asks this of whatever a game raised while being played: a game whose code raised (rather
than refusing an action with `IllegalAction`) is at fault, not a bot and not arena, and the run stops
with one line naming the game (`GameBroke`), storing no result for it.
"""

from __future__ import annotations

import traceback

from arena.errors import ArenaError
from arena.games.base import GameSpec


def game_package(spec: GameSpec) -> str:
    """The package holding the game's state class ("goofspiel" for "goofspiel.state")."""
    module = spec.factory.__module__
    return module.rpartition(".")[0] or module


def broke(spec: GameSpec, exc: BaseException, step: int) -> str | None:
    """What to say when `exc` was raised by the game's own code, or None when it was not."""
    if isinstance(exc, (ArenaError, KeyboardInterrupt, SystemExit)):
        return None
    package = game_package(spec)
    frames = traceback.extract_tb(exc.__traceback__)
    modules = {frame.filename for frame in frames}
    root = __import__(package, fromlist=["__name__"]).__file__ or ""
    folder = root.rpartition("/")[0] if root.endswith("__init__.py") else root
    if not any(name == folder or name.startswith(folder + "/") or name == root for name in modules):
        return None
    where = f"at step {step}" if step >= 0 else "outside any step"
    return (f"game {spec.name!r} broke {where}: its code raised {type(exc).__name__}: {exc}; no result is stored for this "
            f"game (check the game with `arena check-game {spec.name}`)")
