"""The competition's final (`arena serve CONFIG final`): 8 bots, Kododo 4 seats, spread deals, the stop rule
over every adjacent pair, on this machine, against the fixed schedule of the same final.

    .venv/bin/python -m bench.bench_final [--rounds 12] [--full] [--write]

The field: the sample heuristic at 64, 24, 10, 5, 3, 2 and 1 sampled endings per choice and the C random
bot: eight different strengths (two equal bots would tie in expectation, and no rule settles a tie that is
not exact). A round is the round-robin: C(8, 4) = 70 tables, each in 4 seatings, 280 games. The final is
played as the server plays it (`competition.final.run_final`: its stages, a local pool of 2 workers,
sandboxed where the machine can, every replay signed) into a fresh data folder. Without `--full` the fixed
schedule's wall time is its game count at the rate the stop-rule run measured (said so in the table);
`--full` plays it too. `--write` replaces this benchmark's section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from arena.ladder.accounts import activate_bot, create_participant
from arena.ladder.competition.final.final import final_store, run_final
from arena.ladder.config import ServerConfig, parse
from arena.ladder.db import Database
from arena.results.store import Store
from arena.sandbox.probe import probe
from bench.stats import Figure, report, write_section

ROOT = Path(__file__).resolve().parents[1]
COMMAND = ".venv/bin/python -m bench.bench_final --write"
SAMPLES = (64, 24, 10, 5, 3, 2, 1)
TABLES_PER_ROUND = 70 * 4


def competition(config: ServerConfig) -> None:
    """The eight participants, each its own folder (the sandbox keeps them apart), in the server's store."""
    folder = config.path.parent
    config.data.mkdir(parents=True, exist_ok=True)
    db = Database(config.database)
    try:
        for samples in SAMPLES:
            bot = folder / "uploads" / f"h{samples}"
            bot.mkdir(parents=True)
            for name in ("kododo_heuristic.py", "arenabot.py"):
                shutil.copy(ROOT / "sample_bots" / "python" / name, bot / name)
            who, _ = create_participant(db, f"heuristic-{samples}")
            activate_bot(db, who.id, None, "heuristic", str(samples), ("python3", str(bot / "kododo_heuristic.py"), str(samples)),
                         str(bot))
        bot = folder / "uploads" / "random"
        bot.mkdir(parents=True)
        shutil.copy(ROOT / "sample_bots" / "c" / "random_bot", bot / "random_bot")
        who, _ = create_participant(db, "c-random")
        activate_bot(db, who.id, None, "random", "1", (str(bot / "random_bot"),), str(bot))
    finally:
        db.close()


def play(folder: Path, rounds: int, stop: bool, sandbox: bool) -> dict[str, float | str]:
    """One final in a fresh data folder: wall seconds, games the standings count, games played, the stop round."""
    folder.mkdir(parents=True)
    data = {"name": "bench-final", "game": "kododo", "players": 4, "data": str(folder / "data"),
            "final": {"rounds": rounds, "min_rounds": 4, "workers": 2}}
    config = parse(data, folder / "cup.yaml")
    competition(config)
    if not stop:  # the fixed schedule: the stop rule's first look after the last round (it never stops early)
        config = replace(config, final=replace(config.final, min_rounds=rounds))
    started = time.perf_counter()
    outcome = run_final(config, sandbox)
    wall = time.perf_counter() - started
    assert outcome.final is not None and not outcome.interrupted
    with Store.open_existing(final_store(config)) as store:
        info, record = store.info(), store.stop()
    return {"wall": wall, "counted": float(info.counted_games), "played": float(outcome.final.played),
            "round": float(record.after_round + 1) if record is not None else float(rounds),
            "state": outcome.final.stop_state or ""}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=12, help="the final's maximum rounds (the fixed schedule's)")
    parser.add_argument("--full", action="store_true", help="play the fixed schedule too (else its wall time is estimated)")
    parser.add_argument("--write", action="store_true", help="replace this benchmark's section of BENCHMARKS.md")
    args = parser.parse_args()
    sandbox = probe().sandbox
    load = os.getloadavg()[0]
    fixed_games = args.rounds * TABLES_PER_ROUND
    with tempfile.TemporaryDirectory(prefix="bench-final-") as tmp:
        ruled = play(Path(tmp) / "stop", args.rounds, True, sandbox)
        full = play(Path(tmp) / "full", args.rounds, False, sandbox) if args.full else None
    rate = float(ruled["played"]) / float(ruled["wall"])
    full_wall = float(full["wall"]) if full is not None else fixed_games / rate
    how = "measured" if full is not None else f"estimated: {fixed_games} games at the stop-rule run's {rate:.1f} games/s"
    settled = float(ruled["round"]) < args.rounds or float(ruled["counted"]) < fixed_games
    figures = [
        Figure("final of 8 bots, Kododo 4p: games to a settled order with the stop rule", "games", (float(ruled["counted"]),)),
        Figure("final of 8 bots, Kododo 4p: games of the fixed schedule", "games", (float(fixed_games),)),
        Figure("final of 8 bots, Kododo 4p: wall time with the stop rule (2 workers)", "s", (float(ruled["wall"]),)),
        Figure(f"final of 8 bots, Kododo 4p: wall time of the fixed schedule ({'measured' if full else 'estimated'})", "s",
               (full_wall,)),
        Figure("final of 8 bots, Kododo 4p: games a second", "games/s", (rate,)),
    ]
    rows = ["| | stop rule (confidence 0.95, min_rounds 4, every adjacent pair) | fixed schedule |", "|---|---|---|",
            f"| rounds | {float(ruled['round']):.0f} of {args.rounds}{'' if settled else ' (not settled: played to the maximum)'} "
            f"| {args.rounds} |",
            f"| games | {float(ruled['counted']):.0f} | {fixed_games} |",
            f"| wall time | {float(ruled['wall']):.0f} s | {full_wall:.0f} s ({how}) |",
            f"| the rule's last word | {ruled['state']} | - |"]
    text = report(COMMAND, f"one run; load average at the start {load:.2f} (a machine shared with other work); sandbox "
                  f"{'on' if sandbox else 'off (not available here)'}", [
        "A final as `arena serve CONFIG final` plays it: 8 participants (the sample Kododo heuristic at 64, 24, 10, 5, 3, 2",
        "and 1 sampled endings per choice, and the C random bot), 4 seats, spread deals (no bot meets a deal twice), a round",
        "of 280 games (70 tables x 4 seatings), 2 local workers. The rule's first look is after round 4, and its Bonferroni",
        "split over the looks sets a floor: no pair is settled before 2^(1 - r) <= 0.05 / looks, round 9 for 12 rounds.",
        "",
        *rows,
    ], figures)
    print(text)
    if args.write:
        write_section(ROOT / "BENCHMARKS.md", "final", "A competition's final: the stop rule against the fixed schedule", text)


if __name__ == "__main__":
    main()
