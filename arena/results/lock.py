"""One writer per results store: an advisory lock beside the store, held for the whole run.

Why a lock file and not SQLite's own locking: SQLite serialises each write, but two runs of the same
tournament would each play the missing games and the second would find "game 15 is already stored".
The lock is `flock` on `<store>.lock`, released by the kernel when its holder exits in any way (even
SIGKILL), so a stale lock can never block a rerun. The holder's pid is written in it for the message.
"""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path
from typing import Any

from arena.errors import StoreError, StoreInUse


def lock_path(store: Path) -> Path:
    return store.with_name(store.name + ".lock")


class StoreLock:
    """Held from `acquire` to `release`; raises StoreInUse when another process holds it."""

    def __init__(self, store: Path) -> None:
        self.store = store
        self.path = lock_path(store)
        self.fd: int | None = None

    def acquire(self) -> "StoreLock":
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise StoreError(
                f"cannot create the lock file {self.path}: {exc.strerror or exc} "
                "(set output.store to a file in a folder arena can write to)"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = _read_pid(fd)
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                who = f" (pid {holder})" if holder else ""
                raise StoreInUse(
                    f"store in use: another arena run{who} is writing to {self.store}; "
                    "wait for it to finish, or stop it, then rerun to resume"
                ) from None
            raise StoreError(f"cannot lock {self.path}: {exc.strerror or exc}") from None
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        except OSError:
            pass  # the pid is only for the message; the lock itself is held
        self.fd = fd
        return self

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing the descriptor releases the flock
            self.fd = None

    def __enter__(self) -> "StoreLock":
        return self.acquire()

    def __exit__(self, *exc: Any) -> None:
        self.release()


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None
