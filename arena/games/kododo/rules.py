"""The round evaluation of Kododo, as a pure function of the cards on the table.

Order (rules-notes): the exact Kododo count first; otherwise colour majority, where a colour at or over
the limit scores nothing, colours tied for the majority score nothing and the next colour down is
tried, a colour with no card never scores, and a round may score nothing at all.
"""

from __future__ import annotations

import enum
from typing import NamedTuple, Sequence

from arena.games.kododo.cards import COLOURS, KODODO_VALUE, VALUE, colour_limit, kododo_target
from arena.jsonvalue import JSON

KODODOS = frozenset(card for card, value in VALUE.items() if value == KODODO_VALUE)


class ScoreMode(enum.Enum):
    KODODO = "kododo"  # exactly players + 2 Kododo cards: only they score
    COLOUR = "colour"  # one colour won the majority cascade
    NONE = "none"  # nothing scored this round


class RoundScore(NamedTuple):
    mode: ScoreMode
    colour: str | None  # the scoring colour in COLOUR mode
    scored: tuple[tuple[str, ...], ...]  # per seat, the cards that go to its score pile
    excluded: tuple[str, ...]  # colours passed over: at or over the limit, or tied, in cascade order
    points: tuple[int, ...]  # per seat, the value of its scored cards

    @classmethod
    def of(cls, mode: ScoreMode, colour: str | None, scored: tuple[tuple[str, ...], ...], excluded: tuple[str, ...]) -> "RoundScore":
        """The score with its points added up once (the engine and the JSON form both need them)."""
        return cls(mode, colour, scored, excluded, tuple([sum([VALUE[c] for c in cards]) for cards in scored]))

    def to_json(self) -> dict[str, JSON]:
        return {
            "mode": self.mode.value,
            "colour": self.colour,
            "scored": [list(cards) for cards in self.scored],
            "points": list(self.points),
            "excluded": list(self.excluded),
        }


def majority_colour(counts: dict[str, int], limit: int) -> tuple[str | None, tuple[str, ...]]:
    """The colour that scores, and the colours passed over on the way (in the order they dropped out).

    Colours at or over the limit drop out first; then, from the highest count down, a count held by
    one colour alone wins and a count shared by several colours drops them all.
    """
    excluded = [c for c in COLOURS if counts.get(c, 0) >= limit]
    by_count: dict[int, list[str]] = {}
    for c in COLOURS:
        n = counts.get(c, 0)
        if 0 < n < limit:
            by_count.setdefault(n, []).append(c)
    for n in sorted(by_count, reverse=True):
        colours = by_count[n]
        if len(colours) == 1:
            return colours[0], tuple(excluded)
        excluded.extend(colours)
    return None, tuple(excluded)


def evaluate_round(table: Sequence[Sequence[str]]) -> RoundScore:
    """Score a round from what each seat played (`table[seat]` = that seat's cards this round)."""
    players = len(table)
    played = [card for cards in table for card in cards]
    if sum(map(KODODOS.__contains__, played)) == kododo_target(players):
        scored = tuple([tuple([c for c in cards if c in KODODOS]) for cards in table])
        return RoundScore.of(ScoreMode.KODODO, None, scored, ())
    counts = dict.fromkeys(COLOURS, 0)
    for card in played:
        counts[card[0]] += 1
    colour, excluded = majority_colour(counts, colour_limit(players))
    if colour is None:
        return RoundScore.of(ScoreMode.NONE, None, ((),) * players, excluded)
    scored = tuple([tuple([c for c in cards if c[0] == colour]) for cards in table])
    return RoundScore.of(ScoreMode.COLOUR, colour, scored, excluded)
