"""The server's config: one competition (game, seats, clocks, limits, ladder rules, folders).

YAML in, a typed `ServerConfig` out, read by the tournament configs' reader: unknown keys and wrong
types refused naming the key, every mistake listed at once, commands split and their placeholders
({python}, {config_dir}) expanded as an entrant's are. The admin
credential is never in the YAML: it comes from $ARENA_ADMIN_TOKEN, or from the file `admin_token_file`
names (created with a fresh token, mode 0600, when it does not exist yet).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from arena.errors import ConfigError, ServerError
from arena.core.limits import Limits
from arena.core.time_control import TimeControl
from arena.ladder.uploads.archive import ArchiveLimits
from arena.ladder.budget_config import Budget, Quotas, budget_checks, quota_checks
from arena.build.runner import BuildSettings, parse_settings
from arena.tournament.config.entrants import command_words, substitute
from arena.tournament.config.reader import Reader, join, kind
from arena.tournament.config.setup import check_game, check_players
from arena.tournament.config.tournament import read_limits, read_time_control, read_yaml

ADMIN_ENV = "ARENA_ADMIN_TOKEN"
DEFAULT_RUNTIMES = ("python3", "node", "perl")


@dataclass(frozen=True)
class LadderRules:
    min_games: int = 10  # a new bot plays first until it has this many games
    closeness: float = 4.0  # opponents' mu within about this of the seed's (an exponential weight)
    duplicate: bool = True  # one deal for up to `players` tables of different bots (no bot meets a deal twice)
    fault_limit: int = 5  # faults in a row that suspend a bot
    check_games: int = 2  # games against the house bots in a submission's check
    workers: int = 1  # local worker processes
    seed: int = 0  # the final's deals and seatings (with the server's secret)
    full_view_delay_s: float | None = None  # live pages: every hand this far behind the play; None: once the game is over
    check_workers: int = 2  # submissions checked at once (each check's processes mostly wait: more than the cores is fine)


@dataclass(frozen=True)
class HumanGameRules:
    """`human_games:` games a signed-in participant plays in person against ladder bots (unranked)."""

    per_day: int = 5  # games each participant may start per UTC day (0: none; past it, 429 saying so)
    at_once: int = 2  # such games played at the same time, over all participants (their own slot, bots at niceness 10)
    decision_ms: int = 300_000  # every seat's time per decision in them (a person's pace; at least 1000)


@dataclass(frozen=True)
class FinalRules:
    """`final:` in a server config: the final over each participant's active bot (`competition.final`)."""

    top: int = 8  # the round-robin's entrants at most; with more, a qualifying gauntlet against the house bots first
    rounds: int = 20  # the round-robin's rounds at most (the stop rule may end it sooner)
    qualifying_rounds: int = 2  # rounds of the qualifying gauntlet
    confidence: float = 0.95  # the stop rule's (`stop.confidence` of a tournament)
    min_rounds: int = 4  # the stop rule's first look
    workers: int | None = None  # local worker processes; None: the ladder's
    seed: int = 0  # the final's seed: its deals and seatings


@dataclass(frozen=True)
class HouseBot:
    name: str
    command: tuple[str, ...]

    def folder(self, config_dir: Path) -> Path:
        """Where it runs: the folder of the last file its command names, else the config's folder."""
        files = [Path(a) for a in self.command if a.startswith("/")]
        return files[-1].parent if files else config_dir


