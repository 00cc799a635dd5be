"""`arena replay REPLAY --from-step K`: branches through the command line, `arena verify` on them, errors."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from arena.jsonvalue import dumps_str, loads
from arena.replay import Source, load_replay

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[2]
DET = ROOT / "tests" / "tournament" / "bots" / "det_bot.py"


def det(salt: str) -> str:
    return shlex.join([sys.executable, str(DET), "--salt", salt])


def arena(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from arena.cli import main; main()", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=120)


@pytest.fixture(scope="module")
def orig(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "orig.jsonl"
    done = arena("play", "kolpa", "--bot", det("a"), "--bot", det("b"), "--seed", "11", "--replay", str(path), "--quiet",
                 "--no-sandbox")
    assert done.returncode == 0, done.stderr
    return path


def test_a_branch_at_step_0_replays_the_game_and_verifies(orig: Path, tmp_path: Path) -> None:
    out = tmp_path / "b.jsonl"
    done = arena("replay", str(orig), "--from-step", "0", "-o", str(out), "--json", "--no-sandbox")
    assert done.returncode == 0, done.stderr
    data = loads(done.stdout)
    original = load_replay(orig)
    assert isinstance(data, dict) and data["branch"] == {"of": original.sha256, "at_step": 0}
    assert data["points"] == list(original.result.points) == data["original"]["points"]  # type: ignore[index]
    check = arena("verify", str(out))
    assert check.returncode == 0, check.stderr
    assert check.stdout.startswith("ok: ") and check.stdout.rstrip().endswith(f"a branch of {original.sha256[:12]} (unverified: give --original FILE to check it)")


def test_a_branch_with_a_new_bot_in_the_default_sandbox(orig: Path, tmp_path: Path) -> None:
    done = arena("replay", str(orig), "--from-step", "4", "--seat", f"1={det('zz')}", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # no warning: the sandbox runs here, and is on by default as under `arena play`
    out = tmp_path / "orig.from4.jsonl"  # the default output: the original's name, in the current folder
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"branch of {orig} (sha256 ") and "at step 4 of" in lines[0]
    assert "steps 0 to 3 replayed, live from step 4" in lines[0]
    assert lines[1] == f"  seat 0: det_bot.py#0 (its own bot): {det('a')}"  # the same script, other arguments
    assert lines[2] == f"  seat 1: seat1 (new command): {det('zz')}"
    assert any(line.startswith("  step   3 seat ") and line.endswith("(recorded)") for line in lines)
    assert lines[-2] == "replay: orig.from4.jsonl" and lines[-1].startswith("original game: ")
    assert arena("verify", str(out)).returncode == 0
    new, original = load_replay(out), load_replay(orig)
    before = [(d.step, d.seat, d.played) for d in new.body if getattr(d, "source", None) is Source.RECORDED]
    assert before and before == [(d.step, d.seat, d.played) for d in original.body
                                 if getattr(d, "step", 99) < 4 and getattr(d, "played", None) is not None]


def test_a_recorded_seat(orig: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    done = arena("replay", str(orig), "--from-step", "2", "--seat", "1=recorded", "-o", str(out), "--quiet", "--no-sandbox")
    assert done.returncode == 0, done.stderr
    assert "seat 1: recorded-seat1 (recorded actions while legal): " in done.stdout
    assert arena("verify", str(out)).returncode == 0
    new = load_replay(out)
    assert new.header.seats[1].command[1:4] == ("-m", "arena.audit.recorded_bot", str(orig.resolve()))
    assert new.result.points == load_replay(orig).result.points  # nothing changed: the same game


def test_an_old_branch_naming_the_recorded_bots_old_module_still_runs(orig: Path, tmp_path: Path) -> None:
    """Branches made before the recorded bot moved to arena.audit name `-m arena.referee.recorded_bot` in their
    header: branching such a replay again runs that seat's command as today's module. The control: the
    command as written no longer runs."""
    branch = tmp_path / "r.jsonl"
    assert arena("replay", str(orig), "--from-step", "2", "--seat", "1=recorded", "-o", str(branch), "--quiet",
                 "--no-sandbox").returncode == 0
    lines = branch.read_text().splitlines()
    header = loads(lines[0])
    assert isinstance(header, dict)
    command = header["seats"][1]["command"]  # type: ignore[index]
    command[command.index("arena.audit.recorded_bot")] = "arena.referee.recorded_bot"  # type: ignore[union-attr]
    old = tmp_path / "old.jsonl"  # as an older arena wrote it
    old.write_text("\n".join([dumps_str(header)] + lines[1:]) + "\n")
    out = tmp_path / "again.jsonl"
    done = arena("replay", str(old), "--from-step", "1", "-o", str(out), "--quiet", "--no-sandbox")
    assert done.returncode == 0, done.stderr
    again = load_replay(out)
    assert again.result.faults == () and again.result.points == load_replay(orig).result.points
    as_written = subprocess.run(command, input="", capture_output=True, text=True, timeout=60)  # type: ignore[arg-type]
    assert as_written.returncode != 0 and "No module named arena.referee.recorded_bot" in as_written.stderr


@pytest.mark.parametrize("args, message", [
    (("--from-step", "9999"), r"--from-step 9999: the game in .*orig.jsonl has \d+ steps, numbered 0 to \d+"),
    (("--from-step", "1", "--seat", "2=true"), r"--seat 2: the game in .* has seats 0 to 1"),
    (("--from-step", "1", "--seat", "one=true"), r"--seat 'one=true': write it as SEAT=CMD or SEAT=recorded"),
    (("--from-step", "1", "--seat", "1=true", "--seat", "1=recorded"), r"--seat 1 is given twice"),
    (("--from-step", "1", "--seat", "1="), r"--seat '1=': give the command that plays seat 1, or `recorded`"),
    (("--from-step", "1", "--seat", "1='unclosed"), r"--seat .*: cannot split the command \(No closing quotation\)"),
])
def test_errors_are_one_line(orig: Path, tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    import re

    done = arena("replay", str(orig), *args, "-o", str(tmp_path / "x.jsonl"), "--no-sandbox")
    assert done.returncode == 2, done
    assert done.stderr.count("\n") == 1 and re.match(r"arena: error: " + message, done.stderr), done.stderr
    assert not (tmp_path / "x.jsonl").exists()


def test_a_replay_that_does_not_verify_or_the_original_as_output(orig: Path, tmp_path: Path) -> None:
    forged = tmp_path / "forged.jsonl"
    forged.write_text(orig.read_text().replace('"seed":11,', '"seed":12,', 1))
    done = arena("replay", str(forged), "--from-step", "1", "--no-sandbox", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("arena: error: cannot branch from a replay that does not verify: ")
    assert done.stderr.count("\n") == 1
    same = arena("replay", str(orig), "--from-step", "1", "-o", str(orig), "--no-sandbox")
    assert same.returncode == 2 and "that is the original replay" in same.stderr
    assert arena("verify", str(orig)).returncode == 0  # untouched


def test_a_branch_runs_with_the_recorded_game_ms(tmp_path: Path) -> None:
    orig = tmp_path / "limited.jsonl"
    done = arena("play", "kolpa", "--bot", det("a"), "--bot", det("b"), "--seed", "3", "--game-ms", "600000",
                 "--replay", str(orig), "--quiet", "--no-sandbox")
    assert done.returncode == 0, done.stderr
    assert load_replay(orig).header.time_control["game_ms"] == 600000  # the whole time control is recorded
    out = tmp_path / "b.jsonl"
    done = arena("replay", str(orig), "--from-step", "2", "-o", str(out), "--quiet", "--no-sandbox")
    assert done.returncode == 0, done.stderr
    header = load_replay(out).header
    assert header.format == 3 and header.control().game_ms == 600000  # not the default hour


def test_verify_still_reads_format_2(orig: Path, tmp_path: Path) -> None:
    lines = orig.read_text().splitlines()
    header = loads(lines[0])
    assert isinstance(header, dict) and header["format"] == 3
    tc = header["time_control"]
    assert isinstance(tc, dict)
    old = {**header, "format": 2, "time_control": {k: v for k, v in tc.items() if k not in ("shutdown_ms", "game_ms")}}
    v2 = tmp_path / "v2.jsonl"
    v2.write_text("\n".join([dumps_str(old), *lines[1:]]) + "\n")
    assert arena("verify", str(v2)).returncode == 0
    bad = tmp_path / "bad.jsonl"  # a format-2 header holds the old form only
    bad.write_text("\n".join([dumps_str({**old, "time_control": tc}), *lines[1:]]) + "\n")
    done = arena("verify", str(bad))
    assert done.returncode != 0 and "not a time control of replay format 2" in done.stderr and "unknown" in done.stderr
