"""Neighbour balance: exact for every n and k, and measured on today's schedules."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.tournament.schedule.plan import Fill, Rotations, ScheduleSpec, build, seat_counts
from arena.tournament.schedule.seating import neighbour_cycles
from arena.stats.seating import balance, next_counts
from arena.stats.seating import seat_report
from bench.simfield import Field, tournament


@settings(max_examples=40, deadline=None)
@given(k=st.integers(3, 6), extra=st.integers(0, 3), rounds=st.integers(1, 2))
def test_neighbour_rotations_balance_neighbours_and_seats_exactly(k: int, extra: int, rounds: int) -> None:
    n = k + extra
    games = build(ScheduleSpec(n, k, rounds, rotations=Rotations.NEIGHBOURS))
    counts = next_counts((g.seats for g in games), n)
    assert balance(counts).exact
    assert all(counts[a][b] > 0 for a in range(n) for b in range(n) if a != b)
    per_seat = seat_counts(games, n, k)
    assert len({c for row in per_seat for c in row}) == 1  # every entrant in every seat equally often


def test_cycle_sets_are_the_smallest_possible() -> None:
    # k - 1 directed Hamiltonian cycles cover each ordered pair once; for k = 4 and 6 no such set
    # exists (Tillson 1980), so twice as many, each ordered pair twice.
    assert {k: len(neighbour_cycles(k)) for k in range(2, 8)} == {2: 1, 3: 2, 4: 6, 5: 4, 6: 10, 7: 6}


@given(k=st.integers(3, 6), extra=st.integers(0, 2))
def test_cyclic_rotations_are_unbalanced_today(k: int, extra: int) -> None:
    n = k + extra
    games = build(ScheduleSpec(n, k, 1, rotations=Rotations.CYCLIC, fill=Fill.ERROR))
    assert not balance(next_counts((g.seats for g in games), n)).exact


def test_seat_report_shows_a_seat_advantage() -> None:
    games = tournament(Field((0.0, 0.0, 0.0), seats=3), rounds=40, seed=2)
    # make seat 0 win every game: its average rank is 1, others 2.5
    rigged = [type(g)(g.index, g.round, g.table, g.rotation, g.seats, (1, 2, 3)) for g in games]
    report = seat_report(rigged, 3)
    assert report.seat_avg_rank == (1.0, 2.0, 3.0)
    assert report.seat_games == (120, 120, 120)
    assert report.entrant_seat_avg_rank[0] == (1.0, 2.0, 3.0)
    # with cyclic rotations of (0, 1, 2), entrant 0 always sits right after entrant 2
    assert report.after_avg_rank[0][2] == 2.0 and report.after_avg_rank[0][1] is None
    assert not report.balance.exact and report.balance.deviation > 0
