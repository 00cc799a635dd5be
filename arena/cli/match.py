"""`arena match GAME NEW OLD`: does NEW beat OLD? Paired games until a sequential test decides.

Exit status: 0 NEW is better (H1 accepted), 1 NEW is not better by the effect size (H0 accepted),
3 undecided at --games, 2 a usage or setup error, 130 interrupted (rerun the command to resume).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import click

from arena.cli import main
from arena.cli.run import NO_PIN, secret_option
from arena.cli.play import parse_option
from arena.jsonvalue import dumps_str
from arena.match.run import MatchSummary, play
from arena.match.sequential import SprtSpec, Verdict, mean_interval
from arena.match.setup import MatchRequest, build
from arena.sandbox.probe import probe
from arena.textsafe import LINE_CHARS, clean
from arena.tournament.schedule.plan import PAIRED_MATCH_WARNING

EXIT = {Verdict.BETTER: 0, Verdict.NOT_BETTER: 1, Verdict.UNDECIDED: 3}


@main.command("match")
@click.argument("game")
@click.argument("new")
@click.argument("old")
@click.option("--fill", "fill", multiple=True, metavar="CMD",
              help="A filler bot for the other seats (3+ players; repeat; default: arena's sample heuristic and random bots).")
@click.option("--players", type=click.IntRange(min=2), default=None, help="Seats per game (default: the game's fewest).")
@click.option("--games", "max_games", type=click.IntRange(min=2), default=1000, show_default=True,
              help="MAX: stop undecided after this many games (two a deal).")
@click.option("--sprt", "sprt_text", default=None, metavar="BOUNDS",
              help="The test: 'elo0=0 elo1=50 alpha=0.05 beta=0.05 model=normalized' for 2 players (the default), "
                   "'rank0=0 rank1=0.25 alpha=0.05 beta=0.05' (places a deal) for more.")
@click.option("--seed", type=int, default=1, show_default=True, help="Master seed of the deals.")
@click.option("--concurrency", "-j", type=click.IntRange(min=1), default=None, help="Games at once (default: one per core).")
@NO_PIN
@click.option("--config", "config", type=click.Path(dir_okay=False), default=None,
              help="A tournament config: NEW, OLD and --fill may be its entrant names; its options, clocks, limits and sandbox apply.")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE", help="A game option (see `arena games`).")
@click.option("--store", type=click.Path(dir_okay=False), default=None,
              help="The results store (default: out/match-GAME-<what the games are>.sqlite, so the same command resumes).")
@click.option("--replays", type=click.Path(file_okay=False), default=None, help="Keep every game's replay in this folder.")
@click.option("--keep-logs", is_flag=True,
              help="Write each bot's stderr lines per step into the replays (needs --replays; for `arena view`).")
@click.option("--fresh", is_flag=True, help="Discard the stored games of this match and start over.")
@click.option("--secret", metavar="HEX", default=None, callback=lambda ctx, param, value: secret_option(value),
              help="The secret that keys a new store's deals (as `arena run --secret`; default: random).")
@click.option("--sandbox/--no-sandbox", "sandbox", default=None, help="Run the bots in the sandbox (default: on where it runs).")
@click.option("--unpaired", is_flag=True, help="Give OLD deals of its own (no pairing): to measure what pairing saves.")
@click.option("--json", "as_json", is_flag=True, help="Print the verdict and figures as JSON (for CI; the exit status is the verdict's).")
@click.option("--quiet", "-q", is_flag=True, help="No progress line.")
@click.option("--cluster", metavar="ADDRESS", default=None,
              help="Play the games on a Dask cluster (tcp://host:8786, or local:N); the bots travel to it by hash.")
def match_command(
    game: str, new: str, old: str, fill: tuple[str, ...], players: int | None, max_games: int, sprt_text: str | None,
    seed: int, concurrency: int | None, no_pin: bool, config: str | None, options: tuple[str, ...], store: str | None,
    replays: str | None, keep_logs: bool, fresh: bool, secret: str | None, sandbox: bool | None, unpaired: bool, as_json: bool,
    quiet: bool, cluster: str | None = None,
) -> None:
    """Does NEW beat OLD at GAME? NEW and OLD are bot commands (or entrant names of --config).

    Exit status: 0 NEW is better (H1), 1 NEW is not better by the effect size (H0), 3 undecided at
    --games, 2 an error, 130 interrupted (run the same command again to resume).
    """
    req = MatchRequest(
        game=game, new=new, old=old, fill=fill, players=players, games=max_games, seed=seed,
        config=Path(config) if config else None, store=Path(store) if store else None,
        replays=Path(replays) if replays else None, keep_logs=keep_logs, sandbox=sandbox, unpaired=unpaired,
        options=dict(parse_option(o) for o in options),
    )
    cfg = build(req)
    spec = SprtSpec.parse(sprt_text, cfg.players)
    plain = [e.name for e in cfg.entrants if not e.sandbox.enabled]
    if plain and sandbox is not False:
        click.echo(f"arena: WARNING: not sandboxed: {', '.join(plain)} ({probe().reason or 'sandbox: false'})", err=True)
    if not unpaired:
        click.echo(f"arena: note: {PAIRED_MATCH_WARNING}", err=True)
    if not as_json:
        click.echo(header(cfg, spec))
    executor = None
    if cluster is not None:
        from arena.tournament.config.cluster import ClusterSpec
        from arena.tournament.run.dask_pool import DaskExecutor

        executor = DaskExecutor(ClusterSpec.parse(cluster))
    summary = play(cfg, spec, concurrency=concurrency, fresh=fresh, quiet=quiet or as_json, secret=secret, pin=not no_pin,
                   executor=executor)
    if as_json:
        click.echo(dumps_str(summary.to_json()))
    else:
        for line in report_lines(summary):
            click.echo(line)
    if summary.interrupted and summary.verdict is None:
        click.echo(f"interrupted: run the same command again to resume ({summary.games} games counted so far)", err=True)
        sys.exit(130)
    sys.exit(EXIT[summary.verdict] if summary.verdict is not None else 3)


def header(cfg: object, spec: SprtSpec) -> str:
    from arena.tournament.config.tournament import TournamentConfig

    assert isinstance(cfg, TournamentConfig)
    lo, hi = spec.bounds()
    names = [clean(" ".join(e.raw_command), LINE_CHARS) for e in cfg.entrants]
    fill = f"; fillers: {', '.join(names[2:])}" if cfg.players > 2 else ""
    paired = "seats swapped" if cfg.players == 2 else "NEW and OLD in the same seat"
    return (f"match {cfg.game}, {cfg.players} players, a deal = 2 games ({paired}), at most {2 * cfg.schedule.rounds} games, seed {cfg.seed}\n"
            f"  NEW: {names[0]}\n  OLD: {names[1]}{fill}\n"
            f"  SPRT {spec.describe(cfg.players)}: LLR bounds ({lo:.2f}, {hi:.2f})")


def _f(x: float, digits: int = 1, sign: bool = True) -> str:
    if not math.isfinite(x):
        return ("+inf" if x > 0 else "-inf") if sign else "inf"
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def report_lines(s: MatchSummary) -> list[str]:
    lo, hi = s.spec.bounds()
    llr = s.tally.llr()
    unit = "pairs" if s.seats == 2 else "deals"
    where = {
        Verdict.BETTER: f"NEW is better (H1 accepted: LLR {llr:.2f} >= {hi:.2f})",
        Verdict.NOT_BETTER: f"NEW is not better by the effect size (H0 accepted: LLR {llr:.2f} <= {lo:.2f})",
        Verdict.UNDECIDED: f"undecided at the maximum of {2 * s.config.schedule.rounds} games (LLR {llr:.2f} in ({lo:.2f}, {hi:.2f}))",
    }
    verdict = where[s.verdict] if s.verdict is not None else f"no verdict yet (LLR {llr:.2f} in ({lo:.2f}, {hi:.2f}))"
    lines = [f"verdict: {verdict} after {s.rounds} {unit} ({s.games} games)"]
    if s.seats == 2:
        p = s.tally.penta
        wins, losses, draws = 2 * p.ww + p.wd + p.wl, 2 * p.ll + p.ld + p.wl, 2 * p.dd + p.wd + p.ld
        e = s.elo()
        lines.append(f"  NEW's games: {wins} won, {draws} drawn, {losses} lost; pairs LL {p.ll} LD {p.ld} WL {p.wl} DD {p.dd} WD {p.wd} WW {p.ww}")
        lines.append(f"  score {e.score:.3f}  Elo {_f(e.elo)} +- {_f(e.elo_error, sign=False)}  nElo {_f(e.nelo)} +- "
                     f"{_f(e.nelo_error, sign=False)}  LOS {100 * e.los:.1f}%  draw ratio {100 * e.draw_ratio:.1f}% (95% intervals)")
    else:
        rank, rank_h = mean_interval([float(d) for d in s.tally.diffs])
        pts, pts_h = mean_interval(s.tally.points)
        better, same, worse = s.shares()
        lines.append(f"  rank: NEW {_f(rank, 2)} +- {_f(rank_h, 2, sign=False)} places a deal ahead of OLD; points: "
                     f"{_f(pts, 2)} +- {_f(pts_h, 2, sign=False)} a deal (95% intervals)")
        lines.append(f"  deals where NEW did better {100 * better:.0f}%, the same {100 * same:.0f}%, worse {100 * worse:.0f}%")
    lines.append(f"  faulted seats: NEW {s.faults[0]}, OLD {s.faults[1]}")
    past = f"; {s.stored_past} more played in flight, not counted" if s.stored_past else ""
    lines.append(f"store: {s.config.store} ({s.played_now} games played now in {s.duration_s:.1f} s{past})")
    return lines
