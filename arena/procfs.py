"""Reading a process's line of ``/proc/PID/stat``, the one parser of it in the arena."""

from __future__ import annotations


def stat_fields(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command name (state first, then the
    parent's pid, ...: ``proc(5)``'s field 3 onwards), or None if ``pid`` is gone. Split
    after the last ')', because the command name may hold spaces and parentheses."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
