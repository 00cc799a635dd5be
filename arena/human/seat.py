"""The human seat's process: a bot to the referee (JSON lines on stdin/stdout), a web server to the person.

    python -m arena.human.seat GAME        (started by `arena play --human SEAT`, not by hand)

The environment carries what must not be on the command line, which every local user can read
(/proc/PID/cmdline): ARENA_HUMAN_SECRET, the per-game secret every URL starts with, and ARENA_HUMAN_INFO,
a file (the organiser's only) where the process writes the port it listens on before it says hello.

The server is the standard library's (`http.server.ThreadingHTTPServer`), not the server extra's
Starlette: `arena play` then works on a base install, and the process is up in a few milliseconds of
the start-up allowance. One person, one page: threads are plenty. It listens on 127.0.0.1 only, answers
only URLs under /<secret>/ (compared in constant time) and only a Host of 127.0.0.1:<port> (a DNS
rebinding page cannot talk to it), and takes choices only as JSON POSTs (a cross-site form cannot send
one). The page's choice is checked by `HumanTable.choose` before it becomes the seat's answer line.
"""

from __future__ import annotations

import hmac
import os
import select
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from arena.human.page import seat_page
from arena.human.table import HumanTable
from arena.jsonvalue import dumps, loads
from arena.textsafe import clean

MAX_BODY = 4096  # a choice is a few dozen bytes
EXIT_LEFT = 3  # the person left: the referee records a crash


class SeatServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, table: HumanTable, game: str, secret: str, port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), SeatHandler)
        self.table = table
        self.game = game
        self.secret = secret
        self.write_lock = threading.Lock()
        self.answers = sys.stdout.buffer  # where accepted choices go: the referee

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a dropped connection's traceback would go to stderr, which the referee bounds per game: none

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def answer(self, line: bytes) -> None:
        with self.write_lock:
            self.answers.write(line)
            self.answers.flush()


class SeatHandler(BaseHTTPRequestHandler):
    server: SeatServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        pass  # stderr is the referee's log of this seat: no access log in it

    def _route(self) -> str | None:
        """The path after /<secret>, or None (then answered 404) for a wrong secret or Host."""
        host = self.headers.get("Host", "")
        if host != f"127.0.0.1:{self.server.port}":
            return None
        path = self.path.split("?", 1)[0]
        _, _, rest = path.partition("/")
        secret, sep, tail = rest.partition("/")
        if not hmac.compare_digest(secret.encode(), self.server.secret.encode()):
            return None
        return "/" + tail if sep else ""

    def _send(self, status: int, body: bytes, kind: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("Referrer-Policy", "no-referrer")  # the secret is in the URL
        self.send_header("X-Content-Type-Options", "nosniff")
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, value: Any) -> None:
        self._send(status, dumps(value), "application/json")

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        route = self._route()
        if route == "/":
            nonce = os.urandom(12).hex()
            text, csp = seat_page(self.server.game, nonce)
            self._send(200, text.encode(), "text/html; charset=utf-8",
                       {"Content-Security-Policy": csp + "; frame-ancestors 'none'", "X-Frame-Options": "DENY"})
        elif route == "/state":
            query = self.path.partition("?")[2]
            since = -1
            for part in query.split("&"):
                key, _, value = part.partition("=")
                if key == "since" and value.lstrip("-").isdigit() and len(value) < 12:
                    since = int(value)
            self._json(200, self.server.table.watch(since))
        elif route == "":
            self._send(301, b"", "text/plain", {"Location": f"/{self.server.secret}/"})
        else:
            self._json(404, {"error": "not found"})

    def do_POST(self) -> None:  # noqa: N802
        route = self._route()
        if route not in ("/choose", "/leave"):
            self._json(404, {"error": "not found"})
            return
        length = self.headers.get("Content-Length", "")
        if not length.isdigit() or int(length) > MAX_BODY:
            self._json(413, {"refused": f"a choice is a JSON body of at most {MAX_BODY} bytes"})
            return
        body = self.rfile.read(int(length))
        if self.headers.get("Content-Type", "").split(";")[0].strip() != "application/json":
            self._json(415, {"refused": "refused: a choice is sent as application/json"})
            return
        if route == "/leave":
            self.server.table.leave()
            self._json(200, {"ok": "left"})
            return
        try:
            data = loads(body)
        except ValueError:
            data = None
        if not isinstance(data, dict):
            self._json(400, {"refused": "refused: a choice is a JSON object {\"request_id\": ..., \"index\": ...}"})
            return
        outcome = self.server.table.choose(data.get("request_id"), data.get("index"))
        if outcome.line is None:
            self._json(409, {"refused": outcome.message})
            return
        self.server.answer(outcome.line)
        self._json(200, {"ok": outcome.message})


def serve_referee(table: HumanTable, server: SeatServer) -> int:
    """Read the referee's lines until shutdown or end of input; exit early when the person left."""
    fd = sys.stdin.buffer.fileno()
    buf = b""
    while True:
        if table.left or table.abandoned():
            sys.stderr.write("the person at this seat left (the page was closed or the terminal ended)\n")
            sys.stderr.flush()
            return EXIT_LEFT
        ready, _, _ = select.select([fd], [], [], 0.1)
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            return 0
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            try:
                message = loads(line)
            except ValueError:
                continue
            if not isinstance(message, dict):
                continue
            reply = table.receive(message)
            if reply is not None:
                server.answer(reply)
            if message.get("type") == "shutdown":
                table.wait_delivered(0.5)  # let a watching page fetch the result first
                return 0


def not_dumpable() -> None:
    """Make /proc/PID/environ and /proc/PID/mem of this process the kernel's (root's) only: a bot run
    unsandboxed as the same user cannot read the secret from them. (A sandboxed bot sees neither this
    process nor the loopback network.) Linux only; elsewhere nothing."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 4
    except (OSError, AttributeError):
        pass


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        sys.stderr.write("usage: python -m arena.human.seat GAME (arena play --human starts it)\n")
        return 2
    not_dumpable()
    secret = os.environ.pop("ARENA_HUMAN_SECRET", "")
    info = os.environ.get("ARENA_HUMAN_INFO", "")
    if len(secret) < 16 or not info:
        sys.stderr.write("arena.human.seat: ARENA_HUMAN_SECRET and ARENA_HUMAN_INFO must be set (arena play --human sets them)\n")
        return 2
    table = HumanTable("human", time.monotonic)
    server = SeatServer(table, clean(argv[0], 64), secret)
    threading.Thread(target=server.serve_forever, name="seat-server", daemon=True).start()
    fd = os.open(info, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(str(server.port))
    try:
        return serve_referee(table, server)
    finally:
        server.shutdown()
        server.server_close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
