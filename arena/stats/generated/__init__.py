# GENERATED code lives in this folder: every module here is written by a generator, never by hand.
"""Generated modules: the TrueSkill chains (`chains.py`, compiled by mypyc) and the runs numba compiles
(`runs.py`), written by `python -m arena.stats.chain_source --write` (its freshness is checked by the fast
tier: tests/stats/test_generated.py). Edit `arena/stats/chain_source.py`, then regenerate."""
