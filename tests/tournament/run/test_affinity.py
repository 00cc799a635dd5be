"""When `arena run` pins each worker and its bots to one CPU (`affinity.worker_cpus`): only where no bot
can lose CPU by it. The real processes' CPUs are checked in tests/sandbox/test_affinity.py."""

from __future__ import annotations

import os

from arena.sandbox.policy import SandboxPolicy
from arena.tournament.config.entrants import EntrantConfig
from arena.tournament.run.affinity import pin, worker_cpus


def entrant(**sandbox: object) -> EntrantConfig:
    return EntrantConfig("bot", ("bot",), ".", sandbox=SandboxPolicy(**sandbox))  # type: ignore[arg-type]


BOUNDED = [entrant(), entrant(cpus=0.5)]


def test_one_worker_per_cpu_each_on_its_own():
    assert worker_cpus(2, BOUNDED, (0, 1)) == (0, 1)
    assert worker_cpus(3, BOUNDED, (2, 5, 7)) == (2, 5, 7)  # the CPUs this process may use, not 0..n-1


def test_a_multiple_of_the_cpus_shares_them_out_evenly():
    assert worker_cpus(4, BOUNDED, (0, 1)) == (0, 1, 0, 1)


def test_fewer_workers_than_cpus_or_an_uneven_share_is_not_pinned():
    assert worker_cpus(1, BOUNDED, (0, 1)) is None  # the game's bots may use the CPU no worker has
    assert worker_cpus(3, BOUNDED, (0, 1)) is None  # one CPU would play twice the games of the other
    assert worker_cpus(2, BOUNDED, ()) is None


def test_a_bot_that_may_use_more_than_one_cpu_keeps_them_all():
    assert worker_cpus(2, [*BOUNDED, entrant(cpus=2)], (0, 1)) is None
    assert worker_cpus(2, [*BOUNDED, entrant(cpus=None)], (0, 1)) is None  # unbounded
    assert worker_cpus(2, [*BOUNDED, entrant(enabled=False)], (0, 1)) is None  # outside the sandbox: nothing bounds it


def test_a_cpu_the_system_refuses_leaves_the_worker_unpinned():
    before = os.sched_getaffinity(0)
    pin(10**6)  # no such CPU: the run goes on, unpinned
    assert os.sched_getaffinity(0) == before
