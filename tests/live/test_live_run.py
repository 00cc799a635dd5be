"""Live frames from real worker processes: `arena run` with a live board (what `--watch` gives it)
gets each game's frames from its local pool's workers over their own live pipes, while the bots, as
they start, hold no descriptor but their stdin, stdout and stderr (the live pipe is not a wire a bot
can read); and `arena run --watch` prints its page's link, which answers while the run plays."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from arena.jsonvalue import dumps_str, loads
from arena.live.board import LiveBoard
from arena.live.frame import LiveFrame
from arena.tournament.config.tournament import load
from arena.tournament.run import runner

pytestmark = [pytest.mark.process]

ROOT = Path(__file__).resolve().parents[2]
FD_BOT = """
import os, sys
fds = sorted(int(f) for f in os.listdir("/proc/self/fd"))
with open(sys.argv[1], "a") as out:
    out.write(" ".join(map(str, fds)) + "\\n")
os.execv(sys.executable, [sys.executable, sys.argv[2], "1"])
"""


def _config(tmp: Path, rounds: int, bot: list[str]) -> Path:
    path = tmp / "t.yaml"
    entrants = [{"name": "fds", "command": bot, "sandbox": False},
                {"name": "rnd", "command": [sys.executable, str(ROOT / "sample_bots/python/random_bot.py"), "2"], "sandbox": False}]
    path.write_text(dumps_str({"name": "live-run", "game": "kododo", "players": 2, "entrants": entrants,
                               "schedule": {"format": "round-robin", "rounds": rounds}, "seed": 3,
                               "output": {"store": str(tmp / "t.sqlite"), "replays": None}}))
    return path


class Recording(LiveBoard):
    """The board, keeping every frame it is given (to see where they came from)."""

    def __init__(self) -> None:
        super().__init__("kododo", None)
        self.taken: list[LiveFrame] = []

    def frame(self, frame: LiveFrame) -> None:
        self.taken.append(frame)
        super().frame(frame)


def test_frames_come_from_the_workers_and_no_bot_holds_the_live_pipe(tmp_path: Path) -> None:
    listing = tmp_path / "fds.txt"
    script = tmp_path / "fd_bot.py"
    script.write_text(FD_BOT)
    cfg = load(_config(tmp_path, 3, [sys.executable, str(script), str(listing), str(ROOT / "sample_bots/python/random_bot.py")]))
    board = Recording()
    summary = runner.run(cfg, concurrency=2, quiet=True, pin=False, live=board)
    assert summary.played == summary.total == 6
    games = {f.game for f in board.taken}
    assert games == set(range(6))  # every game's frames reached the coordinator
    assert all(any(f.over for f in board.taken if f.game == g) for g in games)  # and each one's last frame
    assert board.playing() == []  # each ended with its result
    last = [f for f in board.taken if f.game == 0 and f.over][0]
    assert all(isinstance(o, dict) and "hand" in o for o in loads(last.data)["own"])  # type: ignore[index,union-attr]
    opened = [line.split() for line in listing.read_text().splitlines()]
    assert opened and all(fds[:3] == ["0", "1", "2"] and len(fds) == 4 for fds in opened), opened  # 4th: the listing itself


def test_arena_run_watch_prints_a_local_link_that_answers_while_the_run_plays(tmp_path: Path) -> None:
    slow = tmp_path / "slow_bot.py"
    slow.write_text("import sys, time, os\nsys.path.insert(0, %r)\nimport arenabot\n"
                    "arenabot.run(lambda r: (time.sleep(0.02), r['legal'][0])[1])\n" % str(ROOT / "sample_bots/python"))
    config = _config(tmp_path, 2, [sys.executable, str(slow)])
    proc = subprocess.Popen([str(Path(sys.executable).parent / "arena"), "run", str(config), "--watch", "-q", "-j", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        assert proc.stderr is not None
        line = ""
        deadline = time.monotonic() + 30
        while "watch the games live" not in line and time.monotonic() < deadline:
            line = proc.stderr.readline()
        found = re.search(r"(http://127\.0\.0\.1:\d+/[\w-]{20,}/)", line)
        assert found, line
        url = found.group(1)
        listed = ""
        while "data-live-game" not in listed and time.monotonic() < deadline:
            listed = httpx.get(url).text
        game = re.search(r'data-live-game="(\d+)"', listed)
        assert game, listed
        shown = httpx.get(f"{url}live/{game.group(1)}.json")
        assert shown.status_code in (200, 404)  # 404: that game ended (and left the list) in between
        if shown.status_code == 200:
            assert shown.json()["views"] == {} or shown.json()["over"]
        assert httpx.get(url.replace(url.split("/")[3], "x" * 24)).status_code == 404
    finally:
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err


@pytest.mark.cluster
def test_frames_come_from_dask_workers_as_the_runs_own_topic(tmp_path: Path) -> None:
    from arena.tournament.config.cluster import ClusterSpec
    from arena.tournament.run.dask_pool import DaskExecutor

    rnd = [sys.executable, str(ROOT / "sample_bots/python/random_bot.py"), "1"]
    cfg = load(_config(tmp_path, 2, rnd))
    board = Recording()
    summary = runner.run(cfg, quiet=True, pin=False, live=board, executor=DaskExecutor(ClusterSpec.parse("local:1"), live=board))
    assert summary.played == summary.total == 4
    assert {f.game for f in board.taken} == set(range(4))
    assert board.playing() == []  # each ended with its result (a last frame may still be on its way: not asserted)
