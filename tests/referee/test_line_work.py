"""No bot's output can delay the stamping of another's answer (issue 21, item 4b).

The attack is a real bot (`bots/heavy_line_bot.py attacker`) writing three ~1 MB malformed lines just
before its neighbour answers; the neighbour answers 500 ms into a 1000 ms decision. The referee's
work on any line is bounded (a fault's description of a huge value looks at its first items only),
so the neighbour is never charged a time-out.
"""

from __future__ import annotations

import pytest
import json
import sys
import time
from pathlib import Path
from typing import Any

from click.testing import CliRunner

import arena.protocol as protocol
from arena.protocol import wording
from arena.cli import main

pytestmark = pytest.mark.process

BOT = Path(__file__).parent / "bots" / "heavy_line_bot.py"


def play() -> dict[str, Any]:
    result = CliRunner().invoke(main, [
        "play", "kododo", "--json", "--decision-ms", "1000",
        "--bot", f"{sys.executable} {BOT} attacker", "--bot", f"{sys.executable} {BOT} innocent",
    ])
    assert result.exit_code == 0, result.output
    return dict(json.loads(result.stdout))


def innocent_timeouts(result: dict[str, Any]) -> int:
    return sum(1 for f in result["faults"] if f["seat"] == 1 and f["kind"] == "timeout")


def test_a_neighbours_heavy_lines_do_not_make_an_innocent_bot_late():
    result = play()
    attacker = [f["kind"] for f in result["faults"] if f["seat"] == 0]
    assert "malformed_json" in attacker and set(attacker) <= {"malformed_json", "unexpected_answer"}  # charged to the attacker
    assert innocent_timeouts(result) == 0, f"{innocent_timeouts(result)} time-outs charged to the innocent bot"



def _old(value: Any, limit: int = protocol.PREVIEW_CHARS) -> str:
    parts: list[str] = []
    stack: list[Any] = [value]
    size = 0
    while stack and size <= limit:
        item = stack.pop()
        if isinstance(item, _Raw):
            text = item.text
        elif type(item) is list:
            stack.append(_Raw("]"))
            stack.extend(reversed([x for pair in ((_Raw(", "), v) for v in item) for x in pair][1:]))
            text = "["
        else:
            text = repr(item)
        parts.append(text)
        size += len(text)
    text = "".join(parts)
    return text if len(text) <= limit and not stack else text[: limit - 3] + "..."


class _Raw:
    def __init__(self, text: str) -> None:
        self.text = text


def _old_on_a_slow_machine(value: Any) -> str:
    """The old preview, as slow as the machine it was measured on (1.28 s per 1 MB line): on a fast, quiet
    machine `_old` alone ends before the innocent's deadline, and the control would pass or fail by load."""
    started = time.monotonic()
    text = _old(value)
    time.sleep(max(0.0, OLD_WORK_S - (time.monotonic() - started)))
    return text


OLD_WORK_S = 1.28


def test_control_with_unbounded_work_on_a_line_the_innocent_bot_times_out(monkeypatch):
    monkeypatch.setattr(wording, "preview", _old_on_a_slow_machine)  # where the compiled exchange looks it up
    assert innocent_timeouts(play()) >= 1


def test_a_preview_of_a_huge_value_is_short_and_says_it_was_cut():
    for value in ([0] * 500_000, {str(i): [i] for i in range(200_000)}, [[0] * 300_000]):
        text = protocol.preview(value)
        assert len(text) <= protocol.PREVIEW_CHARS and text.endswith("...")
    assert protocol.preview([1, 2, 3]) == "[1, 2, 3]" and protocol.preview({"a": [1]}) == "{'a': [1]}"
