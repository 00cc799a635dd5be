"""The rulebooks' worked examples and charts, as plain tests of the pure evaluation."""

from __future__ import annotations

from collections import Counter

import pytest

from arena.games.kododo.cards import REMOVED, VALUE, colour_limit, full_deck, kododo_target
from arena.games.kododo.rules import ScoreMode, evaluate_round, majority_colour


def deal_table(players: int, cards: list[str]) -> list[list[str]]:
    """Spread a round's cards over the seats, four each, as a table the evaluation reads."""
    assert len(cards) == 4 * players
    return [cards[4 * s : 4 * s + 4] for s in range(players)]


def test_deck_has_100_cards_20_per_colour_with_the_published_values():
    deck = full_deck()
    assert len(deck) == 100
    assert Counter(card[0] for card in deck) == {c: 20 for c in "BGYOV"}
    per_colour = Counter(VALUE[card] for card in deck if card[0] == "G")
    assert per_colour == {1: 5, 2: 6, 3: 5, 4: 2, 5: 1, 6: 1}


@pytest.mark.parametrize(
    "players,removed,kododos,limit", [(2, 10, 4, 5), (3, 13, 5, 6), (4, 0, 6, 7), (5, 15, 7, 8)]
)
def test_charts(players, removed, kododos, limit):
    assert REMOVED[players] == removed
    assert kododo_target(players) == kododos
    assert colour_limit(players) == limit


def test_exactly_six_kododos_in_a_4_player_game_score_only_the_kododos():
    # Rulebook: "In a 4-player game, exactly 6 Kododo cards were played: only these cards are scored."
    # Green also has a clear majority here; the Kododo count comes first.
    cards = ["B1", "B1", "G1", "G1", "Y1", "O1", "G2", "G3", "G4", "G2", "G3", "Y2", "Y3", "O2", "V2", "V3"]
    result = evaluate_round(deal_table(4, cards))
    assert result.mode is ScoreMode.KODODO
    assert sum(len(s) for s in result.scored) == 6
    assert all(VALUE[c] == 1 for s in result.scored for c in s)
    assert sum(result.points) == 6


def test_a_kododo_count_off_by_one_falls_back_to_the_colour_majority():
    cards = ["B1", "B1", "G1", "G1", "Y1", "O1", "V1", "G3", "G4", "G2", "G3", "Y2", "Y3", "O2", "V2", "V3"]
    result = evaluate_round(deal_table(4, cards))
    assert result.mode is ScoreMode.COLOUR and result.colour == "G"
    # the green Kododos count toward green and score 1 each
    assert sorted(c for s in result.scored for c in s) == ["G1", "G1", "G2", "G3", "G3", "G4"]


def test_a_colour_over_the_limit_scores_nothing_and_the_next_majority_scores():
    # Rulebook: 4 players, 8 green cards exceed the limit of 7; yellow with 4 cards is next and scores.
    cards = ["G2"] * 8 + ["Y2", "Y3", "Y4", "Y5", "B2", "B3", "O2", "V3"]
    result = evaluate_round(deal_table(4, cards))
    assert result.mode is ScoreMode.COLOUR
    assert result.colour == "Y"
    assert result.excluded == ("G",)
    assert sum(result.points) == 2 + 3 + 4 + 5


def test_a_colour_exactly_at_the_limit_scores_nothing():
    cards = ["G2"] * 7 + ["Y2", "Y3", "Y4", "B2", "B3", "O2", "V3", "V4", "V5"]
    result = evaluate_round(deal_table(4, cards))
    # green (7 = the limit) is out; yellow and violet tie at 3 and are out; blue alone at 2 scores.
    assert result.excluded == ("G", "Y", "V")
    assert result.mode is ScoreMode.COLOUR and result.colour == "B"
    assert sum(result.points) == 5


def test_tie_example_1_yellow_and_green_tied_orange_scores():
    # Rulebook: yellow and green are tied with 5 cards each; orange with 3 is next: only orange scores.
    cards = ["Y2"] * 5 + ["G3"] * 5 + ["O2", "O3", "O4", "B2", "B3", "V2"]
    result = evaluate_round(deal_table(4, cards))
    assert result.mode is ScoreMode.COLOUR and result.colour == "O"
    assert result.excluded == ("G", "Y")  # within one level, in colour order B, G, Y, O, V
    assert sum(result.points) == 9


def test_tie_example_2_every_level_tied_nobody_scores():
    # Rulebook: yellow and green tied; blue, orange and violet also all tied: no cards bring points.
    cards = ["Y2"] * 5 + ["G3"] * 5 + ["B2", "B3", "O2", "O3", "V2", "V3"]
    result = evaluate_round(deal_table(4, cards))
    assert result.mode is ScoreMode.NONE
    assert result.scored == ((), (), (), ())
    assert set(result.excluded) == {"Y", "G", "B", "O", "V"}


def test_the_cascade_goes_down_past_several_tied_levels():
    assert majority_colour({"Y": 5, "G": 5, "B": 3, "O": 3, "V": 2}, limit=7) == ("V", ("G", "Y", "B", "O"))
    assert majority_colour({"Y": 5, "G": 5, "B": 3, "O": 3}, limit=7) == (None, ("G", "Y", "B", "O"))


def test_a_colour_with_no_card_never_scores():
    assert majority_colour({"Y": 2, "G": 2}, limit=5) == (None, ("G", "Y"))
    assert majority_colour({}, limit=5) == (None, ())


def test_over_limit_and_tie_combine():
    # 2 players (limit 5): green 5 is over; yellow and blue tie at 1; nothing left.
    assert majority_colour({"G": 5, "Y": 1, "B": 1, "O": 1}, limit=5) == (None, ("G", "B", "Y", "O"))
    assert majority_colour({"G": 6, "Y": 2}, limit=5) == ("Y", ("G",))


def test_scored_cards_go_to_the_seat_that_played_them():
    table = [["O2", "O3", "G2", "B2"], ["O4", "Y2", "Y3", "V2"]]  # 2 players, limit 5: orange 3 wins
    result = evaluate_round(table)
    assert result.colour == "O"
    assert result.scored == (("O2", "O3"), ("O4",))
    assert result.points == (5, 4)
