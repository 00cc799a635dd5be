"""Attacks of a participant who has read arena's source, as real bots under the defaults (issue 21).

Each attack bot (bots/attack_bot.py) puts its verdict in its hello's `version`, which the replay's
header records; each test also runs the control, the same attack with the protection off, and sees
it succeed, so that the test can fail.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from arena.referee.session import BotProcess, BotSpec
from arena.core.time_control import TimeControl
from arena.core.faults import FaultKind
from arena.referee.referee import play_game
from arena.sandbox.policy import SandboxPolicy
from arena.sandbox.view import inner_path

from .conftest import ROOT

ATTACK = Path(__file__).with_name("bots") / "attack_bot.py"
ARENA = str(Path(sys.executable).with_name("arena"))
TC = TimeControl(decision_ms=5000, shutdown_ms=300)


def versions(replay: Path) -> list[str]:
    header = json.loads(replay.read_text().splitlines()[0])
    return [seat["version"] for seat in header["seats"]]


def play(bot: str, cwd: Path, replay: Path, c_bot: str, *flags: str, env: dict[str, str] | None = None) -> str:
    """`arena play` as a user runs it, in the bot's folder; the attack bot's verdict."""
    done = subprocess.run([ARENA, "play", "kododo", "--bot", bot, "--bot", c_bot, "--option", "max_deals=1", "--quiet",
                           "--replay", str(replay), *flags], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return versions(replay)[0]


def bot_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "bot"
    folder.mkdir()
    shutil.copy(ATTACK, folder / "attack_bot.py")
    return folder


def test_a_rerun_of_play_does_not_show_the_bot_the_replay_in_its_folder(tmp_path, c_bot):
    folder = bot_folder(tmp_path)
    replay = folder / "game.jsonl"
    play("python3 attack_bot.py walk", folder, replay, c_bot)  # the first game leaves its replay there
    assert play("python3 attack_bot.py walk", folder, replay, c_bot) == "clean"
    assert play("python3 attack_bot.py walk", folder, replay, c_bot, "--no-sandbox").startswith("leak")  # control


def test_an_interpreter_in_the_organisers_home_bin_does_not_show_the_home(tmp_path, c_bot):
    home = tmp_path / "home"
    (home / "bin").mkdir(parents=True)
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY")
    (home / "bin" / "python3").symlink_to(os.path.realpath(sys.executable))
    env = {**os.environ, "HOME": str(home), "PATH": f"{home / 'bin'}:{os.environ['PATH']}"}
    folder = bot_folder(tmp_path)
    replay = tmp_path / "game.jsonl"
    assert play("python3 attack_bot.py walk", folder, replay, c_bot, env=env) == "clean"
    assert play("python3 attack_bot.py walk", folder, replay, c_bot, "--no-sandbox", env=env).startswith("leak")


def tournament(root: Path, entrant: dict[str, object], c_bot: str, sandbox: bool = True) -> list[str]:
    config = {"game": "kododo", "players": 2, "sandbox": sandbox, "seed": 1,
              "entrants": [entrant, {"name": "c", "command": [c_bot, "1"]}],
              "schedule": {"rounds": 1, "rotations": "none"}, "options": {"max_deals": 1},
              "output": {"store": "out/cup.sqlite", "replays": "out/replays"}}
    (root / "cup.yaml").write_text(json.dumps(config))
    done = subprocess.run([ARENA, "run", "cup.yaml", "--fresh", "--quiet"], cwd=root, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return [versions(r)[0] for r in sorted((root / "out" / "replays").glob("*.jsonl"))]


def test_a_tournament_root_that_is_a_venv_is_not_shown_as_a_runtime(tmp_path, c_bot):
    root = tmp_path / "cup"
    (root / "bin").mkdir(parents=True)
    (root / "bin" / "python").symlink_to(os.path.realpath(sys.executable))
    (root / "pyvenv.cfg").write_text(f"home = {Path(os.path.realpath(sys.executable)).parent}\n")
    (root / "bots").mkdir()
    shutil.copy(ATTACK, root / "bots" / "attack_bot.py")
    entrant = {"name": "venv-bot", "command": ["bin/python", "bots/attack_bot.py", "walk"]}
    assert tournament(root, entrant, c_bot) == ["clean"]
    assert tournament(root, entrant, c_bot, sandbox=False)[0].startswith("leak")  # control: the config, the store


def test_a_program_in_a_folder_named_bin_is_not_taken_for_a_runtime(tmp_path, c_bot):
    root = tmp_path / "cup"
    (root / "bin").mkdir(parents=True)
    script = root / "bin" / "mybot"
    script.write_text("#!/usr/bin/env python3\n" + ATTACK.read_text())
    script.chmod(0o755)
    entrant = {"name": "bin-bot", "command": ["bin/mybot", "walk"]}
    assert tournament(root, entrant, c_bot) == ["clean"]
    assert tournament(root, entrant, c_bot, sandbox=False)[0].startswith("leak")


def test_entrants_sharing_a_folder_are_refused_unless_they_say_so(tmp_path):
    (tmp_path / "bots").mkdir()
    for name in ("a.py", "b.py"):
        (tmp_path / "bots" / name).write_text("")
    entrants = [{"name": n, "command": ["python3", f"bots/{n}.py"]} for n in "ab"]
    (tmp_path / "t.yaml").write_text(json.dumps({"game": "kododo", "players": 2, "entrants": entrants}))
    done = subprocess.run([ARENA, "validate", "t.yaml"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 2 and "share the folder" in done.stderr and "shared_folder: true" in done.stderr
    for e in entrants:
        e["sandbox"] = {"shared_folder": True}
    (tmp_path / "t.yaml").write_text(json.dumps({"game": "kododo", "players": 2, "entrants": entrants}))
    done = subprocess.run([ARENA, "validate", "t.yaml"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and "WARNING" in done.stderr and "share the folder" in done.stderr
    from arena.tournament.config import tournament as tconfig

    a, b = tconfig.load(tmp_path / "t.yaml").entrants
    assert str(tmp_path / "bots" / "b.py") in a.sandbox.hide and str(tmp_path / "bots" / "a.py") in b.sandbox.hide
    assert str(tmp_path / "bots" / "a.py") not in a.sandbox.hide


def test_the_sandbox_init_command_line_lists_no_host_paths(tmp_path, c_bot):
    folder = bot_folder(tmp_path)
    replay = tmp_path / "game.jsonl"
    assert play("python3 attack_bot.py cmdline", folder, replay, c_bot) == "clean"
    assert play("python3 attack_bot.py self", folder, replay, c_bot).startswith("leak")  # control: the detector works


def test_path_inside_holds_only_folders_the_bot_sees(tmp_path):
    (tmp_path / "secret-tools").mkdir()
    shown = [str(tmp_path / "bot")]
    assert inner_path(f"{tmp_path / 'secret-tools'}:/usr/bin:/bin", shown) == "/usr/bin:/bin"


def lock_game(c_bot: str, policy: SandboxPolicy) -> str:
    bots = []
    try:
        bots.append(BotProcess.start(BotSpec("send", (sys.executable, str(ATTACK), "lock-send", "1010"), sandbox=policy), TC))
        bots.append(BotProcess.start(BotSpec("recv", (sys.executable, str(ATTACK), "lock-recv"), sandbox=policy), TC))
        bots.append(BotProcess.start(BotSpec("c", (c_bot, "1"), sandbox=SandboxPolicy()), TC))
        return bots[1].version
    finally:
        for bot in bots:
            bot.close()


def test_two_colluding_bots_cannot_signal_through_file_locks(c_bot):
    assert lock_game(c_bot, SandboxPolicy()) == "refused"
    assert lock_game(c_bot, SandboxPolicy(refuse_locks=False)) == "got1010"  # control: the channel works


def test_a_bot_that_closes_its_stdout_is_one_crash_not_a_series_of_timeouts(c_bot, tmp_path):
    for policy in (SandboxPolicy(), SandboxPolicy(enabled=False)):  # as without the sandbox
        bots = [BotProcess.start(BotSpec("closer", (sys.executable, str(ATTACK), "close-stdout"), sandbox=policy), TC),
                BotProcess.start(BotSpec("c", (c_bot, "1"), sandbox=SandboxPolicy()), TC)]
        try:
            result = play_game("kododo", bots, seed=1, time_control=TimeControl(decision_ms=200, shutdown_ms=300))
        finally:
            for bot in bots:
                bot.close()
        kinds = [f.kind for f in result.faults]
        assert kinds == [FaultKind.CRASH], (policy.enabled, kinds)


def faults_of_innocents(tmp_path: Path, c_bot: str, hog: bool, cpus: object) -> int:
    """Faults charged to three innocent C bots in a real tournament at -j 2, with or without a hog
    whose 40 children each setsid() and spin."""
    root = tmp_path / f"cpu-{hog}-{cpus}"
    (root / "hog").mkdir(parents=True)
    shutil.copy(ATTACK, root / "hog" / "attack_bot.py")
    sandbox = {"cpus": cpus}
    entrants = [{"name": f"innocent{i}", "command": [c_bot, str(i)], "sandbox": sandbox} for i in range(3)]
    if hog:
        entrants.append({"name": "hog", "command": ["python3", "hog/attack_bot.py", "hog", "40"], "sandbox": sandbox})
    else:
        entrants.append({"name": "innocent3", "command": [c_bot, "3"], "sandbox": sandbox})
    config = {"game": "kododo", "players": 2, "entrants": entrants, "seed": 5, "concurrency": 2,
              "schedule": {"format": "round-robin", "rotations": "none", "rounds": 2}, "options": {"max_deals": 2},
              "time_control": {"decision_ms": 20}, "fault_policy": "continue", "output": {"store": "out/cup.sqlite"}}
    (root / "cup.yaml").write_text(json.dumps(config))
    done = subprocess.run([ARENA, "run", "cup.yaml", "--fresh", "-j", "2"], cwd=root, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines() if re.match(r"^\d+\s+innocent", line)]
    assert len(rows) == 3 + (not hog), done.stdout
    return sum(int(row[-1]) for row in rows if row[1] != "innocent3")


def test_a_hog_whose_children_setsid_and_spin_does_not_starve_other_games_bots(tmp_path, c_bot):
    quiet = faults_of_innocents(tmp_path, c_bot, hog=False, cpus=1)
    bounded = faults_of_innocents(tmp_path, c_bot, hog=True, cpus=1)
    unbounded = faults_of_innocents(tmp_path, c_bot, hog=True, cpus=None)  # control: no cpu cgroup
    assert unbounded >= 10 and bounded * 4 <= unbounded, (quiet, bounded, unbounded)
