"""The schedule's promises: counts, fairness of meetings and seats, stable indices and seeds."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.rng import derive_seed
from arena.tournament.schedule.plan import (
    Deals,
    Fill,
    Format,
    Rotations,
    ScheduleError,
    ScheduledGame,
    ScheduleSpec,
    build,
    count,
    seat_counts,
)

ROTATION_GAMES = {
    Rotations.CYCLIC: lambda k: k,
    Rotations.ALL: math.factorial,
    Rotations.NONE: lambda k: 1,
    # k rotations of each of k - 1 Hamiltonian cycles (twice as many for k = 4 and 6: Tillson's theorem)
    Rotations.NEIGHBOURS: lambda k: k * (k - 1) * (2 if k in (4, 6) else 1),
}


@given(
    n=st.integers(2, 7),
    k=st.integers(2, 5),
    rounds=st.integers(1, 3),
    rotations=st.sampled_from(list(Rotations)),
    seed=st.integers(0, 2**32),
)
def test_round_robin_counts_and_meetings(n: int, k: int, rounds: int, rotations: Rotations, seed: int) -> None:
    spec = ScheduleSpec(n, k, rounds, Format.ROUND_ROBIN, rotations, Fill.CYCLE, master_seed=seed)
    games = build(spec)
    tables = math.comb(n, k) if n >= k else n
    assert len(games) == tables * ROTATION_GAMES[rotations](k) * rounds == count(spec)
    assert [g.index for g in games] == list(range(len(games)))
    # Every pair of entrants meets equally often (counted once per game they share).
    meetings = Counter()
    for g in games:
        for a, b in itertools.combinations(sorted(set(g.seats)), 2):
            meetings[a, b] += 1
    pairs = list(itertools.combinations(range(n), 2))
    assert set(meetings) == set(pairs)
    assert len(set(meetings.values())) == 1
    if rotations is not Rotations.NONE:
        # Full rotations: every entrant sits in every seat equally often.
        per_seat = seat_counts(games, n, k)
        assert len({c for row in per_seat for c in row}) == 1


@given(n=st.integers(2, 6), k=st.integers(2, 5), rounds=st.integers(1, 3))
def test_shared_deals_give_a_table_one_deal_and_rounds_get_fresh_deals(n: int, k: int, rounds: int) -> None:
    spec = ScheduleSpec(n, k, rounds, fill=Fill.CYCLE, master_seed=99, deals=Deals.SHARED)
    games = build(spec)
    by_table: dict[tuple[int, int], set[int]] = {}
    for g in games:
        by_table.setdefault((g.round, g.table), set()).add(g.seed)
        assert g.seed == derive_seed(99, "deal", g.round, g.table)
    assert all(len(seeds) == 1 for seeds in by_table.values())
    assert len({next(iter(s)) for s in by_table.values()}) == len(by_table)


def test_any_game_can_be_rebuilt_alone() -> None:
    spec = ScheduleSpec(5, 3, 2, master_seed=7)
    first = build(spec)
    again = build(spec)
    assert first == again
    assert first[37] == again[37] and first[37].index == 37


def test_gauntlet_each_candidate_meets_every_table_of_the_field() -> None:
    spec = ScheduleSpec(5, 3, 1, Format.GAUNTLET, Rotations.CYCLIC, candidates=(0,), master_seed=1)
    games = build(spec)
    assert len(games) == math.comb(4, 2) * 3
    assert all(0 in g.seats for g in games)
    assert Counter(s for g in games for s in g.seats if s != 0) == {e: 3 * 3 for e in range(1, 5)}
    assert seat_counts(games, 5, 3)[0] == [6, 6, 6]


def test_fill_cycle_seats_every_entrant_everywhere_equally() -> None:
    games = build(ScheduleSpec(2, 5, 1, fill=Fill.CYCLE))
    assert len(games) == 2 * 5
    assert all(len(g.seats) == 5 for g in games)
    assert seat_counts(games, 2, 5) == [[5] * 5, [5] * 5]


@pytest.mark.parametrize(
    "spec, message",
    [
        (ScheduleSpec(2, 4), "set `fill: cycle`"),
        (ScheduleSpec(4, 4, rounds=0), "rounds must be at least 1"),
        (ScheduleSpec(4, 4, format=Format.GAUNTLET), "needs at least one candidate"),
        (ScheduleSpec(2, 2, format=Format.GAUNTLET, candidates=(0, 1)), "at least one entrant in the field"),
        (ScheduleSpec(4, 4, candidates=(1,)), "only for the gauntlet"),
        (ScheduleSpec(1, 2), "at least 2 entrants"),
    ],
)
def test_impossible_schedules_are_refused(spec: ScheduleSpec, message: str) -> None:
    with pytest.raises(ScheduleError, match=message.replace("`", ".")):
        count(spec)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(2, 6),
    k=st.integers(2, 4),
    rounds=st.integers(1, 3),
    more_rounds=st.integers(0, 2),
    new=st.integers(0, 2),
    rotations=st.sampled_from(list(Rotations)),
    seed=st.integers(0, 2**32),
)
def test_named_tables_keep_their_games_when_the_field_or_the_rounds_grow(
    n: int, k: int, rounds: int, more_rounds: int, new: int, rotations: Rotations, seed: int
) -> None:
    """With entrant names as labels, a game is (round, who sits where, seed); every game of a schedule
    is still in the schedule with more rounds and more entrants (appended), with the same seed."""
    names = tuple(f"e{i}" for i in range(n + new))
    small = ScheduleSpec(n, k, rounds, Format.ROUND_ROBIN, rotations, Fill.CYCLE, master_seed=seed, labels=names[:n])
    big = ScheduleSpec(n + new, k, rounds + more_rounds, Format.ROUND_ROBIN, rotations, Fill.CYCLE, master_seed=seed, labels=names)

    def identity(g: ScheduledGame) -> tuple[int, tuple[str, ...], int]:
        return (g.round, tuple(names[e] for e in g.seats), g.seed)

    before = [identity(g) for g in build(small)]
    after = {identity(g) for g in build(big)}
    if n >= k:  # with `fill: cycle` below k entrants, tables are made differently once the field is big enough
        assert set(before) <= after
    if new == 0:
        assert before == [identity(g) for g in build(big)][: len(before)]  # more rounds append: same places


@given(n=st.integers(2, 7), k=st.integers(2, 5), rounds=st.integers(1, 3), rotations=st.sampled_from(list(Rotations)))
@settings(max_examples=60, deadline=None)
def test_every_game_id_of_a_tournament_is_its_own(n: int, k: int, rounds: int, rotations: Rotations) -> None:
    """Game ids are keyed by round, table and rotation: one game each in a tournament."""
    from arena.tournament.run.player import played_game_id

    spec = ScheduleSpec(entrants=n, seats=k, rounds=rounds, rotations=rotations, fill=Fill.CYCLE)
    ids = [played_game_id("s3cret", "kododo", g) for g in build(spec)]
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize("seats", [3, 4, 6])
def test_a_matchs_two_games_of_a_deal_share_their_game_id_unless_unpaired(seats: int) -> None:
    """So that fillers seeding themselves from the game id play NEW's and OLD's game of a deal alike
    (seat for seat, until NEW and OLD differ): the point of pairing. Unpaired, OLD's game is its own."""
    from arena.tournament.run.player import played_game_id

    for fmt, shared in ((Format.MATCH, True), (Format.MATCH_UNPAIRED, False)):
        spec = ScheduleSpec(entrants=4, seats=seats, rounds=5, format=fmt, fill=Fill.CYCLE)
        ids = [played_game_id("s3cret", "kolpa", g) for g in build(spec)]
        assert [ids[2 * r] == ids[2 * r + 1] for r in range(5)] == [shared] * 5
        assert len(set(ids)) == (5 if shared else 10)
