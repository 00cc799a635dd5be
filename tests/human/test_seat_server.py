"""The seat's server as another local user, or a hostile web page, would try it: without the secret,
with a forged Host, with a cross-site form, with a forged or stale choice. Each attack has its control:
the same request done right succeeds. In-process (a thread), on 127.0.0.1."""

from __future__ import annotations

import http.client
import io
import json
import threading
import time
from typing import Iterator

import pytest

from arena.human.launch import human_command
from arena.human.seat import SeatServer
from arena.human.table import HumanTable
from arena.jsonvalue import loads

SECRET = "s3cret-" + "x" * 30


@pytest.fixture
def server() -> Iterator[SeatServer]:
    table = HumanTable("human", time.monotonic)
    table.receive({"type": "start", "game": "kododo", "game_id": "g", "seat": 0, "players": ["human", "bot"]})
    srv = SeatServer(table, "kododo", SECRET)
    srv.answers = io.BytesIO()  # what the referee would read
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()


def written(srv: SeatServer) -> bytes:
    assert isinstance(srv.answers, io.BytesIO)
    return srv.answers.getvalue()


def call(srv: SeatServer, method: str, path: str, body: object = None, host: str | None = None,
         kind: str = "application/json") -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=5)
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    headers = {"Host": host or f"127.0.0.1:{srv.port}"}
    if data is not None:
        headers["Content-Type"] = kind
    conn.request(method, path, body=data, headers=headers)
    response = conn.getresponse()
    out = response.status, response.read()
    conn.close()
    return out


def test_only_the_secret_url_serves_the_seat(server: SeatServer) -> None:
    assert call(server, "GET", f"/{SECRET}/")[0] == 200  # control
    assert call(server, "GET", f"/{SECRET}/state?since=-1")[0] == 200
    for path in ["/", "/state", f"/{SECRET[:-1]}/", f"/{SECRET}x/state", "/../" + SECRET + "/state", f"/x/{SECRET}/state"]:
        assert call(server, "GET", path)[0] == 404, path
    assert call(server, "POST", "/wrong/choose", {"request_id": 1, "index": 0})[0] == 404


def test_a_page_on_another_host_name_cannot_talk_to_it(server: SeatServer) -> None:
    """DNS rebinding: a hostile site's name resolving to 127.0.0.1 sends its own Host."""
    assert call(server, "GET", f"/{SECRET}/state", host="evil.example:80")[0] == 404
    assert call(server, "GET", f"/{SECRET}/state", host=f"localhost:{server.port}")[0] == 404
    assert call(server, "GET", f"/{SECRET}/state")[0] == 200  # control


def test_forged_stale_and_cross_site_choices_never_reach_the_referee(server: SeatServer) -> None:
    server.table.receive({"type": "request", "id": 3, "step": 0, "view": {}, "legal": [["B2"], ["B5"]], "clock": {"remaining_ms": 60000}})
    url = f"/{SECRET}/choose"
    assert call(server, "POST", url, b"request_id=3&index=0", kind="application/x-www-form-urlencoded")[0] == 415
    assert call(server, "POST", url, b"not json")[0] == 400
    assert call(server, "POST", url, b"x" * 5000)[0] == 413
    status, body = call(server, "POST", url, {"request_id": 3, "index": 7})
    assert status == 409 and "no legal action number 7" in loads(body)["refused"]
    status, body = call(server, "POST", url, {"request_id": 2, "index": 0})
    assert status == 409 and "not the one being asked" in loads(body)["refused"]
    assert written(server) == b""
    assert call(server, "POST", url, {"request_id": 3, "index": 1})[0] == 200  # control: the honest choice
    status, body = call(server, "POST", url, {"request_id": 3, "index": 0})  # the double click
    assert status == 409 and "already answered" in loads(body)["refused"]
    lines = written(server).splitlines()
    assert [loads(line) for line in lines] == [{"type": "answer", "id": 3, "action": ["B5"]}]


def test_the_page_is_sent_with_a_strict_policy(server: SeatServer) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    conn.request("GET", f"/{SECRET}/", headers={"Host": f"127.0.0.1:{server.port}"})
    response = conn.getresponse()
    response.read()
    csp = response.getheader("Content-Security-Policy") or ""
    assert "script-src 'nonce-" in csp and "frame-ancestors 'none'" in csp and "connect-src 'self'" in csp
    assert response.getheader("Referrer-Policy") == "no-referrer" and response.getheader("Cache-Control") == "no-store"
    conn.close()


def test_the_secret_is_never_on_the_seat_process_command_line() -> None:
    """Every local user can read /proc/PID/cmdline: the secret goes in the environment (mode 0400)."""
    argv = human_command("kododo")
    assert argv[1:] == ("-m", "arena.human.seat", "kododo")
