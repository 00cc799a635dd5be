"""Signal handling shared by the coordinator and its workers: stop cleanly, never half way through cleanup."""

from __future__ import annotations

import contextlib
import signal
import threading
from types import FrameType
from typing import Iterator


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _on_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM stops a run as Ctrl-C does (finished games kept, bots closed), not halfway through a write."""
    if not _on_main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def uninterrupted() -> Iterator[None]:
    """Cleanup that a second Ctrl-C must not cut short (it would leave bots running)."""
    if not _on_main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    previous_term = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        signal.signal(signal.SIGTERM, previous_term)


@contextlib.contextmanager
def sigint_ignored() -> Iterator[None]:
    """Around starting a worker process: it starts with SIGINT ignored, so a terminal's Ctrl-C (sent to
    the whole foreground group) never raises KeyboardInterrupt in it; the coordinator stops it."""
    if not _on_main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def interrupt_once(signum: int, frame: FrameType | None) -> None:
    """A worker's SIGTERM: stop the game in progress once; later signals are ignored so the cleanup
    that follows (closing bots) runs to its end."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise KeyboardInterrupt


def ignore(signum: int, frame: FrameType | None) -> None:
    """A Python-level handler that does nothing: unlike SIG_IGN, bots started by the worker do not
    inherit it (exec resets handlers), so they keep the default SIGINT."""
