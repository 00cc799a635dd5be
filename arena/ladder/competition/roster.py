"""Accounts for a class: people imported from a CSV, each with a token of their own, alone or in a team.

A CSV row is a person: `name` (their login name, as a participant's name is), `display name` (what the
pages show), and optionally `email` and `team`. A person with no team is a participant of their own
(named by their login); people with the same team share one participant (named by the team), each with
their own token, so one member's token can be reset or revoked without touching the others'.

An import is all or nothing: every mistake in the file (a bad or duplicate name, a name already taken)
is listed in one AccountError and nothing is written; otherwise every person and participant is written
in one transaction, the token sheet is written (beside it, `SHEET.partial`, mode 0600) before that
transaction commits, and given its name after. A SIGKILL before the commit leaves no account (the next
import removes the stale `.partial`); one after it leaves the accounts and `SHEET.partial` holding their
tokens, which the next import of the same file finishes (it names the sheet) instead of refusing.
"""

from __future__ import annotations

import csv
import io
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from arena.errors import AccountError
from arena.ladder.accounts import token_hash, valid_name
from arena.ladder.db import Database, now

DISPLAY_CHARS = 60
MAX_PEOPLE = 5000
SHEET_COLUMNS = ("name", "display name", "team", "token")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
_EMAIL = re.compile(r"^[^@\s]{1,64}@[^@\s]{1,190}$")


@dataclass(frozen=True)
class Person:
    login: str
    display_name: str
    email: str = ""
    team: str = ""

    @property
    def participant(self) -> str:
        return self.team or self.login


@dataclass(frozen=True)
class Issued:
    login: str
    display_name: str
    team: str
    token: str


def parse_csv(text: str, source: str = "the CSV") -> list[Person]:
    """The people in a CSV with a header row (name, display name, [email], [team]); AccountError listing every
    mistake (with its line) when there is any."""
    rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))
    if not rows:
        raise AccountError(f"{source} is empty: give a header row (name,display name,email,team) and one row a person")
    header = [h.strip().lower().replace("_", " ") for h in rows[0]]
    mistakes = [f"header: no {col!r} column (the header row names the columns: name,display name,email,team)"
                for col in ("name", "display name") if col not in header]
    mistakes += [f"header: unknown column {h!r}" for h in header if h not in ("name", "display name", "email", "team")]
    if mistakes:
        raise AccountError(f"{source}: nothing imported:\n  " + "\n  ".join(mistakes))
    items = [(f"line {n}", {h: (row[i].strip() if i < len(row) else "") for i, h in enumerate(header)})
             for n, row in enumerate(rows[1:], start=2) if any(cell.strip() for cell in row)]
    return check_people(items, source)


def check_people(items: list[tuple[str, dict[str, str]]], source: str) -> list[Person]:
    """People from (where, {name, display name, email, team}) items; AccountError listing every mistake."""
    mistakes: list[str] = []
    people: list[Person] = []
    seen: dict[str, str] = {}
    for where, cells in items:
        problems = _problems(cells)
        login = cells.get("name", "")
        if login in seen:
            problems.append(f"name {login!r} is already at {seen[login]} (each person once)")
        seen.setdefault(login, where)
        mistakes += [f"{where}: {p}" for p in problems]
        people.append(Person(login, cells.get("display name", ""), cells.get("email", ""), cells.get("team", "")))
    if len(people) > MAX_PEOPLE:
        mistakes.append(f"{len(people)} people: at most {MAX_PEOPLE} an import")
    if not people and not mistakes:
        mistakes.append("no person: one row a person after the header")
    clash = sorted({p.team for p in people if p.team} & set(seen))
    mistakes += [f"team {t!r} is also a person's name: a team needs a name of its own" for t in clash]
    if mistakes:
        raise AccountError(f"{source}: nothing imported; {len(mistakes)} mistake(s):\n  " + "\n  ".join(mistakes))
    return people


def _problems(cells: dict[str, str]) -> list[str]:
    out = []
    login, display = cells.get("name", ""), cells.get("display name", "")
    if not valid_name(login):
        out.append(f"name {login[:60]!r}: use 1-40 ASCII letters, digits, '-', '_' or '.' (it is the login name)")
    if not display or len(display) > DISPLAY_CHARS or _CONTROL.search(display):
        out.append(f"display name {display[:80]!r}: 1-{DISPLAY_CHARS} printable characters")
    email = cells.get("email", "")
    if email and not _EMAIL.match(email):
        out.append(f"email {email[:80]!r} is not an e-mail address")
    team = cells.get("team", "")
    if team and not valid_name(team):
        out.append(f"team {team[:60]!r}: use 1-40 ASCII letters, digits, '-', '_' or '.'")
    return out


