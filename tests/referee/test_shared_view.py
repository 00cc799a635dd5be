"""The part of the view every seat shares (`GameState.public_view`) is encoded once a step and placed in
every seat's request as those bytes: the requests are byte for byte what encoding each whole view gives."""

from __future__ import annotations

import pytest

from arena.games.conformance import ContractViolation, check_game
from arena.games.kododo.state import KododoState
from arena.games.registry import get_game
from arena.jsonvalue import dumps_line, loads
from arena.referee.referee import play_game
from tests.support.fake_transport import FakeBot, FakeClock, FakeTransport, answer_after
from tests.support.patchable import patchable_kododo


def requests_sent(players: int) -> list[bytes]:
    clock = FakeClock()
    transport = FakeTransport(clock)
    bots = [FakeBot(transport, answer_after([0.001 * (i + 1)]), name=f"f{i}") for i in range(players)]
    sent: list[bytes] = []
    for bot in bots:
        def send(data: bytes, bot: FakeBot = bot) -> bool:
            sent.append(data)
            return FakeBot.send(bot, data)
        bot.send = send  # type: ignore[method-assign]
    play_game("kododo", bots, seed=7, clock=clock, transport=transport)
    return sent


def unshared(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing shared: every request encodes its seat's whole view, as before the split."""
    own, public = KododoState.own_view, KododoState.public_view
    monkeypatch.setattr(patchable_kododo(monkeypatch), "own_view", lambda self, seat: {**own(self, seat), **public(self)})
    monkeypatch.setattr(patchable_kododo(monkeypatch), "public_view", lambda self: {})


@pytest.mark.parametrize("players", [2, 4])
def test_requests_are_the_bytes_of_each_whole_view(monkeypatch, players):
    shared = requests_sent(players)
    # Every message is the canonical encoding of what it says: the parts placed as bytes (the public view,
    # the events every seat gets) are exactly what encoding them in place gives.
    assert all(dumps_line(loads(line)) == line for line in shared)
    unshared(monkeypatch)
    assert requests_sent(players) == shared
    assert len(shared) >= 18 * players  # start, 3 turns of every round, end


def test_control_a_public_part_that_differs_from_the_view_changes_the_requests_and_fails_the_contract(monkeypatch):
    honest = requests_sent(2)
    own, public = KododoState.own_view, KododoState.public_view
    monkeypatch.setattr(patchable_kododo(monkeypatch), "view", lambda self, seat: {**own(self, seat), **public(self)})  # the truth
    monkeypatch.setattr(patchable_kododo(monkeypatch), "public_view", lambda self: {**public(self), "draw_pile": 0})  # a lie
    assert requests_sent(2) != honest
    with pytest.raises(ContractViolation, match="together are not view"):
        check_game(get_game("kododo"), 2, 7)
