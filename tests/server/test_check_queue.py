"""The checker keeps up with a crowd of uploaders (issue 36, load): a fair queue (one check at a time per
participant, the participant waiting longest first, only a participant's newest waiting submission
checked, the older ones refused naming it), checks `ladder.check_workers` at a time, and the steps of one
check (check-bot and the games against the house bots) at once, the first refusal ending the others.

Each with its control: the queue as it was (oldest first, every submission checked) lets one participant's
uploads hold up another's; the steps one after the other never overlap."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from arena.ladder import checker as checker_module
from arena.ladder.checker import Checker, Verdict
from arena.ladder.config import parse
from arena.ladder.db import Database, now
from arena.ladder.states import SubmissionState
from arena.ladder.supervisor import Part


def _config(tmp_path: Path, **ladder: Any) -> Any:
    house = [{"name": "h", "command": ["python3", "house.py"]}]
    return parse({"name": "q", "game": "kododo", "players": 2, "data": str(tmp_path / "data"), "house_bots": house,
                  "ladder": {"check_games": 2, **ladder}}, tmp_path / "q.yaml")


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    (tmp_path / "data").mkdir()
    store = Database(tmp_path / "data" / "q.sqlite")
    with store.write() as conn:
        for who in ("alice", "bob"):
            conn.execute("INSERT INTO participants (name, token_hash, created) VALUES (?, ?, ?)", (who, who, now()))
    yield store
    store.close()


def _upload(db: Database, participant: int, n: int = 1) -> list[int]:
    ids = []
    with db.write() as conn:
        for _ in range(n):
            manifest = json.dumps({"name": "b", "version": "1", "command": ["true"]})
            cur = conn.execute("INSERT INTO submissions (participant_id, created, status, manifest) VALUES (?, ?, ?, ?)",
                               (participant, now(), SubmissionState.RECEIVED, manifest))
            ids.append(int(cur.lastrowid or 0))
    return ids


def _status(db: Database, sub: int) -> tuple[str, str]:
    row = db.one("SELECT status, reason FROM submissions WHERE id = ?", sub)
    assert row is not None
    return str(row["status"]), str(row["reason"])


@pytest.mark.parametrize("fair", [True, False], ids=["fair", "control-oldest-first"])
def test_one_participants_uploads_do_not_hold_up_another(tmp_path: Path, db: Database, monkeypatch: pytest.MonkeyPatch,
                                                          fair: bool) -> None:
    monkeypatch.setattr(Checker, "FAIR", fair)
    checker = Checker(db, _config(tmp_path), False, lambda _bot: None)
    alice = _upload(db, 1, 50)
    bob = _upload(db, 2)
    first, second = checker.claim(), checker.claim()  # two check workers: both claimed before either ends
    assert first is not None and second is not None
    if fair:
        assert (first["id"], second["id"]) == (alice[-1], bob[0])  # alice's newest, then bob at once
        refused = [_status(db, s) for s in alice[:-1]]
        assert all(st == SubmissionState.REFUSED and f"your submission {alice[-1]}" in why for st, why in refused)
        assert checker.claim() is None  # alice's is being checked, bob's too: nothing else waits
    else:
        assert (first["id"], second["id"]) == (alice[0], alice[1])  # bob waits behind all fifty of alice's
        assert _status(db, bob[0])[0] == SubmissionState.RECEIVED


def test_checks_run_check_workers_at_a_time(tmp_path: Path, db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    at_once, peak, lock = [0], [0], threading.Lock()

    def stand_in(*args: Any, **kwargs: Any) -> Verdict:
        with lock:
            at_once[0] += 1
            peak[0] = max(peak[0], at_once[0])
        time.sleep(0.3)
        with lock:
            at_once[0] -= 1
        return Verdict(False, "stand-in", "")

    monkeypatch.setattr(checker_module, "check_submission", stand_in)
    checker = Checker(db, _config(tmp_path, check_workers=3), False, lambda _bot: None)
    subs = _upload(db, 1) + _upload(db, 2) + [*_upload(db, 1)]
    part = Part("checker", checker.run, 60.0)
    thread = threading.Thread(target=checker.run, args=(part,), daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and any(_status(db, s)[0] != SubmissionState.REFUSED for s in subs):
            time.sleep(0.05)
    finally:
        part.stopping.set()
        thread.join(10)
    assert all(_status(db, s)[0] == SubmissionState.REFUSED for s in subs)
    assert peak[0] == 2  # alice's two make one check (her newest), beside bob's: never two of one participant


STEP = """import json, os, sys, time
from pathlib import Path
began = time.monotonic()
kind = sys.argv[1]
mode = Path("mode").read_text()
if mode == "game-first":  # a game refuses at once, check-bot (which refuses too) takes longer
    time.sleep(2.0 if kind == "check-bot" else 0.1)
