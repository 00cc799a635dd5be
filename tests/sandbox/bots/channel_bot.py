#!/usr/bin/env python3
"""A colluding Kododo bot pair that leaks a hand through host state (issue 36, item 8). Never a sample.

`channel_bot.py shmem encode|decode [sysinfo]`: two processes alive at once. The encoder sends its hand through
the machine-wide `Shmem` line of /proc/meminfo, by writing and deleting a large file in its own
/scratch (a tmpfs: its pages count as shared memory for the whole machine), one bit per slot of the
wall clock (Manchester: a 1 is high then low, a 0 low then high), in frames that start at slots the
decoder can find (sync byte, length, 5 bits a card, CRC-8). The decoder samples `Shmem` (or, with
`sysinfo`, the same counter through sysinfo(2)'s `sharedram`) and writes
`claim <cards>` to stderr when a frame checks. Each keeps its game alive (slow answers) meanwhile.

`channel_bot.py pagecache`: one process after another on the same deal. At its first decision each
process first probes, without waiting, which pages of a region of a large read-only file under /usr
are in the host's page cache (`preadv2(RWF_NOWAIT)` fails on a page that is not), decodes a frame
from them (a page per bit) and logs `claim <cards>` if it checks; then it evicts the region
(`posix_fadvise(DONTNEED)`) and reads the pages of its own hand's 1 bits, leaving its hand for the next
process. Without readahead (`POSIX_FADV_RANDOM`), a bit is one page, spaced 16 pages apart.
Every process logs `hand <cards>` (its own) so a test can compare.
"""

from __future__ import annotations

import glob
import os
import random
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "sample_bots", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import arenabot  # noqa: E402

SYSINFO = "sysinfo" in sys.argv[3:]
COLOURS = "BGYOV"
SYNC = 0xA5
PAGE = 4096
STRIDE = 16 * PAGE
HALF = 0.06  # seconds a Manchester half-slot
LEVEL = 8 * 1024 * 1024  # bytes written for a high half
MAX_CARDS = 5  # a Kododo hand


def crc8(bits: list[int]) -> list[int]:
    crc = 0
    for b in bits:
        top = ((crc >> 7) & 1) ^ b
        crc = ((crc << 1) & 0xFF) ^ (0x07 if top else 0)
    return [(crc >> (7 - i)) & 1 for i in range(8)]


def to_bits(value: int, width: int) -> list[int]:
    return [(value >> (width - 1 - i)) & 1 for i in range(width)]


def from_bits(bits: list[int]) -> int:
    out = 0
    for b in bits:
        out = (out << 1) | b
    return out


def frame(cards: list[str]) -> list[int]:
    cards = cards[:MAX_CARDS]
    body = to_bits(len(cards), 3)
    for card in cards:
        body += to_bits(COLOURS.index(card[0]) * 6 + int(card[1:]) - 1, 5)
    return to_bits(SYNC, 8) + body + crc8(body)


FRAME_BITS = 8 + 3 + 5 * MAX_CARDS + 8  # frames are padded to this length


def unframe(bits: list[int]) -> list[str] | None:
    if len(bits) < 11 or from_bits(bits[:8]) != SYNC:
        return None
    n = from_bits(bits[8:11])
    end = 11 + 5 * n
    if n == 0 or len(bits) < end + 8:
        return None
    body = bits[8:end]
    if crc8(body) != bits[end:end + 8]:
        return None
    cards = []
    for i in range(n):
        v = from_bits(bits[11 + 5 * i: 16 + 5 * i])
        if v >= 30:
            return None
        cards.append(f"{COLOURS[v // 6]}{v % 6 + 1}")
    return cards


def padded(bits: list[int]) -> list[int]:
    return bits + [0] * (FRAME_BITS - len(bits))


# -- /proc/meminfo Shmem -------------------------------------------------------------------------------

def shmem_kb() -> int:
    if SYSINFO:  # the same counter through sysinfo(2): struct sysinfo's sharedram, times mem_unit
        import ctypes

        buf = (ctypes.c_ulong * 16)()
        if ctypes.CDLL(None, use_errno=True).sysinfo(buf) != 0:
            return 0
        mem_unit = int.from_bytes(bytes(buf)[104:108], "little") or 1
        return buf[6] * mem_unit // 1024
    with open("/proc/meminfo") as fh:
        for line in fh:
            if line.startswith("Shmem:"):
                return int(line.split()[1])
    return 0


