"""Signed results: the server's (or a tournament organiser's) Ed25519 key, and the signature record
beside every replay.

A replay alone proves nothing about who played it (protocol.md: anyone holding a replay can write
another consistent one, seat names swapped). The server signs, for every game it stores, the replay
file's SHA-256 with the result it recorded; `arena run` does the same for every tournament game it
stores, with the organiser's key (`organiser_key_path`: beside the results store, made on first run),
the result and who sat in each seat. The record (`<replay>.sig.json`) and the public key are
published. `check()` then proves a replay file is one the key's holder played: the signature is the
key's, the file hashes to the signed SHA-256, the replay re-simulates (`arena.audit.verify`), and its
result (and, for a tournament, its seats' names) are the signed ones.
"""

from __future__ import annotations

import base64
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from arena.errors import SignatureError
from arena.jsonvalue import JSON, dumps, loads
from arena.textsafe import clean

if TYPE_CHECKING:  # signing imports no replay reader (a tournament's coordinator signs; only check() verifies)
    from arena.audit.verify import VerifyReport

FORMAT = "arena-signed-result/1"
SUFFIX = ".sig.json"


def load_or_create_key(path: Path) -> Ed25519PrivateKey:
    """The server's private key (PEM, mode 0600), made on first start."""
    if not path.exists():
        key = Ed25519PrivateKey.generate()
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(pem)
    loaded = serialization.load_pem_private_key(path.read_bytes(), password=None)
    if not isinstance(loaded, Ed25519PrivateKey):
        raise SignatureError(f"{path}: not an Ed25519 private key")
    return loaded


def public_pem(key: Ed25519PrivateKey) -> str:
    return key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()


def _payload(record: dict[str, JSON]) -> bytes:
    return dumps({k: v for k, v in record.items() if k != "signature"})


def verify_record(record: Any, key: Ed25519PublicKey, form: str, where: str, what: str, other: str) -> dict[str, Any]:
    """`record` (a signed JSON object of format `form`, read from `where`) checked against `key`: its fields,
    else SignatureError naming `what` it should be ("signature record") and whose it may be (`other`)."""
    noun = what.split()[-1]
    if not isinstance(record, dict) or record.get("format") != form or not isinstance(record.get("signature"), str):
        raise SignatureError(f"{where!r} is not an arena {what} ({form})")
    try:
        key.verify(base64.b64decode(record["signature"], validate=True), _payload(record))
    except (InvalidSignature, ValueError):
        raise SignatureError(f"the signature in {where!r} was not made by this key over this {noun} "
                             f"(another server's {other}, or an edited {noun})") from None
    return record


def organiser_key_path(store: Path) -> Path:
    """Where `arena run` keeps the organiser's private key by default: beside the results store."""
    return store.with_name(store.name + ".key.pem")


def public_key_path(private: Path) -> Path:
    """The public half, written beside the private key (`NAME.key.pem` -> `NAME.pub.pem`): the file to publish."""
    name = private.name[: -len(".key.pem")] if private.name.endswith(".key.pem") else private.name
    return private.with_name(name + ".pub.pem")


def organiser_key(path: Path) -> Ed25519PrivateKey:
    """The organiser's key at `path` (made on first use, mode 0600), its public half written beside it."""
    key = load_or_create_key(path)
    public = public_key_path(path)
    if not public.exists():
        public.write_text(public_pem(key), encoding="ascii")
    return key


def _sign(key: Ed25519PrivateKey, replay: Path, fields: dict[str, JSON]) -> dict[str, JSON]:
    digest = hashlib.sha256(replay.read_bytes()).hexdigest()
    record: dict[str, JSON] = {"format": FORMAT, **fields, "replay_sha256": digest}
    record["signature"] = base64.b64encode(key.sign(_payload(record))).decode("ascii")
    path = replay.with_name(replay.name + SUFFIX)
    path.write_bytes(dumps(record) + b"\n")
    return record


def sign_replay(key: Ed25519PrivateKey, replay: Path, server: str, game_id: int, result: dict[str, JSON]) -> dict[str, JSON]:
    """The signature record of one stored ladder game; written beside its replay."""
    return _sign(key, replay, {"server": server, "game": game_id, "result": result})


