"""The one JSON encoding arena uses for the wire, replays and hashes.

Canonical: sorted keys, no whitespace, UTF-8, so the same value always gives the same bytes on any
machine (hash commitments and replay diffs depend on it). orjson does this about ten times faster than
the standard library, which matters on the referee's hot path.
"""

from __future__ import annotations

from typing import Any

import orjson

JSON = Any  # a value made of dict, list, str, int, float, bool and None

_OPTS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


def dumps(value: JSON) -> bytes:
    """Canonical bytes of `value`, without a trailing newline."""
    return orjson.dumps(value, option=_OPTS)


def dumps_line(value: JSON) -> bytes:
    """Canonical bytes of `value` followed by a newline: one JSON-lines record."""
    return orjson.dumps(value, option=_OPTS | orjson.OPT_APPEND_NEWLINE)


def encoded(value: JSON) -> JSON:
    """`value` encoded now, placed as these very bytes wherever a later `dumps` meets it: a part shared by
    several messages is encoded once (the bytes are the same as encoding it in place)."""
    return placed(dumps(value))


def placed(data: bytes) -> JSON:
    """Bytes `dumps` gave, placed as they are wherever a later `dumps` meets them (not picklable: keep the
    bytes, place them where they are used)."""
    return orjson.Fragment(data)


def dumps_str(value: JSON) -> str:
    return dumps(value).decode("utf-8")


def loads(data: bytes | str) -> JSON:
    """Parse one JSON document; raises `ValueError` (orjson.JSONDecodeError) on malformed input."""
    return orjson.loads(data)


def canonical(value: JSON) -> JSON:
    """`value` as it comes back from the wire (tuples become lists, keys become strings)."""
    return orjson.loads(dumps(value))
