"""Reading the process table in ``/proc``: one place for the arena's parsers of it
(a process's ``stat`` line and start time, its children, its descendants), and the owner
tags that name what a process leaves in shared places (bots' cgroups, pool folders) so
that a later process can tell whether their owner is gone."""

from __future__ import annotations

import os


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
