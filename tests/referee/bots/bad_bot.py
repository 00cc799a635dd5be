#!/usr/bin/env python3
"""A bot that misbehaves in one chosen way (argv[1]); otherwise it plays the first legal action.

Each mode is one fault the referee must contain. The bot is a real program speaking the protocol
over pipes, so what is tested is the referee's handling of real processes, not a fake.
Modes act on the `BAD_AT`-th request (default 1) unless said otherwise.
"""

import json
import os
import select
import signal
import subprocess
import sys
import time

MODE = sys.argv[1]
BAD_AT = int(os.environ.get("BAD_AT", "1"))
LOG = os.environ.get("BOT_LOG")  # where `record` and `spy` write what they saw

out = sys.stdout.buffer
inp = sys.stdin.buffer


def send(data: bytes) -> None:
    out.write(data)
    out.flush()


def answer_line(request: dict, action=None) -> bytes:
    if action is None:
        action = request["legal"][0]
    return (json.dumps({"id": request["id"], "action": action}) + "\n").encode()


def log(record: dict) -> None:
    if LOG:
        with open(LOG, "a") as fh:
            fh.write(json.dumps(record) + "\n")


def on_request(request: dict, count: int) -> None:
    bad = count == BAD_AT
    if MODE == "sleep" and LOG:  # when it got the request and when it answered (CLOCK_MONOTONIC is system-wide)
        received = time.monotonic()
        time.sleep(float(os.environ.get("SLEEP_S", "0.2")))
        log({"id": request["id"], "step": request["step"], "took_ms": (time.monotonic() - received) * 1000})
        return send(answer_line(request))
    if MODE == "timeout" and bad:
        time.sleep(float(os.environ.get("SLEEP_S", "0.3")))
    elif MODE == "sleep" and count <= int(os.environ.get("SLEEP_STEPS", "1")):
        time.sleep(float(os.environ.get("SLEEP_S", "0.2")))
    elif MODE == "stderr_trickle":  # stderr without pause for 150 ms, then a normal answer
        stop = time.monotonic() + 0.15
        while time.monotonic() < stop:
            sys.stderr.buffer.write(b"t" * 4096 + b"\n")
            sys.stderr.flush()
    elif MODE == "line" and bad:  # LINE: the raw line to send, "{id}" replaced by the request's id
        return send(os.environ["LINE"].replace("{id}", str(request["id"])).encode() + b"\n")
    elif MODE == "line_file" and bad:  # the same, the line read from the file LINE_FILE
        with open(os.environ["LINE_FILE"], "rb") as fh:
            return send(fh.read().replace(b"{id}", str(request["id"]).encode()) + b"\n")
    elif MODE == "endless" and bad:  # stdout with no newline at all, far past any line budget
        chunk = b"z" * 65536
        for _ in range(int(os.environ.get("CHUNKS", "48"))):
            send(chunk)
        return send(b"\n")
    elif MODE == "escapes" and bad:  # stderr full of terminal escapes, then a crash
        sys.stderr.write("\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m and a bell\x07\n")
        sys.stderr.flush()
        os._exit(5)
    elif MODE == "crash" and bad:
        sys.stderr.write("bad_bot: crashing on purpose now\n")
        sys.stderr.flush()
        os._exit(3)
    elif MODE == "crash_orphan" and bad:
        # A child inherits stdout, so the referee sees no end of file: only the exit tells.
        subprocess.Popen(["sleep", "30"], stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os._exit(4)
    elif MODE == "malformed" and bad:
        return send(b"this is not json\n")
    elif MODE == "invalid_utf8" and bad:
        return send(b'{"id": %d, "action": "\xff\xfe"}\n' % request["id"])
    elif MODE == "line_too_long" and bad:
        for _ in range(20):
            send(b"x" * 10_000)
        return send(b"\n")
    elif MODE == "stdout_flood" and bad:
        while True:  # junk until the referee stops it
            send(b'{"id": 0, "action": null}\n' * 100)
    elif MODE == "stderr_flood" and bad:
        while True:
            sys.stderr.buffer.write(b"e" * 65536 + b"\n")
            sys.stderr.flush()
    elif MODE == "illegal" and bad:
        return send(answer_line(request, ["Z9"]))
    elif MODE == "illegal_always":  # every answer illegal (a fault each step under the `continue` policy)
        return send(answer_line(request, ["Z9"]))
    elif MODE == "early" and bad:
        guess = dict(request, id=request["id"] + 1)
        return send(answer_line(request) + answer_line(guess))  # one write: the second line comes before its request
    elif MODE == "twice" and bad:
        return send(answer_line(request) + answer_line(request, request["legal"][-1]))
    elif MODE == "spy" and count <= int(os.environ.get("SPY_STEPS", "2")):
        # Wait until just before the deadline, recording anything the referee sends meanwhile.
        deadline = time.monotonic() + request["clock"]["remaining_ms"] / 1000 - 0.08
        received = []
        fd = inp.fileno()
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                received.append(os.read(fd, 65536).decode("utf-8", "replace"))
        log({"id": request["id"], "step": request["step"], "received_while_waiting": received})
    send(answer_line(request))


def main() -> None:
    if MODE == "limits":  # what the referee set on this process
        import resource

        log({"as": list(resource.getrlimit(resource.RLIMIT_AS)), "seed": os.environ.get("ARENA_SEED")})
    if MODE == "no_exit":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    count = 0
    for raw in inp:
        if MODE == "record":
            log({"line": raw.decode("utf-8")})
        message = json.loads(raw)
        kind = message.get("type")
        if kind == "hello":
            hello = {"type": "hello", "protocol": 1, "name": f"bad-{MODE}", "version": "0"}
            if MODE == "escapes":  # a name that would retitle the terminal and clear the screen
                hello["name"] = "evil\x1b]0;pwned\x07\x1b[2Jbot"
            extra = b""
            if MODE == "early_hello":  # an answer in the same write as the hello: before any request
                extra = b'{"id": 1, "action": "sent-with-the-hello"}\n'
            if MODE == "orphans":
                subprocess.Popen(["sleep", "30"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            send((json.dumps(hello) + "\n").encode() + extra)
            if MODE == "no_read":  # never reads its stdin again: the referee's writes pile up
                while True:
                    time.sleep(1)
        elif kind == "request":
            count += 1
            on_request(message, count)
        elif kind == "end" and MODE == "exit_on_end":  # a bot written for one game per process
            return
        elif kind == "shutdown":
            if MODE == "no_exit":
                sys.stderr.write("bad_bot: \x1b[31mnot\x1b[0m exiting, ignoring SIGTERM\n")  # an escape, for the cleaning
                sys.stderr.flush()
                while True:
                    time.sleep(1)
            return


if __name__ == "__main__":
    main()
