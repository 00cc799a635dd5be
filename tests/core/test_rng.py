"""The specified generator: SplitMix64 with known outputs, and a shuffle that is exactly Fisher-Yates
over `below` (a replay re-deals years later from its seed, in any language, so no shortcut may change
a single card)."""

from __future__ import annotations

import os

from hypothesis import given
from hypothesis import strategies as st

from arena.rng import Rng


def test_splitmix64_gives_its_published_first_outputs() -> None:
    rng = Rng(1234567)  # the reference values of SplitMix64 (Vigna's splitmix64.c) for seed 1234567
    assert [rng.next64() for _ in range(3)] == [6457827717110365317, 3203168211198807973, 9817491932198370423]


def _reference_shuffle(rng: Rng, items: list[int]) -> None:
    for i in range(len(items) - 1, 0, -1):
        j = rng.below(i + 1)
        items[i], items[j] = items[j], items[i]


@given(st.integers(min_value=0, max_value=2**64 - 1), st.integers(min_value=0, max_value=130))
def test_the_shuffle_is_fisher_yates_over_below_card_for_card(seed: int, size: int) -> None:
    fast, slow = Rng(seed), Rng(seed)
    a, b = list(range(size)), list(range(size))
    fast.shuffle(a)
    _reference_shuffle(slow, b)
    assert a == b
    assert fast.state == slow.state  # and the generator goes on from the same place


_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15


def _unmix(out: int) -> int:
    """The SplitMix64 state (after its increment) whose output is `out`: the finaliser inverted."""
    def unshift(y: int, k: int) -> int:
        x = y
        for _ in range(64 // k + 1):
            x = y ^ (x >> k)
        return x

    z = unshift(out, 31)
    z = unshift(z * pow(0x94D049BB133111EB, -1, 1 << 64) & _MASK, 27)
    return unshift(z * pow(0xBF58476D1CE4E5B9, -1, 1 << 64) & _MASK, 30)


def test_the_shuffle_rejects_a_draw_above_the_limit_as_below_does() -> None:
    """A draw of 2**64 - 1 for n = 3 lies above below()'s limit (2**64 - 2): it must be drawn again,
    by the compiled word loop as by the int loop (random seeds reach a rejection once in 2**62 draws)."""
    start = (_unmix(_MASK) - _GAMMA) & _MASK
    assert Rng(start).next64() == _MASK  # the control: this state's next draw is the largest word
    fast, slow = Rng(start), Rng(start)
    a, b = [0, 1, 2], [0, 1, 2]
    fast.shuffle(a)
    _reference_shuffle(slow, b)
    assert a == b and fast.state == slow.state
    assert fast.state == (start + 3 * _GAMMA) & _MASK  # three draws for two swaps: one was rejected


def test_compiled_the_shuffle_runs_on_machine_words() -> None:
    from arena import rng

    assert rng.COMPILED == (not os.environ.get("ARENA_PURE"))  # else the word loop above was not tested
