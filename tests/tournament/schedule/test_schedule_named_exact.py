"""Named tables (ScheduleSpec.labels, the entrants' names from the config), exactly.

A store extended with more rounds or entrants keeps the games already played only if each game's deal
seed is derived the same way by every arena version: from the master seed, "deal", the round and the
names at the table in table order (`deals: shared`; spread deals: tests/tournament/schedule/test_deals.py). test_schedule.py checks that the seeds survive a bigger field; these
pin the derivation and its promises (fresh deals per round and per table) and the refusal's text.
"""

from __future__ import annotations

import pytest

from arena.rng import derive_seed
from arena.tournament.schedule.plan import Deals, Fill, Rotations, ScheduleError, ScheduleSpec, build, count

NAMES = ("ada", "bob", "cy", "dee")


def test_a_named_tables_deal_seed_derives_from_round_and_the_names_at_the_table() -> None:
    games = build(ScheduleSpec(4, 3, rounds=2, rotations=Rotations.NONE, master_seed=5, labels=NAMES, deals=Deals.SHARED))
    assert [(g.round, g.seats) for g in games[:4]] == [(0, (0, 1, 2)), (0, (0, 1, 3)), (0, (0, 2, 3)), (0, (1, 2, 3))]
    assert games[0].seed == derive_seed(5, "deal", 0, "ada", "bob", "cy")
    assert games[5].seed == derive_seed(5, "deal", 1, "ada", "bob", "dee")
    assert games[0].seed == 3769127314034644726  # the same in every arena version (stored games depend on it)


def test_named_tables_get_a_fresh_deal_per_round_and_per_table() -> None:
    games = build(ScheduleSpec(4, 2, rounds=3, master_seed=1, labels=NAMES, deals=Deals.SHARED))
    per_table = {(g.round, g.table): g.seed for g in games}
    assert len(per_table) == 3 * 6
    assert len(set(per_table.values())) == len(per_table)
    # the seatings of one table share its deal (duplicate format)
    assert all(g.seed == per_table[g.round, g.table] for g in games)


def test_filled_named_tables_get_their_own_deals() -> None:
    games = build(ScheduleSpec(2, 3, rotations=Rotations.NONE, fill=Fill.CYCLE, labels=("x", "y"), deals=Deals.SHARED))
    assert [g.seats for g in games] == [(0, 1, 0), (1, 0, 1)]
    assert games[0].seed == derive_seed(0, "deal", 0, "x", "y", "x") != games[1].seed


def test_a_wrong_number_of_names_is_refused_with_both_counts() -> None:
    with pytest.raises(ScheduleError) as err:
        count(ScheduleSpec(3, 2, labels=("ada", "bob")))
    assert str(err.value) == "2 entrant names for 3 entrants"
