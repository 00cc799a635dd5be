"""`Event`, a compiled class (not a named tuple): compared by value, immutable, picklable, matchable."""

from __future__ import annotations

import copy
import pickle

import pytest

from arena.games.base import Event


def test_events_are_equal_by_value_and_not_to_their_fields_as_a_tuple() -> None:
    event = Event("draw", {"cards": ["B1"]}, to=2)
    assert event == Event("draw", {"cards": ["B1"]}, 2)
    assert event != Event("draw", {"cards": ["B1"]})  # to everyone: another event
    assert event != Event("drew", {"cards": ["B1"]}, 2)
    assert event != ("draw", {"cards": ["B1"]}, 2)
    assert event.to_json() == {"kind": "draw", "cards": ["B1"], "to": 2}
    assert event.visible_to(2) and not event.visible_to(1) and Event("reveal", {}).visible_to(1)


def test_an_event_cannot_be_changed_and_survives_pickling_and_copies() -> None:
    event = Event("reveal", {"cards": [["B1"], ["G2"]]})
    with pytest.raises(AttributeError):
        event.kind = "other"  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(event)) == event
    assert copy.deepcopy(event) == event and copy.copy(event) == event
    match event:
        case Event(kind="reveal", to=None):
            pass
        case _:
            pytest.fail("an event matches by its fields")
