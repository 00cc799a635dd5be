"""Writes a replay as the game happens, one typed record per line.

The referee hands over what it knows (the bot's answer, whether it was played, the faults as they
happen); the writer turns it into the one record shape the format allows for that case, so the
referee never builds replay JSON itself. Encoding never raises on a value (see `encoding`): a value
that orjson cannot encode is written by the portable encoder, and a failing disk is a `ReplayError`
naming the file.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO, Sequence

from arena.errors import ReplayError
from arena.core.faults import Fault, FaultKind
from arena.core.result import Played
from arena.replay.encoding import JSON, commitment, encode_line, new_salt
from arena.replay.records import (
    Commit,
    Decision,
    Events,
    FaultRecord,
    Header,
    Log,
    Record,
    Result,
    Source,
)


class ReplayWriter:
    """Appends records to one replay file."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = str(path)
        self._fatal: dict[int, FaultKind] = {}  # seat -> the fault that took its bot out of the game
        self._response: dict[tuple[int, int, int | None], FaultKind] = {}  # (step, seat, request) -> fault
        try:
            Path(self.path).parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # private: see protocol.md
            os.fchmod(fd, 0o600)
            self._fh: IO[bytes] | None = os.fdopen(fd, "wb")
        except OSError as exc:
            raise ReplayError(f"cannot write the replay {self.path!r}: {exc.strerror or exc}") from exc

    def write(self, record: Record, flush: bool = False) -> None:
        if self._fh is None:
            raise ReplayError(f"the replay {self.path!r} is already closed")
        try:
            self._fh.write(encode_line(record.to_json()))
            if flush:
                self._fh.flush()
        except OSError as exc:
            raise ReplayError(f"cannot write the replay {self.path!r}: {exc.strerror or exc}") from exc

    def header(self, header: Header) -> None:
        self.write(header)

    def commit(self, step: int, seat: int, request_id: int, answer: JSON, *, flush: bool = True) -> str:
        """Commit to an answer the moment it arrives; returns the salt that opens the commitment."""
        salt = new_salt()
        self.write(Commit(step, seat, request_id, commitment(salt, step, seat, answer)), flush=flush)
        return salt

    def fault(self, fault: Fault) -> None:
        if fault.kind.fatal:
            self._fatal.setdefault(fault.seat, fault.kind)
        elif fault.kind.unanswered:
            self._response.setdefault((fault.step, fault.seat, fault.request_id), fault.kind)
        self.write(FaultRecord.of(fault))

    def decision(
        self,
        *,
        step: int,
        seat: int,
        request_id: int | None,
        answered: bool,
        answer: JSON,
        salt: str | None,
        played: JSON,
        from_bot: bool,
        elapsed_ms: float | None,
    ) -> None:
        """The reveal of one seat's decision, after the step's barrier."""
        elapsed = None if elapsed_ms is None else round(elapsed_ms, 3)
        if from_bot:
            record = Decision(step, seat, Source.BOT, played, request_id, salt=salt, elapsed_ms=elapsed)
        elif answered:
            record = Decision(step, seat, Source.FALLBACK, played, request_id, FaultKind.ILLEGAL_ACTION, answer, salt, elapsed)
        else:
            # Every way of not answering records its fault first; were one missing, `verify` would
            # report this fallback as unexplained (timeout is only the record's placeholder then).
            kind = self._fatal.get(seat) or self._response.get((step, seat, request_id)) or FaultKind.TIMEOUT
            record = Decision(step, seat, Source.FALLBACK, played, request_id, kind, elapsed_ms=elapsed)
        self.write(record)

    def recorded(self, step: int, seat: int, played: JSON) -> None:
        """A decision copied from the original game, in a branch's steps before its branch point."""
        self.write(Decision(step, seat, Source.RECORDED, played))

    def events(self, step: int, events: Sequence[dict[str, JSON]]) -> None:
        self.write(Events(step, tuple(events)))

    def log(self, step: int, seat: int, lines: Sequence[str], dropped: int) -> None:
        """A seat's stderr lines of one step (already bounded and clean: `arena.referee.stderr_log`)."""
        self.write(Log(step, seat, tuple(lines), dropped))

    def result(self, result: Played) -> None:
        self.write(
            Result(
                points=tuple(result.points),
                tiebreaks=tuple(tuple(t) for t in result.tiebreaks),
                game_ranks=tuple(result.game_ranks),
                ranks=tuple(result.ranks),
                faults=tuple(FaultRecord.of(f) for f in result.faults),
                decisions=result.decisions,
                duration_s=round(result.duration_s, 6),
            )
        )

    def close(self) -> None:
        if self._fh is not None:
            try:
                self._fh.close()
            except OSError as exc:
                raise ReplayError(f"cannot write the replay {self.path!r}: {exc.strerror or exc}") from exc
            finally:
                self._fh = None
