"""Viewer data without a browser: perspectives, faults of other seats, hostile and broken replays.

The replays are whole games played in-process by the real referee with fake bots on the fake transport
(tests/support/fake_games.py): no process, so this file runs in the fast tier. Nothing here is about an
OS behaviour; the pages' real-process and browser tests are test_viewer*.py's.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from arena.cli import main
from arena.core.faults import Fault, FaultKind
from arena.web.frames import Perspective, delta_decode, delta_encode, viewer_data
from arena.web.page import embed_json, read_data
from arena.games.registry import get_game
from arena.replay import read_replay
from arena.web.replay_source import load_game_record

from tests.support.fake_games import fair_game

SEATS = {"kododo": 3, "kolpa": 3, "kodama-duo": 2, "kodama-draft": 3}


@pytest.fixture(scope="module")
def replays(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One replay per game, played on the fake transport (seed 11)."""
    out = tmp_path_factory.mktemp("frames")
    return {game: fair_game(out / f"{game}.jsonl", game, seats, seed=11) for game, seats in SEATS.items()}


def expected_views(replay: Path, seat: int) -> list[dict[str, object]]:
    """Seat's view after each step, re-played here from the file's decisions by the engine alone."""
    records = read_replay(replay)
    header = records[0]
    state = get_game(header["game"]).new_game(len(header["seats"]), header["options"], header["seed"])
    out = [json.loads(json.dumps(state.view(seat)))]
    played: dict[int, object] = {}
    for r in records:
        if r["type"] == "decision":
            played[r["seat"]] = r["played"]
        elif r["type"] == "events":
            state.apply(played)
            played = {}
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
        assert delta_decode(deltas) == expected_views(replays["kodama-draft"], int(seat))
    mine = viewer_data(record, Perspective(2))
    assert list(mine["views"]) == ["2"] and mine["views"]["2"] == whole["views"]["2"]
    assert mine["result"]["points"] == list(record.points)


def test_a_seat_page_does_not_embed_the_seed_the_organisers_does(replays: dict[str, Path]) -> None:
    """Issue 21: the seed is every hand; `arena view --seat K` must not carry it."""
    replay = replays["kolpa"]
    seed = read_replay(replay)[0]["seed"]
    record = load_game_record(replay)
    assert viewer_data(record, Perspective(None))["seed"] == str(seed)
    for seat in range(len(record.players)):
        data = viewer_data(record, Perspective(seat))
        assert data["seed"] is None and f'"seed": "{seed}"' not in json.dumps(data)
    page = replay.parent / "seat0.html"
    result = CliRunner().invoke(main, ["view", str(replay), "--seat", "0", "-o", str(page)])
    text = page.read_text(encoding="utf-8")
    assert result.exit_code == 0
    shown = read_data(text)
    assert isinstance(shown, dict) and shown["seed"] is None

    def seeds(value: object) -> list[object]:  # every value under a key that names a seed, anywhere
        if isinstance(value, dict):
            return [v for k, v in value.items() if "seed" in k] + [x for v in value.values() for x in seeds(v)]
        return [x for v in value for x in seeds(v)] if isinstance(value, list) else []

    assert seeds(shown) == [None]


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
    # a replay that reads well but does not agree with the game: the re-simulation names the line
    result_line = json.loads(lines[-1])
    result_line["points"] = [p + 1 for p in result_line["points"]]
    forged = tmp_path / "forged.jsonl"
    forged.write_text("\n".join(lines[:-1] + [json.dumps(result_line, separators=(",", ":"))]) + "\n")
    result = CliRunner().invoke(main, ["view", str(forged)])
    assert result.exit_code == 2, result.output
    assert f"line {len(lines)}: 'points'" in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
    old_format = tmp_path / "format1.jsonl"
    header = json.loads(lines[0])
    header["format"] = 1
    old_format.write_text("\n".join([json.dumps(header, separators=(",", ":"))] + lines[1:]) + "\n")
    result = CliRunner().invoke(main, ["view", str(old_format)])
    assert result.exit_code == 2 and "this arena reads formats 2, 3" in result.output and "Traceback" not in result.output
    result = CliRunner().invoke(main, ["view", str(replays["kolpa"]), "--seat", "7"])
    assert result.exit_code == 2 and "seat 7 does not exist" in result.output


@given(st.recursive(st.text() | st.integers(-(2**63), 2**63 - 1) | st.none(), lambda c: st.lists(c) | st.dictionaries(st.text(), c), max_leaves=20))
def test_embedded_json_round_trips_and_never_holds_a_tag(value: object) -> None:
    text = embed_json(value)  # type: ignore[arg-type]
    assert "<" not in text
    assert json.loads(text) == value
