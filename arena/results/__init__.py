"""A tournament's stored results: the SQLite store (store.py), its records and schema (stored.py),
reusing games after a config change (reindex.py) and the one-run-at-a-time lock (lock.py).
Knows nothing of ratings: arena.stats reads the store."""
