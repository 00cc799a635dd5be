"""A real `arena serve` process on loopback for the tests, and a small client for its API."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from tests.server.bots import ROOT

ADMIN = "test-admin-token-0123456789abcdef"

CONFIG = """
name: srvtest
game: kododo
players: 2
root: {root}
data: {data}
time_control: {{decision_ms: 1000, startup_ms: 10000}}
ladder: {{min_games: 4, check_games: 1, fault_limit: {fault_limit}, workers: 1, seed: 5}}
uploads: {{max_total_bytes: 5000000, max_files: 100, max_ratio: 50}}
submissions_per_minute: {per_minute}
max_request_kb: 2048
house_bots:
  - name: py-heuristic
    command: "{{python}} sample_bots/python/kododo_heuristic.py"
  - name: c-random
    command: "sample_bots/c/random_bot 3"
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    def __init__(self, tmp: Path, fault_limit: int = 3, per_minute: int = 30, extra: list[str] | None = None) -> None:
        self.data = tmp / "data"
        self.config = tmp / "ladder.yaml"
        self.config.write_text(CONFIG.format(root=ROOT, data=self.data, fault_limit=fault_limit, per_minute=per_minute))
        self.extra = extra or []
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.verify: Any = True  # a CA file for a server on TLS (tests/server/test_serve_ops.py)
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = tmp / "server.log"
        self.launch = [sys.executable, "-c", "import sys; from arena.cli import main; sys.argv[0]='arena'; main()"]

    def start(self) -> "ServerProcess":
        env = {**os.environ, "ARENA_ADMIN_TOKEN": ADMIN}
        argv = [*self.launch, "serve", str(self.config), "--port", str(self.port), *self.extra]
        self.proc = subprocess.Popen(argv, env=env, stdout=open(self.log, "ab"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/api/v1", timeout=2, verify=self.verify).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log.read_text()}")
            time.sleep(0.2)
        raise RuntimeError("the server did not answer within 60 s")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def get(self, path: str, token: str | None = None, **kw: Any) -> httpx.Response:
        return httpx.get(self.url + path, headers=_auth(token), timeout=30, verify=self.verify, **kw)

    def post(self, path: str, token: str | None = None, **kw: Any) -> httpx.Response:
        return httpx.post(self.url + path, headers=_auth(token), timeout=60, verify=self.verify, **kw)

    def add(self, name: str) -> str:
        r = self.post("/api/v1/admin/participants", ADMIN, json={"name": name})
        assert r.status_code == 201, r.text
        return str(r.json()["token"])

    def wait_submission(self, sub: int, token: str, timeout: float = 240) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            body: dict[str, Any] = self.get(f"/api/v1/submissions/{sub}", token).json()
            if body["status"] in ("passed", "refused"):
                return body
            time.sleep(0.5)
        raise AssertionError(f"submission {sub} not checked within {timeout} s")

    def wait(self, what: str, predicate: Any, timeout: float = 120) -> Any:
        return wait_for(what, predicate, timeout, 0.5, lambda: f"; log: {self.log.read_text()[-3000:]}")


def wait_for(what: str, predicate: Any, timeout: float, poll_s: float = 0.05, more: Any = lambda: "") -> Any:
    """The predicate's first true value within `timeout` s, asked every `poll_s`; else an AssertionError
    naming what was awaited (and `more()`, e.g. the server's log)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(poll_s)
    raise AssertionError(f"waited {timeout} s for {what}{more()}")


def sign_in(browser: httpx.Client, token: str, origin: str) -> httpx.Response:
    """Sign in as a browser does: load the sign-in page (its pre-session cookie and CSRF token), post its form."""
    page = browser.get("/signin").text
    found = re.search(r'name="csrf" value="(\w+)"', page)
    assert found, page
    return browser.post("/signin", data={"token": token, "csrf": found.group(1)}, headers={"Origin": origin})


def _auth(token: str | None) -> dict[str, str]:
    return {} if token is None else {"Authorization": f"Bearer {token}"}
