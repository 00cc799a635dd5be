"""Whole games through the referee: sample bots, parallel steps, the messages sent, replays, the CLI."""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.cli import main
from arena.errors import BotStartError, ReplayError
from arena.jsonvalue import dumps_line
from arena.protocol import SCHEMA_PATH
from arena.referee.session import BotSpec
from arena.core.time_control import TimeControl
from arena.core.faults import FaultKind
from arena.referee.referee import play_game
from arena.replay import read_replay
from arena.audit.verify import verify_replay

from tests.support.bots import JS_BOT, PY_BOT, bad_spec, c_spec

pytestmark = pytest.mark.process

SCHEMA = json.loads(SCHEMA_PATH.read_text())


def test_sample_bots_in_three_languages_play_kododo_via_arena_play(c_bot, tmp_path):
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    replay = tmp_path / "game.jsonl"
    runner = CliRunner()
    bots = [f"{c_bot} 1", f"node {JS_BOT} 2", f"{sys.executable} {PY_BOT} 3", f"{c_bot} 4"]
    args = ["play", "kododo", "--seed", "11", "--replay", str(replay)]
    for bot in bots:
        args += ["--bot", bot]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "random-c" in result.output and "random-js" in result.output and "random-py" in result.output
    assert "rank 1" in result.output and "FAULT" not in result.output
    records = read_replay(replay)
    assert records[-1]["type"] == "result" and records[-1]["faults"] == []
    assert sum(1 for r in records if r["type"] == "decision" and r["source"] == "bot") == records[-1]["decisions"]
    verified = runner.invoke(main, ["verify", str(replay)])
    assert verified.exit_code == 0 and verified.output.startswith("ok:"), verified.output


def test_arena_play_json_output_and_options(c_bot):
    result = CliRunner().invoke(
        main, ["play", "kododo", "--bot", c_bot, "--bot", c_bot, "--seed", "5", "--option", "long=true", "--quiet", "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["options"]["long"] is True and data["seed"] == 5 and data["close_faults"] == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "nogame", "--bot", "x"], "unknown game 'nogame'"),
        (["play", "kododo", "--bot", "x"], "is for 2 to 5 players, got 1"),
        (["play", "kododo", "--bot", "/no/such/bot", "--bot", "/no/such/bot"], "not found"),
        (["play", "kododo", "--bot", "'unbalanced", "--bot", "x"], "check its quotes"),
        (["play", "kododo", "--bot", "x", "--bot", "x", "--option", "nope=1"], "has no option 'nope'"),
        (["play", "kododo", "--bot", "x", "--bot", "x", "--option", "target"], "NAME=VALUE"),
        (["verify", "/no/such/replay.jsonl"], "cannot read the replay"),
    ],
)
def test_bad_input_gives_one_clear_line_and_a_non_zero_exit(args, message):
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_arena_play_closes_every_bot_even_when_ctrl_c_cuts_a_close_short(c_bot, monkeypatch):
    from arena.cli import play as play_cli
    from arena.referee.session import BotProcess

    from tests.support.bots import assert_group_gone

    started: list[BotProcess] = []
    real_start, real_close = BotProcess.start, BotProcess.close  # (compiled, a classmethod has no __func__)

    def start(cls, *args, **kwargs):
        bot = real_start(*args, **kwargs)
        started.append(bot)
        return bot

    def close(self):
        real_close(self)
        if self is started[0]:
            raise KeyboardInterrupt  # the second Ctrl-C, while the first bot was being closed

    def interrupted_game(*args, **kwargs):
        raise KeyboardInterrupt  # the first Ctrl-C, during the game

    monkeypatch.setattr(BotProcess, "start", classmethod(start))
    monkeypatch.setattr(BotProcess, "close", close)
    monkeypatch.setattr(play_cli, "play_game", interrupted_game)
    try:
        result = CliRunner().invoke(main, ["play", "kododo", "--bot", c_bot, "--bot", c_bot, "--bot", c_bot])
        assert isinstance(result.exception, KeyboardInterrupt) or result.exit_code != 0
        assert len(started) == 3
        for bot in started:
            assert_group_gone(bot.pgid)
    finally:
        for bot in started:
            real_close(bot)


def test_a_bot_that_dies_in_the_handshake_is_reported_with_its_stderr():
    code = "import sys; sys.stderr.write('missing model file\\n'); sys.exit(5)"
    with pytest.raises(BotStartError, match=r"exited with status 5 during the handshake.*missing model file"):
        from arena.referee.session import BotProcess

        BotProcess.start(BotSpec("dies", (sys.executable, "-c", code)))


