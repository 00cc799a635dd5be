"""Which games a tournament plays, in which order, with which seeds. Pure: no I/O, no clock.

Every game has a stable index (its place in the schedule) and a seed derived from the master seed and
its round and table, so any game can be replayed alone and a resumed run plays exactly the games that
are missing.

Deals (duplicate format, as duplicate bridge plays it): by default (`deals: spread`) every deal is
played by up to k tables of *different* entrants (no entrant is ever on one deal twice), in different
seat orders, so the entrants that held the same cards are compared with each other; each table still
plays every seat rotation, each on a deal of its own. `deals: shared` (trusted bots only) gives a
table's rotations one deal, so the same entrants meet it in every seat: a bot that meets a deal twice
can learn it through host state no sandbox separates (the page cache of a file every sandbox reads,
machine-wide counters), so the config warns about it.
"""

from __future__ import annotations

import enum
import itertools
import math
from dataclasses import dataclass
from typing import Iterator, Sequence

from arena.core.scheduled import ScheduledGame
from arena.rng import derive_seed
from arena.tournament.schedule.seating import neighbour_cycles, neighbour_seatings


class Format(enum.Enum):
    ROUND_ROBIN = "round-robin"  # every table of k distinct entrants
    GAUNTLET = "gauntlet"  # each candidate against every table of k-1 others from the field
    MATCH = "match"  # `arena match`: entrant 0 (NEW) and 1 (OLD) each play every deal in the same seat
    MATCH_UNPAIRED = "match-unpaired"  # the same, but OLD's game of a round has a deal of its own (to measure pairing)


MATCH_FORMATS = (Format.MATCH, Format.MATCH_UNPAIRED)
CONFIG_FORMATS = (Format.ROUND_ROBIN, Format.GAUNTLET)  # what a tournament's YAML may name; `arena match` sets the others


class Rotations(enum.Enum):
    """How the entrants of a table are seated across its games."""

    CYCLIC = "cyclic"  # k games: every entrant in every seat once
    ALL = "all"  # k! games: every seating order, which also balances who sits after whom
    NONE = "none"  # one game per table, seated in table order (cheap, unbalanced)
    NEIGHBOURS = "neighbours"  # every entrant next to every other equally often, each seat equally (seating.py)


class Deals(enum.Enum):
    """Which games share a deal."""

    SPREAD = "spread"  # a deal goes to up to k entrant-disjoint games: no entrant meets a deal twice
    SHARED = "shared"  # a table's seatings share its deal: its entrants meet it in every seat (trusted bots)


SHARED_DEALS_WARNING = (
    "deals: shared seats the same entrants on one deal in several games; a bot that meets a deal twice can learn "
    "it through host state no sandbox separates (the page cache of a file every sandbox reads, machine-wide "
    "counters): use it only for trusted bots (the default, deals: spread, never seats an entrant on a deal twice)"
)

PAIRED_MATCH_WARNING = (
    "paired games give NEW and OLD each deal in turn (and the fillers each deal twice): a bot that meets a deal "
    "twice can learn it through host state no sandbox separates (the page cache, machine-wide counters), so "
    "`arena match` is for bots you trust (your own versions); --unpaired gives every game a deal of its own"
)


class Fill(enum.Enum):
    """What to do when a table needs more seats than there are entrants to fill it."""

    ERROR = "error"  # refuse the schedule
    CYCLE = "cycle"  # entrants repeat in order to fill the seats, each with its own bot process


class ScheduleError(ValueError):
    """A schedule that cannot be built; the config layer turns it into a ConfigError with a key path."""


@dataclass(frozen=True)
class ScheduleSpec:
    """The schedule part of a config, as plain values."""

    entrants: int  # n
    seats: int  # k, players per game
    rounds: int = 1  # R: the whole schedule repeated with fresh deals
    format: Format = Format.ROUND_ROBIN
    rotations: Rotations = Rotations.CYCLIC
    fill: Fill = Fill.ERROR
    deals: Deals = Deals.SPREAD
    candidates: tuple[int, ...] = ()  # gauntlet only: entrant indices that meet the field
    master_seed: int = 0
    # The entrants' names. When given, a table's deal seed derives from who sits at it (not from its
    # place in the round), so adding an entrant leaves the seeds, and the stored games, of the tables
    # that were already there unchanged.
    labels: tuple[str, ...] = ()


