"""A worker's cache of bot archives: fetched by hash, checked, kept within a size, unpacked per run.

Where: `ARENA_BOT_CACHE` (default: `/var/tmp/arena-bots-UID`; never under a home folder, which
the sandbox replaces with the bot's scratch), at most
`ARENA_BOT_CACHE_MB` megabytes of archives (default 2048); the least recently used archive not needed
by a run in progress is deleted to make room. An archive is checked against its name each time a run
takes it: bytes that do not match (a corrupted transfer, a tampered cache file) are refused, deleted
and fetched again; they are never unpacked, so never started. Each run unpacks its bots into a
folder of its own (`runs/KEY-WORKER/SHA`), removed when the run ends on this worker.

A cache folder that cannot be written, or is full, is this worker's problem, said in one line
(`CacheError`): the coordinator gives the worker no game and the others go on.
"""

from __future__ import annotations

import os
import secrets
import shutil
import tarfile
import tempfile
import threading
from pathlib import Path
from typing import Callable

from arena.errors import ArenaError
from arena.tournament.run.cluster.bundles import sha256

DEFAULT_MB = 2048
FETCH_TRIES = 2  # a mismatching transfer is fetched once more before the game is refused


class CacheError(ArenaError):
    """This worker cannot keep bots: its cache folder cannot be written, or is full."""


class BundleMismatch(ArenaError):
    """An archive whose bytes do not match its hash, even when fetched again: never unpacked."""


def default_root() -> Path:
    given = os.environ.get("ARENA_BOT_CACHE")
    if given:
        return Path(given)
    return Path("/var/tmp") / f"arena-bots-{os.getuid()}"  # not under a home: the sandbox shows a bot its own $HOME


def default_limit() -> int:
    try:
        return int(os.environ.get("ARENA_BOT_CACHE_MB", DEFAULT_MB)) * 1024 * 1024
    except ValueError:
        return DEFAULT_MB * 1024 * 1024


class ArchiveCache:
    def __init__(self, root: Path | None = None, limit: int | None = None) -> None:
        self.root = root if root is not None else default_root()
        self.limit = limit if limit is not None else default_limit()
        self.in_use: dict[str, set[str]] = {}  # run key -> hashes its bots run from
        self.refused = 0  # archives refused for a hash that did not match
        self.fetched = 0
        self.token = f"{os.getpid()}-{secrets.token_hex(3)}"  # workers sharing a machine share archives, not run folders

    @property
    def archives(self) -> Path:
        return self.root / "archives"

    def problem(self) -> str | None:
        """Why this worker cannot keep bots (said by name), or None."""
        try:
            self.archives.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=self.archives, prefix=".probe-"):
                pass
        except OSError as exc:
            return f"its bot cache {self.root} cannot be written: {exc.strerror or exc} (set ARENA_BOT_CACHE to a writable folder)"
        free = shutil.disk_usage(self.archives).free
        if free < 16 * 1024 * 1024:
            return f"its bot cache {self.root} is full ({free >> 20} MB free)"
        return None

    def status(self) -> dict[str, int | str]:
        sizes = [p.stat().st_size for p in self._archive_files()]
        return {"folder": str(self.root), "archives": len(sizes), "bytes": sum(sizes), "limit": self.limit,
                "fetched": self.fetched, "refused": self.refused}

    def _archive_files(self) -> list[Path]:
        try:
            return [p for p in self.archives.iterdir() if p.suffix == ".tgz"]
        except OSError:
            return []

    def archive(self, digest: str, fetch: Callable[[], bytes]) -> Path:
        """The checked archive of `digest` in the cache, fetched when missing or not matching."""
        path = self.archives / f"{digest}.tgz"
        if path.exists():
            try:
                if sha256(path.read_bytes()) == digest:
                    os.utime(path)  # recently used
                    return path
            except OSError:
                pass
            self.refused += 1
            path.unlink(missing_ok=True)  # a tampered or corrupted cache file: never used
        for _ in range(FETCH_TRIES):
            data = fetch()
            self.fetched += 1
            if sha256(data) == digest:
                self._room(len(data))
                self._write(path, data)
                return path
            self.refused += 1
        raise BundleMismatch(f"the bot archive {digest[:12]} did not match its hash after {FETCH_TRIES} fetches: refused")

    def _write(self, path: Path, data: bytes) -> None:
        part = self.archives / f".part-{os.getpid()}-{threading.get_ident()}"
        try:
            self.archives.mkdir(parents=True, exist_ok=True)
            part.write_bytes(data)
            os.replace(part, path)
        except OSError as exc:
            part.unlink(missing_ok=True)
            raise CacheError(f"cannot keep a bot in the cache {self.root}: {exc.strerror or exc}") from None

    def _room(self, size: int) -> None:
        if size > self.limit:
            raise CacheError(f"a bot archive of {size >> 20} MB does not fit this worker's bot cache of "
                             f"{self.limit >> 20} MB (ARENA_BOT_CACHE_MB)")
        pinned = {h for hashes in self.in_use.values() for h in hashes}
        files = sorted(self._archive_files(), key=lambda p: p.stat().st_mtime)
        total = sum(p.stat().st_size for p in files)
        for old in files:
            if total + size <= self.limit:
                break
            if old.stem in pinned:
                continue
            total -= old.stat().st_size
            old.unlink(missing_ok=True)
        if total + size > self.limit:
            raise CacheError(f"this worker's bot cache {self.root} is full: {total >> 20} MB of bots in use, "
                             f"limit {self.limit >> 20} MB (ARENA_BOT_CACHE_MB)")

    def unpack(self, key: str, digest: str, fetch: Callable[[], bytes]) -> str:
        """The folder run `key`'s bot of hash `digest` runs from, unpacked from its checked archive."""
        self.in_use.setdefault(key, set()).add(digest)
        path = self.archive(digest, fetch)
        folder = self.root / "runs" / f"{key}-{self.token}" / digest
        if folder.is_dir():
            return str(folder)
        part = folder.with_name(f".{digest}.part")
        shutil.rmtree(part, ignore_errors=True)
        try:
            part.mkdir(parents=True)
            with tarfile.open(path, "r:gz") as tar:
                tar.extractall(part, filter="data")
            os.replace(part, folder)
        except OSError as exc:
            shutil.rmtree(part, ignore_errors=True)
            raise CacheError(f"cannot unpack a bot in the cache {self.root}: {exc.strerror or exc}") from None
        return str(folder)

    def run_folder(self, key: str) -> Path:
        """This worker's folder for run `key` (its unpacked bots, its replays); removed by `release`."""
        return self.root / "runs" / f"{key}-{self.token}"

    def release(self, key: str) -> None:
        """The run `key` ended on this worker: its unpacked bots go; its archives stay, for the next run."""
        self.in_use.pop(key, None)
        shutil.rmtree(self.root / "runs" / f"{key}-{self.token}", ignore_errors=True)