def test_a_silent_bot_fails_the_startup_allowance():
    from arena.referee.session import BotProcess
    from arena.referee.process import group_alive

    started = time.monotonic()
    with pytest.raises(BotStartError, match="no hello within the start-up allowance of 300 ms"):
        BotProcess.start(BotSpec("mute", (sys.executable, "-c", "import time; time.sleep(30)")), TimeControl(startup_ms=300))
    assert time.monotonic() - started < 2


def test_a_bad_hello_is_refused():
    from arena.referee.session import BotProcess

    code = "import sys; sys.stdin.readline(); print('{\"type\": \"hello\", \"protocol\": 9, \"name\": \"x\"}', flush=True); sys.stdin.read()"
    with pytest.raises(BotStartError, match="speaks protocol 9"):
        BotProcess.start(BotSpec("old", (sys.executable, "-c", code)))


def test_four_bots_sleeping_200ms_finish_a_simultaneous_step_in_parallel(start_bots):
    bots = start_bots(*[bad_spec("sleep", SLEEP_STEPS="1") for _ in range(4)])
    started = time.monotonic()
    result = play_game("kododo", bots, seed=1)
    elapsed = time.monotonic() - started
    assert result.faults == ()
    assert elapsed < 0.6, f"the first step alone should take about 200 ms, the game took {elapsed:.3f} s"


def test_every_message_the_referee_sends_validates_against_the_schema(start_bots, c_bot, tmp_path):
    logs = [tmp_path / f"seat{i}.jsonl" for i in range(3)]
    tc = TimeControl(decision_ms=2000, bank_ms=60_000, increment_ms=5, shutdown_ms=500)
    bots = start_bots(
        bad_spec("record", BOT_LOG=str(logs[0])),
        bad_spec("record", BOT_LOG=str(logs[1])),
        bad_spec("illegal"),  # so that end messages carry faults
        time_control=tc,
    )
    for seed in (1, 2):  # two games on the same processes
        play_game("kododo", bots, seed=seed, time_control=tc, options={"long": seed == 2})
    for bot in bots:
        bot.close()
    check = jsonschema.Draft202012Validator(SCHEMA)
    for seat, log in enumerate(logs[:2]):
        lines = [json.loads(line)["line"] for line in log.read_text().splitlines()]
        messages = [json.loads(line) for line in lines]
        for message in messages:
            check.validate(message)
        types = [m["type"] for m in messages]
        assert types[0] == "hello" and types[-1] == "shutdown"
        assert types.count("start") == 2 and types.count("end") == 2
        requests = [m for m in messages if m["type"] == "request"]
        assert len({r["id"] for r in requests}) == len(requests)  # ids never repeat on a process
        assert all(r["seat"] == seat and r["legal"] for r in requests)
        banks = [r["clock"]["bank_ms"] for r in requests]
        assert banks[0] == 60_000 and all(b > 59_000 for b in banks) and len(set(banks)) > 1  # charged, incremented
        ends = [m for m in messages if m["type"] == "end"]
        assert ends[0]["result"]["faults"] == [{"seat": 2, "kind": "illegal_action"}]  # it errs once only
        assert ends[1]["result"]["faults"] == []
        # Events reach a seat only after the step: the first request of a game has none.
        firsts = [m for i, m in enumerate(messages) if m["type"] == "request" and messages[i - 1]["type"] == "start"]
        assert all(r["events"] == [] for r in firsts)
        assert all(line.encode() == dumps_line(json.loads(line)) for line in lines)  # canonical encoding


@pytest.fixture(scope="module")
def replays(tmp_path_factory, c_bot) -> list[Path]:
    """Replays of random games of every player count, with C bots (and one with faults)."""
    from arena.referee.session import BotProcess

    out = tmp_path_factory.mktemp("replays")
    paths = []
    for players in (2, 3, 4, 5):
        bots = [BotProcess.start(c_spec(c_bot, 100 + i)) for i in range(players)]
        try:
            for seed in (players, players * 7):
                path = out / f"p{players}-s{seed}.jsonl"
                play_game("kododo", bots, seed=seed, replay_path=path)
                paths.append(path)
        finally:
            for bot in bots:
                bot.close()
    bots = [BotProcess.start(c_spec(c_bot, 1)), BotProcess.start(bad_spec("illegal")), BotProcess.start(bad_spec("crash", BAD_AT="3"))]
    try:
        path = out / "faults.jsonl"
        result = play_game("kododo", bots, seed=3, replay_path=path)
        assert [f.kind for f in result.faults] == [FaultKind.ILLEGAL_ACTION, FaultKind.CRASH]
        paths.append(path)
    finally:
        for bot in bots:
            bot.close()
    return paths