def _tables(spec: ScheduleSpec) -> list[tuple[int, ...]]:
    """The tables (who plays together, in table order) of one round."""
    n, k = spec.entrants, spec.seats
    if spec.format is Format.ROUND_ROBIN:
        pool = list(range(n))
        if n >= k:
            every = list(itertools.combinations(pool, k))
            # spread: by largest entrant first (colex), so a new last entrant's tables come after the others
            return sorted(every, key=lambda t: t[::-1]) if spec.deals is Deals.SPREAD else every
        return _filled(pool, k, spec.fill)
    candidates = list(spec.candidates)
    field = [e for e in range(n) if e not in set(candidates)]
    tables: list[tuple[int, ...]] = []
    for c in candidates:
        if len(field) >= k - 1:
            others: list[tuple[int, ...]] = list(itertools.combinations(field, k - 1))
        else:
            others = _filled(field, k - 1, spec.fill)
        tables.extend((c, *o) for o in others)
    return tables


def _filled(pool: list[int], k: int, fill: Fill) -> list[tuple[int, ...]]:
    """Tables of k seats from fewer entrants: one table per starting entrant, so extra seats rotate."""
    if fill is not Fill.CYCLE:
        raise ScheduleError(f"{k} seats per table but only {len(pool)} entrants to fill them; set `fill: cycle` to repeat entrants")
    return [tuple(pool[(start + i) % len(pool)] for i in range(k)) for start in range(len(pool))]


def _seatings(table: tuple[int, ...], rotations: Rotations) -> list[tuple[int, ...]]:
    k = len(table)
    if rotations is Rotations.CYCLIC:
        return [tuple(table[(s + r) % k] for s in range(k)) for r in range(k)]
    if rotations is Rotations.ALL:
        return list(itertools.permutations(table))
    if rotations is Rotations.NEIGHBOURS:
        return neighbour_seatings(table)
    return [table]


def validate(spec: ScheduleSpec) -> None:
    """Raise ScheduleError with what to change if the spec cannot make a schedule."""
    if spec.entrants < 1:
        raise ScheduleError("a tournament needs at least one entrant")
    if spec.labels and len(spec.labels) != spec.entrants:
        raise ScheduleError(f"{len(spec.labels)} entrant names for {spec.entrants} entrants")
    if spec.seats < 2:
        raise ScheduleError(f"a game needs at least 2 seats, got {spec.seats}")
    if spec.rounds < 1:
        raise ScheduleError(f"rounds must be at least 1, got {spec.rounds}")
    if spec.format is Format.GAUNTLET:
        if not spec.candidates:
            raise ScheduleError("a gauntlet needs at least one candidate")
        if len(set(spec.candidates)) != len(spec.candidates):
            raise ScheduleError("a gauntlet candidate is listed twice")
        if len(spec.candidates) >= spec.entrants:
            raise ScheduleError("a gauntlet needs at least one entrant in the field besides the candidates")
    elif spec.candidates:
        raise ScheduleError("candidates are only for the gauntlet format")
    if spec.format is Format.ROUND_ROBIN and spec.entrants < 2:
        raise ScheduleError("a round-robin needs at least 2 entrants")
    if spec.format in MATCH_FORMATS:
        if spec.entrants < 2 or (spec.seats > 2 and spec.entrants < 3):
            raise ScheduleError(f"a match of {spec.seats} seats needs NEW, OLD and, for more than 2 seats, a filler bot")
        return
    _tables(spec)  # raises when the seats cannot be filled


