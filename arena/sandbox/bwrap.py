"""The bubblewrap command line that runs one bot command inside its sandbox.

The filesystem the bot sees is built from nothing: the system's runtimes read-only (/usr and the
/bin, /lib* links, the few /etc files the dynamic loader and the runtimes read), the prefix of an
interpreter living elsewhere (a pyenv or venv Python, a JDK under /opt), the bot's own folder, a
private scratch folder at /scratch (also /tmp and $HOME), a /proc of its own PID namespace and a
minimal /dev. Nothing else exists in it: not the other bots, the replays, the store or any home.
"""

from __future__ import annotations

import functools
import glob
import os
import shutil
import subprocess
from dataclasses import dataclass
from typing import Mapping

from arena.sandbox.policy import SCRATCH_PATH, SandboxPolicy, Scratch

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
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
    """What to run: bwrap's argv, the environment to start it with, and the bot's folders (host paths)."""

    argv: tuple[str, ...]
    env: Mapping[str, str]
    folders: tuple[str, ...]


def _is_system(path: str) -> bool:
    return any(path == d or path.startswith(d + "/") for d in SYSTEM_DIRS + ("/etc",))


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


def runtime_prefixes(program: str, path_env: str) -> list[str]:
    """Folders to show read-only so that `program` (an interpreter outside /usr) runs.

    A program in a `bin` folder is an installed runtime: its prefix (the folder above `bin`) is shown,
    for both the path as written (a venv) and its real path (the Python the venv points at).
    A program elsewhere is the bot's own binary: the bot-folder rule shows its folder.
    """
    found = shutil.which(program, path=path_env) if "/" not in program else os.path.abspath(program)
    if found is None:
        return []
    prefixes = []
    for exe in (os.path.abspath(found), os.path.realpath(found)):
        folder = os.path.dirname(exe)
        if os.path.basename(folder) == "bin" and not _is_system(exe):
            prefixes.append(os.path.dirname(folder))
    return list(dict.fromkeys(prefixes))


def bot_folders(command: tuple[str, ...], cwd: str | None, show_cwd: bool = True) -> tuple[list[str], list[str]]:
    """The bot's folders and its argv with existing relative paths made absolute.

    The folders are: `cwd` when given, and the folder of every argument naming an existing file
    (the script or binary), except installed runtimes (see `runtime_prefixes`).
    """
    base = cwd or os.getcwd()
    folders = [os.path.abspath(cwd)] if cwd and show_cwd else []
    argv = []
    for index, arg in enumerate(command):
        candidate = os.path.join(base, arg)
        if arg and not arg.startswith("-") and os.path.isfile(candidate):
            absolute = os.path.abspath(candidate)
            folder = os.path.dirname(absolute)
            runtime = index == 0 and os.path.basename(folder) == "bin"
            if not runtime and not _is_system(absolute):
                folders.append(folder)
            argv.append(absolute if ("/" in arg or index > 0) else arg)
        else:
            argv.append(arg)
    return list(dict.fromkeys(folders)), argv


def _hide(paths: tuple[str, ...], folders: list[str]) -> list[str]:
    """Mounts that mask `paths` lying inside a shown folder: an empty read-only folder, or /dev/null."""
    args: list[str] = []
    for path in paths:
        path = os.path.abspath(path)
        if not any(path.startswith(folder + "/") for folder in folders):
            continue
        if os.path.isdir(path):
            args += ["--perms", "0500", "--size", "4096", "--tmpfs", path, "--remount-ro", path]
        elif os.path.exists(path):
            args += ["--ro-bind", "/dev/null", path]
    return args


def build(bwrap: str, command: tuple[str, ...], cwd: str | None, env: Mapping[str, str], policy: SandboxPolicy,
          prefix: tuple[str, ...] = ()) -> Command:
    """bwrap's argv for `command`, run in `cwd` (or its own folder) with `env` added to a clean one.

    `prefix` (e.g. `prlimit --nproc=N --`) runs inside the sandbox in front of the command.
    """
    path_env = env.get("PATH") or os.environ.get("PATH") or DEFAULT_PATH
    command = (unshim(command[0], path_env), *command[1:])
    folders, argv = bot_folders(command, cwd, policy.show_cwd)
    args: list[str] = [bwrap, *NAMESPACES]
    for folder in SYSTEM_DIRS:
        if os.path.islink(folder):
            args += ["--symlink", os.readlink(folder), folder]
        elif os.path.isdir(folder):
            args += ["--ro-bind", folder, folder]
    for pattern in ETC_FILES:
        for path in sorted(glob.glob(pattern)):
            args += ["--ro-bind", path, path]
    shown = list(dict.fromkeys(runtime_prefixes(command[0], path_env) + list(policy.extra_ro)))
    for folder in shown:
        if os.path.exists(folder):
            args += ["--ro-bind", folder, folder]
    mode = "--bind" if policy.writable_folder else "--ro-bind"
    for folder in folders:
        args += [mode, folder, folder]
    args += _hide(policy.hide, folders)
    if policy.scratch is Scratch.KEEP and policy.keep_dir:
        os.makedirs(policy.keep_dir, mode=0o700, exist_ok=True)
        args += ["--bind", policy.keep_dir, SCRATCH_PATH]
    else:
        args += ["--size", str(policy.scratch_mb * 1024 * 1024), "--perms", "0700", "--tmpfs", SCRATCH_PATH]
    if not any(f == "/tmp" or f.startswith("/tmp/") for f in folders + shown):
        args += ["--symlink", SCRATCH_PATH, "/tmp"]  # else /tmp holds the bot's folder or runtime, read-only
    # The root and /dev are bwrap's own tmpfs: read-only, or they would be unbounded scratch space.
    args += ["--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev", "--remount-ro", "/"]
    workdir = os.path.abspath(cwd) if cwd and policy.show_cwd else (folders[0] if folders else SCRATCH_PATH)
    args += ["--chdir", workdir, "--", *prefix, *argv]
    clean = {
        "PATH": path_env,
        "LANG": os.environ.get("LANG", "C.UTF-8"),
        "HOME": SCRATCH_PATH,
        "TMPDIR": SCRATCH_PATH,
        "ARENA_SCRATCH": SCRATCH_PATH,
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    clean.update(env)
    return Command(tuple(args), clean, tuple(folders))
