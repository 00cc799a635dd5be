"""The running competition: the store, the key, the ladder and the checker, and what the API asks of them.

`Server` owns the pieces and their order (open the store, discard games cut short, start the checker
and the ladder under the supervisor; stop in reverse). Receiving a submission is here too: the archive
is unpacked (in a child process with rlimits) into a fresh folder under `uploads/` and its manifest read
at once (a refusal is the HTTP answer); only then is its row written, `received` with its folder in one
transaction, so the checker never sees a submission whose folder is not complete. A crash between the
two leaves a folder no row names, removed at the next start.
"""

from __future__ import annotations

import contextlib
import hmac
import sqlite3
import secrets
import threading
import time
from collections import defaultdict, deque
from typing import Any, Callable, Iterator

from arena.tournament.config.cluster import ClusterSpec
from arena.errors import ServerError, StorageFull, StoreInUse, SubmissionRefused
from arena.jsonvalue import dumps
from arena.results.lock import StoreLock, lock_path
from arena.ladder.accounts import Participant, activate_bot, create_participant, participant_by_name, participant_by_token, set_bot_status
from arena.ladder.uploads.archive import read_manifest
from arena.ladder.checker import Checker
from arena.ladder.competition.hub import Competition
from arena.ladder.competition.retention import Upkeep
from arena.ladder.competition.final.export import field_yaml
from arena.ladder.competition.final.final import require_final_phase
from arena.ladder.competition.final.final_job import FinalJob
from arena.ladder.competition.final.published import Published, close_with_results, publish
from arena.ladder.config import ServerConfig
from arena.ladder.db import Database, now
from arena.ladder.ladder import Ladder
from arena.ladder.queries import Reads
from arena.ladder.states import BotState, SubmissionState
from arena.audit.signing import load_or_create_key, public_pem
from arena.ladder.uploads.storage import check_room, remove_tree
from arena.ladder.supervisor import CheckGate, Supervisor
from arena.ladder.uploads.unpacker import unpack_isolated
from arena.ladder.competition import roster
from arena.ladder.competition.human_games import HumanGames
from arena.ladder.competition.phases import Change, Phase, Phases, PhaseState


NO_SANDBOX_WARNING = "this server runs bots WITHOUT the sandbox (--no-sandbox): only for bots its organiser trusts"


