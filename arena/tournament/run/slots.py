"""Which bot process plays which game: no process, and no kept scratch folder, ever meets a deal twice.

Why: with `deals: shared` (trusted bots) a table replays one deal in each of its seat rotations, `arena
match` gives NEW and OLD one deal each and `fill: cycle` seats an entrant twice, and bot processes are
kept between games for throughput. (The default schedule, `deals: spread`, never gives an entrant a deal
twice, so each entrant needs one slot.) A process that played rotation 0 would know, in rotation 1, the
hand it held, now an opponent's. So each (entrant, seat copy) keeps a few *slots* instead of one
process; a slot remembers every deal it met (its process, the processes restarted in it, and its
kept scratch folder all count as the slot) and is only given a game whose deal it has not met. When
none of an entrant's slots fits, a new one is opened; beyond `size` slots the least recently used one
is retired (its process closed, its scratch folder deleted) and a fresh one takes its place.

With cyclic rotations and `size` = the table's seats, an entrant needs one slot per rotation it plays
on a worker: k processes instead of 1, started once, then kept (BENCHMARKS.md: the demo's throughput
with this design and with restarting where a deal repeats).

`Slots.take` is the only way to a slot, and it refuses a deal the slot has met, whatever the schedule
(rounds, `fill: cycle`, gauntlet, any rotations), the worker or `restart_bots`.
"""

from __future__ import annotations

import os
import secrets
import shutil
from dataclasses import dataclass, field
from typing import Generic, TypeVar

P = TypeVar("P")


class DealMetTwice(RuntimeError):
    """A slot was about to be given a deal it has met: a bug in arena, never a bot's doing."""


@dataclass(eq=False)
class Slot(Generic[P]):
    key: tuple[int, int]  # (entrant, seat copy)
    number: int
    scratch: str | None  # the kept scratch folder of this slot (Scratch.KEEP), else None
    met: set[int] = field(default_factory=set)  # deals (game seeds) met by anything in this slot
    process: P | None = None
    last_used: int = 0


class Slots(Generic[P]):
    """The slots of one player (one worker). `size`: slots kept per (entrant, seat copy)."""

    def __init__(self, size: int, scratch_root: dict[int, str | None]) -> None:
        if size < 1:
            raise ValueError("a slot pool needs at least one slot per entrant")
        self.size = size
        self.scratch_root = scratch_root  # entrant -> its kept scratch folder (None: fresh scratch)
        self.token = secrets.token_hex(4)  # this player's scratch folders are its own
        self.slots: dict[tuple[int, int], list[Slot[P]]] = {}
        self.opened = 0
        self.clock = 0

    def take(self, key: tuple[int, int], deal: int) -> tuple[Slot[P], list[Slot[P]]]:
        """A slot for `key` that has not met `deal`, marked as meeting it; and the slots retired to
        make room (their processes are the caller's to close)."""
        self.clock += 1
        pool = self.slots.setdefault(key, [])
        fits = [s for s in pool if deal not in s.met]
        retired: list[Slot[P]] = []
        if fits:
            slot = max(fits, key=lambda s: (s.process is not None, s.last_used))  # a live process first
        else:
            if len(pool) >= self.size:
                old = min(pool, key=lambda s: s.last_used)
                pool.remove(old)
                retired.append(old)
            slot = self._open(key)
            pool.append(slot)
        if deal in slot.met:
            raise DealMetTwice(f"slot {slot.number} of entrant {key[0]} has met deal {deal}")
        slot.met.add(deal)
        slot.last_used = self.clock
        return slot, retired

    def _open(self, key: tuple[int, int]) -> Slot[P]:
        self.opened += 1
        root = self.scratch_root.get(key[0])
        scratch = None if root is None else os.path.join(root, f"{self.token}-{key[1]}-{self.opened}")
        if scratch is not None and os.path.lexists(scratch):
            shutil.rmtree(scratch, ignore_errors=True)  # a folder of another run: never inherited
        return Slot(key, self.opened, scratch)

    def all(self) -> list[Slot[P]]:
        return [s for pool in self.slots.values() for s in pool]

    def drop(self, entrant: int) -> list[Slot[P]]:
        """Every slot of `entrant`, removed (their processes are the caller's to close, then `discard` each)."""
        out = [s for key, pool in self.slots.items() if key[0] == entrant for s in pool]
        self.slots = {key: pool for key, pool in self.slots.items() if key[0] != entrant}
        return out

    def clear(self) -> list[Slot[P]]:
        """Every slot, removed (their processes are the caller's to close, then `discard` each)."""
        out, self.slots = self.all(), {}
        return out


def discard(slot: Slot[P]) -> None:
    """Delete a retired slot's kept scratch folder: what its processes remembered goes with it."""
    if slot.scratch is not None:
        shutil.rmtree(slot.scratch, ignore_errors=True)
