#!/usr/bin/env python3
"""A Kodama Duo bot with a short-sighted but sound policy, as a sample of reading the view.

The policy is the pure function `decide(request)`, testable in-process without the referee:
- place: the most points now (line points + Season bonus), then the longest lines it opens for later;
- choose (Sower): the pile worth most to us minus what the other pile is worth to the opponent;
- split (Cutter): the split whose worst case, after the Sower's best choice, is best for us;
- spirit: the summon that most improves what our free attachment points could score next,
  plus what it takes away from the opponent's tree;
- kodama: the Kodama card worth most on our tree now.
It reads only `request["view"]` and `request["legal"]` (see protocol.md, "Kodama Duo").
`kodama_draft_heuristic.py` imports this file for its tree model, placements and Kodama choice: keep
them reading only what both games' views have (no `shown` in the draft's trees: printed elements).
"""

from __future__ import annotations

from typing import Any

SPIRIT_VALUE = 1.5  # a rough worth of summoning a spirit, for the holder of a single card
OPEN_WEIGHT = 0.25  # how much a longer open line is worth next to points now


class TreeModel:
    """Parent links and shown elements of one tree, from the view."""

    def __init__(self, tree: dict[str, Any]) -> None:
        self.parent: dict[str, str | None] = {}
        self.shown: dict[str, list[str]] = {}
        self.free: list[tuple[str, int]] = [(c, p) for c, p in tree["free"]]
        self.depth: dict[str, int] = {}
        self.children: dict[str, list[str | None]] = {}
        for card in tree["cards"]:
            self.parent[card["id"]] = card["parent"][0] if card["parent"] else None
            self.shown[card["id"]] = list(card.get("shown", card["elements"]))  # no spirits: as printed
            self.depth[card["id"]] = card["depth"]
            self.children[card["id"]] = list(card["children"])

    def chain(self, start: str | None, element: str) -> int:
        """Instances of `element` on the unbroken line from `start` toward the trunk."""
        total = 0
        card = start
        while card is not None:
            k = self.shown[card].count(element)
            if not k:
                break
            total += k
            card = self.parent[card]
        return total

    def line_points(self, elements: list[str], parent: str) -> tuple[int, list[str]]:
        points, lines = 0, []
        for e in dict.fromkeys(elements):
            total = self.chain(parent, e)
            if total:
                points += total + elements.count(e)
                lines.append(e)
        return points, lines

    def potential(self) -> float:
        """What the free attachment points could score next: for each, its best element line."""
        best = [max((self.chain(c, e) for e in set(self.shown[c])), default=0) for c, _ in self.free]
        return float(sum(best))


def season_bonus(view: dict[str, Any], tree: TreeModel, elements: list[str], parent: str, points: int, lines: list[str]) -> int:
    bonus = view["season_card"]["bonus"]
    per = bonus["per"]
    what = per["what"]
    depth = tree.depth[parent] + 1
    is_last = tree.parent[parent] is not None and all(c is None for c in tree.children[parent])
    count = {
        "instances": lambda: elements.count(per.get("element")),
        "near_trunk": lambda: int(depth <= 2),
        "depth_at_least": lambda: int(depth >= per.get("n", 0)),
        "fork": lambda: int(any(c is not None for c in tree.children[parent])),
        "extends": lambda: int(is_last),
        "scored_at_least": lambda: int(points >= per.get("n", 0)),
        "scored_nothing": lambda: int(points == 0),
        "distinct_at_least": lambda: int(len(set(elements)) >= per.get("n", 0)),
        "lines": lambda: len(lines),
    }.get(what, lambda: 0)()
    return bonus["points"] * count


def placement_value(view: dict[str, Any], tree: TreeModel, face: dict[str, Any], parent: str) -> float:
    elements = list(face["elements"])
    points, lines = tree.line_points(elements, parent)
    if points > view["max_placement_points"]:
        return float("-inf")
    bonus = season_bonus(view, tree, elements, parent, points, lines)
    opens = 0
    if face["attach"]:
        opens = max(tree.chain(parent, e) + elements.count(e) if tree.chain(parent, e) else elements.count(e) for e in elements)
    return points + bonus + OPEN_WEIGHT * opens


def best_card_value(view: dict[str, Any], tree: TreeModel, faces: list[dict[str, Any]]) -> float:
    values = [placement_value(view, tree, f, c) for f in faces for c, _ in tree.free]
    finite = [v for v in values if v != float("-inf")]
    return max(finite, default=0.0)


def best_placement(view: dict[str, Any], tree: TreeModel, faces: dict[str, dict[str, Any]], legal: list[Any]) -> Any:
    """The legal placement worth most (`placement_value`); `faces` maps card ids to their faces."""
    return max(legal, key=lambda a: placement_value(view, tree, faces[a["card"]], a["at"][0]))


def best_kodama(view: dict[str, Any], legal: list[Any]) -> Any:
    """The Kodama card worth most on our tree now."""
    values = {k["id"]: k["value"] for k in view["kodama"]}
    return max(legal, key=lambda a: values[a["kodama"]])


def pile_value(view: dict[str, Any], tree: TreeModel, pile: list[dict[str, Any]]) -> float:
    value = best_card_value(view, tree, pile)
    return value + (SPIRIT_VALUE if len(pile) == 1 else 0.0)


def decide(request: dict[str, Any]) -> Any:
    view = request["view"]
    legal = request["legal"]
    me = view["seat"]
    them = 1 - me
    kind = view["decision"]
    mine = TreeModel(view["trees"][me])
    theirs = TreeModel(view["trees"][them])
    if kind == "place":
        return best_placement(view, mine, {f["id"]: f for f in view["held"][me]}, legal)
    if kind == "choose":
        piles = view["piles"]

        def gain(a: dict[str, Any]) -> float:
            p = a["pile"]
            return pile_value(view, mine, piles[p]) - pile_value(view, theirs, piles[1 - p])

        return max(legal, key=gain)
    if kind == "split":
        faces = {f["id"]: f for f in view["revealed"]}

        def worst_case(a: dict[str, Any]) -> float:
            piles = [[faces[c] for c in pile] for pile in a["split"]]
            # the Sower (opponent) takes the pile best for it; we keep the other
            outcomes = []
            for p in (0, 1):
                their_gain = pile_value(view, theirs, piles[p]) - pile_value(view, mine, piles[1 - p])
                outcomes.append((their_gain, pile_value(view, mine, piles[1 - p]) - pile_value(view, theirs, piles[p])))
            return max(outcomes)[1]

        return max(legal, key=worst_case)
    if kind == "spirit":
        base_mine, base_theirs = mine.potential(), theirs.potential()
        spirits = view["spirits"]

        def spirit_gain(a: dict[str, Any]) -> float:
            card, index = a["on"]
            old = mine.shown[card][index]
            mine.shown[card][index] = a["spirit"]
            value = mine.potential() - base_mine
            mine.shown[card][index] = old
            holder = spirits.get(a["spirit"])
            if holder and holder["seat"] == them:
                c, i = holder["on"]
                printed = next(x for x in view["trees"][them]["cards"] if x["id"] == c)["elements"][i]
                before = theirs.shown[c][i]
                theirs.shown[c][i] = printed
                value += base_theirs - theirs.potential()
                theirs.shown[c][i] = before
            return value

        return max(legal, key=spirit_gain)
    if kind == "kodama":
        return best_kodama(view, legal)
    return legal[0]


def main() -> None:
    import arenabot  # the single-file helper next to this bot

    arenabot.run(decide, name="kodama-duo-heuristic", version="1")


if __name__ == "__main__":
    main()
