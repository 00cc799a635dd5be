"""Isolation of bot processes with bubblewrap: policy (what a bot may do), probe (what this machine
offers), bwrap (the command line), limits (cgroups and rlimits), launch (one sandboxed start)."""
