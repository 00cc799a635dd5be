"""A bot's files as one archive named by its SHA-256, and its command rewritten to run from wherever
a worker unpacks it.

What is packed: the folders the sandbox would show the bot (`arena.sandbox.view.plan`: its own `cwd:`,
the folder of its program when that is its own binary, the folder of every file its command names),
each as it is on the coordinator, regular files only (no links, no `__pycache__`), in a deterministic
tar.gz (sorted names, no times, no owners), so the same files always give the same hash. Its
runtimes (the interpreter, node, java: what the view shows as installed) are not packed: each worker
uses its own, and one that lacks it says so by name before any game (`missing_runtimes`).

The command is kept with markers instead of the coordinator's paths: `BUNDLE` for the folder the
archive is unpacked in (each packed folder is `BUNDLE/0`, `BUNDLE/1`...), `PYTHON` for the interpreter
running arena (`{python}` in a config: on a worker, that worker's own). A marker holds a NUL, which no
real argument can, so it never meets a bot's own words.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import shutil
import stat
import sys
import tarfile
from dataclasses import dataclass, replace
from typing import Mapping

from arena.errors import BotStartError
from arena.sandbox.view import plan
from arena.tournament.config.entrants import EntrantConfig
from arena.tournament.config.cluster import ClusterError
from arena.tournament.run.messages import PlayerSetup

BUNDLE = "\0bundle\0"
PYTHON = "\0python\0"
SKIPPED_DIRS = {"__pycache__", ".git", ".mypy_cache", ".pytest_cache"}
MOST_BYTES = 256 * 1024 * 1024  # a bot's files, unpacked: more is refused on the coordinator, naming the bot


@dataclass(frozen=True)
class BotBundle:
    """One entrant's files by hash, and how to run it from them (see the module's markers)."""

    sha256: str
    size: int  # the archive's bytes
    argv: tuple[str, ...]
    cwd: str
    runtime: str  # the program when it is not in the archive: an absolute path, a name on PATH, or PYTHON; "" if packed

    def command(self, folder: str) -> tuple[str, ...]:
        return tuple(_place(arg, folder) for arg in self.argv)

    def workdir(self, folder: str) -> str:
        return _place(self.cwd, folder)


def _place(arg: str, folder: str) -> str:
    return arg.replace(BUNDLE, folder).replace(PYTHON, sys.executable)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def pack_entrant(entrant: EntrantConfig) -> tuple[BotBundle, bytes]:
    """The entrant's bundle and its archive's bytes; a ClusterError naming the entrant when its files cannot be packed."""
    try:
        view = plan(entrant.command, entrant.cwd, os.environ.get("PATH", ""), entrant.sandbox, entrant.name)
    except BotStartError as exc:
        raise ClusterError(f"entrant {entrant.name!r}: {exc}") from None
    folders = list(view.folders)
    if entrant.sandbox.show_cwd and os.path.abspath(entrant.cwd) not in folders:
        folders.insert(0, os.path.abspath(entrant.cwd))
    data = _archive(entrant.name, folders)

    def moved(path: str) -> str | None:
        absolute = os.path.abspath(path)
        for i, folder in enumerate(folders):
            if absolute == folder or absolute.startswith(folder.rstrip("/") + "/"):
                return f"{BUNDLE}/{i}" + absolute[len(folder):]
        return None

    program = view.argv[0]
    runtime = ""
    first = moved(program)
    if first is None:
        same_python = os.path.realpath(program) == os.path.realpath(sys.executable) or program == sys.executable
        first = PYTHON if same_python else (entrant.command[0] if "/" not in entrant.command[0] else program)
        runtime = first
    argv = (first, *(moved(a) or a for a in view.argv[1:]))
    cwd = moved(entrant.cwd) or (f"{BUNDLE}/0" if folders else BUNDLE)
    return BotBundle(sha256(data), len(data), argv, cwd, runtime), data


def _archive(name: str, folders: list[str]) -> bytes:
    buf = io.BytesIO()
    total = 0
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for i, folder in enumerate(folders):
            for rel in _files(folder):
                full = os.path.join(folder, rel)
                st = os.stat(full)
                total += st.st_size
                if total > MOST_BYTES:
                    raise ClusterError(f"entrant {name!r}: its files under {folder} pass {MOST_BYTES >> 20} MB; "
                                       "give the bot a folder of its own with only what it needs")
                info = tarfile.TarInfo(f"{i}/{rel}")
                info.size = st.st_size
                info.mode = 0o755 if st.st_mode & 0o111 else 0o644
                with open(full, "rb") as fh:
                    tar.addfile(info, fh)
    return gzip.compress(buf.getvalue(), compresslevel=6, mtime=0)  # no time in it: the same files, the same bytes


def _files(folder: str) -> list[str]:
    out: list[str] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not os.path.islink(os.path.join(root, d)))
        for name in sorted(files):
            full = os.path.join(root, name)
            if stat.S_ISREG(os.lstat(full).st_mode):
                out.append(os.path.relpath(full, folder))
    return sorted(out)


def runtime_missing(bundle: BotBundle) -> str | None:
    """What this machine lacks to run the bundle's program (its runtime), by name; None when it has it."""
    runtime = bundle.runtime
    if not runtime or runtime == PYTHON:
        return None
    if "/" in runtime:
        return None if os.access(runtime, os.X_OK) else runtime
    return None if shutil.which(runtime) else runtime


def in_place(entrant: EntrantConfig) -> BotBundle:
    """A bundle of no archive: the entrant runs from its own paths, which must exist on every worker."""
    return BotBundle("", 0, entrant.command, entrant.cwd, "")


def placed(entrant: EntrantConfig, bundle: BotBundle, folder: str) -> EntrantConfig:
    """The entrant as it runs from its bundle unpacked in `folder` (its sandbox shows that folder)."""
    if not bundle.sha256:
        return entrant
    shown = bundle.cwd.startswith(BUNDLE + "/")
    sandbox = replace(entrant.sandbox, show_cwd=shown)
    return replace(entrant, command=bundle.command(folder), cwd=bundle.workdir(folder), sandbox=sandbox)


@dataclass(frozen=True)
class ClusterSetup:
    """What a Dask worker needs for a run: the player's setup as on the coordinator, each entrant's
    bundle (in entrant order), and the Dask key of each archive (data the cluster holds, by hash)."""

    setup: PlayerSetup
    bundles: tuple[BotBundle, ...]
    keys: Mapping[str, str]
    version: int = 0  # the field's version: a worker that has played an older one grows its player to this one
    retired: tuple[int, ...] = ()  # entrants that left the field: their bots are closed


@dataclass(frozen=True)
class WorkerUnfit:
    """A worker's answer instead of a batch's games: it cannot keep bots (its cache folder cannot be
    written or is full, an archive kept failing its hash); it plays no more games of the run."""

    worker: str  # its Dask address
    detail: str
