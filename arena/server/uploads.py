"""Unpacking a participant's upload into a bot folder, safely.

An upload is a single Python file or an archive (.zip, .tar.gz/.tgz). Archives are
checked while they unpack, never trusted from their own headers: every member's
name must stay inside the folder (no absolute path, no ``..``, no drive or
backslash tricks), only plain files and folders are taken (no symbolic or hard
links, devices, fifos), and the count of files, the bytes written and the ratio
of bytes written to bytes uploaded are counted as the bytes come out, so a bomb
stops at the limit instead of at the disk's end. On any refusal the folder is
removed: nothing half-unpacked stays.
"""

from __future__ import annotations

import gzip
import shutil
import stat
import tarfile
import unicodedata
import zipfile
from pathlib import Path, PurePosixPath
from typing import IO

from arena.server.competition import LimitsTable

CHUNK = 64 * 1024


class UploadRefused(ValueError):
    """The upload cannot become a bot; the message says why in one line."""


def kind_of(filename: str) -> str:
    """``py``, ``zip`` or ``tar.gz`` from the uploaded file's name."""
    lower = filename.lower()
    if lower.endswith(".py"):
        return "py"
    if lower.endswith(".zip"):
        return "zip"
    if lower.endswith((".tar.gz", ".tgz")):
        return "tar.gz"
    raise UploadRefused("upload a Python file (.py) or an archive (.zip, .tar.gz) holding bot.py")


def safe_member(name: str) -> PurePosixPath:
    """The relative path an archive member unpacks to, or a refusal if it leaves the folder
    or is not a name every later step can write (UTF-8, no control characters)."""
    if "\\" in name or "\x00" in name:
        raise UploadRefused(f"archive member {name!r}: a backslash or NUL in a file name")
    try:
        name.encode("utf-8")  # tar gives bytes that are not UTF-8 as lone surrogates
    except UnicodeEncodeError:
        raise UploadRefused(
            f"archive member {name!r}: its name is not UTF-8 (rename it and pack it again)"
        ) from None
    if any(unicodedata.category(char) == "Cc" for char in name):
        raise UploadRefused(f"archive member {name!r}: a control character in a file name")
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or (path.parts and ":" in path.parts[0]):
        raise UploadRefused(f"archive member {name!r} points outside the bot's folder")
    parts = [p for p in path.parts if p not in ("", ".")]
    if not parts:
        raise UploadRefused(f"archive member {name!r} has no name")
    return PurePosixPath(*parts)


class Budget:
    """Counts files and bytes written against the limits, refusing the moment one is passed."""

    def __init__(self, limits: LimitsTable, uploaded: int) -> None:
        self.limits = limits
        self.cap = min(limits.unpacked_bytes, max(uploaded, 1) * limits.ratio)
        self.files = 0
        self.bytes = 0

    def file(self) -> None:
        self.files += 1
        if self.files > self.limits.files:
            raise UploadRefused(f"the archive holds more than {self.limits.files} files")

    def take(self, count: int) -> None:
        self.bytes += count
        if self.bytes > self.cap:
            raise UploadRefused(
                f"the archive unpacks to more than {self.cap:,} bytes (at most "
                f"{self.limits.unpacked_bytes:,}, and {self.limits.ratio} times its own size)"
            )


def _copy(source: IO[bytes], target: Path, budget: Budget) -> None:
    budget.file()
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("xb") as out:  # 'x': a name seen twice is refused, never overwritten
        while chunk := source.read(CHUNK):
            budget.take(len(chunk))
            out.write(chunk)


def unpack(upload: Path, filename: str, folder: Path, limits: LimitsTable) -> Path:
    """Unpack ``upload`` (sent as ``filename``) into the new ``folder``; returns what to
    submit: the folder holding bot.py, or the single Python file."""
    kind = kind_of(filename)
    size = upload.stat().st_size
    if size > limits.upload_bytes:
        raise UploadRefused(f"the upload is larger than {limits.upload_bytes:,} bytes")
    folder.mkdir(parents=True)
    try:
        if kind == "py":
            target = folder / "bot.py"
            shutil.copyfile(upload, target)
            return target
        budget = Budget(limits, size)
        if kind == "zip":
            _unzip(upload, folder, budget)
        else:
            _untar(upload, folder, budget, limits)
        return _bot_root(folder)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


