"""A small, specified random number generator, and seed derivation.

`random.Random` is not promised to give the same shuffles across Python versions, and a replay must
re-simulate years later on another machine. SplitMix64 (Steele, Lea and Flood, 2014) is tiny, passes
BigCrush, and is easy to reimplement in any language, so a game's randomness is fully specified by
its seed.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import MutableSequence, Sequence, TypeVar

T = TypeVar("T")

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15


class Rng:
    """SplitMix64. `state` is a plain int so a game state can copy or serialise it."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK

    def next64(self) -> int:
        self.state = s = (self.state + _GAMMA) & _MASK
        z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in [0, n), by rejection so that no value is favoured."""
        if n <= 0:
            raise ValueError("below() needs n >= 1")
        limit = _MASK - (_MASK + 1) % n
        while True:
            x = self.next64()
            if x <= limit:
                return x % n

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher-Yates, from the end, in place: `j = self.below(i + 1)` for each i, with below() and
        next64() written out in the loop (a deal draws 99 numbers; the calls cost more than the maths)."""
        state = self.state
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            limit = _MASK - (_MASK + 1) % n
            while True:
                state = (state + _GAMMA) & _MASK
                z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
                z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
                z ^= z >> 31
                if z <= limit:
                    break
            j = z % n
            items[i], items[j] = items[j], items[i]
        self.state = state

    def fork(self, *labels: object) -> "Rng":
        """An independent generator for a sub-purpose, derived from this one's current state."""
        return Rng(derive_seed(self.state, *labels))


def bot_seed(seed: int, seat: int) -> int:
    """The seed a bot gets as ARENA_SEED in its environment: derived from the game's seed and its seat."""
    return derive_seed(seed, "bot", seat)


def derive_seed(master: int, *labels: object) -> int:
    """A 63-bit seed for the thing named by `labels` under `master` (e.g. a game's place in a schedule).

    Hashing makes nearby masters and labels give unrelated seeds; 63 bits keep it a positive int in
    every language's JSON.
    """
    text = repr((int(master),) + tuple(str(label) for label in labels)).encode("utf-8")
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") >> 1


# --- secrets: what no bot may derive ---------------------------------------------------------------

SECRET_BYTES = 16  # a tournament's secret: 128 random bits, hex-encoded


def new_secret() -> str:
    """A fresh tournament secret (hex), from the operating system's randomness."""
    return secrets.token_hex(SECRET_BYTES)


def random_seed() -> int:
    """A 63-bit seed from the operating system's randomness: no bot can try them all."""
    return secrets.randbits(63)


def keyed_seed(secret: str, *labels: object) -> int:
    """A 63-bit seed for `labels` under a secret key (HMAC-SHA-256): without the secret, knowing the
    labels (a schedule's public seed, a game's index) tells nothing about the result."""
    text = repr(tuple(str(label) for label in labels)).encode("utf-8")
    return int.from_bytes(hmac.digest(secret.encode("utf-8"), text, "sha256")[:8], "big") >> 1


def opaque_game_id(game: str, value: int | None = None) -> str:
    """A game id that says nothing but the game: `<game>-<16 hex digits>`, random unless `value` (a
    keyed seed) is given. Every game id a bot sees has this shape: `arena play`, tournaments, check-bot."""
    number = secrets.randbits(64) if value is None else value & ((1 << 64) - 1)
    return f"{game}-{number:016x}"
