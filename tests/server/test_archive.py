"""Malicious archives: each refused with a clear message, nothing written outside the upload folder.

Every attack is packed as a real archive; the control (a clean archive with the same shape) unpacks,
so each refusal is the check's doing, not a broken fixture.
"""

from __future__ import annotations

import io
import os
import tarfile
import zipfile
from pathlib import Path

import pytest

from arena.errors import SubmissionRefused
from arena.ladder.uploads.archive import ArchiveLimits, read_manifest, unpack
from tests.server.bots import js_random, manifest, python_random, tar_bytes, zip_bytes

LIMITS = ArchiveLimits(max_total_bytes=2_000_000, max_file_bytes=1_000_000, max_files=50, max_ratio=50.0)
RUNTIMES = ("python3", "node")


def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def _refused(tmp_path: Path, data: bytes, expected: str, limits: ArchiveLimits = LIMITS) -> str:
    uploads = tmp_path / "uploads"
    uploads.mkdir(exist_ok=True)
    before = _tree(tmp_path)
    with pytest.raises(SubmissionRefused) as err:
        unpack(data, uploads / "bot", limits)
        read_manifest(uploads / "bot", RUNTIMES)
    assert expected in str(err.value), str(err.value)
    assert _tree(tmp_path) - before <= {"uploads/bot", *(f"uploads/bot/{n}" for n in ("manifest.json", "bot.py"))}
    assert not (tmp_path / "evil").exists() and not Path("/tmp/arena-evil-written").exists()
    return str(err.value)


def _tar_member(info: tarfile.TarInfo, data: bytes = b"") -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        tf.addfile(info, io.BytesIO(data) if data else None)
    return buf.getvalue()


def test_clean_archives_unpack_and_commands_become_absolute(tmp_path: Path) -> None:
    unpack(python_random(), tmp_path / "py", LIMITS)
    m = read_manifest(tmp_path / "py", RUNTIMES)
    assert m.name == "pyrand" and m.command[1] == str(tmp_path / "py" / "random_bot.py") and m.command[2] == "5"
    unpack(js_random(), tmp_path / "js", LIMITS)
    assert read_manifest(tmp_path / "js", RUNTIMES).command[1] == str(tmp_path / "js" / "bot" / "random_bot.js")


@pytest.mark.parametrize("pack", [zip_bytes, tar_bytes])
def test_path_traversal_and_absolute_paths(tmp_path: Path, pack) -> None:  # type: ignore[no-untyped-def]
    _refused(tmp_path, pack({"../evil": "x"}), "'..' in a path is refused")
    _refused(tmp_path, pack({"ok/../../evil": "x"}), "'..' in a path is refused")
    _refused(tmp_path, pack({"/tmp/arena-evil-written": "x"}), "absolute paths are refused")


def test_symlinks_and_hard_links_refused(tmp_path: Path) -> None:
    link = tarfile.TarInfo("passwd")
    link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
    _refused(tmp_path, _tar_member(link), "is a symbolic link")
    hard = tarfile.TarInfo("shadow")
    hard.type, hard.linkname = tarfile.LNKTYPE, "/etc/shadow"
    _refused(tmp_path, _tar_member(hard), "is a hard link")
    _refused(tmp_path, zip_bytes({"passwd": "/etc/passwd"}, {"passwd": 0o120777}), "is a symbolic link")


def test_device_files_refused(tmp_path: Path) -> None:
    dev = tarfile.TarInfo("mem")
    dev.type, dev.devmajor, dev.devminor = tarfile.CHRTYPE, 1, 1
    _refused(tmp_path, _tar_member(dev), "special file")
    fifo = tarfile.TarInfo("pipe")
    fifo.type = tarfile.FIFOTYPE
    _refused(tmp_path, _tar_member(fifo), "special file")


def test_zip_bomb_and_huge_file(tmp_path: Path) -> None:
    zeros = b"\0" * 900_000  # deflates ~1000:1
    _refused(tmp_path, zip_bytes({"manifest.json": "{}", "a": zeros}), "times its size")
    _refused(tmp_path, tar_bytes({"a": zeros}), "times its size")
    big = os.urandom(1_200_000)  # incompressible: the ratio is fine, the file is not
    _refused(tmp_path, zip_bytes({"big": big}), "limit per file")


def test_a_million_tiny_files_stop_at_the_limit(tmp_path: Path) -> None:
    files = {f"f{i}": "" for i in range(LIMITS.max_files + 1)}
    _refused(tmp_path, zip_bytes(files), f"more than {LIMITS.max_files} files")
    _refused(tmp_path, tar_bytes(files), f"more than {LIMITS.max_files} files")


def test_invalid_utf8_names_refused(tmp_path: Path) -> None:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.GNU_FORMAT, encoding="utf-8", errors="surrogateescape") as tf:
        info = tarfile.TarInfo(b"bad\xff\xfe.py".decode("utf-8", "surrogateescape"))
        tf.addfile(info, io.BytesIO(b""))
    _refused(tmp_path, buf.getvalue(), "not valid UTF-8")
    raw = bytearray(zip_bytes({"badXX.py": "x"}))
    at = raw.index(b"badXX.py")
    raw[at + 3:at + 5] = b"\xff\xfe"  # the local header's name; the central directory's too
    at = raw.index(b"badXX.py", at)
    raw[at + 3:at + 5] = b"\xff\xfe"
    _refused(tmp_path, bytes(raw), "not valid UTF-8")


@pytest.mark.parametrize("command, expected", [
    ("/usr/bin/python3 bot.py", "is a host path"),
    ("python3 /home/someone/bot.py", "names a host path"),
    ("python3 ../other/bot.py", "leaves the bot's folder"),
    ("./missing", "not an executable file in the archive"),
    ("bash bot.py", "not a runtime this server offers"),
    ("python3 missing.py", "not in the archive"),
])
def test_manifest_command_must_stay_inside(tmp_path: Path, command: str, expected: str) -> None:
    _refused(tmp_path, zip_bytes({"manifest.json": manifest("x", "1", command), "bot.py": "print()"}), expected)


def test_manifest_program_outside_via_absolute_program(tmp_path: Path) -> None:
    _refused(tmp_path, zip_bytes({"manifest.json": manifest("x", "1", ["/bin/sh", "-c", "id"])}), "host path")


def test_not_an_archive(tmp_path: Path) -> None:
    _refused(tmp_path, b"#!/bin/sh\nrm -rf /\n", "neither a zip nor a tar.gz")
    _refused(tmp_path, zip_bytes({"bot.py": "x"}), "no manifest.json")


def test_the_traversal_and_link_archives_are_real_attacks_without_the_checks(tmp_path: Path) -> None:
    """Control: the same archives, unpacked by a plain `tarfile.extractall` with no filter (what a server
    without arena's checks would do), write outside the target folder or leave a link pointing out."""
    target = tmp_path / "a" / "b"
    target.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(tar_bytes({"../evil": "x"}))) as tf:
        tf.extractall(target, filter="fully_trusted")  # the unfiltered behaviour
    assert (tmp_path / "a" / "evil").read_text() == "x"  # written outside `target`
    link = tarfile.TarInfo("out")
    link.type, link.linkname = tarfile.SYMTYPE, "/etc"
    with tarfile.open(fileobj=io.BytesIO(_tar_member(link))) as tf:
        tf.extractall(target, filter="fully_trusted")
    assert os.path.realpath(target / "out") == "/etc"  # a link out of the bot's folder
