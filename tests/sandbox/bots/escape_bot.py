#!/usr/bin/env python3
"""A bot that tries one way out of its sandbox (argv[1]) at its first request, then plays legal[0].

It reports on stderr, one line: `escape MODE: BLOCKED why` when the attempt failed, or
`escape MODE: ESCAPED what` when it got through. Targets come from the environment: ESC_PORT (a TCP
listener on 127.0.0.1), ESC_TARGET (a path outside its folder), ESC_PIDS (host pids of another bot).
Resource modes (fork_bomb, memory, cpu, fill_scratch) end by dying of the limit they hit.
"""

import ctypes
import json
import os
import socket
import sys
import time

MODE = sys.argv[1]
TARGET = os.environ.get("ESC_TARGET", "")
PIDS = [int(p) for p in os.environ.get("ESC_PIDS", "").split()]


def report(verdict: str, detail: str) -> None:
    sys.stderr.write(f"escape {MODE}: {verdict} {detail}\n")
    sys.stderr.flush()


def attempt() -> None:
    if MODE == "tcp":
        try:
            socket.create_connection(("127.0.0.1", int(os.environ["ESC_PORT"])), timeout=2).close()
            report("ESCAPED", "connected")
        except OSError as exc:
            report("BLOCKED", repr(exc))
    elif MODE == "dns":
        try:
            found = socket.getaddrinfo("example.com", 80)
            report("ESCAPED", str(found[0][4]))
        except OSError as exc:
            report("BLOCKED", repr(exc))
    elif MODE == "read":
        try:
            with open(TARGET, "rb") as fh:
                data = fh.read()
            report("ESCAPED" if data else "BLOCKED", f"read {len(data)} bytes")  # an empty mask leaks nothing
        except OSError as exc:
            report("BLOCKED", repr(exc))
    elif MODE == "proc":
        seen = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
        leaks = []
        for pid in seen + PIDS:
            for part in ("cmdline", "environ", "mem"):
                try:
                    with open(f"/proc/{pid}/{part}", "rb") as fh:
                        data = fh.read(4096) if part != "mem" else b""
                except OSError:
                    continue
                if pid in PIDS or b"random_bot" in data:
                    leaks.append(f"{pid}/{part}")
        report("ESCAPED" if leaks or len(seen) > 3 else "BLOCKED", f"sees pids {seen}, leaks {leaks}")
    elif MODE == "ptrace":
        libc = ctypes.CDLL(None, use_errno=True)
        results = []
        for pid in PIDS:
            if libc.ptrace(16, pid, None, None) == 0:  # PTRACE_ATTACH
                report("ESCAPED", f"attached to {pid}")
                return
            results.append(os.strerror(ctypes.get_errno()))
        report("BLOCKED", f"ptrace: {results}")
    elif MODE == "kill":
        results = []
        for pid in PIDS:
            try:
                os.kill(pid, 9)
                report("ESCAPED", f"killed {pid}")
                return
            except OSError as exc:
                results.append(repr(exc))
        report("BLOCKED", f"kill: {results}")
    elif MODE == "write":
        errors = []
        own = os.path.join(os.path.dirname(os.path.abspath(__file__)), "written-by-bot")
        for path in (TARGET, own, "/written-by-bot", "/dev/written-by-bot", "/dev/shm/written-by-bot"):
            try:
                with open(path, "w") as fh:
                    fh.write("escaped")
                errors.append(f"ESCAPED: wrote {path}")
            except OSError as exc:
                errors.append(repr(exc))
        report("ESCAPED" if any("ESCAPED" in e for e in errors) else "BLOCKED", f"{errors}")
    elif MODE == "fill_scratch":
        scratch = os.environ.get("ARENA_SCRATCH", "/tmp")
        written = 0
        try:
            for i in range(100000):
                with open(os.path.join(scratch, f"fill{i}"), "wb") as fh:
                    fh.write(b"x" * (1 << 20))
                written += 1
        except OSError as exc:
            report("BLOCKED", f"after {written} MB: {exc!r}")
            raise
        report("ESCAPED", f"wrote {written} MB")
    elif MODE == "fork_bomb":
        children = 0
        try:
            while children < 300:  # bounded, so a machine without a process limit is not harmed: 300 is an escape
                if os.fork() == 0:
                    time.sleep(60)
                    os._exit(0)
                children += 1
        except OSError as exc:
            report("BLOCKED", f"after {children} processes: {exc!r}")
            raise
        report("ESCAPED", f"{children} processes")
    elif MODE == "memory":
        hoard = []
        for _ in range(100000):
            hoard.append(b"m" * (16 << 20))  # touched pages, not lazily zeroed ones
        report("ESCAPED", f"allocated {16 * len(hoard)} MB")
    elif MODE == "cpu":
        end = time.monotonic() + 30
        while time.monotonic() < end:
            pass
        report("ESCAPED", "spun 30 s of CPU")
    elif MODE == "setsid":
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execvp("sleep", ["sleep", os.environ.get("ESC_SLEEP", "41.25")])
            os._exit(0)
        report("BLOCKED?", "a detached sleep was left behind; the test checks it is gone after the match")


def main() -> None:
    asked = 0
    for line in sys.stdin.buffer:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            hello = {"type": "hello", "protocol": 1, "name": f"escape-{MODE}", "version": "0"}
            sys.stdout.write(json.dumps(hello) + "\n")
            sys.stdout.flush()
        elif kind == "request":
            asked += 1
            if asked == 1:
                attempt()
            sys.stdout.write(json.dumps({"id": message["id"], "action": message["legal"][0]}) + "\n")
            sys.stdout.flush()
        elif kind == "shutdown":
            return


if __name__ == "__main__":
    main()
