"""One forgery per check of `arena.audit.verify`: removing any one check makes a test here fail.

(Found by deleting each `raise self.fail(...)` in turn and running the suite; see the report of
issue 11.) Each test doctors a real replay so that exactly that check is the first to object.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.core.time_control import TimeControl
from arena.errors import IllegalAction
from arena.games.kododo.state import KododoState
from arena.replay import load_replay
from arena.replay.encoding import commitment

from tests.support.replays import SALT, branch_of, fault, first_of_step, index, is_bot, records, rejected
from tests.support.patchable import patchable_kododo


# --- the header ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "change, message",
    [
        ({"protocol": 2}, r"line 1: 'protocol': 2, this arena speaks protocol 1"),
        ({"game": "chess"}, r"line 1: .*chess"),
        ({"game_version": "0.9"}, r"line 1: recorded with kododo version '0.9'"),
        ({"options": {"long": False, "max_deals": 20, "target": 50, "zz": 1}}, r"line 1: 'options': .*no option 'zz'"),
        ({"options": {"long": False, "target": 50}}, r"line 1: 'options': .* must list every option of kododo"),
        ({"time_control": {**TimeControl().to_json(), "zz": 1}},
         r"line 1: 'time_control' is not a time control of replay format 3: .*; unknown zz$"),
        ({"time_control": {"decision_ms": 1000, "bank_ms": None, "increment_ms": 0}},
         r"line 1: 'time_control' is not a time control of replay format 3: .*; missing startup_ms, shutdown_ms, game_ms$"),
        ({"format": 2}, r"line 1: 'time_control' is not a time control of replay format 2: .*; unknown game_ms, shutdown_ms$"),
    ],
)
def test_a_header_that_cannot_recreate_the_game_is_refused(games: dict[str, Path], tmp_path: Path, change: dict[str, Any], message: str) -> None:
    recs = records(games["clean"])
    recs[0].update(change)
    rejected(tmp_path, recs, message)


# --- steps and faults ----------------------------------------------------------------------------


def test_a_record_after_the_game_ended_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    recs.insert(len(recs) - 1, fault(0, 99))
    rejected(tmp_path, recs, r"a fault record after the game ended")


def test_a_step_without_its_events_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    del recs[len(recs) - 2]  # the last events record
    rejected(tmp_path, recs, r"step \d+ has records but no events record \(the replay is cut short\)")


@pytest.mark.parametrize(
    "seat, step, at, message",
    [
        (7, 3, 3, r"a fault of seat 7, in a game of 3 seats"),
        (0, -1, 3, r"a fault of step -1 \(before the game\) after the game began"),
        (0, 2, 3, r"a fault of step 2 recorded during step 3"),
    ],
)
def test_a_fault_out_of_place_is_refused(games: dict[str, Path], tmp_path: Path, seat: int, step: int, at: int, message: str) -> None:
    recs = records(games["clean"])
    recs.insert(first_of_step(recs, at), fault(seat, step))
    rejected(tmp_path, recs, message)


def test_a_fault_in_the_recorded_part_of_a_branch_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = branch_of(games["clean"], 4)
    recs.insert(first_of_step(recs, 2), fault(0, 2, "unexpected_answer"))
    rejected(tmp_path, recs, r"a fault at step 2, which was recorded from the original game")


def test_a_fault_among_the_decisions_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["faults"])
    i = index(recs, lambda r: r["type"] == "fault" and r["kind"] == "illegal_action")
    moved = recs.pop(i)
    recs.insert(i + 1, moved)  # after the step's first decision
    rejected(tmp_path, recs, r"a fault written among the step's decisions")


def test_a_second_fault_taking_a_bot_out_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["faults"])
    crash = next(r for r in recs if r["type"] == "fault" and r["kind"] == "crash")
    recs.insert(first_of_step(recs, crash["step"] + 2), fault(crash["seat"], crash["step"] + 2, "flood"))
    rejected(tmp_path, recs, rf"a second fault that takes seat {crash['seat']}'s bot out of the game")


def test_a_fault_for_a_seat_that_does_not_decide_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["kolpa"])
    i = index(recs, lambda r: is_bot(r) and r["seat"] == 0, 2)
    step = recs[i]["step"]
    recs.insert(first_of_step(recs, step), fault(1, step, "timeout", 5))
    rejected(tmp_path, recs, r"a timeout fault of seat 1 for request 5, but that request's decision is not a fallback")


def test_a_second_fault_for_one_request_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["timeout"])
    i = index(recs, lambda r: r["type"] == "fault" and r["kind"] == "timeout")
    recs.insert(i + 1, dict(recs[i], kind="malformed_json"))
    rejected(tmp_path, recs, r"a second fault for request \d+ of seat 1")


# --- commitments ---------------------------------------------------------------------------------


def test_a_commitment_of_a_seat_that_does_not_decide_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["kolpa"])
    i = index(recs, lambda r: r["type"] == "commit" and r["seat"] == 0, 3)
    recs.insert(i, dict(recs[i], seat=1))
    rejected(tmp_path, recs, r"a commitment of seat 1, which does not decide at step \d+")


def test_a_commitment_after_the_answers_were_judged_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["faults"])
    i = index(recs, lambda r: r["type"] == "fault" and r["kind"] == "illegal_action")
    commit = recs.pop(i - 1)
    recs.insert(i, commit)
    rejected(tmp_path, recs, r"a commitment written after the step's answers were judged")


def test_a_commitment_of_a_bot_out_of_the_game_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["faults"])
    crash = next(r for r in recs if r["type"] == "fault" and r["kind"] == "crash")
    step = crash["step"] + 2
    recs.insert(first_of_step(recs, step), {"type": "commit", "step": step, "seat": crash["seat"], "id": 50,
                                            "commitment": "a" * 64})
    rejected(tmp_path, recs, rf"a commitment of seat {crash['seat']}, whose bot was out of the game since step")


def test_a_bot_answer_committed_after_its_crash_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["faults"])
    crash_at = index(recs, lambda r: r["type"] == "fault" and r["kind"] == "crash")
    crash = recs[crash_at]
    i = index(recs, lambda r: r["type"] == "decision" and r["step"] == crash["step"] and r["seat"] == crash["seat"])
    d = recs[i]
    rid = d["id"] if d["id"] is not None else 77
    recs[i] = {"type": "decision", "step": d["step"], "seat": d["seat"], "source": "bot", "played": d["played"], "id": rid,
               "salt": SALT, "elapsed_ms": 1.0}
    recs.insert(crash_at + 1, {"type": "commit", "step": d["step"], "seat": d["seat"], "id": rid,
                               "commitment": commitment(SALT, d["step"], d["seat"], d["played"])})
    rejected(tmp_path, recs, r"played as the bot's answer, but its bot was out of the game before it answered")


def test_a_commitment_for_another_request_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["kolpa"])
    i = index(recs, lambda r: r["type"] == "commit", 6)
    recs[i]["id"] += 1000
    rejected(tmp_path, recs, r"'id': request \d+, but the commitment \(line \d+\) is for request \d+")


def test_request_ids_that_go_back_are_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["kolpa"])
    first = recs[index(recs, lambda r: is_bot(r) and r["seat"] == 0, 0)]
    i = index(recs, lambda r: is_bot(r) and r["seat"] == 0, 1)
    recs[i]["id"] = first["id"]
    rejected(tmp_path, recs, rf"line {i + 1}, |'id': request {first['id']} of seat 0 after its request {first['id']}")


# --- decisions and events ------------------------------------------------------------------------


def test_an_illegal_recorded_action_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = branch_of(games["clean"], 4)
    i = index(recs, lambda r: r["type"] == "decision" and r["step"] == 2)
    recs[i]["played"] = ["Z9"]
    rejected(tmp_path, recs, r"the recorded action \['Z9'\] is illegal")


def test_a_fallback_that_is_not_the_games_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["timeout"])
    i = index(recs, lambda r: r["type"] == "decision" and r["source"] == "fallback")
    other = recs[index(recs, lambda r: r["type"] == "decision" and r["step"] == recs[i]["step"] and r["seat"] == 0)]["played"]
    recs[i]["played"] = other if other != recs[i]["played"] else ["Z9"]
    rejected(tmp_path, recs, r"played .*, but the game's fallback is")


def test_a_legal_answer_replaced_by_the_fallback_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["faults"])
    i = index(recs, lambda r: r["type"] == "decision" and r.get("fault") == "illegal_action")
    d = recs[i]
    legal = d["played"]  # the fallback is a legal action: claim the bot answered it
    d["answer"] = legal
    c = index(recs, lambda r: r["type"] == "commit" and r["step"] == d["step"] and r["seat"] == d["seat"])
    recs[c]["commitment"] = commitment(d["salt"], d["step"], d["seat"], legal)
    rejected(tmp_path, recs, r"the answer .* is legal, yet the fallback was played")


def test_a_missing_decision_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    i = index(recs, lambda r: r["type"] == "decision" and r["step"] == 3 and r["seat"] == 2)
    del recs[i]
    rejected(tmp_path, recs, r"no decision of seat 2 at step 3")


def test_changed_events_are_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    i = index(recs, lambda r: r["type"] == "events", 4)
    recs[i]["events"][0]["round"] = 99
    rejected(tmp_path, recs, rf"line {i + 1}: the recorded events differ from the game's")


def test_a_game_that_fails_on_a_recorded_action_is_a_mismatch_not_a_crash(
    games: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken_check(self: KododoState, seat: int, action: Any) -> None:
        raise TypeError("cannot read this action")

    monkeypatch.setattr(patchable_kododo(monkeypatch), "check", broken_check)
    rejected(tmp_path, records(games["clean"]), r"the game fails on the action .*TypeError: cannot read this action")


def test_a_step_the_game_refuses_as_a_whole_is_refused(games: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each action legal alone, the step refused together: `apply` has the last word."""

    def refusing_apply(self: KododoState, actions: Any) -> Any:
        raise IllegalAction(0, actions[0], "not together")

    monkeypatch.setattr(patchable_kododo(monkeypatch), "apply", refusing_apply)
    rejected(tmp_path, records(games["clean"]), r"the game refuses the step's actions: .*not together")
    assert load_replay(games["clean"]).header.game == "kododo"
