"""A Landlock sandbox for bot processes: what a bot may read, write, connect to and signal.

Landlock (Linux 5.13+, unprivileged) lets a process give up access rights for
itself and every process it starts. Just before a bot's program starts, the
child process restricts itself to:

- reading and executing the system (``/usr``, ``/lib``, ``/etc``, ...), the
  Python installation, the arena's own packages, the installed plugins' packages
  and metadata (wherever they are installed), and the files and folders
  named on the bot's command line (its script, its folder);
- listing (not reading) the folders on Python's import path, so imports work;
- reading and writing its own scratch folder (``TMPDIR``, also its ``HOME``), its own
  ``/dev/shm`` (only where it is a private mount: never the host's) and the harmless
  devices (``/dev/null``, ``/dev/urandom``, ...); reading its own ``/proc/self``;
- connecting by TCP to the referee's port only, binding no TCP port (ABI 4+);
- sending no signal to, and opening no abstract Unix socket of, any process
  outside its own sandbox (ABI 6+).

Everything else is denied by the kernel: the results store, other bots' logs
and folders, the user's home. Where the kernel has no Landlock the bot runs
without it (``landlock_abi()`` is 0) and SECURITY.md says what remains.

A bot in its own PID namespace is confined by its PID 1 itself, just before
the bot's program replaces it: ``python -I -S confine.py RULES -- COMMAND``
(``confine_command``: this module plans, ``confine.py`` applies), so that ``/proc/self``
is the bot's own entry. With a mount namespace of its own, PID 1 first lays out its
view (``view.py``): private, size-limited tmpfs file systems (``Mount``) on ``/dev/shm``
and on the scratch folder (``/tmp/scratch``, under a read-only ``/tmp``): the rules then
name those, and they vanish with the bot's last process.
"""

from __future__ import annotations

import ctypes
import functools
import os
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena.referee import confine
from arena.referee.confine import CREATE_RULESET_VERSION, SYS_CREATE_RULESET, landlock, libc
from arena.referee.view import TMP, View, moved

CLONE_NEWNET = 0x40000000
SYSTEM_ROOTS = ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc", "/opt")
KERNEL_VIEWS = ("/sys", "/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/proc/loadavg")
# Never /dev as a whole (as root a bot could read the disk), nor /proc as a whole (other
# processes' environments hold their tokens): these devices, and the bot's own /proc/PID.
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty")


