#!/usr/bin/env python3
"""A Kodama draft bot with a short-sighted but sound policy, as a sample of reading the view.

The tree reading and the placement, Kodama and Season-bonus valuations are the Kodama Duo heuristic's
(`kodama_duo_heuristic.py`, imported from this folder); this bot adds only the draft's own decision.
The policy is the pure function `decide(request)`, testable in-process without the referee:
- pick: the hand card worth most on our tree now (its best placement: line points, Season bonus,
  the lines it opens), plus a share of what it would be worth to the seat we pass our hand to
  (`pass_to`), since the cards we do not take go to it next; when no card can be placed (every
  pick is discarded), the card worth most to that seat, to deny it;
- place: the placement of our revealed pick worth most now (as in Kodama Duo);
- kodama: the Kodama card worth most on our tree now.
It reads only `request["view"]` and `request["legal"]` (see protocol.md, "Kodama draft").
"""

from __future__ import annotations

from typing import Any

import kodama_duo_heuristic as duo  # the Kodama Duo heuristic beside this file: shared tree policy

DENY_WEIGHT = 0.3  # how much keeping a card from the next seat is worth next to using it ourselves


def card_value(view: dict[str, Any], tree: duo.TreeModel, face: dict[str, Any]) -> float:
    """What one card is worth on `tree` now: its best placement, or nothing if it has none."""
    return duo.best_card_value(view, tree, [face])


def can_place(view: dict[str, Any], tree: duo.TreeModel, face: dict[str, Any]) -> bool:
    """Whether the card has a legal placement on `tree` (a free point where it scores at most the cap)."""
    return any(duo.placement_value(view, tree, face, c) != float("-inf") for c, _ in tree.free)


def decide(request: dict[str, Any]) -> Any:
    view = request["view"]
    legal = request["legal"]
    me = view["seat"]
    kind = view["decision"]
    mine = duo.TreeModel(view["trees"][me])
    if kind == "pick":
        nxt = duo.TreeModel(view["trees"][view["pass_to"]])
        faces = {f["id"]: f for f in view["hand"]}
        keep = 1.0 if any(can_place(view, mine, faces[a["pick"]]) for a in legal) else 0.0  # else all are discarded

        def worth(a: dict[str, Any]) -> float:
            face = faces[a["pick"]]
            deny = card_value(view, nxt, face) if view["pass_to"] != me else 0.0
            return keep * card_value(view, mine, face) + DENY_WEIGHT * deny

        return max(legal, key=worth)
    if kind == "place":
        pick = view["picks"][me]
        return duo.best_placement(view, mine, {pick["id"]: pick}, legal)
    if kind == "kodama":
        return duo.best_kodama(view, legal)
    return legal[0]


def main() -> None:
    import arenabot  # the single-file helper next to this bot

    arenabot.run(decide, name="kodama-draft-heuristic", version="1")


if __name__ == "__main__":
    main()
