"""With one worker per CPU, each worker and the bots it starts run on a CPU of their own (issue 25, goal 1):
a real tournament, whose bots report the CPUs they may run on. Control: `--no-pin`, every bot may run anywhere."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

from arena.results.store import Store

BOT = Path(__file__).parent / "bots" / "affinity_bot.py"
ARENA = str(Path(sys.executable).with_name("arena"))


def cpus_of_each_game(tmp_path: Path, *flags: str) -> tuple[int, list[set[frozenset[int]]]]:
    """Run 4 entrants in 2-player games with one worker per CPU; per game, the CPU sets its bots reported."""
    cpus = sorted(os.sched_getaffinity(0))
    assert len(cpus) >= 2, "this test needs a machine with two CPUs or more"
    store = tmp_path / f"pin{len(flags)}.sqlite"
    config = {
        "game": "kododo", "players": 2, "seed": 1, "fault_policy": "continue",
        "entrants": [{"name": f"bot{i}", "command": ["{python}", str(BOT)]} for i in range(4)],
        "schedule": {"format": "round-robin", "rotations": "none", "rounds": 2},
        "output": {"store": str(store)},
    }
    path = tmp_path / f"pin{len(flags)}.yaml"
    path.write_text(yaml.safe_dump(config))
    done = subprocess.run([ARENA, "run", str(path), "--fresh", "-q", "-j", str(len(cpus)), *flags],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    games = []
    with Store.open_existing(store) as opened:
        for game in opened.games():
            reported = [line for f in game.played.faults for line in f.stderr_tail if line.startswith("cpus=")]
            assert len(reported) == 2, game.played.faults  # each seat's bot crashed, saying where it ran
            games.append({frozenset(int(c) for c in line[5:].split(",")) for line in reported})
    return len(cpus), games


def test_each_worker_and_its_bots_run_on_a_cpu_of_their_own(tmp_path):
    count, games = cpus_of_each_game(tmp_path)
    assert all(len(sets) == 1 and len(next(iter(sets))) == 1 for sets in games), games  # one game, one CPU
    used = {cpu for sets in games for cpu_set in sets for cpu in cpu_set}
    assert len(used) == min(count, len(games)), games  # the workers' CPUs are all different


def test_control_without_pinning_every_bot_may_run_on_every_cpu(tmp_path):
    count, games = cpus_of_each_game(tmp_path, "--no-pin")
    assert all(sets == {frozenset(sorted(os.sched_getaffinity(0)))} for sets in games), games
