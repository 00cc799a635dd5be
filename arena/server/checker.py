"""A submission's check: `arena check-bot --quick` in the sandbox with the ladder's clocks, then a few
games against the house bots (`arena play`); the verdict and the bot's stderr go to its owner.

Each step is its own `arena` process, bounded in time, so a hostile bot costs the server nothing but
the wait; the server process itself never talks to a submitted bot. A bot that passes becomes its
participant's active version and joins the ladder (`on_pass`).
"""

from __future__ import annotations

import shlex
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from arena.jsonvalue import loads
from arena.errors import SubmissionRefused
from arena.server.accounts import activate_bot
from arena.server.archive import resolve_command
from arena.server.config import ServerConfig
from arena.server.db import Database, now
from arena.textsafe import clean

CHECK_TIMEOUT_S = 240.0
GAME_TIMEOUT_S = 120.0
REPORT_CHARS = 20_000
ARENA = [sys.executable, "-c", "import sys; from arena.cli import main; sys.argv[0] = 'arena'; main()"]


@dataclass(frozen=True)
class Verdict:
    passed: bool
    reason: str
    report: str


def _run(argv: list[str], cwd: str, timeout: float) -> tuple[int, str, str]:
    try:
        proc = subprocess.run(argv, cwd=cwd, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return -1, "", f"the check did not finish within {timeout:.0f} s"
    return proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")


def check_submission(config: ServerConfig, command: tuple[str, ...], folder: str, sandbox: bool) -> Verdict:
    tc = config.time_control
    box = [] if sandbox else ["--no-sandbox"]
    argv = ARENA + ["check-bot", config.game, "--quick", "--decision-ms", str(tc.decision_ms), "--startup-ms",
                    str(tc.startup_ms), *box, "--", *command]
    code, out, err = _run(argv, folder, CHECK_TIMEOUT_S)
    report = f"$ arena check-bot {config.game} --quick ...\n{out}{err}"
    if code != 0:
        failing = [line.strip() for line in out.splitlines() if line.startswith("FAIL")]
        why = "; ".join(failing[:3]) or clean(err or out, 300)
        return Verdict(False, f"check-bot failed: {clean(why, 500)}", clean(report, REPORT_CHARS, keep_newlines=True))
    house = [shlex.join(h.command) for h in config.house_bots]
    for g in range(config.ladder.check_games if house else 0):
        seat = g % config.players
        others = [house[(g + i) % len(house)] for i in range(config.players - 1)]
        bots = others[:seat] + [shlex.join(command)] + others[seat:]
        opts = [x for k, v in config.options.items() for x in ("--option", f"{k}={_option(v)}")]
        argv = ARENA + ["play", config.game, *[x for b in bots for x in ("--bot", b)], "--seed", str(1000 + g), "--json",
                        "--decision-ms", str(tc.decision_ms), "--startup-ms", str(tc.startup_ms), *opts, *box]
        code, out, err = _run(argv, folder, GAME_TIMEOUT_S)
        report += f"\n$ arena play {config.game} (check game {g + 1}, your bot in seat {seat})\n"
        try:
            result: Any = loads(out.strip().splitlines()[-1]) if code == 0 and out.strip() else None
        except ValueError:
            result = None
        if not isinstance(result, dict):
            report += clean(err or out, 4000, keep_newlines=True)
            return Verdict(False, f"check game {g + 1} against the house bots could not be played: {clean(err or out, 300)}",
                           clean(report, REPORT_CHARS, keep_newlines=True))
        mine = [f for f in result.get("faults", []) + result.get("close_faults", []) if f.get("seat") == seat]
        report += f"points {result.get('points')}, ranks {result.get('ranks')}, {len(mine)} fault(s) of yours\n"
        for fault in mine:
            report += f"fault {fault.get('kind')} at step {fault.get('step')}: {clean(fault.get('detail'), 500)}\n"
            report += "".join(f"  stderr| {clean(line, 300)}\n" for line in fault.get("stderr_tail", []))
        if mine:
            first = mine[0]
            return Verdict(False, f"check game {g + 1} against the house bots: fault {first.get('kind')}: "
                                  f"{clean(first.get('detail'), 300)}", clean(report, REPORT_CHARS, keep_newlines=True))
    return Verdict(True, "check-bot and the games against the house bots", clean(report, REPORT_CHARS, keep_newlines=True))


def build_source(config: ServerConfig, meta: Any, folder: str, sandbox: bool) -> tuple[tuple[str, ...] | None, Verdict]:
    """A source submission (its manifest names a `language`): built in the sandbox (arena.build, the
    same build as `arena build`), then its command resolved in the built folder. The build log goes
    into the report, which only the submission's owner can read."""
    from arena.build.languages import by_name
    from arena.build.runner import build

    language = by_name(config.build.languages)[str(meta["language"])]
    result = build(folder, language, config.build.limits, sandbox=sandbox)
    report = f"$ {language.build or '(nothing to build)'}   [the build of {language.name}, {result.seconds:.1f} s]\n{result.log}"
    if not result.ok:
        return None, Verdict(False, f"{result.reason}; its log ends:\n{result.tail(15)}",
                             clean(report, REPORT_CHARS, keep_newlines=True))
    runtimes = config.runtimes + ((language.runtime,) if language.runtime else ())
    try:
        command = resolve_command(list(meta["command"]), Path(folder), runtimes)
    except SubmissionRefused as exc:
        return None, Verdict(False, f"the build succeeded but made no runnable program: {exc}",
                             clean(report, REPORT_CHARS, keep_newlines=True))
    return command, Verdict(True, "built", clean(report, REPORT_CHARS // 2, keep_newlines=True))


def _option(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


class Checker:
    """A thread checking received submissions one at a time, oldest first."""

    def __init__(self, db: Database, config: ServerConfig, sandbox: bool, on_pass: Callable[[int], None]) -> None:
        self.db, self.config, self.sandbox, self.on_pass = db, config, sandbox, on_pass
        self.wake = threading.Event()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="arena-checker", daemon=True)

    def start(self) -> None:
        with self.db.write() as conn:  # a check cut short by a stop runs again
            conn.execute("UPDATE submissions SET status = 'received' WHERE status = 'checking'")
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self.wake.set()

    def _loop(self) -> None:
        while not self.stopping.is_set():
            row = self.db.one("SELECT * FROM submissions WHERE status = 'received' ORDER BY id LIMIT 1")
            if row is None:
                self.wake.wait(1.0)
                self.wake.clear()
                continue
            self.check_one(row)

    def check_one(self, row: Any) -> None:
        sub = int(row["id"])
        with self.db.write() as conn:
            conn.execute("UPDATE submissions SET status = 'checking' WHERE id = ?", (sub,))
        meta: Any = loads(row["manifest"])
        command = tuple(meta.get("command", ()))
        built: Verdict | None = None
        if meta.get("language"):
            resolved, built = build_source(self.config, meta, row["folder"], self.sandbox)
            command = resolved or command
        verdict = built if built is not None and not built.passed else check_submission(self.config, command, row["folder"], self.sandbox)
        if built is not None and built.passed:
            verdict = Verdict(verdict.passed, verdict.reason, clean(built.report + "\n" + verdict.report, REPORT_CHARS, keep_newlines=True))
        bot = None
        if verdict.passed:
            bot = activate_bot(self.db, int(row["participant_id"]), sub, meta["name"], meta["version"], command, row["folder"])
        with self.db.write() as conn:
            conn.execute("UPDATE submissions SET status = ?, reason = ?, report = ?, bot_id = ?, finished = ? WHERE id = ?",
                         ("passed" if verdict.passed else "refused", verdict.reason, verdict.report, bot, now(), sub))
        if bot is not None:
            self.on_pass(bot)
