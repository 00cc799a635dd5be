"""A bot's stderr lines of one game, kept per step: bounded, cleaned, and a count of what was dropped.

The referee feeds every stderr chunk it reads (`feed`) and takes the step's lines at the step's barrier
(`take`): a step's lines are those read after the previous step's barrier and up to its own, so what a
bot writes while deciding step N (or between steps, before N's request) is step N's. A line still
unfinished at the barrier is kept as it stands; what follows it starts a new line.

Bounds (`LogBounds`, not part of `Limits`: they change no game, so no tournament's identity): lines and characters per step and per game. Past a bound, lines are counted,
not kept (`dropped`), and the counting is one `bytes.count` per chunk: a bot that writes megabytes
costs the referee no per-line work. Each kept line is at most `STDERR_LINE_BYTES` raw bytes, made
printable (`arena.textsafe.clean`: no escapes, no control characters) and cut to LINE_CHARS with a
marker saying how long it was. Cleaning happens only for kept lines, so its cost is bounded too.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.textsafe import LINE_CHARS, clean

STDERR_LINE_BYTES = 4 * LINE_CHARS  # raw bytes kept of one line; shown cleaned, at most LINE_CHARS


@dataclass(frozen=True)
class LogBounds:
    """What one seat's log keeps: at most ~100 KB per game; past a bound lines are counted as dropped."""

    lines_per_step: int = 50
    chars_per_step: int = 10_000
    lines_per_game: int = 1_000
    chars_per_game: int = 100_000


@dataclass(frozen=True)
class StepLog:
    """One seat's stderr lines of one step, clean; `dropped` lines were over a bound."""

    step: int
    seat: int
    lines: tuple[str, ...]
    dropped: int = 0


def clean_line(raw: bytes, length: int) -> str:
    """A raw stderr line (`length`: its real length in bytes, of which `raw` is the start) as clean text."""
    if raw.endswith(b"\r"):
        raw, length = raw[:-1], length - 1
    if length <= len(raw):
        return clean(raw.decode("utf-8", "replace"), LINE_CHARS)
    text = clean(raw.decode("utf-8", "replace"), len(raw))  # at most STDERR_LINE_BYTES characters: no marker
    return f"{text[:LINE_CHARS]}… [a line of {length} bytes, cut]"


class StderrLog:
    """The stderr of the bot in one seat, for one game."""

    __slots__ = ("seat", "bounds", "_lines", "_chars", "_dropped", "_partial", "_partial_len", "_game_lines", "_game_chars",
                 "_step_shut", "_game_shut")

    def __init__(self, seat: int, bounds: LogBounds = LogBounds()) -> None:
        self.seat = seat
        self.bounds = bounds
        self._lines: list[str] = []  # the current step's kept lines
        self._chars = 0
        self._dropped = 0
        self._partial = bytearray()  # the start of the unfinished line (at most STDERR_LINE_BYTES)
        self._partial_len = 0  # its real length
        self._game_lines = 0
        self._game_chars = 0
        self._step_shut = False  # a line did not fit: the rest of the step is counted, not kept
        self._game_shut = False

    def _full(self) -> bool:
        b = self.bounds
        return (self._step_shut or self._game_shut or len(self._lines) >= b.lines_per_step
                or self._game_lines >= b.lines_per_game)

    def feed(self, data: bytes) -> None:
        """Bytes read from the bot's stderr."""
        pos, size = 0, len(data)
        while pos < size:
            if self._full():
                # Nothing more is kept this step: count the finished lines in one pass.
                last = data.rfind(b"\n", pos)
                if last < 0:
                    self._partial_len += size - pos
                    return
                self._dropped += data.count(b"\n", pos, last + 1)
                self._partial.clear()
                self._partial_len = 0
                pos = last + 1
                continue
            nl = data.find(b"\n", pos)
            end = size if nl < 0 else nl
            room = STDERR_LINE_BYTES - len(self._partial)
            if room > 0:
                self._partial += data[pos : min(end, pos + room)]
            self._partial_len += end - pos
            if nl < 0:
                return
            self._finish_line()
            pos = nl + 1

    def _finish_line(self) -> None:
        raw, length = bytes(self._partial), self._partial_len
        self._partial.clear()
        self._partial_len = 0
        if self._full():
            self._dropped += 1
            return
        text = clean_line(raw, length)
        if self._game_chars + len(text) > self.bounds.chars_per_game:
            self._game_shut = True
        if self._chars + len(text) > self.bounds.chars_per_step:
            self._step_shut = True
        if self._game_shut or self._step_shut:  # kept lines stay a prefix of what the bot wrote
            self._dropped += 1
            return
        self._lines.append(text)
        self._chars += len(text)
        self._game_lines += 1
        self._game_chars += len(text)

    def take(self, step: int) -> StepLog | None:
        """The lines of `step` (None: it wrote nothing); a line left unfinished is kept as it stands."""
        if self._partial_len:
            self._finish_line()
        if not self._lines and not self._dropped:
            return None
        out = StepLog(step, self.seat, tuple(self._lines), self._dropped)
        self._lines = []
        self._chars = 0
        self._dropped = 0
        self._step_shut = False
        return out
