"""Forged replays: `arena verify` rejects each doctoring of a real replay, naming what is wrong.

The replays are written by whole games on the fake transport (tests/support/fake_games.py: the real
referee, scripted bots with each kind of fault, no process, so this runs in the fast tier); each test
changes them the way a forger would and checks the message names the record and the problem.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.core.faults import FaultKind
from arena.replay import load_replay
from arena.audit.verify import ReplayMismatch, resimulate, verify_replay

from tests.support.replays import branch_of, index, is_bot, records, rejected, write


# --- real replays verify -------------------------------------------------------------------------


def test_every_replay_of_a_real_game_verifies(games: dict[str, Path]) -> None:
    for name, path in games.items():
        report = verify_replay(path)
        recs = records(path)
        answered = [r for r in recs if r["type"] == "decision" and "salt" in r]
        assert report.commitments == len(answered) == sum(r["type"] == "commit" for r in recs), name
        assert report.decisions == recs[-1]["decisions"] and report.steps > 0


def test_each_kind_of_fallback_is_recorded_with_its_fault(games: dict[str, Path]) -> None:
    faults = {name: {r["fault"] for r in records(path) if r["type"] == "decision" and r["source"] == "fallback"}
              for name, path in games.items()}
    assert faults == {"clean": set(), "kolpa": set(), "faults": {"illegal_action", "crash"}, "timeout": {"timeout"},
                      "malformed": {"malformed_json"}}


def test_a_sequential_game_commits_every_answer_too(games: dict[str, Path]) -> None:
    recs = records(games["kolpa"])
    commits = [r for r in recs if r["type"] == "commit"]
    assert len(commits) == sum(1 for r in recs if is_bot(r)) > 0


# --- forgeries -----------------------------------------------------------------------------------


def test_stripping_one_commitment_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    del recs[index(recs, lambda r: r["type"] == "commit", 5)]
    rejected(tmp_path, recs, r"an answer without its commitment")


def test_stripping_every_commitment_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = [r for r in records(games["kolpa"]) if r["type"] != "commit"]
    rejected(tmp_path, recs, r"line 2: .*an answer without its commitment")


def test_the_old_bypass_answered_false_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    """Issue 11: `answered: false, source: "bot"` skipped every commitment check."""
    recs = [r for r in records(games["clean"]) if r["type"] != "commit"]
    i = index(recs, is_bot, 4)
    del recs[i]["salt"]
    recs[i]["answered"] = False
    rejected(tmp_path, recs, rf"line {i + 1}, 'salt': missing")
    recs[i]["salt"] = "0" * 32
    rejected(tmp_path, recs, rf"line {i + 1}, 'answered': unknown member of a decision record")


def test_a_bot_answer_turned_into_a_fallback_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    i = index(recs, is_bot, 3)
    del recs[i]["salt"]
    recs[i].update(source="fallback", fault="timeout")
    rejected(tmp_path, recs, rf"line {i + 1}: .*the bot answered \(commitment on line \d+\), but the decision says timeout")


def test_changing_an_action_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    for name in ("clean", "kolpa"):
        recs = records(games[name])
        i = index(recs, is_bot, 7)
        recs[i]["played"] = ["B1"] if name == "clean" else {"play": "J", "from": "hand", "to": "discard", "announce": "B"}
        rejected(tmp_path, recs, rf"line {i + 1}: .* does not open the commitment on line")


def test_changing_an_action_to_another_legal_one_and_replaying_the_events_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    """The forger re-simulates: the changed action is legal and the events are the game's; the commitment stops it."""
    replay = load_replay(games["clean"])
    recs = records(games["clean"])
    for step in resimulate(replay):
        decision = step.decisions[0]
        others = [a for a in step.legal[decision.seat] if a != decision.played]
        if step.step >= 2 and others:
            break
    i = index(recs, lambda r: r["type"] == "decision" and r["step"] == step.step and r["seat"] == decision.seat)
    recs[i]["played"] = others[0]
    rejected(tmp_path, recs, rf"line {i + 1}: seat {decision.seat}, step {step.step}: the answer .* does not open")


def test_changing_a_salt_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    i = index(recs, is_bot, 10)
    recs[i]["salt"] = "f" * 32
    rejected(tmp_path, recs, rf"line {i + 1}: .* does not open the commitment")


