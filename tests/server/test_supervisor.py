"""The server's background parts under the supervisor (issue 36, item 1): a submission whose unpacking is
slow is invisible to the checker until its folder is complete; an exception inside one check refuses that
submission with its reason and the checker goes on; a checker thread killed from outside is restarted and
logged, later submissions are checked, and health shows the restart (503 while a part is stale or dead).

The server runs in this process (no sandbox, no ladder: no house bots); the check itself is replaced by
a fast stand-in where the test is about the loop around it, not about `arena check-bot`."""

from __future__ import annotations

import ctypes
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from starlette.testclient import TestClient

from arena.ladder import checker as checker_module, service
from arena.server.app import build
from arena.ladder.checker import Checker, Verdict
from arena.ladder.config import parse
from arena.ladder.service import Server
from arena.ladder.supervisor import Part, Supervisor
from tests.server.bots import python_random
from tests.server.server import ADMIN, sign_in, wait_for


def _wait(what: str, predicate: Callable[[], Any], timeout: float = 30.0) -> Any:
    return wait_for(what, predicate, timeout)


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    monkeypatch.setenv("ARENA_ADMIN_TOKEN", ADMIN)
    config = parse({"name": "sup", "game": "kododo", "players": 2, "data": str(tmp_path / "data"),
                    "uploads": {"max_total_bytes": 5_000_000, "max_files": 100, "max_ratio": 50}}, tmp_path / "sup.yaml")
    checked: list[str] = []

    def fake_check(config: Any, command: tuple[str, ...], folder: str, sandbox: bool, beat: Any = None) -> Verdict:
        assert (Path(folder) / "manifest.json").is_file() and (Path(folder) / "random_bot.py").is_file()
        checked.append(folder)
        return Verdict(True, "stand-in check", "")

    monkeypatch.setattr(checker_module, "check_submission", fake_check)
    srv = Server(config, sandbox=False)
    srv.checked_folders = checked  # type: ignore[attr-defined]
    srv.start()
    yield srv
    srv.stop()
    srv.db.close()


def _status(srv: Server, sub: int) -> str:
    row = srv.db.one("SELECT status FROM submissions WHERE id = ?", sub)
    return "" if row is None else str(row["status"])


def _participant(srv: Server, name: str = "alice") -> int:
    from arena.ladder.accounts import create_participant

    who, _token = create_participant(srv.db, name)
    return who.id


def test_a_slow_unpacking_is_invisible_to_the_checker(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    real = service.unpack_isolated
    midway = threading.Event()

    def slow(data: bytes, dest: Path, limits: Any) -> Any:
        dest.mkdir()
        (dest / "manifest.json").write_text("{")  # half written, as a slow unpacking leaves it
        midway.set()
        time.sleep(2.0)
        dest.rmdir() if False else (dest / "manifest.json").unlink()
        dest.rmdir()
        return real(data, dest, limits)

    monkeypatch.setattr(service, "unpack_isolated", slow)
    who = _participant(server)
    done: list[tuple[int, str | None]] = []
    thread = threading.Thread(target=lambda: done.append(server.submit(who, python_random())))
    thread.start()
    midway.wait(10)
    time.sleep(1.5)  # the checker polls every second: it has looked at least once meanwhile
    assert server.db.one("SELECT COUNT(*) AS n FROM submissions")["n"] == 0  # type: ignore[index]
    thread.join(30)
    sub, refusal = done[0]
    assert refusal is None
    _wait("the check", lambda: _status(server, sub) == "passed")
    monkeypatch.setattr(service, "unpack_isolated", real)
    later, _ = server.submit(who, python_random("2"))
    _wait("a later check", lambda: _status(server, later) == "passed")
    assert server.supervisor.parts["checker"].restarts == 0


def test_an_exception_inside_a_check_refuses_that_submission_only(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    real = checker_module.check_submission
    calls = []

    def flaky(*args: Any, **kw: Any) -> Verdict:
        calls.append(args[2])
        if len(calls) == 1:
            raise FileNotFoundError(2, "No such file or directory", "")  # the crash
        return real(*args, **kw)

    monkeypatch.setattr(checker_module, "check_submission", flaky)
    who = _participant(server)
    first, _ = server.submit(who, python_random())
    second, _ = server.submit(who, python_random("2"))
    _wait("both checks", lambda: _status(server, second) in ("passed", "refused"))
    row = server.db.one("SELECT status, reason, folder FROM submissions WHERE id = ?", first)
    assert row is not None and row["status"] == "refused"
    assert "FileNotFoundError" in row["reason"] and "submit it again" in row["reason"]
    assert _status(server, second) == "passed"
    assert server.supervisor.parts["checker"].restarts == 0 and server.supervisor.parts["checker"].alive
    assert not Path(row["folder"]).exists()  # a refused submission's folder goes once its verdict is stored


def _kill(thread: threading.Thread) -> None:
    """Raise SystemExit inside `thread` (what an uncaught error anywhere in its loop would do). An exception
    raised this way can land inside a garbage collector's callback (hypothesis installs one), which swallows
    it as unraisable: raise it again until the thread has died."""
    for _ in range(20):
        hit = ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident or 0), ctypes.py_object(SystemExit))
        assert hit == 1 or not thread.is_alive()
        thread.join(2.0)
        if not thread.is_alive():
            return