@dataclass(frozen=True)
class ServerConfig:
    path: Path
    name: str
    game: str
    options: Mapping[str, Any]
    players: int
    time_control: TimeControl
    limits: Limits
    ladder: LadderRules
    archive: ArchiveLimits
    data: Path  # uploads/, replays/, server.sqlite and the signing key live here
    runtimes: tuple[str, ...] = DEFAULT_RUNTIMES
    house_bots: tuple[HouseBot, ...] = ()
    host: str = "127.0.0.1"
    port: int = 8750
    submissions_per_minute: int = 6
    max_request_bytes: int = 8 * 1024 * 1024
    admin_token_file: Path | None = None
    build: BuildSettings = field(default_factory=lambda: parse_settings(None))  # source submissions' languages
    final: FinalRules = FinalRules()
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)
    phases: "PhaseSchedule" = field(default_factory=lambda: PhaseSchedule())  # the deadline and later phase times
    quotas: Quotas = field(default_factory=Quotas)  # per participant (arena.ladder.budget_config)
    budget: Budget = field(default_factory=Budget)  # per server: game rate, retention, disk
    human_games: HumanGameRules = HumanGameRules()  # people playing the ladder's bots (arena.ladder.competition.human_games)

    @property
    def uploads(self) -> Path:
        return self.data / "uploads"

    @property
    def replays(self) -> Path:
        return self.data / "replays"

    @property
    def database(self) -> Path:
        return self.data / "server.sqlite"

    @property
    def key_file(self) -> Path:
        return self.data / "signing-key.pem"

    def admin_token(self) -> str:
        """The admin credential: $ARENA_ADMIN_TOKEN, else the token file (created when missing)."""
        env = os.environ.get(ADMIN_ENV)
        if env:
            if len(env) < 16:
                raise ServerError(f"${ADMIN_ENV} is under 16 characters: use a long random token")
            return env
        if self.admin_token_file is None:
            raise ServerError(f"no admin credential: set ${ADMIN_ENV} or `admin_token_file:` in {self.path}")
        file = self.admin_token_file
        if not file.exists():
            file.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as fh:
                fh.write(secrets.token_urlsafe(32) + "\n")
        token = file.read_text(encoding="utf-8").strip()
        if len(token) < 16:
            raise ServerError(f"{file}: the admin token is under 16 characters")
        return token


TOP_KEYS = {"name", "game", "options", "players", "time_control", "limits", "ladder", "uploads", "data", "runtimes",
        "house_bots", "host", "port", "submissions_per_minute", "max_request_kb", "admin_token_file", "root", "build",
        "quotas", "budget"}
TOP_KEYS |= {"phases"}  # the competition's calendar (PhaseSchedule, below)
TOP_KEYS |= {"human_games"}  # people playing the ladder's bots (HumanGameRules)
TOP_KEYS |= {"final"}  # the final (FinalRules)


def load(path: str | os.PathLike[str]) -> ServerConfig:
    """Read and check a server config file; one ConfigError lists every mistake, each naming its key."""
    file = Path(path)
    return parse(read_yaml(file), file)