def test_reordering_decisions_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    i = index(recs, lambda r: r["type"] == "decision" and r["step"] == 4)
    recs[i], recs[i + 1] = recs[i + 1], recs[i]
    rejected(tmp_path, recs, rf"line {i + 1}: a decision of seat 1 where seat 0's was expected")
    recs = records(games["kolpa"])
    a, b = index(recs, is_bot, 3), index(recs, is_bot, 4)
    recs[a], recs[b] = recs[b], recs[a]
    rejected(tmp_path, recs, rf"line {a + 1}: a decision record for step 4 where step 3 was expected")


@pytest.mark.parametrize(
    "member, value",
    [("points", lambda v: [p + 1 for p in v]), ("ranks", lambda v: list(reversed(v))), ("game_ranks", lambda v: [1] * len(v)),
     ("tiebreaks", lambda v: [[99]] * len(v)), ("faults", lambda v: v[:-1]), ("decisions", lambda v: v - 1)],
)
def test_changing_the_result_is_refused(games: dict[str, Path], tmp_path: Path, member: str, value: Callable[[Any], Any]) -> None:
    recs = records(games["faults"])
    recs[-1][member] = value(recs[-1][member])
    rejected(tmp_path, recs, rf"line {len(recs)}: '{member}': the result says")


def test_dropping_a_step_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    rejected(tmp_path, [r for r in recs if r.get("step") != 5 or r["type"] == "fault"],
             r"a commit record for step 6 where step 5 was expected")
    last = max(r["step"] for r in recs if r["type"] == "events")
    rejected(tmp_path, [r for r in recs if r.get("step") != last], r"the game is not over: .* \(the replay is cut short\)")


@pytest.mark.parametrize("kind", ["header", "commit", "decision", "events", "fault", "result"])
def test_an_unknown_member_is_refused_in_every_record(games: dict[str, Path], tmp_path: Path, kind: str) -> None:
    recs = records(games["faults"])
    i = index(recs, lambda r: r["type"] == kind)
    recs[i]["zz_extra"] = 1
    rejected(tmp_path, recs, rf"line {i + 1}, 'zz_extra': unknown member of a {kind} record")


def test_an_unknown_member_is_refused_inside_nested_objects(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["faults"])
    recs[0]["seats"][1]["uid"] = 0
    rejected(tmp_path, recs, r"line 1, 'uid': unknown member of a 'seats' object")
    recs = records(games["faults"])
    recs[-1]["faults"][0]["extra"] = "x"
    rejected(tmp_path, recs, rf"line {len(recs)}, 'extra': unknown member of a 'faults' object")


def test_changing_the_seed_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    recs[0]["seed"] += 1
    rejected(tmp_path, recs, r"line \d+: .*(is illegal|the game's fallback|events differ)")


def test_swapping_seats_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["faults"])
    recs[0]["seats"][0], recs[0]["seats"][1] = recs[0]["seats"][1], recs[0]["seats"][0]
    rejected(tmp_path, recs, r"line 1: 'seats': entry 0 is for seat 1")
    recs = records(games["clean"])  # the seat numbers of one step's records swapped
    step = [r for r in recs if r.get("step") == 3 and r["type"] in ("commit", "decision")]
    for r in step:
        r["seat"] = {0: 1, 1: 0}.get(r["seat"], r["seat"])
    rejected(tmp_path, recs, r"(seat order|does not open the commitment)")


def test_a_fallback_naming_the_wrong_fault_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["timeout"])
    i = index(recs, lambda r: r["type"] == "decision" and r["source"] == "fallback")
    recs[i]["fault"] = "malformed_json"
    rejected(tmp_path, recs, rf"line {i + 1}, |line {i + 1}: 'fault': malformed_json, but the fault that explains this fallback is timeout")


def test_a_fallback_without_its_fault_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["timeout"])
    del recs[index(recs, lambda r: r["type"] == "fault")]
    rejected(tmp_path, recs, r"a fallback, but no fault of seat 1 for request \d+ explains it")


def test_a_fault_added_to_frame_a_bot_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    i = index(recs, lambda r: is_bot(r) and r["seat"] == 2, 3)
    fault = {"type": "fault", "seat": 2, "kind": "timeout", "step": recs[i]["step"], "request_id": recs[i]["id"],
             "detail": "no answer within 1000 ms", "stderr_tail": []}
    recs.insert(index(recs, lambda r: r.get("step") == recs[i]["step"]), fault)
    rejected(tmp_path, recs, r"played as the bot's answer, but a timeout fault \(line \d+\) says request \d+ got no usable answer")


