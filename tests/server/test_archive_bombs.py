"""Archives that attack the unpacker's bookkeeping rather than the file system (issue 36, items 9 and 13):
a pax header of hundreds of MB in a tiny tar.gz, members thousands of folders deep, folders implied by
paths beyond the member limit, trees too deep for a recursive remover. Each refused quickly with a
reason; each control shows the attack works without the protection."""

from __future__ import annotations

import gzip
import io
import os
import shutil
import tarfile
import time
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from arena.errors import SubmissionRefused
from arena.ladder.uploads.archive import ArchiveLimits, unpack
from arena.ladder.uploads.storage import check_room, remove_tree
from arena.ladder.uploads.unpacker import unpack_isolated
from tests.server.bots import manifest, zip_bytes

LIMITS = ArchiveLimits(max_total_bytes=2_000_000, max_file_bytes=1_000_000, max_files=50, max_ratio=50.0)
SHIPPED = ArchiveLimits()  # the server's defaults, as the issue's attack met them


def pax_bomb(header_bytes: int) -> bytes:
    """A tar.gz whose first member is a pax extended header of `header_bytes` zeros, then a small bot:
    built streaming, so the test itself never holds the header."""
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=9) as gz:
        pax = tarfile.TarInfo("././@PaxHeader")
        pax.type, pax.size = tarfile.XHDTYPE, header_bytes
        gz.write(pax.tobuf(format=tarfile.USTAR_FORMAT))
        block = b"\0" * (1 << 20)
        left = header_bytes + (-header_bytes % 512)
        while left:
            gz.write(block[: min(left, len(block))])
            left -= min(left, len(block))
        body = manifest("bomb", "1", "python3 bot.py").encode()
        info = tarfile.TarInfo("manifest.json")
        info.size = len(body)
        gz.write(info.tobuf(format=tarfile.USTAR_FORMAT) + body + b"\0" * (-len(body) % 512) + b"\0" * 1024)
    return buf.getvalue()


def deep_zip(depth: int, members: int = 3) -> bytes:
    return zip_bytes({"/".join(["d"] * depth) + f"/f{i}": "x" for i in range(members)})


def test_a_large_pax_header_is_counted_and_memory_stays_small(tmp_path: Path) -> None:
    bomb = pax_bomb(40_000_000)  # 40 MB of header in ~40 KB
    assert len(bomb) < 100_000
    # Control: tarfile alone reads the whole header into memory (what the unpacker did before).
    tracemalloc.start()
    try:
        with tarfile.open(fileobj=io.BytesIO(bomb), mode="r|gz") as tf:
            try:
                for _ in tf:
                    pass
            except tarfile.TarError:
                pass
        _, control_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert control_peak > 40_000_000
    tracemalloc.start()
    try:
        with pytest.raises(SubmissionRefused, match="headers"):
            unpack(bomb, tmp_path / "bot", LIMITS)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8_000_000, peak
    assert not (tmp_path / "bot").exists()


def test_the_issues_400_mb_pax_header_is_refused_by_a_small_child(tmp_path: Path) -> None:
    bomb = pax_bomb(400_000_000)
    assert len(bomb) < 500_000  # the issue's 0.41 MB
    started = time.monotonic()
    with pytest.raises(SubmissionRefused, match="headers counted") as err:
        unpack_isolated(bomb, tmp_path / "bot", SHIPPED)
    assert time.monotonic() - started < 10
    assert "pax" in str(err.value)
    assert not (tmp_path / "bot").exists()
    # The child's memory: a clean archive of the same shape reports its own peak, and the refused one
    # never got near the 400 MB (the child's address space is capped at unpack_memory_mb anyway).
    ok = unpack_isolated(zip_bytes({"manifest.json": manifest("b", "1", "python3 bot.py"), "bot.py": "x"}), tmp_path / "ok", SHIPPED)
    assert 0 < ok.peak_rss_kb < 200_000


