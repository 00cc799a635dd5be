"""The final as an organiser runs it, with real bots in the sandbox: `arena serve CONFIG final` SIGKILLed
mid-way (its whole process group: coordinator, workers, bots), run again to resume (no game lost or
stored twice), then `arena serve CONFIG publish`: the published standings are `arena standings` on the
final's store, the signed results file verifies with the server's key, and an edited one (or an edited
replay) does not."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from arena.ladder.accounts import activate_bot, create_participant
from arena.ladder.config import load
from arena.ladder.db import Database
from arena.sandbox.probe import probe

from tests.server.final.support import ADMIN, ROOT, stored_indices
from tests.support.tournament import ARENA, wait_for

pytestmark = [pytest.mark.process, pytest.mark.sandbox]

CONFIG = """name: cup
game: kododo
players: 4
data: data
time_control: {decision_ms: 2000}
final: {rounds: 3, min_rounds: 2, workers: 1}
"""


def _arena(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARENA, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_a_killed_final_resumes_and_its_published_results_verify(tmp_path: Path) -> None:
    sandbox = probe().sandbox
    (tmp_path / "cup.yaml").write_text(CONFIG)
    config = load(tmp_path / "cup.yaml")
    config.data.mkdir(parents=True)
    db = Database(config.database)
    for name in ("ann", "bob", "cy", "dee", "eve"):  # five: five tables a round, 20 games
        folder = tmp_path / "uploads" / name
        folder.mkdir(parents=True)
        shutil.copy(ROOT / "sample_bots" / "c" / "random_bot", folder / "random_bot")
        who, _token = create_participant(db, name)
        activate_bot(db, who.id, None, f"{name}-bot", "1", (str(folder / "random_bot"),), str(folder))
    db.close()
    env = {**os.environ, "ARENA_ADMIN_TOKEN": ADMIN}
    flags = [] if sandbox else ["--no-sandbox"]
    store = config.data / "final" / "final.sqlite"
    early = _arena("serve", "cup.yaml", *flags, "final", "--quiet", cwd=tmp_path, env=env)
    assert early.returncode == 2 and "move it there first" in early.stderr and not store.exists(), early.stderr
    for phase in ("frozen", "final"):  # the control: in the final phase, it plays
        assert _arena("serve", "cup.yaml", "phase", phase, cwd=tmp_path, env=env).returncode == 0

    run = subprocess.Popen([*ARENA, "serve", "cup.yaml", *flags, "final", "--quiet"], cwd=tmp_path, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        wait_for(lambda: len(stored_indices(store)) >= 4, 120, "four final games stored", run)
    finally:
        os.killpg(run.pid, signal.SIGKILL)
        run.wait(30)
    before = stored_indices(store)
    assert 4 <= len(before) < 40 and len(before) == len(set(before))

    again = _arena("serve", "cup.yaml", *flags, "final", "--quiet", cwd=tmp_path, env=env)
    assert again.returncode == 0, again.stderr
    after = stored_indices(store)
    assert len(after) == len(set(after)) and set(before) <= set(after)
    total = len(after)
    assert f"final: {total}/60 games stored ({total - len(before)} by this run)" in again.stdout

    published = _arena("serve", "cup.yaml", "publish", cwd=tmp_path, env=env)
    assert published.returncode == 0, published.stderr
    folder = config.data / "final" / "published"
    standings = json.loads((folder / "standings.json").read_text())["standings"]
    recomputed = _arena("standings", "--json", str(store), cwd=tmp_path, env=env)
    assert recomputed.returncode == 0, recomputed.stderr
    keys = ("place", "name", "score", "mu", "sigma", "games", "avg_rank")
    assert [{k: r[k] for k in keys} for r in standings] == [{k: r[k] for k in keys} for r in json.loads(recomputed.stdout)["standings"]]
    assert sum(r["games"] for r in standings) == 4 * total

    key = store.with_name("final.sqlite.pub.pem")
    results = folder / "results.json"
    ok = _arena("verify", "--key", str(key), str(results), cwd=tmp_path, env=env)
    assert ok.returncode == 0 and f"{total} games, {total} replay(s) hash to the signed SHA-256" in ok.stdout, ok.stderr
    record = json.loads(results.read_text())
    one = config.data / "final" / "published" / record["games"][0]["replay"]
    replay_ok = _arena("verify", str(one), "--store", str(store), cwd=tmp_path, env=env)  # unchanged: signed, as stored
    assert replay_ok.returncode == 0 and "signed by" in replay_ok.stdout, replay_ok.stderr

    record["standings"][0]["score"] += 1.0
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(record))
    refused = _arena("verify", "--key", str(key), str(edited), cwd=tmp_path, env=env)
    assert refused.returncode != 0 and "not made by this key" in refused.stderr
    one.write_bytes(one.read_bytes() + b"\n")
    swapped = _arena("verify", "--key", str(key), str(results), cwd=tmp_path, env=env)
    assert swapped.returncode != 0 and "not the stored replay" in swapped.stderr
