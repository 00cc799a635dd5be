"""Reaching a Dask cluster: the optional extra imported, a scheduler's address connected to or a
LocalCluster started (its workers leave, closing their bots, when the coordinator is gone)."""

from __future__ import annotations

from typing import Any

from arena.tournament.config.cluster import ClusterError, ClusterSpec

LOST_AFTER_S = 20.0  # a scheduler out of reach this long ends the run


def import_distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise ClusterError(
            "the Dask executor needs the optional extra: pip install 'arena[dask]' (or pip install distributed)"
        ) from None
    return distributed


def connect(spec: ClusterSpec, dd: Any) -> tuple[Any, Any]:
    """(the LocalCluster started here or None, a client). A LocalCluster's scheduler allows no failure:
    a game whose worker died is given back to the coordinator at once."""
    if spec.local_workers is None:
        return None, dd.Client(spec.address, timeout=f"{LOST_AFTER_S}s")
    import dask

    dask.config.set({"distributed.scheduler.allowed-failures": 0})
    cluster = dd.LocalCluster(n_workers=spec.local_workers, threads_per_worker=1, processes=True,
                              dashboard_address=None, death_timeout=LOST_AFTER_S)
    try:
        return cluster, dd.Client(cluster)
    except BaseException:
        cluster.close()
        raise
