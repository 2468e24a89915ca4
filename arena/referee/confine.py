"""PID 1 of a bot's namespaces: lay out its view, confine itself, then become the bot.

``python -I -S confine.py OPTIONS -- COMMAND...`` runs once for every sandboxed bot
that starts, before the bot's own interpreter: it mounts the private file systems and the
view that ``view.View`` planned, applies the Landlock rules that
``sandbox.SandboxPolicy`` built, and replaces itself with COMMAND. OPTIONS (``OPTIONS``,
written by ``arguments``, so that ``ps`` shows what a bot was given): ``--abi N`` (none:
no Landlock), ``--port N``, ``--read``, ``--list`` and ``--write PATH`` (the policy),
``--mount TARGET BYTES FILES MODE`` (a private tmpfs), ``--cover PATH``, ``--bind SOURCE
TARGET`` and ``--workdir PATH`` (the view).

Why a module of its own: every bot start pays for what it imports. It takes only what
the work needs from the standard library (no dataclasses, pathlib, subprocess or typing:
those cost a bot start about 40 ms of CPU; not even json or argparse, which import
``re``), and works on plain lists and strings. The referee's side (what to grant, what to hide) is
planned in ``sandbox.py`` and ``view.py``. A process confined without namespaces of its
own (no PID 1) applies the same rules from the referee's child before it runs the bot
(``sandbox.restrict_self``).
"""

from __future__ import annotations

import ctypes
import os
import stat
import struct
import sys

SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH, RULE_NET_PORT = 1, 2
PR_SET_NO_NEW_PRIVS = 38
O_PATH = getattr(os, "O_PATH", 0o10000000)

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
# Every filesystem right by ABI version: 13 rights in ABI 1, REFER (2), TRUNCATE (3),
# IOCTL_DEV (5).
FS_RIGHTS = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1
READ_ONLY = EXECUTE | READ_FILE | READ_DIR

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND = 32, 4096
# Flags of a mount that a read-only bind of it must keep (a user namespace may not drop
# them); statvfs's ST_* values are the same bits.
KEPT_FLAGS = MS_NOSUID | MS_NODEV | MS_NOEXEC | 1024 | 2048 | 4096  # +noatime, nodiratime, relatime
COVER_OPTIONS = b"size=1m,nr_inodes=4096,mode=755"


# Each option PID 1 takes and how many values follow it; any may be repeated (of --abi,
# --port and --workdir the first counts).
OPTIONS = {
    "--abi": 1, "--port": 1, "--read": 1, "--list": 1, "--write": 1,
    "--mount": 4, "--cover": 1, "--bind": 2, "--workdir": 1,
}  # fmt: skip


POLICY_OPTIONS = ("--read", "--list", "--write")


def arguments(
    abi: int,
    port: int | None,
    policy: tuple[list[str], list[str], list[str]],
    mounts: list[tuple[str, int, int, str]],
    covers: list[str],
    binds: list[tuple[str, str]],
    workdir: str | None,
) -> list[str]:
    """The options that tell PID 1 all of this: ``abi`` 0 applies no Landlock; ``policy``
    is (read, list, write)."""
    told: list[str] = ["--abi", str(abi)] if abi else []
    told += ["--port", str(port)] if port is not None else []
    for option, paths in zip(POLICY_OPTIONS, policy, strict=True):
        told += [word for path in paths for word in (option, path)]
    for target, size, files, mode in mounts:
        told += ["--mount", target, str(size), str(files), mode]
    told += [word for cover in covers for word in ("--cover", cover)]
    told += [word for source, target in binds for word in ("--bind", source, target)]
    return told + (["--workdir", workdir] if workdir is not None else [])


