"""The ladder's field as a tournament config (`arena ladder export --format yaml`): each participant's active
bot as an entrant (its command and its folder on the server), the competition's game, seats, options,
clocks and limits, and the final's schedule and stop rule, so that the organiser replays the field
offline with `arena run` (on the server's machine, where the folders are)."""

from __future__ import annotations

import dataclasses
from typing import Any

from arena.jsonvalue import JSON
from arena.ladder.competition.final.final import entrants
from arena.ladder.config import ServerConfig
from arena.ladder.db import Database

LIMIT_KEYS = ("cpu_seconds", "memory_mb", "max_line_bytes")  # what a tournament's `limits:` takes


def field_config(config: ServerConfig, db: Database) -> dict[str, JSON]:
    """The tournament config (as a mapping) of the participants' active bots, under their participants' names."""
    limits = dataclasses.asdict(config.limits)
    rules = config.final
    return {
        "name": f"{config.name}-field",
        "game": config.game,
        "players": config.players,
        "options": dict(config.options),
        "time_control": dataclasses.asdict(config.time_control),
        "limits": {k: limits[k] for k in LIMIT_KEYS},
        "entrants": [{"name": e.participant, "command": list(e.command), "cwd": e.folder} for e in entrants(db)],
        "schedule": {"rounds": rules.rounds, "deals": "spread", "fill": "cycle"},
        "stop": {"confidence": rules.confidence, "min_rounds": rules.min_rounds},
        "seed": rules.seed,
    }


def field_yaml(config: ServerConfig, db: Database) -> str:
    import yaml

    data: Any = field_config(config, db)
    header = (f"# {config.name}: each participant's active bot, exported from the server; replay the field with "
              "`arena run THIS.yaml` (the folders are the server's)\n")
    return header + str(yaml.safe_dump(data, sort_keys=False, allow_unicode=False))
