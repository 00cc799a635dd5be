"""The game contract: what the referee, the tournament and the tests may rely on of every game.

A game is a pure, deterministic state machine (no I/O, no clock, randomness only from a seeded `Rng`
inside the state). One contract covers sequential and simultaneous play: at each step the state names
the seats that decide now, one or several, and `apply` takes all their decisions at once. Hidden
information is handled by building each seat's view from an allow-list of what that seat may know.
"""

from __future__ import annotations

import abc
import enum
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Mapping, Sequence, final

from mypy_extensions import mypyc_attr

from arena.errors import GameOptionError, IllegalAction, SeatCountError
from arena.core.ranking import competition_ranks
from arena.jsonvalue import JSON

Seat = int


class Mode(enum.Enum):
    """How a game asks for decisions: the referee needs no more than this, the docs say it to authors."""

    SEQUENTIAL = "sequential"  # exactly one seat decides at each step
    SIMULTANEOUS = "simultaneous"  # several seats decide at once, in secret
    MIXED = "mixed"  # both kinds of step occur


@mypyc_attr(native_class=False)  # a plain class even compiled: picklable, and tests may patch it
@dataclass(frozen=True)
class Option:
    """One game option, typed and bounded so a config typo is refused before a game starts."""

    name: str
    type: type  # bool, int or str
    default: Any
    description: str
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None

    def coerce(self, value: Any, game: str) -> Any:
        where = f"option {self.name!r} of game {game!r}"
        if self.type is bool:
            if not isinstance(value, bool):
                raise GameOptionError(f"{where} must be true or false, got {value!r}")
        elif self.type is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise GameOptionError(f"{where} must be a whole number, got {value!r}")
            if self.minimum is not None and value < self.minimum:
                raise GameOptionError(f"{where} must be at least {self.minimum}, got {value}")
            if self.maximum is not None and value > self.maximum:
                raise GameOptionError(f"{where} must be at most {self.maximum}, got {value}")
        elif self.type is str:
            if not isinstance(value, str):
                raise GameOptionError(f"{where} must be a string, got {value!r}")
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(repr(c) for c in self.choices)
            raise GameOptionError(f"{where} must be one of {allowed}, got {value!r}")
        return value

    def describe(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {
            "name": self.name,
            "type": self.type.__name__,
            "default": self.default,
            "description": self.description,
        }
        if self.choices is not None:
            out["choices"] = list(self.choices)
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        return out


@final
class Event:
    """Something that became known: to everyone (`to is None`) or to one seat only.

    Read-only, compared by value, picklable, matched by its fields, as the named tuple it was; but a
    compiled class (setup.py), about half the cost to make, as a named tuple's `__new__` is Python code
    (a Kododo step makes about five). Not a frozen dataclass: compiled, its `__init__` stays Python.
    """

    __match_args__ = ("kind", "data", "to")

    def __init__(self, kind: str, data: Mapping[str, JSON], to: Seat | None = None) -> None:
        self._kind = kind
        self._data = data
        self._to = to

    @property
    def kind(self) -> str:
        return self._kind

    @property
    def data(self) -> Mapping[str, JSON]:
        return self._data

    @property
    def to(self) -> Seat | None:
        return self._to

    def _fields(self) -> tuple[str, Mapping[str, JSON], Seat | None]:
        return (self._kind, self._data, self._to)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Event) and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())  # as a named tuple's: a TypeError while `data` is a dict

    def __repr__(self) -> str:
        return f"Event(kind={self._kind!r}, data={self._data!r}, to={self._to!r})"

    def __reduce__(self) -> tuple[type[Event], tuple[str, Mapping[str, JSON], Seat | None]]:
        return (Event, self._fields())

    def visible_to(self, seat: Seat) -> bool:
        return self._to is None or self._to == seat

    def to_json(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {"kind": self._kind, **self._data}
        if self._to is not None:
            out["to"] = self._to
        return out


@mypyc_attr(native_class=False)  # a plain class even compiled: picklable, and tests may patch it
@dataclass(frozen=True)
class Outcome:
    """The end of a game as the rules score it (fault policies are applied by the referee, not here).

    `tiebreaks[s]` holds the values compared after points, in order (higher is better); `ranks[s]` is
    1 for the best, and seats equal on points and every tie-break share a rank ("1224" ranking).
    `drawn` marks a game a safety rule stopped before the rules decided it (e.g. Kolpa!'s round cap):
    every seat then shares rank 1 whatever the points, and nobody is charged a fault for it.
    """

    points: tuple[int, ...]
    tiebreaks: tuple[tuple[int, ...], ...]
    ranks: tuple[int, ...]
    drawn: bool = False

    @classmethod
    def ranked(cls, points: Sequence[int], tiebreaks: Sequence[Sequence[int]]) -> "Outcome":
        """Ranks by points, then the tie-breaks in order; equal seats share a rank."""
        keys = [(p, *t) for p, t in zip(points, tiebreaks)]
        return cls(tuple(points), tuple(tuple(t) for t in tiebreaks), competition_ranks(keys))

    @classmethod
    def draw(cls, points: Sequence[int], tiebreaks: Sequence[Sequence[int]]) -> "Outcome":
        """A game stopped by a safety rule: points as they stand, every seat ranked 1."""
        return cls(tuple(points), tuple(tuple(t) for t in tiebreaks), tuple(1 for _ in points), drawn=True)

    def to_json(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {
            "points": list(self.points),
            "tiebreaks": [list(t) for t in self.tiebreaks],
            "ranks": list(self.ranks),
        }
        if self.drawn:
            out["drawn"] = True
        return out


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled (see setup.py), and every game but Kododo is not
class GameState(abc.ABC):
    """A game in progress. Mutable: `apply` advances it in place; `clone` gives an independent copy."""

    spec: ClassVar["GameSpec"]

    @property
    @abc.abstractmethod
    def num_seats(self) -> int: ...

    @abc.abstractmethod
    def to_move(self) -> tuple[Seat, ...]:
        """The seats that must decide now, in seat order; empty once the game is over."""

    def is_over(self) -> bool:
        return not self.to_move()

    @abc.abstractmethod
    def view(self, seat: Seat) -> dict[str, JSON]:
        """Everything `seat` may know now, and nothing else; JSON-serialisable."""

    def public_view(self) -> dict[str, JSON]:
        """The part of every seat's view that is the same for all seats (the referee encodes it once a
        step, not once a seat). `view(seat)` is `own_view(seat)` and `public_view()` together, their keys
        apart (the conformance suite checks it). By default nothing is shared."""
        return {}

    def own_view(self, seat: Seat) -> dict[str, JSON]:
        """The rest of `seat`'s view: what `public_view` does not hold."""
        return self.view(seat)

    @abc.abstractmethod
    def legal_actions(self, seat: Seat) -> list[JSON]:
        """Every legal action of a deciding seat, each a JSON value, in a deterministic order."""

    @abc.abstractmethod
    def check(self, seat: Seat, action: JSON) -> None:
        """Raise `IllegalAction` with a reason if `seat` may not take `action` now; change nothing."""

    @abc.abstractmethod
    def apply(self, actions: Mapping[Seat, JSON]) -> list[Event]:
        """Take the decisions of exactly the seats in `to_move()`, all at once.

        Every action is checked before anything changes: on `IllegalAction` the state is untouched.
        Returns the events in the order they happened.
        """

    @abc.abstractmethod
    def fallback(self, seat: Seat) -> JSON:
        """The deterministic legal action played for a seat whose bot failed to give one."""

    @abc.abstractmethod
    def outcome(self) -> Outcome:
        """Points, tie-breaks and ranks; raises `GameNotOver` before the end."""

    @abc.abstractmethod
    def clone(self) -> "GameState": ...

    @abc.abstractmethod
    def snapshot(self) -> dict[str, JSON]:
        """The whole state, hidden parts included, as JSON: for determinism checks and debugging only."""

    @abc.abstractmethod
    def resample_hidden(self, seat: Seat, seed: int) -> "GameState":
        """A state `seat` cannot tell apart from this one, with what it cannot see drawn anew.

        What `seat` cannot see (other hands, the deck order, removed cards) is reshuffled with `seed`;
        everything `seat` has seen stays. The conformance suite uses it to prove that a view leaks
        nothing: `view(seat)` must be identical in both states.
        """

    def check_seat_decides(self, seat: Seat, action: JSON) -> None:
        """Shared first step of `check`: a seat that is not asked cannot act."""
        if seat not in self.to_move():
            raise IllegalAction(seat, action, f"seat {seat} is not to move (to move: {list(self.to_move())})")

    def check_all(self, actions: Mapping[Seat, JSON]) -> None:
        """Shared first step of `apply`: exactly the deciding seats, each action legal."""
        deciding = self.to_move()
        if not deciding:
            from arena.errors import GameOver

            raise GameOver("the game is over: no seat decides any more")
        if set(actions) != set(deciding):
            seat = min(set(actions) ^ set(deciding))
            raise IllegalAction(
                seat, actions.get(seat), f"actions must be given for exactly seats {list(deciding)}, got {sorted(actions)}"
            )
        for seat in deciding:
            self.check(seat, actions[seat])


Factory = Callable[[int, dict[str, Any], int], GameState]
RoundLabel = Callable[[Mapping[str, JSON]], str]
PYTHON = "{python}"  # in a sample bot's command: the interpreter arena runs on


@mypyc_attr(native_class=False)
@dataclass(frozen=True)
class SampleBot:
    """A bot shipped with a game (an absolute command; `PYTHON` stands for arena's interpreter): the
    fillers `arena match` seats beside the bots it compares, the names check-bot gives the other seats."""

    name: str
    command: tuple[str, ...]


@mypyc_attr(native_class=False)
@dataclass(frozen=True)
class Renderer:
    """The game's viewer module: a JavaScript file inside package `package` that calls
    `ArenaGames.define(NAME, function (ctx) { return html; })` (docs/writing-a-game.md)."""

    package: str
    file: str

    def source(self) -> str:
        from importlib import resources

        return resources.files(self.package).joinpath(self.file).read_text(encoding="utf-8")


def default_round_label(view: Mapping[str, JSON]) -> str:
    return f"round {view.get('round', '?')}"


@mypyc_attr(native_class=False)  # a plain class even compiled: picklable, and tests may patch it
@dataclass(frozen=True)
class GameSpec:
    """What a game is, for the registry, configs, the CLI and protocol authors."""

    name: str
    version: str
    description: str
    min_seats: int
    max_seats: int
    mode: Mode
    factory: Factory
    options: tuple[Option, ...] = field(default_factory=tuple)
    # Everything else about the game, for the rest of arena (each optional):
    rules: str = ""  # the rules in prose (Markdown), for `arena games NAME` and the docs
    max_steps: int = 100_000  # every game ends within this many steps, whatever the legal play (check-game)
    round_label: RoundLabel = default_round_label  # where in the game a view is, as its players say it
    renderer: Renderer | None = None  # the viewer's module; None: the generic view (a tree and an event log)
    sample_bots: tuple[SampleBot, ...] = ()  # fillers for `arena match`, names for check-bot's other seats
    view_schema: Mapping[str, Any] | None = None  # JSON Schema of `view(seat)`, documented (protocol.md)
    action_schema: Mapping[str, Any] | None = None  # JSON Schema of an action, documented (protocol.md)

    def resolve_options(self, given: Mapping[str, Any] | None) -> dict[str, Any]:
        """Defaults filled in, every given value type-checked; unknown names refused."""
        given = dict(given or {})
        known = {o.name: o for o in self.options}
        unknown = sorted(set(given) - set(known))
        if unknown:
            names = ", ".join(known) or "none"
            raise GameOptionError(f"game {self.name!r} has no option {unknown[0]!r} (its options: {names})")
        return {name: opt.coerce(given[name], self.name) if name in given else opt.default for name, opt in known.items()}

    def check_seats(self, seats: int) -> None:
        if not self.min_seats <= seats <= self.max_seats:
            raise SeatCountError(
                f"game {self.name!r} is for {self.min_seats} to {self.max_seats} players, got {seats}"
            )

    def new_game(self, seats: int, options: Mapping[str, Any] | None = None, seed: int = 0) -> GameState:
        self.check_seats(seats)
        return self.factory(seats, self.resolve_options(options), int(seed))

    def describe(self) -> dict[str, JSON]:
        return {
            "name": self.name,
            "version": self.version,
            "description": self.description,
            "players": [self.min_seats, self.max_seats],
            "mode": self.mode.value,
            "options": [o.describe() for o in self.options],
            "max_steps": self.max_steps,
            "renderer": self.renderer is not None,
            "sample_bots": [b.name for b in self.sample_bots],
        }


def seat_list(values: Sequence[Any]) -> list[Any]:
    """A per-seat tuple as a JSON list (views index seats by position)."""
    return list(values)
