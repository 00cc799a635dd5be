"""Pure parts of the referee: line splitting, clocks, commitments, the fault policy."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from arena.referee.pipe import LineReader
from arena.core.clock import SeatClock
from arena.core.time_control import TimeControl
from arena.replay.encoding import check_commitment, commitment, new_salt
from arena.core.faults import FaultPolicy
from arena.referee.referee import apply_policy

LIMIT = 16


def expected_lines(stream: bytes) -> list[bytes | None]:
    *lines, _rest = stream.split(b"\n")
    return [line if len(line) <= LIMIT else None for line in lines]


@given(
    st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=8),
    st.lists(st.integers(min_value=1, max_value=30), max_size=30),
    st.binary(max_size=20).map(lambda b: b.replace(b"\n", b"")),
)
def test_line_reader_gives_the_same_lines_however_the_stream_is_cut(lines, cuts, tail):
    stream = b"".join(line + b"\n" for line in lines) + tail
    reader = LineReader(LIMIT)
    got: list[bytes | None] = []
    pos = 0
    for size in cuts + [len(stream)]:
        chunk = stream[pos : pos + size]
        pos += size
        if chunk:
            got.extend(reader.feed(chunk))
        assert len(reader.buf) <= LIMIT  # never more than the limit held
    # An over-long line is reported as soon as it is known, so the unfinished tail may add one None.
    want = expected_lines(stream)
    if len(tail) > LIMIT:
        want.append(None)
    assert got == want


def test_line_reader_drops_the_rest_of_a_long_line_then_resumes():
    reader = LineReader(LIMIT)
    assert reader.feed(b"x" * 20) == [None]
    assert reader.feed(b"y" * 1000) == []
    assert reader.feed(b'yyy\n{"id":1}\n') == [b'{"id":1}']


def test_clock_without_bank_allows_the_decision_limit_every_time():
    clock = SeatClock.new(TimeControl(decision_ms=300))
    clock.charge(5000)
    assert clock.allowance_ms() == 300
    assert clock.report() == {"remaining_ms": 300, "decision_ms": 300, "bank_ms": None, "increment_ms": 0}


def test_clock_bank_is_charged_and_incremented():
    clock = SeatClock.new(TimeControl(decision_ms=1000, bank_ms=1500, increment_ms=100))
    assert clock.allowance_ms() == 1000
    clock.charge(800)
    assert clock.bank_ms == 800  # 1500 - 800 + 100
    assert clock.allowance_ms() == 800
    clock.charge(5000)  # a time-out costs at most what was allowed
    assert clock.bank_ms == 100
    assert clock.report()["remaining_ms"] == 100


@given(st.integers(1, 5000), st.integers(0, 5000), st.integers(0, 500), st.lists(st.floats(0, 10_000), max_size=20))
def test_clock_bank_never_negative_and_allowance_never_above_the_limit(decision, bank, inc, uses):
    clock = SeatClock.new(TimeControl(decision_ms=decision, bank_ms=bank, increment_ms=inc))
    for used in uses:
        assert 0 <= clock.allowance_ms() <= decision
        clock.charge(used)
        assert clock.bank_ms is not None and clock.bank_ms >= 0


def test_commitment_binds_salt_step_seat_and_action():
    salt = new_salt()
    digest = commitment(salt, 3, 1, ["G3", "B1"])
    assert check_commitment(digest, salt, 3, 1, ["G3", "B1"])
    assert not check_commitment(digest, salt, 3, 1, ["B1", "G3"])
    assert not check_commitment(digest, salt, 3, 2, ["G3", "B1"])
    assert not check_commitment(digest, salt, 4, 1, ["G3", "B1"])
    assert not check_commitment(digest, new_salt(), 3, 1, ["G3", "B1"])


def test_forfeit_ranks_faulty_seats_last_sharing_last_place():
    assert apply_policy((1, 2, 3, 4), {0}, FaultPolicy.FORFEIT) == (4, 1, 2, 3)
    assert apply_policy((1, 2, 2, 4), {0, 3}, FaultPolicy.FORFEIT) == (3, 1, 1, 3)
    assert apply_policy((1, 2, 3), {0, 1, 2}, FaultPolicy.FORFEIT) == (1, 1, 1)
    assert apply_policy((1, 2, 3), {0}, FaultPolicy.CONTINUE) == (1, 2, 3)
    assert apply_policy((2, 1), set(), FaultPolicy.FORFEIT) == (2, 1)


def test_the_poller_hands_back_the_data_of_ready_fds_with_the_selectors_rules() -> None:
    """`pipe.Poller` keeps what the referee used of `selectors`: the data of each ready fd, KeyError on a
    second register or on unregistering an fd it does not watch, and a wait of 0 that does not block."""
    import os
    import time

    import pytest

    from arena.referee.pipe import READ, Poller

    r1, w1 = os.pipe()
    r2, w2 = os.pipe()
    poller = Poller()
    try:
        poller.register(r1, READ, ("one", 0))
        poller.register(r2, READ, ("two", 0))
        with pytest.raises(KeyError):
            poller.register(r1, READ, ("again", 0))
        assert poller.ready(0.0) == []
        os.write(w2, b"x")
        assert poller.ready(0.0) == [("two", 0)]
        started = time.monotonic()
        os.write(w1, b"y")
        assert sorted(poller.ready(1.0)) == [("one", 0), ("two", 0)]
        assert time.monotonic() - started < 0.5  # returned when ready, not at the timeout
        poller.unregister(r2)
        assert poller.ready(0.0) == [("one", 0)]
        with pytest.raises(KeyError):
            poller.unregister(r2)
        started = time.monotonic()
        os.read(r1, 1)
        assert poller.ready(0.05) == [] and time.monotonic() - started >= 0.045  # waited for the timeout
    finally:
        poller.close()
        for fd in (r1, w1, r2, w2):
            os.close(fd)
