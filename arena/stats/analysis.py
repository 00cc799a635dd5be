"""What a results store says: the one analysis behind `arena standings` and `arena report`.

Both commands show the same facts computed the same way, with the same defaults: the leaderboard of
the counted games, the intervals of every place, the seat and neighbour effects, the faults charged in
games and those found outside games (with the stderr tails the store keeps), and on request the
collusion test. They differ only in how they render it (text, JSON, CSV, or a page).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from arena.core.faults import Fault
from arena.results.store import Store
from arena.results.stored import StoredGame, StoreInfo
from arena.stats.collusion import CollusionReport, detect
from arena.stats.ratings import Standing
from arena.stats.seating import SeatReport, seat_report
from arena.stats.standings import store_standings, store_uncertainty
from arena.stats.intervals import Uncertainty


@dataclass(frozen=True)
class AnalysisOptions:
    """How sure the intervals are and how they are drawn: the same defaults for every command."""

    confidence: float = 0.95
    resamples: int = 2000  # bootstrap resamples for the average-rank intervals
    rating_resamples: int = 100  # resamples re-rated for the mu intervals (capped on big stores)
    seed: int = 0
    seats: bool = False  # also the seat and neighbour effects (and the counted games themselves)
    collusion: bool = False  # also test every pair of entrants for collusion


@dataclass(frozen=True)
class Analysis:
    info: StoreInfo
    names: tuple[str, ...]  # as stored (raw: renderers clean them)
    standings: tuple[Standing, ...]  # best first
    uncertainty: Uncertainty
    games: tuple[StoredGame, ...]  # the games the standings count, in schedule order (with `seats` or `collusion`)
    seats: SeatReport | None  # with `seats`
    bot_faults: tuple[tuple[str, Fault], ...]  # found when bots were closed: (entrant, fault), stderr tail kept
    versions: tuple[tuple[str, str | None, str | None], ...]  # (entrant, hash of its files, version from its hello)
    collusion: CollusionReport | None = None


def analyse(store_path: str | os.PathLike[str], options: AnalysisOptions = AnalysisOptions()) -> Analysis:
    """Read the store at `store_path` (StoreError when it is not one) and compute every fact shown."""
    with Store.open_existing(Path(store_path)) as store:
        info = store.info()
        names = tuple(store.entrant_names())
        standings = tuple(store_standings(store))
        bot_faults = tuple(store.bot_faults())
        versions = tuple(store.entrant_versions())
        # cached in the store under a key of its content and these settings (`store_uncertainty`)
        uncertainty = store_uncertainty(store, standings, confidence=options.confidence, resamples=options.resamples,
                                        rating_resamples=options.rating_resamples, seed=options.seed)
        games = tuple(store.counted_games()) if options.seats or options.collusion else ()
    seats = seat_report(list(games), len(names)) if options.seats else None
    collusion = detect(list(games), len(names)) if options.collusion else None
    return Analysis(info, names, standings, uncertainty, games, seats, bot_faults, versions, collusion)
