"""Reads a replay file into typed records: `load_replay(path) -> Replay`.

Only the file's shape is checked here (every line a valid record, the header first, the result last,
each exactly once); whether the records agree with the game is `arena.audit.verify`'s business.
Every problem is a `ReplayError` naming the file, the line and the member.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from typing import Iterator, Union

from arena.errors import ReplayError
from arena.replay.encoding import JSON, decode_line
from arena.replay.records import (
    Commit,
    Decision,
    Events,
    FaultRecord,
    Header,
    Log,
    Record,
    ReplayRecordError,
    Result,
    parse_record,
)

BodyRecord = Union[Commit, Decision, Events, FaultRecord]


@dataclass(frozen=True)
class Replay:
    source: str  # the path, or a label for bytes read from elsewhere
    sha256: str  # of the file's bytes: what a branch's header names in `branch.of`
    header: Header
    body: tuple[BodyRecord, ...]  # commits, faults, decisions and events, in the order written
    result: Result
    logs: tuple[Log, ...] = ()  # the seats' stderr lines by step, where the game kept them (`--keep-logs`)


def raw_records(data: bytes) -> Iterator[tuple[int, JSON]]:
    """(line number, decoded JSON) for every line; ReplayRecordError names a line that is not JSON."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # the newline that ends the last record
    for number, raw in enumerate(lines, start=1):
        try:
            yield number, decode_line(raw)
        except ValueError as exc:
            raise ReplayRecordError(number, "", f"not a JSON line: {exc}") from None


def parse_replay(data: bytes, source: str = "<replay>") -> Replay:
    """A replay from the bytes of its file; raises ReplayError (`source`: line, member: problem)."""
    try:
        return _parse(data, source)
    except ReplayRecordError as exc:
        raise ReplayRecordError(exc.line, exc.member, exc.problem, where=source) from None


def _parse(data: bytes, source: str) -> Replay:
    header: Header | None = None
    result: Result | None = None
    body: list[BodyRecord] = []
    logs: list[Log] = []
    for number, value in raw_records(data):
        record: Record = parse_record(value, number)
        if result is not None:
            raise ReplayRecordError(number, "type", f"a {type(record).__name__.lower()} record after the result record")
        if isinstance(record, Header):
            if header is not None:
                raise ReplayRecordError(number, "type", "a second header record")
            header = record
        elif header is None:
            raise ReplayRecordError(number, "type", f"the first record must be the header, got {value.get('type')!r}")
        elif isinstance(record, Result):
            result = record
        elif isinstance(record, Log):
            logs.append(record)
        else:
            body.append(record)
    if header is None:
        raise ReplayRecordError(1, "", "the replay is empty")
    if result is None:
        raise ReplayRecordError(number + 1, "", "no result record: the replay is cut short")
    return Replay(source, hashlib.sha256(data).hexdigest(), header, tuple(body), result, tuple(logs))


GZIP_MAGIC = b"\x1f\x8b"


def read_replay_bytes(path: str | os.PathLike[str]) -> bytes:
    """A replay file's bytes as written: a file compressed at rest (gzip: `PATH.gz` beside a `PATH` no longer
    there, as a competition server keeps its replays, or a `.gz` given itself) is read decompressed."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        try:
            with open(f"{os.fspath(path)}.gz", "rb") as fh:
                data = fh.read()
        except FileNotFoundError:
            raise FileNotFoundError(2, "No such file or directory", os.fspath(path)) from None
    if data[:2] == GZIP_MAGIC:
        import gzip

        data = gzip.decompress(data)
    return data


def replay_exists(path: str | os.PathLike[str]) -> bool:
    """Is there a replay at `path`, plain or compressed at rest (`PATH.gz`)?"""
    return os.path.isfile(path) or os.path.isfile(f"{os.fspath(path)}.gz")


def load_replay(path: str | os.PathLike[str]) -> Replay:
    """Read and parse the replay at `path` (plain, or gzip-compressed at rest: `read_replay_bytes`)."""
    try:
        data = read_replay_bytes(path)
    except OSError as exc:
        raise ReplayError(f"cannot read the replay {str(path)!r}: {exc.strerror or exc}") from exc
    except EOFError as exc:
        raise ReplayError(f"cannot read the replay {str(path)!r}: its gzip stream is cut short ({exc})") from exc
    return parse_replay(data, str(path))
