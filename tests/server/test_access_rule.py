"""The access rule (`arena.ladder.access`) over every page, API answer and download, in one table.

One finished ladder game (a real recorded replay, `golden/marked-kododo.jsonl`, played by
`golden/marked.py`): seat 0 is alice's bot, seat 1 bob's. Each bot wrote a secret marker to its stderr
(`STDERR-MARK-k`) and one into a line the referee refused (its fault's detail, `DETAIL-MARK-k`); its
command lies under a host path (`HOSTPATH-MARK`); seat 1's first hand is known. For each role
(anonymous, the opponent bob, the owner alice, the organiser) the test fetches every route and
records which markers each answer holds; the table says exactly where each may appear. The control
turns the rule off (every role may see everything) and the same table then fails.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Iterator

import pytest
from starlette.testclient import TestClient

from arena.jsonvalue import dumps
from arena.ladder import access, results
from arena.ladder.accounts import activate_bot, create_participant
from arena.ladder.ladder import publish
from arena.core.result import Played
from arena.replay import load_replay
from arena.web.frames import Perspective, viewer_data
from arena.web.replay_source import load_game_record
from tests.server.inprocess import ADMIN, client, make_server

GOLDEN = Path(__file__).parent / "golden" / "marked-kododo.jsonl"
S0, S1, D0, D1, HOST = "STDERR-MARK-0", "STDERR-MARK-1", "DETAIL-MARK-0", "DETAIL-MARK-1", "HOSTPATH-MARK"
HAND = "HAND-1"  # stands for seat 1's first hand (its JSON text, found in the page's data)
ROLES = ("anonymous", "opponent", "owner", "organiser")


class Ladder:
    def __init__(self, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.server = make_server(tmp, monkeypatch)
        db = self.server.db
        (alice, self.alice), (bob, self.bob) = create_participant(db, "alice"), create_participant(db, "bob")
        folders = [f"/srv/{HOST}/uploads/{p}/00000{p}" for p in (1, 2)]
        self.bots = [activate_bot(db, who.id, None, f"marked{s}", "1", ("python3", f"{folders[s]}/marked.py", str(s)), folders[s])
                     for s, who in enumerate((alice, bob))]
        with db.write() as conn:  # alice's check report holds her bot's stderr
            cur = conn.execute("INSERT INTO submissions(participant_id, created, status, reason, report, bot_id, folder) "
                               "VALUES(?, 0, 'passed', 'ok', ?, ?, ?)", (alice.id, f"{folders[0]}/marked.py: {S0}", self.bots[0], folders[0]))
            self.submission = int(cur.lastrowid or 0)
        self.deal = load_replay(GOLDEN).header.seed
        self.game = results.reserve(db, tuple(self.bots), self.deal)
        self.finish(self.game)
        hand = viewer_data(load_game_record(GOLDEN), Perspective(1))["views"]["1"][0]["hand"]  # type: ignore[index, call-overload]
        self.hand = json.dumps(hand).replace(" ", "")
        self.statuses: dict[tuple[str, str], int] = {}

    def finish(self, game: int) -> None:
        """Store game `game` (reserved with the bots at seats 0 and 1) as played: the golden replay."""
        replay = load_replay(GOLDEN)
        path = self.server.config.replays / f"{game:06d}-kododo.jsonl"
        shutil.copy(GOLDEN, path)
        r = replay.result
        played = Played(r.points, r.tiebreaks, r.ranks, r.game_ranks, tuple(f.to_fault() for f in r.faults), ("1", "1"),
                        r.decisions, r.duration_s)
        results.commit(self.server.db, publish(self.server.key, self.server.config.name, game, played, str(path), self.bots),
                       5, self.server.ladder.rater)

    def client(self, role: str) -> TestClient:
        return client(self.server, {"anonymous": None, "opponent": self.bob, "owner": self.alice, "organiser": ADMIN}[role])

    def routes(self) -> list[str]:
        b0, b1, g, sub = self.bots[0], self.bots[1], self.game, self.submission
        return [
            "/api/v1", "/api/v1/leaderboard", f"/api/v1/bots/{b0}", f"/api/v1/bots/{b1}", f"/api/v1/games?bot={b0}",
            f"/api/v1/games/{g}", f"/api/v1/games/{g}/replay", f"/api/v1/games/{g}/signature", "/api/v1/me",
            f"/api/v1/submissions/{sub}", f"/api/v1/bots/{b0}/files", "/api/v1/admin/health", "/api/v1/admin/participants",
            "/", "/leaderboard/table", f"/bots/{b0}", f"/bots/{b1}", f"/games/{g}", "/submit", f"/submissions/{sub}.json",
            "/admin",
        ]

    def observe(self) -> dict[tuple[str, str], set[str]]:
        seen = {}
        for role in ROLES:
            client = self.client(role)  # its own app, so its own answer cache: each role's view is made afresh
            for path in self.routes():
                response = client.get(path)
                self.statuses[(role, path)] = response.status_code
                text = response.text.replace("\\/", "/")
                found = {m for m in (S0, S1, D0, D1, HOST) if m in text}
                if self.hand in text.replace(" ", ""):
                    found.add(HAND)
                seen[(role, path)] = found
        return seen


def expected(ladder: Ladder) -> dict[tuple[str, str], set[str]]:
    """Where each marker may appear: the policy of README's "Who sees what", written out by hand."""
    b0, b1, g, sub = ladder.bots[0], ladder.bots[1], ladder.game, ladder.submission
    table: dict[tuple[str, str], set[str]] = {(role, path): set() for role in ROLES for path in ladder.routes()}
    for role in ROLES:
        table[(role, f"/games/{g}")] = {HAND}  # a finished game's every seat's view is public
    own = {"opponent": {1}, "owner": {0}, "organiser": {0, 1}}
    for role, seats in own.items():
        mine = {m for s in seats for m in ((S0, D0) if s == 0 else (S1, D1))}
        table[(role, f"/api/v1/games/{g}")] |= mine  # fault details and stderr tails
        table[(role, f"/games/{g}")] |= mine  # log lines beside each step, fault details
        for s in seats:
            b = (b0, b1)[s]
            table[(role, f"/api/v1/bots/{b}")] |= set(((S0, D0), (S1, D1))[s])
            table[(role, f"/bots/{b}")] |= set(((S0, D0), (S1, D1))[s])
    for path in (f"/api/v1/submissions/{sub}", f"/submissions/{sub}.json"):
        table[("owner", path)] = {S0}  # the check report: its participant's own
    table[("organiser", f"/bots/{b0}")] |= {S0, HOST}  # ... and the organiser's, on the bot's page, paths and all
    table[("owner", f"/bots/{b0}")] |= {S0}
    table[("organiser", f"/api/v1/bots/{b0}")] |= {HOST}  # the command as run: the server's paths
    table[("organiser", f"/api/v1/bots/{b1}")] |= {HOST}
    table[("organiser", f"/api/v1/games/{g}/replay")] = {S0, S1, D0, D1, HOST}  # the file as played
    return table


