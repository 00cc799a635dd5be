"""A submission's check: `arena check-bot --quick` in the sandbox with the ladder's clocks, then a few
games against the house bots (`arena play`); the verdict and the bot's stderr go to its owner.

Each step is its own `arena` process, bounded in time, so a hostile bot costs the server nothing but
the wait; the server process itself never talks to a submitted bot. A bot that passes becomes its
participant's active version and joins the ladder (`on_pass`).
"""

from __future__ import annotations

import shlex
from pathlib import Path
import subprocess
import sys
import threading
import time
import traceback
from dataclasses import dataclass, replace
from typing import Any, Callable

from arena.errors import SubmissionRefused
from arena.jsonvalue import loads
from arena.ladder.uploads.archive import resolve_command
from arena.rng import random_seed
from arena.ladder.accounts import activate_bot
from arena.ladder.config import ServerConfig
from arena.ladder.ladder import ladder_setup
from arena.ladder.db import Database, now
from arena.ladder.uploads.storage import remove_tree
from arena.ladder.supervisor import CheckGate, Part
from arena.textsafe import clean
from arena.tournament.config.command_line import setup_argv
from arena.tournament.config.setup import PlaySetup
from arena.ladder.states import SubmissionState

CHECK_TIMEOUT_S = 240.0
GAME_TIMEOUT_S = 120.0
REPORT_CHARS = 20_000
ARENA = [sys.executable, "-c", "import sys; from arena.cli import main; sys.argv[0] = 'arena'; main()"]


@dataclass(frozen=True)
class Verdict:
    passed: bool
    reason: str
    report: str


BEAT_S = 2.0


def _quiet() -> None:
    pass


def _run(argv: list[str], cwd: str, timeout: float, beat: Callable[[], None] = _quiet) -> tuple[int, str, str]:
    """Run one step of the check, calling `beat` every few seconds while it runs (the checker is alive)."""
    with subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL) as proc:
        deadline = time.monotonic() + timeout
        while True:
            beat()
            try:
                out, err = proc.communicate(timeout=max(0.0, min(BEAT_S, deadline - time.monotonic())))
                break
            except subprocess.TimeoutExpired:
                if time.monotonic() >= deadline:
                    proc.kill()
                    proc.communicate()
                    return -1, "", f"the check did not finish within {timeout:.0f} s"
    return proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def check_setup(config: ServerConfig, sandbox: bool) -> PlaySetup:
    """What the check plays under: the ladder's own play setup (its clocks, limits, game options, sandbox)."""
    return ladder_setup(config, sandbox)


def check_bot_argv(setup: PlaySetup, command: tuple[str, ...]) -> list[str]:
    """`arena check-bot --quick` under the setup's clocks and limits (it plays every option of the game itself)."""
    return ARENA + ["check-bot", setup.game, "--quick", *setup_argv(replace(setup, options={})), "--", *command]


def play_argv(setup: PlaySetup, bots: list[str], seed: int) -> list[str]:
    """One check game, `arena play` under the setup: each bot's command line in seat order."""
    return ARENA + ["play", setup.game, *[x for b in bots for x in ("--bot", b)], "--seed", str(seed), "--json",
                    *setup_argv(setup)]


def check_submission(config: ServerConfig, command: tuple[str, ...], folder: str, sandbox: bool,
                     beat: Callable[[], None] = _quiet) -> Verdict:
    setup = check_setup(config, sandbox)
    code, out, err = _run(check_bot_argv(setup, command), folder, CHECK_TIMEOUT_S, beat)
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
        code, out, err = _run(play_argv(setup, bots, check_seed(g)), folder, GAME_TIMEOUT_S, beat)
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


def check_seed(game: int) -> int:
    """A check game's seed: 63 random bits, so that no bot can recompute its deal or its ARENA_SEED
    (a one-way hash of the seed) and so tell a check game from a ladder game (issue 36, item 14)."""
    return random_seed()


def build_source(config: ServerConfig, meta: Any, folder: str, sandbox: bool,
                 beat: Callable[[], None] = _quiet) -> tuple[tuple[str, ...] | None, Verdict]:
    """A source submission (its manifest names a `language`): built in the sandbox (arena.build, the
    same build as `arena build`), then its command resolved in the built folder. The build log goes
    into the report, which only the submission's owner can read."""
    from arena.build.languages import by_name
    from arena.build.runner import build

    language = by_name(config.build.languages)[str(meta["language"])]
    result = build(folder, language, config.build.limits, sandbox=sandbox, beat=beat)
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