def test_an_answer_after_the_bot_was_out_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["faults"])
    crash = next(r for r in recs if r["type"] == "fault" and r["kind"] == "crash")
    later = index(recs, lambda r: r["type"] == "decision" and r["seat"] == crash["seat"] and r["step"] > crash["step"])
    recs[later]["id"] = 999
    rejected(tmp_path, recs, rf"line {later + 1}, |'id': request 999, but seat {crash['seat']}'s bot was out of the game")


def test_an_illegal_answer_passed_off_as_the_bots_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["faults"])
    i = index(recs, lambda r: r["type"] == "decision" and r.get("fault") == "illegal_action")
    record = recs[i]
    recs[i] = {k: v for k, v in record.items() if k not in ("fault", "answer")} | {"source": "bot", "played": record["answer"]}
    rejected(tmp_path, recs, rf"line {i + 1}: .*(illegal|got no usable answer)")


# --- branches ------------------------------------------------------------------------------------


def test_a_branch_verifies_and_reports_its_origin(games: dict[str, Path], tmp_path: Path) -> None:
    path = write(tmp_path, branch_of(games["clean"], 4))
    report = verify_replay(path)
    assert report.branch_of == load_replay(games["clean"]).sha256 and report.commitments < verify_replay(games["clean"]).commitments


def test_branch_rules_are_enforced(games: dict[str, Path], tmp_path: Path) -> None:
    recs = branch_of(games["clean"], 4)
    i = index(recs, lambda r: r["type"] == "decision" and r["step"] == 5)
    recs[i] = {k: recs[i][k] for k in ("type", "step", "seat", "played")} | {"source": "recorded"}
    rejected(tmp_path, recs, r"'recorded' is only for the steps of a branch before its branch point")
    rejected(tmp_path, branch_of(games["clean"], 10_000), r"line 1: 'branch': at_step 10000 is beyond the game's \d+ steps")
    recs = branch_of(games["clean"], 4)
    del recs[0]["branch"]
    rejected(tmp_path, recs, r"'recorded' is only for")
    recs = records(games["clean"])
    recs[0]["branch"] = {"of": "0" * 64, "at_step": 3}
    rejected(tmp_path, recs, r"line 2: a commitment at step 0, which was recorded from the original game")
    recs = [r for r in recs if r["type"] != "commit" or r["step"] >= 3]
    rejected(tmp_path, recs, r"'source': bot at step 0, before the branch point \(step 3\)")


# --- the command line ----------------------------------------------------------------------------


def test_arena_verify_prints_one_line_and_fails_on_a_forgery(games: dict[str, Path], tmp_path: Path) -> None:
    ok = CliRunner().invoke(main, ["verify", str(games["faults"])])
    assert ok.exit_code == 0 and ok.output.startswith("ok: ") and "2 faults" in ok.output, ok.output
    recs = records(games["faults"])
    recs[-1]["ranks"] = [1, 1, 1]
    bad = CliRunner().invoke(main, ["verify", str(write(tmp_path, recs))])
    assert bad.exit_code == 2
    assert bad.output.startswith("arena: error: ") and bad.output.count("\n") == 1 and "Traceback" not in bad.output
    assert "'ranks': the result says [1, 1, 1]" in bad.output
    missing = CliRunner().invoke(main, ["verify", str(tmp_path / "nope.jsonl")])
    assert missing.exit_code == 2 and "cannot read the replay" in missing.output


# --- re-simulation for viewers -------------------------------------------------------------------


def test_resimulate_gives_each_step_with_the_views_sent(games: dict[str, Path]) -> None:
    replay = load_replay(games["faults"])
    steps = list(resimulate(replay))
    assert [s.step for s in steps] == list(range(len(steps))) == list(range(verify_replay(replay).steps))
    first = steps[0]
    assert set(first.views) == {0, 1, 2} and first.asked == (0, 1, 2)
    assert first.state is not None and first.views[0] == first.state.view(0) and first.views[0]["hand"]
    crash = next(f for s in steps for f in s.faults if f.kind is FaultKind.CRASH)
    after = steps[crash.step + 1]
    assert crash.seat not in after.asked and crash.seat in after.views  # out: sent nothing, but still seated
    assert steps[1].state is not None and steps[1].state.view(0) != first.state.view(0)  # copies, not one live state


def test_a_mismatch_is_typed_and_names_its_line(games: dict[str, Path], tmp_path: Path) -> None:
    recs = records(games["clean"])
    recs[-1]["decisions"] += 1
    with pytest.raises(ReplayMismatch) as caught:
        verify_replay(write(tmp_path, recs))
    assert caught.value.line == len(recs)