@pytest.fixture
def ladder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Ladder]:
    made = Ladder(tmp_path, monkeypatch)
    yield made
    made.server.db.close()


def test_each_role_sees_exactly_what_the_rule_allows_on_every_route(ladder: Ladder) -> None:
    seen = ladder.observe()
    want = expected(ladder)
    wrong = {k: (sorted(seen[k]), sorted(want[k])) for k in want if seen[k] != want[k]}
    assert not wrong, f"(role, route): (seen, allowed): {wrong}"
    # Nothing hid a marker by failing: every route answers, and the public ones answer everyone.
    assert all(status in (200, 401, 403, 404) for status in ladder.statuses.values()), ladder.statuses
    assert all(ladder.statuses[(role, path)] == 200 for role in ROLES for path in ladder.routes()
               if path.startswith(("/api/v1/games", "/api/v1/bots/", "/games", "/bots")) and not path.endswith("/files"))


def test_the_control_without_the_rule_every_marker_leaks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(access, "RULE", {item: frozenset(access.Role) for item in access.Item})
    ladder = Ladder(tmp_path, monkeypatch)  # made under the broken rule: its public record too
    seen = ladder.observe()
    want = expected(ladder)
    assert seen != want
    g = ladder.game
    assert {S0, S1, D0, D1} <= seen[("anonymous", f"/games/{g}")]
    assert {S0, D0} <= seen[("opponent", f"/api/v1/games/{g}")]
    assert HOST in seen[("anonymous", f"/api/v1/games/{g}/replay")]
    ladder.server.db.close()


def test_the_public_record_verifies_and_is_the_signed_file(ladder: Ladder, tmp_path: Path) -> None:
    from arena.audit.signing import check, read_public_key

    client = ladder.client("opponent")
    replay = tmp_path / "game.jsonl"
    replay.write_bytes(client.get(f"/api/v1/games/{ladder.game}/replay").content)
    (tmp_path / "game.jsonl.sig.json").write_bytes(client.get(f"/api/v1/games/{ladder.game}/signature").content)
    signed = check(replay, read_public_key(ladder.server.public_key))
    assert signed.game == ladder.game and signed.report.commitments > 0
    assert dumps(list(signed.report.points)) == dumps(list(load_replay(GOLDEN).result.points))