def test_a_killed_checker_is_restarted_and_health_shows_it(server: Server, capfd: pytest.CaptureFixture[str]) -> None:
    part = server.supervisor.parts["checker"]
    assert part.thread is not None
    dead = part.thread
    _kill(dead)
    dead.join(10)
    assert not dead.is_alive()
    with TestClient(build_no_lifespan(server)) as http:
        answer = http.get("/api/v1/admin/health", headers={"Authorization": f"Bearer {ADMIN}"})
        # dead until the supervisor's pause (1 s) is over: health says so, with 503
        assert answer.status_code == 503
        assert [p for p in answer.json()["parts"] if p["name"] == "checker"][0]["alive"] is False
        _wait("the restart", lambda: part.restarts == 1 and part.alive)
        who = _participant(server)
        sub, _ = server.submit(who, python_random())
        _wait("a check after the restart", lambda: _status(server, sub) == "passed")
        answer = http.get("/api/v1/admin/health", headers={"Authorization": f"Bearer {ADMIN}"})
        assert answer.status_code == 200
        checker = [p for p in answer.json()["parts"] if p["name"] == "checker"][0]
        assert checker["restarts"] == 1 and checker["alive"] and "SystemExit" in checker["last_error"]
    assert "the checker stopped: SystemExit" in capfd.readouterr().err


def test_a_stale_part_makes_health_503_and_the_admin_page_shows_it(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    part = server.supervisor.parts["checker"]
    release = threading.Event()

    def stuck(*args: Any, **kw: Any) -> Verdict:
        release.wait(30)  # a check that hangs without a heartbeat
        return Verdict(False, "stuck", "")

    monkeypatch.setattr(checker_module, "check_submission", stuck)
    monkeypatch.setattr(part, "stale_s", 0.5)
    who = _participant(server)
    server.submit(who, python_random())
    auth = {"Authorization": f"Bearer {ADMIN}"}
    try:
        with TestClient(build_no_lifespan(server)) as http:
            _wait("a stale heartbeat", lambda: http.get("/api/v1/admin/health", headers=auth).status_code == 503)
            body = http.get("/api/v1/admin/health", headers=auth).json()
            assert body["healthy"] is False
            assert [p for p in body["parts"] if p["name"] == "checker"][0]["stale"] is True
            sign_in(http, ADMIN, "http://testserver")
            page = http.get("/admin").text
            assert 'id="parts"' in page and "checker" in page and "(stale)" in page
    finally:
        release.set()


def build_no_lifespan(server: Server) -> Any:
    """The app without its lifespan (the fixture started the server already)."""
    app = build(server)
    inner = app
    while hasattr(inner, "app"):
        inner = inner.app
    inner.router.lifespan_context = _no_lifespan
    return app


class _no_lifespan:  # noqa: N801 - an async context manager factory
    def __init__(self, _app: Any) -> None:
        pass

    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, *exc: object) -> None:
        return None


def test_supervisor_restarts_a_part_that_dies_with_backoff() -> None:
    clock = [0.0]
    logs: list[str] = []
    sup = Supervisor(clock=lambda: clock[0], log=logs.append)
    runs = []

    def body(part: Part) -> None:
        runs.append(1)
        part.beat()
        if len(runs) < 3:
            raise RuntimeError(f"boom {len(runs)}")
        part.stopping.wait(30)

    part = sup.add("worker", body, stale_s=5)
    for p in sup.parts.values():
        sup._launch(p)  # no watchdog thread: the test drives `check` with its clock
    _wait("the first death", lambda: not part.alive)
    sup.check()
    assert part.restarts == 0 and "boom 1" in (part.last_error or "")
    clock[0] += 1.0
    sup.check()
    assert part.restarts == 1
    _wait("the second death", lambda: not part.alive)
    clock[0] += 1.0
    sup.check()
    assert part.restarts == 1  # backoff now 2 s
    clock[0] += 2.0
    sup.check()
    assert part.restarts == 2
    _wait("the third run", lambda: len(runs) == 3)
    assert sup.healthy()
    clock[0] += 6.0  # no beat for longer than stale_s
    assert not sup.healthy() and part.report()["stale"]
    sup.stop()
    assert any("restarted in 2 s" in line for line in logs)
