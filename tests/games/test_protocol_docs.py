"""protocol.md's game references are generated from the built-in games' specs (tools/protocol-docs), and
those specs' view schemas are what the engines emit (the conformance check 'documented')."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from arena.games import get_game
from arena.games.base import GameSpec
from arena.games.conformance import CHECKS
from arena.games.docs import generated_games, protocol_reference, regenerate, undocumented
from arena.games.invariants import check_spec

ROOT = Path(__file__).resolve().parents[2]
BUILT_IN = ["kododo", "kolpa", "kodama-duo", "kodama-draft"]


def protocol_md() -> str:
    return (ROOT / "protocol.md").read_text(encoding="utf-8")


def test_protocol_md_holds_a_generated_reference_for_each_built_in_game_as_its_spec_writes_it():
    text = protocol_md()
    assert generated_games(text) == BUILT_IN
    assert regenerate(text, get_game) == text, "protocol.md's generated blocks are stale: run tools/protocol-docs"
    for name in BUILT_IN:
        assert f"<!-- generated: arena games --protocol {name} -->\n{protocol_reference(get_game(name))}<!-- end generated -->" in text


def test_control_a_spec_documented_differently_makes_protocol_md_stale():
    """The comparison above fails when a spec changes: a member's description, or a member added."""
    text = protocol_md()
    kolpa = get_game("kolpa")
    assert kolpa.view_schema is not None
    members = dict(kolpa.view_schema["properties"])
    members["hand"] = {**members["hand"], "description": "Your cards, unsorted."}
    changed = dataclasses.replace(kolpa, view_schema={**kolpa.view_schema, "properties": members})

    def lookup(name: str) -> GameSpec:
        return changed if name == "kolpa" else get_game(name)

    fresh = regenerate(text, lookup)
    assert fresh != text and "Your cards, unsorted." in fresh
    assert regenerate(fresh, get_game) == text  # regenerating is the whole rewrite: back to the specs' text


@pytest.mark.process
def test_the_tool_finds_a_stale_block_and_rewrites_it(tmp_path):
    tool, doc = ROOT / "tools" / "protocol-docs", tmp_path / "protocol.md"
    run = lambda *args: subprocess.run([sys.executable, str(tool), *args], capture_output=True, text=True)  # noqa: E731
    assert run("--check").returncode == 0  # the checkout's documents are current
    doc.write_text(protocol_md().replace("| `over` | boolean | True once the game is over. |", "| `over` | boolean | Stale. |"))
    stale = run("--check", str(doc))
    assert stale.returncode == 1 and "differ from the specs" in stale.stdout
    assert run(str(doc)).returncode == 0 and doc.read_text() == protocol_md()
    assert run("--check", str(doc)).returncode == 0


@pytest.mark.parametrize("name", BUILT_IN)
def test_every_view_of_a_built_in_game_is_what_its_schema_documents(name):
    spec = get_game(name)
    assert spec.view_schema is not None and spec.action_schema is not None and spec.rules
    blind = tuple(c for c in CHECKS if c != "documented")
    verdicts = {v.check: v for v in check_spec(spec, examples=3, deep_every=1000, blind=blind)}
    assert verdicts["documented"].passed, verdicts["documented"].line()


def test_documented_refuses_a_member_of_another_type_and_an_extra_or_missing_one():
    spec = get_game("kolpa")
    view = spec.new_game(2, None, 1).view(0)
    assert undocumented(spec, view) is None  # the control: the engine's own view agrees
    assert "hand (str, documented array)" in (undocumented(spec, {**view, "hand": "B1"}) or "")
    assert "'secret'" in (undocumented(spec, {**view, "secret": 1}) or "")
    assert "'over'" in (undocumented(spec, {k: v for k, v in view.items() if k != "over"}) or "")


def _steps(game: str, options: dict[str, int], seed: int) -> int:
    import random

    state = get_game(game).new_game(2, options, seed)
    rng, steps = random.Random(seed), 0
    while state.to_move():
        state.apply({s: rng.choice(state.legal_actions(s)) for s in state.to_move()})
        steps += 1
    return steps


def test_kolpas_documented_bound_is_its_safety_rules_defaults():
    """A Kolpa! step is one turn, so its safety rules bound a game at max_rounds x max_turns_per_round steps,
    a bound random play reaches under small caps; the generated reference says the defaults' bound (it said
    100000, the generic default, under Kolpa's own 1000 x 1000)."""
    spec = get_game("kolpa")
    defaults = spec.resolve_options({})
    assert spec.max_steps == defaults["max_rounds"] * defaults["max_turns_per_round"]
    caps = {"max_turns_per_round": 2, "max_rounds": 3, "target": 10**6}
    lengths = [_steps("kolpa", caps, seed) for seed in range(20)]
    assert max(lengths) == 2 * 3 and all(n <= 2 * 3 for n in lengths)
    assert f"Each game ends within {spec.max_steps:,} steps with the default options." in protocol_reference(spec)
