"""Running a tournament: the runner (runner.py), the executor seam (executor.py) with the local pool
and its worker (local_pool.py, local_worker.py) and the Dask pool and worker (dask_pool.py,
dask_worker.py); a game player (player.py), their messages (messages.py), progress lines (progress.py),
signals (signals.py), and stopping early after a complete round (stop/)."""
