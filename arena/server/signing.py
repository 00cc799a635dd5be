"""The replay signer moved to `arena.audit.signing` (signing and checking a result is the game's afterlife,
which `arena verify` needs without the server); re-exported here for the server's existing imports."""

from arena.audit.signing import (FORMAT, SUFFIX, SignedCheck, check, load_or_create_key, public_pem, read_public_key,
                                 sign_replay)

__all__ = ["FORMAT", "SUFFIX", "SignedCheck", "check", "load_or_create_key", "public_pem", "read_public_key",
           "sign_replay"]
