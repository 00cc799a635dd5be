"""What the viewer shows at each step, per perspective, from the re-simulated game (`replay_source`).

At every step each shown seat's frame is `state.view(seat)` of the referee's re-simulation: exactly
what the game lets that seat know, built by the game's own allow-list. A page for seat k is built from seat k's views only, so other seats' hidden
cards are not hidden by the page: they are never in it. The organiser's page holds every seat's view.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from arena.errors import ReplayError
from arena.games.registry import get_game
from arena.jsonvalue import JSON
from arena.core.faults import STDERR_TAIL_LINES, Fault
from arena.replay import Decision
from arena.textsafe import LINE_CHARS, NAME_CHARS, clean
from arena.web.replay_source import GameRecord, Step

VIEWER_DATA_VERSION = 1


@dataclass(frozen=True)
class Perspective:
    """None: the organiser (every seat's view); k: seat k alone."""

    seat: int | None

    def shows(self, seat: int) -> bool:
        return self.seat is None or self.seat == seat

    @property
    def label(self) -> str:
        return "organiser" if self.seat is None else f"seat {self.seat}"


def round_label(game: str, view: dict[str, JSON]) -> str:
    """Where in the game a frame is, as the game's players would say it (the game's own `round_label`)."""
    return get_game(game).round_label(view)


def _fault_json(fault: Fault, private: Callable[[int], bool]) -> dict[str, JSON]:
    """A fault not `private` to this page shows its kind only: its detail and stderr could hold that bot's hand."""
    out: dict[str, JSON] = {"seat": fault.seat, "kind": fault.kind.value, "step": fault.step}
    if private(fault.seat):
        out["detail"] = clean(fault.detail)
        out["stderr_tail"] = [clean(line, LINE_CHARS) for line in fault.stderr_tail[-STDERR_TAIL_LINES:]]
    return out


def viewer_data(record: GameRecord, perspective: Perspective, private: Callable[[int], bool] | None = None) -> dict[str, JSON]:
    """Everything the viewer page embeds: frames 0..N (N = steps) and what happened between them.

    `private(seat)` says whose stderr lines and fault details the page holds: by default the shown
    seats' (a local page for seat k is that seat's own); the ladder passes its access rule."""
    private = perspective.shows if private is None else private
    n = len(record.players)
    if perspective.seat is not None and not 0 <= perspective.seat < n:
        raise ReplayError(f"seat {perspective.seat} does not exist: this game has seats 0 to {n - 1}")
    shown = [s for s in range(n) if perspective.shows(s)]
    labels = [round_label(record.game, view) for view in record.views[shown[0]]]
    steps: list[dict[str, JSON]] = [
        {
            "deciding": list(step.deciding),
            "decisions": [_decision_json(d, step, perspective) for d in step.decisions],
            "events": [e for e in step.events if _visible(e, perspective)],
        }
        for step in record.steps
    ]
    for log in record.replay.logs:  # a seat's stderr is its own: only on the pages `private` allows
        if private(log.seat) and 0 <= log.step < len(steps):
            lines = [clean(line, LINE_CHARS + 64) for line in log.lines]
            steps[log.step].setdefault("logs", []).append({"seat": log.seat, "lines": lines, "dropped": log.dropped})
    return {
        "version": VIEWER_DATA_VERSION,
        "game": record.game,
        "game_id": clean(record.game_id, NAME_CHARS),
        "seed": str(record.seed) if perspective.seat is None else None,  # the seed is every hand: organiser only;
        # a string: JavaScript numbers lose a 64-bit seed's last digits
        "players": list(record.players),
        "time_control": record.time_control,
        "perspective": perspective.seat,
        "shown": shown,
        "views": {str(s): delta_encode(list(record.views[s])) for s in shown},
        "rounds": labels,
        "steps": steps,
        "faults": [_fault_json(f, private) for f in record.faults],
        "result": {"points": list(record.points), "ranks": list(record.ranks), "game_ranks": list(record.game_ranks)},
    }


REMOVED = "$removed"


def delta_encode(frames: list[JSON]) -> list[JSON]:
    """The first view whole, then for each later view only its top-level keys that changed (and the
    names of keys that went away under "$removed"): views change a little per step, pages stay small."""
    out: list[JSON] = []
    before: dict[str, JSON] | None = None
    for frame in frames:
        if before is None or not isinstance(frame, dict):
            out.append(frame)
        else:
            delta: dict[str, JSON] = {k: v for k, v in frame.items() if k not in before or before[k] != v}
            gone = [k for k in before if k not in frame]
            if gone:
                delta[REMOVED] = gone
            out.append(delta)
        before = frame if isinstance(frame, dict) else None
    return out


def delta_decode(deltas: list[JSON]) -> list[JSON]:
    """The views back from `delta_encode` (what the page's script does)."""
    out: list[JSON] = []
    for delta in deltas:
        if not out or not isinstance(delta, dict) or not isinstance(out[-1], dict):
            out.append(delta)
            continue
        frame = {**out[-1], **{k: v for k, v in delta.items() if k != REMOVED}}
        gone = delta.get(REMOVED)
        for k in gone if isinstance(gone, list) else []:
            frame.pop(str(k), None)
        out.append(frame)
    return out


def _visible(event: dict[str, JSON], perspective: Perspective) -> bool:
    """A private event carries its seat as an integer "to"; a string "to" is the event's own data
    (a card played `"to": "discard"`, say), so the event is public."""
    to = event.get("to")
    return not isinstance(to, int) or isinstance(to, bool) or perspective.shows(to)


def _decision_json(d: Decision, step: Step, perspective: Perspective) -> dict[str, JSON]:
    """Another seat's action is left out: what it revealed to everyone is in the step's public events.
    A fallback names its fault's kind (every seat sees the kinds of faults); a seat whose bot was out
    was not asked."""
    out: dict[str, JSON] = {"seat": d.seat, "source": d.source.value, "elapsed_ms": d.elapsed_ms,
                            "asked": d.seat in step.asked}
    if d.fault is not None:
        out["fault"] = d.fault.value
    if perspective.shows(d.seat):
        out["played"] = d.played
    return out
