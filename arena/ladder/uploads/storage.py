"""The server's disk: removing upload trees without recursion, the free-space floor and the
per-participant quota an upload must fit under (`check_room`, before anything is unpacked).

A tree is removed by a loop over an explicit stack of open folder descriptors (`dir_fd`), never by
recursion and never by full paths: a folder 6,000 levels deep (a path far over PATH_MAX) goes like a
flat one, where `shutil.rmtree` and `os.walk` stop with `RecursionError` or `ENAMETOOLONG`.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from arena.errors import SubmissionRefused

MB = 1024 * 1024


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


def tree_bytes(path: Path) -> int:
    """The bytes of every file under `path` (links not followed), walked with a stack, not recursion."""
    total, stack = 0, [str(path)]
    while stack:
        try:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    else:
                        total += entry.stat(follow_symlinks=False).st_size
        except FileNotFoundError:
            continue
    return total


def check_room(data: Path, owner: Path, most: int, min_free_mb: int, quota_mb: int) -> None:
    """Refuse an upload that could unpack to `most` bytes when the disk would fall under its floor, or
    the participant's folder over its quota."""
    free = shutil.disk_usage(data).free
    if free - most < min_free_mb * MB:
        raise SubmissionRefused(f"the server is short of disk space ({free // MB} MB free, and it keeps {min_free_mb} MB "
                                "free); nothing was stored: try again later, and tell the organiser")
    used = tree_bytes(owner)
    if used + most > quota_mb * MB:
        raise SubmissionRefused(f"your uploads take {used / MB:.1f} MB of your {quota_mb} MB on this server and this "
                                f"archive may unpack to {most / MB:.1f} MB more; nothing was stored (ask the organiser "
                                "to raise `uploads.participant_quota_mb`)")
