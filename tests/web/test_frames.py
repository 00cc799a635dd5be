"""Viewer data without a browser: perspectives, faults of other seats, hostile and broken replays."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from arena.cli import main
from arena.referee.faults import Fault, FaultKind
from arena.web.frames import Perspective, delta_decode, delta_encode, viewer_data
from arena.web.page import embed_json
from arena.games.registry import get_game
from arena.web.replay_source import GameRecord, load_game_record


def expected_views(record: GameRecord, seat: int) -> list[dict]:
    state = get_game(record.game).new_game(len(record.players), record.options, record.seed)
    out = [json.loads(json.dumps(state.view(seat)))]
    for step in record.steps:
        state.apply({d.seat: d.played for d in step.decisions})
        out.append(json.loads(json.dumps(state.view(seat))))
    return out


@given(st.lists(st.dictionaries(st.sampled_from("abcd"), st.integers(0, 3) | st.lists(st.integers(0, 2), max_size=2)), max_size=6))
def test_delta_encoding_round_trips(frames: list[dict]) -> None:
    assert delta_decode(delta_encode(frames)) == frames  # type: ignore[arg-type]


def test_organiser_holds_every_view_and_seat_only_its_own(replays: dict[str, Path]) -> None:
    record = load_game_record(replays["kodama-draft"])
    whole = viewer_data(record, Perspective(None))
    assert sorted(whole["views"]) == ["0", "1", "2"]
    assert all(len(v) == len(record.steps) + 1 for v in whole["views"].values())
    for seat, deltas in whole["views"].items():
        assert delta_decode(deltas) == expected_views(record, int(seat))
    mine = viewer_data(record, Perspective(2))
    assert list(mine["views"]) == ["2"] and mine["views"]["2"] == whole["views"]["2"]
    assert mine["result"]["points"] == list(record.points)


def test_other_seats_fault_details_and_stderr_stay_out(replays: dict[str, Path]) -> None:
    record = load_game_record(replays["kododo"])
    faults = (
        Fault(0, FaultKind.ILLEGAL_ACTION, 2, 3, "played G9 from hand [B1 O2]", ("my hand: B1 O2",)),
        Fault(1, FaultKind.TIMEOUT, 4, 5, "no answer\x1b[2J within 1000 ms", ("\x1b]0;owned\x07thinking",)),
    )
    record = dataclasses.replace(record, faults=faults)
    seat1 = viewer_data(record, Perspective(1))
    text = json.dumps(seat1)
    assert "my hand" not in text and "B1 O2" not in text
    assert seat1["faults"][0] == {"seat": 0, "kind": "illegal_action", "step": 2}
    assert seat1["faults"][1]["detail"] == "no answer within 1000 ms"  # own fault: shown, cleaned
    assert seat1["faults"][1]["stderr_tail"] == ["thinking"]
    whole = viewer_data(record, Perspective(None))
    assert whole["faults"][0]["stderr_tail"] == ["my hand: B1 O2"]


def test_view_reports_a_broken_replay_without_traceback(replays: dict[str, Path], tmp_path: Path) -> None:
    lines = replays["kolpa"].read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[: len(lines) // 2]) + "\n")
    result = CliRunner().invoke(main, ["view", str(cut)])
    assert result.exit_code == 2
    assert "no result record" in result.output and "Traceback" not in result.output
    result = CliRunner().invoke(main, ["view", str(replays["kolpa"]), "--seat", "7"])
    assert result.exit_code == 2 and "seat 7 does not exist" in result.output


@given(st.recursive(st.text() | st.integers(-(2**63), 2**63 - 1) | st.none(), lambda c: st.lists(c) | st.dictionaries(st.text(), c), max_leaves=20))
def test_embedded_json_round_trips_and_never_holds_a_tag(value: object) -> None:
    text = embed_json(value)  # type: ignore[arg-type]
    assert "<" not in text
    assert json.loads(text) == value
