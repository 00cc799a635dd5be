"""Rendering a conformance run: text for people, JSON for CI. Everything a bot said is already clean."""

from __future__ import annotations

from typing import Sequence

from arena.checkbot.checks import CheckResult, Status
from arena.checkbot.load import Load
from arena.checkbot.runner import Evidence
from arena.jsonvalue import JSON, dumps_str

MARKS = {Status.PASS: "PASS", Status.WARN: "WARN", Status.FAIL: "FAIL", Status.SKIP: "SKIP"}


def failed(results: Sequence[CheckResult]) -> bool:
    return any(r.status is Status.FAIL for r in results)


def render_text(evidence: Evidence, results: Sequence[CheckResult], verbose: bool = False, load: Load | None = None) -> list[str]:
    opts = evidence.options
    lines = [
        f"check-bot {evidence.spec.name} {evidence.spec.version}: {' '.join(opts.command)}",
        f"  {len(evidence.games)} games on one process, {1 if evidence.probe else 0} probe game, "
        f"{1 if evidence.referee else 0} under the referee; decision limit {opts.decision_ms} ms, "
        f"start-up {opts.startup_ms} ms; {'sandboxed' if opts.sandbox else 'NOT sandboxed'}; {evidence.duration_s:.1f} s",
    ]
    if load is not None and load.busy:
        lines.append(f"  the machine was busy ({load.describe()}): timing verdicts are less sure")
    for result in results:
        lines.append(f"{MARKS[result.status]}  {result.name:<16} {result.summary}")
        shown = result.evidence if verbose or result.status in (Status.FAIL, Status.WARN) else ()
        for note in shown:
            lines.append(f"      {note}")
    counts = {s: sum(1 for r in results if r.status is s) for s in Status}
    verdict = "FAILED" if failed(results) else "passed"
    lines.append(f"{verdict}: {counts[Status.PASS]} pass, {counts[Status.WARN]} warn, {counts[Status.FAIL]} fail, "
                 f"{counts[Status.SKIP]} skip")
    return lines


def to_json(evidence: Evidence, results: Sequence[CheckResult], load: Load | None = None) -> dict[str, JSON]:
    opts = evidence.options
    return {
        "game": evidence.spec.name,
        "game_version": evidence.spec.version,
        "command": list(opts.command),
        "bot": {"name": evidence.handshake.name, "version": evidence.handshake.version},
        "games": len(evidence.games),
        "seed": opts.seed,
        "decision_ms": opts.decision_ms,
        "startup_ms": opts.startup_ms,
        "sandbox": bool(opts.sandbox),
        "duration_s": round(evidence.duration_s, 3),
        "passed": not failed(results),
        "machine": None if load is None else {"busy": load.busy, "load_per_core": round(load.per_core, 2),
                                              "spin_slowdown": round(load.slowdown, 2)},
        "checks": [
            {"name": r.name, "status": r.status.value, "passed": r.passed, "summary": r.summary, "evidence": list(r.evidence)}
            for r in results
        ],
    }


def render_json(evidence: Evidence, results: Sequence[CheckResult], load: Load | None = None) -> str:
    return dumps_str(to_json(evidence, results, load))
