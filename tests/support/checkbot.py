"""Made-up check-bot evidence: a clean run of a few games that a test then spoils one fact at a time."""

from __future__ import annotations

from arena.checkbot.driver import CheckedGame, GameConfig
from arena.checkbot.referee_game import RefereeRun
from arena.checkbot.runner import CheckOptions, Evidence, Handshake, Shutdown
from arena.games.registry import get_game


def evidence(games: int = 3, game: str = "kododo", **options: object) -> Evidence:
    spec = get_game(game)
    configs = [GameConfig(2, {})]
    ev = Evidence(CheckOptions(game, ("bot",), **options), spec, configs)  # type: ignore[arg-type]
    ev.handshake = Handshake(elapsed_ms=50.0, name="b", version="1")
    ev.probe_handshake = Handshake(elapsed_ms=50.0, name="b", version="1")
    ev.decision_universe = {"move": 1.0}
    ev.event_universe = {"reveal": 1.0}
    for n in range(1, games + 1):
        ev.games.append(CheckedGame(n, configs[0], 0, n, False, requests=10, latencies_ms=[1.0] * 10,
                                   decision_kinds={"move"}, event_kinds={"reveal"}, finished=True))
    ev.probe = CheckedGame(1, configs[0], 0, 9, True, requests=10, finished=True)
    ev.shutdown = Shutdown(exit_code=0, after_shutdown_ms=5.0)
    ev.rss_kb = [(n, 20_000) for n in range(games + 1)]
    ev.referee = RefereeRun(2, decisions=40)
    return ev
