"""`arena serve CONFIG publish`: write the final's published results (standings, signed results file, report)."""

from __future__ import annotations

import click

from arena.cli.compete.serve import serve_command


@serve_command.command("publish")
@click.option("--no-viewers", is_flag=True, help="Do not write a viewer page for each final game.")
@click.pass_context
def publish_command(ctx: click.Context, no_viewers: bool) -> None:
    """Publish the final's results into DATA/final/published (the server shows them at /results): standings
    as JSON and CSV with how sure each place is, results.json signed with the server's key (check it with
    `arena verify --key DATA/final/final.sqlite.pub.pem results.json`) and the report with its viewer pages."""
    from arena.ladder.competition.final.published import publish

    published = publish(ctx.obj, viewers=not no_viewers)
    click.echo(f"published the final's {published.games} games in {published.folder}:")
    for path in (published.standings, published.csv, published.results, published.report):
        click.echo(f"  {path}")
