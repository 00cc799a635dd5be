"""Kodama Duo's card set, read from `cards.json` and validated on load.

The published card faces are pictures, not public text, so `cards.json` is our own stand-in designed to
the published counts (see its "about" field). The engine never names a card in code: replacing the file
with the published faces in the same format needs no code change.

File format (``"format": "kodama-duo-cards/1"``):

- ``elements``: the element names (six: caterpillar, cloud, firefly, flower, mushroom, star).
- ``trunks``: ``{"id": "T1", "element": "flower", "attach": 4}`` -- one element instance, and the number
  of attachment points ("bark") new cards may attach to. Exactly 2, with different elements.
- ``branches``: ``{"id": "B01", "elements": ["firefly", "firefly"], "attach": 1}`` -- element instances
  (repeats allowed; an instance is addressed by its index in this list) and attachment points (0 = a dead
  end). Exactly 36: three seasons of four turns reveal three each.
- ``kodama``: ``{"id": "K01", "name": "...", "terms": [TERM, ...]}`` -- scored on the owner's tree at the
  end of a season; the card is worth the sum of its terms. At least 8 (4 dealt to each player).
- ``seasons``: ``{"id": "S01", "season": "spring", "name": "...", "bonus": {"points": P, "per": WHEN}}``
  -- during that season, each placement earns P x WHEN(placement) extra points. At least one per season.

Kodama vocabulary. ``TERM = {"points": P, "per": COUNT, "max": M?}`` is worth P x COUNT(tree), capped
at M points when "max" is given. ``COUNT = {"what": ..., "element": E?, "elements": [...]?, "where": W?}``:

- ``where`` selects cards: ``"tree"`` (default; every card, the Trunk included), ``"last"`` (Branch cards
  with no card attached to them), ``"near_trunk"`` (cards within two cards of the Trunk: depth 1 or 2).
- ``"instances"``: element instances on the selected cards (only of ``element`` if given).
- ``"cards"``: selected cards (only those showing ``element`` at least once, if given).
- ``"spirits"``: spirit markers on the selected cards (only the ``element`` spirit, if given).
- ``"distinct_elements"``: different elements shown on the selected cards.
- ``"sets"``: complete sets of ``elements`` (one instance of each) on the selected cards: the smallest
  count among them.
- ``"longest_line"``: cards on the longest line from the Trunk (the Trunk included); ``where`` is ignored.

Elements are read as shown: a spirit replaces the element it covers.

Season vocabulary. ``WHEN = {"what": ..., ...}`` counts, for one placement:

- ``"instances"`` + ``element``: instances of that element on the new card.
- ``"near_trunk"``: 1 if the new card is within two cards of the Trunk (depth 1 or 2).
- ``"depth_at_least"`` + ``n``: 1 if the new card's depth (the Trunk is 0) is at least n.
- ``"fork"``: 1 if the card it attaches to already had a card attached (the placement makes a fork).
- ``"extends"``: 1 if it attaches to a last card (a Branch with nothing attached yet).
- ``"scored_at_least"`` + ``n``: 1 if the placement scored at least n points before the bonus.
- ``"scored_nothing"``: 1 if the placement scored 0 points before the bonus.
- ``"distinct_at_least"`` + ``n``: 1 if the new card shows at least n different elements.
- ``"lines"``: the number of elements that scored (lines of two or more cards).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from arena.errors import GameError
from arena.jsonvalue import JSON

CARDS_FILE = Path(__file__).with_name("cards.json")
FORMAT = "kodama-duo-cards/1"
SEASONS = ("spring", "summer", "autumn")
BRANCH_COUNT = 36  # 3 seasons x 4 turns x 3 revealed cards
KODAMA_PER_PLAYER = 4

WHERE = ("tree", "last", "near_trunk")
KODAMA_WHAT = ("instances", "cards", "spirits", "distinct_elements", "sets", "longest_line")
SEASON_WHAT = (
    "instances", "near_trunk", "depth_at_least", "fork", "extends", "scored_at_least", "scored_nothing",
    "distinct_at_least", "lines",
)


class CardDataError(GameError):
    """The card file cannot be used; the message names the file, the card and the field."""


@dataclass(frozen=True)
class Branch:
    id: str
    elements: tuple[str, ...]
    attach: int

    def to_json(self) -> dict[str, JSON]:
        return {"id": self.id, "elements": list(self.elements), "attach": self.attach}


@dataclass(frozen=True)
class Kodama:
    id: str
    name: str
    terms: tuple[Mapping[str, Any], ...]

    def to_json(self) -> dict[str, JSON]:
        return {"id": self.id, "name": self.name, "terms": [dict(t) for t in self.terms]}


@dataclass(frozen=True)
class Season:
    id: str
    season: str
    name: str
    points: int
    per: Mapping[str, Any]

    def to_json(self) -> dict[str, JSON]:
        return {"id": self.id, "season": self.season, "name": self.name, "bonus": {"points": self.points, "per": dict(self.per)}}


@dataclass(frozen=True)
class CardSet:
    """Every card face by id. Trunks and Branches share one table: both are tree cards."""

    stand_in: bool
    elements: tuple[str, ...]
    trunks: tuple[str, ...]  # Kodama Duo's two Trunks
    branches: tuple[str, ...]
    tree_cards: Mapping[str, Branch]  # trunks and branches (a trunk is a one-instance card)
    kodama: Mapping[str, Kodama]
    seasons: Mapping[str, Season]
    seasons_by_name: Mapping[str, tuple[str, ...]]
    draft_trunks: tuple[str, ...] = ()  # extra Trunks for kodama-draft only (Duo deals `trunks`)


def _err(where: str, message: str) -> CardDataError:
    return CardDataError(f"{CARDS_FILE.name}: {where}: {message}")


def _int(value: Any, where: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise _err(where, f"must be a whole number >= {minimum}, got {value!r}")
    return value


def _keys(obj: Any, where: str, required: set[str], optional: frozenset[str] | set[str] = frozenset()) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise _err(where, f"must be an object, got {obj!r}")
    missing = sorted(required - set(obj))
    if missing:
        raise _err(where, f"missing field {missing[0]!r}")
    extra = sorted(set(obj) - required - set(optional))
    if extra:
        raise _err(where, f"unknown field {extra[0]!r} (known: {', '.join(sorted(required | set(optional)))})")
    return obj


def _element(value: Any, elements: tuple[str, ...], where: str) -> str:
    if value not in elements:
        raise _err(where, f"unknown element {value!r} (elements: {', '.join(elements)})")
    return str(value)


def _kodama_count(per: Any, elements: tuple[str, ...], where: str) -> dict[str, Any]:
    per = _keys(per, where, {"what"}, {"element", "elements", "where"})
    what = per["what"]
    if what not in KODAMA_WHAT:
        raise _err(where, f"unknown 'what' {what!r} (known: {', '.join(KODAMA_WHAT)})")
    if per.get("where", "tree") not in WHERE:
        raise _err(where, f"unknown 'where' {per['where']!r} (known: {', '.join(WHERE)})")
    if "element" in per:
        if what not in ("instances", "cards", "spirits"):
            raise _err(where, f"'element' does not apply to {what!r}")
        _element(per["element"], elements, where)
    if what == "sets":
        sets = per.get("elements")
        if not isinstance(sets, list) or not sets:
            raise _err(where, "'sets' needs a non-empty list 'elements'")
        for e in sets:
            _element(e, elements, where)
    elif "elements" in per:
        raise _err(where, f"'elements' only applies to 'sets', not {what!r}")
    return dict(per)


def _season_count(per: Any, elements: tuple[str, ...], where: str) -> dict[str, Any]:
    per = _keys(per, where, {"what"}, {"element", "n"})
    what = per["what"]
    if what not in SEASON_WHAT:
        raise _err(where, f"unknown 'what' {what!r} (known: {', '.join(SEASON_WHAT)})")
    if what == "instances":
        _element(per.get("element"), elements, where)
    elif "element" in per:
        raise _err(where, f"'element' only applies to 'instances', not {what!r}")
    if what in ("depth_at_least", "scored_at_least", "distinct_at_least"):
        _int(per.get("n"), f"{where}.n", 1)
    elif "n" in per:
        raise _err(where, f"'n' does not apply to {what!r}")
    return dict(per)


def _id(value: Any, prefix: str, where: str, seen: set[str]) -> str:
    if not isinstance(value, str) or not re.fullmatch(prefix + r"[0-9A-Za-z_-]{1,8}", value):
        raise _err(where, f"id must be a short string starting with {prefix!r}, got {value!r}")
    if value in seen:
        raise _err(where, f"duplicate id {value!r}")
    seen.add(value)
    return value


def parse_cards(doc: Any) -> CardSet:
    """Validate a card document and build the card set; every error names the card and the field."""
    doc = _keys(doc, "top level", {"format", "elements", "trunks", "branches", "kodama", "seasons"}, {"stand_in", "about", "draft_trunks"})
    if doc["format"] != FORMAT:
        raise _err("format", f"expected {FORMAT!r}, got {doc['format']!r}")
    elements = doc["elements"]
    if not isinstance(elements, list) or not elements or not all(isinstance(e, str) and e for e in elements):
        raise _err("elements", "must be a non-empty list of names")
    if len(set(elements)) != len(elements):
        raise _err("elements", "names repeat")
    els = tuple(elements)
    seen: set[str] = set()
    tree_cards: dict[str, Branch] = {}

    if not isinstance(doc["trunks"], list) or len(doc["trunks"]) != 2:
        raise _err("trunks", "must list exactly 2 Trunk cards")
    trunks = []
    for i, t in enumerate(doc["trunks"]):
        where = f"trunks[{i}]"
        t = _keys(t, where, {"id", "element", "attach"})
        cid = _id(t["id"], "T", where, seen)
        tree_cards[cid] = Branch(cid, (_element(t["element"], els, where),), _int(t["attach"], f"{where}.attach", 1))
        trunks.append(cid)
    if tree_cards[trunks[0]].elements == tree_cards[trunks[1]].elements:
        raise _err("trunks", "the two Trunks must show different elements (the tie-break counts them)")
    draft_trunks = []
    extra = doc.get("draft_trunks", [])
    if not isinstance(extra, list):
        raise _err("draft_trunks", "must be a list of Trunk cards")
    for i, t in enumerate(extra):
        where = f"draft_trunks[{i}]"
        t = _keys(t, where, {"id", "element", "attach"})
        cid = _id(t["id"], "T", where, seen)
        tree_cards[cid] = Branch(cid, (_element(t["element"], els, where),), _int(t["attach"], f"{where}.attach", 1))
        draft_trunks.append(cid)
    draft_elements = [tree_cards[t].elements for t in draft_trunks]
    if len(set(draft_elements)) != len(draft_elements):
        raise _err("draft_trunks", "the draft Trunks must show different elements")

    if not isinstance(doc["branches"], list) or len(doc["branches"]) != BRANCH_COUNT:
        raise _err("branches", f"must list exactly {BRANCH_COUNT} Branch cards (12 turns reveal 3 each)")
    branches = []
    for i, b in enumerate(doc["branches"]):
        where = f"branches[{i}]"
        b = _keys(b, where, {"id", "elements", "attach"})
        cid = _id(b["id"], "B", where, seen)
        if not isinstance(b["elements"], list) or not b["elements"]:
            raise _err(f"{where} ({cid})", "'elements' must be a non-empty list")
        card_els = tuple(_element(e, els, f"{where} ({cid})") for e in b["elements"])
        tree_cards[cid] = Branch(cid, card_els, _int(b["attach"], f"{where} ({cid}).attach"))
        branches.append(cid)

    if not isinstance(doc["kodama"], list) or len(doc["kodama"]) < 2 * KODAMA_PER_PLAYER:
        raise _err("kodama", f"must list at least {2 * KODAMA_PER_PLAYER} Kodama cards (4 are dealt to each player)")
    kodama: dict[str, Kodama] = {}
    for i, k in enumerate(doc["kodama"]):
        where = f"kodama[{i}]"
        k = _keys(k, where, {"id", "name", "terms"})
        cid = _id(k["id"], "K", where, seen)
        where = f"{where} ({cid})"
        if not isinstance(k["name"], str):
            raise _err(where, "'name' must be a string")
        if not isinstance(k["terms"], list) or not k["terms"]:
            raise _err(where, "'terms' must be a non-empty list")
        terms = []
        for j, term in enumerate(k["terms"]):
            tw = f"{where}.terms[{j}]"
            term = _keys(term, tw, {"points", "per"}, {"max"})
            _int(term["points"], f"{tw}.points", 1)
            if "max" in term:
                _int(term["max"], f"{tw}.max", 1)
            terms.append({**term, "per": _kodama_count(term["per"], els, f"{tw}.per")})
        kodama[cid] = Kodama(cid, k["name"], tuple(terms))

    if not isinstance(doc["seasons"], list):
        raise _err("seasons", "must be a list")
    seasons: dict[str, Season] = {}
    by_name: dict[str, list[str]] = {name: [] for name in SEASONS}
    for i, s in enumerate(doc["seasons"]):
        where = f"seasons[{i}]"
        s = _keys(s, where, {"id", "season", "name", "bonus"})
        cid = _id(s["id"], "S", where, seen)
        where = f"{where} ({cid})"
        if s["season"] not in SEASONS:
            raise _err(where, f"'season' must be one of {', '.join(SEASONS)}, got {s['season']!r}")
        if not isinstance(s["name"], str):
            raise _err(where, "'name' must be a string")
        bonus = _keys(s["bonus"], f"{where}.bonus", {"points", "per"})
        points = _int(bonus["points"], f"{where}.bonus.points", 1)
        seasons[cid] = Season(cid, s["season"], s["name"], points, _season_count(bonus["per"], els, f"{where}.bonus.per"))
        by_name[s["season"]].append(cid)
    for name, ids in by_name.items():
        if not ids:
            raise _err("seasons", f"no Season card for {name}")

    return CardSet(
        stand_in=bool(doc.get("stand_in", False)),
        elements=els,
        trunks=tuple(trunks),
        branches=tuple(branches),
        tree_cards=tree_cards,
        kodama=kodama,
        seasons=seasons,
        seasons_by_name={name: tuple(ids) for name, ids in by_name.items()},
        draft_trunks=tuple(draft_trunks),
    )


def load_cards(path: Path = CARDS_FILE) -> CardSet:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CardDataError(f"cannot read the Kodama Duo card file {path}: {exc}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CardDataError(f"{path.name} is not valid JSON: {exc}") from None
    return parse_cards(doc)


@lru_cache(maxsize=1)
def default_cards() -> CardSet:
    """The packaged set, read once: card faces never change during a process."""
    return load_cards()