def _match_games(spec: ScheduleSpec) -> Iterator[ScheduledGame]:
    """Two games a round, on one deal. 2 seats: NEW and OLD, then the seats swapped (fastchess's game
    pair). More seats: NEW in seat r mod k, the fillers (entrants 2.., rotating with the round) in the
    others; then OLD in NEW's seat, everything else the same, the game id too (so a filler that seeds
    itself from the game id plays the same until NEW and OLD differ). Unpaired: OLD's deal is its own."""
    k, fillers = spec.seats, list(range(2, spec.entrants))
    for rnd in range(spec.rounds):
        seed = derive_seed(spec.master_seed, "deal", rnd, "match")
        if k == 2:
            first: tuple[int, ...] = (0, 1)
            second: tuple[int, ...] = (1, 0)
        else:
            others = [fillers[(j + rnd) % len(fillers)] for j in range(k - 1)]
            seat = rnd % k
            first = (*others[:seat], 0, *others[seat:])
            second = (*others[:seat], 1, *others[seat:])
        yield ScheduledGame(2 * rnd, rnd, 0, 0, first, seed)
        if spec.format is Format.MATCH_UNPAIRED:
            yield ScheduledGame(2 * rnd + 1, rnd, 1, 0, second, derive_seed(spec.master_seed, "deal", rnd, "unpaired"))
        else:
            yield ScheduledGame(2 * rnd + 1, rnd, 0, 0 if k > 2 else 1, second, seed)


def count(spec: ScheduleSpec) -> int:
    """The number of games, without building them (for progress bars and checks)."""
    validate(spec)
    if spec.format in MATCH_FORMATS:
        return 2 * spec.rounds
    per_table = {
        Rotations.CYCLIC: spec.seats,
        Rotations.ALL: math.factorial(spec.seats),
        Rotations.NONE: 1,
        Rotations.NEIGHBOURS: spec.seats * len(neighbour_cycles(spec.seats)),
    }
    return len(_tables(spec)) * per_table[spec.rotations] * spec.rounds


def games(spec: ScheduleSpec) -> Iterator[ScheduledGame]:
    """Every game, in schedule order: round by round, so a partial run has met everyone evenly."""
    validate(spec)
    if spec.format in MATCH_FORMATS:
        yield from _match_games(spec)
        return
    tables = _tables(spec)
    places = [(t, r, seats) for t, table in enumerate(tables) for r, seats in enumerate(_seatings(table, spec.rotations))]
    if spec.deals is Deals.SPREAD:
        firsts = deal_groups([seats for _, _, seats in places], spec.seats)
    else:
        table_first: dict[int, int] = {}
        firsts = [table_first.setdefault(t, i) for i, (t, _, _) in enumerate(places)]
    index = 0
    for rnd in range(spec.rounds):
        for i, (t, r, seats) in enumerate(places):
            first_t, first_r, _ = places[firsts[i]]
            yield ScheduledGame(index, rnd, t, r, seats, _deal_seed(spec, rnd, first_t, first_r, tables[first_t]))
            index += 1


def deal_groups(games: Sequence[tuple[int, ...]], size: int) -> list[int]:
    """For each game (its seats), the first game of its deal: first fit, in order, into a deal of fewer
    than `size` games none of whose entrants it seats. So no entrant is on one deal twice, and games
    appended to the list (a new entrant's) leave the deals of the earlier ones as they were."""
    open_deals: list[tuple[int, set[int], list[int]]] = []  # (first game, its entrants, its games), not yet full
    out = []
    for i, seats in enumerate(games):
        who = set(seats)
        home = None
        if len(who) == len(seats):  # a game that seats an entrant twice (`fill: cycle`) joins no other deal
            home = next((d for d in open_deals if who.isdisjoint(d[1])), None)
        if home is None:
            home = (i, set(), [])
            open_deals.append(home)
        home[1].update(who)
        home[2].append(i)
        if len(home[2]) >= size:
            open_deals.remove(home)
        out.append(home[0])
    return out


def _deal_seed(spec: ScheduleSpec, rnd: int, t: int, r: int, table: tuple[int, ...]) -> int:
    """A deal's seed, from its round and its first game (shared: its table; spread: its table and seating)."""
    spread: tuple[str | int, ...] = ("spread", r) if spec.deals is Deals.SPREAD else ()
    if spec.labels:
        return derive_seed(spec.master_seed, "deal", rnd, *spread, *(spec.labels[e] for e in table))
    return derive_seed(spec.master_seed, "deal", rnd, *spread, t)


def build(spec: ScheduleSpec) -> list[ScheduledGame]:
    return list(games(spec))


def seat_counts(schedule: Sequence[ScheduledGame], entrants: int, seats: int) -> list[list[int]]:
    """How often each entrant sat in each seat: the balance a duplicate schedule promises."""
    out = [[0] * seats for _ in range(entrants)]
    for g in schedule:
        for s, e in enumerate(g.seats):
            out[e][s] += 1
    return out
