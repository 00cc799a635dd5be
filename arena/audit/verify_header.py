"""`arena verify`'s header check: the replay names this protocol, a game this arena has at the version
it was recorded with, a seat count the game takes, its seats in seat order, every option of the game
with its value, and a time control of its format. Then the game can be re-simulated from its seed."""

from __future__ import annotations

from arena.errors import ArenaError
from arena.games.base import GameSpec
from arena.games.registry import get_game
from arena.protocol import PROTOCOL_VERSION
from arena.audit.verify_clock import Fail
from arena.replay.encoding import JSON, canonical_bytes
from arena.replay.records import Header, short


def check_header(h: Header, fail: Fail) -> tuple[GameSpec, dict[str, JSON]]:
    """The game and its options (resolved, so every option is there); raises `fail(line, problem)`."""
    at = h.line
    if h.protocol != PROTOCOL_VERSION:
        raise fail(at, f"'protocol': {h.protocol}, this arena speaks protocol {PROTOCOL_VERSION}")
    try:
        spec = get_game(h.game)
        spec.check_seats(len(h.seats))
    except ArenaError as exc:
        raise fail(at, str(exc)) from None
    if h.game_version != spec.version:
        raise fail(at, f"recorded with {spec.name} version {short(h.game_version)}, this arena has version "
                       f"{spec.version!r}: the game cannot be re-simulated")
    for index, seat in enumerate(h.seats):
        if seat.seat != index:
            raise fail(at, f"'seats': entry {index} is for seat {seat.seat}: seats are listed in seat order")
    try:
        resolved = spec.resolve_options(h.options)
    except ArenaError as exc:
        raise fail(at, f"'options': {exc}") from None
    if canonical_bytes(resolved) != canonical_bytes(h.options):
        raise fail(at, f"'options': {short(h.options)} must list every option of {spec.name} with its value: "
                       f"{short(resolved)}")
    try:
        h.control()
    except ArenaError as exc:
        raise fail(at, f"'time_control' is not a time control of replay format {h.format}: {exc}") from None
    return spec, resolved
