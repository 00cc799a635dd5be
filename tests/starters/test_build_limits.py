"""Hostile builds: each stopped at its limit and refused with a clear reason, and a good build right
after it is unaffected. Where the protection is the sandbox itself (writing outside the folder,
opening a socket), the same build without the sandbox is the control: there the attack works."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest

from arena.build.languages import Language
from arena.build.runner import BuildLimits, _Log, build

pytestmark = [pytest.mark.process, pytest.mark.sandbox]

SMALL = BuildLimits(time_s=20, cpu_seconds=10, memory_mb=256, processes=32, disk_mb=20, file_mb=10, log_kb=16)


def hostile(script: str) -> Language:
    return Language("hostile", "./bot", script, ("sh",))


def folder(tmp_path: Path, name: str = "bot") -> str:
    path = tmp_path / name
    path.mkdir()
    return str(path)


def assert_next_build_is_fine(tmp_path: Path) -> None:
    result = build(folder(tmp_path, "next"), hostile("echo fine > bot && chmod +x bot"), SMALL)
    assert result.ok and "fine" not in result.reason and (tmp_path / "next" / "bot").read_text() == "fine\n"


def test_a_build_that_loops_is_stopped_at_its_time_limit(tmp_path: Path) -> None:
    result = build(folder(tmp_path), hostile("echo starting; while :; do :; done"), BuildLimits(time_s=2, cpu_seconds=60))
    assert not result.ok and "longer than its limit of 2 s" in result.reason and result.seconds < 10
    assert "starting" in result.log
    assert_next_build_is_fine(tmp_path)


def test_a_build_that_forks_without_end_is_stopped_at_its_process_limit(tmp_path: Path) -> None:
    result = build(folder(tmp_path), hostile("bomb() { bomb | bomb & }; bomb; sleep 5; exit 1"), SMALL)
    assert not result.ok and "processes" in result.reason, result
    assert_next_build_is_fine(tmp_path)


def test_a_build_that_fills_the_disk_is_stopped_at_its_disk_limit(tmp_path: Path) -> None:
    # Many files, each under the per-file limit: only the folder's growth catches it.
    script = "i=0; while :; do i=$((i+1)); head -c 5000000 /dev/zero > f$i || exit 1; done"
    result = build(folder(tmp_path), hostile(script), SMALL)
    assert not result.ok and "more than its limit of 20 MB of disk" in result.reason, result
    assert_next_build_is_fine(tmp_path)


def test_a_build_that_takes_all_memory_is_stopped_at_its_memory_limit(tmp_path: Path) -> None:
    script = "python3 -c 'x = bytearray(1 << 30); print(len(x))'"
    result = build(folder(tmp_path), hostile(script), SMALL)
    assert not result.ok and "memory" in result.reason, result
    assert_next_build_is_fine(tmp_path)


@pytest.mark.parametrize("sandboxed", [True, False])
def test_a_build_cannot_write_outside_its_folder(tmp_path: Path, sandboxed: bool) -> None:
    outside = tmp_path / "outside.txt"
    result = build(folder(tmp_path), hostile(f"echo pwned > {outside} && echo pwned > ../sibling.txt"), SMALL,
                   sandbox=sandboxed)
    if not sandboxed:  # the control: without the sandbox the attack works
        assert result.ok and outside.exists()
        return
    assert not result.ok and "the build failed" in result.reason
    assert not outside.exists() and not (tmp_path / "sibling.txt").exists()
    assert "Read-only file system" in result.log or "No such file or directory" in result.log, result.log
    assert_next_build_is_fine(tmp_path)


@pytest.mark.parametrize("sandboxed", [True, False])
def test_a_build_cannot_open_a_socket(tmp_path: Path, sandboxed: bool) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    got: list[bytes] = []

    def accept() -> None:
        listener.settimeout(15)
        try:
            conn, _ = listener.accept()
            got.append(conn.recv(100))
            conn.close()
        except OSError:
            pass

    thread = threading.Thread(target=accept)
    thread.start()
    script = f"python3 -c 'import socket; s = socket.create_connection((\"127.0.0.1\", {port}), 5); s.sendall(b\"leak\")'"
    try:
        result = build(folder(tmp_path), hostile(script), SMALL, sandbox=sandboxed)
    finally:
        if sandboxed:
            listener.close()
        thread.join()
        listener.close()
    if not sandboxed:  # the control
        assert result.ok and got == [b"leak"]
        return
    assert not result.ok and got == [] and "the build failed" in result.reason
    assert "Network is unreachable" in result.log or "Connection refused" in result.log, result.log


def test_a_log_with_escapes_invalid_utf8_and_megabytes_is_cleaned_and_bounded(tmp_path: Path) -> None:
    script = ("printf 'start \\033[31mred\\033[0m \\377\\376 bad utf-8\\n'; head -c 5000000 /dev/zero | tr '\\0' x; "
              "printf '\\nthe end\\n'; exit 3")
    result = build(folder(tmp_path), hostile(script), SMALL)
    assert not result.ok and "exited with status 3" in result.reason
    assert "\x1b" not in result.log and "red" in result.log and "\ufffd" in result.log
    assert "bytes of the build's output left out" in result.log and result.log.rstrip().endswith("the end")
    assert len(result.log) < 20_000
    assert result.tail(1) == "the end"


def test_the_log_keeps_its_head_and_tail() -> None:
    log = _Log(2048)
    for i in range(1000):
        log.add(f"line {i}\n".encode())
    text = log.text()
    assert text.startswith("line 0\n") and text.endswith("line 999\n") and "left out" in text


def test_a_build_that_closes_its_output_then_fills_the_disk_is_stopped(tmp_path: Path) -> None:
    script = "exec >&- 2>&-; i=0; while :; do i=$((i+1)); head -c 5000000 /dev/zero > f$i || exit 1; done"
    result = build(folder(tmp_path), hostile(script), SMALL)
    assert not result.ok and "more than its limit of 20 MB of disk" in result.reason, result


def test_a_long_build_keeps_the_servers_checker_alive(tmp_path: Path) -> None:
    """The server's checker runs the build and beats its heartbeat all along (a build may take minutes,
    longer than the checker's stale limit): `beat` is called at every poll, not only once at the end."""
    beats: list[float] = []
    import time

    result = build(folder(tmp_path), hostile("sleep 1.5; echo done > bot && chmod +x bot"), SMALL, poll_s=0.1,
                   beat=lambda: beats.append(time.monotonic()))
    assert result.ok, result
    assert len(beats) >= 8 and max(b - a for a, b in zip(beats, beats[1:])) < 1.0  # no gap near the build's length


def test_a_build_runs_in_a_process_with_more_than_a_thousand_descriptors_open(tmp_path: Path) -> None:
    """A long-running server holds many descriptors; the build's pipes then have numbers over 1024,
    which select() cannot watch. The build reads them all the same (epoll)."""
    import os
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 2048:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 2048), hard))
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        result = build(folder(tmp_path), hostile("echo hello; echo built > bot && chmod +x bot"), SMALL)
    finally:
        for fd in held:
            os.close(fd)
    assert result.ok and "hello" in result.log, result
