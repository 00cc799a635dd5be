"""The small shared vocabulary every stage uses, so nothing imports upward: faults and the fault policy
(faults.py), a game's result (result.py) and ranking (ranking.py), the time control (time_control.py) and
its arithmetic (clock.py: deadlines and banks, pure, for the referee that runs the clock and the verifier
that re-checks it), a bot's resource limits (limits.py), and one game of a schedule with the id bots see
(scheduled.py). Imports nothing of arena but errors, jsonvalue, textsafe and rng."""
