"""The participant's side of the API: where the server is and which token to use, packing a bot
folder, uploading it, following its check and reading the leaderboard (`arena submit`, `arena ladder`).

The server and token come from the command line, else the environment (`ARENA_SERVER`, `ARENA_TOKEN`),
else a small JSON file, `~/.config/arena/client.json` (or `$ARENA_CLIENT_CONFIG`):
`{"server": "https://ladder.example.org", "token": "..."}` - like the Kaggle CLI's kaggle.json.
"""

from __future__ import annotations

import json
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import httpx

from arena.build.pack import pack_bot_folder
from arena.errors import BuildError, ClientError
from arena.textsafe import clean, csv_cell

DEFAULT_SERVER = "http://127.0.0.1:8750"
ARCHIVES = (".zip", ".tar.gz", ".tgz")


def config_file() -> Path:
    return Path(os.environ.get("ARENA_CLIENT_CONFIG") or Path.home() / ".config" / "arena" / "client.json")


@dataclass(frozen=True)
class Settings:
    server: str
    token: str | None
    warning: str = ""


def settings(server: str | None, token: str | None) -> Settings:
    """The command line's values, else the environment's, else the config file's."""
    file = config_file()
    stored: dict[str, Any] = {}
    warning = ""
    if file.is_file():
        try:
            loaded = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ClientError(f"{file}: not a JSON object like {{\"server\": URL, \"token\": TOKEN}} ({exc})") from None
        if not isinstance(loaded, dict):
            raise ClientError(f"{file}: not a JSON object like {{\"server\": URL, \"token\": TOKEN}}")
        stored = loaded
        if file.stat().st_mode & (stat.S_IRWXG | stat.S_IRWXO) and "token" in stored:
            warning = f"{file} holds your token and others on this machine can read it: chmod 600 {file}"
    chosen = server or os.environ.get("ARENA_SERVER") or stored.get("server") or DEFAULT_SERVER
    key = token or os.environ.get("ARENA_TOKEN") or stored.get("token")
    return Settings(str(chosen).rstrip("/"), str(key) if key else None, warning)


def pack(path: Path) -> bytes:
    """An archive's bytes as they are, or a folder packed as tar.gz (arena.build.pack: .arenaignore,
    build outputs left out, hard links as their content; manifest.json must be at its top)."""
    if path.is_file():
        if not path.name.endswith(ARCHIVES):
            raise ClientError(f"{path}: give a folder with manifest.json, or a .zip / .tar.gz archive of one")
        return path.read_bytes()
    if not path.is_dir():
        raise ClientError(f"{path}: no such folder or archive")
    try:
        return pack_bot_folder(str(path)).data
    except BuildError as exc:
        raise ClientError(str(exc)) from None


RETRY_S = 120.0  # how long a GET goes on trying through a server restart
RETRY_POLL_S = 2.0


