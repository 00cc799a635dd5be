"""Stopping a run early, after a complete round: the round gate that holds later rounds back while a stop
rule may still say stop (rounds.py), and the config's `stop:` rule as that gate's hook, with the record of
its decision (stopping.py)."""
