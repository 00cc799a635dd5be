"""The server's config: one competition (game, seats, clocks, limits, ladder rules, folders).

YAML in, a typed `ServerConfig` out; unknown keys and wrong types are refused naming the key. The admin
credential is never in the YAML: it comes from $ARENA_ADMIN_TOKEN, or from the file `admin_token_file`
names (created with a fresh token, mode 0600, when it does not exist yet).
"""

from __future__ import annotations

import dataclasses
import os
import secrets
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import yaml

from arena.errors import ConfigError, GameError, ServerError
from arena.games.registry import get_game
from arena.core.limits import Limits
from arena.core.time_control import TimeControl
from arena.ladder.uploads.archive import ArchiveLimits
from arena.build.runner import BuildSettings, parse_settings

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
    seed: int = 0


@dataclass(frozen=True)
class HouseBot:
    name: str
    command: tuple[str, ...]


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
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)

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


_TOP = {"name", "game", "options", "players", "time_control", "limits", "ladder", "uploads", "data", "runtimes",
        "house_bots", "host", "port", "submissions_per_minute", "max_request_kb", "admin_token_file", "root", "build"}


def _fail(file: Path, where: str, message: str) -> ConfigError:
    return ConfigError(f"{file}: {where}: {message}")


def _section(file: Path, data: Any, where: str, cls: type[Any], kinds: Mapping[str, type | tuple[type, ...]]) -> Any:
    if data is None:
        return cls()
    if not isinstance(data, dict):
        raise _fail(file, where, "expected a mapping")
    names = {f.name for f in dataclasses.fields(cls)}
    values = {}
    for key, value in data.items():
        if key not in names:
            raise _fail(file, f"{where}.{key}", f"unknown key (known: {', '.join(sorted(names))})")
        kind = kinds.get(key, int)
        if value is not None and (isinstance(value, bool) and kind is not bool or not isinstance(value, kind)):
            raise _fail(file, f"{where}.{key}", f"expected {getattr(kind, '__name__', kind)}, got {value!r}")
        values[key] = value
    try:
        return cls(**values)
    except (TypeError, ValueError) as exc:
        raise _fail(file, where, str(exc)) from None


def load(path: str | os.PathLike[str]) -> ServerConfig:
    file = Path(path)
    try:
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{file}: no such config file") from None
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"{file}: cannot read the config: {exc}") from None
    return parse(data, file)


def parse(data: Any, file: Path) -> ServerConfig:
    if not isinstance(data, dict):
        raise ConfigError(f"{file}: expected a mapping at the top")
    for key in data:
        if key not in _TOP:
            hint = " (the admin token never goes in the YAML: use $ARENA_ADMIN_TOKEN or admin_token_file)" if "admin" in str(key) else ""
            raise _fail(file, str(key), f"unknown key{hint}")
    root = file.resolve().parent
    if "root" in data:
        root = (root / str(data["root"])).resolve()
    if "game" not in data:
        raise _fail(file, "game", "required (`arena games` lists them)")
    try:
        spec = get_game(str(data["game"]))
        options = spec.resolve_options(data.get("options") or {})
        players = int(data.get("players", spec.min_seats))
        spec.check_seats(players)
    except (GameError, TypeError, ValueError) as exc:
        raise _fail(file, "game", str(exc)) from None
    tc = _section(file, data.get("time_control"), "time_control", TimeControl, {"bank_ms": (int, type(None))})
    limits = _section(file, data.get("limits"), "limits", Limits, {})
    ladder = _section(file, data.get("ladder"), "ladder", LadderRules, {"closeness": (int, float), "duplicate": bool})
    archive = _section(file, data.get("uploads"), "uploads", ArchiveLimits, {"max_ratio": (int, float)})
    house = []
    for i, item in enumerate(data.get("house_bots") or []):
        if not isinstance(item, dict) or set(item) - {"name", "command"} or "command" not in item:
            raise _fail(file, f"house_bots[{i}]", "expected {name, command}")
        command = item["command"]
        argv = command.split() if isinstance(command, str) else [str(a) for a in command]
        argv = [a.replace("{python}", sys.executable) for a in argv]
        argv = [str(root / a) if ("/" in a and not a.startswith("/")) else a for a in argv]
        house.append(HouseBot(str(item.get("name", f"house-{i + 1}")), tuple(argv)))
    token_file = data.get("admin_token_file")
    runtimes = tuple(str(r) for r in data.get("runtimes") or DEFAULT_RUNTIMES)
    return ServerConfig(
        path=file,
        name=str(data.get("name", file.stem)),
        game=spec.name,
        options=options,
        players=players,
        time_control=tc,
        limits=limits,
        ladder=ladder,
        archive=archive,
        data=(root / str(data.get("data", f"out/{file.stem}-server"))).resolve(),
        runtimes=runtimes,
        house_bots=tuple(house),
        host=str(data.get("host", "127.0.0.1")),
        port=int(data.get("port", 8750)),
        submissions_per_minute=int(data.get("submissions_per_minute", 6)),
        max_request_bytes=int(data.get("max_request_kb", 8192)) * 1024,
        admin_token_file=(root / str(token_file)).resolve() if token_file else None,
        build=parse_settings(data.get("build"), f"{file}: build"),
        raw=data,
    )