def import_people(db: Database, people: list[Person], before_commit: Callable[[list[Issued]], None] = lambda _: None) -> list[Issued]:
    """Every person and participant in one transaction (AccountError listing every name already taken:
    nothing written); `before_commit(issued)` runs inside it (it writes the token sheet: if it fails, nothing
    is kept)."""
    issued: list[Issued] = []
    with db.write() as conn:
        taken = {str(r["name"]): bool(r["team"]) for r in conn.execute(
            "SELECT p.name, EXISTS(SELECT 1 FROM people x WHERE x.participant_id = p.id AND x.login != p.name) AS team "
            "FROM participants p")}
        logins = {str(r["login"]) for r in conn.execute("SELECT login FROM people")}
        clashes = [f"name {p.login!r} is taken already" for p in people if p.login in taken or p.login in logins]
        clashes += [f"team {t!r} is taken by a participant that is not a team" for t in sorted({p.team for p in people if p.team})
                    if t in taken and not taken[t]]
        if clashes:
            raise AccountError(f"nothing imported; {len(clashes)} name(s) taken (`accounts list` shows the accounts; "
                               "`accounts reset NAME` gives a person a new token):\n  " + "\n  ".join(clashes))
        ids: dict[str, int] = {str(r["name"]): int(r["id"]) for r in conn.execute("SELECT id, name FROM participants")}
        for person in people:
            owner = ids.get(person.participant)
            if owner is None:
                cur = conn.execute("INSERT INTO participants(name, token_hash, is_house, created) VALUES(?, ?, 0, ?)",
                                   (person.participant, "none:" + secrets.token_hex(16), now()))
                owner = ids[person.participant] = int(cur.lastrowid or 0)
                conn.execute("INSERT INTO display_names(participant_id, display_name) VALUES(?, ?)",
                             (owner, person.team or person.display_name))
            token = secrets.token_urlsafe(32)
            conn.execute("INSERT INTO people(participant_id, login, display_name, email, token_hash, created) "
                         "VALUES(?, ?, ?, ?, ?, ?)", (owner, person.login, person.display_name, person.email, token_hash(token), now()))
            issued.append(Issued(person.login, person.display_name, person.team, token))
        before_commit(issued)
    return issued


def reset_token(db: Database, login: str) -> str:
    """A new token for the person (or the participant made with --add-participant) named `login`; the old one
    stops working at once. AccountError for an unknown name."""
    token = secrets.token_urlsafe(32)
    _set_token(db, login, token_hash(token))
    return token


def revoke_token(db: Database, login: str) -> None:
    """The token of `login` stops working (a reset gives a new one). AccountError for an unknown name."""
    _set_token(db, login, "revoked:" + secrets.token_hex(16))


def _set_token(db: Database, login: str, digest: str) -> None:
    with db.write() as conn:
        if conn.execute("UPDATE people SET token_hash = ? WHERE login = ?", (digest, login)).rowcount:
            return
        row = conn.execute("SELECT is_house, EXISTS(SELECT 1 FROM people x WHERE x.participant_id = participants.id) AS team "
                           "FROM participants WHERE name = ?", (login,)).fetchone()
        if row is not None and row["team"]:
            raise AccountError(f"{login!r} is a team: reset or revoke one of its people by their own name "
                               "(`accounts list` shows them)")
        if row is not None and not row["is_house"]:
            conn.execute("UPDATE participants SET token_hash = ? WHERE name = ?", (digest, login))
            return
    what = "a house bot (set in the server's config): it has no token" if row is not None else "no account of that name"
    raise AccountError(f"{login[:60]!r}: {what}; nothing changed (`arena serve CONFIG accounts list` shows the accounts)")


def accounts(db: Database) -> list[dict[str, Any]]:
    """Every account, without tokens: imported people, then participants made one by one (not house bots)."""
    rows = db.all("SELECT x.login, x.display_name, x.email, p.name AS participant, x.token_hash FROM people x "
                  "JOIN participants p ON p.id = x.participant_id ORDER BY x.id")
    out = [{"name": str(r["login"]), "display_name": str(r["display_name"]), "email": str(r["email"]),
            "participant": str(r["participant"]), "revoked": str(r["token_hash"]).startswith("revoked:")} for r in rows]
    for r in db.all("SELECT p.name, p.token_hash FROM participants p WHERE p.is_house = 0 AND NOT EXISTS "
                    "(SELECT 1 FROM people x WHERE x.participant_id = p.id) ORDER BY p.id"):
        out.append({"name": str(r["name"]), "display_name": str(r["name"]), "email": "", "participant": str(r["name"]),
                    "revoked": str(r["token_hash"]).startswith("revoked:")})
    return out


# --- the token sheet ----------------------------------------------------------------------------------------


def sheet_text(issued: list[Issued]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(SHEET_COLUMNS)
    for person in issued:
        writer.writerow((person.login, person.display_name, person.team, person.token))
    return out.getvalue()


def partial(sheet: Path) -> Path:
    return sheet.with_name(sheet.name + ".partial")


def write_partial(sheet: Path, issued: list[Issued]) -> None:
    """The sheet's text in SHEET.partial (mode 0600, never over a file), on disk before the import commits."""
    fd = os.open(partial(sheet), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(sheet_text(issued))
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        partial(sheet).unlink(missing_ok=True)
        raise


def import_csv(db: Database, csv_file: Path, sheet: Path) -> tuple[list[Issued] | None, Path]:
    """`accounts import`: the people of `csv_file` imported, their tokens in `sheet` (written once: an existing
    sheet is refused before anything). (None, sheet) when an import of this file cut short after its commit
    is finished here (its sheet named)."""
    try:
        text = csv_file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AccountError(f"cannot read {csv_file}: {exc}") from None
    people = parse_csv(text, str(csv_file))
    if sheet.exists():
        raise AccountError(f"the token sheet {sheet} exists already: it is written once and never overwritten; "
                           "give another with --sheet, or move it away")
    if partial(sheet).exists():
        logins = {str(r["login"]) for r in db.all("SELECT login FROM people")}
        if all(p.login in logins for p in people):  # the last import of this file committed: finish it
            os.link(partial(sheet), sheet)
            partial(sheet).unlink()
            return None, sheet
        partial(sheet).unlink()  # an import cut short before its commit: its tokens never worked
    try:
        issued = import_people(db, people, lambda done: write_partial(sheet, done))
    except OSError as exc:
        raise AccountError(f"cannot write the token sheet {partial(sheet)}: {exc}; nothing imported") from None
    os.link(partial(sheet), sheet)  # never over a file
    partial(sheet).unlink()
    return issued, sheet
