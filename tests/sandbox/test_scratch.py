"""The scratch folder: private and writable, emptied at every start (fresh) or kept (keep)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from arena.referee.bot import BotProcess, BotSpec
from arena.sandbox.policy import SandboxPolicy, Scratch

from .conftest import ROOT
import pytest

pytestmark = pytest.mark.sandbox

COUNTER = """\
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import arenabot
path = os.path.join(os.environ["ARENA_SCRATCH"], "starts")
count = int(open(path).read()) + 1 if os.path.exists(path) else 1
open(path, "w").write(str(count))
arenabot.log(f"starts={count} tmp={os.path.realpath('/tmp')} cwd={os.getcwd()}")
arenabot.run(lambda r: r["legal"][0], name="counter")
"""


def starts(folder: Path, policy: SandboxPolicy, times: int) -> list[str]:
    tails = []
    for _ in range(times):
        bot = BotProcess.start(BotSpec("counter", (sys.executable, str(folder / "counter.py")), sandbox=policy))
        bot.close()
        tails.append(bot.stderr_tail()[0])
    return tails


def bot_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "bot"
    folder.mkdir()
    shutil.copy(ROOT / "sample_bots" / "python" / "arenabot.py", folder)
    (folder / "counter.py").write_text(COUNTER)
    return folder


def test_fresh_scratch_is_empty_at_every_start(tmp_path):
    folder = bot_folder(tmp_path)
    tails = starts(folder, SandboxPolicy(), 2)
    assert [t.split()[0] for t in tails] == ["starts=1", "starts=1"]
    assert f"cwd={folder}" in tails[0]


def test_kept_scratch_survives_between_starts_and_stays_outside_the_bot_folder(tmp_path):
    folder = bot_folder(tmp_path)
    keep = tmp_path / "kept" / "counter"
    tails = starts(folder, SandboxPolicy(scratch=Scratch.KEEP, keep_dir=str(keep)), 2)
    assert [t.split()[0] for t in tails] == ["starts=1", "starts=2"]
    assert (keep / "starts").read_text() == "2"
    assert sorted(p.name for p in folder.iterdir()) == ["arenabot.py", "counter.py"]
