"""A worker's bot cache: archives checked against their hash, fetched again when they do not match,
never unpacked when they still do not; bounded, least recently used evicted; a folder it cannot use
said in one line. And the bundle: the same files give the same hash, the command runs from anywhere."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from arena.tournament.config import tournament as tconfig
from arena.tournament.run.cluster.botcache import ArchiveCache, BundleMismatch, CacheError
from arena.tournament.run.cluster.bundles import pack_entrant, placed, runtime_missing, sha256

REPO = Path(__file__).parents[3]


def _entrant(tmp_path: Path, text: str = "print('hi')\n") -> tconfig.EntrantConfig:
    folder = tmp_path / "bots" / "b"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.py").write_text(text, encoding="utf-8")
    (folder / "data.txt").write_text("weights", encoding="utf-8")
    path = tmp_path / "t.yaml"
    path.write_text("name: t\ngame: kododo\nplayers: 2\nentrants:\n"
                    "  - {name: b, command: ['{python}', 'bots/b/bot.py'], cwd: bots/b}\n"
                    "  - {name: c, command: ['{python}', 'bots/b/bot.py'], cwd: bots/b}\n"
                    "schedule: {rounds: 1}\noutput: {store: t.sqlite}\n", encoding="utf-8")
    return tconfig.load(path).entrants[0]


def test_the_same_files_give_the_same_hash_and_the_bot_runs_from_its_unpacked_copy(tmp_path: Path) -> None:
    entrant = _entrant(tmp_path, "import os; print(open('data.txt').read(), os.getcwd())\n")
    bundle, data = pack_entrant(entrant)
    again, same = pack_entrant(entrant)
    assert (bundle.sha256, data) == (again.sha256, same) and bundle.sha256 == sha256(data)
    cache = ArchiveCache(tmp_path / "cache", 10 << 20)
    folder = cache.unpack("run", bundle.sha256, lambda: data)
    shutil.rmtree(tmp_path / "bots")  # the coordinator's folder is not needed on the worker
    moved = placed(entrant, bundle, folder)
    out = subprocess.run(list(moved.command), cwd=moved.cwd, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["weights", folder + "/0"]
    assert runtime_missing(bundle) is None


def test_a_tampered_cache_file_is_refused_and_fetched_again(tmp_path: Path) -> None:
    bundle, data = pack_entrant(_entrant(tmp_path))
    cache = ArchiveCache(tmp_path / "cache", 10 << 20)
    cache.archive(bundle.sha256, lambda: data)
    kept = tmp_path / "cache" / "archives" / f"{bundle.sha256}.tgz"
    kept.write_bytes(kept.read_bytes()[:-1] + b"X")  # tampered on the worker's disk
    fetches = []
    path = cache.archive(bundle.sha256, lambda: fetches.append(1) or data)
    assert fetches == [1] and path.read_bytes() == data and cache.refused == 1


def test_an_archive_that_never_matches_is_never_unpacked(tmp_path: Path) -> None:
    bundle, data = pack_entrant(_entrant(tmp_path))
    evil = data[:-4] + b"\0\0\0\0"
    cache = ArchiveCache(tmp_path / "cache", 10 << 20)
    with pytest.raises(BundleMismatch, match="did not match its hash"):
        cache.unpack("run", bundle.sha256, lambda: evil)
    assert not list((tmp_path / "cache").glob("runs/*/*")), "a refused archive was unpacked"
    assert not list((tmp_path / "cache" / "archives").glob("*.tgz"))
    # control: the right bytes are unpacked
    assert Path(cache.unpack("run", bundle.sha256, lambda: data), "0", "bot.py").is_file()


def test_the_cache_keeps_within_its_size_evicting_the_least_recently_used(tmp_path: Path) -> None:
    blobs = [os.urandom(4000) for _ in range(3)]
    cache = ArchiveCache(tmp_path / "cache", 9000)
    for i, blob in enumerate(blobs):
        cache.archive(sha256(blob), lambda b=blob: b)
        os.utime(cache.archives / f"{sha256(blob)}.tgz", (1000 + i, 1000 + i))
    kept = {p.stem for p in cache.archives.glob("*.tgz")}
    assert kept == {sha256(blobs[1]), sha256(blobs[2])}
    with pytest.raises(CacheError, match="does not fit"):
        cache.archive(sha256(b"x" * 10000), lambda: b"x" * 10000)


def test_an_archive_in_use_is_not_evicted_and_a_full_cache_says_so(tmp_path: Path) -> None:
    first, second = os.urandom(6000), os.urandom(6000)
    cache = ArchiveCache(tmp_path / "cache", 9000)
    cache.in_use["run"] = {sha256(first)}
    cache.archive(sha256(first), lambda: first)
    with pytest.raises(CacheError, match="is full"):
        cache.archive(sha256(second), lambda: second)
    cache.release("run")  # control: once the run ends, the older archive makes room
    cache.archive(sha256(second), lambda: second)


def test_a_cache_folder_that_cannot_be_written_says_so(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert "cannot be written" in (ArchiveCache(blocker / "cache", 1 << 20).problem() or "")
    assert ArchiveCache(tmp_path / "ok", 1 << 20).problem() is None


def test_a_runtime_the_machine_lacks_is_named(tmp_path: Path) -> None:
    bundle, _ = pack_entrant(_entrant(tmp_path))
    from dataclasses import replace

    assert runtime_missing(replace(bundle, runtime="no-such-runtime-xyz")) == "no-such-runtime-xyz"
    assert runtime_missing(replace(bundle, runtime="/opt/nowhere/bin/java")) == "/opt/nowhere/bin/java"
    assert runtime_missing(replace(bundle, runtime="sh")) is None