def _unzip(upload: Path, folder: Path, budget: Budget) -> None:
    try:
        archive = zipfile.ZipFile(upload)
    except (zipfile.BadZipFile, OSError) as error:
        raise UploadRefused(f"not a zip archive that opens ({error})") from None
    except UnicodeDecodeError:  # a name flagged UTF-8 that is not
        raise UploadRefused(
            "a file name in the zip archive is not UTF-8 (rename it and pack it again)"
        ) from None
    with archive:
        if len(archive.infolist()) > budget.limits.files * 2:
            raise UploadRefused(f"the archive holds more than {budget.limits.files} files")
        for info in archive.infolist():
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise UploadRefused(f"archive member {info.filename!r} is a link: plain files only")
            relative = safe_member(info.filename)
            if info.is_dir():
                (folder / relative).mkdir(parents=True, exist_ok=True)
                continue
            if stat.S_IFMT(mode) and not stat.S_ISREG(mode):  # no type bits: a plain file
                raise UploadRefused(f"archive member {info.filename!r} is not a plain file")
            try:
                with archive.open(info) as source:
                    _copy(source, folder / relative, budget)
            except FileExistsError:
                raise UploadRefused(f"archive member {info.filename!r} is there twice") from None
            except UnicodeDecodeError:  # its local header's name flagged UTF-8, and not
                raise UploadRefused(
                    f"archive member {info.filename!r}: its name is not UTF-8"
                ) from None
            except (zipfile.BadZipFile, NotImplementedError, RuntimeError) as error:
                raise UploadRefused(f"archive member {info.filename!r}: {error}") from None


class _Counted:
    """A decompressed stream that refuses to give more than ``cap`` bytes (tar headers and
    padding count too: a bomb of empty members is stopped as well)."""

    def __init__(self, stream: IO[bytes], cap: int) -> None:
        self.stream, self.cap, self.read_bytes = stream, cap, 0

    def read(self, size: int = -1) -> bytes:
        data = self.stream.read(size if size >= 0 else CHUNK)
        self.read_bytes += len(data)
        if self.read_bytes > self.cap:
            raise UploadRefused(f"the archive unpacks to more than {self.cap:,} bytes")
        return data


def _untar(upload: Path, folder: Path, budget: Budget, limits: LimitsTable) -> None:
    # Headers take 512 bytes a member (and 1 KiB of padding at most): room for them.
    cap = budget.cap + 1024 * (limits.files + 4)
    try:
        with upload.open("rb") as raw, gzip.GzipFile(fileobj=raw) as unzipped:
            stream = _Counted(unzipped, cap)  # type: ignore[arg-type]
            with tarfile.open(fileobj=stream, mode="r|") as archive:  # type: ignore[call-overload]
                for member in archive:
                    relative = safe_member(member.name)
                    if member.isdir():
                        (folder / relative).mkdir(parents=True, exist_ok=True)
                        continue
                    if not member.isreg():
                        raise UploadRefused(
                            f"archive member {member.name!r} is a link or device: plain files only"
                        )
                    source = archive.extractfile(member)
                    assert source is not None  # a regular file has contents
                    try:
                        _copy(source, folder / relative, budget)
                    except FileExistsError:
                        raise UploadRefused(
                            f"archive member {member.name!r} is there twice"
                        ) from None
    except (tarfile.TarError, gzip.BadGzipFile, EOFError, OSError, zlib_error()) as error:
        raise UploadRefused(f"not a .tar.gz archive that unpacks ({error})") from None


def zlib_error() -> type[Exception]:
    import zlib

    return zlib.error


def _bot_root(folder: Path) -> Path:
    """The folder holding bot.py: the archive's top, or its one top-level folder."""
    if (folder / "bot.py").is_file():
        return folder
    entries = list(folder.iterdir())
    if len(entries) == 1 and entries[0].is_dir() and (entries[0] / "bot.py").is_file():
        return entries[0]
    raise UploadRefused("the archive has no bot.py at its top (nor in its one folder)")
