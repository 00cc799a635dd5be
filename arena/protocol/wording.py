"""How the protocol words what is wrong with a bot's message: the error, and a bounded preview of any value.

Kept interpreted (not in `[tool.arena] compiled`) and looked up through this module at the moment of use
(`wording.preview`), so that a test can stand a slow preview in for it (tests/referee/test_line_work.py).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

PREVIEW_CHARS = 120  # a bad value is shown in a fault detail cut to about this many characters


class ProtocolViolation(ValueError):
    """A bot line that is valid JSON but not the message the protocol expects there."""


def preview(value: Any, limit: int = PREVIEW_CHARS) -> str:
    """A short, bounded text of any parsed JSON value, safe however large or deep it is."""
    parts: list[str] = []
    size = 0
    stack: list[Any] = [value]
    while stack and size <= limit:
        item = stack.pop()
        if isinstance(item, _Raw):
            text = item.text
        elif type(item) is list:
            # Only the first `limit` items can show (each takes a character at least): the work on a
            # value is bounded by the preview's size, never by the value's (a bot's 1 MB line).
            stack.append(_Raw(", ...]" if len(item) > limit else "]"))
            stack.extend(reversed([x for pair in ((_Raw(", "), v) for v in item[:limit]) for x in pair][1:]))
            text = "["
        elif type(item) is dict:
            stack.append(_Raw(", ...}" if len(item) > limit else "}"))
            shown = itertools.islice(item.items(), limit)
            entries = [x for k, v in shown for x in (_Raw(", "), _Raw(f"{str(k)[:limit]!r}: "), v)][1:]
            stack.extend(reversed(entries))
            text = "{"
        elif type(item) is str:
            text = repr(item[: limit + 1])
        elif type(item) is int and abs(item) > 10**30:  # not from JSON (orjson reads these as floats)
            text = "a huge integer"
        else:
            text = repr(item)
        parts.append(text)
        size += len(text)
    text = "".join(parts)
    return text if len(text) <= limit and not stack else text[: limit - 3] + "..."


@dataclass(frozen=True)
class _Raw:
    text: str
