"""The hot path compiled with mypyc (setup.py): what is imported is what was built, from the sources on disk.

A compiled module shadows its .py, so an edited source would silently not run, and a build that quietly
compiled nothing would silently lose the speed. `make` rebuilds when a compiled source changes; these tests
catch whatever got past it (`pytest` run by hand after an edit, a failed or skipped build). With
`ARENA_PURE=1` the tree must be pure Python instead.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import shutil
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMPILED: list[str] = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["arena"]["compiled"]
PURE = bool(os.environ.get("ARENA_PURE"))
REBUILD = "run `make setup` to rebuild (or set ARENA_PURE=1 for pure Python)"


def module_name(path: str) -> str:
    return path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def origin(path: str) -> str:
    spec = importlib.util.find_spec(module_name(path))
    assert spec is not None and spec.origin is not None, path
    return spec.origin


def changed_since_build(built: dict[str, str], root: Path) -> list[str]:
    """The compiled sources whose text on disk is not the text the build compiled (or that it did not compile)."""
    return [path for path in COMPILED
            if built.get(path) != hashlib.sha256((root / path).read_bytes()).hexdigest()]


def test_the_compiled_modules_are_the_ones_imported() -> None:
    if PURE:
        compiled = [path for path in COMPILED if not origin(path).endswith(".py")]
        assert compiled == [], f"ARENA_PURE=1 but these are compiled: {compiled}; `ARENA_PURE=1 make setup` deletes them"
        return
    interpreted = [path for path in COMPILED if not origin(path).endswith(".so")]
    assert interpreted == [], f"not compiled: {interpreted}; {REBUILD}"
    for path in COMPILED:  # and the import gives that extension, not a module loaded some other way
        module = importlib.import_module(module_name(path))
        assert str(module.__file__).endswith(".so"), path


def test_every_compiled_module_was_built_from_the_source_on_disk() -> None:
    if PURE:
        return  # nothing compiled (the test above checks it), so nothing can be stale
    from arena import _native_build  # written by setup.py when it compiles

    stale = changed_since_build(_native_build.SOURCES, ROOT)
    assert stale == [], f"changed since their compiled modules were built: {stale}; {REBUILD}"


def test_control_an_edited_source_is_found_stale(tmp_path: Path) -> None:
    """The comparison above can fail: a copy of the sources, one of them edited by a byte."""
    built = {path: hashlib.sha256((ROOT / path).read_bytes()).hexdigest() for path in COMPILED}
    for path in COMPILED:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / path, tmp_path / path)
    assert changed_since_build(built, tmp_path) == []
    edited = tmp_path / COMPILED[-1]
    edited.write_bytes(edited.read_bytes() + b"\n")
    assert changed_since_build(built, tmp_path) == [COMPILED[-1]]
    assert changed_since_build({k: v for k, v in built.items() if k != COMPILED[0]}, ROOT) == [COMPILED[0]]


def orphans(root: Path) -> list[str]:
    """Extensions under arena/ that no compiled source accounts for: left by a module renamed, moved or
    taken off the list, each would still import (an extension is found before a missing .py is missed)."""
    expected = {path.removesuffix(".py") for path in COMPILED}
    found = []
    for so in sorted((root / "arena").rglob("*.so")):
        stem = str(so.relative_to(root)).split(".")[0]
        if stem not in expected and not (stem.startswith("arena/_native") and stem.endswith("__mypyc")):  # setup.py's libraries
            found.append(str(so.relative_to(root)))
    return found


def test_no_extension_is_left_without_its_compiled_source() -> None:
    assert orphans(ROOT) == [], f"extensions of no compiled source: delete them, then {REBUILD}"


def test_control_an_extension_left_by_a_renamed_module_is_found(tmp_path: Path) -> None:
    (tmp_path / "arena" / "protocol").mkdir(parents=True)
    (tmp_path / "arena" / "protocol" / "renamed.cpython-311-x86_64-linux-gnu.so").write_bytes(b"")
    (tmp_path / "arena" / "jsonvalue.cpython-311-x86_64-linux-gnu.so").write_bytes(b"")
    assert orphans(tmp_path) == ["arena/protocol/renamed.cpython-311-x86_64-linux-gnu.so"]
