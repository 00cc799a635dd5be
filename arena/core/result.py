"""A game's result: points, ranks after the fault policy, faults; as JSON for replays and stores."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from arena.core.ranking import competition_ranks
from arena.jsonvalue import JSON
from arena.core.faults import Fault, FaultPolicy


@dataclass(frozen=True)
class GameResult:
    game: str
    options: dict[str, Any]
    seed: int
    players: tuple[str, ...]  # bot names by seat
    points: tuple[int, ...]
    tiebreaks: tuple[tuple[int, ...], ...]
    ranks: tuple[int, ...]  # after the fault policy (forfeit: faulty seats share last place)
    game_ranks: tuple[int, ...]  # as the rules scored it
    faults: tuple[Fault, ...]
    decisions: int  # seat decisions taken, fallbacks included
    duration_s: float
    replay_path: str | None
    game_id: str = ""
    policy: FaultPolicy = FaultPolicy.FORFEIT
    versions: tuple[str, ...] = ()  # bot versions by seat, from the handshakes

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

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "GameResult":
        return cls(
            game=data["game"],
            options=dict(data["options"]),
            seed=int(data["seed"]),
            players=tuple(data["players"]),
            points=tuple(data["points"]),
            tiebreaks=tuple(tuple(t) for t in data["tiebreaks"]),
            ranks=tuple(data["ranks"]),
            game_ranks=tuple(data["game_ranks"]),
            faults=tuple(Fault.from_json(f) for f in data["faults"]),
            decisions=int(data["decisions"]),
            duration_s=float(data["duration_s"]),
            replay_path=data.get("replay_path"),
            game_id=data.get("game_id", ""),
            policy=FaultPolicy(data.get("policy", "forfeit")),
            versions=tuple(data.get("versions", ())),
        )

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