def encode_shmem(cards: list[str], until: float) -> None:
    bits = padded(frame(cards))
    path = os.path.join(os.environ.get("ARENA_SCRATCH", "/tmp"), "level")
    high = False
    late = 0.0
    while time.time() < until:
        now = time.time()
        k = int(now / HALF)
        late = max(late, now - k * HALF)
        bit = bits[(k // 2) % FRAME_BITS]
        want = bool(bit) if k % 2 == 0 else not bit
        if want and not high:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.posix_fallocate(fd, 0, LEVEL)  # tmpfs pages at once, counted in Shmem
            os.close(fd)
            high = True
        elif not want and high:
            os.unlink(path)
            high = False
        time.sleep(max(0.0, (k + 1) * HALF - time.time()))
    if high:
        os.unlink(path)
    arenabot.log(f"sent until {until:.1f}, late {late:.3f}, fallocate {LEVEL}")


def decode_shmem(until: float) -> list[str] | None:
    """Sample Shmem inside every half-slot; after each frame, decode the sum over the frames so far of
    each bit's two halves (high minus low), so a half the encoder missed under load is outvoted."""
    samples: dict[int, int] = {}
    votes = [0] * FRAME_BITS
    while time.time() < until:
        k = int(time.time() / HALF)
        time.sleep(max(0.0, (k + 0.75) * HALF - time.time()))  # late in the half-slot
        value = shmem_kb()
        if int(time.time() / HALF) != k:
            continue  # read too late (the process was not scheduled in time): not this half's value
        samples[k] = value
        if k % 2 == 1 and (k // 2) % FRAME_BITS == FRAME_BITS - 1:  # a frame just ended
            start = k // 2 - FRAME_BITS + 1
            for p in range(FRAME_BITS):
                a, b = samples.get(2 * (start + p)), samples.get(2 * (start + p) + 1)
                if a is not None and b is not None:
                    votes[p] += a - b
            got = unframe([1 if v > 0 else 0 for v in votes])
            if got is not None:
                return got
    arenabot.log("votes " + "".join("+" if v > 0 else "-" if v < 0 else "0" for v in votes) + f" {len(samples)} samples until {until:.1f}")
    return None


# -- the page cache of a file under /usr ---------------------------------------------------------------

CANDIDATES = ("/usr/lib/jvm/*/lib/src.zip", "/usr/lib/jvm/*/lib/modules", "/usr/lib/x86_64-linux-gnu/libLLVM*",
              "/usr/lib/chromium/chromium", "/usr/lib/llvm-*/lib/*.so*", "/usr/lib/x86_64-linux-gnu/*.so*",
              "/usr/lib/go-*/pkg/tool/*/*", "/usr/bin/*")


def region_file() -> tuple[str, int] | None:
    """The first large file in a fixed order (every process picks the same), and the region's offset."""
    for pattern in CANDIDATES:
        for path in sorted(glob.glob(pattern)):
            try:
                size = os.path.getsize(path)
            except OSError:
                continue
            if os.path.isfile(path) and size >= 3 * FRAME_BITS * STRIDE:
                return path, (size // 2 // STRIDE) * STRIDE
    return None


def probe(fd: int, offset: int) -> list[int]:
    buf = bytearray(1)
    bits = []
    for i in range(FRAME_BITS):
        try:
            os.preadv(fd, [buf], offset + i * STRIDE, os.RWF_NOWAIT)
            bits.append(1)
        except BlockingIOError:
            bits.append(0)
    return bits


def pagecache_turn(cards: list[str]) -> list[str] | None:
    found = region_file()
    if found is None:
        arenabot.log("no large file under /usr")
        return None
    path, offset = found
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
        got = unframe(probe(fd, offset))
        time.sleep(0.2)  # a page the probe missed is read in the background: let it land before the eviction
        os.posix_fadvise(fd, offset, FRAME_BITS * STRIDE, os.POSIX_FADV_DONTNEED)
        for i, bit in enumerate(padded(frame(cards))):
            if bit:
                os.pread(fd, 1, offset + i * STRIDE)
        return got
    finally:
        os.close(fd)


def main() -> None:
    mode = sys.argv[1]
    role = sys.argv[2] if len(sys.argv) > 2 else ""
    rng = random.Random(7)
    state = {"started": False, "done": threading.Event()}

    def first(request: dict) -> None:
        cards = [str(c) for c in request["view"]["hand"]]
        arenabot.log("hand " + ",".join(cards))
        if mode == "pagecache":
            got = pagecache_turn(cards)
            arenabot.log("claim " + ",".join(got) if got else "no claim")
            return
        until = time.time() + 12.0

        def work() -> None:
            if role == "encode":
                encode_shmem(cards, until)
            else:
                got = decode_shmem(until)
                arenabot.log("claim " + ",".join(got) if got else "no claim")
            state["done"].set()  # type: ignore[attr-defined]

        threading.Thread(target=work, daemon=True).start()

    def decide(request: dict) -> object:
        if not state["started"]:
            state["started"] = True
            first(request)
        if mode == "shmem" and not state["done"].is_set():  # type: ignore[attr-defined]
            state["done"].wait(1.5)  # type: ignore[attr-defined]  # keep the game (and the other) alive
        return rng.choice(request["legal"])

    def on_start(message: dict) -> None:
        state["started"] = False
        state["done"] = threading.Event()

    arenabot.run(decide, name="channel", version="1", on_start=on_start)


if __name__ == "__main__":
    main()
