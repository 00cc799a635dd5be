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
                if isinstance(ready, Connection):
                    self._read(ready)

    def _read(self, conn: Connection) -> bool:
        """One message from `conn` to the sink; False once the worker closed its end."""
        try:
            message = conn.recv()
        except (EOFError, OSError):
            self._drop(conn)
            return False
        if isinstance(message, LiveFrame):
            try:
                self.sink.frame(message)
            except Exception:  # noqa: BLE001 - a frame the board cannot take is only a frame lost
                pass
        return True

    def close(self) -> None:
        """Stop reading; what the (stopped) workers wrote last is read first, so their last frames arrive."""
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(2.0)
        with self.lock:
            conns = list(self.conns)
        for conn in conns:
            try:
                while conn.poll(0) and self._read(conn):
                    pass
            except OSError:
                pass
        with self.lock:
            conns, self.conns = self.conns, []
        for conn in conns:
            conn.close()
