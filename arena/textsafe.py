"""Text a bot controls, made safe to show: bounded in size, with no control or escape sequences.

Everything a bot chooses (its hello name and version, its stderr, the details of its faults) passes
through `clean` before it reaches a terminal, a file or a page. The result is printable text: escape
sequences (CSI, OSC, ...) are removed whole, other control characters and lone surrogates become
U+FFFD, and a text over its limit is cut and marked with an ellipsis saying how much was dropped.
"""

from __future__ import annotations

import re

NAME_CHARS = 64  # a bot's name or version
LINE_CHARS = 500  # one stderr line
DETAIL_CHARS = 1000  # a fault's detail

# ESC-introduced sequences: CSI (ESC [ ... final), OSC/DCS/PM/APC/SOS (ESC ] ... BEL or ST), and
# two-character escapes; also the 8-bit C1 forms of CSI and OSC.
_ESCAPES = re.compile(
    r"""
    \x1b\[[0-?]*[ -/]*[@-~]?            # CSI
  | \x9b[0-?]*[ -/]*[@-~]?              # 8-bit CSI
  | (?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f]).*?(?:\x07|\x1b\\|\x9c|$)   # OSC, DCS, SOS, PM, APC
  | \x1b[ -/]*[0-~]?                    # other escapes (ESC c, ESC ( B, ...)
    """,
    re.VERBOSE | re.DOTALL,
)
# C0 controls but tab, DEL, C1 controls, lone surrogates, bidi overrides and isolates (which reorder
# what follows them on screen: "Trojan source").
_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]")


def clean(text: object, limit: int = DETAIL_CHARS, *, keep_newlines: bool = False) -> str:
    """`text` as printable, bounded text (at most `limit` characters plus a short marker)."""
    s = text if isinstance(text, str) else str(text)
    unread = max(0, len(s) - (4 * limit + 64))  # bound the work on huge inputs before the regexes run
    if unread:
        s = s[: 4 * limit + 64]
    s = _ESCAPES.sub("", s)
    if keep_newlines:
        s = "\n".join(_UNSAFE.sub("\ufffd", part) for part in s.split("\n"))
    else:
        s = _UNSAFE.sub("\ufffd", s)
    if len(s) > limit:
        dropped = len(s) - limit + unread  # the uncleaned tail counts as it came
        s = f"{s[:limit]}… [{dropped} more characters]"
    return s


def clean_bytes(data: bytes, limit: int = LINE_CHARS) -> str:
    """Bytes from a pipe as clean text (invalid UTF-8 becomes U+FFFD)."""
    return clean(data[: 4 * limit + 64].decode("utf-8", "replace"), limit)


def seat_label(entrant: str, name: str, version: str) -> str:
    """How a seat is shown: the entrant's name (the operator's), then the bot's own hello name and
    version beside it, so that two versions that both call themselves `counter` are told apart."""
    own = " ".join(part for part in (clean(name, NAME_CHARS), clean(version, NAME_CHARS)) if part)
    who = clean(entrant, NAME_CHARS)
    return f"{who} ({own})" if own and own != who else who


def csv_cell(text: object, limit: int = NAME_CHARS) -> str:
    """A text a participant chose, for a CSV cell: cleaned, and never read as a formula by a spreadsheet
    (a leading = + - @ is quoted with an apostrophe)."""
    out = clean(text, limit)
    return "'" + out if out[:1] in ("=", "+", "-", "@") else out
