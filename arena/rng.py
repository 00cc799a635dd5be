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
from typing import Final, MutableSequence, Sequence, TypeVar

from mypy_extensions import i64

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
        next64() written out in the loop (a deal draws 99 numbers; the calls cost more than the maths).
        Compiled (setup.py), the loop runs on machine words (`_shuffle_words`); the same draws."""
        if COMPILED:
            self.state = _shuffle_words(items, self.state)
            return
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


def _compiled() -> bool:
    return not hasattr(_compiled, "__code__")  # a function mypyc compiled has no Python code object


COMPILED = _compiled()

# SplitMix64's constants as signed 64-bit words (the same bits): 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9,
# 0x94D049BB133111EB, each less 2**64; and the sign bit, 2**63, as a word.
_GAMMA_WORD: Final[i64] = -0x61C8864680B583EB
_MIX1: Final[i64] = -0x40A7B892E31B1A47
_MIX2: Final[i64] = -0x6B2FB644ECCEEE15
_I64_MIN: Final[i64] = -0x8000000000000000


def _shuffle_words(items: MutableSequence[T], start: int) -> int:
    """`Rng.shuffle` on signed 64-bit words (i64), for compiled code only: there + and * wrap modulo
    2**64 as SplitMix64's unsigned arithmetic does, and the unsigned comparison and modulo are written
    out. Interpreted, i64 is a plain int that never wraps, so `shuffle` keeps its int loop there.
    Returns the generator's new state (an unsigned int). `tests/core/test_rng.py` checks it against
    the int loop draw for draw, rejections included."""
    state: i64 = start - (1 << 64) if start >> 63 else start
    for i in range(len(items) - 1, 0, -1):
        n: i64 = i + 1
        top = ((0x7FFFFFFFFFFFFFFF % n) + 1) % n  # 2**63 % n
        limit = (-1 - (2 * top) % n) ^ _I64_MIN  # 2**64 - 1 - 2**64 % n, in the order of unsigned words
        while True:
            state += _GAMMA_WORD
            z = (state ^ ((state >> 30) & 0x3FFFFFFFF)) * _MIX1  # >> 30, 27, 31: logical shifts
            z = (z ^ ((z >> 27) & 0x1FFFFFFFFF)) * _MIX2
            z ^= (z >> 31) & 0x1FFFFFFFF
            if z ^ _I64_MIN <= limit:
                break
        j = z % n if z >= 0 else ((z & 0x7FFFFFFFFFFFFFFF) % n + top) % n  # the unsigned word's remainder
        items[i], items[j] = items[j], items[i]
    return int(state) & _MASK


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
