"""Plays a tournament's games on a Dask cluster (`pip install arena[dask]`).

The coordinator (the `arena run` process) stays where the store is: it schedules, hands games to the
cluster, and commits each result as it comes back, exactly as with local workers, so resume after a
kill, "each game stored once" and standings that do not depend on who played what all hold unchanged.

On each Dask worker a plugin keeps a `GamePlayer` per tournament: the entrants' bot processes stay
alive across the games that worker plays, and are closed when the worker leaves or the run ends. Every
game is played on one long-lived thread that the plugin owns, so a bot's parent thread never changes
(a sandbox's die-with-parent is tied to the thread that started it) and one worker plays one game at a
time whatever its thread count.

Bots' files reach the workers by a shared path: each entrant's command and folder must exist at the
same path on every worker (a network file system, or the same checkout on each machine). Before any
game, the coordinator hashes each entrant's folder and asks every worker to hash its own and to start
each entrant once; a difference or a failed start stops the run with the worker and the entrant named.

A worker that dies mid-game loses only that game's attempt: the scheduler gives the task to another
worker, which plays it again from its seed; the coordinator commits a game only once, when its first
result arrives. A lost scheduler stops the run with one line; a rerun resumes from the store.
"""

from __future__ import annotations

from arena.cluster.spec import ClusterError, ClusterSpec

__all__ = ["ClusterError", "ClusterSpec"]
