"""What a Kolpa! seat may do now: the legal actions in their canonical order, and the checks that
explain to a bot why an action is refused. Pure functions of the state (state.py delegates here)."""

from __future__ import annotations

from arena.errors import IllegalAction
from arena.games.base import Seat
from arena.games.kolpa.cards import CARDS, COLOUR_INDEX, COLOUR_OF, JOKER, NUMBER_OF
from arena.games.kolpa.rules import ANNOUNCEMENTS, is_announcement
from arena.games.kolpa.table import KolpaTable
from arena.jsonvalue import JSON


_ACTION_KEYS = frozenset(("play", "from", "to", "announce"))
_EXAMPLE = '{"play": "B3", "from": "hand", "to": "discard"}'


def legal_actions(state: KolpaTable, seat: Seat) -> list[JSON]:
    if state.over or seat != state.current:
        return []
    hand = state.hands[seat]
    target = state.match_target()
    colour, number = target
    tops = state.matching_tops(seat, target)
    out: list[JSON] = []
    unique = dict.fromkeys(hand)
    has_joker = JOKER in unique
    unique.pop(JOKER, None)
    to_discard = []
    for card in unique:
        if card[0] == colour or NUMBER_OF[card] == number:
            to_discard.append({"play": card, "from": "hand", "to": "discard"})
        elif not tops:
            out.append({"play": card, "from": "hand", "to": "display"})
    out.extend(to_discard)
    for top in tops:
        out.append({"play": top, "from": "display", "to": "discard"})
    if has_joker:
        out.extend({"play": JOKER, "from": "hand", "to": "discard", "announce": a} for a in ANNOUNCEMENTS)
    if not out:  # only with an empty hand and no matching display top (see the module docstring)
        out.append({"pass": True})
    return out


def check_action(state: KolpaTable, seat: Seat, action: JSON) -> None:
    if state.over:
        raise IllegalAction(seat, action, "the game is over")
    if not isinstance(seat, int) or not 0 <= seat < state.n:
        raise IllegalAction(seat, action, f"there is no seat {seat} in a {state.n}-player game")
    if seat != state.current:
        raise IllegalAction(seat, action, f"seat {seat} is not to move (seat {state.current} is)")
    if not isinstance(action, dict):
        raise IllegalAction(seat, action, f"an action is an object such as {_EXAMPLE}")
    hand = state.hands[seat]
    target = state.match_target()
    top = state.discard[-1]
    if "pass" in action:
        if len(action) != 1 or action["pass"] is not True:  # 1 == True in Python, not on the wire
            raise IllegalAction(seat, action, 'a pass is exactly {"pass": true}')
        if hand:
            raise IllegalAction(seat, action, "you may pass only with an empty hand (after a skipped draw)")
        tops = state.matching_tops(seat, target)
        if tops:
            raise IllegalAction(seat, action, f"your display's top {tops[0]} matches {target.describe(top)}: you must play it to the discard")
        return
    unknown = sorted(set(action) - _ACTION_KEYS)
    if unknown:
        raise IllegalAction(seat, action, f"unknown key {unknown[0]!r}: an action has play, from, to (and announce for a Joker)")
    missing = [key for key in ("play", "from", "to") if key not in action]
    if missing:
        raise IllegalAction(seat, action, f"missing {missing[0]!r}: an action looks like {_EXAMPLE}")
    card, source, dest = action["play"], action["from"], action["to"]
    if not isinstance(card, str) or card not in CARDS:
        raise IllegalAction(seat, action, f'{card!r} is not a Kolpa! card (a colour B/G/Y/O/V and a number 0-5 such as "G3", or "J" for a Joker)')
    if source not in ("hand", "display"):
        raise IllegalAction(seat, action, f'"from" must be "hand" or "display", got {source!r}')
    if dest not in ("discard", "display"):
        raise IllegalAction(seat, action, f'"to" must be "discard" or "display", got {dest!r}')
    if card == JOKER:
        if source != "hand":
            raise IllegalAction(seat, action, "a Joker is never in a display: it can only come from your hand")
        if dest != "discard":
            raise IllegalAction(seat, action, "a Joker never goes to a display, only to the discard")
        if JOKER not in hand:
            raise IllegalAction(seat, action, f"you have no Joker in your hand {hand}")
        if "announce" not in action:
            raise IllegalAction(seat, action, 'a Joker announces a colour (B/G/Y/O/V) or a number (0-5), e.g. "announce": "B"')
        if not is_announcement(action["announce"]):
            raise IllegalAction(seat, action, f"{action['announce']!r} is not an announcement: a colour B/G/Y/O/V or a number 0-5")
        return
    if "announce" in action:
        raise IllegalAction(seat, action, "only a Joker announces")
    matching = COLOUR_OF[card] == target.colour or NUMBER_OF[card] == target.number
    if source == "display":
        if dest != "discard":
            raise IllegalAction(seat, action, "a display card can only go to the discard")
        pile = state.displays[seat][COLOUR_INDEX[card[0]]]
        if not pile or pile[-1] != card:
            shown = [p[-1] for p in state.displays[seat] if p]
            raise IllegalAction(seat, action, f"{card} is not the top of one of your display piles (your tops: {shown})")
        if not matching:
            raise IllegalAction(seat, action, f"{card} does not match {target.describe(top)}")
        return
    if card not in hand:
        raise IllegalAction(seat, action, f"{card} is not in your hand {hand}")
    if dest == "discard":
        if not matching:
            raise IllegalAction(seat, action, f"{card} does not match {target.describe(top)} (neither colour nor number)")
        return
    if matching:
        raise IllegalAction(seat, action, f"{card} matches {target.describe(top)}: a matching card can only go to the discard")
    tops = state.matching_tops(seat, target)
    if tops:
        raise IllegalAction(seat, action, f"your display's top {tops[0]} matches {target.describe(top)}: you must play to the discard")
