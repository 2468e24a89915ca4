"""A cgroup v2 of its own for a bot, where the system has no PID namespace to give it.

A cgroup holds every process started inside it, ``setsid`` or double-forked:
a process cannot leave it without write access to another cgroup's
``cgroup.procs``, and writing ``1`` to ``cgroup.kill`` (Linux 5.14) kills all
of them at once. So a bot started in a cgroup of its own is stopped whole,
like one in a PID namespace, except that nothing kills the cgroup when the
referee itself is killed (``PR_SET_PDEATHSIG`` reaches the launched process
only): the next referee on the machine sweeps such orphaned cgroups.

Bots' cgroups are made inside the referee's own cgroup, which needs a
writable cgroup v2 hierarchy there: root, or a cgroup delegated to the user
(systemd's ``Delegate=yes``, ``systemd-run --user --scope -p Delegate=yes``).
``usable_parent`` probes that once, for real.
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
import subprocess
import sys
import time
from pathlib import Path

from arena.procfs import owner_gone, owner_tag

PREFIX = "ttr-arena-bot-"
EMPTY_WAIT_S = 2.0  # how long killed processes get to leave their cgroup


def _cgroup2_mount() -> tuple[Path, str] | None:
    """Where the cgroup v2 hierarchy is mounted, and which of its cgroups is that folder."""
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        fields, _, rest = line.partition(" - ")
        if rest.split(" ", 1)[0] == "cgroup2":
            parts = fields.split()
            return Path(parts[4]), parts[3]
    return None


def _own_cgroup() -> str | None:
    """This process's cgroup v2 path (``/`` for the root), from ``/proc/self/cgroup``."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        if line.startswith("0::"):
            return line[3:]
    return None


@functools.cache
def usable_parent() -> Path | None:
    """The folder where this process may make bots' cgroups (its own cgroup), or None if
    it cannot: no cgroup v2, no write access, no ``cgroup.kill``. Probed once by putting a
    throw-away process in a cgroup and killing it there; orphaned bots' cgroups left by a
    referee that was killed are swept on the way."""
    if not sys.platform.startswith("linux"):
        return None
    mounted, own = _cgroup2_mount(), _own_cgroup()
    if mounted is None or own is None:
        return None
    mount, root = mounted
    if root != "/" and own.startswith(root):
        own = own[len(root) :]
    parent = mount / own.lstrip("/")
    if not (parent / "cgroup.procs").exists():
        return None
    sweep(parent)
    try:
        probe = BotCgroup.create(parent)
    except OSError:
        return None
    try:
        sleeper = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", "import time; time.sleep(60)"],
            preexec_fn=probe.enter,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        probe.remove()
        return None
    inside = sleeper.pid in probe.pids()
    probe.kill()
    killed = sleeper.wait(10) == -9 if inside else False
    probe.remove()
    if not killed:
        with contextlib.suppress(ProcessLookupError):
            sleeper.kill()
        sleeper.wait(10)
    return parent if inside and killed else None


def sweep(parent: Path) -> None:
    """Kill and remove the bots' cgroups under ``parent`` whose referee is gone (one that
    was killed could not stop them itself); only those of referees in this process's PID
    namespace, the only ones whose life it can check (``procfs.owner_gone``)."""
    with contextlib.suppress(OSError):
        for folder in parent.glob(f"{PREFIX}*"):
            if owner_gone(folder.name[len(PREFIX) :]):
                orphan = BotCgroup(folder)
                orphan.kill()
                orphan.remove()


class BotCgroup:
    """One bot's cgroup: made empty, entered by the bot before it starts, killed whole."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def create(cls, parent: Path) -> BotCgroup:
        """A new, empty cgroup under ``parent``, named after this referee (see ``sweep``)."""
        path = parent / f"{PREFIX}{owner_tag()}-{secrets.token_hex(6)}"
        path.mkdir()
        return cls(path)

    def enter(self) -> None:
        """Move the calling process into this cgroup (run in the bot's process, between
        fork and exec, so everything it starts is born inside)."""
        fd = os.open(self.path / "cgroup.procs", os.O_WRONLY)
        try:
            os.write(fd, b"0")
        finally:
            os.close(fd)

    def pids(self) -> list[int]:
        try:
            return [int(pid) for pid in (self.path / "cgroup.procs").read_text().split()]
        except OSError:
            return []

    def kill(self) -> None:
        """SIGKILL every process in the cgroup, at once."""
        with contextlib.suppress(OSError):
            (self.path / "cgroup.kill").write_text("1")

    def remove(self) -> None:
        """Remove the cgroup once its killed processes have left it (idempotent)."""
        deadline = time.monotonic() + EMPTY_WAIT_S
        while self.path.exists():
            try:
                self.path.rmdir()
            except FileNotFoundError:
                return
            except OSError:  # still populated: its processes are exiting
                if time.monotonic() >= deadline:
                    return
                self.kill()
                time.sleep(0.01)
