"""What `arena match` plays, as a tournament config: NEW, OLD and the fillers as entrants 0, 1, 2..,
the match schedule (`schedule.Format.MATCH`), and a store whose name follows from what the games are,
so that the same command resumes it. Everything else (the runner, the executor, the sandbox, faults,
the store, resuming) is the tournament's own.

NEW and OLD are bot commands, or entrant names of a config given with `--config` (whose game options,
clocks, limits, sandbox and fault policy the match then uses, with the config's `root`).
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import yaml

import arena
from arena.errors import ConfigError, GameError, MatchError
from arena.games.base import GameSpec
from arena.games.registry import get_game
from arena.jsonvalue import JSON, dumps
from arena.tournament.config import tournament as tconfig
from arena.tournament.config.tournament import TournamentConfig
from arena.tournament.schedule.plan import Format

SAMPLE_BOTS = Path(arena.__file__).resolve().parent.parent / "sample_bots" / "python"  # the generic random bot
# Settings a `--config` lends a match; its schedule, entrants, outputs and stop rule are the match's own.
LENT_KEYS = ("options", "time_control", "limits", "sandbox", "fault_policy", "root", "restart_bots")


@dataclass(frozen=True)
class MatchRequest:
    game: str
    new: str
    old: str
    fill: tuple[str, ...] = ()
    players: int | None = None
    games: int = 1000  # MAX: at most this many games (a round is two)
    seed: int = 0
    config: Path | None = None
    store: Path | None = None
    replays: Path | None = None
    keep_logs: bool = False  # each bot's stderr lines per step, written into the replays (needs replays)
    sandbox: bool | None = None  # None: the config's, else on where it runs
    unpaired: bool = False  # OLD plays deals of its own: to measure what pairing saves (bench)
    options: Mapping[str, JSON] = dataclasses.field(default_factory=dict)


def default_fillers(spec: GameSpec) -> list[list[str]]:
    """The game's own sample bots (`GameSpec.sample_bots`), then arena's sample random bot."""
    bots = [list(bot.command) for bot in spec.sample_bots]
    bots.append(["{python}", str(SAMPLE_BOTS / "random_bot.py"), "1"])
    missing = [b[1] for b in bots if len(b) > 1 and b[0] == "{python}" and not Path(b[1]).is_file()]
    if missing:
        raise MatchError(f"the default filler bots are not here ({missing[0]}); give fillers with --fill CMD")
    return bots


def _entrant(name: str, text: str, known: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """One entrant; a bot given as a command may share its folder with the others (a match compares
    one author's versions, usually side by side in one checkout)."""
    if text in known:
        return {**known[text], "name": name}
    return {"name": name, "command": text, "sandbox": {"shared_folder": True}}


def build(req: MatchRequest, cwd: Path | None = None) -> TournamentConfig:
    """The match as a checked tournament config; raises MatchError or ConfigError saying what to fix."""
    try:
        spec = get_game(req.game)
    except GameError as exc:
        raise MatchError(str(exc)) from None
    players = req.players or spec.min_seats
    try:
        spec.check_seats(players)
    except GameError as exc:
        raise MatchError(f"--players {players}: {exc}") from None
    if req.keep_logs and req.replays is None:
        raise MatchError("--keep-logs writes each bot's stderr lines into the games' replays: give --replays DIR too")
    if req.games < 2:
        raise MatchError(f"--games {req.games}: a match needs at least one pair of games (2)")
    base: dict[str, Any] = {}
    known: dict[str, Mapping[str, Any]] = {}
    file = (cwd or Path.cwd()) / "arena-match.yaml"  # relative paths resolve from the current folder
    if req.config is not None:
        raw = tconfig.load(req.config).raw
        base = {k: raw[k] for k in LENT_KEYS if k in raw}
        known = {str(e["name"]): e for e in raw.get("entrants", []) if isinstance(e, dict) and "name" in e}
        file = req.config
    fillers: list[Any] = list(req.fill) or ([] if players == 2 else default_fillers(spec))
    if players == 2 and req.fill:
        raise MatchError("--fill is for games of 3 or more players (--players): 2 players are NEW and OLD alone")
    entrants = [_entrant("new", req.new, known), _entrant("old", req.old, known)]
    entrants += [_entrant(f"fill{i + 1}", f, known) if isinstance(f, str)
                 else {"name": f"fill{i + 1}", "command": f, "sandbox": {"shared_folder": True}}
                 for i, f in enumerate(fillers)]
    options = {**(base.get("options") or {}), **req.options}
    data: dict[str, Any] = {**base, "name": f"match-{req.game}", "game": req.game, "players": players,
                            "entrants": entrants, "seed": req.seed, "options": options,
                            "schedule": {"rounds": req.games // 2, "fill": "cycle"}}
    if req.sandbox is False:
        data["sandbox"] = False
    if "root" in data:
        data["root"] = str((file.resolve().parent / str(data["root"])).resolve())
    output: dict[str, Any] = {}
    if req.replays is not None:
        output["replays"] = str(req.replays.resolve())
        output["keep_logs"] = req.keep_logs
    if req.store is not None:
        output["store"] = str(req.store.resolve())
    cfg = _parse({**data, "output": output}, file, req.unpaired)
    if req.store is None:  # named after what the games are; parsed again so the sandbox hides the real store
        output["store"] = str((cwd or Path.cwd()).resolve() / "out" / f"match-{req.game}-{store_key(cfg)}.sqlite")
        cfg = _parse({**data, "output": output}, file, req.unpaired)
    return cfg


def _parse(data: dict[str, Any], file: Path, unpaired: bool) -> TournamentConfig:
    try:
        cfg = tconfig.parse(yaml.safe_load(yaml.safe_dump(data)), file)
    except ConfigError as exc:
        text = str(exc).replace(f"{file}: ", "" if file.name == "arena-match.yaml" else f"{file}: ")
        raise MatchError(text.replace("entrants[0]", "NEW").replace("entrants[1]", "OLD")) from None
    fmt = Format.MATCH_UNPAIRED if unpaired else Format.MATCH
    return dataclasses.replace(cfg, schedule=dataclasses.replace(cfg.schedule, format=fmt))


def store_key(cfg: TournamentConfig) -> str:
    """What the games are, without how many: the same command with another --games resumes the store."""
    ident = cfg.identity()
    schedule = dict(ident["schedule"]) if isinstance(ident["schedule"], dict) else {}
    schedule.pop("rounds", None)
    return hashlib.sha256(dumps({**ident, "schedule": schedule})).hexdigest()[:12]
