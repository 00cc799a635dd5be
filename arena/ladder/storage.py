"""The server's disk: removing upload trees without recursion, the free-space floor and the
per-participant quota an upload must fit under.

A tree is removed by a loop over an explicit stack of open folder descriptors (`dir_fd`), never by
recursion and never by full paths: a folder 6,000 levels deep (a path far over PATH_MAX) goes like a
flat one, where `shutil.rmtree` and `os.walk` stop with `RecursionError` or `ENAMETOOLONG`.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


def remove_tree(path: Path) -> None:
    """Remove `path` and everything under it (links are removed, never followed); missing is fine."""
    try:
        top = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(top.st_mode):
        os.unlink(path)
        return
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    stack: list[tuple[int, str | None]] = [(os.open(path, flags), None)]  # (folder fd, its name in its parent)
    try:
        while stack:
            fd, _name = stack[-1]
            child = _next_subfolder(fd)
            if child is not None:
                stack.append((os.open(child, flags, dir_fd=fd), child))
                continue
            stack.pop()
            os.close(fd)
            if stack and _name is not None:
                os.rmdir(_name, dir_fd=stack[-1][0])
    finally:
        for fd, _name in stack:
            os.close(fd)
    os.rmdir(path)


def _next_subfolder(fd: int) -> str | None:
    """Unlink every non-folder in the folder `fd`; the name of one subfolder left, else None."""
    with os.scandir(fd) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                return entry.name
            os.unlink(entry.name, dir_fd=fd)
    return None
