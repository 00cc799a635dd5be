"""The human seat's state on a fake clock: what a person may choose, what is refused, and when the seat
counts as left. No process, no socket: `HumanTable` is driven as the seat process drives it."""

from __future__ import annotations

from typing import Any

from arena.human.table import PRESENCE_S, HumanTable
from arena.jsonvalue import loads


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def request(rid: int, step: int, legal: list[Any], remaining_ms: int = 10_000, events: list[Any] | None = None) -> dict[str, Any]:
    return {"type": "request", "id": rid, "step": step, "view": {"hand": ["B2"], "seat": 0}, "legal": legal,
            "clock": {"remaining_ms": remaining_ms}, "events": events or []}


def table() -> tuple[HumanTable, FakeClock]:
    clock = FakeClock()
    t = HumanTable("human", clock)
    assert loads(t.receive({"type": "hello", "protocol": 1}) or b"")["type"] == "hello"
    t.receive({"type": "start", "game": "kododo", "game_id": "g", "seat": 0, "players": ["human", "bot"]})
    return t, clock


def test_a_choice_becomes_the_seats_answer_line_once() -> None:
    t, _ = table()
    t.receive(request(5, 0, [["B2"], ["B5"]]))
    outcome = t.choose(5, 1)
    assert outcome.accepted and loads(outcome.line or b"") == {"type": "answer", "id": 5, "action": ["B5"]}
    double = t.choose(5, 1)  # the double click
    assert not double.accepted and "already answered" in double.message


def test_a_choice_for_a_step_already_past_is_refused_and_the_current_request_is_untouched() -> None:
    t, _ = table()
    t.receive(request(5, 0, [["B2"], ["B5"]]))
    assert t.choose(5, 0).accepted
    t.receive(request(6, 1, [["G1"], ["O2"]]))
    stale = t.choose(5, 0)
    assert not stale.accepted and "step 0 is already answered" in stale.message
    assert t.snapshot()["request_id"] == 6 and t.snapshot()["legal"] == [["G1"], ["O2"]]
    assert t.choose(6, 0).accepted  # the current request still takes its answer


def test_forged_choices_are_refused() -> None:
    t, _ = table()
    t.receive(request(5, 0, [["B2"], ["B5"]]))
    for rid, index in [(4, 0), (99, 0), (5, 2), (5, -1), ("5", 0), (5, "0"), (5, True), (5, 0.0), (None, None)]:
        outcome = t.choose(rid, index)
        assert not outcome.accepted, (rid, index)
        assert outcome.message.startswith("refused:")
    # Control: the same table takes the honest choice, so the refusals above were the checks at work.
    assert t.choose(5, 0).accepted


def test_nothing_is_accepted_before_a_request_or_after_the_end() -> None:
    t, _ = table()
    assert "nothing is asked" in t.choose(1, 0).message
    t.receive(request(1, 0, [1, 2]))
    t.receive({"type": "end", "events": [{"kind": "final"}], "result": {"points": [1, 2], "ranks": [2, 1]}})
    assert "game is over" in t.choose(1, 0).message
    snap = t.snapshot()
    assert snap["phase"] == "over" and snap["result"] == {"points": [1, 2], "ranks": [2, 1]}


def test_a_reloaded_page_gets_the_pending_request_back() -> None:
    t, clock = table()
    t.receive(request(7, 3, [["B2"]], remaining_ms=60_000, events=[{"kind": "reveal", "cards": []}]))
    first = t.watch(-1, timeout=0)
    clock.now += 20
    again = t.watch(-1, timeout=0)  # a new page knows no version: it gets the whole state at once
    assert again["request_id"] == first["request_id"] == 7 and again["legal"] == [["B2"]]
    assert again["events"] == [{"at_step": 3, "kind": "reveal", "cards": []}]
    assert again["remaining_ms"] == 40_000  # the clock kept running while the page was away


def test_the_seat_is_left_only_when_nobody_watches_as_the_clock_runs_out() -> None:
    t, clock = table()
    t.receive(request(1, 0, [1], remaining_ms=10_000))
    clock.now += 8.9
    t.watch(-1, timeout=0)  # a page is there near the end of the clock
    clock.now += 1.0
    assert not t.abandoned()  # seen within PRESENCE_S: the clock runs out on a person thinking (a timeout, not a crash)
    t2, clock2 = table()
    t2.receive(request(1, 0, [1], remaining_ms=10_000))
    t2.watch(-1, timeout=0)  # a page looked at it, then was closed
    clock2.now += 8.9
    assert not t2.abandoned()  # nobody watching, but the clock has not run out (less its 1 s margin)
    clock2.now += 0.2
    assert t2.abandoned()  # the page is gone as the clock runs out: the person left
    assert t2.choose(1, 0).accepted and not t2.abandoned()  # answered: nothing is pending
    assert PRESENCE_S < 8.9


def test_events_kept_are_bounded() -> None:
    t, _ = table()
    t.receive(request(1, 0, [1], events=[{"kind": "x", "n": i} for i in range(1000)]))
    snap = t.snapshot()
    assert len(snap["events"]) == 300 and snap["events_dropped"] == 700 and snap["events"][-1]["n"] == 999
