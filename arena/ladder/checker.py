"""A submission's check: `arena check-bot --quick` in the sandbox with the ladder's clocks, then a few
games against the house bots (`arena play`); the verdict and the bot's stderr go to its owner.

Each step is its own `arena` process, bounded in time, so a hostile bot costs the server nothing but
the wait; the server process itself never talks to a submitted bot. A bot that passes becomes its
participant's active version and joins the ladder (`on_pass`).
"""

from __future__ import annotations

import os
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
from arena.sandbox.parent import die_with_parent
from arena.ladder.accounts import activate_bot
from arena.ladder.config import ServerConfig
from arena.ladder.ladder import ladder_setup
from arena.ladder.db import Database, now
from arena.ladder.uploads.program import program_digest
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
DIE_WITH_SERVER = True  # a check's steps get SIGKILL when the server dies (False: they live on; a test's control)
STEP_POLL_S = 0.5  # how often a running step looks at its time-out and at a cancel


def _quiet() -> None:
    pass


def _run(argv: list[str], cwd: str, timeout: float, beat: Callable[[], None] = _quiet,
         cancel: threading.Event | None = None) -> tuple[int, str, str]:
    """Run one step of the check, calling `beat` every few seconds while it runs (the checker is alive);
    killed at its time-out, or once `cancel` is set (another step of the same check has decided it)."""
    with subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                          preexec_fn=_step_preexec()) as proc:
        deadline = time.monotonic() + timeout
        while True:
            beat()
            try:
                out, err = proc.communicate(timeout=max(0.0, min(STEP_POLL_S, deadline - time.monotonic())))
                break
            except subprocess.TimeoutExpired:
                if time.monotonic() >= deadline or (cancel is not None and cancel.is_set()):
                    proc.kill()
                    proc.communicate()
                    return -1, "", f"the check did not finish within {timeout:.0f} s"
    return proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


CHECK_NICE = 10  # a check's processes yield the CPU to the server's own (its pages, its API) when both want it


def _step_preexec() -> Callable[[], None] | None:
    """Run in a check step's child before exec: die with the server, and run below the server's priority."""
    die = die_with_parent() if DIE_WITH_SERVER else None
    nice, niceness = os.nice, CHECK_NICE

    def apply() -> None:
        if die is not None:
            die()
        if niceness:
            nice(niceness)

    return apply if die is not None or niceness else None


PARALLEL_STEPS = True  # the check's steps at once (False: one after the other, as before; a test's control)


def run_steps(steps: list[tuple[list[str], float]], cwd: str, beat: Callable[[], None],
              decided: Callable[[int, tuple[int, str, str]], bool]) -> None:
    """Each step (argv, time-out) of one check, all at once, each outcome given to `decided` as it ends: a
    step mostly waits (for a bot's start-up in the sandbox, its answers, its exit), so on a few cores the
    check takes about its longest step, not their sum. Once `decided` says a step decided the verdict (a
    refusal), the steps after it still running are killed and not judged: the first step (check-bot, whose
    report says most about what is wrong) is left to finish, since its refusal comes first in the verdict."""
    first, later = threading.Event(), threading.Event()  # kill step 0; kill the steps after it
    if not PARALLEL_STEPS:
        for i, (argv, timeout) in enumerate(steps):
            if decided(i, _run(argv, cwd, timeout, beat)):
                return
        return

    def step(i: int) -> None:
        argv, timeout = steps[i]
        mine = first if i == 0 else later
        outcome = _run(argv, cwd, timeout, beat if i == 0 else _quiet, mine)
        if not mine.is_set() and decided(i, outcome):
            later.set()
            if i == 0:
                first.set()

    threads = [threading.Thread(target=step, args=(i,), name=f"arena-check-step{i}", daemon=True) for i in range(len(steps))]
    for t in threads:
        t.start()
    for t in threads:
        while t.is_alive():
            t.join(BEAT_S)
            beat()


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
    """check-bot, then the games against the house bots, judged in that order; the steps run at once
    (run_steps), and the first step that refuses the bot ends the others."""
    setup = check_setup(config, sandbox)
    steps = [(check_bot_argv(setup, command), CHECK_TIMEOUT_S)]
    house = [shlex.join(h.command) for h in config.house_bots]
    seats = []
    for g in range(config.ladder.check_games if house else 0):
        seat = g % config.players
        others = [house[(g + i) % len(house)] for i in range(config.players - 1)]
        steps.append((play_argv(setup, others[:seat] + [shlex.join(command)] + others[seat:], check_seed(g)), GAME_TIMEOUT_S))
        seats.append(seat)
    verdicts: dict[int, Verdict] = {}  # the steps that ran to their end (not killed once another refused)

    def decided(i: int, outcome: tuple[int, str, str]) -> bool:
        verdicts[i] = _step_verdict(config, i, seats[i - 1] if i else 0, outcome)
        return not verdicts[i].passed

    run_steps(steps, folder, beat, decided)
    report = ""
    for i in sorted(verdicts):
        report += verdicts[i].report
        if not verdicts[i].passed:  # the first refusal in the check's own order
            return Verdict(False, verdicts[i].reason, clean(report, REPORT_CHARS, keep_newlines=True))
    return Verdict(True, "check-bot and the games against the house bots", clean(report, REPORT_CHARS, keep_newlines=True))


