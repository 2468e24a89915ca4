"""Every process a bot starts dies with it: a PID namespace per bot, where the system allows.

A bot is launched through util-linux's ``unshare --pid --fork --kill-child``:
the bot's program runs as PID 1 of a new PID namespace, and ``unshare``
waits outside it. When PID 1 exits, for whatever reason, the kernel kills
every other process of the namespace, ``setsid`` or not, double-forked or
not; when ``unshare`` is killed (the referee stopping the bot, or dying:
``PR_SET_PDEATHSIG``), it takes PID 1 with it. ``unshare`` exits with PID
1's status, so the referee sees the launched process exit exactly when it
does. Nothing ties a namespace to a match: it lives as long as its bot.

As root (or with ``CAP_SYS_ADMIN``) the namespace is made directly; other
users get it inside a user namespace of their own, where the kernel allows
unprivileged user namespaces. Where neither works (or there is no
``unshare``), a bot gets a cgroup v2 of its own where the referee may make one
(``cgroup.py``: root, or a delegated cgroup), killed whole when the bot stops.
Where none of these is possible, bots fall back to a process group of their
own, killed as a whole at the end: a process that calls ``setsid`` escapes it.
``arena doctor`` says which applies (SECURITY.md says what each means).

The namespace comes with an IPC namespace of the bot's own (System V IPC and
POSIX message queues) where the system allows it, and with a mount namespace and
a ``/proc`` of its own too (``private_mounts``): PID 1 then mounts
size-limited memory-backed file systems on ``/dev/shm`` and on the bot's scratch
folder (``sandbox.py``), seen by nobody else and gone with the bot's last
process.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence

PID_NAMESPACE = "pid-namespace"
USER_PID_NAMESPACE = "user+pid-namespace"  # the same, inside a user namespace (no root)
CGROUP = "cgroup"  # no PID namespace here: a cgroup v2 of the bot's own (cgroup.py)
PROCESS_GROUP = "process-group"

_PROBE = "import os, sys; sys.exit(0 if os.getpid() == 1 else 3)"
# PID 1 mounts a small tmpfs on /dev/shm (its own: the host's is untouched) and sees its own
# namespace's /proc.
_MOUNT_PROBE = (
    "import ctypes, os, sys; libc = ctypes.CDLL(None, use_errno=True); "
    "ok = libc.mount(b'tmpfs', b'/dev/shm', b'tmpfs', 6, b'size=65536') == 0; "
    "sys.exit(0 if ok and os.getpid() == 1 and os.listdir('/proc').count('1') else 3)"
)
MOUNT_OPTIONS = ("--mount", "--ipc", "--mount-proc", "--propagation", "private")


def _unshare_prefix(
    unshare: str, as_user: bool, mounts: bool = False, ipc: bool = True
) -> list[str]:
    user = ["--user", "--map-root-user"] if as_user else []
    private = list(MOUNT_OPTIONS) if mounts else ["--ipc"] if ipc else []
    return [unshare, *user, "--pid", "--fork", "--kill-child", *private, "--"]


def _probe(prefix: Sequence[str], code: str) -> bool:
    try:
        probe = subprocess.run(
            [*prefix, sys.executable, "-I", "-S", "-c", code], capture_output=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return probe.returncode == 0


@functools.cache
def pid_namespace() -> tuple[str, tuple[str, ...]]:
    """How bots are contained here: (method, command prefix). Probed once, in a throw-away
    process: the prefix must really start a program as PID 1."""
    unshare = shutil.which("unshare") if sys.platform.startswith("linux") else None
    if unshare is None:
        return PROCESS_GROUP, ()
    attempts = [False, True] if os.geteuid() == 0 else [True]
    for as_user in attempts:
        for ipc in (True, False):  # its own System V IPC and message queues where it can
            prefix = _unshare_prefix(unshare, as_user, ipc=ipc)
            if _probe(prefix, _PROBE):
                return (USER_PID_NAMESPACE if as_user else PID_NAMESPACE), tuple(prefix)
    return PROCESS_GROUP, ()


def own_ipc() -> bool:
    """Whether bots get System V IPC and POSIX message queues of their own here."""
    return "--ipc" in (private_mounts() or pid_namespace()[1])


@functools.cache
def private_mounts() -> tuple[str, ...]:
    """The prefix that also gives a bot its own mount, IPC and ``/proc`` (empty: not here),
    probed once by mounting a tmpfs on ``/dev/shm`` inside, for real."""
    method, prefix = pid_namespace()
    if not prefix:
        return ()
    mounted = _unshare_prefix(prefix[0], method == USER_PID_NAMESPACE, mounts=True)
    return tuple(mounted) if _probe(mounted, _MOUNT_PROBE) else ()


def containment_prefix(enabled: bool = True, mounts: bool = False) -> tuple[str, ...]:
    """The command prefix that puts a bot in its own PID namespace (empty: none here); with
    ``mounts``, with its own mount namespace too where there is one (``private_mounts``)."""
    if not enabled:
        return ()
    return (mounts and private_mounts()) or pid_namespace()[1]
