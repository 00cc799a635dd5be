"""The small shared vocabulary every stage uses, so nothing imports upward: faults and the fault policy
(faults.py), a game's result (result.py) and ranking (ranking.py), the time control (time_control.py) and
a bot's resource limits (limits.py). Imports nothing of arena but errors, jsonvalue and textsafe."""
