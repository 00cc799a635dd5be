"""Accounts for a class: a CSV imported all or nothing (every mistake listed), a token sheet written once
(0600), each person's own token (teams share a participant), reset and revoke, display names on the pages."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from arena.errors import AccountError
from arena.ladder.accounts import activate_bot, participant_by_token
from arena.ladder.competition import roster
from arena.ladder.config import parse
from arena.ladder.db import Database
from arena.ladder.service import Server
from tests.server.inprocess import ADMIN, client

CLASS = "name,display name,email,team\nada,Ada Lovelace,ada@example.org,\nalan,Alan T.,,bletchley\njoan,Joan C.,,bletchley\n"


def db(tmp_path: Path) -> Database:
    return Database(tmp_path / "server.sqlite")


def people(d: Database) -> int:
    row = d.one("SELECT COUNT(*) AS n FROM people")
    return int(row["n"]) if row else -1


def test_an_import_gives_each_person_a_token_and_a_team_one_participant(tmp_path: Path) -> None:
    d = db(tmp_path)
    sheet = tmp_path / "tokens.csv"
    issued, written = roster.import_csv(d, _csv(tmp_path, CLASS), sheet)
    assert issued is not None and written == sheet and [p.login for p in issued] == ["ada", "alan", "joan"]
    assert stat.S_IMODE(sheet.stat().st_mode) == 0o600
    lines = sheet.read_text().splitlines()
    assert lines[0] == "name,display name,team,token" and len(lines) == 4
    who = {p.login: participant_by_token(d, p.token) for p in issued}
    assert who["ada"] is not None and who["ada"].name == "ada"
    assert who["alan"] is not None and who["joan"] is not None and who["alan"].id == who["joan"].id
    assert who["alan"].name == "bletchley" and who["alan"].id != who["ada"].id


def test_a_csv_with_duplicate_and_invalid_names_lists_every_mistake_and_writes_nothing(tmp_path: Path) -> None:
    d = db(tmp_path)
    bad = ("name,display name,email,team\nada,Ada,,\nada,Ada again,,\nbob smith,Bob,,\ncy,,not-an-email,\n"
           "dee,Dee\x1b[31m,,\neve,Eve,,bad team!\n")
    sheet = tmp_path / "tokens.csv"
    with pytest.raises(AccountError) as refused:
        roster.import_csv(d, _csv(tmp_path, bad), sheet)
    text = str(refused.value)
    for expected in ("line 3: name 'ada' is already at line 2", "line 4: name 'bob smith'", "line 5: display name ''",
                     "line 5: email 'not-an-email'", "line 6: display name", "line 7: team 'bad team!'", "nothing imported"):
        assert expected in text, text
    assert people(d) == 0 and not sheet.exists() and not roster.partial(sheet).exists()
    good, _ = roster.import_csv(d, _csv(tmp_path, CLASS), sheet)  # the control: a clean file goes in
    assert good is not None and people(d) == 3


def test_names_already_taken_are_all_listed_and_nothing_is_written(tmp_path: Path) -> None:
    d = db(tmp_path)
    roster.import_csv(d, _csv(tmp_path, CLASS), tmp_path / "one.csv")
    again = CLASS.replace("ada,", "ada,").replace("joan,", "zoe,") + "new,New Person,,\n"
    with pytest.raises(AccountError) as refused:
        roster.import_csv(d, _csv(tmp_path, again), tmp_path / "two.csv")
    assert "'ada' is taken" in str(refused.value) and "'alan' is taken" in str(refused.value)
    assert people(d) == 3 and not (tmp_path / "two.csv").exists()
    assert d.one("SELECT 1 FROM people WHERE login = 'new'") is None


def test_the_token_sheet_is_written_once(tmp_path: Path) -> None:
    d = db(tmp_path)
    sheet = tmp_path / "tokens.csv"
    sheet.write_text("someone else's file\n")
    with pytest.raises(AccountError, match="written once and never overwritten"):
        roster.import_csv(d, _csv(tmp_path, CLASS), sheet)
    assert sheet.read_text() == "someone else's file\n" and people(d) == 0


def test_a_sheet_that_cannot_be_written_keeps_no_account(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    d = db(tmp_path)

    def full(*_a: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("arena.ladder.competition.roster.os.fsync", full)
    with pytest.raises(AccountError, match="No space left on device; nothing imported"):
        roster.import_csv(d, _csv(tmp_path, CLASS), tmp_path / "tokens.csv")
    assert people(d) == 0 and not list(tmp_path.glob("tokens.csv*"))


def test_reset_and_revoke_a_persons_token(tmp_path: Path) -> None:
    d = db(tmp_path)
    issued, _ = roster.import_csv(d, _csv(tmp_path, CLASS), tmp_path / "t.csv")
    assert issued is not None
    tokens = {p.login: p.token for p in issued}
    new = roster.reset_token(d, "alan")
    assert participant_by_token(d, tokens["alan"]) is None and participant_by_token(d, new) is not None
    assert participant_by_token(d, tokens["joan"]) is not None  # the teammate's token is untouched
    roster.revoke_token(d, "joan")
    assert participant_by_token(d, tokens["joan"]) is None
    assert [a["revoked"] for a in roster.accounts(d)] == [False, False, True]
    with pytest.raises(AccountError, match="no account of that name; nothing changed"):
        roster.reset_token(d, "nobody")
    with pytest.raises(AccountError, match="is a team"):
        roster.revoke_token(d, "bletchley")


def _server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Server:
    monkeypatch.setenv("ARENA_ADMIN_TOKEN", ADMIN)
    return Server(parse({"game": "kododo", "players": 2, "data": str(tmp_path / "data")}, tmp_path / "s.yaml"), sandbox=False)


def test_the_admin_api_imports_resets_and_revokes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = _server(tmp_path, monkeypatch)
    admin = client(server, ADMIN)
    bad = admin.post("/api/v1/admin/accounts", json={"accounts": [{"name": "a b", "display_name": "A"},
                                                                   {"name": "c", "display_name": ""}]})
    assert bad.status_code == 400 and "accounts[0]: name 'a b'" in bad.json()["error"] and "accounts[1]: display name" in bad.json()["error"]
    assert admin.get("/api/v1/admin/accounts").json()["accounts"] == []
    made = admin.post("/api/v1/admin/accounts", json={"accounts": [{"name": "ada", "display_name": "Ada L."},
                                                                    {"name": "alan", "display_name": "Alan", "team": "t1"}]})
    assert made.status_code == 201
    tokens = {a["name"]: a["token"] for a in made.json()["accounts"]}
    assert client(server, tokens["alan"]).get("/api/v1/me").json()["participant"] == "t1"
    taken = admin.post("/api/v1/admin/accounts", json={"accounts": [{"name": "ada", "display_name": "x"}]})
    assert taken.status_code == 409 and "'ada' is taken" in taken.json()["error"]
    unknown = admin.post("/api/v1/admin/accounts/nobody/reset")
    assert unknown.status_code == 404 and "no account of that name" in unknown.json()["error"]
    reset = admin.post("/api/v1/admin/accounts/ada/reset")  # the control: a known name
    assert reset.status_code == 200
    assert client(server, tokens["ada"]).get("/api/v1/me").status_code == 401
    assert client(server, reset.json()["token"]).get("/api/v1/me").status_code == 200
    assert admin.post("/api/v1/admin/accounts/nobody/revoke").status_code == 404
    assert admin.post("/api/v1/admin/accounts/alan/revoke").status_code == 200
    assert client(server, tokens["alan"]).get("/api/v1/me").status_code == 401
    assert client(server, tokens["alan"]).post("/api/v1/admin/accounts/ada/reset").status_code == 401


def test_pages_show_display_names_sanitised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = _server(tmp_path, monkeypatch)
    hostile = "<img src=x onerror=alert(1)>\u202eevil"
    with pytest.raises(AccountError):  # bidi and control characters are refused at the import
        server.import_accounts(roster.check_people([("x", {"name": "mal", "display name": hostile})], "t"))
    shown = "<b>Mal</b> & co"
    (mal,) = server.import_accounts(roster.check_people([("x", {"name": "mal", "display name": shown})], "t"))
    who = server.participant_by_token(mal.token)
    assert who is not None
    activate_bot(server.db, who.id, None, "bot", "1", ("true",), str(tmp_path))
    page = client(server).get("/").text
    assert "&lt;b&gt;Mal&lt;/b&gt; &amp; co / bot" in page and "<b>Mal</b>" not in page
    assert ">mal /" not in page  # the login name is not what the page shows


def test_the_admin_page_resets_a_token_with_its_csrf_form(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import re

    from tests.server.inprocess import ORIGIN

    server = _server(tmp_path, monkeypatch)
    (ada,) = server.import_accounts(roster.check_people([("x", {"name": "ada", "display name": "Ada"})], "t"))
    admin = client(server, ADMIN)
    page = admin.get("/admin").text
    assert 'action="/admin/accounts/ada/reset"' in page and 'action="/admin/accounts/ada/revoke"' in page
    csrf = re.search(r'name="csrf" value="(\w+)"', page).group(1)  # type: ignore[union-attr]
    assert admin.post("/admin/accounts/ada/reset", data={"csrf": "no"}, headers={"Origin": ORIGIN}).status_code == 403
    assert server.participant_by_token(ada.token) is not None
    shown = admin.post("/admin/accounts/ada/reset", data={"csrf": csrf}, headers={"Origin": ORIGIN})
    new = re.search(r"<code>([\w-]+)</code>", shown.text).group(1)  # type: ignore[union-attr]
    assert server.participant_by_token(ada.token) is None and server.participant_by_token(new) is not None
    assert admin.post("/admin/accounts/zed/revoke", data={"csrf": csrf}, headers={"Origin": ORIGIN}).status_code == 404


def _csv(tmp_path: Path, text: str) -> Path:
    path = tmp_path / f"class-{abs(hash(text))}.csv"
    path.write_text(text)
    return path
