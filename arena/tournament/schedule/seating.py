"""Fair seating: who sits next to whom, balanced (`arena.stats.seating` measures it). Pure: no I/O.

Seats are in play order around the table, so seat s+1 (cyclically) is the *next* of seat s: the
player after it in a sequential game's play order, the one it passes to in a draft. An entrant's neighbours
matter whenever position matters, so over a round-robin each entrant should have each other entrant
as its next (and as its previous) equally often.

Today's `cyclic` rotations keep a table's cyclic order, so at a table (a, b, c, d) a always passes to
b and never to c or d. The `neighbours` rotations play each table in a set of cyclic orders in which
every ordered pair of the table is adjacent equally often, each order under all its rotations (so
seat balance is kept too): a decomposition of the complete directed graph on the k seats into
directed Hamiltonian cycles. It has k - 1 cycles for every k except 4 and 6, where none exists
(Tillson, 1980) and the smallest exact schedule uses 2 (k - 1) cycles, each ordered pair twice.
Balance at every table gives exact balance over any round-robin of any n.
"""

from __future__ import annotations

import functools
from typing import Sequence


def _multiplicity(k: int) -> int:
    """How often each ordered pair is adjacent in the smallest exact cycle set for k seats."""
    return 2 if k in (4, 6) else 1


@functools.lru_cache(maxsize=None)
def neighbour_cycles(k: int) -> tuple[tuple[int, ...], ...]:
    """Cyclic orders of positions 0..k-1 (each starting at 0) covering every ordered adjacency
    exactly `_multiplicity(k)` times; found by a small deterministic search (k <= 8 is instant)."""
    if k < 2:
        raise ValueError(f"a table needs at least 2 seats, got {k}")
    if k == 2:
        return ((0, 1),)
    lam = _multiplicity(k)
    need = lam * (k - 1)
    used = [[0] * k for _ in range(k)]
    chosen: list[tuple[int, ...]] = []

    def extend(path: list[int], seen: set[int]) -> bool:
        if len(path) == k:
            if used[path[-1]][0] >= lam:
                return False
            used[path[-1]][0] += 1
            chosen.append(tuple(path))
            ok = search()
            if not ok:
                chosen.pop()
                used[path[-1]][0] -= 1
            return ok
        last = path[-1]
        for nxt in range(1, k):
            if nxt not in seen and used[last][nxt] < lam:
                used[last][nxt] += 1
                seen.add(nxt)
                path.append(nxt)
                if extend(path, seen):
                    return True
                path.pop()
                seen.discard(nxt)
                used[last][nxt] -= 1
        return False

    def search() -> bool:
        if len(chosen) == need:
            return True
        return extend([0], {0})

    if not search():
        raise ValueError(f"no neighbour-balanced cycle set found for {k} seats")
    return tuple(chosen)


def neighbour_seatings(table: Sequence[int]) -> list[tuple[int, ...]]:
    """The games of one table: every balanced cyclic order, each under all k rotations."""
    k = len(table)
    return [tuple(table[c[(s + r) % k]] for s in range(k)) for c in neighbour_cycles(k) for r in range(k)]
