"""`arena verify` checks recorded times against the clock and a branch against its original (issue 21,
item 6). Each forgery is made on a real replay (`arena play`, `arena replay`) the way a participant
would: by editing its lines; the control shows the rules alone accept it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

from arena.errors import ReplayError
from arena.replay import load_replay
from arena.audit.verify import ReplayMismatch, resimulate
from arena.audit.verify_branch import check_branch
from arena.audit.verify_clock import check_clock as clock_check

pytestmark = pytest.mark.process


def check_clock(replay):
    clock_check(replay, lambda line, problem: ReplayMismatch(replay.source, line, problem))

ROOT = Path(__file__).resolve().parents[2]
ARENA = str(Path(sys.executable).parent / "arena")
DET = f"{sys.executable} {ROOT / 'tests' / 'tournament' / 'bots' / 'det_bot.py'}"


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ARENA, *args], capture_output=True, text=True, timeout=300, cwd=cwd)


def play(tmp_path: Path, name: str, *extra: str, seed: str = "5") -> Path:
    path = tmp_path / name
    done = arena("play", "kododo", "--bot", f"{DET} --salt a", "--bot", f"{DET} --salt b", "--seed", seed,
                 "--replay", str(path), "--quiet", "--no-sandbox", *extra, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return path


def forged(path: Path, out: Path, edit: Callable[[dict[str, Any]], bool]) -> Path:
    """A copy of `path` with the first record `edit` changes (it returns True when it changed one)."""
    lines, done = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if not done and edit(record):
            done = True
            line = json.dumps(record, separators=(",", ":"))
        lines.append(line)
    assert done, "nothing to forge"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def bot_decision(elapsed: float) -> Callable[[dict[str, Any]], bool]:
    def edit(record: dict[str, Any]) -> bool:
        if record.get("type") == "decision" and record.get("source") == "bot":
            record["elapsed_ms"] = elapsed
            return True
        return False
    return edit


def rules_alone_accept(path: Path) -> None:
    """The control: the game's rules and commitments, without the clock, find nothing wrong."""
    for _ in resimulate(load_replay(path), detail=False):
        pass


def test_an_answer_recorded_far_beyond_the_decision_time_is_rejected(tmp_path):
    bad = forged(play(tmp_path, "g.jsonl"), tmp_path / "slow.jsonl", bot_decision(50_000.0))
    rules_alone_accept(bad)
    done = arena("verify", str(bad), cwd=tmp_path)
    assert done.returncode == 2 and "'elapsed_ms' 50000.0" in done.stderr and "allowance of 1000.000 ms" in done.stderr


def test_an_answer_beyond_what_the_bank_held_is_rejected_and_real_bank_games_verify(tmp_path):
    path = play(tmp_path, "bank.jsonl", "--bank-ms", "300", "--increment-ms", "5")
    assert arena("verify", str(path), cwd=tmp_path).returncode == 0  # the re-computed bank agrees with the referee's
    replay = load_replay(path)
    check_clock(replay)
    bad = forged(path, tmp_path / "bank-forged.jsonl", bot_decision(350.0))  # under decision_ms, so only the bank can tell
    rules_alone_accept(bad)
    with pytest.raises(ReplayError, match="what its bank held"):
        check_clock(load_replay(bad))


def test_a_time_out_before_the_allowance_ran_out_is_rejected(tmp_path):
    path = tmp_path / "t.jsonl"
    done = arena("play", "kododo", "--bot", f"{DET} --salt a --delay-ms 400", "--bot", f"{DET} --salt b", "--seed", "3",
                 "--decision-ms", "200", "--replay", str(path), "--quiet", "--no-sandbox", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    check_clock(load_replay(path))

    def early(record: dict[str, Any]) -> bool:
        if record.get("type") == "decision" and record.get("fault") == "timeout":
            record["elapsed_ms"] = 3.0
            return True
        return False

    bad = forged(path, tmp_path / "early.jsonl", early)
    rules_alone_accept(bad)
    with pytest.raises(ReplayError, match="a time-out after 3.0 ms, before the allowance of 200 ms ran out"):
        check_clock(load_replay(bad))


def test_a_branch_is_checked_against_its_original_when_given(tmp_path):
    orig = play(tmp_path, "orig.jsonl")
    other = play(tmp_path, "other.jsonl", seed="6")
    what_if = tmp_path / "what-if.jsonl"
    done = arena("replay", str(orig), "--from-step", "4", "--seat", f"0={DET} --salt z", "-o", str(what_if),
                 "--quiet", "--no-sandbox", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    alone = arena("verify", str(what_if), cwd=tmp_path)
    assert alone.returncode == 0 and "unverified: give --original FILE" in alone.stdout
    both = arena("verify", str(what_if), "--original", str(orig), cwd=tmp_path)
    assert both.returncode == 0 and "checked against it" in both.stdout
    wrong = arena("verify", str(what_if), "--original", str(other), cwd=tmp_path)
    assert wrong.returncode == 2 and "SHA-256" in wrong.stderr


def test_a_branch_of_a_replay_that_never_existed_is_reported_when_the_original_is_given(tmp_path):
    orig = play(tmp_path, "orig.jsonl")
    fake = forged(orig, tmp_path / "fake-orig.jsonl", bot_decision(1.0))  # not the game that was played
    what_if = tmp_path / "what-if.jsonl"
    assert arena("replay", str(fake), "--from-step", "3", "-o", str(what_if), "--quiet", "--no-sandbox", cwd=tmp_path).returncode == 0
    with pytest.raises(ReplayError, match="SHA-256"):
        check_branch(load_replay(what_if), load_replay(orig))  # the real original: the branch names another file

    real = tmp_path / "real-branch.jsonl"
    assert arena("replay", str(orig), "--from-step", "3", "-o", str(real), "--quiet", "--no-sandbox", cwd=tmp_path).returncode == 0
    check_branch(load_replay(real), load_replay(orig))
    header = json.loads(real.read_text().splitlines()[0])
    assert header["branch"]["of"] == load_replay(orig).sha256
