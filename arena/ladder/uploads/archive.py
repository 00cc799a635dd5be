"""Unpacking an uploaded bot archive (zip or tar.gz) safely, and reading its manifest.

Nothing in an archive is trusted. Every member name is checked before anything is written (no absolute
path, no `..`, no backslash, valid UTF-8); links of every kind, devices and FIFOs are refused, never
skipped; sizes are counted as the bytes come out of the decompressor (a header may lie), against the
total, per file, member count and compression-ratio limits. Every decompressed byte counts, the tar
stream's own headers too (a pax or GNU long-name header is read whole by `tarfile`, so a 400 MB one
would be 400 MB of memory): the gzip stream is metered before `tarfile` sees it. Every folder made,
named or implied by a member's path, counts against the member limit; depth and path length are bounded. Files are written by this module alone
(never `extractall`), each opened with O_EXCL | O_NOFOLLOW inside a fresh folder, so no member can
land outside it. A refused archive leaves nothing behind.

The manifest (`manifest.json` at the top) names the bot, its version and its command. The command's
program is a file inside the archive or a runtime from the server's allow-list, found on its PATH;
no argument may name a host path (the sandbox shows a bot the folder of every file its command names).
"""

from __future__ import annotations

import gzip
import io
import json
import os
import shlex
import shutil
import stat
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Iterator, Mapping

from arena.errors import SubmissionRefused
from arena.ladder.uploads.storage import remove_tree
from arena.textsafe import clean

MANIFEST = "manifest.json"
MANIFEST_MAX_BYTES = 4096
CHUNK = 64 * 1024


@dataclass(frozen=True)
class ArchiveLimits:
    max_total_bytes: int = 50 * 1024 * 1024  # unpacked
    max_file_bytes: int = 20 * 1024 * 1024
    max_files: int = 2000
    max_ratio: float = 100.0  # unpacked bytes per archive byte
    max_name_bytes: int = 255
    max_depth: int = 32  # folders in one member's path
    max_path_bytes: int = 1024  # one member's whole path
    unpack_memory_mb: int = 512  # the unpacking child's address space (RLIMIT_AS)
    unpack_cpu_s: int = 20  # and its CPU time (RLIMIT_CPU)
    min_free_mb: int = 256  # uploads are refused when the data folder's disk would fall under this
    participant_quota_mb: int = 200  # one participant's unpacked uploads, every version kept

    def most_unpacked(self, archive_bytes: int) -> int:
        """The most an archive of this size may unpack to."""
        return min(self.max_total_bytes, int(self.max_ratio * max(archive_bytes, 1)))


@dataclass(frozen=True)
class Manifest:
    name: str
    version: str
    command: tuple[str, ...]  # ready to run: the program and script arguments made absolute (as written when `language`)
    language: str | None = None  # a source submission: built first (arena.build), its command resolved after


@dataclass(frozen=True)
class _Member:
    name: str
    kind: str  # "file" or "dir"
    size: int  # as declared; the real count is enforced while writing
    executable: bool


def _refuse(message: str) -> SubmissionRefused:
    return SubmissionRefused(message)


def safe_parts(name: str, limits: ArchiveLimits) -> tuple[str, ...]:
    """The path components of a member name, or a refusal saying what is wrong with it."""
    shown = clean(name, 120)
    if "\x00" in name or "\\" in name:
        raise _refuse(f"member {shown!r}: names may not contain NUL or backslash")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise _refuse(f"member {shown!r}: absolute paths are refused; store paths relative to the bot's folder")
    parts = tuple(p for p in PurePosixPath(name).parts if p not in ("", "."))
    if ".." in parts:
        raise _refuse(f"member {shown!r}: '..' in a path is refused (it would write outside the bot's folder)")
    if not parts:
        raise _refuse(f"member {shown!r}: an empty name")
    if len(parts) > limits.max_depth + 1:
        raise _refuse(f"member {shown!r}: nested {len(parts) - 1} folders deep; the limit is {limits.max_depth}")
    if len(name.encode("utf-8", "surrogateescape")) > limits.max_path_bytes:
        raise _refuse(f"member {shown!r}: a path over {limits.max_path_bytes} bytes")
    for part in parts:
        if len(part.encode("utf-8", "surrogateescape")) > limits.max_name_bytes:
            raise _refuse(f"member {shown!r}: a name component over {limits.max_name_bytes} bytes")
        if any(ord(c) < 32 or ord(c) == 127 for c in part):
            raise _refuse(f"member {shown!r}: control characters in a name are refused")
    return parts


