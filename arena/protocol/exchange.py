"""One decision's exchange: the request the referee sends (`request_message`) and the bot's answer line,
judged well-formed (`parse_answer`) and within the protocol's bounds (`check_action`).

Every decision passes here, so it is compiled with the referee's step loop (`[tool.arena] compiled`);
its wording of what is wrong is `arena.protocol.wording`'s.
"""

from __future__ import annotations

from typing import Any, Mapping

from arena.jsonvalue import JSON, dumps
from arena.protocol import wording

REQUEST = "request"  # the message "type" of a request
ANSWER_TYPES = ("answer", "action")  # an answer's optional "type"; both spellings are in use
# What an answer may contain (protocol.md, "answer"). Anything else is a malformed answer.
MAX_ID = 2**53 - 1  # ids are integers 0 <= id <= MAX_ID (JSON true and 3.0 are not ids)
MAX_INT = 2**53 - 1  # integers inside an action: -MAX_INT <= n <= MAX_INT
MAX_ACTION_DEPTH = 16  # arrays and objects nest at most this deep in an action ([] is depth 1)
MAX_ACTION_BYTES = 16_384  # an action's canonical encoding is at most this many bytes
# A flat list of at most _FLAT_ITEMS strings of at most _FLAT_CHARS characters is within every bound
# without a walk: its encoding is at most _FLAT_WORST bytes (each character escaped as \uXXXX at worst).
_FLAT_ITEMS = 16
_FLAT_CHARS = 128
_FLAT_WORST = 2 * _FLAT_ITEMS + 2 + _FLAT_ITEMS * (6 * _FLAT_CHARS + 2)
assert _FLAT_WORST <= MAX_ACTION_BYTES


class Answer:
    """A well-formed answer line: the id it answers and its action (checked by `check_action`).
    A compiled class, not a named tuple: one is made for every decision, and this is the cheapest to make."""

    def __init__(self, request_id: int, action: JSON) -> None:
        self.request_id = request_id
        self.action = action

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Answer) and (self.request_id, self.action) == (other.request_id, other.action)

    def __repr__(self) -> str:
        return f"Answer(request_id={self.request_id!r}, action={self.action!r})"


def request_message(
    *,
    request_id: int,
    game_id: str,
    game: str,
    seat: int,
    step: int,
    view: JSON,
    legal: list[JSON],
    clock: Mapping[str, JSON],
    events: list[JSON],
) -> dict[str, JSON]:
    return {
        "type": REQUEST,
        "id": request_id,
        "game_id": game_id,
        "game": game,
        "seat": seat,
        "step": step,
        "view": view,
        "legal": legal,
        "clock": clock,
        "events": events,
    }


def parse_answer(message: Any) -> Answer:
    """The answer in a parsed bot line; raises ProtocolViolation (a short reason) for anything else.

    Accepted exactly: a JSON object with an integer "id" in [0, MAX_ID] (not a bool, not a float such
    as 3.0) and an "action" that passes `check_action`; an optional "type" of "answer" or "action";
    other members are ignored.
    """
    if type(message) is not dict:
        raise wording.ProtocolViolation(
            f'an answer must be a JSON object {{"id": ..., "action": ...}}, got {wording.preview(message)}'
        )
    request_id = message.get("id")
    if type(request_id) is not int or not 0 <= request_id <= MAX_ID:
        raise wording.ProtocolViolation(
            f'an answer needs the "id" of its request, an integer from 0 to 2^53-1, got {wording.preview(request_id)}'
        )
    if "action" not in message:
        raise wording.ProtocolViolation(f'an answer needs an "action", got {wording.preview(message)}')
    kind = message.get("type", "answer")
    if kind not in ANSWER_TYPES:
        raise wording.ProtocolViolation(f'an answer has "type": "answer" (or "action", or no type), got {wording.preview(kind)}')
    action = message["action"]
    check_action(action)
    return Answer(request_id, action)


def check_action(action: JSON) -> None:
    """Raise ProtocolViolation unless `action` is within the protocol's bounds: nesting at most
    MAX_ACTION_DEPTH, integers within +-MAX_INT, finite floats, string keys, and a canonical encoding of
    at most MAX_ACTION_BYTES. Within them every writer (wire, replay, store) can encode it.

    The exact size (an encoding) is only measured when an upper bound on it, kept during the walk,
    could pass the limit: a small action (a number, a short list) is judged without encoding it."""
    kind = type(action)
    if kind is int:  # the common answer: one number
        if not -MAX_INT <= action <= MAX_INT:
            raise wording.ProtocolViolation(f"the action has an integer outside +-(2^53-1): {wording.preview(action)}")
        return
    if kind is list and len(action) <= _FLAT_ITEMS:  # the other common one: a few short strings
        for item in action:
            if type(item) is not str or len(item) > _FLAT_CHARS:
                break
        else:
            return  # within every bound: depth 1, and at most _FLAT_WORST bytes
    stack: list[tuple[JSON, int]] = [(action, 0)]
    budget = MAX_ACTION_BYTES  # rough size so far: stops the walk of a huge value early
    worst = 0  # an upper bound on the canonical encoding's size
    while stack:
        value, depth = stack.pop()
        kind = type(value)
        if kind is list or kind is dict:
            if depth >= MAX_ACTION_DEPTH:
                raise wording.ProtocolViolation(f"the action nests deeper than {MAX_ACTION_DEPTH} levels")
            budget -= len(value) + 2
            if budget < 0:  # before walking its items: a huge value costs nothing more
                raise wording.ProtocolViolation(f"the action is longer than {MAX_ACTION_BYTES} bytes")
            worst += 2 * len(value) + 2  # brackets, commas and colons
            items = value.values() if kind is dict else value
            if kind is dict:
                if any(type(k) is not str for k in value):
                    raise wording.ProtocolViolation("the action has an object key that is not a string")
                worst += sum(6 * len(k) + 2 for k in value)
            stack.extend((item, depth + 1) for item in items)
        elif kind is int:
            if not -MAX_INT <= value <= MAX_INT:
                raise wording.ProtocolViolation(f"the action has an integer outside +-(2^53-1): {wording.preview(value)}")
            budget -= 1
            worst += 17  # a sign and 16 digits
        elif kind is float:
            if value != value or value in (float("inf"), float("-inf")):
                raise wording.ProtocolViolation("the action has a number that is not finite")
            budget -= 1
            worst += 24  # the longest shortest-round-trip repr of a double
        elif kind is str:
            budget -= len(value)
            worst += 6 * len(value) + 2  # every character escaped as \uXXXX at worst
        elif value is None or kind is bool:
            worst += 5
        else:
            raise wording.ProtocolViolation(f"the action has a value that is not JSON: {wording.preview(value)}")
        if budget < 0:
            raise wording.ProtocolViolation(f"the action is longer than {MAX_ACTION_BYTES} bytes")
    if worst <= MAX_ACTION_BYTES:
        return
    size = len(dumps(action))
    if size > MAX_ACTION_BYTES:
        raise wording.ProtocolViolation(f"the action is {size} bytes, more than {MAX_ACTION_BYTES}")
