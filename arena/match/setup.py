"""What `arena match` plays, as a play setup built in code: NEW, OLD and the fillers as entrants 0, 1, 2..,
the match schedule (`schedule.Format.MATCH`), and a store whose name follows from what the games are,
so that the same command resumes it. Everything else (the runner, the executor, the sandbox, faults,
the store, resuming) is the tournament's own.

NEW and OLD are bot commands, or entrant names of a config given with `--config` (whose game options,
clocks, limits, sandbox and fault policy the match then uses, with the config's `root`).
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Mapping, Sequence

import arena
from arena.errors import ConfigError, GameError, MatchError
from arena.games.base import GameSpec
from arena.games.registry import get_game
from arena.jsonvalue import JSON, dumps
from arena.sandbox.policy import SandboxPolicy
from arena.sandbox.probe import probe
from arena.tournament.config import tournament as tconfig
from arena.tournament.config.entrants import EntrantSetup, command_words
from arena.tournament.config.reader import Reader, join
from arena.tournament.config.setup import PlaySetup, ScheduleSetup
from arena.tournament.config.tournament import TournamentConfig
from arena.tournament.schedule.plan import Fill, Format

SAMPLE_BOTS = Path(arena.__file__).resolve().parent.parent / "sample_bots" / "python"  # the generic random bot
# A `--config` lends a match its options, clocks, limits, sandbox, fault policy, root and restart_bots;
# its schedule, entrants (NEW and OLD may name them), outputs, executor and stop rule are the match's own.


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


def _entrant(name: str, label: str, given: str | Sequence[str], known: Mapping[str, EntrantSetup],
             sandbox: SandboxPolicy, reader: Reader) -> EntrantSetup:
    """One entrant: a config's, by its name, or a command (a string is split as a shell would) that may
    share its folder with the others (a match compares one author's versions, usually side by side)."""
    if isinstance(given, str) and given in known:
        return replace(known[given], name=name, label=label)
    command = tuple(given) if not isinstance(given, str) else command_words(reader, given, join(label, "command"))
    return EntrantSetup(name, command, sandbox=replace(sandbox, shared_folder=True), label=label)


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
    fillers: list[str | Sequence[str]] = list(req.fill) or ([] if players == 2 else list(default_fillers(spec)))
    if players == 2 and req.fill:
        raise MatchError("--fill is for games of 3 or more players (--players): 2 players are NEW and OLD alone")
    here = (cwd or Path.cwd()).resolve()
    # with no --config, relative paths resolve from the current folder and mistakes name the arguments
    lent = PlaySetup(file=here / "arena-match.yaml", game=req.game, entrants=(), label="")
    if req.config is not None:
        try:
            lent = tconfig.load_setup(req.config)
        except ConfigError as exc:
            raise MatchError(str(exc)) from None
    sandbox = lent.base_sandbox()
    if req.sandbox is not None:
        sandbox = replace(sandbox, enabled=req.sandbox)
    if req.sandbox and not probe().sandbox:
        raise MatchError(f"--sandbox: the sandbox cannot run on this machine: {probe().reason} "
                         "(--no-sandbox only for bots you trust)")
    known = {e.name: e if req.sandbox is not False else replace(e, sandbox=replace(e.sandbox or sandbox, enabled=False))
             for e in lent.entrants}
    reader = lent.reader()
    try:
        entrants = [_entrant("new", "NEW", req.new, known, sandbox, reader),
                    _entrant("old", "OLD", req.old, known, sandbox, reader)]
        entrants += [_entrant(f"fill{i + 1}", join("entrants", i + 2), f, known, sandbox, reader)
                     for i, f in enumerate(fillers)]
        setup = replace(
            lent, name=f"match-{req.game}", game=req.game, players=players, entrants=tuple(entrants), seed=req.seed,
            options={**lent.options, **req.options}, sandbox=sandbox, concurrency=None, cluster=None, stop=None,
            schedule=ScheduleSetup(format=Format.MATCH_UNPAIRED if req.unpaired else Format.MATCH,
                                   rounds=req.games // 2, fill=Fill.CYCLE),
            store=req.store.resolve() if req.store is not None else None,
            replays=req.replays.resolve() if req.replays is not None else None, report=None,
            keep_logs=req.keep_logs,
        )
        cfg = setup.build()
        if req.store is None:  # named after what the games are; built again so the sandbox hides the real store
            cfg = replace(setup, store=here / "out" / f"match-{req.game}-{store_key(cfg)}.sqlite").build()
    except ConfigError as exc:
        raise MatchError(str(exc)) from None
    return cfg


def store_key(cfg: TournamentConfig) -> str:
    """What the games are, without how many: the same command with another --games resumes the store."""
    ident = cfg.identity()
    schedule = dict(ident["schedule"]) if isinstance(ident["schedule"], dict) else {}
    schedule.pop("rounds", None)
    return hashlib.sha256(dumps({**ident, "schedule": schedule})).hexdigest()[:12]
