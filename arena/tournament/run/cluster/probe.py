"""Before any game of a run on Dask: each worker checks its bot cache and starts every entrant once.

A worker whose cache cannot be used plays nothing (said in one line, the others go on), a worker lacking
an entrant's runtime is given none of that entrant's games (named), and an entrant that does not start
on a worker, or that no worker can run, stops the run, named.
"""

from __future__ import annotations

from typing import Any, Callable

from arena.tournament.config.cluster import ClusterError

CACHE_PROBLEM = "(cache)"  # the key under which a worker's probe reports a cache it cannot use


def probe_workers(client: Any, probe_task: Callable[..., dict[str, str]], key: str, setup_data: Any, archives: dict[str, Any], names: list[str],
                  say: Callable[[str], None]) -> tuple[set[str], dict[int, tuple[str, ...]] | None]:
    """(the workers that play nothing, entrant index -> the workers that may seat it, or None when any may).
    `probe_task`: what each worker runs (`dask_worker.probe_task`): entrant name or CACHE_PROBLEM -> problem."""
    workers = sorted(client.scheduler_info().get("workers", {}))
    probes = {w: client.submit(probe_task, key, setup_data, archives, key=f"{key}-probe-{i}",
                               workers=[w], allow_other_workers=False, pure=False) for i, w in enumerate(workers)}
    answers: dict[str, dict[str, str]] = dict(zip(probes, client.gather(list(probes.values()))))
    allowed: dict[int, list[str]] = {i: [] for i in range(len(names))}
    excluded: set[str] = set()
    lines = []
    for worker, problems in sorted(answers.items()):
        if CACHE_PROBLEM in problems:
            excluded.add(worker)
            say(f"arena: Dask worker {worker} plays no games: {problems[CACHE_PROBLEM]}")
            continue
        for i, name in enumerate(names):
            problem = problems.get(name)
            if problem is None:
                allowed[i].append(worker)
            elif problem.startswith("runtime missing"):
                say(f"arena: Dask worker {worker} plays no game of entrant {name!r}: {problem}")
            else:
                lines.append(f"worker {worker}: entrant {name!r}: {problem}")
    lines += [f"entrant {names[i]!r}: no worker of the cluster can run it" for i, ws in allowed.items() if not ws and not lines]
    if len(excluded) == len(workers):
        lines.append("no worker of the cluster can keep bots (see the lines above)")
    if lines:
        raise ClusterError("entrants cannot play on every worker of the cluster:\n  " + "\n  ".join(lines))
    if any(len(ws) < len(workers) for ws in allowed.values()):
        return excluded, {i: tuple(ws) for i, ws in allowed.items()}
    return excluded, None