def _utf8(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _refuse(f"member name {clean(raw.decode('utf-8', 'replace'), 120)!r} is not valid UTF-8; rename it") from None


class _Writer:
    """Writes members under `root`, counting every byte against the limits."""

    def __init__(self, root: Path, limits: ArchiveLimits, archive_bytes: int) -> None:
        self.root = root
        self.limits = limits
        self.budget = limits.most_unpacked(archive_bytes)
        self.written = 0
        self.count = 0
        self.made: set[tuple[str, ...]] = set()  # folders made so far (each counted once)

    def _count(self) -> None:
        self.count += 1
        if self.count > self.limits.max_files:
            raise _refuse(f"more than {self.limits.max_files} files and folders in the archive")

    def _declared(self, member: _Member) -> None:
        if member.size > self.limits.max_file_bytes:
            raise _refuse(f"{clean(member.name, 120)!r} is {member.size} bytes; the limit per file is {self.limits.max_file_bytes}")
        if self.written + member.size > self.budget:
            raise self._over()

    def _over(self) -> SubmissionRefused:
        if self.budget < self.limits.max_total_bytes:
            return _refuse(f"the archive unpacks to more than {self.limits.max_ratio:g} times its size "
                           f"(a compression bomb?); the limit is {self.budget} bytes unpacked for this archive")
        return _refuse(f"the archive unpacks to more than {self.limits.max_total_bytes} bytes")

    def _dirs(self, parts: tuple[str, ...]) -> Path:
        here = self.root
        for depth, part in enumerate(parts, 1):
            here = here / part
            if parts[:depth] in self.made:
                continue
            self._count()  # a folder a member's path implies counts like one the archive names
            try:
                os.mkdir(here, 0o755)
            except FileExistsError:
                raise _refuse(f"{clean('/'.join(parts), 120)!r}: a folder and a file share a name") from None
            self.made.add(parts[:depth])
        return here

    def add(self, member: _Member, data: IO[bytes] | None) -> None:
        parts = safe_parts(member.name, self.limits)
        if member.kind == "dir":
            self._dirs(parts)
            return
        self._count()
        self._declared(member)
        folder = self._dirs(parts[:-1])
        target = folder / parts[-1]
        mode = 0o755 if member.executable else 0o644
        try:
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
        except FileExistsError:
            raise _refuse(f"{clean(member.name, 120)!r} appears twice in the archive") from None
        size = 0
        with os.fdopen(fd, "wb") as out:
            while data is not None:
                chunk = data.read(CHUNK)
                if not chunk:
                    break
                size += len(chunk)
                self.written += len(chunk)
                if size > self.limits.max_file_bytes:
                    raise _refuse(f"{clean(member.name, 120)!r} is over {self.limits.max_file_bytes} bytes unpacked")
                if self.written > self.budget:
                    raise self._over()
                out.write(chunk)
        os.chmod(target, mode)


def _zip_members(zf: zipfile.ZipFile) -> Iterator[tuple[_Member, zipfile.ZipInfo]]:
    for info in zf.infolist():
        raw = info.orig_filename
        name = raw if info.flag_bits & 0x800 else _utf8(raw.encode("cp437"))
        mode = info.external_attr >> 16
        kind = stat.S_IFMT(mode) if mode else 0
        if kind == stat.S_IFLNK:
            raise _refuse(f"{clean(name, 120)!r} is a symbolic link; links are refused (put the file itself in the archive)")
        if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
            raise _refuse(f"{clean(name, 120)!r} is a special file (device, FIFO or socket); only files and folders are taken")
        is_dir = info.is_dir() or kind == stat.S_IFDIR
        yield _Member(name, "dir" if is_dir else "file", 0 if is_dir else info.file_size, bool(mode & 0o111)), info


def _unpack_zip(data: bytes, writer: _Writer) -> None:
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except UnicodeDecodeError:
        raise _refuse("a member name is not valid UTF-8; rename it") from None
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise _refuse(f"not a readable zip archive: {clean(exc, 200)}") from None
    with zf:
        if len(zf.infolist()) > writer.limits.max_files:
            raise _refuse(f"more than {writer.limits.max_files} files and folders in the archive")
        for member, info in _zip_members(zf):
            if member.kind == "dir":
                writer.add(member, None)
                continue
            writer._declared(member)
            try:
                with zf.open(info) as fh:
                    writer.add(member, fh)
            except (zipfile.BadZipFile, NotImplementedError, RuntimeError, EOFError, OSError) as exc:
                if isinstance(exc, SubmissionRefused):
                    raise
                raise _refuse(f"{clean(member.name, 120)!r} cannot be read from the zip: {clean(exc, 200)}") from None


class _Metered(io.RawIOBase):
    """The decompressed tar stream, read in bounded chunks and counted against a limit as it comes out."""

    def __init__(self, stream: gzip.GzipFile, limit: int, over: SubmissionRefused) -> None:
        super().__init__()
        self.stream, self.limit, self.over, self.count = stream, limit, over, 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        want = CHUNK if size is None or size < 0 else min(size, CHUNK)
        chunk = self.stream.read(want)
        self.count += len(chunk)
        if self.count > self.limit:
            raise self.over
        return chunk


def tar_stream_limit(writer_budget: int, limits: ArchiveLimits) -> int:
    """The decompressed tar stream's bound: the files' budget plus a header and padding per member."""
    return writer_budget + 3 * 512 * (limits.max_files + 2) + 20 * 512


def _unpack_tar(data: bytes, writer: _Writer) -> None:
    over = _refuse(f"the tar stream unpacks to more than {tar_stream_limit(writer.budget, writer.limits)} bytes, its headers "
                   "counted (a compression bomb, or an oversized pax or long-name header?)")
    try:
        gz = gzip.GzipFile(fileobj=io.BytesIO(data), mode="rb")
        metered = _Metered(gz, tar_stream_limit(writer.budget, writer.limits), over)
        tf = tarfile.open(fileobj=metered, mode="r|", encoding="utf-8", errors="surrogateescape")
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise _refuse(f"not a readable tar.gz archive: {clean(exc, 200)}") from None
    try:
        with tf:
            for info in tf:
                name = info.name
                try:
                    name.encode("utf-8")
                except UnicodeEncodeError:
                    raise _refuse(f"member name {clean(name.encode('utf-8', 'surrogateescape').decode('utf-8', 'replace'), 120)!r} "
                                  "is not valid UTF-8; rename it") from None
                if info.issym() or info.islnk():
                    what = "symbolic link" if info.issym() else "hard link"
                    raise _refuse(f"{clean(name, 120)!r} is a {what} (to {clean(info.linkname, 120)!r}); links are refused "
                                  "(put the file itself in the archive)")
                if info.isdir():
                    writer.add(_Member(name, "dir", 0, False), None)
                elif info.isreg():
                    member = _Member(name, "file", info.size, bool(info.mode & 0o111))
                    writer._declared(member)
                    writer.add(member, tf.extractfile(info))
                else:
                    raise _refuse(f"{clean(name, 120)!r} is a special file (device, FIFO or socket); only files and folders are taken")
    except (tarfile.TarError, EOFError, OSError, zlib_error()) as exc:
        if isinstance(exc, SubmissionRefused):
            raise
        raise _refuse(f"the tar.gz archive is damaged: {clean(exc, 200)}") from None


def zlib_error() -> type[Exception]:
    import zlib

    return zlib.error


def unpack(data: bytes, dest: Path, limits: ArchiveLimits) -> None:
    """Unpack `data` (zip or tar.gz) into the new folder `dest`; on refusal nothing is left."""
    dest.mkdir(mode=0o755)
    writer = _Writer(dest, limits, len(data))
    try:
        if data[:4] == b"PK\x03\x04" or data[:4] == b"PK\x05\x06":
            _unpack_zip(data, writer)
        elif data[:2] == b"\x1f\x8b":
            _unpack_tar(data, writer)
        else:
            raise _refuse("the upload is neither a zip nor a tar.gz archive")
    except BaseException:
        remove_tree(dest)
        raise


def read_manifest(folder: Path, runtimes: tuple[str, ...], languages: Mapping[str, str] | None = None) -> Manifest:
    """The manifest at the top of an unpacked bot, its command checked and made absolute."""
    path = folder / MANIFEST
    if path.is_symlink() or not path.is_file():
        raise _refuse(f"no {MANIFEST} at the top of the archive; it holds {{\"name\", \"version\", \"command\"}}")
    raw = path.read_bytes()
    if len(raw) > MANIFEST_MAX_BYTES:
        raise _refuse(f"{MANIFEST} is over {MANIFEST_MAX_BYTES} bytes")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise _refuse(f"{MANIFEST} is not valid JSON: {clean(exc, 200)}") from None
    if not isinstance(data, dict):
        raise _refuse(f"{MANIFEST} must be a JSON object with name, version and command")
    unknown = sorted(set(data) - {"name", "version", "command", "language"})
    if unknown:
        raise _refuse(f"{MANIFEST}: unknown keys {clean(', '.join(map(str, unknown)), 120)} (allowed: name, version, command, language)")
    name, version = data.get("name"), data.get("version", "1")
    if not isinstance(name, str) or not 1 <= len(name) <= 40 or not all(c.isalnum() or c in "-_." for c in name):
        raise _refuse(f"{MANIFEST}: name must be 1-40 letters, digits, '-', '_' or '.'")
    if not isinstance(version, (str, int)) or isinstance(version, bool) or not 1 <= len(str(version)) <= 40:
        raise _refuse(f"{MANIFEST}: version must be a short string")
    if clean(str(version), 40) != str(version):
        raise _refuse(f"{MANIFEST}: version has characters that cannot be shown")
    language = data.get("language")
    if language is not None:  # `languages`: each offered language's run command
        offered = languages or {}
        if not isinstance(language, str) or language not in offered:
            raise _refuse(f"{MANIFEST}: language {clean(language, 40)!r} is not one this server builds "
                          f"({', '.join(offered) or 'none'}); use one of those, or send a built program with a command")
        command = data.get("command", offered[language])
        words = shlex.split(command) if isinstance(command, str) else command
        if not isinstance(words, list) or not words or not all(isinstance(w, str) for w in words):
            raise _refuse(f"{MANIFEST}: command must be a string such as \"./bot\" or a list of strings")
        return Manifest(name, str(version), tuple(words), language)
    return Manifest(name, str(version), resolve_command(data.get("command"), folder, runtimes))


SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".lua", ".jar", ".php", ".sh")


