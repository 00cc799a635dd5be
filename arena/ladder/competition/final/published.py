"""Published results: what `arena serve CONFIG publish` (or the phase `closed`) writes from the final's store.

Into `DATA/final/published/`: `standings.json` and `standings.csv` (each place with how sure it is,
`places.py`; the statistic that decides a place said in the JSON), `results.json` (the standings and
every counted final game with its seats, result and replay's SHA-256, signed with the server's key:
`arena verify --key PUB results.json`), and `report/` (the `arena report` page of the final's store with
a viewer page per game). The standings are `arena standings` on the store with its defaults, so anyone
holding the store recomputes them. The server's `/results` page and its downloads read these files.
"""

from __future__ import annotations

import csv
import io
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.audit.results_file import file_sha256, sign_results
from arena.audit.signing import load_or_create_key, public_pem
from arena.core.scheduled import seat_entrants
from arena.errors import ServerError, StoreInUse
from arena.jsonvalue import JSON, dumps, loads
from arena.ladder.competition.final.final import final_folder, final_store, qualifying_store
from arena.ladder.competition.final.places import COLUMNS, DECIDED_BY, places
from arena.ladder.competition.phases import Change, Phase, Phases
from arena.ladder.config import ServerConfig
from arena.ladder.db import Database, borrowed
from arena.ladder.queries import Reads
from arena.results.lock import StoreLock
from arena.results.store import Store
from arena.stats.analysis import analyse
from arena.textsafe import csv_cell
from arena.web.report_page import build_report


@dataclass(frozen=True)
class Published:
    folder: Path
    standings: Path  # standings.json
    csv: Path
    results: Path  # the signed results file
    report: Path  # the report's index.html
    games: int


def published_folder(config: ServerConfig) -> Path:
    return final_folder(config) / "published"


CSV_COLUMNS = (*COLUMNS, "display_name")  # the name the ladder's pages show (a class's roster), beside the login name


def display_names(db: Database) -> dict[str, str]:
    """Each participant's name -> the name the ladder's pages show it by (its display name, else its name)."""
    return {p.name: p.latest_bot.participant if p.latest_bot is not None else p.name
            for p in Reads(db).participants() if not p.is_house}


def _ladder_history(db: Database) -> dict[str, JSON]:
    """Each participant's bot versions on the ladder: games, final rating, state (house bots apart)."""
    read = Reads(db)
    out: dict[str, JSON] = {}
    for p in read.participants():
        if p.is_house:
            continue
        out[p.name] = [{"bot": v.id, "version": v.version, "status": v.status.value, "games": v.games,
                        "rating": v.mu - 3 * v.sigma, "mu": v.mu, "sigma": v.sigma, "active": v.id == p.active_bot}
                       for v in read.versions(p.id)]
    return out


def _games(store: Path, folder: Path) -> list[JSON]:
    """Every counted game of the final: its place in the schedule, seats, result, replay and its SHA-256."""
    out: list[JSON] = []
    with Store.open_existing(store) as opened:
        names = opened.entrant_names()
        for g in opened.counted_games():
            row: dict[str, JSON] = {"game": g.index, "round": g.round, "seats": list[JSON](seat_entrants(names, g.seats)),
                                    "ranks": list(g.ranks), "points": list(g.played.points)}
            if g.replay_path is not None and Path(g.replay_path).is_file():
                replay = Path(g.replay_path)
                row["replay"] = os.path.relpath(replay, folder)
                row["replay_sha256"] = file_sha256(replay)
            out.append(row)
    return out


def standings_csv(rows: list[dict[str, JSON]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for r in rows:
        writer.writerow(["" if r.get(c) is None else csv_cell(r.get(c), 600) if isinstance(r.get(c), str) else r.get(c)
                         for c in CSV_COLUMNS])
    return out.getvalue()


def publish(config: ServerConfig, db: Database | None = None, viewers: bool = True) -> Published:
    """Write the published results from the final's store (ServerError when no final was played)."""
    store = final_store(config)
    if not store.is_file():
        raise ServerError(f"no final to publish: {store} does not exist (run `arena serve {config.path} final` first)")
    try:  # the final's run holds its store's lock: in this process (the server's button) or another (the CLI)
        lock = StoreLock(store).acquire()
    except StoreInUse:
        raise ServerError("the final is still running: publish its results (or close the competition) once it has "
                          "ended; stopped, a rerun of `arena serve CONFIG final` resumes it") from None
    try:
        return _write(config, store, db, viewers)
    finally:
        lock.release()


def _write(config: ServerConfig, store: Path, db: Database | None, viewers: bool) -> Published:
    folder = published_folder(config)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    a = analyse(store)  # `arena standings` with its defaults: what anyone recomputes from the store
    info, names = a.info, list(a.names)
    with borrowed(config.database, db) as database:
        history = _ladder_history(database)
        shown = display_names(database)
    rows = [{**p.to_json(), "display_name": shown.get(p.name, p.name)} for p in places(a.standings, a.uncertainty, names)]
    stop = info.stop.line() if info.stop is not None else (
        f"every scheduled round played ({info.counted_games} games): the stop rule did not settle the order")
    facts: dict[str, JSON] = {
        "competition": config.name, "game": config.game, "published": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "decided_by": DECIDED_BY, "confidence": a.uncertainty.confidence, "stop": stop,
        "settled": all(bool(r["settled"]) for r in rows), "games": info.counted_games, "scheduled": info.total_games,
        "standings": list[JSON](rows),
    }
    standings = folder / "standings.json"
    standings.write_bytes(dumps({**facts, "ladder": history, "display_names": dict[str, JSON](shown)}) + b"\n")
    table = folder / "standings.csv"
    table.write_text(standings_csv(rows), encoding="utf-8")
    key = load_or_create_key(config.key_file)
    signed: dict[str, JSON] = {**facts, "public_key": public_pem(key), "games": _games(store, folder)}
    if qualifying_store(config).is_file():  # the qualifying gauntlet's games too, apart (they decide who played)
        signed["qualifying_games"] = _games(qualifying_store(config), folder)
    record = sign_results(key, signed)
    results = folder / "results.json"
    results.write_bytes(dumps(record) + b"\n")
    report = build_report(store, folder / "report", viewers=viewers, public=True)
    return Published(folder, standings, table, results, report.index, info.counted_games)


def load_published(config: ServerConfig) -> dict[str, Any] | None:
    """The published standings (standings.json), or None before `publish`."""
    path = published_folder(config) / "standings.json"
    if not path.is_file():
        return None
    data: Any = loads(path.read_bytes())
    return data if isinstance(data, dict) else None


def close_with_results(config: ServerConfig, db: Database, phases: Phases, who: str,
                       running: bool = False) -> tuple[Change, Published | None]:
    """Move the competition from `final` to `closed`, the final's results published first: every page is
    read-only once closed, so this is their last write. PhaseError when not in the final; ServerError while
    the final is still running (nothing published, the phase unchanged). A competition that played no final
    closes with nothing published (its ladder is its result; /results says no final was played)."""
    if phases.phase is not Phase.FINAL:
        return phases.advance(Phase.CLOSED, who), None  # PhaseError saying which step comes next
    if running:
        raise ServerError("the final is still running: close the competition once it has ended")
    published = publish(config, db) if final_store(config).is_file() else None
    return phases.advance(Phase.CLOSED, who), published
