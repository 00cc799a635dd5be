"""The running competition: the store, the key, the ladder and the checker, and what the API asks of them.

`Server` owns the pieces and their order (open the store, discard games cut short, start the checker
and the ladder; stop in reverse). Receiving a submission is here too: the archive is unpacked into
a fresh folder under `uploads/` and its manifest read at once (a refusal is the HTTP answer), then the
checker takes it in the background.
"""

from __future__ import annotations

import hmac
import secrets
import shutil
from pathlib import Path

from arena.tournament.config.cluster import ClusterSpec
from arena.errors import ServerError, SubmissionRefused
from arena.jsonvalue import dumps
from arena.server.accounts import activate_bot, create_participant, participant_by_name
from arena.server.archive import read_manifest, unpack
from arena.server.checker import Checker
from arena.server.config import ServerConfig
from arena.server.db import Database, now
from arena.server.http import NO_SANDBOX_WARNING, Cache, RateLimit
from arena.server.ladder import Ladder
from arena.server.signing import load_or_create_key, public_pem


class Server:
    def __init__(self, config: ServerConfig, sandbox: bool, cluster: ClusterSpec | None = None) -> None:
        self.config = config
        self.sandbox = sandbox
        self.warning = "" if sandbox else NO_SANDBOX_WARNING
        for folder in (config.data, config.uploads, config.replays):
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.admin_token = config.admin_token()
        self.db = Database(config.database)
        self.key = load_or_create_key(config.key_file)
        self.public_key = public_pem(self.key)
        self.rate = RateLimit(config.submissions_per_minute)
        self.cache = Cache()
        self.ladder = Ladder(self.db, config, sandbox, self.key, cluster)
        self.checker = Checker(self.db, config, sandbox, lambda _bot: self.ladder.poke())
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
            files = [Path(a) for a in bot.command if a.startswith("/")]
            folder = files[-1].parent if files else self.config.path.resolve().parent
            activate_bot(self.db, owner, None, bot.name, "house", bot.command, str(folder))

    def start(self) -> None:
        self.checker.start()
        self.ladder.start()

    def stop(self) -> None:
        self.checker.stop()
        self.ladder.stop()

    def submit(self, participant: int, data: bytes) -> tuple[int, str | None]:
        """Take an archive: (submission id, None) when it goes to the check, (id, reason) when refused."""
        with self.db.write() as conn:
            cur = conn.execute("INSERT INTO submissions(participant_id, created, status) VALUES(?, ?, 'received')",
                               (participant, now()))
            sub = int(cur.lastrowid or 0)
        owner = self.config.uploads / str(participant)
        owner.mkdir(exist_ok=True, mode=0o700)
        folder = owner / f"{sub:06d}"
        try:
            unpack(data, folder, self.config.archive)
            manifest = read_manifest(folder, self.config.runtimes, {x.name: x.run for x in self.config.build.languages})
        except SubmissionRefused as exc:
            shutil.rmtree(folder, ignore_errors=True)
            with self.db.write() as conn:
                conn.execute("UPDATE submissions SET status = 'refused', reason = ?, finished = ? WHERE id = ?",
                             (str(exc), now(), sub))
            return sub, str(exc)
        meta = {"name": manifest.name, "version": manifest.version, "command": list(manifest.command),
                "language": manifest.language}
        with self.db.write() as conn:
            conn.execute("UPDATE submissions SET folder = ?, manifest = ? WHERE id = ?", (str(folder), dumps(meta).decode(), sub))
        self.checker.wake.set()
        return sub, None


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