def resolve_command(value: object, folder: Path, runtimes: tuple[str, ...]) -> tuple[str, ...]:
    """The manifest's command with its program and files made absolute inside `folder`."""
    if isinstance(value, str):
        try:
            argv = shlex.split(value)
        except ValueError as exc:
            raise _refuse(f"{MANIFEST}: command cannot be split into words: {exc}") from None
    elif isinstance(value, list) and all(isinstance(a, str) for a in value):
        argv = list(value)
    else:
        raise _refuse(f"{MANIFEST}: command must be a string such as \"python3 bot.py\" or a list of strings")
    if not argv or not argv[0] or len(argv) > 32 or any(len(a) > 200 or "\x00" in a for a in argv):
        raise _refuse(f"{MANIFEST}: command must be 1-32 words of at most 200 characters")
    program, *args = argv
    root = folder.resolve()
    if "/" in program:
        resolved = _inside(program, root, "the program")
        if not resolved.is_file() or not os.access(resolved, os.X_OK):
            raise _refuse(f"{MANIFEST}: the program {clean(program, 120)!r} is not an executable file in the archive "
                          "(pack it with its executable bit set, or run it with a runtime such as python3)")
        program = str(resolved)
    else:
        if program not in runtimes:
            raise _refuse(f"{MANIFEST}: {clean(program, 120)!r} is not a runtime this server offers "
                          f"({', '.join(runtimes)}); or name a program inside the archive as ./name")
        if shutil.which(program) is None:
            raise _refuse(f"{MANIFEST}: the runtime {program!r} is not installed on this server")
        # kept by name: the sandbox finds it on PATH and shows its installation read-only, never as the bot's folder
    out = [program]
    for arg in args:
        if arg.startswith("/") or "\\" in arg:
            raise _refuse(f"{MANIFEST}: the argument {clean(arg, 120)!r} names a host path; only files inside the archive may be named")
        if ".." in PurePosixPath(arg).parts:
            raise _refuse(f"{MANIFEST}: the argument {clean(arg, 120)!r} leaves the bot's folder")
        looks_like_file = "/" in arg or arg.lower().endswith(SCRIPT_SUFFIXES)
        if looks_like_file and not arg.startswith("-"):
            path = _inside(arg, root, "the file")
            if not path.exists():
                raise _refuse(f"{MANIFEST}: the file {clean(arg, 120)!r} named in the command is not in the archive")
            out.append(str(path))
        else:
            out.append(arg)
    return tuple(out)


def _inside(name: str, root: Path, what: str) -> Path:
    if name.startswith("/"):
        raise _refuse(f"{MANIFEST}: {what} {clean(name, 120)!r} is a host path; name a file inside the archive")
    path = (root / name).resolve()
    if not path.is_relative_to(root):
        raise _refuse(f"{MANIFEST}: {what} {clean(name, 120)!r} is outside the archive")
    return path
