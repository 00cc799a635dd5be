"""`arena standings DB`: the leaderboard of a results store, as a table, JSON or CSV."""

from __future__ import annotations

from pathlib import Path

import click

from arena.cli import main
from arena.report import standings as report
from arena.report import statistics as statsreport
from arena.stats.collusion import detect
from arena.stats.seating import seat_report
from arena.results.store import Store
from arena.stats.uncertainty import estimate
from arena.stats.standings import store_standings


@main.command("standings")
@click.argument("db", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the standings as JSON.")
@click.option("--csv", "as_csv", is_flag=True, help="Print the standings as CSV.")
@click.option("--confidence", type=click.FloatRange(0.5, 1.0, max_open=True), default=0.95, show_default=True,
              help="Confidence level of the intervals.")
@click.option("--resamples", type=click.IntRange(100, 1_000_000), default=2000, show_default=True,
              help="Bootstrap resamples for the average-rank intervals.")
@click.option("--rating-resamples", type=click.IntRange(0, 100_000), default=100, show_default=True,
              help="Resamples re-rated for the mu intervals (0: none; capped on big stores).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap.")
@click.option("--seats", "show_seats", is_flag=True, help="Also show per-seat and per-neighbour results.")
@click.option("--collusion", "show_collusion", is_flag=True, help="Also test every pair of entrants for collusion.")
def standings_command(
    db: str, as_json: bool, as_csv: bool, confidence: float, resamples: int, rating_resamples: int, seed: int,
    show_seats: bool, show_collusion: bool,
) -> None:
    """Rank the entrants of a results store by TrueSkill mu - 3 sigma, with how sure each place is."""
    if as_json and as_csv:
        raise click.UsageError("choose one of --json and --csv")
    with Store.open_existing(Path(db)) as store:
        info = store.info()
        standings = store_standings(store)
        bot_faults = store.bot_faults()
        games = store.counted_games()
        versions = store.entrant_versions()
    names = list(info.entrants)
    index = {n: i for i, n in enumerate(names)}
    unc = estimate(games, len(names), [index[s.name] for s in standings], confidence=confidence, resamples=resamples,
                   rating_resamples=rating_resamples, seed=seed)
    seats = seat_report(games, len(names)) if show_seats else None
    collusion = detect(games, len(names)) if show_collusion else None
    if as_json:
        meta = {
            "tournament": info.name,
            "game": info.game,
            "games": info.counted_games,
            "scheduled": info.total_games,
            "stop": info.stop.to_json() if info.stop is not None else None,
            "bot_faults": [{"entrant": e, "kind": k, "detail": d} for e, k, d in bot_faults],
            "versions": {n: {"files": h, "hello": v} for n, h, v in versions},
            "uncertainty": statsreport.uncertainty_json(unc, names),
        }
        if seats is not None:
            meta["seats"] = seats.to_json()
        if collusion is not None:
            meta["collusion"] = {"test": collusion.test, "alpha": collusion.alpha,
                                 "pairs": [p.to_json(names) for p in collusion.pairs]}
        click.echo(report.as_json(standings, meta))
    elif as_csv:
        click.echo(statsreport.standings_csv(standings, unc, names), nl=False)
    else:
        click.echo(f"{info.name} ({info.game}): {info.counted_games}/{info.total_games} games")
        if info.stop is not None:
            click.echo(info.stop.line())
        click.echo(report.table(standings))
        click.echo()
        click.echo(statsreport.versions_text(versions))
        click.echo()
        click.echo(statsreport.intervals_text(standings, unc, names))
        if seats is not None:
            click.echo()
            click.echo(statsreport.seats_text(seats, names))
        if collusion is not None:
            click.echo()
            click.echo(statsreport.collusion_text(collusion, names))
        if bot_faults:
            click.echo(report.bot_faults(bot_faults))
