"""The server config's reference (docs/server-config.md), made from the config's own definitions: each section's
keys and defaults are its dataclass's fields, each key's description the comment beside its field; the top
keys are the reader's TOP_KEYS, described here. `python -m arena.ladder.competition.reference` prints it;
a test keeps the file equal to it and every key described."""

from __future__ import annotations

import dataclasses
import inspect
import re
from typing import Any

from arena.build.runner import BuildLimits
from arena.core.limits import Limits
from arena.core.time_control import TimeControl
from arena.ladder import config
from arena.ladder.budget_config import Budget, Quotas
from arena.ladder.config import PhaseSchedule
from arena.ladder.uploads.archive import ArchiveLimits
from arena.tournament.config.tournament_config import LIMITS_KEYS

TOP: dict[str, tuple[str, str]] = {  # key: (default, what it is)
    "name": ("the config file's name", "the competition's name, shown on the pages"),
    "game": ("required", "the game (`arena games` lists them)"),
    "options": ("{}", "the game's options (`arena games GAME` lists them)"),
    "players": ("the game's fewest seats", "seats at each table"),
    "time_control": ("see below", "each bot's clocks, as in a tournament config"),
    "limits": ("see below", "each bot's resources and pipes, as in a tournament config"),
    "ladder": ("see below", "the ladder's rules"),
    "uploads": ("see below", "what an uploaded archive may hold, and the disk kept free"),
    "data": ("out/CONFIGNAME-server", "the data folder: the store (server.sqlite), uploads/, replays/, the signing key"),
    "runtimes": (", ".join(config.DEFAULT_RUNTIMES), "the programs a manifest's command may start with"),
    "house_bots": ("none", "bots the organiser adds (`name`, `command`), each a participant with no token"),
    "host": ("127.0.0.1", "the address to listen on (`--host` overrides it)"),
    "port": ("8750", "the port (`--port` overrides it)"),
    "submissions_per_minute": ("6", "uploads one participant may make a minute"),
    "max_request_kb": ("8192", "the largest request body (an upload) in KB"),
    "admin_token_file": ("none: $ARENA_ADMIN_TOKEN", "a file holding the organiser's token (made, mode 0600, when missing)"),
    "root": ("the config's folder", "the folder relative paths (data, house bots) start from"),
    "build": ("every installed language", "languages built from source (`languages:`) and the build's limits (see below)"),
    "phases": ("no deadline", "the competition's calendar: deadline (open -> frozen), final, closed, timezone (see below)"),
    "quotas": ("see below", "per participant: uploads a day, challenges a day and their games"),
    "budget": ("see below", "per server: the game rate, idle when settled, challenges' share, replay retention, the disk budget"),
    "final": ("see below", "the final over each participant's active bot: a round-robin with the stop rule, a qualifying gauntlet above `top`"),
    "human_games": ("see below", "unranked games participants play in person against ladder bots (a bot page's form)"),
}

PHASES = {"deadline": "open -> frozen at this time (uploads close); with its UTC offset, e.g. 2026-12-01T18:00:00+01:00",
          "final": "frozen -> final at this time (the ladder stops)", "closed": "final -> closed at this time (read-only)",
          "timezone": "an IANA zone (Europe/Paris) the pages show times in; else the deadline's own offset"}


def comments(cls: type) -> dict[str, str]:
    """Each field's comment in the class's source (`name: type = default  # comment`)."""
    found: dict[str, str] = {}
    for line in inspect.getsource(cls).splitlines():
        match = re.match(r"\s+(\w+): [^#]*#\s*(.+)$", line)
        if match:
            found[match.group(1)] = match.group(2).strip()
    return found


def sections() -> list[tuple[str, list[tuple[str, Any, str]]]]:
    """(section, [(key, default, description)]) for each section of the config."""
    out = []
    for name, cls, keys, extra in (
            ("time_control", TimeControl, [f.name for f in dataclasses.fields(TimeControl)], {
                "decision_ms": "each decision's clock", "bank_ms": "a bank of time over the whole game (none: no bank)",
                "increment_ms": "added to the bank each decision", "startup_ms": "the bot's start-up time"}),
            ("limits", Limits, list(LIMITS_KEYS), {}),
            ("ladder", config.LadderRules, [f.name for f in dataclasses.fields(config.LadderRules)], {
                "seed": "the matchmaker's random seed"}),
            ("uploads", ArchiveLimits, [f.name for f in dataclasses.fields(ArchiveLimits)], {
                "max_total_bytes": "one archive, unpacked", "max_file_bytes": "one unpacked file", "max_files": "files in one archive",
                "max_name_bytes": "one file name"}),
            ("build", BuildLimits, [f.name for f in dataclasses.fields(BuildLimits)], {}),
            ("phases", PhaseSchedule, [f.name for f in dataclasses.fields(PhaseSchedule)], PHASES),
            ("quotas", Quotas, [f.name for f in dataclasses.fields(Quotas)], {}),
            ("budget", Budget, [f.name for f in dataclasses.fields(Budget)], {}),

            ("final", config.FinalRules, [f.name for f in dataclasses.fields(config.FinalRules)], {}),
            ("human_games", config.HumanGameRules, [f.name for f in dataclasses.fields(config.HumanGameRules)], {})):
        described = {**comments(cls), **extra}
        default = cls()
        out.append((name, [(key, getattr(default, key), described.get(key, "")) for key in keys]))
    return out


def _shown(value: Any) -> str:
    if value is None or value == "":
        return "none"
    return str(value).lower() if isinstance(value, bool) else str(value)


def reference() -> str:
    lines = ["# The server config (`arena serve CONFIG`): every key and its default", "",
             "Made by `python -m arena.ladder.competition.reference > docs/server-config.md` from the config's own",
             "definitions (a test keeps it so). `arena validate CONFIG` checks a server config, every mistake listed",
             "at once. The admin token never goes in the YAML: `$ARENA_ADMIN_TOKEN` or `admin_token_file`.", "",
             "## Top-level keys", "", "| key | default | what it is |", "|---|---|---|"]
    lines += [f"| `{key}` | {TOP[key][0]} | {TOP[key][1]} |" for key in sorted(config.TOP_KEYS)]
    for name, keys in sections():
        where = "`build:` (besides `languages:`)" if name == "build" else f"`{name}:`"
        lines += ["", f"## {where}", "", "| key | default | what it is |", "|---|---|---|"]
        lines += [f"| `{key}` | {_shown(default)} | {text} |" for key, default, text in keys]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(reference(), end="")
