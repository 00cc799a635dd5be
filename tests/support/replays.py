"""Replays as JSON records for the verify tests: read, forge, write, expect a refusal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest

from arena.errors import ReplayError
from arena.replay import load_replay
from arena.audit.verify import verify_replay

Records = list[dict[str, Any]]


def records(path: Path) -> Records:
    return [json.loads(line) for line in path.read_text().splitlines()]


def write(tmp_path: Path, recs: Records) -> Path:
    path = tmp_path / "forged.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def rejected(tmp_path: Path, recs: Records, pattern: str) -> str:
    """Verify must refuse the forgery with a message matching `pattern`; returns the message."""
    path = write(tmp_path, recs)
    with pytest.raises(ReplayError, match=pattern) as caught:
        verify_replay(path)
    message = str(caught.value)
    assert "\n" not in message and str(path) in message
    return message


def index(recs: Records, pred: Callable[[dict[str, Any]], bool], nth: int = 0) -> int:
    return [i for i, r in enumerate(recs) if pred(r)][nth]


def is_bot(r: dict[str, Any]) -> bool:
    return r["type"] == "decision" and r["source"] == "bot"


def branch_of(path: Path, at_step: int) -> Records:
    """What `arena replay --from-step` will write: the steps before `at_step` recorded, the rest played."""
    recs = records(path)
    recs[0]["branch"] = {"of": load_replay(path).sha256, "at_step": at_step}
    out: Records = []
    for r in recs:
        if r["type"] == "commit" and r["step"] < at_step:
            continue
        if r["type"] == "decision" and r["step"] < at_step:
            r = {k: r[k] for k in ("type", "step", "seat", "played")} | {"source": "recorded"}
        out.append(r)
    return out


SALT = "0" * 32


def fault(seat: int, step: int, kind: str = "timeout", request_id: int | None = None) -> dict[str, Any]:
    return {"type": "fault", "seat": seat, "kind": kind, "step": step, "request_id": request_id, "detail": "d",
            "stderr_tail": []}


def first_of_step(recs: Records, step: int) -> int:
    return index(recs, lambda r: r["type"] != "fault" and r.get("step") == step)
