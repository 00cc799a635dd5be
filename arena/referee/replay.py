"""The replay of one game: JSON lines, written as the game happens, read back by `arena verify`.

Records, in order of writing (each an object with a "type"):
  header    format, protocol, game, game version, options, seed, game id, seats (bot names and
            versions), time control, policy
  commit    step, seat, request id, SHA-256 commitment, elapsed_ms: written (and flushed) the moment a
            secret answer arrives, before any other seat's answer of the step is known
  decision  step, seat, request id, what the bot sent (or null), the salt, the action played, its
            source ("bot" or "fallback") and elapsed_ms: the reveal, written after the step's barrier
  events    step, every event of the step (private ones carry "to")
  fault     a Fault as JSON, when it happens
  result    the GameResult as JSON
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO, Iterator

from arena.errors import ReplayError
from arena.jsonvalue import JSON, dumps_line, loads

REPLAY_FORMAT = 1


class ReplayWriter:
    """Appends records; `flush=True` pushes a record to the OS at once (commitments)."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = str(path)
        try:
            parent = Path(self.path).parent
            parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # private: see protocol.md
            os.fchmod(fd, 0o600)
            self._fh: IO[bytes] | None = os.fdopen(fd, "wb")
        except OSError as exc:
            raise ReplayError(f"cannot write the replay {self.path!r}: {exc.strerror or exc}") from exc

    def write(self, record: dict[str, JSON], flush: bool = False) -> None:
        if self._fh is None:
            raise ReplayError(f"the replay {self.path!r} is already closed")
        self._fh.write(dumps_line(record))
        if flush:
            self._fh.flush()

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


def iter_replay(path: str | os.PathLike) -> Iterator[tuple[int, dict[str, JSON]]]:
    """(line number, record) for every record; ReplayError names the line that cannot be read."""
    try:
        fh = open(path, "rb")
    except OSError as exc:
        raise ReplayError(f"cannot read the replay {str(path)!r}: {exc.strerror or exc}") from exc
    with fh:
        for number, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                record = loads(raw)
            except ValueError as exc:
                raise ReplayError(f"{path}:{number}: not a JSON line ({exc})") from exc
            if not isinstance(record, dict) or not isinstance(record.get("type"), str):
                raise ReplayError(f'{path}:{number}: a replay record is an object with a "type"')
            yield number, record


def read_replay(path: str | os.PathLike) -> list[dict[str, JSON]]:
    return [record for _, record in iter_replay(path)]
