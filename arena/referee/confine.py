"""PID 1 of a bot's namespaces: lay out its view, confine itself, then become the bot.

``python -I -S confine.py RULES -- COMMAND...`` runs once for every sandboxed bot that
starts, before the bot's own interpreter: it mounts the private file systems and the view
that ``view.View`` planned, applies the Landlock rules that ``sandbox.SandboxPolicy``
built, and replaces itself with COMMAND. RULES is a dict in ``marshal``'s format, in hex
(``rules_argument``; the referee runs this file with its own interpreter, so the format
is the same at both ends): ``abi`` (0: no Landlock), the policy's ``read``,
``list_only``, ``write`` and ``connect_port``, ``mounts`` (the private tmpfs: ``target``,
``size``, ``inodes``, ``mode``) and ``view`` (``covers``, ``binds``, ``workdir``,
``scratch``).

Why a module of its own: every bot start pays for what it imports. It takes only what
the work needs from the standard library (no dataclasses, pathlib, subprocess or typing:
those cost a bot start about 40 ms of CPU; nor json, 15 ms more than ``marshal``), and
works on plain lists and strings. The referee's side (what to grant, what to hide) is
planned in ``sandbox.py`` and ``view.py``. A process confined without namespaces of its
own (no PID 1) applies the same rules from the referee's child before it runs the bot
(``sandbox.restrict_self``).
"""

from __future__ import annotations

import ctypes
import marshal
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


def rules_argument(rules: dict[str, object]) -> str:
    """``rules`` as PID 1 reads them on its command line (``read_rules``)."""
    return marshal.dumps(rules).hex()


def read_rules(argument: str) -> dict:
    return marshal.loads(bytes.fromhex(argument))  # type: ignore[no-any-return]


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


def open_sources(binds: list[list[str]]) -> dict[str, int]:
    """Open every bind's source (``O_PATH``) before anything covers it; a source that is
    gone is left out (it was only granted, never needed)."""
    opened: dict[str, int] = {}
    for source, _ in binds:
        try:
            opened[source] = os.open(source, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            continue
    return opened


def lay_out(view: dict, mounts: list[dict], opened: dict[str, int]) -> None:
    """Cover, mount the private tmpfs (``mounts``: the scratch folder, ``/dev/shm``), bind
    (``opened``: the binds' sources, from ``open_sources``): each after every mount above
    it; seal the covers read-only, change folder. ``OSError`` on failure: the caller fails
    closed."""
    lib = libc()
    covers: list[str] = view.get("covers") or []
    steps: list[tuple[str, int, object]] = [(c, 0, None) for c in covers]
    steps += [(m["target"], 1, m) for m in mounts]
    steps += [(target, 2, source) for source, target in view.get("binds") or []]
    for target, kind, step in sorted(steps, key=lambda s: depth(s[0])):  # stable: covers first
        if kind == 0:
            if lib.mount(b"tmpfs", target.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, COVER_OPTIONS):
                raise OSError(ctypes.get_errno(), f"cannot cover {target}")
        elif kind == 1:
            assert isinstance(step, dict)
            if any(beneath(target, c) for c in covers):
                _mount_point(target, True)
            mount_tmpfs(target, step["size"], step["inodes"], step["mode"])
        else:
            _bind(lib, target, opened.get(str(step)), covers)
    for cover in covers:
        flags = MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV
        if lib.mount(b"tmpfs", cover.encode(), b"tmpfs", flags, COVER_OPTIONS):
            raise OSError(ctypes.get_errno(), f"cannot make the cover of {cover} read-only")
    if view.get("workdir") is not None:
        os.chdir(view["workdir"])


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
    """``confine.py RULES -- COMMAND...``: mount, confine this process, then become COMMAND."""
    if len(argv) < 3 or argv[1] != "--":
        print("usage: confine.py RULES -- COMMAND...", file=sys.stderr)
        os._exit(2)
    rules = read_rules(argv[0])
    view = rules.get("view") or {}
    try:
        opened = open_sources(view.get("binds") or [])  # before any mount hides them
        lay_out(view, rules.get("mounts") or [], opened)  # before Landlock: its rules name them
        if rules["abi"]:  # fails closed: a bot that cannot be sandboxed never runs
            landlock(
                rules["read"], rules["list_only"], rules["write"], rules["connect_port"],
                rules["abi"],
            )  # fmt: skip
    except OSError as error:
        print(f"ttr-arena: cannot sandbox the bot: {error}", file=sys.stderr, flush=True)
        os._exit(126)
    command = argv[2:]
    try:
        os.execvp(command[0], command)
    except OSError as error:
        print(f"ttr-arena: cannot run {command[0]!r}: {error.strerror}", file=sys.stderr)
        os._exit(127)


if __name__ == "__main__":
    main(sys.argv[1:])