def _step_verdict(config: ServerConfig, i: int, seat: int, outcome: tuple[int, str, str]) -> Verdict:
    """Step i's verdict with its part of the report: 0 is check-bot, i > 0 check game i (the bot in `seat`)."""
    code, out, err = outcome
    if i == 0:
        report = f"$ arena check-bot {config.game} --quick ...\n{out}{err}"
        if code == 0:
            return Verdict(True, "", report)
        failing = [line.strip() for line in out.splitlines() if line.startswith("FAIL")]
        why = "; ".join(failing[:3]) or clean(err or out, 300)
        return Verdict(False, f"check-bot failed: {clean(why, 500)}", report)
    g = i - 1
    report = f"\n$ arena play {config.game} (check game {g + 1}, your bot in seat {seat})\n"
    try:
        result: Any = loads(out.strip().splitlines()[-1]) if code == 0 and out.strip() else None
    except ValueError:
        result = None
    if not isinstance(result, dict):
        report += clean(err or out, 4000, keep_newlines=True)
        return Verdict(False, f"check game {g + 1} against the house bots could not be played: {clean(err or out, 300)}", report)
    mine = [f for f in result.get("faults", []) + result.get("close_faults", []) if f.get("seat") == seat]
    report += f"points {result.get('points')}, ranks {result.get('ranks')}, {len(mine)} fault(s) of yours\n"
    for fault in mine:
        report += f"fault {fault.get('kind')} at step {fault.get('step')}: {clean(fault.get('detail'), 500)}\n"
        report += "".join(f"  stderr| {clean(line, 300)}\n" for line in fault.get("stderr_tail", []))
    if mine:
        first = mine[0]
        return Verdict(False, f"check game {g + 1} against the house bots: fault {first.get('kind')}: "
                              f"{clean(first.get('detail'), 300)}", report)
    return Verdict(True, "", report)


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
    """Checks received submissions, up to `ladder.check_workers` at once: the loop of the supervisor's part
    "checker". A submission becomes `received` only once its folder is complete (`Server.submit` writes
    the row after unpacking), so the loop never meets a half-unpacked one; a check that raises refuses
    that submission with the reason and the loop goes on with the next.

    The queue is fair (`claim`): one check at a time per participant, the participant waiting longest
    first, and of a participant's waiting submissions only the newest is checked (the older ones would be
    replaced by it at once: they are refused, naming it), so one participant's fifty uploads cost one
    check and hold up nobody else."""

    STALE_S = 60.0  # the loop beats at least every BEAT_S while it waits or checks

    DRAIN_S = GAME_TIMEOUT_S  # a check waits at most this long for the ladder's games in flight to end

    FAIR = True  # False: oldest first, every submission checked (as before; a test's control)

    REUSE = True  # False: a program already passed is checked again (as before; a test's control)

    def __init__(self, db: Database, config: ServerConfig, sandbox: bool, on_pass: Callable[[int], None],
                 gate: CheckGate | None = None) -> None:
        self.db, self.config, self.sandbox, self.on_pass = db, config, sandbox, on_pass
        self.gate = gate if gate is not None else CheckGate()  # shared with the ladder: it yields while we check
        self.wake = threading.Event()
        self.checked = 0
        self.workers = max(1, config.ladder.check_workers)
        self._running: dict[int, threading.Thread] = {}  # submission id -> the thread checking it
        # (participant, program digest) -> the submission of that program that passed its check (since this start)
        self._passed: dict[tuple[int, str], int] = {}
        self._setup = repr((config.game, sorted(config.options.items()), config.players, config.time_control, config.limits,
                            config.ladder.check_games, [h.command for h in config.house_bots]))
        self._crash: BaseException | None = None

    def recover(self) -> None:
        """A check cut short by a stop or a crash runs again (not one still running in this process: a restarted
        loop finds its checks in flight where it left them)."""
        self._running = {sub: t for sub, t in self._running.items() if t.is_alive()}
        with self.db.write() as conn:
            conn.execute(f"UPDATE submissions SET status = ? WHERE status = ? AND id NOT IN ({','.join('?' * len(self._running))})",
                         (SubmissionState.RECEIVED, SubmissionState.CHECKING, *self._running))

    def run(self, part: Part) -> None:
        self.recover()
        self._crash = None
        while not part.stopping.is_set():
            part.beat()
            self._running = {sub: t for sub, t in self._running.items() if t.is_alive()}
            if self._crash is not None:  # not one submission's fault (those are refusals): the supervisor restarts us
                raise self._crash
            row = self.claim() if len(self._running) < self.workers else None
            if row is None:
                self.wake.wait(1.0)
                self.wake.clear()
                continue
            thread = threading.Thread(target=self._guarded, args=(row, part.beat), name=f"arena-check-{row['id']}", daemon=True)
            self._running[int(row["id"])] = thread
            thread.start()

    def _guarded(self, row: Any, beat: Callable[[], None]) -> None:
        try:
            self.check_one(row, beat)
        except BaseException as exc:  # noqa: BLE001 - handed to the loop, which ends and is restarted
            self._crash = exc
        finally:
            self.wake.set()

    def claim(self) -> Any:
        """The next submission to check, marked `checking` in the same transaction (None: nothing to do)."""
        replaced: list[Any] = []
        with self.db.write() as conn:
            rows = conn.execute("SELECT * FROM submissions WHERE status = ? ORDER BY id", (SubmissionState.RECEIVED,)).fetchall()
            row = rows[0] if rows else None
            if self.FAIR:
                busy = {int(r["participant_id"]) for r in
                        conn.execute("SELECT participant_id FROM submissions WHERE status = ?", (SubmissionState.CHECKING,))}
                first = next((r for r in rows if int(r["participant_id"]) not in busy), None)  # waiting longest
                mine = [r for r in rows if first is not None and r["participant_id"] == first["participant_id"]]
                row, replaced = (mine[-1], mine[:-1]) if mine else (None, [])
            for old in replaced:
                assert row is not None
                conn.execute("UPDATE submissions SET status = ?, reason = ?, report = ?, finished = ? WHERE id = ?",
                             (SubmissionState.REFUSED, f"not checked: your submission {row['id']}, sent after it, replaces it "
                              "(only a participant's newest waiting submission is checked)", "", now(), old["id"]))
            if row is not None:
                conn.execute("UPDATE submissions SET status = ? WHERE id = ?", (SubmissionState.CHECKING, row["id"]))
        for old in replaced:
            if old["folder"]:
                remove_tree(Path(old["folder"]))
        return row

    def check_one(self, row: Any, beat: Callable[[], None] = _quiet) -> None:
        sub = int(row["id"])
        with self.db.write() as conn:
            conn.execute("UPDATE submissions SET status = ? WHERE id = ?", (SubmissionState.CHECKING, sub))
        meta: Any = loads(row["manifest"])
        command = tuple(meta.get("command", ()))
        program = self._program(row, meta, command)
        same = self._passed.get(program) if program is not None else None
        if same is not None:  # no check, so the ladder need not yield
            verdict = Verdict(True, f"the same program as your submission {same}, which passed its check under this "
                                    "ladder's setup: not checked again", "")
        else:
            self.gate.begin(self.DRAIN_S, beat)  # the ladder starts no game and its games in flight end first
            try:
                verdict, command = self._check(meta, command, row["folder"], sub, beat)
            finally:
                self.gate.end()
            if verdict.passed and program is not None:
                self._passed[program] = sub
        self._record(row, sub, meta, command, verdict)

    def _program(self, row: Any, meta: Any, command: tuple[str, ...]) -> tuple[int, str] | None:
        """The submission's participant and program digest (uploads.program), where a passed check can be reused:
        not for a source built here (its build is checked each time)."""
        if not self.REUSE or meta.get("language") or not row["folder"]:
            return None
        return int(row["participant_id"]), program_digest(Path(row["folder"]), command, self._setup)

    def _check(self, meta: Any, command: tuple[str, ...], folder: str, sub: int, beat: Callable[[], None]
               ) -> tuple[Verdict, tuple[str, ...]]:
        """The verdict of a check (a source's build first), and the command that runs the bot."""
        try:
            built: Verdict | None = None
            if meta.get("language"):
                resolved, built = build_source(self.config, meta, folder, self.sandbox, beat)
                command = resolved or command
            if built is not None and not built.passed:
                return built, command
            verdict = check_submission(self.config, command, folder, self.sandbox, beat)
            if built is not None:
                verdict = Verdict(verdict.passed, verdict.reason,
                                  clean(built.report + "\n" + verdict.report, REPORT_CHARS, keep_newlines=True))
            return verdict, command
        except Exception as exc:  # noqa: BLE001 - one submission's failure is its own refusal, never the checker's end
            detail = f"{type(exc).__name__}: {clean(str(exc), 300)}"
            print(f"arena serve: the check of submission {sub} failed: {detail}\n"
                  + clean("".join(traceback.format_exception(exc)), 4000, keep_newlines=True), file=sys.stderr, flush=True)
            return Verdict(False, f"the server could not check this submission ({detail}); submit it again, "
                                  "and tell the organiser if it happens again", ""), command

    def _record(self, row: Any, sub: int, meta: Any, command: tuple[str, ...], verdict: Verdict) -> None:
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
