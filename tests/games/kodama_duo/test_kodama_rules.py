"""Kodama Duo's pure rules: the rulebook's scoring example, Kodama and Season terms, the card file."""

from __future__ import annotations

import copy
import json

import pytest

from arena.games.kodama.cards import CARDS_FILE, CardDataError, default_cards, parse_cards
from arena.games.kodama.rules import Tree, kodama_count, kodama_points, line_points, longest_line, season_count


def hand_made_tree() -> tuple[Tree, dict[str, tuple[str, ...]]]:
    """The rulebook's scoring layout on the topological model.

        T (star) <- C1 (flower, firefly, caterpillar) <- C2 (firefly, caterpillar) <- [new card here]
                    C1 <- F (caterpillar, firefly)   a fork off the line (G)
    """
    tree = Tree("T", 3)
    shown = {"T": ("star",)}
    for card, at, elements, attach in [
        ("C1", ("T", 0), ("flower", "firefly", "caterpillar"), 2),
        ("C2", ("C1", 0), ("firefly", "caterpillar"), 1),
        ("F", ("C1", 1), ("caterpillar", "firefly"), 1),
    ]:
        tree.attach(card, at, attach)
        shown[card] = elements
    return tree, shown


NEW_CARD = ("caterpillar", "firefly", "firefly", "flower")  # a caterpillar, two fireflies and a flower


def test_rulebook_scoring_example_lines_d_to_g():
    tree, shown = hand_made_tree()
    points, lines = line_points(tree, shown, NEW_CARD, "C2")
    # D: fireflies: 2 on the new card + 1 on C2 + 1 on C1 = 4 (the star Trunk ends the line).
    # E: caterpillars: 1 on the new card + 1 on C2 + 1 on C1 = 3.
    # F: the flower on C1 is cut off by C2, which shows none: 0.
    # G: F's caterpillar and firefly are on a fork: never counted.
    assert points == 4 + 3
    assert set(lines) == {"caterpillar", "firefly"}


def test_each_element_line_is_counted_on_its_own():
    tree, shown = hand_made_tree()
    assert line_points(tree, shown, ("firefly", "firefly"), "C2") == (4, ("firefly",))
    assert line_points(tree, shown, ("caterpillar",), "C2") == (3, ("caterpillar",))
    assert line_points(tree, shown, ("flower",), "C2") == (0, ())


def test_a_line_of_the_new_card_alone_scores_nothing():
    tree, shown = hand_made_tree()
    assert line_points(tree, shown, ("mushroom", "mushroom", "mushroom"), "C2") == (0, ())
    assert line_points(tree, shown, ("cloud",), "T") == (0, ())


def test_the_trunk_element_counts_in_a_line():
    tree, shown = hand_made_tree()
    assert line_points(tree, shown, ("star", "star"), "T") == (3, ("star",))
    # from the fork F, caterpillar: F 1 + C1 1 (the Trunk shows star): 1 + 2 = 3
    assert line_points(tree, shown, ("caterpillar",), "F") == (3, ("caterpillar",))


def test_the_rulebook_spirit_example_connects_the_flower_line():
    tree, shown = hand_made_tree()
    tree.attach("N", ("C2", 0), 1)
    shown["N"] = NEW_CARD
    assert line_points(tree, shown, ("flower",), "N") == (2, ("flower",))  # N's flower only
    shown["C2"] = ("flower", "caterpillar")  # the flower spirit covers C2's firefly
    # later: flower on the new card 1 + N 1 + C2 (spirit) 1 + C1 1 = 4
    assert line_points(tree, shown, ("flower",), "N") == (4, ("flower",))
    # and the firefly line now stops at C2
    assert line_points(tree, shown, ("firefly",), "N") == (3, ("firefly",))


def test_kodama_vocabulary_on_a_hand_made_tree():
    tree, shown = hand_made_tree()
    spirits = [("cloud", "C2")]
    shown = {**shown, "C2": ("cloud", "caterpillar")}
    count = lambda **per: kodama_count(per, tree, shown, spirits)  # noqa: E731
    assert count(what="instances", element="caterpillar") == 3
    assert count(what="instances") == 8
    assert count(what="instances", where="last") == 4  # C2 and F are last cards
    assert count(what="cards") == 4  # the Trunk is a card
    assert count(what="cards", where="last") == 2
    assert count(what="cards", element="firefly") == 2  # C1, F
    assert count(what="cards", where="near_trunk") == 3  # C1 (depth 1), C2 and F (depth 2)
    assert count(what="spirits") == 1
    assert count(what="spirits", element="star") == 0
    assert count(what="spirits", where="last") == 1
    assert count(what="distinct_elements") == 5  # no mushroom
    assert count(what="distinct_elements", where="last") == 3
    assert count(what="sets", elements=["caterpillar", "firefly"]) == 2
    assert count(what="sets", elements=["caterpillar", "mushroom"]) == 0
    assert count(what="longest_line") == longest_line(tree) == 3
    terms = [{"points": 2, "per": {"what": "instances", "element": "caterpillar"}, "max": 5}, {"points": 3, "per": {"what": "spirits"}}]
    assert kodama_points(terms, tree, shown, spirits) == 5 + 3


