"""`arena submit DIR` packs a project folder: hard links as their content, .arenaignore and the default
ignores applied, build outputs left out of a source submission, symbolic links refused by name."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from arena.build.pack import kept_files, pack_bot_folder
from arena.errors import BuildError
from arena.ladder.uploads.archive import ArchiveLimits, read_manifest, unpack

ROOT = Path(__file__).resolve().parents[2]


def members(data: bytes) -> dict[str, tarfile.TarInfo]:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        return {m.name: m for m in tar.getmembers()}


@pytest.mark.process
@pytest.mark.slow
def test_a_built_cargo_project_with_hard_links_is_packed_and_accepted(tmp_path: Path) -> None:
    project = tmp_path / "kodobot"
    shutil.copytree(ROOT / "starters" / "rust", project)
    done = subprocess.run(["cargo", "build", "--release", "--offline"], cwd=project, capture_output=True, text=True,
                          timeout=600, env={**os.environ, "CARGO_HOME": str(tmp_path / "cargo")})
    assert done.returncode == 0, done.stderr
    binary = project / "target" / "release" / "bot"
    assert binary.stat().st_nlink > 1, "cargo hard-links its outputs: the case this test is about"
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref")

    # A prebuilt binary named by the command: taken as content, the rest of target/ left out.
    (project / "manifest.json").write_text('{"name": "kodobot", "version": "1", "command": "./target/release/bot"}')
    packed = pack_bot_folder(str(project))
    got = members(packed.data)
    assert "target/release/bot" in got and got["target/release/bot"].isreg()
    assert got["target/release/bot"].size == binary.stat().st_size and got["target/release/bot"].mode & 0o111
    assert not any(name.startswith(("target/release/deps", "target/debug", ".git")) for name in got)
    assert packed.files == len(got) and packed.bytes == sum(m.size for m in got.values())
    dest = tmp_path / "server-side"
    unpack(packed.data, dest, ArchiveLimits())  # the server refuses every link: this archive has none
    manifest = read_manifest(dest, ("python3",))
    hello = subprocess.run(list(manifest.command), input='{"type":"hello"}\n', capture_output=True, text=True, timeout=10)
    assert '"name":"random-rust"' in hello.stdout

    # A source submission (language given): no build output at all, the server builds it again.
    (project / "manifest.json").write_text('{"name": "kodobot", "version": "1", "language": "rust"}')
    names = set(members(pack_bot_folder(str(project)).data))
    assert names == {"Cargo.lock", "Cargo.toml", "README.md", "manifest.json", "src/arena.rs", "src/json.rs", "src/main.rs"}


def test_arenaignore_and_defaults(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text('{"name": "b", "language": "go"}')
    for name in ("main.go", "notes/secret.txt", "notes/keep.md", "node_modules/x/index.js", "data/big.bin", "bot",
                 "sub/bot", "__pycache__/m.pyc"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    (tmp_path / ".arenaignore").write_text("# mine\nnotes/*\n!notes/keep.md\ndata/\n")
    assert kept_files(str(tmp_path)) == [".arenaignore", "main.go", "manifest.json", "notes/keep.md", "sub/bot"]
    # Without a language, a top-level `bot` is the bot itself, not a build output.
    assert "bot" in kept_files(str(tmp_path), built=False)


def test_a_symbolic_link_is_refused_by_name(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text('{"name": "b", "command": "python3 bot.py"}')
    (tmp_path / "bot.py").write_text("print()")
    (tmp_path / "lib").symlink_to("/etc")
    with pytest.raises(BuildError, match="lib is a symbolic link"):
        pack_bot_folder(str(tmp_path))
    (tmp_path / ".arenaignore").write_text("lib\n")
    assert set(members(pack_bot_folder(str(tmp_path)).data)) == {".arenaignore", "bot.py", "manifest.json"}
