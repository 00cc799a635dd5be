"""How bots reach the machines of a cluster without a shared folder: packed by content hash on the
coordinator (`bundles`), fetched through Dask and kept in each worker's bounded cache (`botcache`)."""