def test_season_vocabulary_for_one_placement():
    tree, shown = hand_made_tree()
    card = ("caterpillar", "firefly", "firefly")
    per = lambda what, parent="C2", points=0, lines=(), **kw: season_count({"what": what, **kw}, tree, card, parent, points, lines)  # noqa: E731
    assert per("instances", element="firefly") == 2
    assert per("near_trunk") == 0 and per("near_trunk", parent="C1") == 1
    assert per("depth_at_least", n=3) == 1 and per("depth_at_least", n=4) == 0
    assert per("fork", parent="C1") == 1 and per("fork", parent="C2") == 0
    assert per("extends", parent="C2") == 1 and per("extends", parent="C1") == 0 and per("extends", parent="T") == 0
    assert per("scored_at_least", n=5, points=5) == 1 and per("scored_at_least", n=5, points=4) == 0
    assert per("scored_nothing", points=0) == 1 and per("scored_nothing", points=1) == 0
    assert per("distinct_at_least", n=2) == 1 and per("distinct_at_least", n=3) == 0
    assert per("lines", lines=("firefly", "caterpillar")) == 2


def test_the_stand_in_card_set_meets_the_published_counts():
    cards = default_cards()
    doc = json.loads(CARDS_FILE.read_text())
    assert doc["stand_in"] is True and "STAND-IN" in doc["about"]
    assert len(cards.branches) == 36 and len(cards.trunks) == 2
    assert len(cards.kodama) == 21 and len(cards.seasons) == 9
    assert {name: len(ids) for name, ids in cards.seasons_by_name.items()} == {"spring": 3, "summer": 3, "autumn": 3}
    assert set(cards.elements) == {"caterpillar", "cloud", "firefly", "flower", "mushroom", "star"}
    per_element = {e: 0 for e in cards.elements}
    for b in cards.branches:
        face = cards.tree_cards[b]
        assert 1 <= len(face.elements) <= 3 and 0 <= face.attach <= 2
        for e in face.elements:
            per_element[e] += 1
    assert len(set(per_element.values())) == 1  # all six elements equally common
    trunk_faces = [cards.tree_cards[t] for t in cards.trunks]
    assert trunk_faces[0].elements != trunk_faces[1].elements
    assert all(len(t.elements) == 1 and t.attach >= 3 for t in trunk_faces)


def _doc() -> dict:
    return copy.deepcopy(json.loads(CARDS_FILE.read_text()))


@pytest.mark.parametrize(
    "edit,message",
    [
        (lambda d: d["branches"].pop(), "exactly 36 Branch"),
        (lambda d: d["branches"][4].update(elements=["fire"]), "branches[4] (B05): unknown element 'fire'"),
        (lambda d: d["branches"][2].update(id="B01"), "duplicate id 'B01'"),
        (lambda d: d["branches"][0].update(attach=-1), "attach"),
        (lambda d: d["trunks"][1].update(element=d["trunks"][0]["element"]), "different elements"),
        (lambda d: d["kodama"][3]["terms"][0]["per"].update(what="bananas"), "kodama[3] (K04).terms[0].per: unknown 'what'"),
        (lambda d: d["kodama"][0]["terms"][0]["per"].update(where="roots"), "unknown 'where'"),
        (lambda d: d["seasons"][0]["bonus"]["per"].update(what="instances", element=None), "unknown element"),
        (lambda d: d["seasons"][5]["bonus"].update(per={"what": "scored_at_least"}), "seasons[5] (S06).bonus.per.n"),
        (lambda d: d.update(seasons=[s for s in d["seasons"] if s["season"] != "autumn"]), "no Season card for autumn"),
        (lambda d: d.update(colour="green"), "unknown field 'colour'"),
    ],
)
def test_a_bad_card_file_is_refused_with_a_clear_message(edit, message):
    doc = _doc()
    edit(doc)
    with pytest.raises(CardDataError) as info:
        parse_cards(doc)
    assert message in str(info.value)


def test_the_engine_reads_its_card_set_from_data():
    """Replacing the faces (here: every Branch shows a star) needs no code change."""
    from arena.games.kodama_duo.state import KodamaDuoState

    doc = _doc()
    for b in doc["branches"]:
        b["elements"] = ["star"]
    state = KodamaDuoState(2, {}, 3, cards=parse_cards(doc))
    assert all(face["elements"] == ["star"] for face in state.view(0)["revealed"])