def parse(data: Any, file: Path) -> ServerConfig:
    """The server config in `data`, read by the tournament configs' reader (one command splitter, one
    placeholder expansion, every mistake listed at once)."""
    r = Reader(file)
    top: dict[str, Any] | None = r.attempt(lambda: _top(r, data), None)
    if top is None:
        r.done()
    assert top is not None
    config_dir = file.resolve().parent
    root = config_dir if "root" not in top else r.attempt(lambda: (config_dir / r.string(top["root"], "root")).resolve(), config_dir)
    game = r.attempt(lambda: r.string(top["game"], "game"), "") if "game" in top else ""
    options: dict[str, Any] = {}
    if not isinstance(top.get("options") or {}, dict):
        r.note("options", f"expected a mapping of game options, got {kind(top['options'])}")
    else:
        options = dict(top.get("options") or {})
    spec, resolved = check_game(r, game, options)
    players: int | None = r.attempt(lambda: r.integer(top["players"], "players", minimum=1), None) if "players" in top else None
    if spec is not None and (players is not None or "players" not in top):
        players = check_players(r, players if players is not None else spec.min_seats, spec, 0)
    tc = read_time_control(r, top.get("time_control"))
    limits = read_limits(r, top.get("limits"))
    ladder = r.attempt(lambda: r.section(top.get("ladder"), "ladder", LadderRules, _ladder_checks(r)), LadderRules())
    archive = r.attempt(lambda: r.section(top.get("uploads"), "uploads", ArchiveLimits, _archive_checks(r)), ArchiveLimits())
    house = _house_bots(r, top.get("house_bots"), root, config_dir)
    text = _text(r, top)
    number = _number(r, top)
    token_file = text("admin_token_file", None)
    runtimes = tuple(r.attempt(lambda: [r.string(v, join("runtimes", j)) for j, v in
                                        enumerate(r.listing(top.get("runtimes") or list(DEFAULT_RUNTIMES), "runtimes"))],
                               list(DEFAULT_RUNTIMES)))
    build = r.attempt(lambda: _build(r, top.get("build")), None)
    final = r.attempt(lambda: r.section(top.get("final"), "final", FinalRules, _final_checks(r)), FinalRules())
    config = ServerConfig(
        path=file,
        name=text("name", file.stem) or file.stem,
        game=spec.name if spec is not None else game,
        options=resolved,
        players=players or 0,
        time_control=tc,
        limits=limits,
        ladder=ladder,
        archive=archive,
        data=(root / (text("data", f"out/{file.stem}-server") or "")).resolve(),
        runtimes=runtimes,
        house_bots=house,
        host=text("host", "127.0.0.1") or "127.0.0.1",
        port=number("port", 8750, 1, 65535),
        submissions_per_minute=number("submissions_per_minute", 6, 1),
        max_request_bytes=number("max_request_kb", 8192, 1) * 1024,
        admin_token_file=(root / token_file).resolve() if token_file else None,
        build=build if build is not None else parse_settings(None),
        final=final,
        raw=top,
        phases=read_schedule(r, top.get("phases")),
        quotas=r.attempt(lambda: r.section(top.get("quotas"), "quotas", Quotas, quota_checks(
            lambda v, w, m: r.integer(v, w, minimum=m))), Quotas()),
        budget=r.attempt(lambda: r.section(top.get("budget"), "budget", Budget, budget_checks(
            lambda v, w, m: r.integer(v, w, minimum=m), lambda v, w: _real(r, v, w), lambda v, w: r.boolean(v, w))), Budget()),
        human_games=r.attempt(lambda: r.section(top.get("human_games"), "human_games", HumanGameRules, {
            "per_day": lambda v, w: r.integer(v, w, minimum=0), "at_once": lambda v, w: r.integer(v, w, minimum=1),
            "decision_ms": lambda v, w: r.integer(v, w, minimum=1000)}), HumanGameRules()),
    )
    r.done()
    return config


