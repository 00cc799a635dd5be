"""Packing a bot folder for upload (`arena submit DIR`), and copying a starter kit (`arena new-bot`).

What is left out: version control and caches (.git, __pycache__...), build outputs (target/,
node_modules/, classes/...: the server builds the source again) and whatever `.arenaignore` at the
folder's top says, in gitignore syntax (pathspec); a `!pattern` there takes a default back. Hard links
(cargo makes them) are packed as the files they are; symbolic links are refused, naming the file.
A folder whose manifest names a language with no build (or no language) keeps its files as they are.
"""

from __future__ import annotations

import io
import json
import os
import shlex
import shutil
import stat
import tarfile
from dataclasses import dataclass

import pathspec

from arena.errors import BuildError

IGNORE_FILE = ".arenaignore"
# Left out by default (gitignore syntax): version control, caches, editors, and build outputs.
DEFAULT_IGNORE = (
    ".git/", ".hg/", ".svn/", "__pycache__/", "*.pyc", ".mypy_cache/", ".pytest_cache/", ".venv/", ".idea/",
    ".vscode/", ".DS_Store", "*~", "*.swp",
    "target/", "node_modules/", "classes/", "test-classes/", "*.o", "*.class",
)
# Build outputs a source submission's server build makes again: left out only when the folder is built.
BUILT_OUTPUTS = ("/bot", "/test_arena", "/bot.jar")


@dataclass(frozen=True)
class Packed:
    data: bytes
    files: int
    bytes: int  # the files' total size before compression


def ignore_spec(folder: str, built: bool) -> pathspec.GitIgnoreSpec:
    lines = list(DEFAULT_IGNORE) + (list(BUILT_OUTPUTS) if built else [])
    own = os.path.join(folder, IGNORE_FILE)
    if os.path.isfile(own):
        with open(own, encoding="utf-8", errors="replace") as fh:
            lines += fh.read().splitlines()
    return pathspec.GitIgnoreSpec.from_lines(lines)


def kept_files(folder: str, built: bool = True, always: tuple[str, ...] = ()) -> list[str]:
    """The files to take, relative to `folder`, sorted; a symbolic link is an error naming it. `always`:
    files taken whatever the rules say (those the manifest's command names: a prebuilt target/release/bot)."""
    spec = ignore_spec(folder, built)
    wanted = {os.path.normpath(p) for p in always}
    kept: list[str] = []
    for root, dirs, files in os.walk(folder):
        rel_root = os.path.relpath(root, folder)
        rel = (lambda name: name) if rel_root == "." else (lambda name: f"{rel_root}/{name}")
        dirs[:] = sorted(d for d in dirs if not spec.match_file(rel(d) + "/") or os.path.islink(os.path.join(root, d))
                         or any(w.startswith(rel(d) + "/") for w in wanted))
        for name in sorted(files) + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
            path = rel(name)
            if spec.match_file(path) and path not in wanted:
                continue
            st = os.lstat(os.path.join(folder, path))
            if stat.S_ISLNK(st.st_mode):
                raise BuildError(f"{path} is a symbolic link: links are not uploaded; copy the file in, or list it in "
                                 f"{IGNORE_FILE}")
            if stat.S_ISREG(st.st_mode):
                kept.append(path)
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(root, d))]
    return sorted(kept)


def pack_folder(folder: str, built: bool = True, always: tuple[str, ...] = ()) -> Packed:
    """The folder as tar.gz: each kept file as a regular member (a hard link's content, never a link)."""
    buf = io.BytesIO()
    total = 0
    files = kept_files(folder, built, always)
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for path in files:
            full = os.path.join(folder, path)
            st = os.stat(full)
            info = tarfile.TarInfo(path)
            info.size = st.st_size
            info.mode = 0o755 if st.st_mode & 0o111 else 0o644
            info.mtime = int(st.st_mtime)
            with open(full, "rb") as fh:
                tar.addfile(info, fh)
            total += st.st_size
    return Packed(buf.getvalue(), len(files), total)


def copy_kit(kit: str, dest: str) -> list[str]:
    """Copy a starter kit's source (no build outputs) into the new folder `dest`; the files copied."""
    if os.path.exists(dest) and os.listdir(dest):
        raise BuildError(f"{dest} already exists and is not empty: give a new folder")
    files = kept_files(kit, built=True)
    for path in files:
        target = os.path.join(dest, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(os.path.join(kit, path), target)
    return files


def pack_bot_folder(folder: str) -> Packed:
    """A bot folder packed for upload: a folder whose manifest names a `language` is sent as source
    (its build outputs left out: the server builds it again); the files its `command` names are
    always taken (a prebuilt ./target/release/bot). The server judges the manifest itself."""
    manifest = os.path.join(folder, "manifest.json")
    if not os.path.isfile(manifest):
        raise BuildError(f"{folder}: no manifest.json at the top of the folder; write one: "
                         '{"name": "mybot", "version": "1", "language": "rust"} or {..., "command": "python3 bot.py"}')
    try:
        with open(manifest, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise BuildError(f"{manifest}: not valid JSON: {exc}") from None
    data = data if isinstance(data, dict) else {}
    command = data.get("command")
    words = shlex.split(command) if isinstance(command, str) else command if isinstance(command, list) else []
    named = tuple(w for w in words if isinstance(w, str) and not w.startswith("-") and not os.path.isabs(w)
                  and os.path.isfile(os.path.join(folder, w)))
    return pack_folder(folder, built="language" in data, always=named)
