"""Salted SHA-256 commitments to secret actions.

The referee writes a commitment to the replay the moment an answer arrives, and the action with its
salt only after every seat of the step has answered. Anyone holding the replay can then check that no
recorded action was changed after the fact, and the salt keeps the small action space (a few card
pairs) from being guessed back out of the hash. The functions live with the replay's encoding
(`arena.replay.encoding`), so that what is hashed is exactly what the replay holds.
"""

from __future__ import annotations

from arena.replay.encoding import check_commitment, commitment, new_salt

__all__ = ["check_commitment", "commitment", "new_salt"]
