"""Plays scheduled games with long-lived bots: the part of a worker that touches bot processes.

Each (entrant, seat copy) keeps one bot process across games (starting a Python bot costs ~30 ms,
node ~115 ms); a bot that died is restarted before its next game. A bot that cannot be started (its
program fails, its handshake fails or times out) does not stop anything: its seats get a
`start_failed` fault from the referee, the game goes on, and the start error is reported once as a
fault outside games. It is tried again at its next game, so a bot that fails once is not out for good,
and whether a seat is charged never depends on which worker played the game.
"""

from __future__ import annotations

import errno
from dataclasses import dataclass

from arena.errors import BotStartError, OutputError
from arena.referee.bot import BotProcess, BotSpec
from arena.core.faults import Fault, FaultKind, FaultPolicy
from arena.referee.referee import play_game
from arena.core.result import GameResult
from arena.tournament.config.tournament import TournamentConfig
from arena.tournament.run.messages import GameTask
from arena.results.store import StoredGame

# A write refused by the file system: the user's to fix (space, permissions), not a bug in arena.
_OUTPUT_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EIO, errno.EFBIG}


@dataclass(frozen=True)
class PlayerSetup:
    """What a worker needs to play any game of the tournament (sent once to each worker)."""

    config: TournamentConfig
    restart_bots: bool = False


class GamePlayer:
    """Plays games, keeping one bot process per (entrant, seat copy) alive between games."""

    def __init__(self, setup: PlayerSetup) -> None:
        self.config = setup.config
        self.restart_bots = setup.restart_bots
        self.spec = self.config.game_spec()
        self.time_control = self.config.time_control
        self.limits = self.config.limits
        self.policy = FaultPolicy(self.config.fault_policy.value)
        self.bots: dict[tuple[int, int], BotProcess] = {}
        self.bot_faults: list[tuple[str, Fault]] = []  # (entrant, fault): outside games

    def _close(self, key: tuple[int, int], bot: BotProcess) -> None:
        bot.close()
        name = self.config.entrants[key[0]].name
        self.bot_faults.extend((name, fault) for fault in bot.close_faults)
        bot.close_faults.clear()

    def _bot(self, entrant: int, copy: int) -> BotProcess:
        key = (entrant, copy)
        bot = self.bots.get(key)
        if bot is not None and bot.alive:
            return bot
        if bot is not None:
            self._close(key, bot)
            del self.bots[key]
        e = self.config.entrants[entrant]
        name = e.name if copy == 0 else f"{e.name}#{copy + 1}"
        spec = BotSpec(name, e.command, e.cwd, dict(e.env), sandbox=e.sandbox)
        try:
            bot = BotProcess.start(spec, self.time_control, self.limits)
        except BotStartError as exc:
            detail = str(exc)
            fault = Fault(-1, FaultKind.START_FAILED, -1, None, detail, ())
            if (e.name, fault) not in self.bot_faults:
                self.bot_faults.append((e.name, fault))
            return BotProcess.unstarted(spec, self.time_control, self.limits, detail)  # tried again next game
        self.bots[key] = bot
        return bot

    def play(self, task: GameTask) -> StoredGame:
        game = task.game
        copies: dict[int, int] = {}
        bots = []
        for entrant in game.seats:
            copy = copies.get(entrant, 0)
            copies[entrant] = copy + 1
            bots.append(self._bot(entrant, copy))
        replay = None
        if self.config.replays is not None:
            replay = str(self.config.replays / f"{game.index:06d}-{game.game_id}.jsonl")
        try:
            result = play_game(
                self.spec,
                bots,
                seed=game.seed,
                options=self.config.options,
                time_control=self.time_control,
                policy=self.policy,
                replay_path=replay,
                game_id=f"{self.config.name}-{game.game_id}",
                keep_logs=self.config.keep_logs,
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

    def close(self) -> None:
        bots, self.bots = self.bots, {}
        for key, bot in bots.items():
            self._close(key, bot)


def stored_game(task: GameTask, result: GameResult) -> StoredGame:
    game = task.game
    counts = [0] * len(game.seats)
    for fault in result.faults:
        if 0 <= fault.seat < len(counts):
            counts[fault.seat] += 1
    return StoredGame(
        index=game.index,
        game_id=game.game_id,
        round=game.round,
        table=game.table,
        rotation=game.rotation,
        seed=game.seed,
        seats=game.seats,
        points=tuple(result.points),
        tiebreaks=tuple(tuple(t) for t in result.tiebreaks),
        ranks=tuple(result.ranks),
        game_ranks=tuple(result.game_ranks),
        faults=tuple(f.to_json() for f in result.faults),
        fault_counts=tuple(counts),
        versions=tuple(result.versions),
        decisions=result.decisions,
        duration_s=result.duration_s,
        replay_path=result.replay_path,
        key=task.key,
    )
