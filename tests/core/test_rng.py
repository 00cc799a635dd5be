"""The specified generator: SplitMix64 with known outputs, and a shuffle that is exactly Fisher-Yates
over `below` (a replay re-deals years later from its seed, in any language, so no shortcut may change
a single card)."""

from __future__ import annotations

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
