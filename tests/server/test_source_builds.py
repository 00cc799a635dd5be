"""Source submissions end to end: a Rust and a Java kit sent as source are built by the server in the
sandbox, checked and play ladder games; a failed build, a build that makes no program, an unknown
language and an oversized source are refused with a reason naming the fix; the build log reaches
only the submission's owner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import httpx
import pytest

from arena.build.pack import copy_kit, pack_bot_folder
from tests.server.server import ADMIN, ServerProcess, sign_in

pytestmark = [pytest.mark.process, pytest.mark.sandbox, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
ARENA = [sys.executable, "-c", "import sys; from arena.cli import main; sys.argv[0]='arena'; main()"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    srv = ServerProcess(tmp_path_factory.mktemp("source")).start()
    yield srv
    srv.stop()


def kit(tmp_path: Path, language: str, name: str) -> Path:
    folder = tmp_path / name
    copy_kit(str(ROOT / "starters" / language), str(folder))  # the kit's source, no build outputs
    manifest = json.loads((folder / "manifest.json").read_text())
    (folder / "manifest.json").write_text(json.dumps({**manifest, "name": name}))
    return folder


def test_rust_and_java_sources_are_built_checked_and_play_ladder_games(server: ServerProcess, tmp_path: Path) -> None:
    info = server.get("/api/v1").json()
    assert {"rust", "java"} <= {lang["name"] for lang in info["languages"]}
    status = subprocess.run([*ARENA, "ladder", "status", "--server", server.url], capture_output=True, text=True, timeout=60)
    assert "languages built from source: " in status.stdout and "rust (build `cargo build --release --offline`" in status.stdout
    assert "languages built from source" in server.log.read_text()  # `arena serve` says so at start
    with httpx.Client(base_url=server.url) as browser:  # the upload page lists them too
        sign_in(browser, server.add("reader"), server.url)
        page = browser.get("/submit").text
    assert 'id="offered"' in page and "<code>rust</code>: built with <code>cargo build --release --offline</code>" in page
    rusty, javan, eve = server.add("rusty"), server.add("javan"), server.add("eve")
    # Rust through `arena submit DIR`, as a participant does: the packed size is printed first.
    rust = kit(tmp_path, "rust", "kodo-rust")
    (rust / "target").mkdir()
    (rust / "target" / "junk").write_bytes(b"x" * 100_000)  # a stale build output: left out
    done = subprocess.run([*ARENA, "submit", str(rust), "--server", server.url, "--token", rusty, "--games", "0"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "packed" in done.stderr and "7 files" in done.stderr, done.stderr
    # Java by the API.
    r = server.post("/api/v1/submissions", javan, content=pack_bot_folder(str(kit(tmp_path, "java", "kodo-java"))).data)
    assert r.status_code == 202, r.text
    java = server.wait_submission(r.json()["submission"], javan, timeout=600)
    assert java["status"] == "passed", java
    assert "javac" in java["report"] and "check-bot" in java["report"]
    assert server.get(f"/api/v1/submissions/{r.json()['submission']}", eve).status_code == 403  # the owner's alone
    mine = server.get("/api/v1/me", rusty).json()
    rust_bot = next(b["id"] for b in mine["bots"])
    rust_sub = mine["submissions"][0]["id"]
    report = server.get(f"/api/v1/submissions/{rust_sub}", rusty).json()["report"]
    assert "Compiling bot" in report and "Finished release" in report
    files = {f["path"] for f in server.get(f"/api/v1/bots/{rust_bot}/files", rusty).json()["files"]}
    assert "target/release/bot" in files and "target/junk" not in files
    server.wait("ladder games of both built bots", lambda: all(
        server.get(f"/api/v1/bots/{b}").json()["games"] >= 2 for b in (rust_bot, java["bot"])), timeout=300)


def test_bad_source_submissions_are_refused_naming_the_fix(server: ServerProcess, tmp_path: Path) -> None:
    mallory, eve = server.add("mallory"), server.add("eve2")
    broken = kit(tmp_path, "rust", "broken")
    (broken / "src" / "main.rs").write_text("fn main() { let x: u32 = \"\\x1b[31mnot a number\"; }\n")
    r = server.post("/api/v1/submissions", mallory, content=pack_bot_folder(str(broken)).data)
    assert r.status_code == 202, r.text
    verdict = server.wait_submission(r.json()["submission"], mallory, timeout=600)
    assert verdict["status"] == "refused" and verdict["bot"] is None
    assert verdict["reason"].startswith("the build failed (exited with status 101); its log ends"), verdict["reason"]
    assert "mismatched types" in verdict["reason"] and "\x1b" not in verdict["reason"] + verdict["report"]
    assert server.get(f"/api/v1/submissions/{r.json()['submission']}", eve).status_code == 403
    assert "mismatched types" not in server.get("/api/v1/leaderboard?all=1").text

    # A build that succeeds and makes no program.
    empty = kit(tmp_path, "c", "empty")
    (empty / "Makefile").write_text("bot:\n\ttrue\n")
    r = server.post("/api/v1/submissions", mallory, content=pack_bot_folder(str(empty)).data)
    verdict = server.wait_submission(r.json()["submission"], mallory, timeout=600)
    assert verdict["status"] == "refused" and "the build succeeded but made no runnable program" in verdict["reason"], verdict

    # An unknown language: refused at once, naming the languages offered.
    odd = kit(tmp_path, "python", "odd")
    (odd / "manifest.json").write_text(json.dumps({"name": "odd", "language": "cobol"}))
    r = server.post("/api/v1/submissions", mallory, content=pack_bot_folder(str(odd)).data)
    assert r.status_code == 422 and "'cobol' is not one this server builds" in r.json()["error"] and "rust" in r.json()["error"]

    # A source archive over the upload limit (5 MB in the test config).
    big = kit(tmp_path, "go", "big")
    (big / "data.bin").write_bytes(os.urandom(6_000_000))
    r = server.post("/api/v1/submissions", mallory, content=pack_bot_folder(str(big)).data)
    assert r.status_code == 413 and "max_request_kb" in r.json()["error"], r.text
    (big / "data.bin").write_bytes(b"\0" * 6_000_000)  # small packed, over the limit unpacked
    r = server.post("/api/v1/submissions", mallory, content=pack_bot_folder(str(big)).data)
    assert r.status_code == 422 and "unpacks to more than" in r.json()["error"], r.text


def test_a_hostile_build_on_the_server_is_stopped_and_the_server_goes_on(server: ServerProcess, tmp_path: Path) -> None:
    """A source whose build forks without end and writes into the server's own data folder: the server's
    build (the sandbox and the config's build limits) stops it at the process limit, writes nothing
    outside the submission's folder, refuses it naming the limit, and the server stays healthy."""
    mallory = server.add("forker")
    target = server.data / "planted-by-a-build"
    bomb = kit(tmp_path, "c", "bomb")
    (bomb / "Makefile").write_text(f"bot:\n\techo x > {target} || true\n\tsh -c 'b() {{ b | b & }}; b; sleep 5; exit 1'\n")
    r = server.post("/api/v1/submissions", mallory, content=pack_bot_folder(str(bomb)).data)
    assert r.status_code == 202, r.text
    verdict = server.wait_submission(r.json()["submission"], mallory, timeout=600)
    assert verdict["status"] == "refused" and "processes" in verdict["reason"], verdict["reason"]
    assert not target.exists()  # the data folder is not the build's to write
    assert server.get("/api/v1/admin/health", ADMIN).status_code == 200
