"""The human seat in a terminal (`arena play --human SEAT --tui`), for a machine without a browser.

A client of the seat's own server, like the page: it polls the state, prints the seat's view (sanitised:
no terminal escapes, bounded), the new events and the legal actions numbered, reads a number on stdin
and sends it as the page would. The server checks it, so a number typed for a step already past is
refused in the same words. End of input (Ctrl-D) is the person leaving: the seat ends, a crash.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from typing import IO, Any

from arena.jsonvalue import JSON, dumps_str
from arena.textsafe import clean

VIEW_CHARS = 4000
ACTION_CHARS = 300


def _get(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310 - our own 127.0.0.1 server
        data = json.loads(response.read())
    return data if isinstance(data, dict) else {}


def _post(url: str, body: JSON) -> dict[str, Any]:
    request = urllib.request.Request(url, data=dumps_str(body).encode(), headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
            data = json.loads(response.read())
    except urllib.error.HTTPError as exc:
        data = json.loads(exc.read() or b"{}")
    return data if isinstance(data, dict) else {}


def describe(state: dict[str, Any], shown_events: int) -> list[str]:
    """The lines printed for one state: new events, then (when asked) the view and numbered actions."""
    lines = []
    for event in state.get("events", [])[shown_events:]:
        lines.append("  event " + clean(dumps_str(event), ACTION_CHARS))
    if state.get("phase") == "asked":
        left = state.get("remaining_ms") or 0
        lines.append(f"step {state.get('step')}: your move (seat {state.get('seat')}, {left // 1000} s left)")
        lines.append("  view " + clean(dumps_str(state.get("view")), VIEW_CHARS))
        for index, action in enumerate(state.get("legal", [])):
            lines.append(f"  {index:>3}) {clean(dumps_str(action), ACTION_CHARS)}")
    elif state.get("phase") == "over":
        result = state.get("result") or {}
        lines.append("the game is over: points " + clean(dumps_str(result.get("points")), 200)
                     + ", ranks " + clean(dumps_str(result.get("ranks")), 200))
    return lines


def run_tui(url: str, stdin: IO[str], stdout: IO[str]) -> None:
    """Play the seat at `url` from `stdin`/`stdout` until the game is over or the input ends."""
    stop = threading.Event()
    threading.Thread(target=_heartbeat, args=(url, stop), name="tui-heartbeat", daemon=True).start()
    try:
        _play(url, stdin, stdout)
    finally:
        stop.set()


def _heartbeat(url: str, stop: threading.Event) -> None:
    """Keep a poll open while the person is thinking at the prompt: the seat knows someone is there."""
    version = -1
    while not stop.is_set():
        try:
            version = _get(f"{url}state?since={version}").get("version", version)
        except (OSError, ValueError):
            return


def _play(url: str, stdin: IO[str], stdout: IO[str]) -> None:
    version, shown, asked = -1, 0, None
    while True:
        try:
            state = _get(f"{url}state?since={version}")
        except (OSError, ValueError):
            return  # the seat's server is gone: the game is over
        version = state.get("version", version)
        for line in describe(state, shown):
            print(line, file=stdout, flush=True)
        shown = len(state.get("events", []))
        if state.get("phase") in ("over", "closed"):
            return
        if state.get("phase") != "asked" or state.get("request_id") == asked:
            continue
        asked = state.get("request_id")
        while True:
            print("your choice (a number)? ", end="", file=stdout, flush=True)
            text = stdin.readline()
            if not text:
                _post(f"{url}leave", {})
                return
            index = int(text.strip()) if text.strip().isdigit() and len(text.strip()) < 9 else -1
            reply = _post(f"{url}choose", {"request_id": asked, "index": index})
            print("  " + clean(reply.get("ok") or reply.get("refused") or "no answer", 300), file=stdout, flush=True)
            if "ok" in reply or "already answered" in str(reply.get("refused")) or "not the one" in str(reply.get("refused")):
                break
