"""``arena doctor``: what isolation this machine gives bot processes, and what is missing.

Each row is probed for real (a throw-away process tries it), not guessed
from the kernel version; SECURITY.md says what each protection is for and
what a bot can do where it is missing.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from dataclasses import dataclass
from typing import Annotated

import typer
from rich import box
from rich.table import Table
from rich.text import Text

from arena.commands.common import console, fail
from arena.referee.cgroup import setup, usable_parent
from arena.referee.containment import (
    PID_NAMESPACE,
    USER_PID_NAMESPACE,
    own_ipc,
    pid_namespace,
    private_mounts,
)
from arena.referee.faults import TimeControl
from arena.referee.keys import SECRET_ENV
from arena.referee.process import ProcessLimits
from arena.referee.sandbox import landlock_abi, network_namespace_available


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    status: str
    meaning: str  # what it gives bots, or what they can do without it


def _landlock() -> Check:
    abi = landlock_abi()
    if not abi:
        return Check(
            "Landlock sandbox",
            False,
            "missing",
            "bots read all this user can (the store too), connect anywhere",
        )
    parts = ["files"]
    missing: list[str] = []
    (parts if abi >= 4 else missing).append("TCP ports")
    (parts if abi >= 6 else missing).append("signals and abstract sockets")
    gaps = f"; not confined: {', '.join(missing)} (needs a newer kernel)" if missing else ""
    return Check(
        "Landlock sandbox", not missing, f"ABI {abi}", f"confines {', '.join(parts)}{gaps}"
    )


def _network() -> Check:
    if network_namespace_available():
        return Check(
            "network namespace",
            True,
            "available",
            "no network for bots; a Unix socket to the referee",
        )
    return Check(
        "network namespace",
        False,
        "missing: needs root or CAP_SYS_ADMIN",
        "bots keep the network: only TCP is filtered (UDP gets out)",
    )


def _pid() -> Check:
    method = pid_namespace()[0]
    if method in (PID_NAMESPACE, USER_PID_NAMESPACE):
        how = "as root" if method == PID_NAMESPACE else "inside a user namespace"
        return Check(
            "PID namespace",
            True,
            f"yes, {how}",
            "all a bot starts dies with it, setsid or not",
        )
    return Check(
        "PID namespace",
        False,
        "missing: needs util-linux unshare, and root or user namespaces",
        "bots get a cgroup of their own instead (next row)"
        if usable_parent()
        else "a process group only: a setsid() child outlives its match",
    )


def _cgroup() -> Check:
    """The fallback where there is no PID namespace: needed only then."""
    parent = usable_parent()
    needed = pid_namespace()[0] not in (PID_NAMESPACE, USER_PID_NAMESPACE)
    if parent is not None:
        return Check(
            "cgroup v2",
            True,
            f"yes, under {parent}",
            "a bot's cgroup is killed whole, setsid or not"
            if needed
            else "frozen, limited, killed whole (the rows below)",
        )
    return Check(
        "cgroup v2",
        not needed,
        "missing: needs a writable cgroup v2 (root or a delegated cgroup) with cgroup.kill",
        "a setsid() child outlives its match"
        if needed
        else "not needed: the PID namespace contains bots",
    )


def _from(controller: str) -> str | None:
    """``cgroup v2`` or ``cgroup v1 (PATH)``: where bots' ``controller`` comes from here."""
    given = setup()
    source = given.source(controller)
    if source == "v1":
        return f"cgroup v1 ({given.v1[controller]})"
    return "cgroup v2" if source == "v2" else None


def _cpu() -> Check:
    source = _from("cpu")
    if source is None:
        return Check(
            "CPU isolation",
            False,
            "missing: no cgroup cpu controller the referee may use",
            "a bot's threads and children take every core while it thinks (RLIMIT_CPU is "
            "per process), slowing the bots beside it",
        )
    return Check(
        "CPU isolation",
        True,
        source,
        f"each bot's processes share {TimeControl.cpus:g} CPU (time_control.cpus), "
        "threads and children included",
    )


def _freezing() -> Check:
    source = _from("freezer")
    if source is not None:
        return Check(
            "freezing",
            True,
            f"{source} freezer",
            "a bot is frozen whenever it is not asked to act: it thinks on its own clock only",
        )
    if pid_namespace()[0] in (PID_NAMESPACE, USER_PID_NAMESPACE):
        return Check(
            "freezing",
            True,
            "SIGSTOP of its PID namespace (no cgroup freezer)",
            "every process of a bot is stopped while it is not asked to act",
        )
    return Check(
        "freezing",
        False,
        "SIGSTOP of its process group only",
        "a setsid() child of a bot escapes the stop and computes on others' clocks",
    )


