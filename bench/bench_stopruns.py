"""The stop rule in real runs: the demo configs as shipped plus a stop rule, played by `arena run -j 2`
as a user runs it (whole process, defaults: sandboxed), beside the full schedule of the same config.

    .venv/bin/python -m bench.bench_stopruns [--repeats 3] [--write]

Each repeat is a fresh store, so a fresh deal secret and fresh deals: where the rule stops moves from
run to run, which is why the section gives medians and ranges. The rule is the winner only
(`stop: {confidence: 0.95, min_rounds: 4, top: 1}`): the demo fields' three random bots are equally
strong, so a rule over every adjacent pair could not settle them. `--write` replaces this benchmark's
section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
from pathlib import Path

import yaml

from arena.results.store import Store
from bench.stats import Figure, report, write_section

ROOT = Path(__file__).resolve().parents[1]
ARENA = ROOT / ".venv" / "bin" / "arena"
COMMAND = ".venv/bin/python -m bench.bench_stopruns --write"
RULE = {"confidence": 0.95, "min_rounds": 4, "top": 1}
CONFIGS = {"kododo": "Kododo demo (py-heuristic and 3 random bots; 4 seats, 50 rounds)",
           "kolpa": "Kolpa! demo (py-heuristic and 3 random bots; 4 seats, 10 rounds)"}


def config_file(game: str, folder: Path, stop: bool) -> Path:
    """The shipped config, its root made absolute, its store in `folder`, with or without the rule."""
    data = yaml.safe_load((ROOT / "configs" / f"{game}.yaml").read_text())
    data["root"] = str(ROOT)
    data["output"] = {"store": str(folder / f"{game}-{'stop' if stop else 'full'}.sqlite"), "replays": None}
    if stop:
        data["stop"] = dict(RULE)
    else:
        data.pop("stop", None)
    path = folder / f"{game}-{'stop' if stop else 'full'}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def one_run(config: Path) -> dict[str, float]:
    """`arena run --fresh -j 2 CONFIG`: wall seconds, games stored, and where the rule stopped."""
    started = time.perf_counter()
    done = subprocess.run([str(ARENA), "run", "--fresh", "-j", "2", str(config)], cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{config}: arena run exited {done.returncode}\n{done.stderr[-2000:]}")
    store_path = Path(yaml.safe_load(config.read_text())["output"]["store"])
    with Store.open_existing(store_path) as store:
        info, stop = store.info(), store.stop()
    return {"wall": wall, "stored": float(info.stored_games), "total": float(info.total_games),
            "round": float(stop.after_round + 1) if stop else float("nan"), "rounds": float(stop.rounds) if stop else float("nan"),
            "games": float(stop.games) if stop else float(info.stored_games)}


def run(repeats: int) -> tuple[list[Figure], list[str]]:
    figures: list[Figure] = []
    rows = ["| field | stopped after round | games the standings count | games saved | wall, with the rule | wall, full schedule |",
            "|---|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory(prefix="bench-stopruns-") as tmp:
        folder = Path(tmp)
        for game, label in CONFIGS.items():
            stop_cfg, full_cfg = config_file(game, folder, True), config_file(game, folder, False)
            stops, fulls = [], []
            for _ in range(repeats):  # interleaved, so both see the same machine
                stops.append(one_run(stop_cfg))
                fulls.append(one_run(full_cfg))
            total = fulls[0]["total"]
            rounds = [s["round"] for s in stops]
            games = [s["games"] for s in stops]
            saved = [100.0 * (1 - g / total) for g in games]
            f_round = Figure(f"stop rule: {label}, stopped after round", "round", tuple(rounds))
            f_games = Figure(f"stop rule: {label}, games the standings count", "games", tuple(games))
            f_saved = Figure(f"stop rule: {label}, share of the schedule saved", "%", tuple(saved))
            f_wall = Figure(f"stop rule: {label}, `arena run -j 2` with the rule, whole process", "s", tuple(s["wall"] for s in stops))
            f_full = Figure(f"stop rule: {label}, `arena run -j 2` full schedule, whole process", "s", tuple(f["wall"] for f in fulls))
            figures += [f_round, f_games, f_saved, f_wall, f_full]
            rows.append(f"| {label} | {f_round.median:.0f} of {stops[0]['rounds']:.0f} (range {min(rounds):.0f} - {max(rounds):.0f}) "
                        f"| {f_games.median:.0f} of {total:.0f} | {f_saved.median:.0f}% (range {min(saved):.0f} - {max(saved):.0f}%) "
                        f"| {f_wall.median:.1f} s | {f_full.median:.1f} s |")
    return figures, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="one repeat")
    parser.add_argument("--write", action="store_true", help="replace this benchmark's section of BENCHMARKS.md")
    args = parser.parse_args()
    repeats = 1 if args.quick else args.repeats
    load = os.getloadavg()[0]
    started = time.perf_counter()
    figures, rows = run(repeats)
    text = report(COMMAND, f"{time.perf_counter() - started:.0f} s; load average at the start {load:.2f}; {repeats} repeat(s), "
                  "each a fresh store: a fresh deal secret, so fresh deals", [
        "The demo configs as shipped plus `stop: {confidence: 0.95, min_rounds: 4, top: 1}` (the winner only: the three random",
        "bots of the demo fields are equal, so a rule over every adjacent pair cannot settle them), each run as a user runs it:",
        "`arena run --fresh -j 2 CONFIG`, whole process, sandboxed; interleaved with the full schedule of the same config.",
        "`tests/tournament/run/test_stopwire.py` checks that -j 1, -j 2 and a SIGKILL plus resume stop at the same round.",
        "",
        *rows,
    ], figures)
    print(text)
    if args.write:
        write_section(ROOT / "BENCHMARKS.md", "stop-runs", "The stop rule in real runs (`arena run`)", text)


if __name__ == "__main__":
    main()
