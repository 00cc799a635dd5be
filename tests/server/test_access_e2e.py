"""The access rule end to end, against a real `arena serve` on loopback with the sandbox: a participant's
bot writes a marker to its stderr and answers with a marked illegal action in its ladder games; each
role (anonymous, an opponent, the owner, the organiser) reads the game, the bot and the replay over
HTTP, and the marker and the server's upload path are where the rule (`arena.ladder.access`) allows."""

from __future__ import annotations

from typing import Iterator

import pytest

from tests.server.bots import hostile, python_random
from tests.server.server import ADMIN, ServerProcess

pytestmark = [pytest.mark.process, pytest.mark.sandbox]

MARKER = "hostile-stderr"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    srv = ServerProcess(tmp_path_factory.mktemp("access-e2e"), fault_limit=10**9).start()
    yield srv
    srv.stop()


def test_each_role_reads_only_its_share_of_a_real_ladder_game(server: ServerProcess) -> None:
    tokens = {"owner": server.add("mallory"), "opponent": server.add("olga")}
    r = server.post("/api/v1/submissions", tokens["owner"], content=hostile())
    assert r.status_code == 202, r.text
    bot = server.wait_submission(r.json()["submission"], tokens["owner"])["bot"]
    r = server.post("/api/v1/submissions", tokens["opponent"], content=python_random())
    assert server.wait_submission(r.json()["submission"], tokens["opponent"])["status"] == "passed"
    (script,) = server.data.glob("uploads/*/*/hostile.py")  # from now on its ladder games carry the marker
    (script.parent / "misbehave").write_text("1")
    folder = str(script.parent)

    def faulty() -> int | None:
        faults = server.get(f"/api/v1/bots/{bot}", tokens["owner"]).json()["faults"]
        return next((int(f["game"]) for f in faults if f.get("stderr_tail")), None)

    game = int(server.wait("a ladder game of the marked bot with its fault", faulty))
    # The ladder paused, so every role reads the same finished games: a game's hands (and its owner's stderr) are
    # held while another table of its deal waits, and a ladder still playing would change what each page lists.
    assert server.post("/api/v1/admin/ladder/pause", ADMIN).status_code == 200
    server.wait("the games in flight to end", lambda: server.get("/api/v1").json()["in_flight"] == 0)
    tokens["anonymous"], tokens["organiser"] = "", ADMIN
    routes = [f"/api/v1/games/{game}", f"/api/v1/bots/{bot}", f"/api/v1/games/{game}/replay", f"/games/{game}", f"/bots/{bot}"]
    seen = {}
    for role, token in tokens.items():
        cookies = {"arena_session": token} if token else {}
        for path in routes:
            r = server.get(path, token or None, cookies=cookies)
            assert r.status_code == 200, (role, path, r.status_code)
            text = r.text.replace("\\/", "/")
            seen[(role, path)] = {m for m, there in (("marker", MARKER in text), ("path", folder in text)) if there}
    mine = {"marker"}
    want = {(role, path): set() for role in tokens for path in routes}
    for role in ("owner", "organiser"):
        for path in routes:
            want[(role, path)] = set(mine)
    want[("owner", f"/api/v1/games/{game}/replay")] = set()  # the download is the public record for participants
    want[("organiser", f"/api/v1/games/{game}/replay")] = {"marker", "path"}  # the file as played
    want[("organiser", f"/api/v1/bots/{bot}")] = {"marker", "path"}  # the command as run
    want[("organiser", f"/bots/{bot}")] = {"marker", "path"}  # the check's report as written
    assert seen == want, {k: (seen[k], want[k]) for k in want if seen[k] != want[k]}

    # Every ladder game of the bot has its own game id (issue 36, item 3): read from the files as played.
    games = [g["id"] for g in server.get(f"/api/v1/games?bot={bot}").json()["games"]]
    ids = [server.get(f"/api/v1/games/{g}/replay", ADMIN).text.split('"game_id":"', 1)[1].split('"', 1)[0] for g in games]
    assert len(games) >= 2 and len(set(ids)) == len(ids), ids
