"""Results a worker sends are checked by another worker before the coordinator stores them.

A Dask worker plays each game with a replay (in a folder of its own, whether or not the tournament
keeps replays) and sends the replay's bytes back with the result (`PlayedBatch`). The coordinator does
not trust them: it hands the replays, in batches, to a *different* worker (`check_batch`, the check
`arena verify` makes: the game re-simulated from its header and decisions, every record checked), with
what the coordinator itself expects: the game's keyed seed and the result the playing worker claimed.
Only a game whose replay re-simulates to that seed and result is stored (its replay written where the
tournament keeps replays); any other is refused, the worker that played it named and given no more
games, and the game played again elsewhere. With a single worker, it checks its own results (which
catches a corrupted result, not a lying worker).

Why on a worker: re-simulating a game costs about as much CPU as refereeing it (~6 ms for a card game of the demo's size), far
above the coordinator's budget per game; the workers have the CPU.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from arena.errors import ReplayError
from arena.rng import keyed_seed
from arena.tournament.run.messages import GameDone, GameFailed, WorkerBug


@dataclass(frozen=True)
class PlayedBatch:
    """A batch's games as one worker played them: what became of each, and each finished game's replay."""

    worker: str  # its Dask address
    events: tuple[GameDone | GameFailed | WorkerBug, ...]
    replays: dict[int, bytes]  # game index -> its replay's bytes


@dataclass(frozen=True)
class Claim:
    """One result to check: the replay, and what the coordinator expects it to show."""

    index: int
    replay: bytes
    seed: int  # the seed the coordinator keyed for the game
    points: tuple[int, ...]  # the result the playing worker claimed
    ranks: tuple[int, ...]


def claim(done: GameDone, replay: bytes, secret: str) -> Claim:
    """What the coordinator expects `done`'s replay to show: the seed it keys for the game, the result claimed."""
    played = done.stored.played
    return Claim(done.task.index, replay, keyed_seed(secret, "deal", done.task.game.seed), tuple(played.points),
                 tuple(done.stored.ranks))


def kept(done: GameDone, replay: bytes, folder: Path | None) -> GameDone:
    """The game as the coordinator stores it: its replay written in `folder` (the tournament's replays), if any."""
    path = None
    if folder is not None and done.stored.replay_path is not None:
        path = folder / Path(done.stored.replay_path).name
        path.write_bytes(replay)
    return GameDone(done.task, replace(done.stored, replay_path=str(path) if path is not None else None))


def check_batch(claims: tuple[Claim, ...]) -> list[tuple[int, str | None]]:
    """A Dask task: each claim's replay re-simulated; (game index, None) when it shows the expected seed
    and result, else (index, what is wrong)."""
    from arena.audit.verify import verify_replay

    _beside_the_games()
    out: list[tuple[int, str | None]] = []
    with tempfile.TemporaryDirectory(prefix="arena-check-") as folder:
        for claim in claims:
            path = os.path.join(folder, f"{claim.index}.jsonl")
            with open(path, "wb") as fh:
                fh.write(claim.replay)
            try:
                report = verify_replay(path)
            except ReplayError as exc:
                out.append((claim.index, f"its replay does not re-simulate: {exc}"))
                continue
            if report.seed != claim.seed:
                out.append((claim.index, f"its replay was dealt seed {report.seed}, not the game's {claim.seed}"))
            elif tuple(report.points) != claim.points or tuple(report.ranks) != claim.ranks:
                out.append((claim.index, f"it claimed points {list(claim.points)}, ranks {list(claim.ranks)}; its replay "
                                         f"gives points {list(report.points)}, ranks {list(report.ranks)}"))
            else:
                out.append((claim.index, None))
    return out


def _beside_the_games() -> None:
    """Leave the worker's thread pool (`distributed.secede`): a worker runs one task at a time, and a check
    would hold back its next batch of games, whose bots mostly wait; seceded, it runs beside them. Called
    outside a Dask worker (a test calling the task itself), nothing."""
    try:
        from distributed import secede

        secede()  # type: ignore[no-untyped-call]
    except (ImportError, ValueError):
        pass
