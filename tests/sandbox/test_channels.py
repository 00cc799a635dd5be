"""Item 8 of issue 36: a bot that meets a deal twice learns it through host state no sandbox separates.

Real colluding bots (bots/channel_bot.py), under the sandbox's defaults:
- the page cache of a large read-only file under /usr, between two processes one after the other:
  `arena run -j 1` with `deals: shared` (the control: the same entrant plays a deal's second seating
  right after its first) decodes the opponent's hand; with the default schedule (`deals: spread`) no
  entrant meets a deal twice, and no claim is ever the opponent's hand;
- /proc/meminfo's machine-wide `Shmem`, between two processes alive at once on one deal (two games
  of a shared deal at `-j 2`, or two colluding entrants at different tables of a spread one): the
  control (`hide_counters=False`) decodes the hand; the sandbox's static /proc counters stop it; the
  same counter through sysinfo(2) decodes it without the seccomp filter, which refuses the call.
Every claim is checked against the deal itself (the game rebuilt from the replay's seed).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from arena.core.time_control import TimeControl
from arena.games.registry import get_game
from arena.referee.referee import play_game
from arena.referee.session import BotProcess, BotSpec
from arena.sandbox.policy import SandboxPolicy

from .conftest import ROOT

pytestmark = [pytest.mark.sandbox, pytest.mark.process, pytest.mark.slow]

BOT = Path(__file__).with_name("bots") / "channel_bot.py"
ARENA = str(Path(sys.executable).with_name("arena"))


def bot_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "spy"
    folder.mkdir(parents=True)
    shutil.copy(BOT, folder / "channel_bot.py")
    shutil.copy(ROOT / "sample_bots" / "python" / "arenabot.py", folder / "arenabot.py")
    return folder


def hand_at_start(header: dict, seat: int) -> list[str]:
    state = get_game(header["game"]).new_game(len(header["seats"]), header["options"], header["seed"])
    return [str(c) for c in state.view(seat)["hand"]]  # type: ignore[union-attr]


def claims(replay: Path, entrant: str) -> list[tuple[list[str], list[str]]]:
    """(what the entrant claimed, the hand its opponent really held) in one game of a replay."""
    lines = [json.loads(line) for line in replay.read_text().splitlines()]
    header = lines[0]
    seat = next(s["seat"] for s in header["seats"] if s["entrant"] == entrant)
    out = []
    for record in lines:
        if record.get("type") == "log" and record["seat"] == seat:
            for text in record["lines"]:
                if text.startswith("claim "):
                    out.append((text.split(" ", 1)[1].split(","), hand_at_start(header, 1 - seat)))
    return out


def tournament(root: Path, c_bot: str, deals: str | None) -> tuple[int, int]:
    """`arena run -j 1` of the spy against a random bot; (claims equal to the opponent's hand, games)."""
    schedule: dict[str, object] = {"rounds": 3}
    if deals is not None:
        schedule["deals"] = deals
    config = {"game": "kododo", "players": 2, "seed": 11,
              "entrants": [{"name": "spy", "command": ["python3", "spy/channel_bot.py", "pagecache"]},
                           {"name": "rnd", "command": [c_bot, "1"]}],
              "schedule": schedule, "options": {"max_deals": 1},
              "output": {"store": "out/cup.sqlite", "replays": "out/replays", "keep_logs": True}}
    (root / "cup.yaml").write_text(json.dumps(config))
    done = subprocess.run([ARENA, "run", "cup.yaml", "--fresh", "--quiet", "-j", "1"], cwd=root, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "not sandboxed" not in done.stderr
    replays = sorted((root / "out" / "replays").glob("*.jsonl"))
    found = [c for r in replays for c in claims(r, "spy")]
    return sum(1 for claim, real in found if claim == real), len(replays)


def test_the_page_cache_of_a_file_under_usr_leaks_a_hand_only_to_an_entrant_that_meets_the_deal_twice(tmp_path, c_bot):
    root = tmp_path / "cup"
    bot_folder(root)
    right, games = tournament(root, c_bot, "shared")  # the control: today's schedule, each deal twice
    assert games == 6 and right >= 2, right  # measured: 3 of 3 second seatings (the first ones have no deal to read)
    right, games = tournament(root, c_bot, None)  # the default: spread deals
    assert games == 6 and right == 0


def shmem_pair(tmp_path: Path, c_bot: str, policy: SandboxPolicy, *how: str) -> tuple[str, str]:
    """Two games of one deal at once: the encoder in seat 0 of one, the decoder in seat 1 of the other
    (so its opponent holds the encoder's cards); (the encoder's hand, the decoder's claim)."""
    folder = bot_folder(tmp_path / f"{policy.hide_counters}-{policy.refuse_locks}-{'-'.join(how)}")
    tc = TimeControl(decision_ms=2000, shutdown_ms=500)
    bots: list[BotProcess] = []
    try:
        enc = BotProcess.start(BotSpec("enc", ("python3", str(folder / "channel_bot.py"), "shmem", "encode"), sandbox=policy), tc)
        dec = BotProcess.start(BotSpec("dec", ("python3", str(folder / "channel_bot.py"), "shmem", "decode", *how), sandbox=policy), tc)
        bots += [enc, dec]
        c1 = BotProcess.start(BotSpec("c1", (c_bot, "1"), sandbox=SandboxPolicy()), tc)
        c2 = BotProcess.start(BotSpec("c2", (c_bot, "2"), sandbox=SandboxPolicy()), tc)
        bots += [c1, c2]
        games = [threading.Thread(target=play_game, args=("kododo", seats), kwargs={"seed": 5, "time_control": tc,
                                                                                   "options": {"max_deals": 1}})
                 for seats in ([enc, c1], [c2, dec])]
        for g in games:
            g.start()
        for g in games:
            g.join(timeout=120)
        hand = next(line for line in enc.stderr_tail() if line.startswith("hand "))[5:]
        claim = next((line for line in dec.stderr_tail() if line.startswith("claim ")), "claim ?")[6:]
        return hand, claim
    finally:
        for bot in bots:
            bot.close()


def test_two_processes_alive_at_once_cannot_signal_through_proc_meminfo(tmp_path, c_bot):
    truth = ",".join(hand_at_start({"game": "kododo", "seats": [0, 1], "options": {"max_deals": 1}, "seed": 5}, 0))
    hand, claim = shmem_pair(tmp_path, c_bot, SandboxPolicy(hide_counters=False))  # the control
    assert hand == truth and claim == truth, (hand, claim)
    hand, claim = shmem_pair(tmp_path, c_bot, SandboxPolicy())
    assert hand == truth and claim == "?", (hand, claim)


def test_nor_through_sysinfo(tmp_path, c_bot):
    """sysinfo(2)'s `sharedram` is the same machine-wide counter: the seccomp filter refuses the call."""
    truth = ",".join(hand_at_start({"game": "kododo", "seats": [0, 1], "options": {"max_deals": 1}, "seed": 5}, 0))
    hand, claim = shmem_pair(tmp_path, c_bot, SandboxPolicy(refuse_locks=False), "sysinfo")  # the control: no filter
    assert hand == truth and claim == truth, (hand, claim)
    hand, claim = shmem_pair(tmp_path, c_bot, SandboxPolicy(), "sysinfo")
    assert hand == truth and claim == "?", (hand, claim)


def test_runtimes_start_and_read_the_static_counters(tmp_path):
    """The files bound over /proc are well-formed: python reads them; they show the bot's memory limit
    and no machine-wide activity."""
    from arena.sandbox.launch import Launch

    script = ("import os; m=open('/proc/meminfo').read(); print(m.split()[1], "
              "[l for l in m.splitlines() if l.startswith('Shmem:')][0].split()[1], open('/proc/loadavg').read().split()[0], "
              "os.cpu_count() > 0, open('/proc/pressure/cpu').read().split()[1] if os.path.exists('/proc/pressure/cpu') else 'avg10=0.00')")
    launch = Launch.prepare("probe", ["python3", "-c", script], None, {}, SandboxPolicy(), None, 512)
    proc = launch.popen()
    try:
        out, err = proc.communicate(timeout=60)
    finally:
        launch.finish()
    assert out.split() == [b"524288", b"0", b"0.00", b"True", b"avg10=0.00"], (out, err)