class Client:
    def __init__(self, config: Settings, transport: httpx.BaseTransport | None = None, retry_s: float = RETRY_S,
                 on_retry: Callable[[str], None] | None = None, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.retry_s, self.on_retry, self.sleep, self.clock = retry_s, on_retry, sleep, clock
        headers = {"Authorization": f"Bearer {config.token}"} if config.token else {}
        self.http = httpx.Client(base_url=config.server, headers=headers, timeout=60.0, transport=transport)

    def close(self) -> None:
        self.http.close()

    def _request(self, method: str, path: str, retry: bool, **kw: Any) -> httpx.Response:
        """One request; a GET (`retry`) goes on trying for `retry_s` while the server does not answer
        (a restart), a POST only while nothing reached it (connection refused)."""
        deadline = self.clock() + (self.retry_s if retry else 0.0)
        told = False
        while True:
            try:
                return self.http.request(method, path, **kw)
            except httpx.HTTPError as exc:
                again = isinstance(exc, httpx.TransportError) if method == "GET" else isinstance(exc, httpx.ConnectError)
                if not (again and self.clock() < deadline):
                    raise
                if not told and self.on_retry is not None:
                    self.on_retry(f"the server at {self.config.server} does not answer ({exc}); "
                                  f"trying again for up to {self.retry_s:.0f} s")
                    told = True
                self.sleep(RETRY_POLL_S)

    def call(self, method: str, path: str, ok: tuple[int, ...] = (200,), retry: bool = False,
             **kw: Any) -> tuple[int, dict[str, Any]]:
        try:
            response = self._request(method, path, retry, **kw)
        except httpx.HTTPError as exc:
            raise ClientError(f"cannot reach the server at {self.config.server}: {exc} "
                              "(set --server, ARENA_SERVER or the config file)") from None
        try:
            body = response.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            raise ClientError(f"{self.config.server}{path}: HTTP {response.status_code}, not an arena server's answer")
        if response.status_code == 401:
            raise ClientError(f"the server refused the token: {clean(body.get('error', ''), 300)}")
        if response.status_code not in ok:
            raise ClientError(f"{self.config.server}: {clean(body.get('error', f'HTTP {response.status_code}'), 500)}")
        return response.status_code, body

    def submit(self, data: bytes) -> tuple[int, dict[str, Any]]:
        if not self.config.token:
            raise ClientError("no token: pass --token, set ARENA_TOKEN, or put it in " + str(config_file()))
        return self.call("POST", "/api/v1/submissions", (202, 403, 422), content=data,
                         headers={"Content-Type": "application/octet-stream"})

    def follow(self, sub: int, on_status: Callable[[str], None], timeout: float, poll: float = 1.0,
               sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic) -> dict[str, Any]:
        """The submission once its check is over (passed or refused)."""
        deadline = clock() + timeout
        seen = ""
        while True:
            try:
                _, body = self.call("GET", f"/api/v1/submissions/{sub}", retry=True)
            except ClientError as exc:
                if "cannot reach" not in str(exc):
                    raise
                raise ClientError(f"the server at {self.config.server} stopped answering for {self.retry_s:.0f} s while "
                                  f"submission {sub} was checked; the check goes on when it is back: "
                                  f"follow it later with `arena submit --follow {sub}`") from None
            status = str(body.get("status"))
            if status != seen:
                on_status(status)
                seen = status
            if status in ("passed", "refused"):
                return body
            if clock() > deadline:
                raise ClientError(f"submission {sub} is still {status} after {timeout:.0f} s; "
                                  f"follow it later with `arena submit --follow {sub}` or on the server's submit page")
            sleep(poll)

    def leaderboard(self) -> list[dict[str, Any]]:
        _, body = self.call("GET", "/api/v1/leaderboard")
        board = body.get("leaderboard")
        return board if isinstance(board, list) else []

    def bot(self, bot: int) -> dict[str, Any]:
        return self.call("GET", f"/api/v1/bots/{bot}")[1]

    def info(self) -> dict[str, Any]:
        return self.call("GET", "/api/v1")[1]


def standing(board: list[dict[str, Any]], bot: int) -> str:
    for row in board:
        if int(row.get("id", -1)) == bot:
            return (f"rank {row['rank']} of {len(board)}, rating {row['rating']:.2f} "
                    f"(mu {row['mu']:.2f}, sigma {row['sigma']:.2f}) after {row['games']} games")
    return "not on the leaderboard (not active)"


def leaderboard_text(board: list[dict[str, Any]]) -> str:
    """The leaderboard as a terminal table (every name cleaned: participants chose them)."""
    header = ("#", "bot", "version", "rating", "interval", "games", "form", "faults")
    rows = [header] + [(str(b["rank"]), f"{clean(b['participant'], 40)}/{clean(b['name'], 40)}", clean(b["version"], 24),
                        f"{b['rating']:.2f}", "{:.1f}..{:.1f}".format(*b.get("interval", [0, 0])), str(b["games"]),
                        clean(b.get("form", ""), 10), str(b["faults"])) for b in board]
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) if i in (1, 2, 6) else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))) for r in rows]
    return "\n".join(lines) if board else "no active bot yet"


LEADERBOARD_COLUMNS = ("rank", "id", "participant", "name", "version", "status", "rating", "mu", "sigma", "games", "wins",
                       "faults", "form")


def leaderboard_csv(board: list[dict[str, Any]]) -> str:
    """The leaderboard as CSV (`arena ladder status --csv`, `arena ladder export --format csv`), names cleaned."""
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(LEADERBOARD_COLUMNS)
    for b in board:
        writer.writerow([csv_cell(b.get(c)) if isinstance(b.get(c), str) else b.get(c, "") for c in LEADERBOARD_COLUMNS])
    return out.getvalue()
