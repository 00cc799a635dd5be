"""A class's competition from start to finish (issue 37's end-to-end test), as the teacher and the students
run it: a real `arena serve` on loopback, real bots in the sandbox, and only the commands a user types.

30 accounts imported from a CSV; 4 students submit two versions each (`arena submit`), one rolls back
(`arena ladder use`); one challenge reaches its verdict (`arena challenge`); the deadline passes and an
upload is refused; the teacher moves the phase (`arena serve CONFIG phase ...`), plays the final
(`arena serve CONFIG final`), SIGKILLs its whole process group mid-way, runs it again to resume it,
closes the competition (which publishes the results); then the published CSV and JSON, the signed
results file (`arena verify --key`), the server's /results downloads and `arena standings --json` on the
final's store all agree, and the final played each student's chosen version (by the version each bot
says in its hello, which the final's store keeps) under the display names the ladder shows.

Each refusal beside its control, the same request where it is allowed: a third upload in a day (the
two before it taken); an upload after the deadline and after closing (taken while open); a rollback
after the freeze (made while open); a challenge once the ladder stopped for the final (played while
open); closing while the final plays in another process (closed once it has ended); an edited results
file (the published one verifies).

The clock: the deadline is set a day after the test starts; the server is the real `arena serve` whose
phase clock (`Server(clock=...)`, the seam the phases take their time from) is `time.time()` plus the
seconds written in a file the test owns. Writing 86400 + 60 there moves the server a day ahead, so the
deadline passes in the server (recorded as "schedule") without a sleep. The CLI's own processes keep the
real clock: the stored phase (frozen) is what they read.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.competition.test_competition_process import class_csv
from tests.server.bots import SAMPLES, manifest
from tests.server.final.support import stored_indices
from tests.server.server import ADMIN, ServerProcess, wait_for

pytestmark = [pytest.mark.process, pytest.mark.sandbox]

ARENA = [sys.executable, "-c", "import sys; from arena.cli import main; sys.argv[0]='arena'; main()"]

# `arena serve` with its phase clock read from a file (argv[1]): the only change to the real server.
SKEWED = """
import sys, time
from pathlib import Path
import arena.ladder.service as service
skip = Path(sys.argv[1])
def clock():
    return time.time() + float(skip.read_text() or 0)
real = service.Server.__init__
def init(self, *args, **kwargs):
    kwargs.setdefault("clock", clock)
    real(self, *args, **kwargs)
service.Server.__init__ = init
from arena.cli import main
sys.argv = ["arena", *sys.argv[2:]]
main()
"""

STUDENTS = ("s03", "s04", "s05", "s06")  # s00-s02 are team-a: these four are each a participant of their own


def _arena(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None,
           timeout: float = 300) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    return subprocess.run([*ARENA, *args], capture_output=True, text=True, timeout=timeout, cwd=cwd,
                          env={**base, "ARENA_CLIENT_CONFIG": "/nonexistent", **(env or {})})


def _bot(root: Path, who: str, version: str) -> Path:
    folder = root / f"{who}-v{version}"
    folder.mkdir()
    (folder / "manifest.json").write_text(manifest(f"{who}-bot", version, "python3 random_bot.py"))
    (folder / "arenabot.py").write_bytes((SAMPLES / "python" / "arenabot.py").read_bytes())
    source = (SAMPLES / "python" / "random_bot.py").read_text()  # says its version in its hello: the final stores it
    (folder / "random_bot.py").write_text(source.replace('version="1.0"', f'version="{who}-v{version}"'))
    return folder


def test_a_class_competition_from_accounts_to_published_results(tmp_path: Path) -> None:
    start = time.time()
    deadline = dt.datetime.fromtimestamp(start + 86400, dt.timezone.utc).replace(microsecond=0)
    skip = tmp_path / "clock-skip"
    skip.write_text("0")
    server = ServerProcess(tmp_path, per_minute=100)
    server.launch = [sys.executable, "-c", SKEWED, str(skip)]
    server.config.write_text(server.config.read_text() + f"""