def _shm() -> Check:
    if private_mounts():
        return Check(
            "private /dev/shm",
            True,
            "mount and IPC namespace per bot",
            f"its own {ProcessLimits().shm_mb} MiB /dev/shm, System V IPC and message queues; "
            "gone with it",
        )
    ipc = (
        "System V IPC and message queues are each bot's own"
        if own_ipc()
        else "System V shared memory is shared by every bot (no IPC namespace)"
    )
    return Check(
        "private /dev/shm",
        False,
        "missing: needs a PID namespace with mount namespaces (root or user namespaces)",
        f"no /dev/shm for bots (Landlock); {ipc}",
    )


def _hidden() -> Check:
    if private_mounts():
        return Check(
            "data folder hidden",
            True,
            "covered in each bot's mount namespace",
            "the data folder and the current folder are empty to bots (but what they may "
            "read); a registered bot's code is at /tmp/bot, its scratch /tmp/scratch",
        )
    return Check(
        "data folder hidden",
        False,
        "missing: needs private mounts",
        "bots cannot list it (Landlock) but their paths name it: scratch folder and "
        "registered code are inside it",
    )


def _scratch() -> Check:
    limits = ProcessLimits()
    quota = f"{limits.scratch_mb} MiB, {limits.scratch_files} files"
    if private_mounts():
        return Check(
            "scratch quota",
            True,
            "private tmpfs",
            f"{quota}; memory-backed, gone with the bot",
        )
    return Check(
        "scratch quota",
        False,
        "on the disk, checked after each game",
        f"{quota}: a bot over it is charged 'disk' and its folder emptied; it can fill "
        "the disk during a game",
    )


def _memory() -> Check:
    limits = ProcessLimits()
    source = _from("memory")
    pids = _from("pids")
    counted = f"; at most {limits.pids} processes" if pids else ""
    if source is None:
        return Check(
            "per-bot memory",
            False,
            "missing: no cgroup memory controller the referee may use",
            f"{limits.memory_mb} MiB of address space per process only (each child gets its "
            f"own){counted}",
        )
    return Check(
        "per-bot memory",
        True,
        source,
        f"{limits.memory_mb} MiB for all its processes and memory-backed files{counted}",
    )


def _pidfd() -> Check:
    try:
        fd = os.pidfd_open(os.getpid())
    except (OSError, AttributeError):
        return Check(
            "process exit watch",
            False,
            "no pidfd (Linux 5.3+)",
            "a bot's exit is seen within 20 ms, not at once",
        )
    os.close(fd)
    return Check(
        "process exit watch", True, "pidfd", "a bot's exit is charged the moment it happens"
    )


def _limits() -> Check:
    limits = ProcessLimits()
    return Check(
        "resource limits",
        sys.platform.startswith("linux"),
        "on",
        f"per process: {limits.memory_mb} MiB address space, {limits.cpu_seconds} s CPU, "
        f"{limits.open_files} files; {limits.log_bytes // 1024} KiB log per stream",
    )


def _secret() -> Check:
    pinned = bool(os.environ.get(SECRET_ENV))
    return Check(
        "deal secrecy",
        True,
        f"{SECRET_ENV} pinned" if pinned else "fresh secret per run",
        "seeds and ids keyed (HMAC); "
        + ("runs reproduce: keep it secret" if pinned else f"{SECRET_ENV} reproduces a run"),
    )


def checks() -> list[Check]:
    return [
        _landlock(),
        _network(),
        _pid(),
        _cgroup(),
        _cpu(),
        _freezing(),
        _memory(),
        _shm(),
        _hidden(),
        _scratch(),
        _pidfd(),
        _limits(),
        _secret(),
    ]


def doctor(
    format: Annotated[str, typer.Option(help="table or json")] = "table",
) -> None:
    """Show what isolation this machine gives bots, and what is missing (SECURITY.md)."""
    if format not in ("table", "json"):
        raise fail(f"--format is table or json, not {format!r}")
    rows = checks()
    if format == "json":
        print(json.dumps([row.__dict__ for row in rows], indent=1))
        return
    table = Table(
        title=f"Bot isolation on {platform.node()} (Linux {platform.release()})",
        box=box.SIMPLE_HEAD,
    )
    for column in ("", "protection", "here", "what it means"):
        table.add_column(column)
    for row in rows:
        mark = Text("yes", "green") if row.ok else Text("no", "yellow")
        table.add_row(mark, row.name, row.status, row.meaning)
    console.print(table)
    missing = [row.name for row in rows if not row.ok]
    if missing:
        console.print(f"missing: {', '.join(missing)} — SECURITY.md says what bots can then do")
    else:
        console.print("every protection is in place")
