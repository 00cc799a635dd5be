"""A competition's signed results file: the final standings and every final game's replay hash, signed.

`arena serve CONFIG publish` writes it (`results.json`) with the server's Ed25519 key, the key every
ladder and final replay is signed with. `arena verify --key PUB results.json` proves it whole: the
signature is the key's over everything in the file (the standings, each game's seats, result and
replay SHA-256), and each listed replay found beside it (its path is relative to the file) hashes to
the signed SHA-256. Each replay's own signature record (`REPLAY.sig.json`) still proves that replay
by itself (`arena verify --key PUB REPLAY`).
"""

from __future__ import annotations

import base64
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from arena.audit.signing import verify_record
from arena.errors import SignatureError
from arena.jsonvalue import JSON, dumps, loads
from arena.textsafe import clean

FORMAT = "arena-signed-results/1"


def _payload(record: dict[str, JSON]) -> bytes:
    return dumps({k: v for k, v in record.items() if k != "signature"})


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sign_results(key: Ed25519PrivateKey, fields: dict[str, JSON]) -> dict[str, JSON]:
    """The signed record of `fields` (the competition, its standings, its games with their replays' hashes)."""
    record: dict[str, JSON] = {"format": FORMAT, **fields}
    record["signature"] = base64.b64encode(key.sign(_payload(record))).decode("ascii")
    return record


MAX_BYTES = 256 * 1024 * 1024


def is_results_file(path: str) -> bool:
    """Whether `path` is a signed results file (one JSON object naming this format), not a replay (JSON lines)."""
    try:
        if os.path.getsize(path) > MAX_BYTES:
            return False
        data: Any = loads(Path(path).read_bytes())
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("format") == FORMAT


@dataclass(frozen=True)
class ResultsCheck:
    competition: str
    games: int
    replays_checked: int
    replays_missing: int

    def line(self, path: str) -> str:
        missing = f"; {self.replays_missing} replay(s) not beside it, not checked" if self.replays_missing else ""
        return (f"ok: {clean(path, 300)}: the results of {self.competition!r}, signed by this key; {self.games} games, "
                f"{self.replays_checked} replay(s) hash to the signed SHA-256{missing}")


def check_results(path: str, key: Ed25519PublicKey) -> ResultsCheck:
    """Prove the results file at `path` is the one the key's holder signed, and its replays the ones listed."""
    try:
        record: Any = loads(Path(path).read_bytes())
    except (OSError, ValueError) as exc:
        raise SignatureError(f"cannot read the results file {clean(path, 200)!r}: {clean(exc, 200)}") from None
    record = verify_record(record, key, FORMAT, clean(path, 200), "results file", "results")
    games = record.get("games")
    if not isinstance(games, list):
        raise SignatureError(f"{clean(path, 200)!r} lists no games")
    qualifying = record.get("qualifying_games")
    folder = Path(path).resolve().parent
    checked = missing = 0
    for game in [*games, *(qualifying if isinstance(qualifying, list) else [])]:
        replay = game.get("replay") if isinstance(game, dict) else None
        if not isinstance(replay, str):
            continue
        file = (folder / replay).resolve()
        if not file.is_file():
            missing += 1
            continue
        digest = file_sha256(file)
        if digest != game.get("replay_sha256"):
            raise SignatureError(f"game {clean(game.get('game'), 20)}: the replay {clean(replay, 200)} hashes to {digest}, "
                                 f"the results file signed {clean(game.get('replay_sha256'), 80)}: not the stored replay")
        checked += 1
    return ResultsCheck(clean(str(record.get("competition")), 80), len(games), checked, missing)
