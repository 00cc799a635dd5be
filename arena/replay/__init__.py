"""The replay of one game: typed JSON-lines records, written as the game happens, read back and verified.

    records.py   the record types, strict parsing and serialising (schema.json says the same)
    encoding.py  canonical bytes that never fail, a strict line decoder, commitments
    writer.py    ReplayWriter: what the referee calls
    reader.py    load_replay(path) -> Replay
    `arena.audit.verify` re-simulates a Replay: resimulate(replay), verify_replay(replay)

The format is documented in protocol.md ("Replays"). `iter_replay`/`read_replay` give the raw
decoded records, for code that only prints them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

from arena.replay.encoding import JSON
from arena.replay.reader import BodyRecord, Replay, load_replay, parse_replay, raw_records
from arena.replay.records import (
    FORMAT,
    Branch,
    Commit,
    Decision,
    Events,
    FaultRecord,
    Header,
    Log,
    ReplayRecordError,
    Result,
    SeatInfo,
    Source,
)
from arena.replay.writer import ReplayWriter

REPLAY_FORMAT = FORMAT
SCHEMA_PATH = Path(__file__).with_name("schema.json")

__all__ = [
    "FORMAT", "REPLAY_FORMAT", "SCHEMA_PATH", "BodyRecord", "Branch", "Commit", "Decision", "Events", "FaultRecord",
    "Header", "Log", "Replay", "ReplayRecordError", "ReplayWriter", "Result", "SeatInfo", "Source", "iter_replay",
    "load_replay", "parse_replay", "read_replay",
]


def iter_replay(path: str | os.PathLike[str]) -> Iterator[tuple[int, dict[str, JSON]]]:
    """(line number, record as decoded JSON) for a replay that `load_replay` accepts."""
    replay = load_replay(path)  # refuses a malformed file before anything is yielded
    with open(replay.source, "rb") as fh:
        data = fh.read()
    for number, record in raw_records(data):
        yield number, record


def read_replay(path: str | os.PathLike[str]) -> list[dict[str, JSON]]:
    return [record for _, record in iter_replay(path)]
