"""Item 8 of issue 36: no entrant meets a deal twice, in any schedule kind a tournament or the ladder
makes for untrusted bots; a deal is spread over entrant-disjoint games as duplicate bridge spreads a
board over tables; `deals: shared` (trusted bots) is the control that does seat one entrant on a deal
several times, and says so."""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from pathlib import Path
from typing import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.core.scheduled import ScheduledGame
from arena.rng import derive_seed
from arena.ladder.matchmaker import Candidate, next_tables
from arena.tournament.config import tournament as tconfig
from arena.tournament.schedule.plan import Deals, Fill, Format, Rotations, ScheduleSpec, build


def entrants_on_a_deal_twice(games: Sequence[ScheduledGame]) -> list[tuple[int, int]]:
    """(deal seed, entrant) for every entrant seated in two games of one deal."""
    seen: dict[int, Counter[int]] = defaultdict(Counter)
    for g in games:
        seen[g.seed].update(set(g.seats))
    return [(seed, e) for seed, count in seen.items() for e, c in count.items() if c > 1]


@st.composite
def specs(draw: st.DrawFn, deals: Deals = Deals.SPREAD) -> ScheduleSpec:
    n = draw(st.integers(2, 9))
    k = draw(st.integers(2, 5))
    fmt = draw(st.sampled_from([Format.ROUND_ROBIN, Format.GAUNTLET]))
    candidates: tuple[int, ...] = ()
    if fmt is Format.GAUNTLET:
        candidates = tuple(draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=max(1, n - 1))))
        if len(candidates) >= n:
            candidates = candidates[:1]
    labels = tuple(f"e{i}" for i in range(n)) if draw(st.booleans()) else ()
    return ScheduleSpec(n, k, draw(st.integers(1, 3)), fmt, draw(st.sampled_from(list(Rotations))), Fill.CYCLE,
                        deals, candidates, draw(st.integers(0, 2**40)), labels)


@settings(max_examples=150, deadline=None)
@given(spec=specs())
def test_no_entrant_is_scheduled_on_one_deal_twice_in_any_schedule(spec: ScheduleSpec) -> None:
    games = build(spec)
    assert entrants_on_a_deal_twice(games) == []
    # the same games as shared deals play (who sits where, how often): only the deals differ, so the
    # schedule's balance of seats and meetings is kept
    shared = build(ScheduleSpec(**{**spec.__dict__, "deals": Deals.SHARED}))
    assert Counter((g.round, g.seats) for g in games) == Counter((g.round, g.seats) for g in shared)
    # at most k games a deal, and each deal in one round only
    per_deal = Counter(g.seed for g in games)
    assert max(per_deal.values()) <= spec.seats
    assert all(len({g.round for g in games if g.seed == s}) == 1 for s in list(per_deal)[:20])


def test_shared_deals_seat_an_entrant_on_one_deal_in_every_seat_the_control() -> None:
    games = build(ScheduleSpec(4, 2, deals=Deals.SHARED))
    assert len(entrants_on_a_deal_twice(games)) == 2 * 6  # both entrants of each of the 6 tables


def test_a_deal_goes_to_other_entrants_at_other_tables_and_the_same_cards_to_different_ones() -> None:
    """Four entrants, two seats: every deal is played at two tables with no entrant in common, so the two
    entrants that held seat 0's cards are compared with each other (duplicate bridge's comparison)."""
    games = build(ScheduleSpec(4, 2, rounds=2, master_seed=3))
    by_deal: dict[int, list[ScheduledGame]] = defaultdict(list)
    for g in games:
        by_deal[g.seed].append(g)
    assert len(by_deal) == 2 * 6 and all(len(d) == 2 for d in by_deal.values())
    for deal in by_deal.values():
        first, second = deal
        assert not set(first.seats) & set(second.seats)
    # every entrant holds each seat's cards equally often, against every other entrant equally often
    seats = Counter((e, s) for g in games for s, e in enumerate(g.seats))
    assert set(seats.values()) == {6}


def test_a_big_field_fills_deals_up_to_one_game_a_seat() -> None:
    games = build(ScheduleSpec(9, 3))
    per_deal = Counter(g.seed for g in games)
    assert max(per_deal.values()) == 3 and sum(1 for c in per_deal.values() if c > 1) > len(per_deal) / 2


def test_a_spread_deal_seed_derives_from_its_first_games_table_and_seating() -> None:
    """Pinned: a store extended with rounds or entrants keeps its games only if every version derives
    a deal's seed the same way: master seed, "deal", round, "spread", the first game's rotation, the
    names at its table."""
    names = ("ada", "bob", "cy", "dee")
    games = build(ScheduleSpec(4, 2, master_seed=5, labels=names))
    assert games[0].seats == (0, 1) and games[0].seed == derive_seed(5, "deal", 0, "spread", 0, "ada", "bob")
    partner = [g for g in games[1:] if g.seed == games[0].seed]
    assert [g.seats for g in partner] == [(2, 3)]


@st.composite
def fields(draw: st.DrawFn) -> tuple[list[Candidate], int, int]:
    n = draw(st.integers(0, 14))
    cands = [Candidate(100 + i, draw(st.floats(0, 50)), draw(st.floats(0.1, 9)), draw(st.integers(0, 30))) for i in range(n)]
    return cands, draw(st.integers(2, 5)), draw(st.integers(0, 2**32))


@settings(max_examples=150, deadline=None)
@given(field=fields(), duplicate=st.booleans())
def test_the_ladder_never_gives_a_bot_one_deal_twice(field: tuple[list[Candidate], int, int], duplicate: bool) -> None:
    cands, players, seed = field
    rng = random.Random(seed)
    for _ in range(5):  # several deals from one generator, as the ladder draws them
        tables = next_tables(cands, players, 5, 3.0, duplicate, rng)
        if len(cands) < players:
            assert tables == []
            continue
        assert len({t.seed for t in tables}) == 1
        bots = [b for t in tables for b in t.seats]
        assert len(bots) == len(set(bots))  # no bot twice at a table or on the deal
        assert all(len(t.seats) == players for t in tables)
        expected = min(players, len(cands) // players) if duplicate else 1
        assert len(tables) == expected  # duplicate: as many disjoint tables as the field holds, up to one a seat


def test_shared_deals_in_a_config_warn_naming_the_channel(tmp_path: Path) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text("")
    base = {"game": "kododo", "entrants": [{"name": n, "command": ["{python}", "bot.py"]} for n in ("a", "b")], "sandbox": False}
    spread = tconfig.parse(base, tmp_path / "cup.yaml")
    assert spread.schedule.deals is Deals.SPREAD and not any("deal" in w for w in spread.warnings)
    shared = tconfig.parse({**base, "schedule": {"deals": "shared"}}, tmp_path / "cup.yaml")
    assert shared.schedule.deals is Deals.SHARED
    assert any("page cache" in w and "trusted" in w for w in shared.warnings)
