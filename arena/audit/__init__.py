"""The game's afterlife: what is done with a replay once the game is over.

Verification (`verify.py`, re-simulating a replay and checking its header, answers, commitments and
clock: `verify_header.py`, `verify_answers.py`, `verify_clock.py`), a branch checked against its
original (`verify_branch.py`), a tournament replay against the organiser's store (`verify_store.py`),
a server's signed results (`signing.py`), and branching a game (`branch.py`, plans a new game from a
replay's step; `recorded_bot.py`, the bot that plays a seat's recorded actions).

The checks import no live referee and no server (import-linter contracts in pyproject.toml), so
`arena verify` loads neither; only `branch.py`, which starts a new live game, names the referee's types.
"""
