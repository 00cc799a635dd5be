#!/usr/bin/env python3
"""A participant's bot that has read arena's source and tries to learn what it must not (argv[1]).

Modes, each done before the hello so that its verdict travels in the hello's `version` (recorded in
every replay header and in `arena play --json`'s seats), then plays legal[0]:
- walk: search everything it can see outside the system folders for arena's outputs and the
  organiser's secrets (stores, replays, reports, configs, lock files, ~/.ssh); `leakN` or `clean`.
- cmdline: read /proc/1/cmdline (bwrap's, in the sandbox) and count host paths named there that are
  not its own command's: `leakN` or `clean`; `self` counts host paths in its own /proc/self/cmdline.
- lock-send BITS / lock-recv: two colluding entrants signal through flock() on shared read-only files
  under /usr; the sender holds a lock for each 1 bit, the receiver tests each file: `got<bits>` or
  `refused`.
- close-stdout: says hello, then closes its stdout at the first request and stays alive.
- hog N: N children, each in its own session (setsid), spin for ever; the bot itself answers at once.
"""

import fcntl
import json
import os
import sys
import time

MODE = sys.argv[1]
SYSTEM = ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc", "/proc", "/sys", "/dev")
SIGNS = (b"SQLite format 3", b'{"type":"header"', b'{"type": "header"', b"entrants:", b"<!DOCTYPE html")
RUNTIME = (sys.prefix, sys.base_prefix)  # its own interpreter: nothing to learn there
LOCK_FILES = ["/usr/bin/true", "/usr/bin/false", "/usr/bin/yes", "/usr/bin/env"]  # distinct files every Linux has


def places() -> list[str]:
    """Where to look first: its folder and the folders above it, the home folder, then everything."""
    here, out = os.getcwd(), []
    while True:
        out.append(here)
        if here == "/":
            break
        here = os.path.dirname(here)
    return out[:-1] + [os.path.expanduser("~"), "/"]


def walk() -> str:
    found: list[str] = []
    deadline = time.monotonic() + 3
    seen: set[str] = set()
    for place in places():
        for top, dirs, files in os.walk(place):
            if time.monotonic() > deadline or len(found) >= 5 or top in seen:
                dirs[:] = []
                continue
            seen.add(top)
            dirs[:] = [d for d in dirs if os.path.join(top, d) not in SYSTEM + RUNTIME and os.path.join(top, d) not in seen]
            scan(top, files, found)
    found = [p for p in dict.fromkeys(found) if os.path.realpath(p) != os.path.realpath(__file__)]
    sys.stderr.write(f"attack walk: {found[:20]}\n")
    return f"leak{len(found)}" if found else "clean"


def scan(top: str, files: list[str], found: list[str]) -> None:
    for name in files:
        path = os.path.join(top, name)
        try:
            with open(path, "rb") as fh:
                head = fh.read(64)
        except OSError:
            continue  # unreadable, or a masked folder's file
        named = "/.ssh/" in path or name.endswith((".sqlite", ".sqlite-wal", ".lock", ".yaml", ".jsonl", ".html"))
        if head and (named or any(head.startswith(s) for s in SIGNS)):  # a mask reads empty
            found.append(path)


def host_paths(data: bytes) -> list[str]:
    own = set(sys.argv) | {sys.executable, os.path.abspath(__file__)}
    words = [w.decode(errors="replace") for w in data.split(b"\0") if w]
    return [w for w in words if w.startswith("/") and w not in own and not w.startswith(SYSTEM + ("/scratch", "/tmp"))]


def cmdline(which: str) -> str:
    with open(f"/proc/{which}/cmdline", "rb") as fh:
        data = fh.read()
    if which == "self":
        paths = [w for w in data.decode(errors="replace").split("\0") if w.startswith("/") and not w.startswith(SYSTEM)]
    else:
        paths = host_paths(data)
    sys.stderr.write(f"attack cmdline {which}: {paths[:10]}\n")
    return f"leak{len(paths)}" if paths else "clean"


def lock_send(bits: str) -> str:
    held = []
    try:
        for bit, path in zip(bits, LOCK_FILES):
            if bit == "1":
                fh = open(path, "rb")
                fcntl.flock(fh, fcntl.LOCK_EX)
                held.append(fh)
    except OSError as exc:
        sys.stderr.write(f"attack lock-send: {exc!r}\n")
        return "refused"
    globals()["_held"] = held  # kept for the bot's life
    return "sent"


def lock_recv() -> str:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        bits = ""
        try:
            for path in LOCK_FILES[:4]:
                with open(path, "rb") as fh:
                    try:
                        fcntl.flock(fh, fcntl.LOCK_SH | fcntl.LOCK_NB)
                        bits += "0"
                    except BlockingIOError:
                        bits += "1"
        except OSError as exc:
            sys.stderr.write(f"attack lock-recv: {exc!r}\n")
            return "refused"
        if "1" in bits:
            return f"got{bits}"
        time.sleep(0.05)
    return "got0000"


def hog(n: int) -> str:
    for _ in range(n):
        if os.fork() == 0:
            os.setsid()
            while True:
                pass
    return "hog"


def main() -> None:
    verdict = {"walk": walk, "cmdline": lambda: cmdline("1"), "self": lambda: cmdline("self"),
               "lock-send": lambda: lock_send(sys.argv[2]), "lock-recv": lock_recv,
               "hog": lambda: hog(int(sys.argv[2])), "close-stdout": lambda: "x"}[MODE]()
    out = sys.stdout
    for line in sys.stdin:
        msg = json.loads(line)
        reply = None
        if msg.get("type") == "hello":
            reply = {"type": "hello", "protocol": msg.get("protocol", 1), "name": "attack", "version": verdict}
        elif msg.get("type") == "request":
            if MODE == "close-stdout":
                out.close()
                os.close(1)
                time.sleep(600)
            reply = {"id": msg["id"], "action": msg["legal"][0]}
        elif msg.get("type") == "shutdown":
            break
        if reply is not None:
            out.write(json.dumps(reply) + "\n")
            out.flush()
    if MODE == "lock-send":
        time.sleep(0.5)


if __name__ == "__main__":
    main()
