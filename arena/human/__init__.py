"""A human seat: a person plays one seat of a game, and to the referee that seat is a bot like any other.

The seat is a real bot process (`python -m arena.human.seat`, started by `arena play --human SEAT`): it
speaks the protocol on its stdin and stdout (hello, start, request, answer, end, shutdown), so the
referee gives it the same clocks, faults, replay and audit as every bot, with no code of its own. Inside,
the process keeps the seat's state (`arena.human.table`) and serves it on 127.0.0.1 (a random port, a
per-game random secret in the URL) to a page (`arena.human.page`) or a terminal (`arena.human.tui`).
"""
