"""What a Kodama Duo seat may know (`duo_view`), and the whole state for determinism checks.

The view is an allow-list: the public table, one's own Kodama cards, revealed Season cards. Never the
deck order, the opponent's unscored Kodama cards, or face-down Season cards.
"""

from __future__ import annotations

from arena.games.base import Seat
from arena.games.kodama.cards import SEASONS
from arena.games.kodama.rules import MAX_PLACEMENT_POINTS
from arena.games.kodama_duo.table import TURNS_PER_SEASON, KodamaDuoTable, Step
from arena.jsonvalue import JSON


def duo_view(state: KodamaDuoTable, seat: Seat) -> dict[str, JSON]:
    # An allow-list: public table state, one's own Kodama cards, revealed Season cards. Never the
    # deck order, the opponent's unscored Kodama cards, or face-down Season cards.
    faces = state.faces
    over = state.step is Step.OVER
    season = min(state.season, len(SEASONS) - 1)
    return {
        "seat": seat,
        "step": state.step.value,
        "decision": state.step.value if seat in state.to_move() else None,
        "to_move": list(state.to_move()),
        "turn": min(state.turn + 1, TURNS_PER_SEASON),
        "cutter": state.cutter,
        "sower": state.sower,
        **state._season_view(season),
        "scores": list(state.scores),
        "trees": [state._tree_view(s) for s in range(2)],
        "spirits": {e: ({"seat": state.spirits[e][0], "on": [state.spirits[e][1], state.spirits[e][2]]} if e in state.spirits else None)
                    for e in faces.elements},
        "revealed": [faces.tree_cards[c].to_json() for c in state.revealed],
        "piles": [[faces.tree_cards[c].to_json() for c in p] for p in state.piles] if state.piles is not None else None,
        "held": [[faces.tree_cards[c].to_json() for c in sorted(h)] for h in state.held],
        "spirit_elements": list(state.spirit_elements) if state.step is Step.SPIRIT else [],
        "discard": [faces.tree_cards[c].to_json() for c in state.discard],
        "deck": len(state.deck),
        **state._kodama_view(seat),
        "placed_this_season": [state.placed[s][season] for s in range(2)] if not over else [0, 0],
        "max_placement_points": MAX_PLACEMENT_POINTS,
    }


def duo_snapshot(state: KodamaDuoTable) -> dict[str, JSON]:
    return {
        "trunks": list(state.trunks),
        "trees": [t.to_json() for t in state.trees],
        "shown": {c: list(e) for c, e in state.shown.items()},
        "spirits": {e: list(v) for e, v in state.spirits.items()},
        "deck": list(state.deck),
        "revealed": list(state.revealed),
        "piles": [list(p) for p in state.piles] if state.piles is not None else None,
        "held": [list(h) for h in state.held],
        "given": [list(g) for g in state.given],
        "discard": list(state.discard),
        **state._kodama_snapshot(),
        "season": state.season,
        "turn": state.turn,
        "step": state.step.value,
        "cutter": state.cutter,
        "scores": list(state.scores),
        "placed": [list(p) for p in state.placed],
        "unplaced": [list(p) for p in state.unplaced],
        "placing": list(state.placing),
        "spirit_seat": state.spirit_seat,
        "spirit_elements": list(state.spirit_elements),
    }
