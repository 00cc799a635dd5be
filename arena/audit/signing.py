"""Signed results: the server's Ed25519 key, and the signature record beside every replay.

A replay alone proves nothing about who played it (protocol.md: anyone holding a replay can write
another consistent one). The server signs, for every game it stores, the replay file's SHA-256 with
the result it recorded; the record (`<replay>.sig.json`) and the public key are published. `check()`
then proves a replay file is one this server played: the signature is the key's, the file hashes to
the signed SHA-256, the replay re-simulates (`arena.audit.verify`), and its result is the signed one.
"""

from __future__ import annotations

import base64
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from arena.errors import SignatureError
from arena.jsonvalue import JSON, dumps, loads
from arena.audit.verify import VerifyReport, verify_replay
from arena.textsafe import clean

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


def sign_replay(key: Ed25519PrivateKey, replay: Path, server: str, game_id: int, result: dict[str, JSON]) -> dict[str, JSON]:
    """The signature record of one stored game; written beside its replay."""
    digest = hashlib.sha256(replay.read_bytes()).hexdigest()
    record: dict[str, JSON] = {"format": FORMAT, "server": server, "game": game_id, "replay_sha256": digest, "result": result}
    record["signature"] = base64.b64encode(key.sign(_payload(record))).decode("ascii")
    path = replay.with_name(replay.name + SUFFIX)
    path.write_bytes(dumps(record) + b"\n")
    return record


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
    server: str
    game: int


def check(replay: str | os.PathLike[str], key: Ed25519PublicKey, signature: str | os.PathLike[str] | None = None) -> SignedCheck:
    """Prove `replay` is a game the key's server played and recorded with this result."""
    sig_path = Path(signature) if signature is not None else Path(str(replay) + SUFFIX)
    try:
        record: Any = loads(sig_path.read_bytes())
    except FileNotFoundError:
        raise SignatureError(f"no signature record {str(sig_path)!r} (download it with the replay: /api/v1/games/ID/signature)") from None
    except (OSError, ValueError) as exc:
        raise SignatureError(f"cannot read the signature record {str(sig_path)!r}: {clean(exc, 200)}") from None
    if not isinstance(record, dict) or record.get("format") != FORMAT or not isinstance(record.get("signature"), str):
        raise SignatureError(f"{str(sig_path)!r} is not an arena signature record ({FORMAT})")
    try:
        key.verify(base64.b64decode(record["signature"], validate=True), _payload(record))
    except (InvalidSignature, ValueError):
        raise SignatureError(f"the signature in {str(sig_path)!r} was not made by this key over this record "
                             "(another server's replay, or an edited record)") from None
    data = Path(replay).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != record.get("replay_sha256"):
        raise SignatureError(f"the replay's SHA-256 is {digest}, the server signed {clean(record.get('replay_sha256'), 80)}: "
                             "this file is not the replay the server stored")
    report = verify_replay(replay)
    result = record.get("result") or {}
    if list(report.points) != result.get("points") or list(report.ranks) != result.get("ranks"):
        raise SignatureError(f"the replay's result ({list(report.points)} points, ranks {list(report.ranks)}) is not the signed one")
    return SignedCheck(report, clean(str(record.get("server")), 80), int(record.get("game", 0)))