def test_the_child_dies_inside_its_limits_and_that_is_a_refusal(tmp_path: Path) -> None:
    """Control for the rlimits: with protection off (no metering), the same bomb in a child whose memory is
    capped dies of it, and that death is a refusal saying so, not a server crash."""
    bomb = pax_bomb(400_000_000)
    tight = ArchiveLimits(max_total_bytes=10**12, max_ratio=10**9, max_files=10**6, unpack_memory_mb=200)
    with pytest.raises(SubmissionRefused, match="more than 200 MB of memory"):
        unpack_isolated(bomb, tmp_path / "bot", tight)
    assert not (tmp_path / "bot").exists()


@pytest.mark.parametrize("depth", [2000])
def test_members_thousands_of_folders_deep_are_refused_quickly(tmp_path: Path, depth: int) -> None:
    data = deep_zip(depth)
    assert len(data) < 40_000
    started = time.monotonic()
    with pytest.raises(SubmissionRefused, match=f"nested {depth} folders deep; the limit is 32"):
        unpack(data, tmp_path / "bot", SHIPPED)
    assert time.monotonic() - started < 1.0
    assert not (tmp_path / "bot").exists()
    unpack(deep_zip(30), tmp_path / "ok", SHIPPED)  # control: the same shape within the bound unpacks


def test_folders_implied_by_paths_count_against_the_member_limit(tmp_path: Path) -> None:
    # 10 members (under the limit of 50), each 20 folders deep on its own branch: 200 folders.
    files = {"/".join(f"b{i}x{j}" for j in range(20)) + "/f": "x" for i in range(10)}
    with pytest.raises(SubmissionRefused, match="more than 50 files and folders"):
        unpack(zip_bytes(files), tmp_path / "bot", LIMITS)
    assert not (tmp_path / "bot").exists()
    # Control: counted per member only (the old rule), the archive passes.
    roomy = ArchiveLimits(max_total_bytes=2_000_000, max_file_bytes=1_000_000, max_files=10 + 200, max_ratio=50.0)
    unpack(zip_bytes(files), tmp_path / "ok", roomy)
    assert sum(1 for _ in (tmp_path / "ok").rglob("*")) == 210


def test_6000_folders_are_refused(tmp_path: Path) -> None:
    files = {f"a{i // 100}/b{i % 100}/c/f": "" for i in range(2000)}  # 2,000 members and 4,020 folders they imply: 6,020 entries
    with pytest.raises(SubmissionRefused, match="more than 2000 files and folders"):
        unpack(zip_bytes(files), tmp_path / "bot", SHIPPED)
    assert not (tmp_path / "bot").exists()


def _deep_tree(top: Path, depth: int) -> None:
    top.mkdir()
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        (os.open("f", os.O_WRONLY | os.O_CREAT, dir_fd=fd) and None)
        nxt = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = nxt
    os.close(fd)


def test_trees_too_deep_for_recursion_are_removed(tmp_path: Path) -> None:
    _deep_tree(tmp_path / "control", 2500)
    with pytest.raises((RecursionError, OSError)):  # control: what the server used before
        shutil.rmtree(tmp_path / "control")
    remove_tree(tmp_path / "control")  # (pytest's own clean-up would meet the same recursion)
    _deep_tree(tmp_path / "deep", 2500)
    remove_tree(tmp_path / "deep")
    assert not (tmp_path / "deep").exists()
    remove_tree(tmp_path / "deep")  # missing is fine
    (tmp_path / "file").write_text("x")
    remove_tree(tmp_path / "file")
    assert not (tmp_path / "file").exists()


def test_a_participants_quota_and_the_free_space_floor_refuse_before_unpacking(tmp_path: Path) -> None:
    owner = tmp_path / "uploads" / "7"
    (owner / "v1").mkdir(parents=True)
    (owner / "v1" / "big").write_bytes(b"x" * 3 * 1024 * 1024)
    check_room(tmp_path, owner, 1024 * 1024, min_free_mb=0, quota_mb=10)  # control: room left
    with pytest.raises(SubmissionRefused, match="your uploads take 3.0 MB of your 4 MB"):
        check_room(tmp_path, owner, 2 * 1024 * 1024, min_free_mb=0, quota_mb=4)
    free_mb = shutil.disk_usage(tmp_path).free // (1024 * 1024)
    with pytest.raises(SubmissionRefused, match="short of disk space"):
        check_room(tmp_path, owner, 1024 * 1024, min_free_mb=free_mb + 10, quota_mb=10)
