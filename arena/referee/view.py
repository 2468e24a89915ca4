"""What a bot sees of the file system: the layout of its own mount namespace.

Landlock decides what a bot may open; this decides what is there to name at all. With a
mount namespace of its own (``containment.private_mounts``), PID 1 lays out, before it
applies Landlock and becomes the bot:

- ``/tmp``: its scratch folder (``TMPDIR``, ``HOME``), a private size-limited tmpfs, and
  its working folder, unless its command line names the organiser's current folder;
- ``/tmp/bot``: its own stored code (a registered bot's version folder, which lives in the
  data folder), bound read-only: its path names nothing of the data folder, of the
  organiser's folders or of other bots (their names, their content hashes);
- every protected folder (the data folder: accounts, results, uploads, every participant's
  code) and the organiser's current folder, when the bot is not granted it, covered by an
  empty read-only tmpfs: nothing in them can be listed or even named. What the bot is
  granted beneath a covered folder (the Python installation, the arena's packages, the
  files its command line names, its endpoint's socket) is bound back read-only at the same
  path, so the bot sees under it exactly what Landlock lets it read.

Sources are opened before anything is mounted (a cover hides them), and a mount point is
made only inside a tmpfs PID 1 itself mounted: nothing is ever created on the disk.
"""

from __future__ import annotations

import ctypes
import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

SCRATCH = "/tmp"
OWN_CODE = "/tmp/bot"
# Never covered (the system, the kernel's views, the scratch folder), nor any folder
# holding one of them.
UNCOVERABLE = ("/dev", "/proc", "/sys", SCRATCH)
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND = 32, 4096
# Flags of a mount that a read-only bind of it must keep (a user namespace may not drop
# them); statvfs's ST_* values are the same bits.
KEPT_FLAGS = MS_NOSUID | MS_NODEV | MS_NOEXEC | 1024 | 2048 | 4096  # +noatime, nodiratime, relatime
COVER_OPTIONS = b"size=1m,nr_inodes=4096,mode=755"


def beneath(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or inside it (both absolute, normalised)."""
    return path == folder or PurePosixPath(path).is_relative_to(folder)


def moved(path: str, renamed: Mapping[str, str]) -> str:
    """``path`` as the bot sees it: under the neutral name of a renamed folder holding it."""
    for real, seen in renamed.items():
        if beneath(path, real):
            return seen + path[len(real) :]
    return path


def neutral_names(own: Sequence[str]) -> dict[str, str]:
    """Where each of a bot's own code folders is bound: ``/tmp/bot``, then ``/tmp/bot-2``..."""
    return {path: OWN_CODE if i == 0 else f"{OWN_CODE}-{i + 1}" for i, path in enumerate(own)}


def _outermost(paths: Iterable[str]) -> list[str]:
    """``paths`` without those inside another of them."""
    unique = sorted(set(paths), key=len)
    kept: list[str] = []
    for path in unique:
        if not any(beneath(path, outer) for outer in kept):
            kept.append(path)
    return kept


def coverable(folder: str, keep_visible: Sequence[str]) -> bool:
    """A folder may be covered unless it is ``/`` or holds the system, the kernel's views,
    the scratch folder or one of ``keep_visible`` (the system roots)."""
    return folder != "/" and not any(
        beneath(kept, folder) for kept in (*UNCOVERABLE, *keep_visible)
    )


@dataclass(frozen=True)
class Bind:
    """``source`` (a path of the referee's view) bound read-only at ``target``."""

    source: str
    target: str


@dataclass
class View:
    """The layout PID 1 makes: ``covers`` (empty read-only tmpfs), then ``binds``, then
    ``workdir`` as its working folder (None: unchanged)."""

    covers: list[str] = field(default_factory=list)
    binds: list[Bind] = field(default_factory=list)
    workdir: str | None = None

    @classmethod
    def plan(
        cls,
        hidden: Iterable[str],
        granted: Iterable[str],
        renamed: Mapping[str, str],
        workdir: str | None,
        system: Sequence[str] = (),
    ) -> View:
        """Cover the ``hidden`` folders (outermost only, and only those ``coverable``; the
        scratch tmpfs on ``/tmp`` is mounted anyway); bind each ``renamed`` folder at its
        neutral name and every ``granted`` path beneath a covered folder back in place."""
        covers = _outermost(h for h in hidden if coverable(h, system) and not beneath(h, SCRATCH))
        screens = [SCRATCH, *covers]
        binds = [Bind(real, seen) for real, seen in renamed.items()]
        back = [
            g
            for g in granted
            if any(beneath(g, s) for s in screens) and not any(beneath(g, r) for r in renamed)
        ]
        binds += [Bind(path, path) for path in _outermost(back)]
        return cls(covers, binds, workdir)

    def to_dict(self) -> dict[str, object]:
        return {
            "covers": self.covers,
            "binds": [[b.source, b.target] for b in self.binds],
            "workdir": self.workdir,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> View:
        binds = [Bind(str(s), str(t)) for s, t in data.get("binds", []) or []]  # type: ignore[attr-defined]
        covers = [str(c) for c in data.get("covers", []) or []]  # type: ignore[attr-defined]
        workdir = data.get("workdir")
        return cls(covers, binds, str(workdir) if workdir else None)

    # ------------------------------------------------------------ in PID 1

    def open_sources(self) -> dict[str, int]:
        """Open every bind's source (``O_PATH``) before anything covers it; a source that
        is gone is left out (it was only granted, never needed)."""
        opened: dict[str, int] = {}
        for bind in self.binds:
            try:
                opened[bind.source] = os.open(bind.source, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
        return opened

    def apply(self, opened: Mapping[str, int]) -> None:
        """Cover, bind, seal the covers read-only, change folder (``OSError`` on failure:
        the caller fails closed). The scratch tmpfs is already on ``/tmp``."""
        libc = ctypes.CDLL(None, use_errno=True)
        for cover in self.covers:
            if libc.mount(b"tmpfs", cover.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, COVER_OPTIONS):
                raise OSError(ctypes.get_errno(), f"cannot cover {cover}")
        screens = [SCRATCH, *self.covers]
        for bind in self.binds:
            fd = opened.get(bind.source)
            if fd is None:
                continue
            if not any(beneath(bind.target, s) for s in screens):
                raise OSError(0, f"{bind.target} is not inside a private mount")
            _mount_point(bind.target, stat.S_ISDIR(os.fstat(fd).st_mode))
            target = bind.target.encode()
            if libc.mount(f"/proc/self/fd/{fd}".encode(), target, None, MS_BIND, None):
                raise OSError(ctypes.get_errno(), f"cannot bind {bind.target}")
            # Read-only on top of Landlock's read-only rule: best effort (a user namespace
            # may refuse to remount what it did not mount itself).
            kept = os.statvfs(bind.target).f_flag & KEPT_FLAGS
            libc.mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | kept, None)
            os.close(fd)
        for cover in self.covers:
            flags = MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV
            if libc.mount(b"tmpfs", cover.encode(), b"tmpfs", flags, COVER_OPTIONS):
                raise OSError(ctypes.get_errno(), f"cannot make the cover of {cover} read-only")
        if self.workdir is not None:
            os.chdir(self.workdir)


def _mount_point(target: str, folder: bool) -> None:
    """Make ``target`` (a folder, else an empty file) and the folders above it."""
    os.makedirs(target if folder else os.path.dirname(target), mode=0o755, exist_ok=True)
    if not folder and not os.path.exists(target):
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o444))
