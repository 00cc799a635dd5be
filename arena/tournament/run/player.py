"""Plays scheduled games with long-lived bots: the part of a worker that touches bot processes.

Bot processes are kept across games (starting a Python bot costs ~30 ms, node ~115 ms), in slots
(`slots.py`) so that no process ever meets a deal twice; a bot that died is restarted in its slot
before its next game. A bot that cannot be started (its program fails, its handshake fails or times
out) does not stop anything: its seats get a `start_failed` fault from the referee, the game goes on,
and the start error is reported once as a fault outside games. It is tried again at its next game, so
a bot that fails once is not out for good, and whether a seat is charged never depends on which worker
played the game.

Deals no bot can derive: the seed a game is played with is the schedule's seed keyed with the
tournament's secret (kept in the store, sent to workers, never to a bot), and its game id is keyed
the same way, so it names nothing (no round, table or rotation).
"""

from __future__ import annotations

import errno
import traceback
from dataclasses import replace

from arena.errors import ArenaError, BotStartError, OutputError
from arena.referee.session import BotProcess, BotSpec
from arena.core.faults import Fault, FaultKind
from arena.referee.referee import play_game
from arena.core.result import GameResult
from arena.core.scheduled import ScheduledGame, played_game_id
from arena.rng import keyed_seed
from arena.sandbox.policy import Scratch
from arena.tournament.config.tournament import TournamentConfig
from arena.tournament.run.messages import GameDone, GameFailed, GameTask, PlayerSetup, WorkerBug
from arena.results.stored import StoredGame
from arena.tournament.run.slots import Slot, Slots, discard
from arena.live.tap import LiveTap

__all__ = ["GamePlayer", "PlayerSetup", "play_event", "played_game_id", "played_seed", "stored_game"]

# A write refused by the file system: the user's to fix (space, permissions), not a bug in arena.
_OUTPUT_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EIO, errno.EFBIG}


def played_seed(secret: str, schedule_seed: int) -> int:
    """The seed a scheduled game is played with: its schedule seed (public: the config's seed, the
    round and the entrants' names) keyed with the tournament's secret."""
    return keyed_seed(secret, "deal", schedule_seed)


class GamePlayer:
    """Plays games, keeping bot processes alive between games in slots that never meet a deal twice."""

    def __init__(self, setup: PlayerSetup) -> None:
        self.config = setup.config
        self.restart_bots = setup.restart_bots
        self.secret = setup.secret
        self.spec = self.config.game_spec()
        self.time_control = self.config.time_control
        self.limits = self.config.limits
        self.policy = self.config.fault_policy
        kept = {i: e.sandbox.keep_dir if e.sandbox.scratch is Scratch.KEEP else None for i, e in enumerate(self.config.entrants)}
        self.slots: Slots[BotProcess] = Slots(self.config.players, kept)
        self.bot_faults: list[tuple[str, Fault]] = []  # (entrant, fault): outside games
        self.live: LiveTap | None = None  # frames of each game as it is played, for a live view (`arena.live`)

    def _close(self, slot: Slot[BotProcess]) -> None:
        bot, slot.process = slot.process, None
        if bot is None:
            return
        bot.close()
        name = self.config.entrants[slot.key[0]].name
        self.bot_faults.extend((name, fault) for fault in bot.close_faults)
        bot.close_faults.clear()

    def _bot(self, entrant: int, copy: int, deal: int) -> BotProcess:
        slot, retired = self.slots.take((entrant, copy), deal)
        for old in retired:
            self._close(old)
            discard(old)
        bot = slot.process
        if bot is not None and bot.alive:
            return bot
        self._close(slot)  # a dead process: restarted in its slot, which keeps what it has met
        e = self.config.entrants[entrant]
        name = e.name if copy == 0 else f"{e.name}#{copy + 1}"
        sandbox = e.sandbox if slot.scratch is None else replace(e.sandbox, keep_dir=slot.scratch)
        spec = BotSpec(name, e.command, e.cwd, dict(e.env), sandbox=sandbox)
        try:
            bot = BotProcess.start(spec, self.time_control, self.limits)
        except BotStartError as exc:
            detail = str(exc)
            fault = Fault(-1, FaultKind.START_FAILED, -1, None, detail, ())
            if (e.name, fault) not in self.bot_faults:
                self.bot_faults.append((e.name, fault))
            return BotProcess.unstarted(spec, self.time_control, self.limits, detail)  # tried again next game
        slot.process = bot
        return bot

    def play(self, task: GameTask) -> StoredGame:
        game = task.game
        seed = played_seed(self.secret, game.seed)
        copies: dict[int, int] = {}
        bots = []
        for entrant in game.seats:
            copy = copies.get(entrant, 0)
            copies[entrant] = copy + 1
            bots.append(self._bot(entrant, copy, seed))
        replay = None
        if self.config.replays is not None:
            replay = str(self.config.replays / f"{game.index:06d}-{game.game_id}.jsonl")
        try:
            result = play_game(
                self.spec,
                bots,
                seed=seed,
                options=self.config.options,
                time_control=self.time_control,
                policy=self.policy,
                replay_path=replay,
                game_id=played_game_id(self.secret, self.spec.name, game),
                keep_logs=self.config.keep_logs,
                on_step=self.live.hook(task.index) if self.live is not None else None,
            )
        except OSError as exc:
            if exc.errno not in _OUTPUT_ERRNOS:
                raise
            where = exc.filename or replay or "a replay"
            raise OutputError(f"cannot write {where}: {exc.strerror or exc} (free some space or fix the folder's permissions, then rerun to resume)") from None
        finally:
            if self.restart_bots:
                self.close()
        return stored_game(task, result)

    def grow(self, config: TournamentConfig) -> None:
        """The field changed without a restart: `config` keeps every entrant at its index (new ones come
        after); every bot process already started stays alive."""
        for i, e in enumerate(config.entrants[len(self.config.entrants):], start=len(self.config.entrants)):
            self.slots.scratch_root[i] = e.sandbox.keep_dir if e.sandbox.scratch is Scratch.KEEP else None
        self.config = config

    def retire(self, entrant: int) -> None:
        """An entrant left the field: its bot processes are closed (the others stay alive)."""
        for slot in self.slots.drop(entrant):
            self._close(slot)
            discard(slot)

    def close(self) -> None:
        for slot in self.slots.clear():
            self._close(slot)
            discard(slot)


def stored_game(task: GameTask, result: GameResult) -> StoredGame:
    """The game as stored: the scheduled game with the seed it was played with (keyed with the secret,
    as in its replay), and how it went."""
    game = task.game
    return StoredGame(replace(game, seed=result.seed), result.played, game_id=game.game_id,
                      replay_path=result.replay_path, key=task.key)


def play_event(player: GamePlayer, task: GameTask) -> GameDone | GameFailed | WorkerBug:
    """Play one task and say what became of it, for every executor (inline, local pool, Dask):
    the stored game; an ArenaError (the user's to fix) as GameFailed; any other exception (a bug in
    arena) as WorkerBug with its traceback, taken where it happened. Ctrl-C and exit pass through."""
    try:
        return GameDone(task, player.play(task))
    except ArenaError as exc:
        return GameFailed(task, str(exc))
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception:  # noqa: BLE001 - a bug in arena, reported with the game it happened in
        return WorkerBug(task, traceback.format_exc())
