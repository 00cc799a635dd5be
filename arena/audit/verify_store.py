"""`arena verify REPLAY --store STORE`: a tournament replay against the organiser's record of the game.

A replay alone cannot prove who sat where: anyone can rewrite its header's seats (and, the salts being
revealed, every commitment). The store is the organiser's record: each game's schedule place, seats
and result, and the secret that keys every game id. So the replay's game id names exactly one stored
game (the store's secret and the game's index give it), whose seed, seats (who played each one) and
result must be the replay's: swapped seat identities, a replay of another tournament or an edited
result are reported.
"""

from __future__ import annotations

from arena.replay.reader import Replay
from arena.replay.records import short
from arena.audit.verify import ReplayMismatch
from arena.core.scheduled import played_game_id, seat_entrants
from arena.results.store import Store, StoredGame


def check_against_store(replay: Replay, store: Store) -> StoredGame:
    """The stored game `replay` records; ReplayMismatch where the two disagree."""
    h = replay.header
    secret = store.secret()
    named = [g for g in store.games() if played_game_id(secret, h.game, g.scheduled) == h.game_id]
    recorded_seats = [seat.entrant for seat in h.seats]
    # A match's two games of a deal share their id: the one seated as recorded, else the first (to say why not).
    game = next((g for g in named if seat_entrants(store.entrant_names(), g.seats) == recorded_seats), named[0] if named else None)
    if game is None:
        raise ReplayMismatch(replay.source, h.line, f"'game_id': {short(h.game_id)} is no game of {store.path}")
    if game.seed != h.seed:
        raise ReplayMismatch(replay.source, h.line, f"'seed': {h.seed}, but the store played game {game.index} with seed {game.seed}")
    expected = seat_entrants(store.entrant_names(), game.seats)
    recorded = [seat.entrant for seat in h.seats]
    if recorded != expected:
        raise ReplayMismatch(replay.source, h.line, f"'seats': entrants {short(recorded)}, but the store seated "
                                                    f"{short(expected)} in game {game.index} (swapped seat identities)")
    r = replay.result
    if tuple(r.points) != tuple(game.played.points) or tuple(r.ranks) != tuple(game.ranks):
        raise ReplayMismatch(replay.source, r.line, f"the result {list(r.points)} points, ranks {list(r.ranks)}, but the "
                                                    f"store holds {list(game.played.points)} points, ranks {list(game.ranks)}")
    return game