else:
    time.sleep(30 if kind == "play" and "refuse" in mode else 0.6)
with open("steps.log", "a") as log:
    log.write(f"{kind} {began} {time.monotonic()} {os.nice(0)}\\n")
if mode == "game-first":
    if kind == "check-bot":
        print("FAIL handshake: it never said hello")
    sys.exit(1)
if kind == "check-bot":
    if "refuse" in Path("mode").read_text():
        print("FAIL handshake: it never said hello")
        sys.exit(1)
else:
    print(json.dumps({"points": [1, 0], "ranks": [1, 2], "faults": [], "close_faults": []}))
"""


def _steps(folder: Path, mode: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
           ) -> tuple[Verdict, list[tuple[str, float, float, int]], float]:
    script = tmp_path / "fake_arena.py"
    script.write_text(STEP)
    monkeypatch.setattr(checker_module, "ARENA", [sys.executable, str(script)])
    folder.mkdir()
    (folder / "mode").write_text(mode)
    began = time.monotonic()
    verdict = checker_module.check_submission(_config(tmp_path), ("python3", "bot.py"), str(folder), sandbox=False)
    took = time.monotonic() - began
    log = folder / "steps.log"
    steps = [(k, float(a), float(b), int(n)) for k, a, b, n in (line.split() for line in log.read_text().splitlines())
             ] if log.exists() else []
    return verdict, steps, took


@pytest.mark.process
@pytest.mark.parametrize("parallel", [True, False], ids=["at-once", "control-one-after-another"])
def test_the_steps_of_a_check_run_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parallel: bool) -> None:
    monkeypatch.setattr(checker_module, "PARALLEL_STEPS", parallel)
    verdict, steps, _ = _steps(tmp_path / "bot", "pass", monkeypatch, tmp_path)
    assert verdict.passed, verdict.reason
    assert sorted(k for k, _, _, _ in steps) == ["check-bot", "play", "play"]
    assert verdict.report.index("check-bot") < verdict.report.index("check game 1") < verdict.report.index("check game 2")
    overlap = max(a for _, a, _, _ in steps) < min(b for _, _, b, _ in steps)
    assert overlap is parallel


@pytest.mark.process
def test_the_first_refusal_ends_the_other_steps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    verdict, steps, took = _steps(tmp_path / "bot", "refuse", monkeypatch, tmp_path)
    assert not verdict.passed and verdict.reason.startswith("check-bot failed: FAIL handshake")
    assert [k for k, _, _, _ in steps] == ["check-bot"]  # the games (30 s each) were killed, not waited for
    assert took < 15


@pytest.mark.process
def test_check_bots_refusal_is_the_verdict_even_when_a_game_refuses_first(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A game that fails at once does not kill check-bot: its report (the handshake) says most about what
    is wrong, and it comes first in the verdict (the broken bot of tests/server/test_end_to_end.py)."""
    verdict, steps, _ = _steps(tmp_path / "bot", "game-first", monkeypatch, tmp_path)
    assert not verdict.passed and verdict.reason.startswith("check-bot failed: FAIL handshake"), verdict.reason
    assert "check-bot" in [k for k, _, _, _ in steps]


@pytest.mark.process
@pytest.mark.parametrize("nice", [10, 0], ids=["below-the-server", "control-same-priority"])
def test_a_checks_processes_run_below_the_servers_priority(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, nice: int) -> None:
    """Under contention the server's own threads (its pages and API: the leaderboard's latency) come first."""
    monkeypatch.setattr(checker_module, "CHECK_NICE", nice)
    _, steps, _ = _steps(tmp_path / "bot", "pass", monkeypatch, tmp_path)
    assert steps and {n for _, _, _, n in steps} == {os.nice(0) + nice}


