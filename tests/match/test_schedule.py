"""The match schedule: two games a deal, NEW and OLD on the same deal in the same seat."""

from __future__ import annotations

import pytest

from arena.tournament.schedule import plan as sched
from arena.tournament.schedule.plan import Format, ScheduleSpec


def test_two_players_play_a_pair_with_seats_swapped_on_one_deal() -> None:
    games = sched.build(ScheduleSpec(2, 2, rounds=3, format=Format.MATCH, master_seed=5))
    assert sched.count(ScheduleSpec(2, 2, rounds=3, format=Format.MATCH)) == len(games) == 6
    for r in range(3):
        a, b = games[2 * r], games[2 * r + 1]
        assert (a.index, b.index, a.round, b.round) == (2 * r, 2 * r + 1, r, r)
        assert a.seats == (0, 1) and b.seats == (1, 0) and a.seed == b.seed
    assert len({g.seed for g in games}) == 3


@pytest.mark.parametrize("seats", [3, 4, 6])
def test_more_players_put_new_and_old_in_the_same_seat_among_the_same_fillers(seats: int) -> None:
    games = sched.build(ScheduleSpec(4, seats, rounds=2 * seats, format=Format.MATCH, master_seed=1))
    new_seats = set()
    for a, b in zip(games[::2], games[1::2]):
        s = a.seats.index(0)
        new_seats.add(s)
        assert b.seats.index(1) == s and 1 not in a.seats and 0 not in b.seats
        assert [e for i, e in enumerate(a.seats) if i != s] == [e for i, e in enumerate(b.seats) if i != s]
        assert all(e >= 2 for i, e in enumerate(a.seats) if i != s)
        assert a.seed == b.seed and a.game_id == b.game_id  # fillers seeding from the game id play alike
    assert new_seats == set(range(seats))  # NEW's seat rotates over every seat


def test_unpaired_gives_old_a_deal_of_its_own() -> None:
    games = sched.build(ScheduleSpec(3, 3, rounds=4, format=Format.MATCH_UNPAIRED, master_seed=1))
    assert all(a.seed != b.seed and a.game_id != b.game_id for a, b in zip(games[::2], games[1::2]))
    paired = sched.build(ScheduleSpec(3, 3, rounds=4, format=Format.MATCH, master_seed=1))
    assert [g.seed for g in games[::2]] == [g.seed for g in paired[::2]]


def test_a_match_of_more_players_needs_a_filler() -> None:
    with pytest.raises(sched.ScheduleError, match="filler"):
        sched.validate(ScheduleSpec(2, 3, format=Format.MATCH))
