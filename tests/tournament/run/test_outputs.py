"""Item 8 of issue 11: a full disk or an unwritable output folder is one clear line naming the path,
never "a bug in arena" with a traceback; what was stored before is kept."""

from __future__ import annotations

import errno
import os
import sqlite3
import subprocess
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.errors import OutputError, RunnerError
from arena import replay as replay_module
from arena.tournament.config import tournament as tconfig
from arena.tournament.run import runner
from arena.results.store import Store

from tests.support.tournament import small


pytestmark = pytest.mark.process

ROOT = os.geteuid() == 0


@pytest.fixture
def unwritable(tmp_path: Path) -> Iterator[Path]:
    """A folder nobody may write to: a read-only mount as root (root ignores permissions), else 0o555."""
    folder = tmp_path / "locked"
    folder.mkdir()
    if ROOT:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(folder)], capture_output=True)
        if done.returncode != 0:
            pytest.skip(f"cannot mount a read-only folder: {done.stderr.decode().strip()}")
        try:
            yield folder
        finally:
            subprocess.run(["umount", str(folder)], check=False)
    else:
        folder.chmod(0o555)
        try:
            yield folder
        finally:
            folder.chmod(0o755)


def _one_error_line(write_config: Callable[..., Path], data: dict[str, Any]) -> str:
    result = CliRunner().invoke(main, ["run", "--quiet", "-j", "1", str(write_config(data))])
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and "Traceback" not in result.output and "bug in arena" not in result.output
    return result.output


def test_an_unwritable_replays_folder_is_one_line_naming_it(write_config: Callable[..., Path], unwritable: Path) -> None:
    line = _one_error_line(write_config, small(1, output={"store": "ok.sqlite", "replays": str(unwritable / "replays")}))
    assert f"cannot write replays to {unwritable / 'replays'}" in line


def test_an_unwritable_store_folder_is_one_line_naming_it(write_config: Callable[..., Path], unwritable: Path) -> None:
    line = _one_error_line(write_config, small(1, output={"store": str(unwritable / "out" / "s.sqlite")}))
    assert f"cannot create the results store {unwritable / 'out' / 's.sqlite'}" in line


def test_a_disk_that_fills_while_replays_are_written_stops_with_one_line(
    write_config: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    written = {"records": 0}
    real_write = replay_module.ReplayWriter.write

    def filling(self: replay_module.ReplayWriter, record: Any, flush: bool = False) -> None:
        written["records"] += 1
        if written["records"] > 400:  # a few games fit, then the disk is full
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), self.path)
        real_write(self, record, flush)

    monkeypatch.setattr(replay_module.ReplayWriter, "write", filling)
    cfg = tconfig.load(write_config(small(1, output={"store": "full.sqlite", "replays": "replays"})))
    with pytest.raises(RunnerError, match=r"cannot write .*replays/0000\d\d-r0-t\d-s\d\.jsonl: No space left on device"):
        runner.run(cfg, concurrency=1, quiet=True)
    with Store.open_existing(cfg.store) as store:
        assert 0 < store.info().stored_games < 12  # what finished before is kept
    written["records"] = -10**9  # space freed: a rerun resumes
    assert runner.run(cfg, concurrency=1, quiet=True).stored == 12


def test_a_full_results_store_stops_with_one_line_naming_it(write_config: Callable[..., Path], monkeypatch: pytest.MonkeyPatch) -> None:
    real_connect = Store._connect.__func__  # type: ignore[attr-defined]
    probe = tconfig.load(write_config(small(4, output={"store": "probe.sqlite"}), "probe.yaml"))
    runner.open_store(probe).close()  # an empty store: its schema's size in pages
    with sqlite3.connect(probe.store) as conn:
        schema_pages = int(conn.execute("PRAGMA page_count").fetchone()[0])

    def small_disk(cls: type[Store], path: Path) -> sqlite3.Connection:
        conn: sqlite3.Connection = real_connect(cls, path)
        conn.execute(f"PRAGMA max_page_count = {schema_pages + 1}")  # room for a few games: then SQLite's own "database or disk is full"
        return conn

    monkeypatch.setattr(Store, "_connect", classmethod(small_disk))
    cfg = tconfig.load(write_config(small(4, output={"store": "tiny.sqlite"})))
    with pytest.raises(OutputError, match=rf"cannot write the results store {cfg.store}: database or disk is full \(free some disk space"):
        runner.run(cfg, concurrency=1, quiet=True)
    with Store.open_existing(cfg.store) as store:
        assert 0 < store.info().stored_games < 48


@pytest.mark.skipif(not ROOT, reason="mounting a small tmpfs needs root")
def test_a_really_full_disk_is_one_line(write_config: Callable[..., Path], tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    disk.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=96k", "tmpfs", str(disk)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {done.stderr.decode().strip()}")
    try:
        line = _one_error_line(write_config, small(4, output={"store": str(disk / "s.sqlite"), "replays": str(disk / "replays")}))
        assert "No space left on device" in line or "database or disk is full" in line
        assert str(disk) in line
    finally:
        subprocess.run(["umount", str(disk)], check=False)


def test_the_store_is_0600_and_the_replays_folder_0700_whatever_the_umask(write_config: Callable[..., Path], tmp_path: Path) -> None:
    """Through the library (no CLI umask): arena's outputs are the organiser's only, as made by arena."""
    cfg = tconfig.load(write_config(small(1, output={"store": "out/t.sqlite", "replays": "out/replays"})))
    old = os.umask(0o022)  # a typical login umask: files 0644 and folders 0755 unless arena says otherwise
    try:
        runner.run(cfg, concurrency=1, quiet=True)
        with Store.open_existing(cfg.store) as store:  # the WAL files exist while a connection is open
            made = [cfg.store] + [Path(f"{cfg.store}{s}") for s in ("-wal", "-shm", ".lock") if Path(f"{cfg.store}{s}").exists()]
            modes = {p.name: oct(p.stat().st_mode & 0o777) for p in made}
            assert store.path == cfg.store
    finally:
        os.umask(old)
    assert f"{cfg.store.name}-wal" in modes and f"{cfg.store.name}.lock" in modes
    assert set(modes.values()) == {"0o600"}, modes
    assert cfg.replays is not None and oct(cfg.replays.stat().st_mode & 0o777) == "0o700"
    assert any(cfg.replays.glob("*.jsonl"))
