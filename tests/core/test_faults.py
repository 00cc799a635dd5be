"""Fault classes are properties of `FaultKind`, one table for the referee, the replay writer, reader and verify."""

from __future__ import annotations

from arena.core.faults import FaultKind as K


def test_the_classes_of_faults() -> None:
    assert {k for k in K if k.unanswered} == {K.TIMEOUT, K.MALFORMED_JSON, K.INVALID_UTF8, K.LINE_TOO_LONG}
    assert {k for k in K if k.fatal} == {K.CRASH, K.FLOOD, K.START_FAILED, K.LIMIT, K.GAME_TIME}
    assert {k for k in K if k.about_answer} == {K.TIMEOUT, K.MALFORMED_JSON, K.INVALID_UTF8, K.LINE_TOO_LONG,
                                                 K.ILLEGAL_ACTION, K.UNEXPECTED_ANSWER}
    assert {k for k in K if k.causes_fallback} == {K.TIMEOUT, K.MALFORMED_JSON, K.INVALID_UTF8, K.LINE_TOO_LONG,
                                                    K.CRASH, K.FLOOD, K.START_FAILED, K.LIMIT, K.GAME_TIME, K.ILLEGAL_ACTION}
    assert not any(k.fatal or k.causes_fallback for k in (K.NO_EXIT, K.ORPHANS, K.UNEXPECTED_ANSWER))
