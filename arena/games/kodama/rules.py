"""Kodama Duo's pure rules on the topological tree model: placement scoring, Kodama and Season terms.

A tree is rooted at its Trunk; every card has a fixed number of attachment points and a new card
attaches to one free point of one card. The published game places cards by their drawn shapes; all
that scoring and the Kodama terms use is who touches whom, so that is all we model (rules-notes.md).

Elements are always read as *shown*: `shown[card]` is the card's element instances with any spirit
marker's element in place of the one it covers. The state keeps `shown` up to date so that scoring
never has to look spirits up.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

MAX_PLACEMENT_POINTS = 10  # a placement above this, before Season bonuses, is forbidden (not capped)


class Tree:
    """One player's tree: parent links, per-point children and depths, in placement order."""

    __slots__ = ("trunk", "parent", "children", "depth", "order")

    def __init__(self, trunk: str, attach: int) -> None:
        self.trunk = trunk
        self.parent: dict[str, tuple[str, int]] = {}
        self.children: dict[str, list[str | None]] = {trunk: [None] * attach}
        self.depth: dict[str, int] = {trunk: 0}
        self.order: list[str] = [trunk]

    def copy(self) -> "Tree":
        other = object.__new__(Tree)
        other.trunk = self.trunk
        other.parent = dict(self.parent)
        other.children = {card: list(points) for card, points in self.children.items()}
        other.depth = dict(self.depth)
        other.order = list(self.order)
        return other

    def __contains__(self, card: object) -> bool:
        return card in self.depth

    def free_points(self) -> list[tuple[str, int]]:
        """Free attachment points, by card in placement order then by point index (a stable order)."""
        return [(card, i) for card in self.order for i, child in enumerate(self.children[card]) if child is None]

    def is_free(self, card: str, point: int) -> bool:
        points = self.children.get(card)
        return points is not None and 0 <= point < len(points) and points[point] is None

    def is_last(self, card: str) -> bool:
        """A last card is a Branch with nothing attached to it (the Trunk never is one)."""
        return card != self.trunk and all(child is None for child in self.children[card])

    def attach(self, card: str, at: tuple[str, int], attach: int) -> None:
        parent, point = at
        self.children[parent][point] = card
        self.children[card] = [None] * attach
        self.parent[card] = at
        self.depth[card] = self.depth[parent] + 1
        self.order.append(card)

    def to_json(self) -> dict[str, Any]:
        return {
            "trunk": self.trunk,
            "order": list(self.order),
            "parent": {card: list(at) for card, at in self.parent.items()},
            "children": {card: list(points) for card, points in self.children.items()},
        }


def line_points(tree: Tree, shown: Mapping[str, Sequence[str]], elements: Sequence[str], parent: str) -> tuple[int, tuple[str, ...]]:
    """Points of a card showing `elements` attached to `parent`, before Season bonuses.

    For each element on the new card, follow the line toward the Trunk while every card shows it;
    score 1 per instance on the new card and on each card of that unbroken line. A line of the new card
    alone scores nothing; forks are never followed (only parent links are).
    """
    points = 0
    lines: list[str] = []
    for element in dict.fromkeys(elements):
        total = 0
        card: str | None = parent
        while card is not None:
            k = shown[card].count(element)
            if not k:
                break
            total += k
            up = tree.parent.get(card)
            card = up[0] if up else None
        if total:
            points += total + elements.count(element)
            lines.append(element)
    return points, tuple(lines)


def season_count(per: Mapping[str, Any], tree: Tree, elements: Sequence[str], parent: str, points: int, lines: Sequence[str]) -> int:
    """The Season card's count for one placement (see the vocabulary in cards.py); read before attaching."""
    what = per["what"]
    depth = tree.depth[parent] + 1
    if what == "instances":
        return list(elements).count(per["element"])
    if what == "near_trunk":
        return int(depth <= 2)
    if what == "depth_at_least":
        return int(depth >= per["n"])
    if what == "fork":
        return int(any(child is not None for child in tree.children[parent]))
    if what == "extends":
        return int(tree.is_last(parent))
    if what == "scored_at_least":
        return int(points >= per["n"])
    if what == "scored_nothing":
        return int(points == 0)
    if what == "distinct_at_least":
        return int(len(set(elements)) >= per["n"])
    if what == "lines":
        return len(lines)
    raise ValueError(f"unknown Season term {what!r}")  # cards.py validates, so this is a programming error


def _selected(tree: Tree, where: str) -> Iterable[str]:
    if where == "last":
        return (card for card in tree.order if tree.is_last(card))
    if where == "near_trunk":
        return (card for card in tree.order if 1 <= tree.depth[card] <= 2)
    return tree.order


def longest_line(tree: Tree) -> int:
    """Cards on the longest line from the Trunk, the Trunk included."""
    return 1 + max(tree.depth.values())


def kodama_count(per: Mapping[str, Any], tree: Tree, shown: Mapping[str, Sequence[str]], spirits: Sequence[tuple[str, str]]) -> int:
    """The count of one Kodama term on a tree; `spirits` are (element, card) for the markers on it."""
    what = per["what"]
    if what == "longest_line":
        return longest_line(tree)
    cards = list(_selected(tree, per.get("where", "tree")))
    element = per.get("element")
    if what == "instances":
        if element is None:
            return sum(len(shown[c]) for c in cards)
        return sum(shown[c].count(element) for c in cards)
    if what == "cards":
        if element is None:
            return len(cards)
        return sum(1 for c in cards if element in shown[c])
    if what == "spirits":
        chosen = set(cards)
        return sum(1 for e, c in spirits if c in chosen and (element is None or e == element))
    if what == "distinct_elements":
        return len({e for c in cards for e in shown[c]})
    if what == "sets":
        return min(sum(shown[c].count(e) for c in cards) for e in per["elements"])
    raise ValueError(f"unknown Kodama term {what!r}")  # cards.py validates, so this is a programming error


def kodama_points(terms: Sequence[Mapping[str, Any]], tree: Tree, shown: Mapping[str, Sequence[str]], spirits: Sequence[tuple[str, str]]) -> int:
    """A Kodama card's worth on a tree: the sum of its terms, each capped at its "max" if given."""
    total = 0
    for term in terms:
        value = term["points"] * kodama_count(term["per"], tree, shown, spirits)
        if "max" in term:
            value = min(value, term["max"])
        total += value
    return total
