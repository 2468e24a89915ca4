"""Reading the process table in ``/proc``: one place for the arena's parsers of it
(a process's ``stat`` line and start time, its children, its descendants), the owner
tags that name what a process leaves in shared places (bots' cgroups, pool folders) so
that a later process can tell whether their owner is gone, and signals to a process group
that never reach a process which took a reused number."""

from __future__ import annotations

import contextlib
import errno
import os
import signal

PIDFD_SIGNAL_PROCESS_GROUP = 4  # <linux/pidfd.h>, Linux 6.9+


def stat_fields(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command name (state first, then the
    parent's pid, ...: ``proc(5)``'s field 3 onwards), or None if ``pid`` is gone. Split
    after the last ')', because the command name may hold spaces and parentheses."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def child_pids(parent: int) -> list[int]:
    """The live processes whose parent is ``parent`` (from every process's ``stat``)."""
    found = []
    for entry in os.listdir("/proc"):
        fields = stat_fields(int(entry)) if entry.isdigit() else None
        if fields is not None and int(fields[1]) == parent and fields[0] != "Z":
            found.append(int(entry))
    return found


def process_tree(pid: int) -> list[int]:
    """``pid`` and every live descendant of it (through /proc's ``children`` lists)."""
    found, pending = [], [pid]
    while pending:
        current = pending.pop()
        found.append(current)
        try:
            tasks = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{current}/task/{task}/children") as children:
                    pending += [int(child) for child in children.read().split()]
            except OSError:
                continue
    return found


def process_start(pid: int) -> str:
    """When process ``pid`` started (clock ticks since boot), or '' if it is not running."""
    fields = stat_fields(pid)
    return "" if fields is None or fields[0] in ("Z", "X") else fields[19]


def _namespace() -> str:
    """This process's PID namespace (the inode of ``/proc/self/ns/pid``), '0' if unknown."""
    try:
        return str(os.stat("/proc/self/ns/pid").st_ino)
    except OSError:
        return "0"


def owner_tag() -> str:
    """``NAMESPACE-PID-START``: this process, as the things it leaves behind are named. The
    start time tells it from a later process given the same pid; the PID namespace tells
    an owner whose pid this process cannot see from one that is gone."""
    pid = os.getpid()
    return f"{_namespace()}-{pid}-{process_start(pid)}"


def owner_gone(tag: str) -> bool:
    """Whether the owner named at the start of ``tag`` (``owner_tag``, then anything) is
    gone: its pid runs no process, or one started at another time. A tag without a start
    time (``NAMESPACE-PID-x``, older names) is gone when its pid runs nothing. Owners in
    another PID namespace, or tags not made by ``owner_tag``, are never taken for gone."""
    parts = tag.split("-")
    if len(parts) < 3 or not parts[1].isdigit() or parts[0] != _namespace():
        return False
    running = process_start(int(parts[1]))
    if len(parts) >= 4 and parts[2].isdigit():
        return running != parts[2]
    return not running


def signal_group(pidfd: int | None, pid: int, sig: int) -> None:
    """Signal the process group that the process ``pid`` leads, through its ``pidfd`` where
    the kernel can: once that process is reaped its number may be another's (pid_max is
    often 32,768), but a pidfd names only it, and its group lives as long as a member does.
    By number where the kernel is older than 6.9 or there is no pidfd."""
    if pidfd is not None:
        try:
            signal.pidfd_send_signal(pidfd, sig, None, PIDFD_SIGNAL_PROCESS_GROUP)
            return
        except OSError as error:
            if error.errno != errno.EINVAL:  # (EINVAL: the kernel has no group signals)
                raise
    os.killpg(pid, sig)


def held_groups(pids: list[int]) -> list[tuple[int, int | None]]:
    """Each of ``pids`` with a pidfd of it, taken while they are known to be the processes
    meant: signalled later with ``kill_groups``, the groups they lead are theirs even if
    they have died and their numbers have gone to others meanwhile. None where the kernel
    gives none, or the process is gone already (then by number, as before: a number still
    used as a group's is never given to a new process)."""
    held: list[tuple[int, int | None]] = []
    for pid in pids:
        try:
            held.append((pid, os.pidfd_open(pid)))
        except (OSError, AttributeError):
            held.append((pid, None))
    return held


def kill_groups(held: list[tuple[int, int | None]]) -> None:
    """SIGKILL the process group of each process of ``held_groups``; closes its pidfds."""
    for pid, pidfd in held:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            signal_group(pidfd, pid, signal.SIGKILL)
        if pidfd is not None:
            os.close(pidfd)
