"""The schedule, exactly: seat orders, the gauntlet's small fields, rotation indices and error messages.

A store keys its games by schedule index and a replay names its game `r<round>-t<table>-s<rotation>`,
so the seating of each game is a stable contract: a resumed run, or one game replayed alone, must seat
the same entrants in the same seats as the arena version that started the tournament. These tests pin
that contract; test_schedule.py checks the counting and fairness promises.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.tournament.schedule.plan import (
    Fill,
    Format,
    Rotations,
    ScheduleError,
    ScheduleSpec,
    build,
    count,
    seat_counts,
    validate,
)


def _seatings(spec: ScheduleSpec) -> list[tuple[int, ...]]:
    return [g.seats for g in build(spec)]


def test_cyclic_rotation_r_seats_the_tables_entrant_s_plus_r_in_seat_s() -> None:
    # Rotation r moves every entrant r seats towards seat 0: seat s holds table entrant (s + r) mod k.
    assert _seatings(ScheduleSpec(3, 3)) == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    four = _seatings(ScheduleSpec(4, 4))
    assert four == [(0, 1, 2, 3), (1, 2, 3, 0), (2, 3, 0, 1), (3, 0, 1, 2)]


def test_rotation_index_and_game_id_name_each_seating_of_a_table() -> None:
    games = build(ScheduleSpec(4, 3, rounds=2))
    assert [g.rotation for g in games[:6]] == [0, 1, 2, 0, 1, 2]
    assert [g.game_id for g in games[:4]] == ["r0-t0-s0", "r0-t0-s1", "r0-t0-s2", "r0-t1-s0"]
    assert games[-1].game_id == "r1-t3-s2"
    assert [g.rotation for g in build(ScheduleSpec(3, 3, rotations=Rotations.ALL))] == [0, 1, 2, 3, 4, 5]
    assert {g.rotation for g in build(ScheduleSpec(4, 3, rotations=Rotations.NONE))} == {0}


@given(n=st.integers(2, 6), extra=st.integers(1, 4))
def test_fill_cycle_repeats_entrants_in_order_from_each_start(n: int, extra: int) -> None:
    # Fewer entrants than seats: table t starts with entrant t, and each next seat takes the next entrant.
    k = n + extra
    spec = ScheduleSpec(n, k, rotations=Rotations.NONE, fill=Fill.CYCLE)
    tables = _seatings(spec)
    assert tables == [tuple((start + i) % n for i in range(k)) for start in range(n)]


def test_fill_cycle_exact_tables() -> None:
    spec = ScheduleSpec(3, 4, rotations=Rotations.NONE, fill=Fill.CYCLE)
    assert _seatings(spec) == [(0, 1, 2, 0), (1, 2, 0, 1), (2, 0, 1, 2)]


def test_gauntlet_field_of_exactly_k_minus_1_needs_no_fill() -> None:
    # Two others for a 3-seat game: one table per candidate, no `fill` needed.
    spec = ScheduleSpec(3, 3, format=Format.GAUNTLET, rotations=Rotations.NONE, candidates=(0,))
    assert _seatings(spec) == [(0, 1, 2)]
    spec = ScheduleSpec(4, 3, format=Format.GAUNTLET, rotations=Rotations.NONE, candidates=(0, 3))
    assert _seatings(spec) == [(0, 1, 2), (3, 1, 2)]


def test_gauntlet_field_larger_than_k_minus_1_meets_every_combination() -> None:
    spec = ScheduleSpec(4, 3, format=Format.GAUNTLET, rotations=Rotations.NONE, candidates=(2,))
    assert _seatings(spec) == [(2, 0, 1), (2, 0, 3), (2, 1, 3)]


def test_gauntlet_small_field_is_filled_by_cycling_the_field() -> None:
    # A field of 2 for a 4-seat game: the candidate plus the field repeated in order, once per start.
    spec = ScheduleSpec(3, 4, format=Format.GAUNTLET, rotations=Rotations.NONE, fill=Fill.CYCLE, candidates=(0,))
    assert _seatings(spec) == [(0, 1, 2, 1), (0, 2, 1, 2)]
    assert count(spec) == 2
    # A field of 1 for a 3-seat game: the lone field entrant takes both other seats.
    spec = ScheduleSpec(2, 3, format=Format.GAUNTLET, rotations=Rotations.CYCLIC, fill=Fill.CYCLE, candidates=(1,))
    games = build(spec)
    assert [g.seats for g in games] == [(1, 0, 0), (0, 0, 1), (0, 1, 0)]
    assert seat_counts(games, 2, 3) == [[2, 2, 2], [1, 1, 1]]


@given(field=st.integers(1, 4), extra=st.integers(1, 3), candidates=st.integers(1, 3))
def test_gauntlet_small_field_every_table_has_k_seats_and_the_candidate_first(
    field: int, extra: int, candidates: int
) -> None:
    k = field + 1 + extra  # more seats than candidate + field
    spec = ScheduleSpec(
        field + candidates, k, format=Format.GAUNTLET, rotations=Rotations.NONE, fill=Fill.CYCLE,
        candidates=tuple(range(field, field + candidates)),
    )
    games = build(spec)
    assert len(games) == candidates * field
    for g in games:
        assert len(g.seats) == k
        assert g.seats[0] >= field and all(e < field for e in g.seats[1:])
        start = g.seats[1]
        assert g.seats[1:] == tuple((start + i) % field for i in range(k - 1))


def test_gauntlet_small_field_without_fill_is_refused_with_the_fix() -> None:
    spec = ScheduleSpec(3, 4, format=Format.GAUNTLET, candidates=(0,))
    with pytest.raises(ScheduleError) as err:
        validate(spec)
    assert str(err.value) == "3 seats per table but only 2 entrants to fill them; set `fill: cycle` to repeat entrants"


@pytest.mark.parametrize(
    "spec, message",
    [
        (ScheduleSpec(0, 2), "a tournament needs at least one entrant"),
        (ScheduleSpec(3, 1), "a game needs at least 2 seats, got 1"),
        (ScheduleSpec(3, 2, rounds=0), "rounds must be at least 1, got 0"),
        (ScheduleSpec(3, 2, format=Format.GAUNTLET), "a gauntlet needs at least one candidate"),
        (ScheduleSpec(3, 2, format=Format.GAUNTLET, candidates=(1, 1)), "a gauntlet candidate is listed twice"),
        (
            ScheduleSpec(2, 2, format=Format.GAUNTLET, candidates=(0, 1)),
            "a gauntlet needs at least one entrant in the field besides the candidates",
        ),
        (ScheduleSpec(3, 2, candidates=(0,)), "candidates are only for the gauntlet format"),
        (ScheduleSpec(1, 2), "a round-robin needs at least 2 entrants"),
        (ScheduleSpec(2, 4), "4 seats per table but only 2 entrants to fill them; set `fill: cycle` to repeat entrants"),
    ],
)
def test_each_refusal_says_exactly_what_to_change(spec: ScheduleSpec, message: str) -> None:
    # The config layer prefixes these with the file and key; the text itself is what the user reads.
    with pytest.raises(ScheduleError) as err:
        count(spec)
    assert str(err.value) == message