def _top(r: Reader, data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        r.fail("", f"expected a mapping of keys to values at the top, got {kind(data)}")
    for key in data:
        if key not in TOP_KEYS:
            hint = " (the admin token never goes in the YAML: use $ARENA_ADMIN_TOKEN or admin_token_file)" if "admin" in str(key) else ""
            r.note(str(key), f"unknown key{hint} (expected one of: {', '.join(sorted(TOP_KEYS))})")
    if "game" not in data:
        r.note("game", "missing (required; `arena games` lists them)")
    return {k: v for k, v in data.items() if k in TOP_KEYS}


def _build(r: Reader, value: Any) -> BuildSettings:
    try:
        return parse_settings(value, "build")
    except ConfigError as exc:
        r.fail("", str(exc))


def _text(r: Reader, top: dict[str, Any]) -> Callable[[str, str | None], str | None]:
    def text(key: str, default: str | None) -> str | None:
        return default if top.get(key) is None else r.attempt(lambda: r.string(top[key], key), default)
    return text


def _number(r: Reader, top: dict[str, Any]) -> Callable[..., int]:
    def number(key: str, default: int, minimum: int, maximum: int | None = None) -> int:
        value: int = r.attempt(lambda: r.integer(top.get(key, default), key, minimum=minimum), default)
        if maximum is not None and value > maximum:
            r.note(key, f"expected a number <= {maximum}, got {value}")
        return value
    return number


def _real(r: Reader, value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        r.fail(where, f"expected a number, got {kind(value)}")
    return float(value)


def _ladder_checks(r: Reader) -> dict[str, Callable[[Any, str], Any]]:
    whole: dict[str, Callable[[Any, str], Any]] = {
        name: (lambda v, w: r.integer(v, w, minimum=0)) for name in ("min_games", "check_games", "seed")}
    return {**whole, "fault_limit": lambda v, w: r.integer(v, w, minimum=1), "workers": lambda v, w: r.integer(v, w, minimum=1),
            "check_workers": lambda v, w: r.integer(v, w, minimum=1),
            "closeness": lambda v, w: _real(r, v, w), "duplicate": lambda v, w: r.boolean(v, w),
            "full_view_delay_s": lambda v, w: None if v is None else _delay(r, v, w)}


def _delay(r: Reader, value: Any, where: str) -> float:
    seconds = _real(r, value, where)
    if seconds < 0:
        r.fail(where, f"expected a number of seconds, 0 or more (or null: every hand once the game is over), got {seconds}")
    return seconds


def _final_checks(r: Reader) -> dict[str, Callable[[Any, str], Any]]:
    def confidence(v: Any, w: str) -> float:
        value = _real(r, v, w)
        if not 0.5 <= value < 1:
            r.fail(w, f"expected a number from 0.5 up to (not including) 1, got {value:g}")
        return value

    return {"top": lambda v, w: r.integer(v, w, minimum=2), "rounds": lambda v, w: r.integer(v, w, minimum=1),
            "qualifying_rounds": lambda v, w: r.integer(v, w, minimum=1), "confidence": confidence,
            "min_rounds": lambda v, w: r.integer(v, w, minimum=2),
            "workers": lambda v, w: r.integer(v, w, minimum=1, allow_null=True), "seed": lambda v, w: r.integer(v, w, minimum=0)}


def _archive_checks(r: Reader) -> dict[str, Callable[[Any, str], Any]]:
    checks: dict[str, Callable[[Any, str], Any]] = {
        f.name: (lambda v, w: r.integer(v, w, minimum=1)) for f in dataclasses.fields(ArchiveLimits)}
    return {**checks, "max_ratio": lambda v, w: _real(r, v, w)}


def _house_bots(r: Reader, value: Any, root: Path, config_dir: Path) -> tuple[HouseBot, ...]:
    """Each house bot's command split as a tournament entrant's is (quotes keep spaces), its placeholders
    ({python}, {config_dir}) expanded and its relative paths made absolute from the root."""
    items: list[Any] = r.attempt(lambda: r.listing(value or [], "house_bots"), [])
    house = []
    for i, item in enumerate(items):
        where = join("house_bots", i)
        bot = r.attempt(lambda: _house_bot(r, item, where, i, root, config_dir), None)
        if bot is not None:
            house.append(bot)
    return tuple(house)


def _house_bot(r: Reader, item: Any, where: str, i: int, root: Path, config_dir: Path) -> HouseBot:
    data = r.mapping(item, where, {"name", "command"}, required={"command"})
    name = r.string(data["name"], join(where, "name")) if "name" in data else f"house-{i + 1}"
    argv = [substitute(a, config_dir) for a in command_words(r, data["command"], join(where, "command"))]
    argv = [str(root / a) if ("/" in a and not a.startswith("/")) else a for a in argv]
    return HouseBot(name, tuple(argv))


# --- the competition's calendar: the `phases:` section ---------------------------------------------------------
#
#     phases:
#       deadline: 2026-12-01T18:00:00+01:00   # open -> frozen at this moment (uploads close)
#       final: 2026-12-02T09:00:00+01:00      # optional: frozen -> final (the ladder stops)
#       closed: 2026-12-03T12:00:00+01:00     # optional: final -> closed (read-only)
#       timezone: Europe/Paris                # optional: how pages show times (else the deadline's own offset)
#
# Every time carries its UTC offset (without one it is a different moment to the organiser and the server),
# and the times come in order; arena.ladder.competition.phases moves the phases by them.

PHASE_TIME_KEYS = ("deadline", "final", "closed")  # the phase each one starts: frozen, final, closed
PHASE_KEYS = {*PHASE_TIME_KEYS, "timezone"}


@dataclass(frozen=True)
class PhaseSchedule:
    deadline: dt.datetime | None = None  # open -> frozen
    final: dt.datetime | None = None  # frozen -> final
    closed: dt.datetime | None = None  # final -> closed
    timezone: str = ""  # an IANA zone for the pages ("" : each time's own offset)

    def zone(self) -> dt.tzinfo | None:
        return ZoneInfo(self.timezone) if self.timezone else (self.deadline.tzinfo if self.deadline else None)

    def show(self, moment: dt.datetime | float | None) -> str:
        """A moment as pages and messages show it: in the competition's zone, with its UTC offset."""
        if moment is None:
            return "none"
        if isinstance(moment, (int, float)):
            moment = dt.datetime.fromtimestamp(moment, dt.timezone.utc)
        local = moment.astimezone(self.zone() or dt.timezone.utc)
        offset = local.strftime("%z")
        return f"{local:%Y-%m-%d %H:%M} (UTC{offset[:3]}:{offset[3:]})"

    def to_json(self) -> dict[str, Any]:
        return {k: (getattr(self, k).isoformat() if getattr(self, k) else None) for k in PHASE_TIME_KEYS} | {"timezone": self.timezone}


def read_schedule(r: Reader, value: Any) -> PhaseSchedule:
    """The `phases:` section (absent: no deadline, the organiser moves the phases by hand)."""
    if value is None:
        return PhaseSchedule()
    data = r.attempt(lambda: r.mapping(value, "phases", PHASE_KEYS), None)
    if data is None:
        return PhaseSchedule()
    times = {key: r.attempt(lambda: _moment(r, data[key], join("phases", key)), None) for key in PHASE_TIME_KEYS if key in data}
    zone = ""
    if "timezone" in data:
        zone = r.attempt(lambda: _zone(r, data["timezone"]), "")
    if ("final" in times or "closed" in times) and "deadline" not in data:
        r.note("phases.deadline", "missing: a final or closing time needs the deadline before it")
    known = [(k, t) for k, t in ((k, times.get(k)) for k in PHASE_TIME_KEYS) if t is not None]
    for (k1, t1), (k2, t2) in zip(known, known[1:]):
        if t2 <= t1:
            r.note(join("phases", k2), f"{t2.isoformat()} is not after phases.{k1} ({t1.isoformat()}): the phases go in order "
                   "deadline < final < closed")
    return PhaseSchedule(times.get("deadline"), times.get("final"), times.get("closed"), zone)


def _moment(r: Reader, value: Any, where: str) -> dt.datetime:
    """YAML reads an unquoted ISO time as a datetime, a quoted one as text: both are taken; neither without
    its UTC offset."""
    if isinstance(value, str):
        try:
            value = dt.datetime.fromisoformat(value.strip())
        except ValueError:
            r.fail(where, f"expected a time like 2026-12-01T18:00:00+01:00, got {value[:60]!r}")
    if not isinstance(value, dt.datetime):
        r.fail(where, f"expected a time like 2026-12-01T18:00:00+01:00, got {kind(value)}")
    if value.tzinfo is None or value.utcoffset() is None:
        r.fail(where, f"{value.isoformat()} has no UTC offset: write it as {value.isoformat()}+01:00 (or Z for UTC), "
               "so it is the same moment for everyone")
    return value


def _zone(r: Reader, value: Any) -> str:
    name = r.string(value, "phases.timezone")
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        r.fail("phases.timezone", f"unknown time zone {name[:60]!r} (an IANA name like Europe/Paris or UTC)")
    return name
