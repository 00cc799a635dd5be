"""The starter kits (starters/ at the project's top): one folder per language, copied by `arena new-bot`."""

from __future__ import annotations

import json
import os
import re

import arena
from arena.build.languages import NAMES
from arena.build.pack import copy_kit
from arena.errors import BuildError

KITS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(arena.__file__))), "starters")
# The kits' READMEs name one game in these two commands; a new bot's README names its own.
PLAY = re.compile(r"arena play [a-z0-9-]+( --bot \.)+")
CHECK = re.compile(r"check-bot [a-z0-9-]+ ")


def kit_folder(language: str) -> str:
    if language not in NAMES:
        raise BuildError(f"no starter kit for {language!r}: choose one of {', '.join(NAMES)}")
    folder = os.path.join(KITS, language)
    if not os.path.isdir(folder):
        raise BuildError(f"the starter kits are not installed with arena ({folder} is missing)")
    return folder


def new_bot(language: str, game: str, dest: str, seats: int = 4) -> list[str]:
    """Write a starter bot for `game` in `language` into the new folder `dest`; the files written.

    The kit's random bot plays every game (each request lists the legal actions); the README's commands
    name `game` (its local game with the bot in `seats` seats), and the manifest the folder's name.
    """
    files = copy_kit(kit_folder(language), dest)
    name = re.sub(r"[^A-Za-z0-9_.-]", "-", os.path.basename(os.path.abspath(dest)))[:40].strip("-.") or f"{language}-bot"
    manifest = os.path.join(dest, "manifest.json")
    with open(manifest, encoding="utf-8") as fh:
        data = json.load(fh)
    data["name"] = name
    with open(manifest, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(data) + "\n")
    readme = os.path.join(dest, "README.md")
    with open(readme, encoding="utf-8") as fh:
        text = fh.read()
    with open(readme, "w", encoding="utf-8") as fh:
        text = PLAY.sub(f"arena play {game}" + " --bot ." * seats, text, count=1)
        fh.write(CHECK.sub(f"check-bot {game} ", text, count=1))
    return files