def test_verify_passes_on_replays_of_random_games(replays):
    for path in replays:
        report = verify_replay(path)
        assert report.steps > 0 and report.decisions >= report.steps


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_verify_fails_when_one_action_is_changed(replays, tmp_path, data):
    path = data.draw(st.sampled_from(replays))
    lines = path.read_text().splitlines()
    decisions = [i for i, line in enumerate(lines) if json.loads(line)["type"] == "decision"]
    index = data.draw(st.sampled_from(decisions))
    record = json.loads(lines[index])
    played = record["played"]
    # Another action of the right shape: a different card (or two).
    cards = ["B1", "G2", "Y3", "O4", "V5", "B6", "G1"]
    other = [c for c in cards if c not in played]
    changed = data.draw(st.permutations(other).map(lambda p: sorted(p[: len(played)])))
    record["played"] = changed
    if data.draw(st.booleans()) and "answer" in record:
        record["answer"] = changed  # a consistent forgery: the commitment still catches it
    lines[index] = json.dumps(record)
    forged = tmp_path / "forged.jsonl"
    forged.write_text("\n".join(lines) + "\n")
    with pytest.raises(ReplayError, match=f"line {index + 1}:"):  # the first mismatch is the forged line
        verify_replay(forged)
    result = CliRunner().invoke(main, ["verify", str(forged)])
    assert result.exit_code != 0 and "arena: error:" in result.output


def test_verify_reports_a_cut_short_replay(replays, tmp_path):
    lines = replays[0].read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:-1]) + "\n")
    with pytest.raises(ReplayError, match="no result record"):
        verify_replay(cut)


def test_verify_reports_a_header_whose_seats_are_not_objects(replays, tmp_path):
    lines = replays[0].read_text().splitlines()
    header = json.loads(lines[0])
    header["seats"] = [seat["name"] for seat in header["seats"]]
    lines[0] = json.dumps(header)
    forged = tmp_path / "forged.jsonl"
    forged.write_text("\n".join(lines) + "\n")
    with pytest.raises(ReplayError, match="line 1, 'seats': must be an object"):
        verify_replay(forged)


def test_resource_limits_are_set_in_the_child(start_bots, c_bot):
    from arena.core.limits import Limits

    (bot,) = start_bots(c_spec(c_bot, 1), limits=Limits(cpu_seconds=7, memory_mb=512))
    limits = Path(f"/proc/{bot.pid}/limits").read_text()
    cpu = next(line for line in limits.splitlines() if line.startswith("Max cpu time")).split()
    memory = next(line for line in limits.splitlines() if line.startswith("Max address space")).split()
    assert cpu[3:5] == ["7", "8"]
    assert memory[3:5] == [str(512 * 1024 * 1024)] * 2


def test_a_bot_over_its_memory_limit_crashes_alone(start_bots, c_bot):
    from arena.core.limits import Limits

    hog = BotSpec("hog", (sys.executable, "-c", (
        "import sys, json\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'hello': print(json.dumps({'type': 'hello', 'protocol': 1, 'name': 'hog'}), flush=True)\n"
        "    elif m['type'] == 'request': x = bytearray(400 * 1024 * 1024)\n"
    )))
    bots = start_bots(c_spec(c_bot, 1), hog, limits=Limits(memory_mb=200))
    result = play_game("kododo", bots, seed=2)
    assert [(f.seat, f.kind) for f in result.faults] == [(1, FaultKind.CRASH)]
    assert any("MemoryError" in line for line in result.faults[0].stderr_tail)


@pytest.mark.parametrize("game", [spec.name for spec in __import__("arena.games", fromlist=["all_games"]).all_games()])
def test_the_referee_plays_and_verifies_every_registered_game(start_bots, c_bot, tmp_path, game):
    """Sequential, simultaneous and mixed games alike: the referee knows only the game contract."""
    bots = start_bots(c_spec(c_bot, 1), c_spec(c_bot, 2))
    path = tmp_path / "game.jsonl"
    result = play_game(game, bots, seed=4, replay_path=path)
    assert result.faults == ()
    report = verify_replay(path)
    assert report.decisions == result.decisions
