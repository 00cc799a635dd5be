"""Kolpa!'s pure rules: the deck, matching, announcements and the rulebook's scoring example."""

from __future__ import annotations

from collections import Counter

from arena.games.kolpa.cards import CARDS, DECK_SIZE, HAND_VALUE, JOKER, full_deck, sort_cards
from arena.games.kolpa.rules import Target, is_announcement, matches, round_points, target_of


def test_the_deck_is_five_colours_of_0_to_5_twice_and_four_jokers():
    deck = full_deck()
    assert len(deck) == DECK_SIZE == 64
    counts = Counter(deck)
    assert counts[JOKER] == 4
    assert {card for card in counts if card != JOKER} == {f"{c}{v}" for c in "BGYOV" for v in range(6)}
    assert all(n == 2 for card, n in counts.items() if card != JOKER)
    assert sum(HAND_VALUE[c] for c in deck) == 2 * 5 * 15 + 40


def test_canonical_order_is_colour_then_number_jokers_last():
    assert sort_cards(["J", "V0", "B5", "G0", "B1"]) == ["B1", "B5", "G0", "V0", "J"]
    assert CARDS[0] == "B0" and CARDS[-1] == "J"


def test_the_rulebook_scoring_example():
    """The booklet: 0 + 3 + Joker 10 = 13 negative in hand, 8 points for the round, so a display of 21."""
    display = ["B5", "B4", "G3", "Y5", "O4"]  # covered and top cards alike: 21
    hand = ["V0", "G3", "J"]
    assert sum(HAND_VALUE[c] for c in display) == 21
    assert round_points(display, hand) == 8
    assert round_points([], hand) == -13
    assert round_points(display, []) == 21


def test_a_card_matches_by_colour_or_number_or_both():
    top = target_of("B3", None)
    assert matches("B0", top) and matches("G3", top) and matches("B3", top)
    assert not matches("G2", top)
    assert matches(JOKER, top)  # a Joker may always go to the discard


def test_a_joker_on_top_makes_its_announcement_the_target():
    assert target_of(JOKER, "Y") == Target("Y", None)
    assert target_of(JOKER, 4) == Target(None, 4)
    assert matches("Y0", target_of(JOKER, "Y")) and not matches("B0", target_of(JOKER, "Y"))
    assert matches("B4", target_of(JOKER, 4)) and not matches("B3", target_of(JOKER, 4))
    assert target_of(JOKER, "Y").describe(JOKER) == "the announcement Y of the Joker on the discard"
    assert target_of("B2", None).describe("B2") == "the discard B2"


def test_announcements_are_colours_or_numbers_0_to_5_and_never_booleans():
    assert all(is_announcement(a) for a in ["B", "G", "Y", "O", "V", 0, 1, 2, 3, 4, 5])
    assert not any(is_announcement(a) for a in ["R", "b", 6, -1, True, False, 3.0, None, "3"])
