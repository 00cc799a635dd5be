"""What a bot is made of, as one content hash: the files its command names and its folder's files.

The results store keeps this hash beside every game (`Store.record`), so a bot edited since (a new
version of the same file, under the same command line) is seen as a new version: its stored games stay
in the store under the old version, and its games are played again. Reusable: anything that must know
whether a bot changed (`arena match` on the store, a cluster worker's check) hashes it here.

What is hashed: every argument of the command that names an existing file (the program itself and
its scripts), by content; and the files of the bot's folder (the folder of its first script, else its
working folder), walked in name order to `MAX_DEPTH` levels, skipping hidden entries, caches and
outputs (`SKIP_DIRS`, `SKIP_SUFFIXES`), at most `MAX_FILES` files and `MAX_BYTES` bytes in all (a
file past the caps counts by its name and size only). Bounded so that a bot in a big folder costs
little, and stable: the same files give the same hash on any machine.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import Sequence

MAX_FILES = 400
MAX_BYTES = 32 * 1024 * 1024
MAX_DEPTH = 3
SKIP_DIRS = frozenset({"__pycache__", "node_modules", ".git", ".hg", ".venv", "venv", "out", ".mypy_cache", ".pytest_cache"})
SKIP_SUFFIXES = (".pyc", ".pyo", ".log", ".sqlite", ".sqlite-wal", ".sqlite-shm", ".jsonl", ".lock", ".tmp", ".swp")


def named_files(command: Sequence[str], cwd: Path) -> list[tuple[Path, bool]]:
    """The files a command names: its program (found on PATH if need be: then the flag is False, it is
    a runtime, not the bot) and every argument that is a file."""
    out: list[tuple[Path, bool]] = []
    for i, arg in enumerate(command):
        path = Path(arg) if os.path.isabs(arg) else cwd / arg
        if path.is_file() and (i > 0 or os.sep in arg):
            out.append((path, True))
        elif i == 0:
            found = shutil.which(arg)
            if found:
                out.append((Path(found), False))
    return out


def bot_folder(command: Sequence[str], cwd: str | Path) -> Path:
    """The bot's own folder: that of the first file its command names (not a runtime found on PATH),
    else its working folder."""
    for path, own in named_files(command, Path(cwd)):
        if own:
            return path.resolve().parent
    return Path(cwd).resolve()


def _walk(root: Path) -> list[Path]:
    found: list[Path] = []

    def visit(folder: Path, depth: int) -> None:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            if len(found) >= MAX_FILES or entry.name.startswith("."):
                continue
            if entry.is_dir(follow_symlinks=False):
                if depth < MAX_DEPTH and entry.name not in SKIP_DIRS:
                    visit(Path(entry.path), depth + 1)
            elif entry.is_file(follow_symlinks=False) and not entry.name.endswith(SKIP_SUFFIXES):
                found.append(Path(entry.path))

    visit(root, 1)
    return found


def bot_hash(command: Sequence[str], cwd: str | Path) -> str:
    """The content hash of a bot (see the module doc): 16 hex digits."""
    cwd = Path(cwd)
    digest = hashlib.sha256()
    budget = MAX_BYTES
    folder = bot_folder(command, cwd)
    files = [(f"named:{i}", p) for i, (p, _) in enumerate(named_files(command, cwd))]
    files += [(f"folder:{p.relative_to(folder)}", p) for p in _walk(folder)]
    for label, path in files:
        digest.update(label.encode() + b"\0")
        try:
            size = path.stat().st_size
            if size > budget:
                digest.update(f"size:{size}".encode())
                continue
            budget -= size
            with open(path, "rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    digest.update(chunk)
        except OSError as exc:
            digest.update(f"unreadable:{exc.errno}".encode())
        digest.update(b"\0")
    return digest.hexdigest()[:16]
