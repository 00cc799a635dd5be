"""The config's stop rule in real runs: bot subprocesses, -j 1 and 2, SIGKILL and resume, the store's record."""

from __future__ import annotations

import io
import os
import signal
import sqlite3
import subprocess
from pathlib import Path
from typing import Any, Callable

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.errors import ConfigError
from arena.jsonvalue import loads
from arena.tournament.config import tournament as tconfig
from arena.report import standings as report
from arena.tournament.run import runner
from arena.stats.ratings import RatingBook, RatingModel, Standing
from arena.tournament.run.stop.rounds import RoundEnd, RoundGame
from arena.tournament.run.stop.stopping import SettledHook
from arena.stats.stoprule import StopRule, stopping_round
from arena.results.store import StopRecord, Store
from arena.web.report_page import build_report

from bench.simfield import Field, tournament

from tests.support.tournament import ARENA, BOT, REPO, SECRET, bots_running, det_entrants, group_gone, stored_count, wait_for

pytestmark = pytest.mark.process

HEURISTIC = REPO / "sample_bots" / "python" / "kododo_heuristic.py"


def clear_field(rounds: int = 20, delay_ms: float = 0.0, seed: int = 3, **extra: Any) -> dict[str, Any]:
    """The sample heuristic against two hash-driven bots: a clear winner, two equal others."""
    dets = det_entrants(2, delay_ms)
    return {
        "name": "clear",
        "game": "kododo",
        "players": 3,
        "entrants": [{"name": "heur", "command": ["{python}", str(HEURISTIC)]}, *dets],
        "schedule": {"rounds": rounds},
        "seed": seed,
        "stop": {"confidence": 0.95, "min_rounds": 4, "top": 1},
        "sandbox": False,
        **extra,
    }


def identical_field(rounds: int, **extra: Any) -> dict[str, Any]:
    return {
        "name": "same",
        "game": "kododo",
        "players": 3,
        "entrants": det_entrants(3),
        "schedule": {"rounds": rounds},
        "seed": 8,
        "stop": {"confidence": 0.95, "min_rounds": 4},
        "sandbox": False,
        **extra,
    }


def _run(config: Path, *args: str, timeout: float = 180) -> str:
    proc = subprocess.run([*ARENA, "run", "--quiet", "--secret", SECRET, *args, str(config)], capture_output=True, cwd=REPO, timeout=timeout)
    assert proc.returncode == 0, proc.stderr.decode()
    return proc.stdout.decode()


def _standings(store: Path) -> dict[str, Any]:
    result = CliRunner().invoke(main, ["standings", "--json", "--rating-resamples", "0", str(store)])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = loads(result.stdout)
    return data


# --- the config ----------------------------------------------------------------------------------------


def test_stop_parses_into_a_stop_rule_outside_the_fingerprint(write_config: Callable[..., Path]) -> None:
    with_rule = tconfig.load(write_config(clear_field(), "a.yaml"))
    without = clear_field()
    del without["stop"]
    plain = tconfig.load(write_config(without, "b.yaml"))
    assert with_rule.stop == StopRule(confidence=0.95, min_rounds=4, top=1)
    assert plain.stop is None
    assert with_rule.fingerprint() == plain.fingerprint()  # the same games, however many are played
    defaults = tconfig.load(write_config({**clear_field(), "stop": {}}, "c.yaml"))
    assert defaults.stop == StopRule()
    assert tconfig.load(write_config({**clear_field(), "stop": True}, "d.yaml")).stop == StopRule()
    assert tconfig.load(write_config({**clear_field(), "stop": None}, "e.yaml")).stop is None


@pytest.mark.parametrize(
    ("stop", "message"),
    [
        ({"confidence": 1.5}, "stop.confidence: expected a number from 0.5 up to (not including) 1, got a number (1.5)"),
        ({"confidence": "high"}, "stop.confidence: expected a number from 0.5 up to (not including) 1, got a string"),
        ({"min_rounds": 1}, "stop.min_rounds: expected a number >= 2, got 1"),
        ({"top": 0}, "stop.top: expected a number >= 1, got 0"),
        ({"top": "one"}, "stop.top: expected a whole number or null, got a string ('one')"),
        ({"level": 3}, "stop.level: unknown key (expected one of: confidence, min_rounds, top)"),
        ([0.95], "stop: expected a mapping of keys to values, got a list"),
    ],
)
def test_a_bad_stop_section_names_its_key(write_config: Callable[..., Path], stop: Any, message: str) -> None:
    path = write_config({**clear_field(), "stop": stop})
    with pytest.raises(ConfigError) as info:
        tconfig.load(path)
    assert f"{path}: {message}" in str(info.value)


