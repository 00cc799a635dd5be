"""A class's competition on a real `arena serve` on loopback, driven as a teacher and students would: 30
accounts imported from a CSV while the server runs, a bot submitted, the phase moved by the CLI (out of
order refused), `arena submit` after the deadline (exit 3, "uploads closed since"), tokens reset, a backup
taken while the server runs and restored after it stops; and SIGKILL in the middle of an account import
or a phase change leaves them as before or as after."""

from __future__ import annotations

import csv
import os
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.server.bots import ROOT
from tests.server.server import ADMIN, ServerProcess
from tests.server.test_submit_cli import ARENA, arena, good_folder

pytestmark = [pytest.mark.process, pytest.mark.sandbox]


def class_csv(folder: Path, n: int = 30) -> Path:
    path = folder / "students.csv"
    rows = ["name,display name,email,team"] + [f"s{i:02d},Student {i},s{i}@school.example,{'team-a' if i < 3 else ''}"
                                               for i in range(n)]
    path.write_text("\n".join(rows) + "\n")
    return path


def serve(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return arena("serve", str(config), *args, env={"ARENA_ADMIN_TOKEN": ADMIN})


def with_phases(server: ServerProcess, section: str) -> ServerProcess:
    server.config.write_text(server.config.read_text() + section)
    return server


def test_a_class_competition_from_accounts_to_backup(tmp_path: Path) -> None:
    server = with_phases(ServerProcess(tmp_path), "phases: {deadline: '2099-01-01T12:00:00+01:00', timezone: Europe/Paris}\n")
    server.start()
    try:
        students = class_csv(tmp_path)
        done = serve(server.config, "accounts", "import", str(students))
        assert done.returncode == 0 and "imported 30 people (1 teams)" in done.stdout, done.stdout + done.stderr
        sheet = tmp_path / "students-tokens.csv"
        assert stat.S_IMODE(sheet.stat().st_mode) == 0o600
        tokens = {r["name"]: r["token"] for r in csv.DictReader(sheet.open())}
        assert len(tokens) == 30
        again = serve(server.config, "accounts", "import", str(students))
        assert again.returncode == 2 and "written once" in again.stderr and "Traceback" not in again.stderr
        assert server.get("/api/v1/me", tokens["s01"]).json()["participant"] == "team-a"
        assert server.get("/api/v1/me", tokens["s02"]).json()["participant"] == "team-a"

        env = {"ARENA_SERVER": server.url, "ARENA_TOKEN": tokens["s05"]}
        first = arena("submit", str(good_folder(tmp_path)), "--games", "0", env=env)  # the control: open, taken
        assert first.returncode == 0 and "joined the ladder" in first.stdout, first.stdout + first.stderr

        wrong = serve(server.config, "phase", "final")
        assert wrong.returncode == 2 and "move it to frozen first" in wrong.stderr and "Traceback" not in wrong.stderr
        assert server.get("/api/v1/phase").json()["phase"] == "open"
        moved = serve(server.config, "phase", "frozen")
        assert moved.returncode == 0 and "frozen since" in moved.stdout and "open -> frozen by organiser (CLI" in moved.stdout
        assert server.get("/api/v1/phase").json()["phase"] == "frozen"  # the running server sees it at once
        assert 'data-phase="frozen"' in server.get("/").text
        status = arena("ladder", "status", env={"ARENA_SERVER": server.url})
        assert status.stdout.splitlines()[-1].startswith("phase: frozen; uploads closed since "), status.stdout

        late = arena("submit", str(tmp_path / "mybot"), "--games", "0", env=env)
        assert late.returncode == 3, late.stdout + late.stderr
        assert late.stdout.startswith("uploads closed since ") and "(UTC+0" in late.stdout

        unknown = serve(server.config, "accounts", "reset", "nobody")
        assert unknown.returncode == 2 and "no account of that name; nothing changed" in unknown.stderr
        reset = serve(server.config, "accounts", "reset", "s05")
        new = reset.stdout.strip().splitlines()[-1]
        assert server.get("/api/v1/me", tokens["s05"]).status_code == 401 and server.get("/api/v1/me", new).status_code == 200

        archive = tmp_path / "backup.tar.gz"
        taken = serve(server.config, "backup", str(archive))  # while the server runs
        assert taken.returncode == 0 and archive.is_file(), taken.stderr
        refused = serve(server.config, "restore", str(archive), "--force")
        assert refused.returncode == 2 and "a server is running" in refused.stderr
    finally:
        server.stop()
    refused = serve(server.config, "restore", str(archive))
    assert refused.returncode == 2 and "not empty" in refused.stderr and "--force" in refused.stderr
    restored = serve(server.config, "restore", str(archive), "--force")
    assert restored.returncode == 0, restored.stderr
    server.start()  # after a restart and a restore: the phase, the accounts and the bot are all there
    try:
        assert server.get("/api/v1/phase").json()["phase"] == "frozen"
        assert server.get("/api/v1/me", new).status_code == 200
        assert len(server.get("/api/v1/admin/accounts", ADMIN).json()["accounts"]) == 30
        assert any(b["participant"] == "Student 5" for b in server.get("/api/v1/leaderboard").json()["leaderboard"])
    finally:
        server.stop()


def test_an_upload_after_the_configured_deadline_is_refused(tmp_path: Path) -> None:
    server = with_phases(ServerProcess(tmp_path), "phases: {deadline: 2020-06-01T09:30:00Z}\n").start()
    try:
        token = server.add("late")
        refused = server.post("/api/v1/submissions", token, content=b"any bytes")
        assert refused.status_code == 403
        assert refused.json()["error"].startswith("uploads closed since 2020-06-01 09:30 (UTC+00:00)")
        history = server.get("/api/v1/admin/phase", ADMIN).json()["history"]
        assert [(h["from"], h["to"], h["who"]) for h in history] == [("open", "frozen", "schedule")]
    finally:
        server.stop()


KILLER = textwrap.dedent("""
    import contextlib, os, signal, sys
    from arena.ladder.db import Database
    prefix, nth = sys.argv[1], int(sys.argv[2])
    real = Database.write
    seen = [0]

    class Dying:
        def __init__(self, conn):
            self.conn = conn
        def execute(self, sql, *args):
            result = self.conn.execute(sql, *args)
            if sql.startswith(prefix):
                seen[0] += 1
                if seen[0] == nth:
                    os.kill(os.getpid(), signal.SIGKILL)  # inside the transaction, before its commit
            return result
        def __getattr__(self, name):
            return getattr(self.conn, name)

    @contextlib.contextmanager
    def write(self):
        with real(self) as conn:
            yield Dying(conn)

    Database.write = write
    if prefix == "-":  # after the commit: die as the token sheet is given its name
        os.link = lambda *a: os.kill(os.getpid(), signal.SIGKILL)
    from arena.cli import main
    sys.argv = ["arena", *sys.argv[3:]]
    main()
""")


def killed(prefix: str, nth: int, *args: str) -> int:
    done = subprocess.run([sys.executable, "-c", KILLER, prefix, str(nth), *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "ARENA_ADMIN_TOKEN": ADMIN}, cwd=ROOT)
    return done.returncode


def test_sigkill_during_an_account_import_leaves_all_or_nothing(tmp_path: Path) -> None:
    config = ServerProcess(tmp_path).config
    students = class_csv(tmp_path)
    sheet = tmp_path / "students-tokens.csv"
    assert killed("INSERT INTO people", 15, "serve", str(config), "accounts", "import", str(students)) == -signal.SIGKILL
    listed = serve(config, "accounts", "list")
    assert listed.stdout.strip().splitlines()[-1] == "0 accounts" and not sheet.exists()  # before: none of them
    assert killed("-", 0, "serve", str(config), "accounts", "import", str(students)) == -signal.SIGKILL
    assert serve(config, "accounts", "list").stdout.strip().splitlines()[-1] == "30 accounts"  # after: all of them
    assert not sheet.exists() and (tmp_path / "students-tokens.csv.partial").exists()
    finished = serve(config, "accounts", "import", str(students))  # the rerun names the sheet the kill left
    assert finished.returncode == 0 and "cut short after it was stored is finished" in finished.stdout, finished.stderr
    assert len(list(csv.DictReader(sheet.open()))) == 30


def test_sigkill_during_a_phase_change_leaves_it_before_or_after(tmp_path: Path) -> None:
    config = ServerProcess(tmp_path).config
    assert killed("INSERT INTO phase_changes", 1, "serve", str(config), "phase", "frozen") == -signal.SIGKILL
    shown = serve(config, "phase", "show")
    assert shown.stdout.startswith("srvtest: open since the start"), shown.stdout + shown.stderr  # before
    assert serve(config, "phase", "frozen").returncode == 0  # the control: unkilled, it is made
    assert serve(config, "phase", "show").stdout.startswith("srvtest: frozen since")
