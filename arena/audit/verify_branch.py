"""`arena verify BRANCH --original ORIGINAL`: a branch checked against the replay it continues.

The original verifies and is the file the branch names (SHA-256); the branch keeps its game, version,
options, seed, game id, seat count, time control and policy; and every step before the branch point
plays the original's actions. Each problem is a `ReplayMismatch` naming the branch's line.
"""

from __future__ import annotations

from arena.jsonvalue import JSON
from arena.replay.encoding import canonical_bytes
from arena.replay.reader import Replay
from arena.replay.records import Decision, short
from arena.audit.verify import ReplayMismatch, verify_replay


def check_branch(branch: Replay, original: Replay) -> None:
    """Raise ReplayMismatch (or the original's own ReplayError) unless `branch` continues `original`."""
    b = branch.header
    if b.branch is None:
        raise ReplayMismatch(branch.source, b.line, "not a branch (no 'branch' in its header), yet an original was given")
    verify_replay(original)
    if original.sha256 != b.branch.of:
        raise ReplayMismatch(branch.source, b.line, f"'branch': a branch of {b.branch.of}, but {original.source} has "
                                                    f"SHA-256 {original.sha256}")
    o = original.header
    same: dict[str, tuple[JSON, JSON]] = {
        "game": (b.game, o.game), "game_version": (b.game_version, o.game_version), "options": (b.options, o.options),
        "seed": (b.seed, o.seed), "game_id": (b.game_id, o.game_id), "seats": (len(b.seats), len(o.seats)),
        "time_control": (b.time_control, o.time_control), "policy": (b.policy.value, o.policy.value),
    }
    for member, (mine, theirs) in same.items():
        if canonical_bytes(mine) != canonical_bytes(theirs):
            raise ReplayMismatch(branch.source, b.line, f"'{member}': {short(mine)} in the branch, {short(theirs)} in "
                                                        "its original: a branch keeps the original's")
    played = {(d.step, d.seat): d.played for d in original.body if isinstance(d, Decision)}
    for d in branch.body:
        if isinstance(d, Decision) and d.step < b.branch.at_step:
            if (d.step, d.seat) not in played or canonical_bytes(played[(d.step, d.seat)]) != canonical_bytes(d.played):
                theirs = short(played.get((d.step, d.seat)))
                raise ReplayMismatch(branch.source, d.line, f"seat {d.seat}, step {d.step}: the recorded action "
                                                            f"{short(d.played)} is not the original's ({theirs})")