def test_validate_shows_the_stop_rule(write_config: Callable[..., Path]) -> None:
    result = CliRunner().invoke(main, ["validate", str(write_config(clear_field()))])
    assert result.exit_code == 0, result.output
    assert "stop rule: after each round from round 4 on, stop once the top 1 place is ordered with confidence 0.95" in result.output
    without = clear_field()
    del without["stop"]
    result = CliRunner().invoke(main, ["validate", str(write_config(without, "n.yaml"))])
    assert "stop rule: none (every scheduled round is played)" in result.output
    never = {**clear_field(4), "stop": {"min_rounds": 4}}  # e.g. a config shrunk for a trial run
    result = CliRunner().invoke(main, ["validate", str(write_config(never, "never.yaml"))])
    assert result.exit_code == 0, result.output
    assert "stop rule: cannot stop this schedule: stop.min_rounds (4) is not below schedule.rounds (4)" in result.output


# --- real runs -------------------------------------------------------------------------------------------


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc to look for leftover processes")
def test_same_stopping_round_and_standings_at_j1_j2_and_after_sigkill_and_resume(
    write_config: Callable[..., Path], tmp_path: Path
) -> None:
    one = write_config(clear_field(output={"store": "one.sqlite"}), "one.yaml")
    two = write_config(clear_field(output={"store": "two.sqlite"}), "two.yaml")
    killed = write_config(clear_field(delay_ms=15, output={"store": "killed.sqlite"}), "killed.yaml")

    out1 = _run(one, "-j", "1")
    ref = _standings(tmp_path / "one.sqlite")
    assert ref["stop"] is not None, out1
    after = ref["stop"]["after_round"]
    games = ref["stop"]["games"]
    assert 4 <= after + 1 < 20 and games == 3 * (after + 1) and ref["games"] == games  # stopped early
    line = f"stopped after round {after + 1} of 20 by the stop rule: settled after {after + 1} rounds"
    assert line in out1 and f"({60 - games} of 60 scheduled games not played)" in out1
    assert ref["standings"][0]["name"] == "heur"

    out2 = _run(two, "-j", "2")
    assert line in out2
    assert _standings(tmp_path / "two.sqlite") == ref

    store = tmp_path / "killed.sqlite"
    proc = subprocess.Popen([*ARENA, "run", "--quiet", "--secret", SECRET, "-j", "2", str(killed)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True, cwd=REPO)
    try:
        wait_for(lambda: stored_count(store) >= 5, 120, "some games to be stored", proc)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert 5 <= stored_count(store) < games  # killed before the rule could stop it
    wait_for(lambda: group_gone(proc.pid), 30, "the killed run's workers to exit")
    wait_for(lambda: not bots_running(str(tmp_path)), 30, "the killed run's bots to exit")
    resumed = _run(killed, "-j", "2")
    assert line in resumed
    assert _standings(store) == ref

    # A rerun after the stop asks the rule again, gets the same answer and plays nothing.
    again = _run(killed, "-j", "2")
    assert f"{games}/60 games stored" in again and "(0 played now" in again and line in again
    assert stored_count(store) == games


def test_identical_bots_are_not_stopped(write_config: Callable[..., Path], tmp_path: Path) -> None:
    cfg = tconfig.load(write_config(identical_field(8, output={"store": "same.sqlite"})))
    stream = io.StringIO()
    summary = runner.run(cfg, concurrency=2, progress_stream=stream, secret=SECRET)
    assert summary.played == summary.total == 24
    assert summary.stop is None and summary.stopped_after_round is None
    assert summary.stop_state is not None and summary.stop_state.startswith("not settled after 8 rounds")
    assert "stop: stop test from round 4" in stream.getvalue() or "stop: settled 0/2 after" in stream.getvalue()
    result = CliRunner().invoke(main, ["run", "--quiet", str(cfg.path)])
    assert result.exit_code == 0, result.output
    assert "the stop rule did not stop the run: not settled after 8 rounds" in result.output
    with Store.open_existing(cfg.store) as store:
        assert store.stop() is None and store.info().counted_games == 24


def test_the_progress_line_shows_the_stop_test(write_config: Callable[..., Path]) -> None:
    cfg = tconfig.load(write_config(clear_field(output={"store": "p.sqlite"})))
    stream = io.StringIO()
    summary = runner.run(cfg, concurrency=1, progress_stream=stream, secret=SECRET)
    assert summary.stop is not None
    last = stream.getvalue().strip().splitlines()[-1]
    assert last.startswith(f"[") and f"{summary.stop.games}/60 games" in last
    assert last.endswith(f"stop: settled 1/1 after {summary.stop.after_round + 1} rounds, STOP")


def test_games_of_later_rounds_stored_without_the_rule_are_not_counted(
    write_config: Callable[..., Path], tmp_path: Path
) -> None:
    # The reference: a run with the rule, stopped early.
    stopped = tconfig.load(write_config(clear_field(10, seed=4, output={"store": "ref.sqlite"}), "ref.yaml"))
    ref = runner.run(stopped, concurrency=1, quiet=True, secret=SECRET)
    assert ref.stop is not None and ref.played == ref.stop.games < 30
    # The same games, all 10 rounds played by a run without the rule; then a run with it.
    full = clear_field(10, seed=4, output={"store": "all.sqlite"})
    del full["stop"]
    whole = runner.run(tconfig.load(write_config(full, "all.yaml")), concurrency=2, quiet=True, secret=SECRET)
    assert whole.played == 30 and whole.stop is None
    ruled = tconfig.load(write_config(clear_field(10, seed=4, output={"store": "all.sqlite"}), "ruled.yaml"))
    later = runner.run(ruled, concurrency=2, quiet=True, secret=SECRET)
    assert later.played == 0 and later.stop == ref.stop
    assert later.standings == ref.standings != whole.standings
    assert _standings(tmp_path / "all.sqlite")["standings"] == _standings(tmp_path / "ref.sqlite")["standings"]
    with Store.open_existing(tmp_path / "all.sqlite") as store:
        assert [g.index for g in store.counted_games()] == list(range(ref.stop.games))
        assert store.info().stored_games == 30
    text = CliRunner().invoke(main, ["standings", "--rating-resamples", "0", str(tmp_path / "all.sqlite")]).output
    assert f"clear (kododo): {ref.stop.games}/30 games\n{ref.stop.line()}\n" in text
    page = build_report(tmp_path / "all.sqlite", tmp_path / "report", viewers=False)
    assert page.games == ref.stop.games
    html = page.index.read_text(encoding="utf-8")
    assert f"{ref.stop.games}/30 games" in html and f"stopped after round {ref.stop.after_round + 1} of 10" in html
    # Without the rule again, the run counts every game it holds.
    plain = runner.run(tconfig.load(write_config(full, "all.yaml")), concurrency=1, quiet=True, secret=SECRET)
    assert plain.stop is None and plain.standings == whole.standings


# --- the final table ----------------------------------------------------------------------------------------


def _standing(place: int, name: str) -> Standing:
    return Standing(place, name, 10.0 - place, 25.0, 2.0, 12, 3.0, 20.5, 2.1, 0)


def test_the_standings_table_cleans_names_so_columns_stay_aligned() -> None:
    hostile = "evil\x1b[2J\x1b[31mred\x1b]0;title\x07\r\nX"
    text = report.table([_standing(1, hostile), _standing(2, "plain")])
    assert "\x1b" not in text and "\r" not in text and "\x07" not in text
    lines = text.splitlines()
    assert len(lines) == 4  # header, rule, two rows: the newline in the name did not add a line
    score_column = lines[0].index("mu-3sigma") + len("mu-3sigma")
    assert all(line[score_column - 4 : score_column] in {"igma", "----", "9.00", "8.00"} for line in lines)
    assert "evilred" in lines[2]


def test_arena_run_prints_a_clean_table_for_a_name_with_an_escape_code(write_config: Callable[..., Path]) -> None:
    data = identical_field(1, output={"store": "esc.sqlite"})
    del data["stop"]
    data["entrants"][0]["name"] = "bad\x1b[31mname"
    result = CliRunner().invoke(main, ["run", "--quiet", "-j", "1", str(write_config(data))])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("#  entrant"))
    table = lines[start : start + 5]  # header, rule, three entrants
    assert "\x1b" not in result.output and "badname" in result.output
    assert len({len(line) for line in table}) == 1, table  # the last column is right-aligned: every line ends together


