"""`output.keep_logs: true`: every replay of a tournament holds its bots' stderr lines, per step."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable

import pytest

from arena.errors import ConfigError
from arena.audit.verify import verify_replay
from arena.replay import load_replay
from arena.tournament.config import tournament as tconfig
from arena.tournament.run import runner

pytestmark = pytest.mark.process

LOG_BOT = Path(__file__).resolve().parents[2] / "referee" / "bots" / "log_bot.py"


def config(output: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": "logs", "game": "kodama-duo", "players": 2, "seed": 1, "schedule": {"rounds": 1},
        "entrants": [{"name": f"b{i}", "command": [sys.executable, str(LOG_BOT), "step"]} for i in range(2)],
        "output": output,
    }


def test_keep_logs_puts_each_steps_lines_in_every_replay(write_config: Callable[..., Path], tmp_path: Path) -> None:
    cfg = tconfig.load(write_config(config({"store": "s.sqlite", "replays": "replays", "keep_logs": True})))
    assert cfg.keep_logs
    runner.run(cfg, concurrency=1, quiet=True)
    replays = sorted((tmp_path / "replays").glob("*.jsonl"))
    assert replays
    for path in replays:
        logs = load_replay(path).logs
        assert logs and all(log.lines == (f"step {log.step}",) for log in logs)
        verify_replay(path)
    plain = tconfig.load(write_config(config({"store": "p.sqlite", "replays": "plain"}), "p.yaml"))
    runner.run(plain, concurrency=1, quiet=True)
    assert all(not load_replay(p).logs for p in (tmp_path / "plain").glob("*.jsonl"))


def test_keep_logs_without_replays_says_what_to_set(write_config: Callable[..., Path]) -> None:
    with pytest.raises(ConfigError, match="output.keep_logs: the logs are kept in the replays: set output.replays"):
        tconfig.load(write_config(config({"keep_logs": True})))
