"""The coordinator's side of the workers' live pipes: one thread reads them all into a sink (the board).

A worker that ends closes its pipe: it is forgotten. The thread never touches the workers' task pipes,
so reading frames never delays a game's result, and a board that is slow delays only frames (the
workers' taps coalesce them meanwhile).
"""

from __future__ import annotations

import threading
from multiprocessing.connection import Connection, wait

from arena.live.frame import LiveFrame
from arena.live.tap import LiveSink

POLL_S = 0.2


class LiveFeed:
    def __init__(self, sink: LiveSink) -> None:
        self.sink = sink
        self.conns: list[Connection] = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None

    def add(self, conn: Connection) -> None:
        with self.lock:
            self.conns.append(conn)
        if self.thread is None:
            self.thread = threading.Thread(target=self._loop, name="arena-live-feed", daemon=True)
            self.thread.start()

    def _drop(self, conn: Connection) -> None:
        with self.lock:
            if conn in self.conns:
                self.conns.remove(conn)
        conn.close()

    def _loop(self) -> None:
        while not self.stopping.is_set():
            with self.lock:
                conns = list(self.conns)
            if not conns:
                self.stopping.wait(POLL_S)
                continue
            for ready in wait(conns, POLL_S):
                conn = ready if isinstance(ready, Connection) else None
                if conn is None:
                    continue
                try:
                    message = conn.recv()
                except (EOFError, OSError):
                    self._drop(conn)
                    continue
                if isinstance(message, LiveFrame):
                    try:
                        self.sink.frame(message)
                    except Exception:  # noqa: BLE001 - a frame the board cannot take is only a frame lost
                        pass

    def close(self) -> None:
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(2.0)
        with self.lock:
            conns, self.conns = self.conns, []
        for conn in conns:
            conn.close()
