"""Reading the process table in ``/proc``: one place for the arena's parsers of it
(a process's ``stat`` line, its children, its descendants)."""

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
