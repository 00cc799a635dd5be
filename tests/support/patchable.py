"""Breaking Kododo on purpose in a test, whether its engine is compiled or not.

Compiled with mypyc (setup.py), `KododoState`'s methods are called natively by the compiled referee and by
each other, so `monkeypatch.setattr(KododoState, ...)` would change nothing they call. Instead the test
patches an interpreted subclass that the registry hands out for "kododo" for the test's duration:

    monkeypatch.setattr(patchable_kododo(monkeypatch), "apply", broken)
"""

from __future__ import annotations

import dataclasses

import pytest

from arena.games import registry
from arena.games.kododo.state import KododoState


class PatchableKododo(KododoState):
    """Kododo as it is, as an interpreted class: what a test patches on it takes effect everywhere."""


def patchable_kododo(monkeypatch: pytest.MonkeyPatch) -> type[KododoState]:
    """A fresh subclass of Kododo's state, made the one every "kododo" game is played with until the test
    ends; called again in the same test, the same class."""
    spec = registry.get_game("kododo")
    if isinstance(spec.factory, type) and issubclass(spec.factory, PatchableKododo):
        return spec.factory
    patched = type("PatchedKododo", (PatchableKododo,), {})
    monkeypatch.setitem(registry._GAMES, "kododo", dataclasses.replace(spec, factory=patched))
    return patched