def sign_tournament_replay(key: Ed25519PrivateKey, replay: Path, tournament: str, index: int, seats: list[str],
                           result: dict[str, JSON]) -> dict[str, JSON]:
    """The signature record of one tournament game (`arena run`): its place in the schedule, who sat in each
    seat (as the replay's header names them) and its result; written beside its replay."""
    return _sign(key, replay, {"tournament": tournament, "game": index, "seats": list[JSON](seats), "result": result})


def read_public_key(text: str) -> Ed25519PublicKey:
    """A public key given as a PEM file's path, PEM text, or the raw 32 bytes in base64."""
    data = text.encode()
    if os.path.isfile(text):
        data = Path(text).read_bytes()
    try:
        if b"BEGIN PUBLIC KEY" in data:
            key = serialization.load_pem_public_key(data)
        else:
            key = Ed25519PublicKey.from_public_bytes(base64.b64decode(data, validate=True))
    except (ValueError, TypeError) as exc:
        raise SignatureError(f"cannot read the public key {clean(text, 80)!r}: {exc} (give the server's PEM file)") from None
    if not isinstance(key, Ed25519PublicKey):
        raise SignatureError("the public key is not an Ed25519 key")
    return key


@dataclass(frozen=True)
class SignedCheck:
    report: VerifyReport
    server: str  # the signing server's name, or the tournament's
    game: int
    tournament: bool = False  # signed by a tournament's organiser (`arena run`), not a server

    def signer(self) -> str:
        return f"the key's tournament {self.server!r} (game {self.game})" if self.tournament else \
            f"the key's server {self.server!r} (game {self.game})"


def check(replay: str | os.PathLike[str], key: Ed25519PublicKey, signature: str | os.PathLike[str] | None = None) -> SignedCheck:
    """Prove `replay` is a game the key's server played and recorded with this result."""
    sig_path = Path(signature) if signature is not None else Path(str(replay) + SUFFIX)
    if signature is None and str(replay).endswith(".gz") and not sig_path.exists():
        sig_path = Path(str(replay)[: -len(".gz")] + SUFFIX)  # a replay compressed at rest: the record of its plain bytes
    try:
        record: Any = loads(sig_path.read_bytes())
    except FileNotFoundError:
        raise SignatureError(f"no signature record {str(sig_path)!r} (download it with the replay: a server's is at "
                             "/api/v1/games/ID/signature, a tournament's beside its replay; or give --signature FILE)") from None
    except (OSError, ValueError) as exc:
        raise SignatureError(f"cannot read the signature record {str(sig_path)!r}: {clean(exc, 200)}") from None
    verify_record(record, key, FORMAT, str(sig_path), "signature record", "replay")
    from arena.replay.reader import read_replay_bytes

    try:
        data = read_replay_bytes(replay)
    except OSError as exc:
        raise SignatureError(f"cannot read the replay {str(replay)!r}: {exc.strerror or exc}") from None
    digest = hashlib.sha256(data).hexdigest()
    if digest != record.get("replay_sha256"):
        holder = "organiser" if "tournament" in record else "server"
        raise SignatureError(f"the replay's SHA-256 is {digest}, the {holder} signed {clean(record.get('replay_sha256'), 80)}: "
                             f"this file is not the replay the {holder} stored")
    from arena.audit.verify import verify_replay
    from arena.replay.reader import load_replay

    loaded = load_replay(replay)
    report = verify_replay(loaded)
    result = record.get("result") or {}
    if list(report.points) != result.get("points") or list(report.ranks) != result.get("ranks"):
        raise SignatureError(f"the replay's result ({list(report.points)} points, ranks {list(report.ranks)}) is not the signed one")
    tournament = "tournament" in record
    if tournament:
        seats = [seat.entrant for seat in loaded.header.seats]
        if seats != record.get("seats"):
            raise SignatureError(f"the replay's seats {clean(seats, 200)} are not the signed {clean(record.get('seats'), 200)}")
    name = record.get("tournament") if tournament else record.get("server")
    return SignedCheck(report, clean(str(name), 80), int(record.get("game", 0)), tournament)
