"""Live frames (`arena.live`) from Dask workers: each worker sends its games' frames to the coordinator as
events of the run's own topic, through the scheduler (`Worker.log_event`: queued on the worker's batched
stream, never waited for); only the run's client subscribes to that topic. The bots never see them: they
are on no bot's pipe."""

from __future__ import annotations

from typing import Any

from arena.live.frame import LiveFrame


class EventSink:
    """A worker's `LiveSink`: each frame an event of `topic`."""

    def __init__(self, worker: Any, topic: str) -> None:
        self.worker, self.topic = worker, topic

    def frame(self, frame: LiveFrame) -> None:
        self.worker.log_event(self.topic, {"game": frame.game, "step": frame.step, "over": frame.over, "data": frame.data})


def live_frame(event: object) -> LiveFrame | None:
    """The frame in a live topic's event (`(timestamp, message)` as the scheduler passes it on); None if it is not one."""
    message = event[1] if isinstance(event, tuple) and len(event) == 2 else None
    if not isinstance(message, dict):
        return None
    try:
        return LiveFrame(int(message["game"]), int(message["step"]), bool(message["over"]), bytes(message["data"]))
    except (KeyError, TypeError, ValueError):
        return None
