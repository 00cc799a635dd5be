"""The `sandbox:` part of a tournament config: reading it, and placing arena's outputs around it.

A tournament's `sandbox:` and each entrant's are read over one another (`read_policy`); once the
outputs are known, every entrant's policy gets them masked and its kept scratch folder placed beside
the store (`with_outputs`), so no bot ever sees the store, the replays or another entrant's scratch.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from arena.errors import ConfigError
from arena.sandbox.policy import SandboxPolicy, Scratch, policy_from_mapping
from arena.sandbox.probe import probe
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


def output_paths(store: Path, replays: Path | None) -> tuple[str, ...]:
    """arena's outputs, masked in a sandbox even where they lie inside an entrant's folder."""
    paths = [store.with_name(store.name + suffix) for suffix in ("", "-wal", "-shm", "-journal")]
    paths.append(store.parent / f"{store.stem}-scratch")
    if replays is not None:
        paths.append(replays)
    return tuple(str(p.resolve()) for p in paths)


def keep_dir(policy: SandboxPolicy, entrant: str, store: Path) -> SandboxPolicy:
    """A kept scratch folder lives beside the store, one per entrant, never inside another bot's view."""
    if policy.scratch is not Scratch.KEEP or policy.keep_dir:
        return policy
    return replace(policy, keep_dir=str(store.parent / f"{store.stem}-scratch" / entrant))


def with_outputs(policy: SandboxPolicy, entrant: str, store: Path, replays: Path | None) -> SandboxPolicy:
    """`policy` with its kept scratch folder placed and arena's outputs hidden from it."""
    return replace(keep_dir(policy, entrant, store), hide=output_paths(store, replays))