phases: {{deadline: '{deadline.isoformat()}', timezone: Europe/Paris}}
quotas: {{uploads_per_day: 2, challenges_per_day: 1, challenge_games: 8}}
final: {{rounds: 2, min_rounds: 2, workers: 1}}
""")
    teacher = {"ARENA_ADMIN_TOKEN": ADMIN}

    def serve(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return _arena("serve", str(server.config), *args, env=teacher, timeout=timeout)

    server.start()
    try:
        # --- accounts: 30 people from the class list, a token sheet written once --------------------------
        imported = serve("accounts", "import", str(class_csv(tmp_path)))
        assert imported.returncode == 0 and "imported 30 people" in imported.stdout, imported.stdout + imported.stderr
        tokens = {r["name"]: r["token"] for r in csv.DictReader((tmp_path / "students-tokens.csv").open())}
        assert len(tokens) == 30

        # --- 4 students submit two versions each (the day's quota: two; a third is refused) ---------------
        def student(who: str) -> dict[str, str]:
            return {"ARENA_SERVER": server.url, "ARENA_TOKEN": tokens[who]}

        for who in STUDENTS:
            for version in ("1", "2"):
                sent = _arena("submit", str(_bot(tmp_path, who, version)), "--games", "0", env=student(who))
                assert sent.returncode == 0 and "joined the ladder" in sent.stdout, sent.stdout + sent.stderr
        over = _arena("submit", str(_bot(tmp_path, "s03", "3")), "--games", "0", env=student("s03"))
        assert over.returncode != 0 and "2 uploads a day" in over.stdout + over.stderr, over.stdout + over.stderr

        # --- one rolls back: s04's version 1 plays again ----------------------------------------------------
        used = _arena("ladder", "use", "1", env=student("s04"))
        assert used.returncode == 0 and "now plays" in used.stdout, used.stdout + used.stderr
        versions = _arena("ladder", "versions", env=student("s04"))
        playing = [line for line in versions.stdout.splitlines() if "<- plays" in line]
        assert len(playing) == 1 and " 1 " in playing[0], versions.stdout

        # --- one challenge, followed to its verdict ---------------------------------------------------------
        challenge = _arena("challenge", "house-c-random", "--timeout", "240", env=student("s05"))
        assert "verdict:" in challenge.stdout, challenge.stdout + challenge.stderr
        listed = server.get("/api/v1/challenges", tokens["s05"]).json()["challenges"]
        assert len(listed) == 1 and challenge.returncode == {"better": 0, "not-better": 1, "undecided": 3}[listed[0]["verdict"]]

        # --- the deadline passes in the server (its clock a day ahead), and an upload is refused ------------
        assert server.get("/api/v1/phase").json()["phase"] == "open"  # the control: before it, uploads were taken
        skip.write_text(str(86400 + 60))
        late = _arena("submit", str(_bot(tmp_path, "s06", "3")), "--games", "0", env=student("s06"))
        assert late.returncode == 3 and late.stdout.startswith("uploads closed since "), late.stdout + late.stderr
        history = server.get("/api/v1/admin/phase", ADMIN).json()["history"]
        assert [(h["from"], h["to"], h["who"], h["at"]) for h in history] == [("open", "frozen", "schedule", deadline.timestamp())]
        refused_use = _arena("ladder", "use", "2", env=student("s04"))  # frozen: the version that plays is fixed
        assert refused_use.returncode != 0 and "frozen" in refused_use.stdout + refused_use.stderr, refused_use.stdout

        # --- the final: the phase, then the final killed (its process group) and resumed -------------------
        moved = serve("phase", "final")
        assert moved.returncode == 0 and "final since" in moved.stdout, moved.stdout + moved.stderr
        stopped = _arena("challenge", "house-c-random", "--timeout", "5", env=student("s06"))  # the ladder has stopped
        assert stopped.returncode != 0 and "stopped for the final" in stopped.stdout + stopped.stderr, stopped.stdout
        store = server.data / "final" / "final.sqlite"
        run = subprocess.Popen([*ARENA, "serve", str(server.config), "final", "--quiet"], env={**os.environ, **teacher},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        try:
            wait_for("a final game stored", lambda: len(stored_indices(store)) >= 1 or run.poll() is not None, 180)
            os.killpg(run.pid, signal.SIGSTOP)  # held mid-final (its store's lock held) while the teacher tries to close
            assert run.poll() is None, "the final ended before the test could try to close during it"
            early = serve("phase", "closed")  # while the final plays (in another process): nothing published
            assert early.returncode == 2 and "the final is still running" in early.stderr, early.stdout + early.stderr
            assert not (server.data / "final" / "published").exists()
        finally:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait(30)
        before = stored_indices(store)
        ladder_games = server.get("/api/v1/admin/health", ADMIN).json()["played_since_start"]
        assert before and len(before) == len(set(before))
        again = serve("final", "--quiet")
        assert again.returncode == 0, again.stdout + again.stderr
        after = stored_indices(store)
        assert len(after) == len(set(after)) and set(before) <= set(after)
        total = len(after)
        assert f"final: {total}/" in again.stdout and f"({total - len(before)} by this run)" in again.stdout, again.stdout

        assert server.get("/api/v1/admin/health", ADMIN).json()["played_since_start"] == ladder_games  # no ladder game meanwhile

        # --- closed: the results published first; the server goes read-only --------------------------------
        closed = serve("phase", "closed")
        assert closed.returncode == 0 and "closed since" in closed.stdout, closed.stdout + closed.stderr
        assert server.get("/api/v1/phase").json()["phase"] == "closed"
        published = server.data / "final" / "published"
        for name in ("standings.json", "standings.csv", "results.json"):
            download = server.get(f"/results/{name}")
            assert download.status_code == 200 and download.content == (published / name).read_bytes(), name
        page = server.get("/results")
        shown = [f"Student {int(who[1:])}" for who in STUDENTS]  # the roster's display names, as on the ladder
        assert page.status_code == 200 and all(f"<td class=\"name\">{name}</td>" in page.text for name in shown), page.text
        refused_after = _arena("submit", str(tmp_path / "s06-v3"), "--games", "0", env=student("s06"))
        assert refused_after.returncode == 3, refused_after.stdout + refused_after.stderr  # closed: still refused
    finally:
        server.stop()

    # --- the published CSV/JSON, the signed results file and `arena standings` agree ------------------------
    standings = json.loads((published / "standings.json").read_text())
    rows = list(csv.DictReader(io.StringIO((published / "standings.csv").read_text())))
    recomputed = _arena("standings", "--json", str(store))
    assert recomputed.returncode == 0, recomputed.stderr
    keys = ("place", "name", "score", "mu", "sigma", "games", "avg_rank")
    mine = [{k: r[k] for k in keys} for r in json.loads(recomputed.stdout)["standings"]]
    assert [{k: r[k] for k in keys} for r in standings["standings"]] == mine
    assert sorted(r["name"] for r in mine) == sorted(STUDENTS)
    assert [(int(r["place"]), r["name"], int(r["games"])) for r in rows] == [(r["place"], r["name"], r["games"]) for r in mine]
    assert {r["name"]: r["display_name"] for r in rows} == {who: f"Student {int(who[1:])}" for who in STUDENTS}
    assert sum(r["games"] for r in mine) == 2 * total  # two seats a game
    results = published / "results.json"
    record = json.loads(results.read_text())
    assert [{k: r[k] for k in keys} for r in record["standings"]] == mine and len(record["games"]) == total
    key = store.with_name("final.sqlite.pub.pem")
    verified = _arena("verify", "--key", str(key), str(results))
    assert verified.returncode == 0 and f"{total} games, {total} replay(s) hash to the signed SHA-256" in verified.stdout, \
        verified.stdout + verified.stderr
    record["standings"][0]["score"] += 1.0  # the control: an edited results file is refused
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(record))
    refused = _arena("verify", "--key", str(key), str(edited))
    assert refused.returncode != 0 and "not made by this key" in refused.stderr

    # --- the final played each student's chosen version: s04's version 1, the others' version 2 -------------
    conn = sqlite3.connect(store)
    try:
        played = dict(conn.execute("SELECT name, version FROM entrants").fetchall())
    finally:
        conn.close()
    assert played == {"s03": "s03-v2", "s04": "s04-v1", "s05": "s05-v2", "s06": "s06-v2"}