class Checker:
    """Checks received submissions one at a time, oldest first: the loop of the supervisor's part
    "checker". A submission becomes `received` only once its folder is complete (`Server.submit` writes
    the row after unpacking), so the loop never meets a half-unpacked one; a check that raises refuses
    that submission with the reason and the loop goes on with the next."""

    STALE_S = 60.0  # the loop beats at least every BEAT_S while it waits or checks

    DRAIN_S = GAME_TIMEOUT_S  # a check waits at most this long for the ladder's games in flight to end

    def __init__(self, db: Database, config: ServerConfig, sandbox: bool, on_pass: Callable[[int], None],
                 gate: CheckGate | None = None) -> None:
        self.db, self.config, self.sandbox, self.on_pass = db, config, sandbox, on_pass
        self.gate = gate if gate is not None else CheckGate()  # shared with the ladder: it yields while we check
        self.wake = threading.Event()
        self.checked = 0

    def recover(self) -> None:
        """A check cut short by a stop or a crash runs again."""
        with self.db.write() as conn:
            conn.execute("UPDATE submissions SET status = ? WHERE status = ?", (SubmissionState.RECEIVED, SubmissionState.CHECKING))

    def run(self, part: Part) -> None:
        self.recover()
        while not part.stopping.is_set():
            part.beat()
            row = self.db.one("SELECT * FROM submissions WHERE status = ? ORDER BY id LIMIT 1", SubmissionState.RECEIVED)
            if row is None:
                self.wake.wait(1.0)
                self.wake.clear()
                continue
            self.check_one(row, part.beat)

    def check_one(self, row: Any, beat: Callable[[], None] = _quiet) -> None:
        sub = int(row["id"])
        with self.db.write() as conn:
            conn.execute("UPDATE submissions SET status = ? WHERE id = ?", (SubmissionState.CHECKING, sub))
        self.gate.begin(self.DRAIN_S, beat)  # the ladder starts no game and its games in flight end first
        try:
            self._check(row, sub, beat)
        finally:
            self.gate.end()

    def _check(self, row: Any, sub: int, beat: Callable[[], None]) -> None:
        try:
            meta: Any = loads(row["manifest"])
            command = tuple(meta.get("command", ()))
            built: Verdict | None = None
            if meta.get("language"):
                resolved, built = build_source(self.config, meta, row["folder"], self.sandbox, beat)
                command = resolved or command
            if built is not None and not built.passed:
                verdict = built
            else:
                verdict = check_submission(self.config, command, row["folder"], self.sandbox, beat)
            if built is not None and built.passed:
                verdict = Verdict(verdict.passed, verdict.reason,
                                  clean(built.report + "\n" + verdict.report, REPORT_CHARS, keep_newlines=True))
        except Exception as exc:  # noqa: BLE001 - one submission's failure is its own refusal, never the checker's end
            detail = f"{type(exc).__name__}: {clean(str(exc), 300)}"
            print(f"arena serve: the check of submission {sub} failed: {detail}\n"
                  + clean("".join(traceback.format_exception(exc)), 4000, keep_newlines=True), file=sys.stderr, flush=True)
            verdict = Verdict(False, f"the server could not check this submission ({detail}); submit it again, "
                                     "and tell the organiser if it happens again", "")
        bot = None
        if verdict.passed:
            bot = activate_bot(self.db, int(row["participant_id"]), sub, meta["name"], meta["version"], command, row["folder"])
        with self.db.write() as conn:
            conn.execute("UPDATE submissions SET status = ?, reason = ?, report = ?, bot_id = ?, finished = ? WHERE id = ?",
                         (SubmissionState.PASSED if verdict.passed else SubmissionState.REFUSED, verdict.reason, verdict.report, bot, now(), sub))
        self.checked += 1
        if bot is not None:
            self.on_pass(bot)
        elif row["folder"]:
            remove_tree(Path(row["folder"]))  # refused: its verdict and report are stored, its files are not needed
