"""How sure each place of the final is: the published standings' one rule, pure.

A place is decided by TrueSkill mu - 3 sigma over the final's counted games (as `arena standings`
ranks). It is *settled* only when the other statistic agrees and the data are sure of it: the entrant
holds the same place by average rank, and the chance that it is ahead of the next entrant by average
rank (and that the one above is ahead of it) is at least the confidence (`P(ahead of next)`, the
bootstrap over deal blocks of `arena standings`). So a 4-bot final where #1 by mu - 3 sigma and #1 by
average rank disagree publishes its first place marked "not settled", with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from arena.jsonvalue import JSON
from arena.report.statistics import p_text
from arena.stats.intervals import Uncertainty
from arena.stats.ratings import Standing
from arena.textsafe import NAME_CHARS, clean

DECIDED_BY = ("TrueSkill mu − 3σ over the final's counted games (as arena standings ranks them); a place is settled when "
              "the average rank puts the same entrant there and P(ahead of the next by average rank) is at least "
              "the confidence, for it and for the one above")


@dataclass(frozen=True)
class Place:
    place: int  # by mu - 3 sigma (equal scores share a place)
    name: str
    score: float  # mu - 3 sigma
    mu: float
    sigma: float
    games: int
    avg_rank: float | None
    avg_rank_place: int | None  # its position by average rank (1 = best); None: no average rank
    avg_rank_low: float | None
    avg_rank_high: float | None
    p_ahead_of_next: float | None  # P(its average rank is better than the next one's, by average rank)
    settled: bool
    why: str = ""  # why not settled

    def to_json(self) -> dict[str, JSON]:
        return {"place": self.place, "name": self.name, "score": self.score, "mu": self.mu, "sigma": self.sigma,
                "games": self.games, "avg_rank": self.avg_rank, "avg_rank_place": self.avg_rank_place,
                "avg_rank_low": self.avg_rank_low, "avg_rank_high": self.avg_rank_high,
                "p_ahead_of_next": self.p_ahead_of_next, "settled": self.settled, "why": self.why or None}


COLUMNS = ("place", "name", "score", "mu", "sigma", "games", "avg_rank", "avg_rank_place", "avg_rank_low",
           "avg_rank_high", "p_ahead_of_next", "settled", "why")


def places(standings: Sequence[Standing], unc: Uncertainty, names: Sequence[str]) -> list[Place]:
    """Each standing with its average-rank place and whether it is settled (see the module's rule)."""
    order = [names[i] for i in unc.order]  # by average rank, best first
    by_rank = {n: k for k, n in enumerate(order)}
    entrant = {names[e.entrant]: e for e in unc.entrants}
    shared = {s.place for s in standings if sum(1 for t in standings if t.place == s.place) > 1}
    level = unc.confidence

    def sure(name: str) -> float | None:
        e = entrant.get(name)
        return e.p_ahead if e is not None else None

    out = []
    for i, s in enumerate(standings):
        e = entrant.get(s.name)
        reasons = []
        if s.place in shared:
            reasons.append("shares its mu − 3σ with another entrant")
        if not order or s.name not in by_rank:
            reasons.append(clean(unc.note or (e.why if e else "") or "no average-rank interval yet", 200))
        else:
            if i >= len(order) or order[i] != s.name:
                holder = order[i] if i < len(order) else "nobody"
                reasons.append(f"#{i + 1} by average rank is {clean(holder, NAME_CHARS)}, not {clean(s.name, NAME_CHARS)}")
            if i > 0 and by_rank[s.name] > 0:
                above = sure(order[by_rank[s.name] - 1])
                if above is None or above < level:
                    reasons.append(f"P(the one above is ahead of it) {p_text(above or 0.0)} < {level:.0%}")
            if by_rank[s.name] < len(order) - 1:
                mine = sure(s.name)
                if mine is None or mine < level:
                    reasons.append(f"P(ahead of the next) {p_text(mine or 0.0)} < {level:.0%}")
        out.append(Place(
            place=s.place, name=s.name, score=s.score, mu=s.mu, sigma=s.sigma, games=s.games, avg_rank=s.avg_rank,
            avg_rank_place=by_rank[s.name] + 1 if s.name in by_rank else None,
            avg_rank_low=e.avg_rank.low if e is not None and e.avg_rank else None,
            avg_rank_high=e.avg_rank.high if e is not None and e.avg_rank else None,
            p_ahead_of_next=e.p_ahead if e is not None else None,
            settled=not reasons, why="; ".join(reasons)))
    return out
