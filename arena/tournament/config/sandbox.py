"""The `sandbox:` part of a tournament config: reading it, and placing arena's outputs around it.

A tournament's `sandbox:` and each entrant's are read over one another (`read_policy`); once the
outputs are known, every entrant's policy gets them masked and its kept scratch folder placed beside
the store (`with_outputs`), so no bot ever sees the store, the replays, the report, the config, the
lock or another entrant's scratch; the tournament's root and the other entrants' folders are never
shown to it as a runtime (`private`).

Entrants whose folders overlap (one entrant's folder is, or lies inside, another's) and that run
different programs could read each other's files, and arena cannot tell which files are whose: `overlaps` refuses such a config unless
every entrant concerned says `sandbox: {shared_folder: true}` (one author's bots, e.g. the sample
bots), and then warns; each of them still cannot read the program files the others' commands name.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import os
from typing import Sequence

from arena.errors import BotStartError, ConfigError
from arena.sandbox.bwrap import DEFAULT_PATH
from arena.sandbox.policy import SandboxPolicy, Scratch, policy_from_mapping
from arena.sandbox.probe import probe
from arena.sandbox.view import holds, plan
from arena.tournament.config.reader import Reader


def read_policy(r: Reader, value: Any, where: str, base: SandboxPolicy) -> SandboxPolicy:
    """`sandbox:` (true, false or settings) over `base`; refused when asked for where it cannot run."""
    try:
        policy = policy_from_mapping(value, where, base)
    except ConfigError as exc:
        r.fail("", str(exc))
    asked = value is True or (isinstance(value, dict) and value.get("enabled", True) is True)
    support = probe()
    if asked and not support.sandbox:
        r.fail(where, f"the sandbox is asked for but cannot run on this machine: {support.reason} "
                      "(set `sandbox: false` only for bots you trust)")
    return policy


def output_paths(store: Path, replays: Path | None, report: Path | None = None, config: Path | None = None) -> tuple[str, ...]:
    """arena's outputs and the config, masked in a sandbox even where they lie inside an entrant's folder."""
    paths = [store.with_name(store.name + suffix) for suffix in ("", "-wal", "-shm", "-journal", ".lock")]
    paths.append(store.parent / f"{store.stem}-scratch")
    paths += [p for p in (replays, report, config) if p is not None]
    return tuple(str(p.resolve()) for p in paths)


def folders_of(command: Sequence[str], cwd: str, policy: SandboxPolicy) -> tuple[str, ...]:
    """The host folders an entrant's bot is shown as its own (see arena.sandbox.view)."""
    return plan(tuple(command), cwd, os.environ.get("PATH") or DEFAULT_PATH, policy).folders


def overlaps(r: Reader, entrants: Sequence[tuple[str, Sequence[str], str, SandboxPolicy]]) -> list[str]:
    """Refuse entrants (name, command, cwd, policy) whose sandboxed folders overlap, unless all of them
    opted in with `shared_folder: true`; then one warning per shared folder."""
    views = []
    for i, (name, command, cwd, policy) in enumerate(entrants):
        try:
            views.append(folders_of(command, cwd, policy) if policy.enabled else ())
        except BotStartError as exc:
            r.fail(f"entrants[{i}].command", str(exc))
    programs = [sorted(named_files(command, cwd)) for _, command, cwd, _ in entrants]
    warnings = []
    for j, (name, _, _, policy) in enumerate(entrants):
        for i in range(j):
            shared = [f for f in views[j] for g in views[i] if holds(f, g) or holds(g, f)]
            if not shared or programs[i] == programs[j]:
                continue  # no folder in common, or one program run twice (other arguments): nothing to hide
            other = entrants[i]
            if not (policy.shared_folder and other[3].shared_folder):
                r.fail(f"entrants[{j}]", f"{name!r} and {other[0]!r} (entrants[{i}]) share the folder {shared[0]}: "
                       "each bot could read the other's files. Give each entrant a folder of its own, or, for one "
                       "author's bots, set `sandbox: {shared_folder: true}` on both")
            warnings.append(f"{name!r} and {other[0]!r} share the folder {shared[0]} (shared_folder: true): each can "
                            "read the other's files there, except the programs their commands name")
    return warnings


def private_paths(root: Path, config: Path, entrant: int, folders: Sequence[Sequence[str]]) -> tuple[str, ...]:
    """What entrant number `entrant` must never be shown as a runtime: the root, the config, others' folders."""
    paths = [str(root.resolve()), str(config.resolve())]
    for i, own in enumerate(folders):
        if i != entrant:
            paths += own
    return tuple(dict.fromkeys(paths))


def named_files(command: Sequence[str], cwd: str) -> list[str]:
    """The existing files an entrant's command names (its programs), as absolute paths."""
    return [os.path.abspath(os.path.join(cwd, a)) for a in command if a and not a.startswith("-")
            and os.path.isfile(os.path.join(cwd, a))]


def keep_dir(policy: SandboxPolicy, entrant: str, store: Path) -> SandboxPolicy:
    """A kept scratch folder lives beside the store, one per entrant, never inside another bot's view."""
    if policy.scratch is not Scratch.KEEP or policy.keep_dir:
        return policy
    return replace(policy, keep_dir=str(store.parent / f"{store.stem}-scratch" / entrant))


def with_outputs(policy: SandboxPolicy, entrant: str, store: Path, replays: Path | None, report: Path | None = None,
                 config: Path | None = None, private: tuple[str, ...] = (), others: tuple[str, ...] = ()) -> SandboxPolicy:
    """`policy` with its kept scratch folder placed, arena's outputs and the config hidden from it, and
    `others` (the program files of entrants sharing its folder) hidden too."""
    hide = output_paths(store, replays, report, config) + others
    return replace(keep_dir(policy, entrant, store), hide=hide, private=private)
