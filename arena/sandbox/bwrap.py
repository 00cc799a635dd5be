"""The bubblewrap command line that runs one bot command inside its sandbox.

The filesystem the bot sees is built from nothing: the system's runtimes read-only (/usr and the
/bin, /lib* links, the few /etc files the dynamic loader and the runtimes read), the installation of
an interpreter living elsewhere (a pyenv or venv Python, a JDK under /opt) and the bot's own folders
as `view.plan` decides, arena's outputs masked in them, a private scratch folder at /scratch (also
/tmp and $HOME), a /proc of its own PID namespace (its machine-wide counters replaced by static files:
counters.py) and a minimal /dev. Nothing else exists in it: not
the other bots, the replays, the store or any home.
"""

from __future__ import annotations

import functools
import glob
import os
import shutil
import subprocess
from dataclasses import dataclass
from typing import Mapping, Sequence

from arena.sandbox.policy import SCRATCH_PATH, SandboxPolicy, Scratch
from arena.sandbox.view import SYSTEM_DIRS, View, plan

ETC_FILES = (
    "/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
    "/etc/nsswitch.conf", "/etc/perl", "/etc/ssl/openssl.cnf", "/etc/java-*", "/etc/node*",
)
DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"
NAMESPACES = (
    "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
    "--disable-userns", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--hostname", "arena-bot",
)


@dataclass(frozen=True)
class Command:
    """What to run: bwrap's options (sent through `--args FD`), bwrap itself, the command it runs in
    the sandbox, the environment to start it with, and the bot's folders (host paths)."""

    options: tuple[str, ...]
    bwrap: tuple[str, ...]
    inner: tuple[str, ...]
    env: Mapping[str, str]
    folders: tuple[str, ...]


@functools.lru_cache(maxsize=64)
def unshim(program: str, path_env: str) -> str:
    """The real interpreter behind a version-manager shim (pyenv, rbenv...), else `program` unchanged.

    A shim is a script that picks the interpreter from files in $HOME, which the sandbox does not show.
    """
    found = shutil.which(program, path=path_env) if "/" not in program else program
    if found is None or os.path.basename(os.path.dirname(found)) != "shims":
        return program
    manager = os.path.join(os.path.dirname(os.path.dirname(found)), "bin", os.path.basename(os.path.dirname(os.path.dirname(found))).lstrip("."))
    tool = manager if os.path.exists(manager) else shutil.which("pyenv", path=path_env)
    if tool is None:
        return program
    try:
        done = subprocess.run([tool, "which", os.path.basename(found)], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return program
    real = done.stdout.strip()
    return real if done.returncode == 0 and os.path.isfile(real) else program


def _hide(paths: tuple[str, ...]) -> list[str]:
    """Mounts that mask each path: an empty read-only folder, or /dev/null over a file."""
    args: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            args += ["--perms", "0500", "--size", "4096", "--tmpfs", path, "--remount-ro", path]
        else:
            args += ["--ro-bind", "/dev/null", path]
    return args


def build(bwrap: str, command: tuple[str, ...], cwd: str | None, env: Mapping[str, str], policy: SandboxPolicy,
          prefix: tuple[str, ...] = (), name: str = "bot", counters: Sequence[tuple[int, str]] = ()) -> Command:
    """bwrap's options and command for `command`, run in `cwd` (or its own folder) with `env` added to a
    clean one. The options go to bwrap through `--args FD` (see launch.py), so that no list of host
    paths is in any argv a bot can read (/proc/1/cmdline is bwrap's).

    `prefix` (e.g. `prlimit --nproc=N --`) runs inside the sandbox in front of the command. `counters`
    (file descriptor, path in /proc) are bound read-only over the machine-wide counters (counters.py).
    """
    path_env = env.get("PATH") or os.environ.get("PATH") or DEFAULT_PATH
    command = (unshim(command[0], path_env), *command[1:])
    view: View = plan(command, cwd, path_env, policy, name)
    args: list[str] = [*NAMESPACES]
    for folder in SYSTEM_DIRS:
        if os.path.islink(folder):
            args += ["--symlink", os.readlink(folder), folder]
        elif os.path.isdir(folder):
            args += ["--ro-bind", folder, folder]
    for pattern in ETC_FILES:
        for path in sorted(glob.glob(pattern)):
            args += ["--ro-bind", path, path]
    for folder in view.runtimes:
        args += ["--ro-bind", folder, folder]
    mode = "--bind" if policy.writable_folder else "--ro-bind"
    for folder in view.folders:
        args += [mode, folder, folder]
    args += _hide(view.masks)
    if policy.scratch is Scratch.KEEP and policy.keep_dir:
        os.makedirs(policy.keep_dir, mode=0o700, exist_ok=True)
        args += ["--bind", policy.keep_dir, SCRATCH_PATH]
    else:
        args += ["--size", str(policy.scratch_mb * 1024 * 1024), "--perms", "0700", "--tmpfs", SCRATCH_PATH]
    shown = list(view.folders + view.runtimes)
    if not any(f == "/tmp" or f.startswith("/tmp/") for f in shown):
        args += ["--symlink", SCRATCH_PATH, "/tmp"]  # else /tmp holds the bot's folder or runtime, read-only
    # The root and /dev are bwrap's own tmpfs: read-only, or they would be unbounded scratch space.
    args += ["--proc", "/proc"]
    for fd, path in counters:
        args += ["--ro-bind-data", str(fd), path]
    args += ["--dev", "/dev", "--remount-ro", "/dev", "--remount-ro", "/"]
    workdir = os.path.abspath(cwd) if cwd and policy.show_cwd else (view.folders[0] if view.folders else SCRATCH_PATH)
    args += ["--chdir", workdir]
    clean = {
        "PATH": view.path,
        "LANG": os.environ.get("LANG", "C.UTF-8"),
        "HOME": SCRATCH_PATH,
        "TMPDIR": SCRATCH_PATH,
        "ARENA_SCRATCH": SCRATCH_PATH,
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    clean.update(env)
    clean["PATH"] = view.path  # only folders the bot can see: the organiser's other paths do not leak
    return Command(tuple(args), (bwrap,), (*prefix, *view.argv), clean, view.folders)
