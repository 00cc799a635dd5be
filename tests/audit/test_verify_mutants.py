"""The verifier's exact word on each forgery, and the real games at the edges of its rules.

Found by mutation testing `arena/audit/verify.py` (issue 11, `make mutation ARGS=verify`): a check
that rejects for the right reason but names the wrong line, quotes the wrong value or misreads a
fault is a check that misleads whoever must fix the replay, so these tests pin the whole message:
the line of the record at fault, and the values that disagree. The other tests show real games
whose shape the forgery tests never met: a bot dead before the game, two bots refused in one step,
the `continue` fault policy.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from arena.errors import IllegalAction, ReplayError
from arena.games.kododo.state import KododoState
from arena.games.base import GameSpec
from arena.games.registry import get_game
from arena.referee.session import BotProcess, BotSpec
from arena.core.time_control import TimeControl
from arena.core.faults import FaultPolicy
from arena.referee.referee import play_game
from arena.rng import derive_seed
from arena.replay.encoding import commitment
from arena.replay import load_replay
from arena.audit.verify import VerifyReport, resimulate, verify_replay

from tests.support.bots import bad_spec, c_spec
from tests.support.replays import SALT, Records, branch_of, fault, first_of_step, index, is_bot, records, write
from tests.support.patchable import patchable_kododo

pytestmark = pytest.mark.process


def refusal(tmp_path: Path, recs: Records) -> str:
    """The verifier's message for a forgery, without the `<path>: ` it opens with."""
    path = write(tmp_path, recs)
    with pytest.raises(ReplayError) as caught:
        verify_replay(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: "), message
    return message[len(f"{path}: "):]


OLD_ID = f"{derive_seed(9, 'game-id', 'kododo') % 16**8:08x}"


def play(tmp_path: Path, name: str, specs: list[BotSpec], *, close: tuple[int, ...] = (),
         policy: FaultPolicy = FaultPolicy.FORFEIT, options: dict[str, Any] | None = None) -> Path:
    """A real kododo game of these bots (the seats in `close` stopped before it starts); its replay."""
    bots = [BotProcess.start(spec, TimeControl()) for spec in specs]
    try:
        for seat in close:
            bots[seat].close()
        path = tmp_path / f"{name}.jsonl"
        # The game id these games were first recorded under (the C bot seeds from it): the outcomes below are theirs.
        play_game("kododo", bots, seed=9, replay_path=path, policy=policy, options=options, game_id=f"kododo-9-{OLD_ID}")
    finally:
        for bot in bots:
            bot.close()
    return path


@pytest.fixture(scope="module")
def edge_games(tmp_path_factory: pytest.TempPathFactory, c_bot: str) -> Iterator[dict[str, Path]]:
    out = tmp_path_factory.mktemp("edges")
    yield {
        "dead_at_start": play(out, "dead", [c_spec(c_bot, 1), c_spec(c_bot, 2), c_spec(c_bot, 3)], close=(1,)),
        "two_illegal": play(out, "two_illegal", [c_spec(c_bot, 1), bad_spec("illegal"), bad_spec("illegal")]),
        "extra_lines": play(out, "extra_lines", [c_spec(c_bot, 1), bad_spec("twice"),
                                                 bad_spec("line", LINE='{"id": {id}, "action": ["Z9"]}\nthis is not json')]),
        "long": play(out, "long", [c_spec(c_bot, 1), c_spec(c_bot, 2)], options={"long": True}),
        "continue": play(out, "continue", [c_spec(c_bot, 6), bad_spec("illegal"), bad_spec("crash", BAD_AT="3")],
                         policy=FaultPolicy.CONTINUE),
        "always_illegal": play(out, "always_illegal", [c_spec(c_bot, 6), bad_spec("illegal_always")],
                               policy=FaultPolicy.CONTINUE),
    }


# --- real games at the edges -----------------------------------------------------------------------


def test_a_bot_dead_before_the_game_verifies_with_its_fault_before_step_0(edge_games: dict[str, Path]) -> None:
    recs = records(edge_games["dead_at_start"])
    assert recs[1]["type"] == "fault" and (recs[1]["seat"], recs[1]["kind"], recs[1]["step"]) == (1, "start_failed", -1)
    report = verify_replay(edge_games["dead_at_start"])
    assert report.faults == 1 and report.ranks[1] == 3  # forfeit: the dead bot's seat is last


def test_two_bots_refused_in_the_same_step_each_have_their_own_fault(edge_games: dict[str, Path]) -> None:
    recs = records(edge_games["two_illegal"])
    illegal = [(r["seat"], r["step"], r["request_id"]) for r in recs if r["type"] == "fault"]
    assert illegal == [(1, 0, 1), (2, 0, 1)]
    assert verify_replay(edge_games["two_illegal"]).faults == 2


def test_lines_a_bot_sent_beyond_its_answer_are_faults_that_take_no_decision(edge_games: dict[str, Path]) -> None:
    """A second answer is an unexpected_answer for the answered request; a bad line while no request
    is pending is a malformed_json fault of no request. Neither stands for a decision."""
    recs = records(edge_games["extra_lines"])
    # (the step of the two extra lines depends on when the referee reads them, so it is not asserted)
    faults = [(r["seat"], r["kind"], r["request_id"]) for r in recs if r["type"] == "fault"]
    assert sorted(faults, key=str) == [(1, "unexpected_answer", 1), (2, "illegal_action", 1), (2, "malformed_json", None)]
    assert verify_replay(edge_games["extra_lines"]).faults == 3


def test_a_game_with_options_is_re_simulated_with_them(edge_games: dict[str, Path], games: dict[str, Path]) -> None:
    header = records(edge_games["long"])[0]
    assert header["options"]["long"] is True and header["options"] != records(games["timeout"])[0]["options"]
    assert verify_replay(edge_games["long"]).steps > verify_replay(games["timeout"]).steps


def test_under_the_continue_policy_the_ranks_are_the_games(edge_games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(edge_games["continue"])
    result = recs[-1]
    assert result["faults"] and result["ranks"] == result["game_ranks"] == [1, 3, 2]
    assert verify_replay(edge_games["continue"]).ranks == (1, 3, 2)
    result["ranks"] = [1, 2, 2]  # what forfeit would give
    assert refusal(tmp_path, recs) == (f"line {len(recs)}: 'ranks': the result says [1, 2, 2], the game and the "
                                       "recorded faults give [1, 3, 2]")


# --- faults ----------------------------------------------------------------------------------------


def test_a_fault_of_the_seat_one_past_the_last(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    i = first_of_step(recs, 3)
    recs.insert(i, fault(3, 3))
    assert refusal(tmp_path, recs) == f"line {i + 1}: a fault of seat 3, in a game of 3 seats"


def test_a_fault_before_the_game_after_one_of_step_0(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    recs[1:1] = [fault(0, 0, "unexpected_answer"), fault(1, -1, "start_failed")]
    assert refusal(tmp_path, recs) == "line 3: a fault of step -1 (before the game) after the game began"


def test_a_fault_before_the_game_after_a_commitment_of_step_0(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    assert recs[1]["type"] == "commit" and recs[1]["step"] == 0
    recs.insert(2, fault(1, -1, "start_failed"))
    assert refusal(tmp_path, recs) == "line 3: a fault of step -1 (before the game) after the game began"


def test_a_second_fault_for_one_request_names_both_lines(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["timeout"])
    i = index(recs, lambda r: r["type"] == "fault" and r["kind"] == "timeout")
    recs.insert(i + 1, dict(recs[i], kind="malformed_json"))
    rid = recs[i]["request_id"]
    assert refusal(tmp_path, recs) == (f"line {i + 2}: a second fault for request {rid} of seat 1 (first: line {i + 1}): "
                                       "a request gets one answer")


# --- fallbacks -------------------------------------------------------------------------------------


def test_a_fallback_that_is_not_the_games_quotes_both(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["timeout"])
    i = index(recs, lambda r: r["type"] == "decision" and r["source"] == "fallback")
    d = recs[i]
    fallback = d["played"]
    d["played"] = ["Z9"]
    assert refusal(tmp_path, recs) == (f"line {i + 1}: seat 1, step {d['step']}: played ['Z9'], but the game's "
                                       f"fallback is {fallback!r}")


def test_a_game_that_fails_on_its_fallback_is_a_mismatch_at_the_decision(
    games: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self: KododoState, seat: int) -> Any:
        raise LookupError(f"no fallback for seat {seat}")

    monkeypatch.setattr(patchable_kododo(monkeypatch), "fallback", broken)
    recs = records(games["timeout"])
    i = index(recs, lambda r: r["type"] == "decision" and r["source"] == "fallback")
    assert refusal(tmp_path, recs) == f"line {i + 1}: the game fails on fallback(): LookupError: no fallback for seat 1"


def test_a_game_that_fails_on_a_refused_answer_is_a_mismatch_at_the_decision(
    games: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    check = KododoState.check

    def choking(self: KododoState, seat: int, action: Any) -> None:
        if action == ["Z9"]:
            raise TypeError("unreadable card Z9")
        check(self, seat, action)

    monkeypatch.setattr(patchable_kododo(monkeypatch), "check", choking)
    recs = records(games["faults"])
    i = index(recs, lambda r: r["type"] == "decision" and r.get("answer") == ["Z9"])
    assert refusal(tmp_path, recs) == f"line {i + 1}: the game fails on the action ['Z9']: TypeError: unreadable card Z9"


def test_a_legal_answer_replaced_by_the_fallback_quotes_the_answer(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["faults"])
    i = index(recs, lambda r: r["type"] == "decision" and r.get("fault") == "illegal_action")
    d = recs[i]
    d["answer"] = d["played"]
    c = index(recs, lambda r: r["type"] == "commit" and r["step"] == d["step"] and r["seat"] == d["seat"])
    recs[c]["commitment"] = commitment(d["salt"], d["step"], d["seat"], d["played"])
    assert refusal(tmp_path, recs) == (f"line {i + 1}: seat {d['seat']}, step {d['step']}: the answer {d['played']!r} is "
                                       "legal, yet the fallback was played")


def test_a_fallback_without_its_fault_names_the_request(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["timeout"])
    gone = recs.pop(index(recs, lambda r: r["type"] == "fault"))
    i = index(recs, lambda r: r["type"] == "decision" and r["source"] == "fallback")
    assert refusal(tmp_path, recs) == (f"line {i + 1}: seat 1, step {gone['step']}: a fallback, but no fault of seat 1 for "
                                       f"request {gone['request_id']} explains it")


def test_a_fallback_naming_the_wrong_fault_names_the_right_one(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["timeout"])
    f = index(recs, lambda r: r["type"] == "fault")
    i = index(recs, lambda r: r["type"] == "decision" and r["source"] == "fallback")
    recs[i]["fault"] = "malformed_json"
    assert refusal(tmp_path, recs) == (f"line {i + 1}: 'fault': malformed_json, but the fault that explains this fallback "
                                       f"is timeout (line {f + 1})")


def test_a_request_sent_to_a_bot_out_of_the_game(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["faults"])
    crash = index(recs, lambda r: r["type"] == "fault" and r["kind"] == "crash")
    seat, step = recs[crash]["seat"], recs[crash]["step"]
    i = index(recs, lambda r: r["type"] == "decision" and r["seat"] == seat and r["step"] > step)
    recs[i]["id"] = 999
    assert refusal(tmp_path, recs) == (f"line {i + 1}: 'id': request 999, but seat {seat}'s bot was out of the game since "
                                       f"step {step} (line {crash + 1}): it was sent nothing")


# --- the result ------------------------------------------------------------------------------------


def test_a_game_that_fails_on_its_outcome_is_a_mismatch_at_the_result(
    games: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self: KododoState) -> Any:
        raise ValueError("no outcome yet")

    monkeypatch.setattr(patchable_kododo(monkeypatch), "outcome", broken)
    recs = records(games["clean"])
    assert refusal(tmp_path, recs) == f"line {len(recs)}: the game fails on outcome(): ValueError: no outcome yet"


def test_the_result_faults_are_quoted_as_faults(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["faults"])
    recs[-1]["faults"] = recs[-1]["faults"][:1]
    assert refusal(tmp_path, recs) == (
        f"line {len(recs)}: 'faults': the result says ['illegal_action of seat 1 at step 0'], the game and the recorded "
        "faults give ['illegal_action of seat 1 at step 0', 'crash of seat 2 at step 2']")


def test_a_long_result_member_is_quoted_to_200_characters(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["faults"])
    recs[-1]["faults"] = recs[-1]["faults"] * 4
    shown = ", ".join(["'illegal_action of seat 1 at step 0', 'crash of seat 2 at step 2'"] * 4)
    quoted = f"[{shown}]"
    assert len(quoted) > 200
    assert refusal(tmp_path, recs) == (
        f"line {len(recs)}: 'faults': the result says {quoted[:200]}… [{len(quoted) - 200} more characters], the game "
        "and the recorded faults give ['illegal_action of seat 1 at step 0', 'crash of seat 2 at step 2']")


def test_the_games_side_of_a_long_result_member_is_quoted_to_200_characters(
        edge_games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(edge_games["always_illegal"])  # under `continue`, a fault at each of the bot's steps
    faults = recs[-1]["faults"]
    recs[-1]["faults"] = []
    shown = repr([f"{f['kind']} of seat {f['seat']} at step {f['step']}" for f in faults])
    assert len(shown) > 200
    assert refusal(tmp_path, recs) == (
        f"line {len(recs)}: 'faults': the result says [], the game and the recorded faults give "
        f"{shown[:200]}… [{len(shown) - 200} more characters]")


# --- events ----------------------------------------------------------------------------------------


def quoted(value: object) -> str:
    """How a message quotes a value: its repr, cut at 200 characters with a count of the rest."""
    text = repr(value)
    return text if len(text) <= 200 else f"{text[:200]}… [{len(text) - 200} more characters]"


def test_a_missing_decision_is_named_at_the_events_record(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    del recs[index(recs, lambda r: r["type"] == "decision" and r["step"] == 3 and r["seat"] == 2)]
    i = index(recs, lambda r: r["type"] == "events" and r["step"] == 3)
    assert refusal(tmp_path, recs) == f"line {i + 1}: no decision of seat 2 at step 3"


def test_a_fault_for_a_request_whose_decision_is_not_a_fallback(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["kolpa"])
    step = recs[index(recs, lambda r: r["type"] == "decision" and r["source"] == "bot" and r["seat"] == 0, 2)]["step"]
    i = first_of_step(recs, step)
    recs.insert(i, fault(1, step, "timeout", 5))
    assert refusal(tmp_path, recs) == (f"line {i + 1}: a timeout fault of seat 1 for request 5, but that request's "
                                       "decision is not a fallback")


def test_a_fault_for_another_request_of_a_seat_that_fell_back(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["timeout"])
    f = index(recs, lambda r: r["type"] == "fault")
    recs.insert(f + 1, dict(recs[f], request_id=7))
    assert refusal(tmp_path, recs) == (f"line {f + 2}: a timeout fault of seat 1 for request 7, but that request's "
                                       "decision is not a fallback")


def test_a_game_that_fails_on_a_step_is_a_mismatch_at_its_events(
    games: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self: KododoState, actions: Any) -> Any:
        raise KeyError("no such card")

    monkeypatch.setattr(patchable_kododo(monkeypatch), "apply", broken)
    recs = records(games["clean"])
    i = index(recs, lambda r: r["type"] == "events")
    assert refusal(tmp_path, recs) == f"line {i + 1}: the game fails on apply(): KeyError: 'no such card'"


def test_a_step_the_game_refuses_quotes_the_refusal_bounded(
    games: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    refused = IllegalAction(0, ["O2", "Y3"], "these cards cannot be played together " * 8)

    def refusing(self: KododoState, actions: Any) -> Any:
        raise refused

    monkeypatch.setattr(patchable_kododo(monkeypatch), "apply", refusing)
    recs = records(games["clean"])
    i = index(recs, lambda r: r["type"] == "events")
    assert len(repr(refused)) > 200
    assert refusal(tmp_path, recs) == f"line {i + 1}: the game refuses the step's actions: {quoted(refused)}"


def test_changed_events_are_quoted_both_ways_bounded(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    header = recs[0]
    state = get_game("kododo").new_game(3, header["options"], header["seed"])
    game = [e.to_json() for e in state.apply({r["seat"]: r["played"] for r in recs if r["type"] == "decision" and r["step"] == 0})]
    i = index(recs, lambda r: r["type"] == "events")
    recs[i]["events"][0]["round"] = 99
    assert len(repr(recs[i]["events"])) > 200 and len(repr(game)) > 200
    assert refusal(tmp_path, recs) == (f"line {i + 1}: the recorded events differ from the game's: recorded "
                                       f"{quoted(recs[i]['events'])}, game {quoted(game)}")


# --- bot answers -----------------------------------------------------------------------------------


def answered_then_crashed(recs: Records) -> tuple[int, int]:
    """The crash of the `faults` game turned into a bot that answered its request, then crashed in that
    step: its commitment before the crash fault, and the action played its own (the fallback it got
    anyway, so the game is unchanged). Returns (index of the commitment, index of the decision)."""
    crash = index(recs, lambda r: r["type"] == "fault" and r["kind"] == "crash")
    f = recs[crash]
    i = index(recs, lambda r: r["type"] == "decision" and r["step"] == f["step"] and r["seat"] == f["seat"])
    d = recs[i]
    recs[i] = {"type": "decision", "step": d["step"], "seat": d["seat"], "source": "bot", "played": d["played"],
               "id": f["request_id"], "salt": SALT, "elapsed_ms": 1.0}
    first = first_of_step(recs, f["step"])
    recs.insert(first, {"type": "commit", "step": d["step"], "seat": d["seat"], "id": f["request_id"],
                        "commitment": commitment(SALT, d["step"], d["seat"], d["played"])})
    return first, i + 1


def test_a_bot_that_answered_then_crashed_in_the_same_step_keeps_its_answer(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["faults"])
    c, i = answered_then_crashed(recs)
    assert recs[c]["step"] == recs[i]["step"] and index(recs, lambda r: r.get("kind") == "crash") > c
    report = verify_replay(write(tmp_path, recs))
    assert report.commitments == verify_replay(games["faults"]).commitments + 1


def test_an_answer_committed_after_the_crash_names_the_crash(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["faults"])
    c, i = answered_then_crashed(recs)
    crash = index(recs, lambda r: r.get("kind") == "crash")
    recs.insert(crash, recs.pop(c))  # now after the crash fault
    d = recs[i]
    assert refusal(tmp_path, recs) == (f"line {i + 1}: seat {d['seat']}, step {d['step']}: played as the bot's answer, but "
                                       f"its bot was out of the game before it answered (crash, line {crash})")


def refusal_when_check_fails(tmp_path: Path, recs: Records, i: int, monkeypatch: pytest.MonkeyPatch) -> str:
    """The verifier's message when the game's check() raises on the action played at record `i`."""
    unreadable = recs[i]["played"]
    check = KododoState.check

    def choking(self: KododoState, seat: int, action: Any) -> None:
        if action == unreadable:
            raise IndexError("card index out of range")
        check(self, seat, action)

    monkeypatch.setattr(patchable_kododo(monkeypatch), "check", choking)
    return refusal(tmp_path, recs)


def test_a_game_that_fails_on_a_bot_answer_is_a_mismatch_at_the_decision(
    games: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recs = records(games["clean"])
    i = index(recs, lambda r: r["type"] == "decision" and r["source"] == "bot", 4)
    assert refusal_when_check_fails(tmp_path, recs, i, monkeypatch) == (
        f"line {i + 1}: the game fails on the action {recs[i]['played']!r}: IndexError: card index out of range")


def test_an_illegal_answer_played_as_the_bots_quotes_it_and_the_reason(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["faults"])
    del recs[index(recs, lambda r: r["type"] == "fault" and r["kind"] == "illegal_action")]
    i = index(recs, lambda r: r["type"] == "decision" and r.get("fault") == "illegal_action")
    d = recs[i]
    recs[i] = {k: v for k, v in d.items() if k not in ("fault", "answer")} | {"source": "bot", "played": d["answer"]}
    assert refusal(tmp_path, recs) == (f"line {i + 1}: seat 1, step 0: the bot's answer ['Z9'] is illegal (turn 1 plays "
                                       "exactly 2 card(s), got 1), yet it was played")


# --- commitments -----------------------------------------------------------------------------------


def test_a_commitment_of_a_seat_that_does_not_decide_names_who_does(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["kolpa"])
    i = index(recs, lambda r: r["type"] == "commit" and r["seat"] == 0, 3)
    recs.insert(i, dict(recs[i], seat=1))
    assert refusal(tmp_path, recs) == (f"line {i + 1}: a commitment of seat 1, which does not decide at step "
                                       f"{recs[i]['step']} (deciding: [0])")


def test_a_second_commitment_of_a_seat_in_one_step(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    i = index(recs, lambda r: r["type"] == "commit" and r["step"] == 2)
    recs.insert(i + 1, dict(recs[i]))
    assert refusal(tmp_path, recs) == f"line {i + 2}: a second commitment of seat {recs[i]['seat']} at step 2"


@pytest.mark.parametrize("after", ["decision", "illegal_action"])
def test_a_commitment_after_the_answers_were_judged(games: dict[str, Path], tmp_path: Path, after: str) -> None:
    recs = records(games["clean" if after == "decision" else "faults"])  # clean: no illegal_action fault before
    j = index(recs, lambda r: r["type"] == "decision" if after == "decision" else r.get("kind") == "illegal_action")
    c = index(recs, lambda r: r["type"] == "commit" and r["step"] == recs[j]["step"] and r["seat"] == 1)
    recs.insert(j, recs.pop(c))  # just after the record it must precede
    assert refusal(tmp_path, recs) == (f"line {j + 1}: a commitment written after the step's answers were judged (its "
                                       "decisions or an illegal_action fault)")


def test_a_commitment_in_the_recorded_part_of_a_branch(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    recs[0]["branch"] = {"of": "0" * 64, "at_step": 3}
    assert refusal(tmp_path, recs) == "line 2: a commitment at step 0, which was recorded from the original game"


def test_a_commitment_of_a_bot_out_of_the_game_names_the_fault(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["faults"])
    crash = index(recs, lambda r: r["type"] == "fault" and r["kind"] == "crash")
    seat, step = recs[crash]["seat"], recs[crash]["step"]
    i = first_of_step(recs, step + 2)
    recs.insert(i, {"type": "commit", "step": step + 2, "seat": seat, "id": 50, "commitment": "a" * 64})
    assert refusal(tmp_path, recs) == (f"line {i + 1}: a commitment of seat {seat}, whose bot was out of the game since "
                                       f"step {step} (crash, line {crash + 1})")


# --- decisions -------------------------------------------------------------------------------------


def test_one_decision_too_many_in_a_step(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    i = index(recs, lambda r: r["type"] == "events" and r["step"] == 2)
    recs.insert(i, dict(recs[i - 1]))
    assert refusal(tmp_path, recs) == f"line {i + 1}: a decision of seat 2, but every deciding seat of step 2 has one"


def test_decisions_out_of_seat_order_name_the_order(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    i = index(recs, lambda r: r["type"] == "decision" and r["step"] == 4)
    recs[i], recs[i + 1] = recs[i + 1], recs[i]
    assert refusal(tmp_path, recs) == (f"line {i + 1}: a decision of seat 1 where seat 0's was expected (decisions come in "
                                       "seat order, one per deciding seat: [0, 1, 2])")


def test_a_bot_decision_before_the_branch_point(games: dict[str, Path], tmp_path: Path) -> None:
    recs = [r for r in records(games["clean"]) if r["type"] != "commit" or r["step"] >= 3]
    recs[0]["branch"] = {"of": "0" * 64, "at_step": 3}
    assert refusal(tmp_path, recs) == ("line 2: 'source': bot at step 0, before the branch point (step 3): decisions there "
                                       "are 'recorded'")


def test_an_illegal_recorded_action_quotes_the_reason(games: dict[str, Path], tmp_path: Path) -> None:
    recs = branch_of(games["clean"], 4)
    i = index(recs, lambda r: r["type"] == "decision" and r["step"] == 2)
    recs[i]["played"] = ["Z9"]
    assert refusal(tmp_path, recs) == (f"line {i + 1}: seat 0, step 2: the recorded action ['Z9'] is illegal: 'Z9' is not "
                                       "a Kododo card (colour B/G/Y/O/V + value 1-6)")


def test_a_recorded_decision_after_the_branch_point(games: dict[str, Path], tmp_path: Path) -> None:
    recs = branch_of(games["clean"], 4)
    i = index(recs, lambda r: r["type"] == "decision" and r["step"] == 5)
    recs[i] = {k: recs[i][k] for k in ("type", "step", "seat", "played")} | {"source": "recorded"}
    assert refusal(tmp_path, recs) == (f"line {i + 1}: 'source': 'recorded' is only for the steps of a branch before its "
                                       "branch point")


def test_a_request_id_that_goes_back_names_both(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["kolpa"])
    first = recs[index(recs, lambda r: is_bot(r) and r["seat"] == 0, 0)]["id"]
    i = index(recs, lambda r: is_bot(r) and r["seat"] == 0, 1)
    recs[i]["id"] = first
    c = index(recs, lambda r: r["type"] == "commit" and r["step"] == recs[i]["step"])
    recs[c]["id"] = first
    assert refusal(tmp_path, recs) == f"line {i + 1}: 'id': request {first} of seat 0 after its request {first}"


def test_an_answered_request_recorded_as_unanswered(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    i = index(recs, is_bot, 3)
    c = index(recs, lambda r: r["type"] == "commit" and r["step"] == recs[i]["step"] and r["seat"] == recs[i]["seat"])
    del recs[i]["salt"]
    recs[i].update(source="fallback", fault="timeout")
    d = recs[i]
    assert refusal(tmp_path, recs) == (f"line {i + 1}: seat {d['seat']}, step {d['step']}: the bot answered (commitment on "
                                       f"line {c + 1}), but the decision says timeout")


def test_a_commitment_for_another_request_names_both(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["kolpa"])
    c = index(recs, lambda r: r["type"] == "commit", 6)
    recs[c]["id"] += 1000
    i = index(recs, lambda r: r["type"] == "decision" and r["step"] == recs[c]["step"])
    assert refusal(tmp_path, recs) == (f"line {i + 1}: 'id': request {recs[i]['id']}, but the commitment (line {c + 1}) is "
                                       f"for request {recs[c]['id']}")


def test_an_answer_that_does_not_open_its_commitment(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    i = index(recs, is_bot, 7)
    d = recs[i]
    c = index(recs, lambda r: r["type"] == "commit" and r["step"] == d["step"] and r["seat"] == d["seat"])
    d["played"] = ["B1"]
    assert refusal(tmp_path, recs) == (f"line {i + 1}: seat {d['seat']}, step {d['step']}: the answer ['B1'] with this "
                                       f"salt does not open the commitment on line {c + 1}")


def test_an_answer_without_its_commitment(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    c = index(recs, lambda r: r["type"] == "commit", 5)
    gone = recs.pop(c)
    i = index(recs, lambda r: r["type"] == "decision" and r["step"] == gone["step"] and r["seat"] == gone["seat"])
    assert refusal(tmp_path, recs) == (f"line {i + 1}: seat {gone['seat']}, step {gone['step']}: an answer without its "
                                       "commitment (every answer is committed when it arrives)")


# --- steps -----------------------------------------------------------------------------------------


def test_a_record_after_the_game_ended_names_the_kind_and_step(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    last = max(r["step"] for r in recs if r["type"] == "events")
    for record, kind in [(fault(0, 99), "fault"), ({"type": "events", "step": last + 1, "events": []}, "events")]:
        changed = recs[:-1] + [record, recs[-1]]
        assert refusal(tmp_path, changed) == f"line {len(recs)}: a {kind} record after the game ended (at step {last + 1})"


def test_a_record_of_the_wrong_step_names_both_steps(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    recs = [r for r in recs if r.get("step") != 5 or r["type"] == "fault"]
    i = first_of_step(recs, 6)
    assert refusal(tmp_path, recs) == f"line {i + 1}: a commit record for step 6 where step 5 was expected"


def test_a_replay_cut_after_a_fault(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    i = index(recs, lambda r: r["type"] == "events" and r["step"] == 4)
    cut = recs[: i + 1] + [fault(0, 5, "unexpected_answer"), recs[-1]]
    assert refusal(tmp_path, cut) == f"line {len(cut)}: step 5 has records but no events record (the replay is cut short)"


def test_a_replay_cut_after_its_faults_before_the_game(edge_games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(edge_games["dead_at_start"])
    cut = recs[:2] + [recs[-1]]
    assert refusal(tmp_path, cut) == ("line 3: the game is not over: seats [0, 1, 2] decide at step 0 (the replay is cut "
                                      "short)")


def test_a_branch_point_beyond_the_game(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    steps = sum(r["type"] == "events" for r in recs)
    recs[0]["branch"] = {"of": "0" * 64, "at_step": steps + 1}
    recs = [r for r in recs if r["type"] != "commit"]
    for r in recs:
        if r["type"] == "decision":
            for k in ("id", "salt", "elapsed_ms"):
                r.pop(k, None)
            r["source"] = "recorded"
    assert refusal(tmp_path, recs) == f"line 1: 'branch': at_step {steps + 1} is beyond the game's {steps} steps"


# --- the header, and the game's own failures -------------------------------------------------------


@pytest.mark.parametrize(
    "change, message",
    [
        ({"game": "chess"}, "unknown game 'chess' (known games: kodama-draft, kodama-duo, kododo, kolpa)"),
        ({"seats": []}, "game 'kododo' is for 2 to 5 players, got 0"),
        ({"game_version": "0.9"}, "recorded with kododo version '0.9', this arena has version '1.1': the game cannot be "
                                  "re-simulated"),
        ({"options": {"long": False, "max_deals": 20, "target": 50, "zz": 1}},
         "'options': game 'kododo' has no option 'zz' (its options: long, target, max_deals)"),
        ({"options": {"long": False, "target": 50}}, "'options': {'long': False, 'target': 50} must list every option of "
                                                     "kododo with its value: {'long': False, 'target': 50, 'max_deals': 20}"),
        ({"time_control": {**TimeControl().to_json(), "decision_ms": -5}},
         "'time_control' is not a time control of replay format 3: decision_ms must be a positive number of milliseconds, got -5"),
        ({"time_control": {"decision_ms": 1000, "bank_ms": None, "increment_ms": 0}},
         "'time_control' is not a time control of replay format 3: a time control has exactly the keys decision_ms, bank_ms, "
         "increment_ms, startup_ms, shutdown_ms, game_ms; missing startup_ms, shutdown_ms, game_ms"),
        ({"time_control": {**TimeControl().to_json(), "game_ms": 1.5}},
         "'time_control' is not a time control of replay format 3: time control game_ms must be a whole number of "
         "milliseconds or null, got 1.5"),
    ],
)
def test_a_header_that_cannot_recreate_the_game_says_what_would(games: dict[str, Path], tmp_path: Path, change: dict[str, Any],
                                                                message: str) -> None:
    recs = records(games["clean"])
    recs[0].update(change)
    assert refusal(tmp_path, recs) == f"line 1: {message}"


def test_seats_out_of_order(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    recs[0]["seats"][1], recs[0]["seats"][2] = recs[0]["seats"][2], recs[0]["seats"][1]
    assert refusal(tmp_path, recs) == "line 1: 'seats': entry 1 is for seat 2: seats are listed in seat order"


def test_a_game_that_fails_on_the_seed_is_a_mismatch_at_the_header(
    games: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self: GameSpec, seats: int, options: Any = None, seed: int = 0) -> Any:
        raise ArithmeticError(f"cannot shuffle with {seed}")

    monkeypatch.setattr(GameSpec, "new_game", broken)
    assert refusal(tmp_path, records(games["clean"])) == "line 1: the game fails on the seed 9: ArithmeticError: cannot shuffle with 9"


@pytest.mark.parametrize("after_step", [None, 3])
def test_a_game_that_fails_to_say_who_moves_is_a_mismatch_at_the_record_that_made_the_state(
    games: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, after_step: int | None
) -> None:
    """The state the game chokes on was made by the header (the first step) or by the last events."""
    to_move, apply = KododoState.to_move, KododoState.apply
    steps_applied = []

    def counting(self: KododoState, actions: Any) -> Any:
        events = apply(self, actions)  # (which asks to_move itself)
        steps_applied.append(1)
        return events

    def choking(self: KododoState) -> Any:
        if after_step is None or len(steps_applied) > after_step:
            raise AttributeError("no seat to move")
        return to_move(self)

    monkeypatch.setattr(patchable_kododo(monkeypatch), "apply", counting)
    monkeypatch.setattr(patchable_kododo(monkeypatch), "to_move", choking)
    recs = records(games["clean"])
    line = 1 if after_step is None else index(recs, lambda r: r["type"] == "events" and r["step"] == after_step) + 1
    assert refusal(tmp_path, recs) == f"line {line}: the game fails on to_move(): AttributeError: no seat to move"


# --- faults out of place ---------------------------------------------------------------------------


def test_a_fault_of_another_step_names_both_steps(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    i = first_of_step(recs, 3)
    recs.insert(i, fault(0, 2))
    assert refusal(tmp_path, recs) == f"line {i + 1}: a fault of step 2 recorded during step 3"


def test_a_fault_in_the_recorded_part_of_a_branch_says_no_bot_took_part(games: dict[str, Path], tmp_path: Path) -> None:
    recs = branch_of(games["clean"], 4)
    i = first_of_step(recs, 2)
    recs.insert(i, fault(0, 2, "unexpected_answer"))
    assert refusal(tmp_path, recs) == (f"line {i + 1}: a fault at step 2, which was recorded from the original game (no bot "
                                       "took part)")


def test_a_fault_among_the_decisions_says_where_faults_go(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["faults"])
    i = index(recs, lambda r: r["type"] == "fault" and r["kind"] == "illegal_action")
    recs.insert(i + 1, recs.pop(i))
    assert refusal(tmp_path, recs) == (f"line {i + 2}: a fault written among the step's decisions (faults come before the "
                                       "reveal)")


def test_a_second_fault_taking_a_bot_out_names_the_first(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["faults"])
    crash = index(recs, lambda r: r["type"] == "fault" and r["kind"] == "crash")
    seat, step = recs[crash]["seat"], recs[crash]["step"]
    i = first_of_step(recs, step + 2)
    recs.insert(i, fault(seat, step + 2, "flood"))
    assert refusal(tmp_path, recs) == (f"line {i + 1}: a second fault that takes seat {seat}'s bot out of the game (first: "
                                       f"line {crash + 1})")


# --- the report ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["clean", "faults", "kolpa"])
def test_the_report_counts_what_the_replay_holds(games: dict[str, Path], name: str) -> None:
    recs = records(games[name])
    result = recs[-1]
    expected = VerifyReport(
        game=recs[0]["game"], seed=9, steps=sum(r["type"] == "events" for r in recs),
        decisions=sum(r["type"] == "decision" for r in recs), commitments=sum(r["type"] == "commit" for r in recs),
        faults=len(result["faults"]), points=tuple(result["points"]), ranks=tuple(result["ranks"]),
        sha256=load_replay(games[name]).sha256, branch_of=None)
    assert verify_replay(games[name]) == expected
    assert expected.faults == sum(r["type"] == "fault" for r in recs) and len(expected.sha256) == 64


def test_the_report_of_a_branch_counts_its_recorded_decisions(games: dict[str, Path], tmp_path: Path) -> None:
    recs = branch_of(games["clean"], 4)
    report = verify_replay(write(tmp_path, recs))
    assert (report.steps, report.decisions, report.commitments) == (
        sum(r["type"] == "events" for r in recs), recs[-1]["decisions"], sum(r["type"] == "commit" for r in recs))
    assert report.branch_of == load_replay(games["clean"]).sha256


def test_a_game_that_fails_on_a_recorded_action_is_a_mismatch_at_the_decision(
    games: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recs = branch_of(games["clean"], 4)
    i = index(recs, lambda r: r["type"] == "decision" and r["step"] == 2)
    assert refusal_when_check_fails(tmp_path, recs, i, monkeypatch) == (
        f"line {i + 1}: the game fails on the action {recs[i]['played']!r}: IndexError: card index out of range")


def test_what_a_failing_game_said_is_quoted_to_200_characters(
    games: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    said = "the cards do not add up " * 12

    def broken(self: KododoState) -> Any:
        raise ValueError(said)

    monkeypatch.setattr(patchable_kododo(monkeypatch), "outcome", broken)
    recs = records(games["clean"])
    assert len(said) > 200
    assert refusal(tmp_path, recs) == (f"line {len(recs)}: the game fails on outcome(): ValueError: {said[:200]}… "
                                       f"[{len(said) - 200} more characters]")


@pytest.mark.parametrize("cut_after", ["commit", "decision"])
def test_a_replay_cut_in_the_middle_of_a_step(games: dict[str, Path], tmp_path: Path, cut_after: str) -> None:
    """Cut after the step's commitments, or after the decisions of a recorded step (which has no commitments)."""
    recs = records(games["clean"]) if cut_after == "commit" else branch_of(games["clean"], 4)
    last = index(recs, lambda r: r["type"] == cut_after and r["step"] == 2, 2)
    cut = recs[: last + 1] + [recs[-1]]
    assert refusal(tmp_path, cut) == f"line {len(cut)}: step 2 has records but no events record (the replay is cut short)"


def test_a_branch_point_at_the_end_of_the_game_is_not_beyond_it(games: dict[str, Path], tmp_path: Path) -> None:
    steps = sum(r["type"] == "events" for r in records(games["clean"]))
    report = verify_replay(write(tmp_path, branch_of(games["clean"], steps)))
    assert report.steps == steps and report.commitments == 0


def test_resimulate_gives_each_step_its_recorded_events(games: dict[str, Path]) -> None:
    recs = records(games["faults"])
    recorded = [tuple(r["events"]) for r in recs if r["type"] == "events"]
    assert [step.events for step in resimulate(load_replay(games["faults"]))] == recorded


def test_the_first_step_holds_the_faults_from_before_the_game(edge_games: dict[str, Path]) -> None:
    steps = list(resimulate(load_replay(edge_games["dead_at_start"])))
    assert [(f.seat, f.kind.value, f.step) for f in steps[0].faults] == [(1, "start_failed", -1)]
    assert all(f.step == s.step for s in steps[1:] for f in s.faults)


def test_without_detail_no_state_is_copied_and_no_view_drawn(games: dict[str, Path]) -> None:
    replay = load_replay(games["clean"])
    bare = list(resimulate(replay, detail=False))
    assert bare and all(s.state is None and not s.views and not s.legal for s in bare)
    full = list(resimulate(replay))
    assert [s.events for s in full] == [s.events for s in bare]
    assert all(s.state is not None and set(s.views) == set(s.legal) == set(s.deciding) for s in full)


def test_verify_copies_no_state_and_draws_no_view(games: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Checking needs the rules only; copies and views are what a viewer asks resimulate for."""
    calls: list[str] = []
    clone, view = KododoState.clone, KododoState.view

    def counted_clone(self: KododoState) -> KododoState:
        calls.append("clone")
        return clone(self)

    def counted_view(self: KododoState, seat: int) -> Any:
        calls.append("view")
        return view(self, seat)

    monkeypatch.setattr(patchable_kododo(monkeypatch), "clone", counted_clone)
    monkeypatch.setattr(patchable_kododo(monkeypatch), "view", counted_view)
    report = verify_replay(games["clean"])
    assert report.steps > 0 and calls == []
    list(resimulate(load_replay(games["clean"])))
    assert {"clone", "view"} <= set(calls)  # the spies see what detail asks for
