"""The schedule of a tournament's games (plan.py) and the balanced seating (seating.py). Pure: no I/O,
and no numpy or trueskill."""
