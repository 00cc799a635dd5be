"""An ASGI app served by a real uvicorn on 127.0.0.1 in a thread of the test (a real HTTP client's target)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from typing import Any, Iterator

import httpx


@contextlib.contextmanager
def serving(app: Any) -> Iterator[str]:
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, lifespan="off", log_level="warning", timeout_graceful_shutdown=1))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(5)


def sse_frames(client: httpx.Client, url: str, count: int, between: Any = None, **kw: Any) -> list[str]:
    """The data of the first `count` `frame` events of the stream at `url` (then the connection is closed);
    `between(i)` is called after the i-th frame (to make the next one happen)."""
    out: list[str] = []
    with client.stream("GET", url, **kw) as r:
        assert r.status_code == 200, r.read()
        event = ""
        for line in r.iter_lines():
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: ") and event == "frame":
                out.append(line[6:])
                if len(out) >= count:
                    break
                if between is not None:
                    between(len(out))
    return out
