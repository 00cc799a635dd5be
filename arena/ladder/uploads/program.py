"""What a submission's program is, as one digest: its files (every one but the manifest, whose name and
version change from upload to upload) and its command, written relative to its folder. Two uploads with
one digest are the same program: the checker checks it once per participant and setup (checker.Checker).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Sequence

MANIFEST = "manifest.json"
CHUNK = 1 << 20


def program_digest(folder: Path, command: Sequence[str], setup: str) -> str:
    """sha256 of `setup` (what the check plays under), the command with the folder written as `.`, and every
    file's relative path and bytes but the manifest's, in path order; links are refused at unpacking."""
    h = hashlib.sha256()
    root = str(folder)
    for part in (setup, *(a.replace(root, ".") for a in command)):
        data = part.encode("utf-8", "surrogateescape")
        h.update(len(data).to_bytes(8, "big") + data)
    files: list[tuple[str, Path]] = []
    todo = [folder]
    while todo:  # iterative: a deep tree is bounded at unpacking, and this never recurses
        here = todo.pop()
        with os.scandir(here) as entries:
            for entry in entries:
                path = Path(entry.path)
                if entry.is_dir(follow_symlinks=False):
                    todo.append(path)
                elif entry.is_file(follow_symlinks=False):
                    rel = path.relative_to(folder).as_posix()
                    if rel != MANIFEST:
                        files.append((rel, path))
    for rel, path in sorted(files):  # each file's own digest, so no file's bytes can pass for a boundary
        one = hashlib.sha256()
        with open(path, "rb") as fh:
            while chunk := fh.read(CHUNK):
                one.update(chunk)
        h.update(b"\1" + rel.encode("utf-8", "surrogateescape") + b"\0" + one.digest())
    return h.hexdigest()
