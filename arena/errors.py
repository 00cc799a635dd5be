"""Every error arena raises on purpose.

One root (`ArenaError`) so the CLI can show any of them as one line without a traceback; one family
per layer so callers can catch what they can handle. Messages say what was wrong, where, and what to do.
"""

from __future__ import annotations

from typing import Any


class ArenaError(Exception):
    """Root of every error the user can fix; the CLI prints its message alone."""


class GameError(ArenaError):
    """A problem with a game: unknown name, bad options, misuse of the contract."""


class UnknownGame(GameError):
    pass


class GameOptionError(GameError):
    pass


class PluginError(UnknownGame):
    """An installed game (an `arena.games` entry point) that cannot be used: it fails to import, is not a
    `GameSpec`, names another game, or claims a name another package claims too. The other games still work."""


class GameBroke(GameError):
    """A game's own code raised or broke its contract while being played: the game is at fault, not a bot."""


class SeatCountError(GameError):
    pass


class GameOver(GameError):
    """An action or a decision was asked of a game that has ended."""


class GameNotOver(GameError):
    """The outcome of a game was asked before it ended."""


class IllegalAction(GameError):
    """An action a game refuses; the state is unchanged when this is raised."""

    def __init__(self, seat: int, action: Any, reason: str) -> None:
        self.seat = seat
        self.action = action
        self.reason = reason
        super().__init__(f"seat {seat}: illegal action {action!r}: {reason}")


class ConfigError(ArenaError):
    """A tournament config that cannot run; the message names the file and the key path."""


class BotError(ArenaError):
    """A bot that could not be started or spoken to."""


class BotStartError(BotError):
    pass


class ReplayError(ArenaError):
    """A replay that cannot be read, or that does not verify."""


class StoreError(ArenaError):
    """A results store that cannot be opened, written or reused; the message names the file."""


class StoreInUse(StoreError):
    """Another run holds the store's lock."""


class OutputError(ArenaError):
    """A file arena must write (a replay, the store) cannot be written: full disk, no permission."""


class RunnerError(ArenaError):
    """The run could not go on (a worker that died again and again, an output that cannot be written);
    the games already finished are kept, and a rerun resumes."""


class ReportError(ArenaError):
    """The HTML report or a viewer page cannot be written."""


class BranchError(ReplayError):
    """A branch that cannot be played from a replay: a step or a seat it does not have."""


class MatchError(ArenaError):
    """An `arena match` that cannot run as asked: bad --sprt bounds, a bot or filler it cannot find."""


class ServerError(ArenaError):
    """`arena serve` cannot start or go on: a bad server config, no sandbox, missing admin credentials."""


class SubmissionRefused(ArenaError):
    """An uploaded bot archive the server will not take; the message says what to change in it."""


class StorageFull(ServerError):
    """The server cannot write (its disk is full): the request is not stored; it may be tried again later."""


class QuotaExceeded(ServerError):
    """A participant's request over its quota (uploads or challenges a day); `retry_after` seconds until the
    next one is allowed. Nothing was stored."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class DiskBudgetExceeded(StorageFull):
    """The data folder is over the config's `budget.disk_budget_mb`: uploads and new games wait for room."""


class SignatureError(ArenaError):
    """A replay's signature that is missing, malformed or not made by the given key."""


class ClientError(ArenaError):
    """`arena submit` or `arena ladder` cannot reach the server, or the server refused the request."""


class BuildError(ArenaError):
    """A bot folder that cannot be built: an unknown language, a bad manifest, a missing toolchain."""


class PhaseError(ServerError):
    """A competition phase change the server will not make (out of order, an unknown phase): nothing changed."""


class UploadsClosed(ServerError):
    """An upload after the competition's deadline (frozen, final or closed): nothing stored."""

    def __init__(self, message: str, since: str) -> None:
        super().__init__(message)
        self.since = since


class AccountError(ServerError):
    """An account import, token reset or revoke the server will not do (unknown name, bad CSV): nothing changed."""


class BackupError(ServerError):
    """A backup or restore that cannot be made (a running server, a non-empty data folder, a full disk)."""


class PlayRefused(ServerError):
    """A game against the ladder's bots the server will not start (no such bot, a wrong seat, the
    competition closed, the daily quota used): nothing started; `status` is the HTTP answer's."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status
