"""What a Kolpa! seat may know (`view`) and the whole state for determinism checks (`snapshot`).

The view is built from an allow-list: public facts and the seat's own hand. Never another hand, the
draw pile's order, the covered discard cards, or a display pile's covered cards (only a pile's top
card is visible: the covered ones were seen being played, and are revealed at the round's end).
"""

from __future__ import annotations

from arena.games.base import Seat
from arena.games.kolpa.cards import COLOURS
from arena.games.kolpa.table import KolpaTable
from arena.jsonvalue import JSON


def kolpa_view(state: KolpaTable, seat: Seat) -> dict[str, JSON]:
    # Built from an allow-list of public facts and this seat's own hand: never another hand, the
    # draw pile's order, or the covered discard cards (a pile shows only its top).
    target = state.match_target()
    return {
        "seat": seat,
        "player_count": state.n,
        "round": state.round,
        "first": state.first,
        "to_move": None if state.over else state.current,
        "turn": state.turn,
        "max_turns_per_round": state.max_turns,
        "target": state.target,
        "hand": list(state.hands[seat]),
        "discard": state.discard[-1],
        "announce": state.announce,
        "match": {"colour": target.colour, "number": target.number},
        "discard_size": len(state.discard),
        "draw_pile": len(state.draw),
        "displays": [  # only the top card of each pile is visible
            {colour: pile[-1] if pile else None for colour, pile in zip(COLOURS, state.displays[s])}
            for s in range(state.n)
        ],
        "hand_sizes": [len(h) for h in state.hands],
        "scores": list(state.scores),
        "history": [{**record, "points": list(record["points"])} for record in state.history],
        "over": state.over,
    }


def kolpa_snapshot(state: KolpaTable) -> dict[str, JSON]:
    return {
        "players": state.n,
        "target": state.target,
        "max_turns_per_round": state.max_turns,
        "max_rounds": state.max_rounds,
        "rng": state.rng.state,
        "round": state.round,
        "first": state.first,
        "current": state.current,
        "turn": state.turn,
        "hands": [list(h) for h in state.hands],
        "displays": [[list(p) for p in d] for d in state.displays],
        "discard": list(state.discard),
        "announce": state.announce,
        "draw": list(state.draw),
        "scores": list(state.scores),
        "history": [dict(r) for r in state.history],
        "over": state.over,
        "drawn": state.drawn,
    }
