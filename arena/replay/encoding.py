"""Bytes of replay records: an encoder that never raises, and a strict decoder.

Writing: `canonical_bytes` is the canonical encoding of `arena.jsonvalue` (orjson: sorted keys, no
whitespace, UTF-8) whenever orjson can encode the value. orjson refuses a few values that can still
reach a replay: integers outside [-2**63, 2**64), values nested deeper than 254 levels, strings with
lone surrogates. For those, and only those, the value is encoded by `_portable`, an iterative encoder
with the same layout (sorted keys, compact separators) that handles any integer, any depth, and
writes lone surrogates as \\u escapes. The choice depends on the value alone, so the writer and the
verifier (commitments are hashes of these bytes) always agree.

Reading: `decode_line` uses the standard library's parser, which reads every integer exactly (orjson
would turn one beyond 64 bits into a float, and a commitment over it would no longer match); it refuses
NaN and Infinity, duplicate keys (two "source" members would make a record mean two things) and
nesting too deep to parse, each as `ValueError`.

Commitments (salted SHA-256 of the canonical bytes of `[step, seat, action]`) live here too, so the
referee, the writer and the verifier hash exactly the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from typing import Any

import orjson

JSON = Any
_OPTS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


class _Raw(str):
    """Literal output text on the encoder's stack (punctuation, already encoded keys)."""


def _key(key: object) -> str:
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, bool):
        return json.dumps(key)
    return str(key)


def _string(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: ASCII escapes keep the line valid UTF-8
        return json.dumps(text, ensure_ascii=True)
    return json.dumps(text, ensure_ascii=False)


def _scalar(value: object) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        try:
            return str(int(value))
        except ValueError:  # over Python's 4300-digit conversion limit: unreadable anyway
            return _string(f"<an integer of about {value.bit_length() * 3 // 10} digits>")
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else "null"  # as orjson does
    if isinstance(value, str):
        return _string(value)
    return _string(str(value))  # not a JSON value at all: its text, rather than a crash


def _portable(value: JSON) -> str:
    """Canonical JSON text of any value, without recursion (so without a depth limit)."""
    out: list[str] = []
    stack: list[object] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _Raw):
            out.append(item)
        elif isinstance(item, dict):
            entries = sorted(((_key(k), v) for k, v in item.items()), key=lambda kv: kv[0])
            stack.append(_Raw("}"))
            for index in range(len(entries) - 1, -1, -1):
                key, sub = entries[index]
                stack.append(sub)
                stack.append(_Raw(("," if index else "") + _string(key) + ":"))
            out.append("{")
        elif isinstance(item, (list, tuple)):
            stack.append(_Raw("]"))
            for index in range(len(item) - 1, -1, -1):
                stack.append(item[index])
                if index:
                    stack.append(_Raw(","))
            out.append("[")
        else:
            out.append(_scalar(item))
    return "".join(out)


def canonical_bytes(value: JSON) -> bytes:
    """The canonical encoding of `value`; never raises (see the module's docstring)."""
    try:
        return orjson.dumps(value, option=_OPTS)
    except (TypeError, ValueError):  # orjson.JSONEncodeError is a TypeError
        return _portable(value).encode("utf-8", "surrogatepass")


def encode_line(value: JSON) -> bytes:
    return canonical_bytes(value) + b"\n"


def _no_constant(name: str) -> JSON:
    raise ValueError(f"{name} is not JSON")


def _object(pairs: list[tuple[str, JSON]]) -> dict[str, JSON]:
    out: dict[str, JSON] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the member {key!r} appears twice")
        out[key] = value
    return out


def decode_line(raw: bytes) -> JSON:
    """One JSON value from one line; ValueError (with a reason) for anything that is not strict JSON."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 ({exc.reason} at byte {exc.start})") from None
    try:
        return json.loads(text, parse_constant=_no_constant, object_pairs_hook=_object)
    except RecursionError:
        raise ValueError("nested too deeply to read") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg} at column {exc.colno})") from None
    except ValueError as exc:  # NaN, a duplicate key, an integer over 4300 digits
        raise ValueError(str(exc)) from None


def new_salt() -> str:
    return os.urandom(16).hex()


def commitment(salt: str, step: int, seat: int, action: JSON) -> str:
    """Hex SHA-256 of the salt and the canonical JSON of (step, seat, action)."""
    payload = salt.encode("ascii", "replace") + b"\n" + canonical_bytes([step, seat, action])
    return hashlib.sha256(payload).hexdigest()


def check_commitment(digest: str, salt: str, step: int, seat: int, action: JSON) -> bool:
    return commitment(salt, step, seat, action) == digest