class RateLimit:
    """At most `per_minute` events per key in any 60 s window."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute, self.clock = per_minute, clock
        self.events: dict[int | str, deque[float]] = defaultdict(deque)
        self.lock = threading.Lock()

    def take(self, key: int | str) -> float:
        """0 when allowed (and counted), else the seconds to wait."""
        with self.lock:
            now = float(self.clock())
            window = self.events[key]
            while window and window[0] <= now - 60.0:
                window.popleft()
            if len(window) >= self.per_minute:
                return 60.0 - (now - window[0])
            window.append(now)
            return 0.0


class Server:
    """The ladder's facade: what the HTTP edge may ask of the competition (its reads through `read`,
    typed rows), and each action an organiser or participant takes, written once for the API and the pages."""

    def __init__(self, config: ServerConfig, sandbox: bool, cluster: ClusterSpec | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.config = config
        self.sandbox = sandbox
        self.warning = "" if sandbox else NO_SANDBOX_WARNING
        for folder in (config.data, config.uploads, config.replays):
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.lock = lock_data(config)  # before anything reads or writes the store
        self.admin_token = config.admin_token()
        self.db = Database(config.database)
        self.key = load_or_create_key(config.key_file)
        self.public_key = public_pem(self.key)
        self.rate = RateLimit(config.submissions_per_minute)
        self.read = Reads(self.db)
        gate = CheckGate(on_end=lambda: self.ladder.poke())  # the ladder yields the machine to each check
        self.ladder = Ladder(self.db, config, sandbox, self.key, cluster, gate)
        self.checker = Checker(self.db, config, sandbox, lambda _bot: self.ladder.poke(), gate)
        self.phases = Phases(self.db, config.phases, clock)  # the competition's phase (arena.ladder.competition.phases)
        self.ladder.halted = lambda: not self.phases.phase.ladder  # the final and closed: the ladder stops
        # people playing the ladder's bots, unranked, on their own slot; no new game once the ladder stops
        self.human = HumanGames(self.db, config, sandbox, lambda: bool(self.phases.phase.ladder), clock)
        self.supervisor = Supervisor()
        self.supervisor.add("checker", self.checker.run, Checker.STALE_S)
        self.supervisor.add("ladder", self.ladder.run, Ladder.STALE_S)
        self.competition = Competition(self.db, config.data, config.players, config.quotas, config.budget)
        self.ladder.side = self.competition
        self.competition.ladder_plays = lambda: bool(self.phases.phase.ladder)  # no challenge once the ladder stops
        self.supervisor.add("upkeep", self.competition.upkeep.run, Upkeep.STALE_S)
        self.final = FinalJob(config, sandbox, self.db, cluster)
        self._house()

    def is_admin(self, token: str) -> bool:
        return hmac.compare_digest(token.encode(), self.admin_token.encode())

    def _house(self) -> None:
        """The config's house bots: each its own participant (with no usable token), active from the start."""
        for bot in self.config.house_bots:
            name = f"house-{bot.name}"
            if participant_by_name(self.db, name) is not None:
                continue
            with self.db.write() as conn:
                cur = conn.execute("INSERT INTO participants(name, token_hash, is_house, created) VALUES(?, ?, 1, ?)",
                                   (name, "none:" + secrets.token_hex(16), now()))
                owner = int(cur.lastrowid or 0)
            activate_bot(self.db, owner, None, bot.name, "house", bot.command, str(bot.folder(self.config.path.resolve().parent)))

    def start(self) -> None:
        self._forget_orphans()
        self.supervisor.start()

    def stop(self) -> None:
        self.human.stop()  # the games people play against the ladder's bots: their processes end with the server
        self.final.stop()  # between two games: its stored games kept, the next start_final resumes it
        self.supervisor.stop()
        self.checker.wake.set()
        self.ladder.stop()
        ladder = self.supervisor.parts["ladder"].thread
        if ladder is not None:
            ladder.join(60.0)  # its games in flight closed and discarded; a check under way is not waited for (it
            # runs again at the next start), and the data folder's lock goes with the process

    def _forget_orphans(self) -> None:
        """Upload folders no submission row names (a crash mid-upload) are removed."""
        known = {str(r["folder"]) for r in self.db.all("SELECT folder FROM submissions WHERE folder != ''")}
        for owner in self.config.uploads.iterdir():
            for folder in owner.iterdir() if owner.is_dir() else ():
                if str(folder) not in known:
                    remove_tree(folder)

    # --- what the edge asks -------------------------------------------------------------------------

    def participant_by_token(self, token: str) -> Participant | None:
        return participant_by_token(self.db, token)

    def add_participant(self, name: str) -> tuple[Participant, str]:
        """A new participant and its token (shown once); ServerError for a bad or taken name."""
        return create_participant(self.db, name)

    @property
    def paused(self) -> bool:
        return self.ladder.paused

    def set_paused(self, paused: bool) -> None:
        """Pause the ladder (games in flight finish, no new ones start) or resume it."""
        self.db.set_setting("paused", "1" if paused else "0")
        self.ladder.poke()

    def disable_bot(self, bot: int, reason: str) -> bool:
        """The organiser disables a bot: it plays no more; its games and ratings stay. False: no such bot."""
        done = set_bot_status(self.db, bot, BotState.DISABLED, reason)
        self.ladder.poke()
        return done

    def enable_bot(self, bot: int) -> bool:
        """A disabled or suspended bot becomes its participant's active one again. False: no such bot."""
        done = set_bot_status(self.db, bot, BotState.ACTIVE, "")
        self.ladder.poke()
        return done

    def start_final(self) -> bool:
        """Play the final (or resume it) in the background, the ladder paused so it has the machine; False when
        it is running already; PhaseError (nothing started) unless the competition is in its final phase.
        What the organiser's button and API call."""
        require_final_phase(self.config, self.db)
        return self.final.start(before=lambda: self.set_paused(True))

    def publish_results(self) -> Published:
        """Publish the final's results (/results and its downloads); ServerError while the final runs or before
        it was played. What the organiser's button and API call, and the phase `closed`."""
        if self.final.running:
            raise ServerError("the final is still running: publish its results once it has ended")
        return publish(self.config, self.db)

    def field_yaml(self) -> str:
        """The participants' active bots as a tournament config (`arena ladder export --format yaml`)."""
        return field_yaml(self.config, self.db)

    def health(self) -> dict[str, Any]:
        """The ladder's state and each background part's (alive, last heartbeat, restarts, last error), for the
        organiser (the API's health answer, 503 unless `healthy`, and the admin page's)."""
        ladder = self.ladder
        parts = self.supervisor.health()
        return {"healthy": all(not p["stale"] for p in parts), "paused": ladder.paused, "in_flight": len(ladder.inflight),
                "field": list(ladder.field), "played_since_start": ladder.played, "ladder_error": ladder.error,
                "ladder_alive": self.supervisor.parts["ladder"].alive, "checks_waiting": self.read.checks_waiting(),
                "parts": parts, "workers": ladder.workers_status(), **self.competition.health()}

    # --- the competition: phases and accounts (arena.ladder.competition) -----------------------------------

    def phase(self) -> PhaseState:
        """The competition's phase now (the config's deadline applied first), with its history."""
        return self.phases.current()

    def set_phase(self, to: Phase | str, who: str) -> Change:
        """The organiser moves the competition to the next phase; PhaseError (nothing changed) out of order.
        Closing publishes the final's results first (ServerError, nothing changed, while it runs or before it was played)."""
        if (to if isinstance(to, Phase) else str(to)) in (Phase.CLOSED, Phase.CLOSED.value):
            change, _published = close_with_results(self.config, self.db, self.phases, who, running=self.final.running)
        else:
            change = self.phases.advance(to, who)
        self.ladder.poke()
        return change

    def check_upload(self) -> None:
        """UploadsClosed once the deadline has passed (frozen, final, closed)."""
        self.phases.check_upload()

    def import_accounts(self, people: list[roster.Person]) -> list[roster.Issued]:
        """People (a class, teams) and their tokens, shown this once; AccountError listing every mistake."""
        return roster.import_people(self.db, people)

    def reset_token(self, login: str) -> str:
        return roster.reset_token(self.db, login)

    def revoke_token(self, login: str) -> None:
        roster.revoke_token(self.db, login)

    def accounts(self) -> list[dict[str, Any]]:
        return roster.accounts(self.db)

    def submit(self, participant: int, data: bytes) -> tuple[int, str | None]:
        """Take an archive: (submission id, None) when it goes to the check, (id, reason) when refused."""
        self.check_upload()
        owner = self.config.uploads / str(participant)
        owner.mkdir(exist_ok=True, mode=0o700)
        folder = owner / f"{int(now() * 1000):013d}-{secrets.token_hex(4)}"
        limits = self.config.archive
        self.competition.check_upload(participant, limits.most_unpacked(len(data)))  # the day's quota, the disk budget
        try:
            check_room(self.config.data, owner, limits.most_unpacked(len(data)), limits.min_free_mb, limits.participant_quota_mb)
            unpack_isolated(data, folder, limits)
            manifest = read_manifest(folder, self.config.runtimes, {x.name: x.run for x in self.config.build.languages})
        except SubmissionRefused as exc:
            remove_tree(folder)
            with _stored(), self.db.write() as conn:
                cur = conn.execute("INSERT INTO submissions(participant_id, created, status, reason, finished) "
                                   "VALUES(?, ?, ?, ?, ?)", (participant, now(), SubmissionState.REFUSED, str(exc), now()))
            return int(cur.lastrowid or 0), str(exc)
        meta = {"name": manifest.name, "version": manifest.version, "command": list(manifest.command),
                "language": manifest.language}
        try:
            with _stored(), self.db.write() as conn:
                cur = conn.execute("INSERT INTO submissions(participant_id, created, status, folder, manifest) "
                                   "VALUES(?, ?, ?, ?, ?)", (participant, now(), SubmissionState.RECEIVED, str(folder),
                                                            dumps(meta).decode()))
        except BaseException:
            remove_tree(folder)
            raise
        self.checker.wake.set()
        return int(cur.lastrowid or 0), None