# --- the hook against the pure rule --------------------------------------------------------------------------


@pytest.mark.parametrize("strengths", [(0.0, 1.0, 2.0, 3.0), (0.0, 0.0, 0.0, 2.0), (0.0, 0.0, 0.0, 0.0)])
@pytest.mark.parametrize("top", [None, 1])
def test_the_hook_asked_round_by_round_stops_where_the_pure_rule_does(strengths: tuple[float, ...], top: int | None) -> None:
    rounds = 24
    games = tournament(Field(strengths, seats=4), rounds, seed=5)
    rule = StopRule(0.95, 4, top)
    hook = SettledHook(rule, [f"e{i}" for i in range(4)], rounds)
    stopped_after = None
    for r in range(rounds):
        done = [RoundGame(g.index, g.round, g.table, g.seats, g.ranks) for g in games if g.round <= r]
        if hook(RoundEnd(r, rounds, len(done), RatingBook.new(RatingModel(), 4), done)):
            stopped_after = r
            break
    expected = stopping_round(games, 4, rounds, rule)
    assert (stopped_after + 1 if stopped_after is not None else rounds) == expected
    if strengths == (0.0, 1.0, 2.0, 3.0) or (top == 1 and strengths[-1] > 0):
        assert stopped_after is not None  # a clear field (or a clear winner, with top 1) is stopped early
    if stopped_after is not None:
        assert hook.stopped is not None and hook.progress().endswith("STOP") and hook.state().startswith("settled after")
        record = hook.record(stopped_after, 999)
        assert StopRecord.from_json(record.to_json()) == record
