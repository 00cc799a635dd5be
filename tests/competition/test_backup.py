"""`backup` and `restore` of a server's data folder: a round trip keeps the store (accounts, phase), the
uploads, the replays and the signing key; a full disk leaves no half file under the backup's name and the
data untouched; a restore refuses a running server and a folder that is not empty (unless forced)."""

from __future__ import annotations

import errno
import io
from pathlib import Path
from typing import IO

import pytest

from arena.errors import BackupError
from arena.ladder.competition import backup as ops
from arena.ladder.competition.roster import check_people
from arena.ladder.config import parse
from arena.ladder.service import Server
from arena.results.lock import StoreLock
from tests.server.inprocess import ADMIN


def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: str = "data") -> Server:
    monkeypatch.setenv("ARENA_ADMIN_TOKEN", ADMIN)
    return Server(parse({"game": "kododo", "players": 2, "data": str(tmp_path / data)}, tmp_path / f"{data}.yaml"), sandbox=False)


def filled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Server:
    s = server(tmp_path, monkeypatch)
    s.import_accounts(check_people([("x", {"name": "ada", "display name": "Ada"})], "t"))
    s.set_phase("frozen", "organiser")
    folder = s.config.uploads / "1" / "0001-abc"
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text("print('hi')\n")
    with s.db.write() as conn:
        conn.execute("INSERT INTO submissions(participant_id, created, status, folder) VALUES(1, 0, 'passed', ?)", (str(folder),))
    return s


def test_a_backup_restores_the_store_the_files_and_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = filled(tmp_path, monkeypatch)
    archive = tmp_path / "backup.tar.gz"
    done = ops.backup(s.config.data, s.config.database, archive)  # while the server holds its lock
    assert done.files >= 2 and archive.is_file() and not list(tmp_path.glob(".backup.tar.gz.partial*"))
    with pytest.raises(BackupError, match="exists already"):
        ops.backup(s.config.data, s.config.database, archive)
    other = tmp_path / "elsewhere"  # another machine's data folder: the paths in the store follow it
    ops.restore(other, other / "server.sqlite", archive)
    monkeypatch.setenv("ARENA_ADMIN_TOKEN", ADMIN)
    back = Server(parse({"game": "kododo", "players": 2, "data": str(other)}, tmp_path / "other.yaml"), sandbox=False)
    assert back.phase().phase.value == "frozen" and [a["name"] for a in back.accounts()] == ["ada"]
    assert (other / "signing-key.pem").read_bytes() == s.config.key_file.read_bytes()
    (row,) = back.db.all("SELECT folder FROM submissions")
    assert Path(row["folder"]).is_relative_to(other) and (Path(row["folder"]) / "bot.py").read_text() == "print('hi')\n"


class FullDisk(io.BytesIO):
    """A file that takes `room` bytes and then fails as a full disk does."""

    def __init__(self, path: Path, room: int) -> None:
        super().__init__()
        self.path, self.room = path, room
        path.write_bytes(b"")  # the partial file exists, as a real one would

    def write(self, data: bytes) -> int:  # type: ignore[override]
        if self.tell() + len(data) > self.room:
            raise OSError(errno.ENOSPC, "No space left on device")
        return super().write(data)

    def fileno(self) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_disk_leaves_no_half_backup_and_the_server_unharmed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = filled(tmp_path, monkeypatch)
    (s.config.replays / "big.jsonl").write_bytes(bytes(range(256)) * 4000)  # incompressible enough to pass the room
    archive = tmp_path / "backup.tar.gz"
    before = s.config.database.read_bytes()

    def opener(path: Path) -> IO[bytes]:
        return FullDisk(path, 2000)

    with pytest.raises(BackupError, match="No space left on device; nothing was written there"):
        ops.backup(s.config.data, s.config.database, archive, opener)
    assert not archive.exists() and [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    assert s.phase().phase.value == "frozen" and s.config.database.read_bytes() == before
    s.set_phase("final", "organiser")  # the server still writes
    assert ops.backup(s.config.data, s.config.database, archive).bytes > 0  # the control: with room, it is written


def test_a_restore_refuses_a_running_server_and_a_folder_in_use(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = filled(tmp_path, monkeypatch)
    archive = tmp_path / "b.tar.gz"
    ops.backup(s.config.data, s.config.database, archive)
    with pytest.raises(BackupError, match="a server is running on"):  # `s` holds the data folder's lock
        ops.restore(s.config.data, s.config.database, archive, force=True)
    s.lock.release()
    s.db.close()
    with pytest.raises(BackupError, match="is not empty .* add --force"):
        ops.restore(s.config.data, s.config.database, archive)
    (s.config.uploads / "stray").mkdir()
    ops.restore(s.config.data, s.config.database, archive, force=True)  # the control: forced, it replaces the contents
    assert not (s.config.uploads / "stray").exists() and (s.config.data / "server.sqlite").is_file()
    with StoreLock(s.config.database):
        pass  # the restore let go of the lock
    with pytest.raises(BackupError, match="not an arena serve backup"):
        bad = tmp_path / "bad.tar.gz"
        import tarfile

        with tarfile.open(bad, "w:gz") as tar:
            (tmp_path / "x.txt").write_text("x")
            tar.add(tmp_path / "x.txt", "x")
        ops.restore(tmp_path / "fresh", tmp_path / "fresh" / "server.sqlite", bad)