@contextlib.contextmanager
def _stored() -> Iterator[None]:
    """A write the disk refuses is a StorageFull naming it, never an internal error."""
    try:
        yield
    except (sqlite3.OperationalError, OSError) as exc:
        raise StorageFull(f"the server cannot store the upload now ({exc}); nothing was kept: try again later, "
                          "and tell the organiser") from None


def lock_data(config: ServerConfig) -> StoreLock:
    """One server per data folder: `flock` on server.sqlite.lock, released by the kernel however it ends."""
    try:
        return StoreLock(config.database).acquire()
    except StoreInUse:
        holder = lock_path(config.database).read_text(encoding="ascii", errors="replace").strip()
        who = f" (pid {holder})" if holder.isdigit() else ""
        raise ServerError(f"data in use: another arena serve{who} is using {config.data}; stop it first, "
                          f"or give this server its own `data:` in {config.path}") from None


def add_participant(config: ServerConfig, name: str) -> str:
    """`arena serve CONFIG --add-participant NAME`: the new participant's token (shown once)."""
    config.data.mkdir(parents=True, exist_ok=True, mode=0o700)
    db = Database(config.database)
    try:
        _participant, token = create_participant(db, name)
    finally:
        db.close()
    return token


def check_no_sandbox_allowed(sandbox: bool, support_reason: str | None) -> None:
    if sandbox and support_reason:
        raise ServerError(f"the sandbox cannot run on this machine ({support_reason}); the server refuses to run "
                          "submitted bots without it (--no-sandbox only for bots you trust)")
