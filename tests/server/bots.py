"""Bot archives for the server tests: real bots packed as a participant would pack them."""

from __future__ import annotations

import io
import json
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_bots"


def zip_bytes(files: dict[str, bytes | str], modes: dict[str, int] | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = ((modes or {}).get(name, 0o100644)) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data.encode() if isinstance(data, str) else data)
    return buf.getvalue()


def tar_bytes(files: dict[str, bytes | str], modes: dict[str, int] | None = None) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name, data in files.items():
            raw = data.encode() if isinstance(data, str) else data
            info = tarfile.TarInfo(name)
            info.size = len(raw)
            info.mode = (modes or {}).get(name, 0o644)
            tf.addfile(info, io.BytesIO(raw))
    return buf.getvalue()


def manifest(name: str, version: str, command: str | list[str]) -> str:
    return json.dumps({"name": name, "version": version, "command": command})


def python_random(version: str = "1") -> bytes:
    return zip_bytes({
        "manifest.json": manifest("pyrand", version, "python3 random_bot.py 5"),
        "random_bot.py": (SAMPLES / "python/random_bot.py").read_bytes(),
        "arenabot.py": (SAMPLES / "python/arenabot.py").read_bytes(),
    })


def python_heuristic(version: str) -> bytes:
    return zip_bytes({
        "manifest.json": manifest("pyrand", version, "python3 kododo_heuristic.py"),
        "kododo_heuristic.py": (SAMPLES / "python/kododo_heuristic.py").read_bytes(),
        "arenabot.py": (SAMPLES / "python/arenabot.py").read_bytes(),
    })


def js_random() -> bytes:
    return tar_bytes({
        "manifest.json": manifest("jsrand", "1", ["node", "bot/random_bot.js", "9"]),
        "bot/random_bot.js": (SAMPLES / "js/random_bot.js").read_bytes(),
    })


BROKEN = """import sys, json
hello = sys.stdin.readline()
print("not json at all", flush=True)
sys.stderr.write("broken bot: I only print garbage\\n")
"""


def broken() -> bytes:
    return zip_bytes({"manifest.json": manifest("broken", "1", "python3 bot.py"), "bot.py": BROKEN})


# A bot that passes the check and then crashes (or hangs) in every ladder game. Ladder games cannot be
# told from the check's (opaque game ids, sample bots' names, the same message shapes: issue 21), so the
# test stands for "a bug the check's games did not reach" by a switch: once the file `misbehave` lies in
# the bot's folder (the test puts it there after the check passed), every game it starts goes wrong.
SNEAKY = """import os, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import arenabot, random

SWITCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "misbehave")

def on_start(message):
    if os.path.exists(SWITCH):
        if MODE == "crash":
            sys.stderr.write("sneaky: crashing in a ladder game\\n"); sys.stderr.flush()
            os._exit(3)
        time.sleep(3600)

MODE = sys.argv[1]
rng = random.Random(1)
arenabot.run(lambda request: rng.choice(request["legal"]), name="sneaky", version="1", on_start=on_start)
"""


def sneaky(mode: str) -> bytes:
    return zip_bytes({
        "manifest.json": manifest(f"sneaky-{mode}", "1", f"python3 sneaky.py {mode}"),
        "sneaky.py": SNEAKY,
        "arenabot.py": (SAMPLES / "python/arenabot.py").read_bytes(),
    })


# A participant out to attack the pages: its version, stderr and illegal actions are HTML and script.
# It plays fair in the check (check games' ids do not start with the competition's name), then in
# every ladder game writes the hostile stderr and answers with a hostile illegal action.
HOSTILE_TEXT = '</pre></script><script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">'
HOSTILE_VERSION = "<img src=x onerror=alert(1)>"
HOSTILE = """import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import arenabot, random
LADDER = [False]
TEXT = %r
SWITCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "misbehave")  # see SNEAKY

def on_start(message):
    LADDER[0] = os.path.exists(SWITCH)

def act(request):
    if LADDER[0]:
        sys.stderr.write("hostile-stderr " + TEXT + "\\n"); sys.stderr.flush()
        return TEXT
    return rng.choice(request["legal"])

rng = random.Random(1)
arenabot.run(act, name="hostile", version="1", on_start=on_start)
""" % HOSTILE_TEXT


def hostile() -> bytes:
    return zip_bytes({
        "manifest.json": manifest("hostile", HOSTILE_VERSION, "python3 hostile.py"),
        "hostile.py": HOSTILE,
        "arenabot.py": (SAMPLES / "python/arenabot.py").read_bytes(),
    })


# Broken as BROKEN, but its stderr is written (and flushed) before the garbage, so the check's
# report holds it however fast the check gives up.
LOUD_BROKEN = """import sys, time
sys.stderr.write("broken bot: I only print garbage\\n"); sys.stderr.flush()
time.sleep(0.3)
hello = sys.stdin.readline()
print("not json at all", flush=True)
time.sleep(0.3)
"""


def loud_broken() -> bytes:
    return zip_bytes({"manifest.json": manifest("broken", "1", "python3 bot.py"), "bot.py": LOUD_BROKEN})
