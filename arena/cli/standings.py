"""`arena standings DB`: the leaderboard of a results store, as a table, JSON or CSV."""

from __future__ import annotations

import click

from arena.cli import main
from arena.report import standings as report
from arena.report import statistics as statsreport
from arena.stats.analysis import AnalysisOptions, analyse


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
    a = analyse(db, AnalysisOptions(confidence=confidence, resamples=resamples, rating_resamples=rating_resamples,
                                    seed=seed, seats=show_seats, collusion=show_collusion))
    info, names, standings = a.info, list(a.names), list(a.standings)
    if as_json:
        meta = {
            "tournament": info.name,
            "game": info.game,
            "games": info.counted_games,
            "scheduled": info.total_games,
            "stop": info.stop.to_json() if info.stop is not None else None,
            "bot_faults": report.bot_faults_json(a.bot_faults),
            "versions": {n: {"files": h, "hello": v} for n, h, v in a.versions},
            "uncertainty": statsreport.uncertainty_json(a.uncertainty, names),
        }
        if a.seats is not None:
            meta["seats"] = a.seats.to_json()
        if a.collusion is not None:
            meta["collusion"] = {"test": a.collusion.test, "alpha": a.collusion.alpha,
                                 "pairs": [p.to_json(names) for p in a.collusion.pairs]}
        click.echo(report.as_json(standings, meta))
    elif as_csv:
        click.echo(statsreport.standings_csv(standings, a.uncertainty, names), nl=False)
    else:
        click.echo(f"{info.name} ({info.game}): {info.counted_games}/{info.total_games} games")
        if info.stop is not None:
            click.echo(info.stop.line())
        click.echo(report.table(standings))
        click.echo()
        click.echo(statsreport.versions_text(a.versions))
        click.echo()
        click.echo(statsreport.intervals_text(standings, a.uncertainty, names))
        if a.seats is not None:
            click.echo()
            click.echo(statsreport.seats_text(a.seats, names))
        if a.collusion is not None:
            click.echo()
            click.echo(statsreport.collusion_text(a.collusion, names))
        if a.bot_faults:
            click.echo(report.bot_faults(a.bot_faults))
