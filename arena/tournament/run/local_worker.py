"""The worker loop: one process, one `GamePlayer`, tasks in and typed results out over one pipe.

Stopping: the coordinator sends `Stop`, or SIGTERM to abandon the game in progress (Ctrl-C in a
terminal reaches the worker too, but it ignores SIGINT and waits for the coordinator's word). Either
way the worker closes its bots (each bot's whole process group is killed) and reports the faults it
found doing so. The worker holds no copy of the coordinator's end of the pipe, so a worker whose
coordinator was killed (even by SIGKILL) sees the pipe close and exits after the game it was playing.
"""

from __future__ import annotations

import multiprocessing.connection
import signal
import traceback

from arena.tournament.run.messages import ClosingFaults, GameTask, Grow, Stop, WorkerBug, WorkerMessage
from arena.tournament.run.player import GamePlayer, PlayerSetup, play_event
from arena.tournament.run.signals import ignore, interrupt_once
from arena.live.tap import LiveTap, PipeSink


def worker_main(conn: multiprocessing.connection.Connection, setup: PlayerSetup,
                live: multiprocessing.connection.Connection | None = None) -> None:
    """The entry point of a worker process; returns (exit status 0) however the coordinator stops it.
    `live`: the write end of its live pipe (`arena.live`): each game's frames go there as it is played."""
    signal.signal(signal.SIGINT, ignore)
    signal.signal(signal.SIGTERM, interrupt_once)
    try:
        player = GamePlayer(setup)  # imports the game: a SIGTERM may already come here
    except KeyboardInterrupt:
        conn.close()  # stopped before it had any bot: nothing to close or report
        return
    tap = LiveTap(PipeSink(live)) if live is not None else None
    player.live = tap
    try:
        try:
            _serve(conn, player)
        finally:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            player.close()
    except KeyboardInterrupt:  # the SIGTERM arrived as the cleanup began: finish it
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        player.close()
    if tap is not None and live is not None:
        tap.close()
        live.close()
    _send(conn, ClosingFaults(tuple(player.bot_faults)))
    conn.close()


def _serve(conn: multiprocessing.connection.Connection, player: GamePlayer) -> None:
    try:
        while True:
            message = conn.recv()  # EOFError once the coordinator is gone
            if isinstance(message, Stop):
                return
            if isinstance(message, Grow):
                player.grow(message.setup.config)
                for entrant in message.retired:
                    player.retire(entrant)
                continue
            if not isinstance(message, GameTask):
                raise TypeError(f"a worker got {type(message).__name__}, expected a GameTask or Stop")
            if not _send(conn, play_event(player, message)):
                return
    except (EOFError, OSError, KeyboardInterrupt):
        return
    except Exception:  # noqa: BLE001 - a bug in arena: say so across the process boundary
        _send(conn, WorkerBug(None, traceback.format_exc()))


def _send(conn: multiprocessing.connection.Connection, message: WorkerMessage) -> bool:
    try:
        conn.send(message)
        return True
    except OSError:
        return False  # the coordinator is gone: nobody to tell
