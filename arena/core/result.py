"""A game's result: points, ranks after the fault policy, faults; as JSON for replays and stores."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from arena.core.ranking import competition_ranks
from arena.jsonvalue import JSON
from arena.core.faults import Fault, FaultPolicy


@dataclass(frozen=True)
class Played:
    """How one game went, seat by seat, as the standings count it: the rules' points and tie-breaks,
    the ranks after the fault policy and as the rules gave them, the typed faults, each seat's bot
    version (from its handshake), the decisions taken (fallbacks included) and the wall time. The
    referee's `GameResult` holds one beside the game's setup; the results store keeps one per game."""

    points: tuple[int, ...]
    tiebreaks: tuple[tuple[int, ...], ...]
    ranks: tuple[int, ...]  # after the fault policy (forfeit: faulty seats share last place)
    game_ranks: tuple[int, ...]  # as the rules scored it
    faults: tuple[Fault, ...]
    versions: tuple[str, ...]
    decisions: int
    duration_s: float

    @property
    def fault_counts(self) -> tuple[int, ...]:
        """The faults charged to each seat (a fault held by no seat is charged to none)."""
        counts = [0] * len(self.points)
        for fault in self.faults:
            if 0 <= fault.seat < len(counts):
                counts[fault.seat] += 1
        return tuple(counts)


@dataclass(frozen=True)
class GameResult:
    """The referee's whole result: the game's setup (rules, options, seed, players, policy), how it
    went (`played`), and where its replay is."""

    game: str
    options: dict[str, Any]
    seed: int
    players: tuple[str, ...]  # bot names by seat
    played: Played
    replay_path: str | None
    game_id: str = ""
    policy: FaultPolicy = FaultPolicy.FORFEIT

    # What callers of the referee read of how the game went, held once, in `played`.
    @property
    def points(self) -> tuple[int, ...]:
        return self.played.points

    @property
    def tiebreaks(self) -> tuple[tuple[int, ...], ...]:
        return self.played.tiebreaks

    @property
    def ranks(self) -> tuple[int, ...]:
        return self.played.ranks

    @property
    def game_ranks(self) -> tuple[int, ...]:
        return self.played.game_ranks

    @property
    def faults(self) -> tuple[Fault, ...]:
        return self.played.faults

    @property
    def versions(self) -> tuple[str, ...]:
        return self.played.versions

    @property
    def decisions(self) -> int:
        return self.played.decisions

    @property
    def duration_s(self) -> float:
        return self.played.duration_s

    def to_json(self) -> dict[str, JSON]:
        return {
            "game": self.game,
            "game_id": self.game_id,
            "options": dict(self.options),
            "seed": self.seed,
            "players": list(self.players),
            "versions": list(self.versions),
            "points": list(self.points),
            "tiebreaks": [list(t) for t in self.tiebreaks],
            "ranks": list(self.ranks),
            "game_ranks": list(self.game_ranks),
            "policy": self.policy.value,
            "faults": [f.to_json() for f in self.faults],
            "decisions": self.decisions,
            "duration_s": round(self.duration_s, 6),
            "replay_path": self.replay_path,
        }

    def summary(self) -> dict[str, JSON]:
        """What every bot is told at the end: scores and who faulted, nobody's stderr."""
        return {
            "points": list(self.points),
            "tiebreaks": [list(t) for t in self.tiebreaks],
            "ranks": list(self.ranks),
            "game_ranks": list(self.game_ranks),
            "faults": [{"seat": f.seat, "kind": f.kind.value} for f in self.faults],
        }


def apply_policy(game_ranks: Sequence[int], faulty: set[int], policy: FaultPolicy) -> tuple[int, ...]:
    """Final ranks: under forfeit the faulty seats share last place below every clean seat, whose
    order among themselves is the game's."""
    if policy is FaultPolicy.CONTINUE or not faulty:
        return tuple(game_ranks)
    clean = [s for s in range(len(game_ranks)) if s not in faulty]
    clean_ranks = competition_ranks([(-game_ranks[s],) for s in clean])
    ranks = [len(clean) + 1] * len(game_ranks)
    for seat, rank in zip(clean, clean_ranks):
        ranks[seat] = rank
    return tuple(ranks)