def parse(argv: list[str]) -> tuple[dict[str, list[list[str]]], list[str]]:
    """The options before ``--`` (each one's values, in order) and the command after it;
    ``ValueError`` on an unknown or incomplete option, or no command."""
    given: dict[str, list[list[str]]] = {name: [] for name in OPTIONS}
    i = 0
    while i < len(argv) and argv[i] != "--":
        count = OPTIONS.get(argv[i])
        if count is None or i + count >= len(argv):
            raise ValueError(f"unknown or incomplete option {argv[i]!r}")
        given[argv[i]].append(argv[i + 1 : i + 1 + count])
        i += 1 + count
    if len(argv) <= i + 1:
        raise ValueError("no command after --")
    return given, argv[i + 1 :]


def libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def beneath(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or inside it (both absolute, normalised)."""
    return path == folder or path.startswith(folder if folder.endswith("/") else folder + "/")


def depth(path: str) -> int:
    """How many names ``path`` has, ``/`` counted: ``/`` is 1, ``/tmp/bot`` 3."""
    return 1 + len([part for part in path.split("/") if part])


def fs_rights(abi: int) -> int:
    return FS_RIGHTS[max(v for v in FS_RIGHTS if v <= abi)]


# ------------------------------------------------------------------ Landlock


def landlock(
    read: list[str], list_only: list[str], write: list[str], port: int | None, abi: int
) -> None:
    """Restrict this process and its future children to reading beneath ``read``, listing
    beneath ``list_only``, everything beneath ``write``, TCP to ``port`` only (ABI 4+), no
    signal or abstract socket outside its own domain (ABI 6+). ``OSError`` on failure."""
    lib = libc()
    fs = fs_rights(abi)
    net = NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 else 0
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0
    attr = struct.pack("QQQ", fs, net, scoped) if abi >= 6 else struct.pack("QQ", fs, net)
    if abi < 4:
        attr = struct.pack("Q", fs)
    ruleset = lib.syscall(SYS_CREATE_RULESET, attr, len(attr), 0)
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        own_proc = ["/proc/self"]  # this process's own entry (opened, so it resolves here)
        for paths, rights in (
            (read + own_proc, READ_ONLY & fs),
            (list_only, READ_DIR),
            (write, fs),
        ):
            for path in paths:
                _allow_path(lib, ruleset, path, rights)
        if net and port is not None:
            rule = struct.pack("QQ", NET_CONNECT_TCP, port)
            if lib.syscall(SYS_ADD_RULE, ruleset, RULE_NET_PORT, rule, 0) < 0:
                raise OSError(ctypes.get_errno(), "landlock_add_rule (port) failed")
        if lib.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0:
            raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS failed")
        if lib.syscall(SYS_RESTRICT_SELF, ruleset, 0) < 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(ruleset)


def _allow_path(lib: ctypes.CDLL, ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if not os.path.isdir(path):
            # Files take only file rights.
            rights &= EXECUTE | WRITE_FILE | READ_FILE | (1 << 14) | (1 << 15)
        rule = struct.pack("=Qi", rights, fd)
        if lib.syscall(SYS_ADD_RULE, ruleset, RULE_PATH_BENEATH, rule, 0) < 0:
            raise OSError(ctypes.get_errno(), f"landlock_add_rule failed for {path}")
    finally:
        os.close(fd)


# ------------------------------------------------------------------ the view


def mount_tmpfs(target: str, size: int, inodes: int, mode: str) -> None:
    """A private tmpfs of ``size`` bytes and ``inodes`` files on ``target``."""
    options = f"size={size},nr_inodes={inodes},mode={mode}".encode()
    if libc().mount(b"tmpfs", target.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, options):
        raise OSError(ctypes.get_errno(), f"cannot mount a private tmpfs on {target}")


def open_sources(binds: list[tuple[str, str]]) -> dict[str, int]:
    """Open every bind's source (``O_PATH``) before anything covers it; a source that is
    gone is left out (it was only granted, never needed)."""
    opened: dict[str, int] = {}
    for source, _ in binds:
        try:
            opened[source] = os.open(source, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            continue
    return opened


def lay_out(
    covers: list[str],
    binds: list[tuple[str, str]],
    mounts: list[tuple[str, int, int, str]],
    workdir: str | None,
    opened: dict[str, int],
) -> None:
    """Cover, mount the private tmpfs (``mounts``: the scratch folder, ``/dev/shm``), bind
    (``opened``: the binds' sources, from ``open_sources``): each after every mount above
    it; seal the covers read-only, change folder. ``OSError`` on failure: the caller fails
    closed."""
    lib = libc()
    steps: list[tuple[str, object]] = [(c, None) for c in covers]
    steps += [(mount[0], mount) for mount in mounts]
    steps += [(target, source) for source, target in binds]
    for target, step in sorted(steps, key=lambda s: depth(s[0])):  # stable: covers first
        if step is None:
            if lib.mount(b"tmpfs", target.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, COVER_OPTIONS):
                raise OSError(ctypes.get_errno(), f"cannot cover {target}")
        elif isinstance(step, tuple):
            if any(beneath(target, c) for c in covers):
                _mount_point(target, True)
            mount_tmpfs(*step)
        else:
            _bind(lib, target, opened.get(str(step)), covers)
    for cover in covers:
        flags = MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV
        if lib.mount(b"tmpfs", cover.encode(), b"tmpfs", flags, COVER_OPTIONS):
            raise OSError(ctypes.get_errno(), f"cannot make the cover of {cover} read-only")
    if workdir is not None:
        os.chdir(workdir)


def _bind(lib: ctypes.CDLL, target: str, fd: int | None, covers: list[str]) -> None:
    """Bind an opened source (``fd``; None: gone, left out) read-only at ``target``, a
    mount point made inside the cover above it."""
    if fd is None:
        return
    if not any(beneath(target, c) for c in covers):
        raise OSError(0, f"{target} is not inside a private mount")
    _mount_point(target, stat.S_ISDIR(os.fstat(fd).st_mode))
    if lib.mount(f"/proc/self/fd/{fd}".encode(), target.encode(), None, MS_BIND, None):
        raise OSError(ctypes.get_errno(), f"cannot bind {target}")
    # Read-only on top of Landlock's read-only rule: best effort (a user namespace may
    # refuse to remount what it did not mount itself).
    kept = os.statvfs(target).f_flag & KEPT_FLAGS
    lib.mount(None, target.encode(), None, MS_REMOUNT | MS_BIND | MS_RDONLY | kept, None)
    os.close(fd)


def _mount_point(target: str, folder: bool) -> None:
    """Make ``target`` (a folder, else an empty file) and the folders above it."""
    os.makedirs(target if folder else os.path.dirname(target), mode=0o755, exist_ok=True)
    if not folder and not os.path.exists(target):
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o444))


# ------------------------------------------------------------------ PID 1


def main(argv: list[str]) -> None:
    """``confine.py OPTIONS -- COMMAND...``: mount, confine this process, become COMMAND."""
    try:
        given, command = parse(argv)
    except ValueError as error:
        print(f"usage: confine.py OPTIONS -- COMMAND... ({error})", file=sys.stderr)
        os._exit(2)

    def first(option: str) -> str | None:
        return given[option][0][0] if given[option] else None

    abi, port = int(first("--abi") or 0), first("--port")
    binds = [(source, target) for source, target in given["--bind"]]
    mounts = [(t, int(size), int(files), mode) for t, size, files, mode in given["--mount"]]
    try:
        opened = open_sources(binds)  # before any mount hides them
        covers = [cover for (cover,) in given["--cover"]]
        # Before Landlock: its rules name the private mounts.
        lay_out(covers, binds, mounts, first("--workdir"), opened)
        if abi:  # fails closed: a bot that cannot be sandboxed never runs
            read, listed, write = ([p for (p,) in given[o]] for o in POLICY_OPTIONS)
            landlock(read, listed, write, int(port) if port else None, abi)
    except OSError as error:
        print(f"ttr-arena: cannot sandbox the bot: {error}", file=sys.stderr, flush=True)
        os._exit(126)
    try:
        os.execvp(command[0], command)
    except OSError as error:
        print(f"ttr-arena: cannot run {command[0]!r}: {error.strerror}", file=sys.stderr)
        os._exit(127)


if __name__ == "__main__":
    main(sys.argv[1:])