def landlock_abi() -> int:
    """The kernel's Landlock ABI version; 0 when Landlock is unavailable."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        version = libc().syscall(SYS_CREATE_RULESET, None, 0, CREATE_RULESET_VERSION)
    except (OSError, AttributeError):
        return 0
    return max(0, version)


@functools.cache
def network_namespace_available() -> bool:
    """Can a bot process be given its own, empty network namespace here? (Needs the right to
    unshare it: root, or CAP_SYS_ADMIN.) Probed once, in a throw-away process."""
    if not sys.platform.startswith("linux"):
        return False
    probe = (
        "import ctypes, sys; "
        f"sys.exit(0 if ctypes.CDLL(None, use_errno=True).unshare({CLONE_NEWNET}) == 0 else 1)"
    )
    try:
        return subprocess.run([sys.executable, "-I", "-S", "-c", probe], timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def enter_network_namespace() -> None:
    """Give this process (call it in the child) a new network namespace: nothing but its own
    loopback, so no network at all: TCP, UDP, raw. The referee is reached over a Unix socket."""
    if libc().unshare(CLONE_NEWNET) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNET) failed")


@dataclass
class SandboxPolicy:
    """What one bot process may touch. Built in the referee, applied in the child."""

    read: list[str] = field(default_factory=list)  # read + execute beneath these
    list_only: list[str] = field(default_factory=list)  # directory listing beneath these
    write: list[str] = field(default_factory=list)  # every right beneath these
    connect_port: int | None = None  # the one TCP port the bot may connect to

    def moved(self, renamed: Mapping[str, str], scratch: str) -> SandboxPolicy:
        """The same policy in the bot's own mount namespace: its own code under its neutral
        name (``view.moved``), ``scratch`` in place of its scratch folder on the disk."""
        write = [scratch, *self.write[1:]]
        return SandboxPolicy(
            [moved(p, renamed) for p in self.read], list(self.list_only), write, self.connect_port
        )

    @classmethod
    def for_bot(
        cls,
        argv: Sequence[str],
        scratch: Path,
        endpoint: str,
        protected: Sequence[str] = (),
        own_files: Sequence[str] = (),
        shm: bool = False,
    ) -> SandboxPolicy:
        """The policy of a bot started with ``argv`` talking to the referee at ``endpoint``.

        Paths on the command line are granted, but never one inside a ``protected``
        folder (the results store's), and a folder holding one is narrowed to the file
        named: a bot whose command names the store, or a script beside it, still cannot
        read the store. ``own_files`` are granted read access wherever they are: the
        arena names them (a registered bot's stored code in the data folder), never the
        bot's command line. ``/dev/shm`` is granted only with ``shm`` (it is the bot's own
        private mount): the host's is shared by every bot."""
        import arena
        import bots
        import protocols
        from arena.plugins import plugin_files

        read = [*SYSTEM_ROOTS, *KERNEL_VIEWS]
        read += {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
        read += [str(Path(str(m.__file__)).resolve().parent) for m in (arena, bots, protocols)]
        read += plugin_files()  # every bot process loads the installed plugins
        read += command_grants(argv, protected)
        read += [str(Path(p).resolve()) for p in own_files]
        list_only = listable_import_path(protected)
        port = int(endpoint.rsplit(":", 1)[1]) if endpoint.startswith("tcp://") else None
        return cls(
            read=_existing(read),
            list_only=_existing(list_only),
            write=_existing([str(scratch), *(["/dev/shm"] if shm else []), *DEVICES]),
            connect_port=port,
        )


def command_grants(argv: Sequence[str], protected: Sequence[str] = ()) -> list[str]:
    """What a bot's command line lets it read: the folder of each file it names (a folder
    named: that folder), never anything inside a ``protected`` folder; a folder holding one,
    or ``/tmp`` itself (the machine's, shared by everyone), is narrowed to the file named."""
    guarded = [Path(p).resolve() for p in protected]
    granted: list[str] = []
    for arg in argv:
        path = Path(arg)
        if not arg or not path.exists():
            continue
        target = path.resolve()
        if any(target == g or g in target.parents for g in guarded):
            continue  # inside the store's folder: never
        folder = target if target.is_dir() else target.parent
        if str(folder) == TMP or any(folder == g or folder in g.parents for g in guarded):
            if target.is_file():
                granted.append(str(target))  # the script only, not the folder around it
            continue
        granted.append(str(folder))
    return granted


def listable_import_path(protected: Sequence[str] = ()) -> list[str]:
    """The folders of Python's import path a bot may list, so that imports work: never one
    that is, holds or lies inside a ``protected`` folder (listing is granted beneath a
    folder: a data folder inside a listed one could be listed whole), nor the referee's
    working folder or a folder holding it (``python -m`` puts it on the import path; it is
    the organiser's folder, not the bot's)."""
    private = [Path(p).resolve() for p in protected]
    cwd = Path.cwd().resolve()
    listed: list[str] = []
    for entry in sys.path:
        if not entry or not Path(entry).is_dir():
            continue
        folder = Path(entry).resolve()
        if folder == cwd or folder in cwd.parents:
            continue
        if any(folder == p or folder in p.parents or p in folder.parents for p in private):
            continue
        listed.append(str(folder))
    return listed


def _existing(paths: Iterable[str]) -> list[str]:
    seen: list[str] = []
    for path in paths:
        real = os.path.realpath(path)
        if os.path.exists(real) and real not in seen:
            seen.append(real)
    return seen


def restrict_self(policy: SandboxPolicy, abi: int) -> None:
    """Apply ``policy`` to this process and its future children (call in the child)."""
    landlock(policy.read, policy.list_only, policy.write, policy.connect_port, abi)


@dataclass(frozen=True)
class Mount:
    """A private tmpfs PID 1 mounts over ``target`` in the bot's own mount namespace."""

    target: str
    size: int  # bytes
    inodes: int  # files and folders
    mode: str = "1777"


def confine_command(
    policy: SandboxPolicy | None,
    abi: int,
    mounts: Sequence[Mount] = (),
    view: View | None = None,
) -> list[str]:
    """The command prefix that mounts ``mounts``, lays out ``view`` (``view.py``), applies
    ``policy`` (none: ``abi`` 0) to itself and then runs the rest of the command line in its
    place (stdlib only: ``-I -S`` keeps it from reading anything else)."""
    view = view or View()
    told = confine.arguments(
        abi if policy else 0,
        policy.connect_port if policy else None,
        (policy.read, policy.list_only, policy.write) if policy else ([], [], []),
        [(m.target, m.size, m.inodes, m.mode) for m in mounts],
        view.covers,
        [(b.source, b.target) for b in view.binds],
        view.workdir,
    )
    return [sys.executable, "-I", "-S", os.path.abspath(confine.__file__), *told, "--"]
