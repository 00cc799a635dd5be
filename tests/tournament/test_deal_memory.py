"""No bot process meets a deal twice (issue 21, item 2): duplicate deals cannot leak through memory.

The attack is a real bot (`bots/deal_memory_bot.py`) that remembers its hand and claims the seat it
left holds that hand in its next game; each claim is checked against the game's real deal.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from arena.games.registry import get_game
from arena.tournament.config import tournament as tconfig
from arena.tournament.schedule import plan as sched
from arena.tournament.run.runner import run
from arena.tournament.run import player as player_module
from arena.tournament.run.slots import Slot, Slots, discard
from arena.results.store import Store

BOTS = Path(__file__).parent / "bots"
CLAIM = re.compile(r"CLAIM seat=(\d+) hand=(\[.*\])")


def memory_config(tmp_path: Path, *, scratch: str = "fresh", restart: bool = False, rounds: int = 3) -> tconfig.TournamentConfig:
    data: dict[str, Any] = {
        "name": "leak",
        "game": "kododo",
        "players": 2,
        "entrants": [
            {"name": "memory", "command": ["{python}", str(BOTS / "deal_memory_bot.py")], "sandbox": {"shared_folder": True}},
            {"name": "det", "command": ["{python}", str(BOTS / "det_bot.py")], "sandbox": {"shared_folder": True}},
        ],
        "schedule": {"rotations": "cyclic", "deals": "shared", "rounds": rounds},  # an entrant on each deal twice
        "seed": 7,
        "restart_bots": restart,
        "sandbox": {"scratch": scratch},  # per entrant above: both test bots lie in one folder
        "output": {"store": str(tmp_path / "leak.sqlite")},
    }
    return tconfig.parse(data, tmp_path / "leak.yaml")


def true_claims(config: tconfig.TournamentConfig) -> tuple[int, int]:
    """(claims made, claims that named another seat's real hand) over the stored games."""
    spec = get_game("kododo")
    made = right = 0
    with Store.open_existing(config.store) as store:
        for game in store.games():
            for fault in game.played.faults:
                for line in fault.stderr_tail:
                    m = CLAIM.search(str(line))
                    if m is None:
                        continue
                    made += 1
                    seat, hand = int(m.group(1)), json.loads(m.group(2))
                    state = spec.new_game(2, {}, game.seed)
                    if seat != fault.seat and sorted(state.view(seat)["hand"]) == hand:
                        right += 1
    return made, right


@pytest.mark.process
@pytest.mark.parametrize("scratch", ["fresh", "keep"])
def test_a_bot_with_memory_never_meets_a_deal_twice(tmp_path, scratch):
    config = memory_config(tmp_path, scratch=scratch)
    summary = run(config, concurrency=1, quiet=True)
    assert summary.played == 6
    made, right = true_claims(config)
    assert right == 0, f"{right} of {made} claims named an opponent's real hand: a process met a deal twice"


def one_process_per_entrant(self, key, deal):
    """The old way, as a control: one process per entrant and seat copy, and one kept scratch folder
    per entrant, shared by its copies and kept whatever happens to its processes."""
    pool = self.slots.setdefault(key, [])
    if not pool:
        pool.append(Slot(key, 0, self.scratch_root.get(key[0])))
    return pool[0], []


@pytest.mark.process
@pytest.mark.parametrize("scratch,restart", [("fresh", False), ("keep", False), ("keep", True)])
def test_control_with_one_process_per_entrant_the_memory_bot_knows_its_opponents_hand(tmp_path, monkeypatch, scratch, restart):
    monkeypatch.setattr(Slots, "take", one_process_per_entrant)
    monkeypatch.setattr(player_module, "discard", lambda slot: None)
    config = memory_config(tmp_path, scratch=scratch, restart=restart)
    run(config, concurrency=1, quiet=True)
    made, right = true_claims(config)
    assert right >= 2, f"the attack should succeed without the protection: {right} of {made} claims right"


def schedule_of(**spec_args: Any) -> list[sched.ScheduledGame]:
    return sched.build(sched.ScheduleSpec(**spec_args))


SCHEDULES = {
    "cyclic": dict(entrants=4, seats=4, rounds=3),
    "cyclic-shared": dict(entrants=4, seats=4, rounds=3, deals=sched.Deals.SHARED),
    "all-shared": dict(entrants=3, seats=3, rounds=2, rotations=sched.Rotations.ALL, deals=sched.Deals.SHARED),
    "spread-big": dict(entrants=7, seats=3, rounds=2),
    "all": dict(entrants=3, seats=3, rounds=2, rotations=sched.Rotations.ALL),
    "neighbours": dict(entrants=5, seats=4, rotations=sched.Rotations.NEIGHBOURS),
    "fill-cycle": dict(entrants=2, seats=3, rounds=2, fill=sched.Fill.CYCLE),
    "gauntlet": dict(entrants=5, seats=3, rounds=2, format=sched.Format.GAUNTLET, candidates=(0, 1)),
}


@pytest.mark.parametrize("name", sorted(SCHEDULES))
@pytest.mark.parametrize("workers", [1, 2, 3])
def test_no_slot_ever_meets_a_deal_twice_whatever_the_schedule_or_workers(name, workers):
    games = schedule_of(**SCHEDULES[name])
    players = [Slots[object](games[0].seats.__len__(), {}) for _ in range(workers)]
    met: dict[tuple[int, int], list[int]] = {}
    for i, game in enumerate(games):  # shared out in turn, as a pool does
        slots = players[i % workers]
        copies: dict[int, int] = {}
        used = []
        for entrant in game.seats:
            copy = copies.get(entrant, 0)
            copies[entrant] = copy + 1
            slot, _ = slots.take((entrant, copy), game.seed)
            used.append((i % workers, slot.number))
            met.setdefault((i % workers, slot.number), []).append(game.seed)
        assert len(set(used)) == len(used), "two seats of one game on one process"
    for deals in met.values():
        assert len(deals) == len(set(deals)), "a slot met a deal twice"


@pytest.mark.parametrize(("deals", "opened"), [(sched.Deals.SHARED, 16), (sched.Deals.SPREAD, 4)])
def test_cyclic_rotations_need_one_process_per_rotation_not_one_per_game(deals, opened):
    """Shared deals: 4 entrants x 4 rotations, then every later table reuses them. Spread deals: no
    entrant meets a deal twice, so one process each does."""
    games = schedule_of(entrants=4, seats=4, rounds=10, deals=deals)
    slots = Slots[object](4, {})
    for game in games:
        for entrant in game.seats:
            slots.take((entrant, 0), game.seed)
    assert slots.opened == opened


def test_kept_scratch_folders_are_one_per_slot_and_deleted_with_it(tmp_path):
    slots = Slots[object](2, {0: str(tmp_path / "e0")})
    a, _ = slots.take((0, 0), 1)
    b, _ = slots.take((0, 0), 1)  # the same deal again: another slot, another folder
    c, retired = slots.take((0, 0), 1)  # a third time: beyond the size, the oldest is retired
    assert len({a.scratch, b.scratch, c.scratch}) == 3 and retired == [a]
    for s in (a, b, c):
        Path(str(s.scratch)).mkdir(parents=True)
    discard(a)
    assert not Path(str(a.scratch)).exists() and Path(str(b.scratch)).exists()
