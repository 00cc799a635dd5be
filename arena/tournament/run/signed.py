"""Every tournament game's replay signed with the organiser's key (issue 36, item 17).

A replay's header names who sat in each seat, and anyone holding it can rewrite those names (the
salts being revealed, every commitment too) into a replay `arena verify` accepts by the rules. So the
coordinator signs, as it stores each game, the replay file's SHA-256 with the game's place, id, the
seats' names and the result (`arena.audit.signing.sign_tournament_replay`): the record
`REPLAY.sig.json` lies beside the replay, and `arena verify --key PUB REPLAY` proves the file is the
one the organiser stored. The key is the organiser's (`arena run --key FILE`; by default
`STORE.key.pem` beside the results store, made on the first run, mode 0600, its public half
`STORE.pub.pem` beside it).
"""

from __future__ import annotations

from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from arena.audit.signing import organiser_key, organiser_key_path, sign_tournament_replay
from arena.core.scheduled import seat_entrants
from arena.errors import OutputError
from arena.results.stored import StoredGame
from arena.tournament.config.tournament import TournamentConfig


class ReplaySigner:
    """Signs each stored game's replay; one per run."""

    def __init__(self, config: TournamentConfig, key: Ed25519PrivateKey) -> None:
        self.tournament = config.name
        self.names = list(config.names)
        self.key = key

    @classmethod
    def for_run(cls, config: TournamentConfig, key_file: Path | None) -> "ReplaySigner | None":
        """None when the run keeps no replays (nothing to sign)."""
        if config.replays is None:
            return None
        path = key_file if key_file is not None else organiser_key_path(config.store)
        try:
            if key_file is None:  # beside the store, whose folder the run makes anyway (it may not be made yet)
                path.parent.mkdir(parents=True, exist_ok=True)
            return cls(config, organiser_key(path))
        except OSError as exc:
            raise OutputError(f"cannot read or make the organiser's signing key {path}: {exc.strerror or exc} "
                              "(give another with arena run --key FILE)") from None

    def sign(self, game: StoredGame) -> None:
        if game.replay_path is None:
            return
        result = {"points": list(game.played.points), "ranks": list(game.ranks)}
        try:
            sign_tournament_replay(self.key, Path(game.replay_path), self.tournament, game.index,
                                   seat_entrants(self.names, game.seats), dict(result))
        except OSError as exc:
            raise OutputError(f"cannot sign the replay {game.replay_path}: {exc.strerror or exc} "
                              "(the coordinator signs every replay: the replays folder must be readable here)") from None
