"""The games in progress, their latest frames, and what one viewer's share of each is.

The coordinator says when a game begins (`begin`), ends with a result (`end`: from then on it is public,
as every finished game is) or is dropped (`drop`: a game played again, or discarded, is never revealed;
a tournament plays a lost game again on the same deal). Frames come from the taps (`frame`), in any
thread. Who may see what is not decided here: the caller passes the viewer's share, from the one rule
(`arena.ladder.access.live_share`): the seats whose views it sees as played, and whether it sees every
seat's view `delay_s` behind the play (None: only once the game is over). Time is the injected clock.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from arena.jsonvalue import JSON, loads
from arena.live.frame import LiveFrame
from arena.textsafe import NAME_CHARS, clean

KEEP_ENDED_S = 300.0  # an ended game's last frame stays this long (its open pages show the end)


@dataclass
class _Frame:
    at: float
    step: int
    public: dict[str, JSON]
    own: list[JSON]
    events: list[JSON]
    deciding: list[JSON]


@dataclass
class _Game:
    id: int
    players: list[str]
    seats: list[int]
    started: float
    deal: int | None = None  # games on one deal (seat rotations, a duplicate deal's tables) share it
    frames: deque[_Frame] = field(default_factory=deque)
    ended: float | None = None


class LiveBoard:
    def __init__(self, game: str, delay_s: float | None = None, clock: Callable[[], float] = time.monotonic,
                 keep_ended_s: float = KEEP_ENDED_S) -> None:
        self.game, self.delay_s, self.clock, self.keep_ended_s = game, delay_s, clock, keep_ended_s
        self.games: dict[int, _Game] = {}
        self.lock = threading.Lock()
        self.frames_taken = 0

    # --- the coordinator's side --------------------------------------------------------------------

    def begin(self, game_id: int, players: Sequence[str], seats: Sequence[int] = (), deal: int | None = None) -> None:
        """Game `game_id` starts: `players` its seats' names, `seats` what each seat is to the rule (bot ids),
        `deal` what it shares with the other games on its deal."""
        with self.lock:
            self._forget()
            self.games[game_id] = _Game(game_id, [clean(p, NAME_CHARS) for p in players], list(seats), self.clock(), deal=deal)

    def frame(self, frame: LiveFrame) -> None:
        body = loads(frame.data)
        if not isinstance(body, dict):
            return
        now = self.clock()
        with self.lock:
            g = self.games.get(frame.game)
            if g is None or g.ended is not None:
                return  # not begun, or already over: a late frame changes nothing
            public, own = body.get("public"), body.get("own")
            events, deciding = body.get("events"), body.get("deciding")
            g.frames.append(_Frame(now, frame.step, public if isinstance(public, dict) else {},
                                   own if isinstance(own, list) else [], events if isinstance(events, list) else [],
                                   deciding if isinstance(deciding, list) else []))
            self.frames_taken += 1
            self._prune(g, now)

    def end(self, game_id: int) -> None:
        """The game ended with a result: public from now on."""
        with self.lock:
            g = self.games.get(game_id)
            if g is not None and g.ended is None:
                g.ended = self.clock()

    def drop(self, game_id: int) -> None:
        """The game will not be finished (discarded, or to be played again): forgotten, never revealed."""
        with self.lock:
            self.games.pop(game_id, None)

    def _prune(self, g: _Game, now: float) -> None:
        """Keep the latest frame, and for the delayed view every frame newer than the delay plus the one before them."""
        keep_after = now - self.delay_s if self.delay_s is not None else float("inf")
        while len(g.frames) > 1 and g.frames[1].at <= keep_after:
            g.frames.popleft()

    def _forget(self) -> None:
        now = self.clock()
        for gid in [i for i, g in self.games.items() if g.ended is not None and now - g.ended > self.keep_ended_s]:
            del self.games[gid]

    # --- the spectators' side ----------------------------------------------------------------------

    def playing(self) -> list[dict[str, Any]]:
        """The games in progress (not the ended ones), oldest first: id, players, step, seconds played."""
        now = self.clock()
        with self.lock:
            self._forget()
            return [{"id": g.id, "players": list(g.players), "step": g.frames[-1].step if g.frames else -1,
                     "seconds": round(now - g.started, 1)} for g in self.games.values() if g.ended is None]

    def seats(self, game_id: int) -> list[int] | None:
        """What each seat of a game is to the rule (a ladder game's bot ids), None for no such game."""
        with self.lock:
            g = self.games.get(game_id)
            return None if g is None else list(g.seats)

    def siblings(self, game_id: int) -> list[int]:
        """What each seat is to the rule (bot ids) at every other game on the same deal still being played."""
        with self.lock:
            g = self.games.get(game_id)
            if g is None or g.deal is None:
                return []
            return [b for o in self.games.values() if o.id != game_id and o.deal == g.deal and o.ended is None for b in o.seats]

    def over(self, game_id: int) -> bool:
        with self.lock:
            g = self.games.get(game_id)
            return g is not None and g.ended is not None

    def show(self, game_id: int, seats: frozenset[int], delayed: bool) -> dict[str, JSON] | None:
        """What a viewer whose share is `seats` (their views as played) and `delayed` (every seat's view,
        `delay_s` behind) sees now (the rule, `access.live_share`, gives every seat once the game is over,
        unless its deal is still being played at another table). None: no such game here."""
        now = self.clock()
        with self.lock:
            g = self.games.get(game_id)
            if g is None:
                return None
            n = len(g.players)
            over = g.ended is not None
            shown = seats  # once over too: the rule gives every seat then, unless the deal is still played
            latest = g.frames[-1] if g.frames else None
            out: dict[str, JSON] = {"id": g.id, "game": self.game, "players": list(g.players), "over": over,
                                    "delay_s": self.delay_s, "shown": sorted(shown), "full": None}
            out.update(_drawn(latest, shown))
            if delayed and not over and self.delay_s is not None:
                old = [f for f in g.frames if f.at <= now - self.delay_s]
                if old:
                    out["full"] = {**_drawn(old[-1], frozenset(range(n))), "behind_s": round(now - old[-1].at, 1)}
            return out


def _drawn(frame: _Frame | None, seats: frozenset[int]) -> dict[str, JSON]:
    """One frame as drawn for `seats`: the public view, those seats' whole views, the events they may see."""
    if frame is None:
        return {"step": -1, "pub": {}, "views": {}, "events": [], "deciding": []}
    views: dict[str, JSON] = {}
    for s in sorted(seats):
        own = frame.own[s] if 0 <= s < len(frame.own) else {}
        views[str(s)] = {**frame.public, **(own if isinstance(own, dict) else {})}
    events = [e for e in frame.events if not isinstance(e, dict) or _event_seen(e, seats)]
    return {"step": frame.step, "pub": dict(frame.public), "views": views, "events": events, "deciding": list(frame.deciding)}


def _event_seen(event: dict[str, JSON], seats: frozenset[int]) -> bool:
    """As the replay viewer's rule: an integer "to" is a private event of that seat; anything else is public."""
    to = event.get("to")
    return not isinstance(to, int) or isinstance(to, bool) or to in seats
