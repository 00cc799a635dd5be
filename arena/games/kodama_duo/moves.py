"""Why a Kodama Duo action is refused: the checks of the split, place and spirit decisions, each naming
what to fix. Pure functions of the state (`KodamaDuoState.check` delegates here); the kind of decision
asked now (`Step`) is in table.py."""

from __future__ import annotations

from typing import Any

from arena.errors import IllegalAction
from arena.games.base import Seat
from arena.games.kodama.common import attachment, is_int
from arena.games.kodama.rules import MAX_PLACEMENT_POINTS
from arena.games.kodama_duo.table import KodamaDuoTable, Step
from arena.jsonvalue import JSON


def shape(state: KodamaDuoTable, seat: Seat, action: JSON, key: str, example: str, other: tuple[str, ...] = ()) -> Any:
    """The action must be an object with exactly `key` (and `other`); returns action[key]."""
    wanted = {key, *other}
    if not isinstance(action, dict) or set(action) != wanted:
        raise IllegalAction(seat, action, f"a {state.step.value} action is an object like {example}")
    return action[key]


def check_split(state: KodamaDuoTable, seat: Seat, action: JSON) -> None:
    piles = shape(state, seat, action, "split", '{"split": [["B03"], ["B11", "B20"]]}')
    if not isinstance(piles, list) or len(piles) != 2 or not all(isinstance(p, list) for p in piles):
        raise IllegalAction(seat, action, "split must be a list of two piles, each a list of card ids")
    if not piles[0] or not piles[1]:
        raise IllegalAction(seat, action, "each pile needs at least one card")
    cards = piles[0] + piles[1]
    if not all(isinstance(c, str) for c in cards) or sorted(cards) != sorted(state.revealed):
        raise IllegalAction(seat, action, f"the two piles must hold the revealed cards {state.revealed}, each exactly once")


def check_place(state: KodamaDuoTable, seat: Seat, action: JSON) -> None:
    example = '{"card": "B17", "at": ["T1", 0]}'
    card = shape(state, seat, action, "card", example, ("at",))
    at = action["at"]
    if card not in state.held[seat]:
        raise IllegalAction(seat, action, f"{card!r} is not one of your new cards {sorted(state.held[seat])}")
    tree = state.trees[seat]
    parent, point = attachment(seat, action, at, tree, example)
    if not tree.is_free(parent, point):
        n = len(tree.children[parent])
        why = f"has only points 0..{n - 1}" if not 0 <= point < n else f"already holds {tree.children[parent][point]}"
        if n == 0:
            why = "has no attachment point"
        raise IllegalAction(seat, action, f"attachment point {point} of {parent} is not free: {parent} {why}")
    points, _ = state._placement(seat, card, parent)
    if points > MAX_PLACEMENT_POINTS:
        raise IllegalAction(seat, action, f"this placement would score {points} points; above {MAX_PLACEMENT_POINTS} is forbidden")


def check_spirit(state: KodamaDuoTable, seat: Seat, action: JSON) -> None:
    element = shape(state, seat, action, "spirit", '{"spirit": "flower", "on": ["B05", 1]}', ("on",))
    on = action["on"]
    if element not in state.spirit_elements:
        raise IllegalAction(seat, action, f"the spirit must be one of the discarded elements {state.spirit_elements}, got {element!r}")
    if state.spirits.get(element, (-1,))[0] == seat:
        raise IllegalAction(seat, action, f"the {element} spirit is already on your tree and cannot move")
    if not isinstance(on, list) or len(on) != 2 or not isinstance(on[0], str) or not is_int(on[1]):
        raise IllegalAction(seat, action, '"on" must be [card id, element instance index], as in ["B05", 1]')
    card, index = on
    if card not in state.trees[seat]:
        raise IllegalAction(seat, action, f"{card!r} is not a card of your tree")
    if not 0 <= index < len(state.shown[card]):
        raise IllegalAction(seat, action, f"{card} has element instances 0..{len(state.shown[card]) - 1}, not {index}")
    other = state._covered(card, index)
    if other is not None:
        raise IllegalAction(seat, action, f"instance {index} of {card} is covered by the {other} spirit; spirits never stack")
