"""A competition server's data folder in one archive, and back: `arena serve CONFIG backup|restore FILE`.

The backup is consistent while the server runs: the store is copied first with SQLite's online backup
API (a snapshot of one moment, taken between the ladder's transactions), then the files (uploads,
replays, the signing key). Every folder or replay a stored row names was written before its row, so
each is in the archive; a file written after the snapshot is an orphan the next start removes. The
archive is written as `.FILE.partial-PID` beside FILE and named FILE only when complete, so a full disk
or a kill leaves no half file under the backup's name, and the server (which it only reads) is unharmed.

A restore takes the data folder's lock first (so never under a running server) and refuses a folder that
is not empty unless forced; the paths the store holds are moved to the folder restored into.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import sqlite3
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Callable

from arena.errors import BackupError, StoreInUse
from arena.results.lock import StoreLock, lock_path

MANIFEST = "arena-backup.json"
STORE = "server.sqlite"
FORMAT = 1
Opener = Callable[[Path], IO[bytes]]


@dataclass(frozen=True)
class Summary:
    path: Path
    files: int
    bytes: int


def _open_new(path: Path) -> IO[bytes]:
    return open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb")


def _skipped(rel: str, database: Path) -> bool:
    """The store's own files (its snapshot goes in instead) and the data folder's lock."""
    names = {database.name, database.name + "-wal", database.name + "-shm", database.name + "-journal", lock_path(database).name}
    return rel in names


def backup(data: Path, database: Path, target: Path, opener: Opener = _open_new) -> Summary:
    """The data folder (its store by SQLite's online backup) in the tar.gz `target`, written once."""
    if target.exists():
        raise BackupError(f"{target} exists already: a backup never overwrites a file; give another name")
    if not database.is_file():
        raise BackupError(f"no server store at {database}: nothing to back up (is `data:` in the config right?)")
    if target.resolve().is_relative_to(data.resolve()):
        raise BackupError(f"{target} is inside the data folder {data}: write the backup elsewhere")
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    files = 0
    try:
        with tempfile.TemporaryDirectory(prefix=".arena-backup-", dir=target.parent) as scratch:
            snapshot = Path(scratch) / STORE
            _snapshot(database, snapshot)
            with opener(partial) as raw, tarfile.open(fileobj=raw, mode="w:gz") as tar:
                info = json.dumps({"format": FORMAT, "data": str(data.resolve()), "made": time.time()}).encode()
                member = tarfile.TarInfo(MANIFEST)
                member.size, member.mtime, member.mode = len(info), int(time.time()), 0o600
                tar.addfile(member, io.BytesIO(info))
                tar.add(snapshot, STORE)
                for path in sorted(data.rglob("*")):
                    rel = str(path.relative_to(data))
                    if _skipped(rel, database) or not (path.is_file() or path.is_dir()) or path.is_symlink():
                        continue
                    try:
                        tar.add(path, rel, recursive=False)
                    except FileNotFoundError:
                        continue  # removed meanwhile (a refused upload's folder): the snapshot does not name it
                    files += path.is_file()
                raw.flush()
                os.fsync(raw.fileno())
        os.link(partial, target)  # never over a file
    except BaseException as exc:
        partial.unlink(missing_ok=True)
        if isinstance(exc, (OSError, sqlite3.Error)):
            raise BackupError(f"cannot write the backup {target}: {exc}; nothing was written there (the server and its "
                              "data are untouched): free some space or choose another disk") from None
        raise
    partial.unlink()
    return Summary(target, files, target.stat().st_size)


def _snapshot(database: Path, into: Path) -> None:
    src = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30.0)
    dst = sqlite3.connect(into)
    try:
        src.backup(dst)
    finally:
        dst.close()
        src.close()


def restore(data: Path, database: Path, archive: Path, force: bool = False) -> Summary:
    """The backup `archive` into the data folder: refused while a server holds the folder's lock, and over a
    folder that is not empty unless `force` (then its contents are replaced)."""
    if not archive.is_file():
        raise BackupError(f"no backup at {archive}")
    data.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        lock = StoreLock(database).acquire()
    except StoreInUse:
        raise BackupError(f"a server is running on {data}: stop it first (a restore never runs under a live server)") from None
    try:
        present = [p for p in data.iterdir() if p.name != lock_path(database).name]
        if present and not force:
            raise BackupError(f"{data} is not empty ({len(present)} entries, e.g. {present[0].name}): a restore does not mix "
                              "two competitions; move it away, or add --force to replace its contents")
        try:
            with tarfile.open(archive, "r:gz") as tar:
                names = tar.getnames()
                if MANIFEST not in names or STORE not in names:
                    raise BackupError(f"{archive} is not an arena serve backup (no {MANIFEST} or {STORE} in it)")
                manifest = json.loads(tar.extractfile(MANIFEST).read())  # type: ignore[union-attr]
                for entry in present:
                    shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
                tar.extractall(data, filter="data")
        except (OSError, tarfile.TarError, ValueError) as exc:
            raise BackupError(f"cannot restore {archive}: {exc}") from None
        (data / MANIFEST).unlink(missing_ok=True)
        _move_paths(database, str(manifest.get("data", "")), str(data.resolve()))
        files = sum(1 for p in data.rglob("*") if p.is_file())
    finally:
        lock.release()
    return Summary(data, files, archive.stat().st_size)


def _move_paths(database: Path, old: str, new: str) -> None:
    """The absolute paths the store holds (upload folders, bot commands, replays) from the folder the backup was
    made in to the one restored into."""
    if not old or old == new:
        return
    conn = sqlite3.connect(database, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        for table, column in (("submissions", "folder"), ("submissions", "manifest"), ("bots", "folder"),
                              ("bots", "command"), ("games", "replay")):
            conn.execute(f"UPDATE {table} SET {column} = replace({column}, ?, ?) WHERE instr({column}, ?) > 0",
                         (old + "/", new + "/", old + "/"))
        conn.execute("COMMIT")
    finally:
        conn.close()
