"""What one sandboxed bot sees of the host: its own folders, real runtime installations, masks, PATH.

The rule, from the bot's command alone (see protocol.md, "The sandbox"):
- the bot's own folders: its `cwd` when it has one of its own, and the folder of every file its
  command names, except the interpreter's (shown as a runtime) and system files;
- a runtime installation for the program (argv[0]) when it lives outside the system folders: the
  prefix above its `bin` folder, for the path as found (a venv) and for its resolved real path (the
  Python or node the venv or symlink points at), and only when that prefix really is an installation
  (it holds a Python, node, JDK or Ruby tree: `RUNTIME_MARKERS`); a folder merely named `bin` is not;
- never, as a runtime, a folder that holds the organiser's home, `/`, or any path the caller names
  private (the tournament's root and config, other entrants' folders, arena's outputs);
- arena's outputs (`policy.hide`) masked wherever they lie under anything shown;
- PATH inside: only the entries of the organiser's PATH that the bot can see.
A bot folder that holds the organiser's home (or is `/`) is refused with a `BotStartError`.
"""

from __future__ import annotations

import glob
import os
import shutil
from dataclasses import dataclass

from arena.errors import BotStartError
from arena.sandbox.policy import SandboxPolicy

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# What makes a prefix (the folder above `bin`) an installed runtime rather than any folder named bin.
RUNTIME_MARKERS = (
    "pyvenv.cfg", "lib/python3*/os.py", "lib/pypy*/os.py", "lib/pypy*/lib-python",  # venv, CPython, PyPy
    "lib/node_modules/npm/package.json", "include/node/node.h",  # node
    "lib/jrt-fs.jar", "jre/lib/rt.jar",  # JDK
    "lib/ruby/[0-9]*",  # Ruby
)


@dataclass(frozen=True)
class View:
    """The host paths one bot sees, and the command as it runs inside."""

    folders: tuple[str, ...]  # the bot's own folders (read-only unless `writable_folder`)
    runtimes: tuple[str, ...]  # installed runtimes and `extra_ro`, read-only
    masks: tuple[str, ...]  # arena's outputs under something shown: hidden (empty folder or /dev/null)
    argv: tuple[str, ...]  # the command, its program and existing relative files made absolute
    path: str  # PATH inside the sandbox


def holds(folder: str, path: str) -> bool:
    """Whether `path` is `folder` or lies inside it (both absolute, normalised)."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def is_system(path: str) -> bool:
    return any(holds(d, path) for d in SYSTEM_DIRS + ("/etc",))


def home() -> str | None:
    """The organiser's home folder, resolved; None when it is `/` or unknown."""
    found = os.path.realpath(os.path.expanduser("~"))
    return None if found in ("/", "~") else found


def runtime_prefix(exe: str) -> str | None:
    """The installation `exe` belongs to: the folder above its `bin`, if that holds a runtime tree."""
    folder = os.path.dirname(exe)
    if os.path.basename(folder) != "bin" or is_system(exe):
        return None
    prefix = os.path.dirname(folder)
    if any(glob.glob(os.path.join(glob.escape(prefix), marker)) for marker in RUNTIME_MARKERS):
        return prefix
    return None


def _private(policy: SandboxPolicy) -> list[str]:
    paths = [os.path.abspath(p) for p in (*policy.private, *policy.hide)]
    mine = home()
    return paths + ([mine] if mine else [])


def _allowed_runtime(prefix: str, policy: SandboxPolicy) -> bool:
    return prefix != "/" and not any(holds(prefix, p) for p in _private(policy))


def _program(command: tuple[str, ...], base: str, path_env: str) -> str | None:
    program = command[0]
    if "/" in program:
        candidate = os.path.join(base, program)
        return os.path.abspath(candidate) if os.path.isfile(candidate) else None
    return shutil.which(program, path=path_env)


def plan(command: tuple[str, ...], cwd: str | None, path_env: str, policy: SandboxPolicy, name: str = "bot") -> View:
    """The view of a bot running `command` in `cwd` (see the module's rule)."""
    base = cwd or os.getcwd()
    found = _program(command, base, path_env)
    runtimes: list[str] = []
    program = command[0]
    if found is not None:
        runtime_exes = []
        for exe in (os.path.abspath(found), os.path.realpath(found)):
            prefix = runtime_prefix(exe)
            if prefix is not None and _allowed_runtime(prefix, policy):
                runtimes.append(prefix)
                runtime_exes.append(exe)
            elif is_system(exe):
                runtime_exes.append(exe)
        # Run the program by a path the bot can see: as found (a venv keeps its site-packages), else
        # its real path (the interpreter a symlink or a refused venv points at).
        program = runtime_exes[0] if runtime_exes else os.path.abspath(found)
    folders = [os.path.abspath(cwd)] if cwd and policy.show_cwd else []
    argv = [program]
    for index, arg in enumerate(command):
        if index == 0:
            if found is not None and program == os.path.abspath(found) and not runtimes and not is_system(program):
                folder = os.path.dirname(program)
                if "/" not in command[0] and _allowed_runtime(folder, policy):
                    runtimes.append(folder)  # a program found on PATH (a pyenv shim, say): installed, not the bot's
                else:
                    folders.append(folder)  # the bot's own binary
            continue
        candidate = os.path.join(base, arg)
        if arg and not arg.startswith("-") and os.path.isfile(candidate):
            absolute = os.path.abspath(candidate)
            if not is_system(absolute) and not any(holds(r, absolute) for r in runtimes):
                folders.append(os.path.dirname(absolute))
            argv.append(absolute)
        else:
            argv.append(arg)
    folders = list(dict.fromkeys(folders))
    mine = home()
    for folder in folders:
        if folder == "/" or (mine is not None and holds(folder, mine)):
            raise BotStartError(f"bot {name!r}: its folder {folder} holds your home folder {mine}: a bot would see "
                                "all your files. Give the bot a folder of its own (cwd:, or its files in their own folder)")
    runtimes = list(dict.fromkeys(runtimes + [p for p in policy.extra_ro if os.path.exists(p)]))
    shown = folders + runtimes
    return View(tuple(folders), tuple(runtimes), tuple(masks(policy.hide, shown)), tuple(argv),
                inner_path(path_env, shown))


def masks(paths: tuple[str, ...], shown: list[str]) -> list[str]:
    """The paths to hide so that none of `paths` is readable under a shown folder.

    A path that does not exist yet is hidden through its nearest existing parent when that parent is
    arena's alone (inside a shown folder, holding none); else it is left (callers create arena's
    outputs before the bots start, so that they can be masked).
    """
    out: list[str] = []
    for raw in paths:
        path = os.path.abspath(raw)
        if not any(holds(f, path) for f in shown):
            continue
        target = path
        while not os.path.lexists(target):
            target = os.path.dirname(target)
        if target != path and (any(holds(target, f) for f in shown) or not any(holds(f, target) for f in shown)):
            continue
        out.append(target)
    return [p for p in dict.fromkeys(out) if not any(q != p and holds(q, p) for q in out)]  # outermost only


def inner_path(path_env: str, shown: list[str]) -> str:
    """The organiser's PATH less every folder the bot cannot see (so none of its host paths leak)."""
    keep = []
    for entry in path_env.split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            continue
        real = os.path.realpath(entry)
        if os.path.isdir(entry) and (is_system(entry) and is_system(real) or any(holds(f, entry) for f in shown)):
            keep.append(entry)
    return os.pathsep.join(dict.fromkeys(keep)) or "/usr/bin:/bin"