def _folder_upload(db: Database, tmp_path: Path, participant: int, version: str, code: str) -> int:
    folder = tmp_path / f"sub-{participant}-{version}"
    folder.mkdir()
    (folder / "bot.py").write_text(code)
    (folder / "manifest.json").write_text(json.dumps({"name": "b", "version": version}))
    manifest = json.dumps({"name": "b", "version": version, "command": ["python3", str(folder / "bot.py")]})
    with db.write() as conn:
        cur = conn.execute("INSERT INTO submissions (participant_id, created, status, manifest, folder) VALUES (?, ?, ?, ?, ?)",
                           (participant, now(), SubmissionState.RECEIVED, manifest, str(folder)))
    return int(cur.lastrowid or 0)


@pytest.mark.parametrize("reuse", [True, False], ids=["reused", "control-checked-again"])
def test_the_same_program_again_is_not_checked_again(tmp_path: Path, db: Database, monkeypatch: pytest.MonkeyPatch,
                                                     reuse: bool) -> None:
    """A participant's upload of a program that already passed (other version number, same files and command,
    same setup) passes without a check; a changed file, or another participant's copy, is checked."""
    monkeypatch.setattr(Checker, "REUSE", reuse)
    checked: list[str] = []

    def stand_in(config: Any, command: tuple[str, ...], folder: str, *args: Any, **kwargs: Any) -> Verdict:
        checked.append(Path(folder).name)
        return Verdict(True, "stand-in", "")

    monkeypatch.setattr(checker_module, "check_submission", stand_in)
    checker = Checker(db, _config(tmp_path), False, lambda _bot: None)
    subs = [_folder_upload(db, tmp_path, 1, "1", "A"), _folder_upload(db, tmp_path, 1, "2", "A"),
            _folder_upload(db, tmp_path, 1, "3", "B"), _folder_upload(db, tmp_path, 2, "1", "A")]
    for sub in subs:
        row = db.one("SELECT * FROM submissions WHERE id = ?", sub)
        checker.check_one(row)
    assert all(_status(db, s)[0] == SubmissionState.PASSED for s in subs)
    if reuse:
        assert checked == ["sub-1-1", "sub-1-3", "sub-2-1"]
        assert f"the same program as your submission {subs[0]}" in _status(db, subs[1])[1]
    else:
        assert checked == ["sub-1-1", "sub-1-2", "sub-1-3", "sub-2-1"]


@pytest.mark.parametrize("mine_kept", [True, False], ids=["kept", "control-every-checking-row-reset"])
def test_a_restarted_checker_loop_does_not_check_a_submission_in_flight_again(
        tmp_path: Path, db: Database, monkeypatch: pytest.MonkeyPatch, mine_kept: bool) -> None:
    release, calls = threading.Event(), []

    def stand_in(*args: Any, **kwargs: Any) -> Verdict:
        calls.append(1)
        release.wait(20)
        return Verdict(False, "stand-in", "")

    monkeypatch.setattr(checker_module, "check_submission", stand_in)
    if not mine_kept:
        def reset_all(self: Checker) -> None:
            with self.db.write() as conn:
                conn.execute("UPDATE submissions SET status = ? WHERE status = ?", (SubmissionState.RECEIVED, SubmissionState.CHECKING))
        monkeypatch.setattr(Checker, "recover", reset_all)
    checker = Checker(db, _config(tmp_path), False, lambda _bot: None)
    sub = _upload(db, 1)[0]
    loops = []
    for _ in range(2):  # the loop, then the loop again as the supervisor restarts it, the first check in flight
        part = Part("checker", checker.run, 60.0)
        loop = threading.Thread(target=checker.run, args=(part,), daemon=True)
        loop.start()
        deadline = time.monotonic() + 10
        while not calls and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(1.5)  # the restarted loop has had time to claim what it finds
        part.stopping.set()
        checker.wake.set()
        loop.join(10)
        loops.append(part)
    release.set()
    deadline = time.monotonic() + 10
    while _status(db, sub)[0] != SubmissionState.REFUSED and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(calls) == (1 if mine_kept else 2)
