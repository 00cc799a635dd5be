"""Stamp delay of a line (reader's stamp - writer's own CLOCK_MONOTONIC at write) while the referee's
main thread is busy judging a flooding neighbour (orjson.loads of a 1 MB line, over and over).
A: one selector loop that reads every ready pipe first, then judges one neighbour line per pass.
B: a reader thread blocked in os.read that stamps on return, the main thread judging without pause.

Run: .venv/bin/python tests/referee/bench_stamp.py (about 10 s). Not collected by pytest. It is the
measurement behind the choice of one selector loop in arena/referee/transport.py."""
import os, selectors, statistics, subprocess, sys, threading, time
import orjson

WRITER = "import os,sys,time\nfor i in range(300):\n    time.sleep(0.01)\n    os.write(1, b'%.9f\\n' % time.monotonic())\n"
BIG = orjson.dumps(["x" * 100] * 9000)  # ~1 MB of JSON

def judge():
    orjson.loads(BIG)

def run_selector():
    p = subprocess.Popen([sys.executable, "-c", WRITER], stdout=subprocess.PIPE, bufsize=0)
    fd = p.stdout.fileno(); os.set_blocking(fd, False)
    sel = selectors.DefaultSelector(); sel.register(fd, selectors.EVENT_READ)
    delays = []; buf = b""
    while True:
        ready = sel.select(0)  # the neighbour floods: there is always something to judge, so never block
        if ready:
            data = os.read(fd, 65536); at = time.monotonic()
            if not data: break
            buf += data
            *lines, buf = buf.split(b"\n")
            delays += [(at - float(l)) * 1000 for l in lines]
        judge()
    p.wait(); return delays

def run_thread():
    p = subprocess.Popen([sys.executable, "-c", WRITER], stdout=subprocess.PIPE, bufsize=0)
    fd = p.stdout.fileno(); delays = []; done = threading.Event()
    def reader():
        buf = b""
        while True:
            data = os.read(fd, 65536); at = time.monotonic()
            if not data: break
            buf += data
            *lines, buf = buf.split(b"\n")
            delays.extend((at - float(l)) * 1000 for l in lines)
        done.set()
    threading.Thread(target=reader, daemon=True).start()
    while not done.is_set():
        judge()
    p.wait(); return delays

t0 = time.perf_counter(); judge(); print(f"one judge (orjson.loads of {len(BIG)} bytes): {(time.perf_counter()-t0)*1000:.2f} ms")
for name, fn in [("selector, read first", run_selector), ("reader thread", run_thread)]:
    d = sorted(fn())
    print(f"{name:22s} n={len(d)} median {statistics.median(d):.2f} ms  p90 {d[int(len(d)*.9)]:.2f}  max {d[-1]:.2f}")
