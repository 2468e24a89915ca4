"""A cgroup of its own for every bot: killed whole, limited, frozen while it is not asked.

A cgroup holds every process started inside it, ``setsid`` or double-forked:
a process cannot leave it without write access to another cgroup's
``cgroup.procs``. Every bot process enters cgroups of its own before its
program starts (``BotCgroup.enter``), so that, whatever it starts:

- it is **killed whole** (``cgroup.kill``, Linux 5.14), also where there is
  no PID namespace to do it; nothing kills the cgroup when the referee itself
  is killed (``PR_SET_PDEATHSIG`` reaches the launched process only): the next
  referee on the machine sweeps such orphaned cgroups;
- it is **limited as a whole**: one CPU's worth by default (``cpu.max``), its
  memory counting every process and the pages of its memory-backed files
  (``memory.max``: its private ``/dev/shm`` and scratch folder), its number of
  processes (``pids.max``);
- it is **frozen** while it is not being asked to act (``cgroup.freeze``,
  waiting for ``frozen 1`` in ``cgroup.events``), so that it computes only on
  its own clock; its CPU time is counted for the whole cgroup (``cpu.stat``).

cgroup v2 is used where the referee may write there (root, or a cgroup
delegated to the user: systemd's ``Delegate=yes``); a controller that the v2
hierarchy does not offer (a machine with v1 hierarchies mounted: ``cpu``,
``memory``, ``pids``, ``freezer``, ``cpuacct``) is taken from its v1 hierarchy
where one is writable. ``setup()`` probes what this machine gives, once, for
real; ``arena doctor`` shows it.
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from arena.procfs import owner_gone, owner_tag

PREFIX = "ttr-arena-bot-"
EMPTY_WAIT_S = 2.0  # how long killed processes get to leave their cgroup
FREEZE_WAIT_S = 2.0  # how long the kernel gets to freeze a cgroup
FREEZE_POLL_S = 0.00002  # the first pause between two looks at a freezing cgroup
V1_CONTROLLERS = ("cpu", "cpuacct", "memory", "pids", "freezer")


def _cgroup_mounts() -> list[tuple[str, Path, str, list[str]]]:
    """Every cgroup hierarchy mounted here: (``cgroup`` or ``cgroup2``, mount point, which
    of its cgroups that folder is, super options), from ``/proc/self/mountinfo``."""
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        fields, _, rest = line.partition(" - ")
        parts, mount = rest.split(), fields.split()
        if len(parts) >= 3 and parts[0] in ("cgroup", "cgroup2"):
            found.append((parts[0], Path(mount[4]), mount[3], parts[2].split(",")))
    return found


def _cgroup2_mount() -> tuple[Path, str] | None:
    """Where the cgroup v2 hierarchy is mounted, and which of its cgroups is that folder."""
    for kind, mount, root, _ in _cgroup_mounts():
        if kind == "cgroup2":
            return mount, root
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
    """One bot's cgroups: a v2 one (``path``) and, for what v2 does not offer here, v1 ones
    (``v1``: controller -> folder). Made empty, entered by the bot before it starts,
    limited, frozen and thawed by the referee, killed whole."""

    def __init__(self, path: Path | None, v1: dict[str, Path] | None = None) -> None:
        self.path = path
        self.v1 = dict(v1 or {})
        self._events: int | None = None  # cgroup.events, open while the cgroup lives
        self._freeze: int | None = None  # cgroup.freeze (or v1 freezer.state), kept open
        self.frozen = False

    @classmethod
    def create(cls, parent: Path | None, v1_parents: dict[str, Path] | None = None) -> BotCgroup:
        """New, empty cgroups under ``parent`` (v2) and ``v1_parents``, named after this
        referee (see ``sweep``)."""
        name = f"{PREFIX}{owner_tag()}-{secrets.token_hex(6)}"
        made = cls(None)
        try:
            if parent is not None:
                (parent / name).mkdir()
                made.path = parent / name
            for controller, folder in (v1_parents or {}).items():
                if folder / name not in made.v1.values():  # co-mounted: one cgroup
                    (folder / name).mkdir()
                made.v1[controller] = folder / name
        except OSError:
            made.remove()
            raise
        return made

    def folders(self) -> list[Path]:
        """Every cgroup folder of this bot, each once (v1 controllers may share one)."""
        found = [self.path] if self.path is not None else []
        return found + [f for f in dict.fromkeys(self.v1.values()) if f not in found]

    def enter(self) -> None:
        """Move the calling process into these cgroups (run in the bot's process, between
        fork and exec, so everything it starts is born inside)."""
        me = str(os.getpid()).encode()
        for folder in self.folders():
            fd = os.open(folder / "cgroup.procs", os.O_WRONLY)
            try:
                os.write(fd, me)
            finally:
                os.close(fd)

    def limit(self, cpus: float = 0.0, memory_bytes: int = 0, pids: int = 0) -> list[str]:
        """Cap the whole cgroup: ``cpus`` CPUs' worth of time, ``memory_bytes`` of memory
        (its memory-backed files' pages included), ``pids`` processes and threads (0: no
        cap). Returns the caps that could be set (``cpu``, ``memory``, ``pids``)."""
        period = 100_000
        quota = str(max(1000, int(cpus * period))) if cpus > 0 else "max"
        writes = {
            "cpu": [
                ("cpu.max", f"{quota} {period}"),
                ("cpu.cfs_period_us", str(period)),
                ("cpu.cfs_quota_us", quota if cpus > 0 else "-1"),
            ],
            "memory": [
                ("memory.max", str(memory_bytes or "max")),
                ("memory.swap.max", "0" if memory_bytes else "max"),
                ("memory.limit_in_bytes", str(memory_bytes or -1)),
            ],
            "pids": [("pids.max", str(pids or "max"))],
        }
        done = []
        for controller, files in writes.items():
            for folder in self._for(controller):
                wrote = False
                for name, value in files:
                    if (folder / name).exists():
                        with contextlib.suppress(OSError):
                            (folder / name).write_text(value)
                            wrote = True
                if wrote:
                    done.append(controller)
                    break
        return done

    def _for(self, controller: str) -> list[Path]:
        """Where ``controller``'s files are for this bot: its v2 cgroup if v2 has it enabled
        there, else its v1 cgroup of that controller."""
        found = []
        if self.path is not None and controller in _enabled(self.path):
            found.append(self.path)
        if controller in self.v1:
            found.append(self.v1[controller])
        return found

    # ---------------------------------------------------------------- freezing

    def can_freeze(self) -> bool:
        return (self.path is not None and (self.path / "cgroup.freeze").exists()) or (
            "freezer" in self.v1
        )

    def freeze(self, timeout: float = FREEZE_WAIT_S, wait: bool = True) -> bool:
        """Stop every process of the cgroup where it stands, and wait until the kernel says
        all are (True), or ``timeout`` passes (False); without ``wait``, only ask the kernel
        (``settle`` waits: the referee has other work meanwhile)."""
        if self.frozen:
            return True
        if self.path is not None:
            if self._freeze is None:
                self._freeze = os.open(self.path / "cgroup.freeze", os.O_WRONLY | os.O_CLOEXEC)
                self._events = os.open(self.path / "cgroup.events", os.O_RDONLY | os.O_CLOEXEC)
            os.write(self._freeze, b"1")
            self.frozen = True
            return self.settle(timeout) if wait else True
        if "freezer" in self.v1:
            state = self.v1["freezer"] / "freezer.state"
            state.write_text("FROZEN")
            self.frozen = True
            deadline = time.monotonic() + timeout
            while state.read_text().strip() != "FROZEN":
                if time.monotonic() >= deadline:
                    return False
                time.sleep(0.0005)
            return True
        return False

    def settle(self, timeout: float = FREEZE_WAIT_S) -> bool:
        """Wait for ``frozen 1`` in ``cgroup.events`` (True at once if not freezing), read
        again and again with short sleeps: the kernel's notification of a change
        (``POLLPRI``) comes at most every 10 ms, and a freeze takes tens of microseconds."""
        if not self.frozen or self._events is None:
            return True
        deadline = time.monotonic() + timeout
        pause = FREEZE_POLL_S
        while True:
            events = os.pread(self._events, 512, 0)
            if b"frozen 1" in events or b"populated 0" in events:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(pause)
            pause = min(pause * 2, 0.001)

    def thaw(self) -> None:
        """Let every process of the cgroup run again (idempotent)."""
        if not self.frozen:
            return
        self.frozen = False
        if self._freeze is not None:
            os.write(self._freeze, b"0")
        elif "freezer" in self.v1:
            with contextlib.suppress(OSError):
                (self.v1["freezer"] / "freezer.state").write_text("THAWED")

    # ---------------------------------------------------------------- what it used

    def cpu_seconds(self) -> float | None:
        """CPU time used by every process the cgroup ever held, or None if not counted."""
        if self.path is not None:
            with contextlib.suppress(OSError, ValueError):
                for line in (self.path / "cpu.stat").read_text().splitlines():
                    if line.startswith("usage_usec "):
                        return int(line.split()[1]) / 1e6
        for controller in ("cpuacct", "cpu"):
            if controller in self.v1:
                with contextlib.suppress(OSError, ValueError):
                    return int((self.v1[controller] / "cpuacct.usage").read_text()) / 1e9
        return None

    def memory_bytes(self) -> int | None:
        """Memory the cgroup holds now (its processes and memory-backed files), or None."""
        for folder in self._for("memory"):
            for name in ("memory.current", "memory.usage_in_bytes"):
                with contextlib.suppress(OSError, ValueError):
                    return int((folder / name).read_text())
        return None

    def pids(self) -> list[int]:
        for folder in self.folders():
            try:
                return [int(pid) for pid in (folder / "cgroup.procs").read_text().split()]
            except OSError:
                continue
        return []

    # ---------------------------------------------------------------- the end

    def kill(self) -> None:
        """SIGKILL every process in the cgroup, at once (a frozen one too)."""
        if self.path is not None and (self.path / "cgroup.kill").exists():
            with contextlib.suppress(OSError):
                (self.path / "cgroup.kill").write_text("1")
            return
        for pid in self.pids():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        self.thaw()  # a v1-frozen process dies only once thawed

    def remove(self) -> None:
        """Remove the cgroups once their killed processes have left (idempotent)."""
        for fd in (self._freeze, self._events):
            if fd is not None:
                os.close(fd)
        self._freeze = self._events = None
        self.frozen = False
        deadline = time.monotonic() + EMPTY_WAIT_S
        for folder in self.folders():
            while folder.exists():
                try:
                    folder.rmdir()
                except FileNotFoundError:
                    break
                except OSError:  # still populated: its processes are exiting
                    if time.monotonic() >= deadline:
                        break
                    self.kill()
                    time.sleep(0.01)


def _enabled(path: Path) -> set[str]:
    """The v2 controllers enabled for the cgroup at ``path`` (its parent's
    ``cgroup.subtree_control``)."""
    return _subtree_control(path.parent)


@functools.cache
def _subtree_control(parent: Path) -> set[str]:
    try:
        return set((parent / "cgroup.subtree_control").read_text().split())
    except OSError:
        return set()


def _v1_mounts() -> dict[str, tuple[Path, str]]:
    """Each v1 controller's hierarchy: controller -> (mount point, its root cgroup)."""
    found: dict[str, tuple[Path, str]] = {}
    for kind, mount, root, options in _cgroup_mounts():
        for option in options if kind == "cgroup" else ():
            if option in V1_CONTROLLERS:
                found.setdefault(option, (mount, root))
    return found


def _own_v1() -> dict[str, str]:
    """This process's cgroup in each v1 hierarchy, from ``/proc/self/cgroup``."""
    own: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            for controller in controllers.split(","):
                own[controller] = path
    return own


@functools.cache
def v1_parents() -> dict[str, Path]:
    """The v1 controllers the v2 hierarchy does not give here, each with the folder where
    this process may make bots' cgroups (its own cgroup there), probed by making one."""
    if not sys.platform.startswith("linux"):
        return {}
    v2 = usable_parent()
    given = _subtree_control(v2) if v2 is not None else set()
    own = _own_v1()
    found: dict[str, Path] = {}
    for controller, (mount, root) in _v1_mounts().items():
        if controller in given or (controller == "freezer" and v2 is not None):
            continue
        if controller == "cpuacct" and v2 is not None:
            continue  # v2's cpu.stat counts CPU time in every cgroup
        path = own.get(controller)
        if path is None:
            continue
        if root != "/" and path.startswith(root):
            path = path[len(root) :]
        parent = mount / path.lstrip("/")
        probe = parent / f"{PREFIX}{owner_tag()}-probe"
        try:
            probe.mkdir()
            probe.rmdir()
        except OSError:
            continue
        sweep(parent)
        found[controller] = parent
    return found


@dataclass(frozen=True)
class Setup:
    """What cgroups give bots on this machine (``arena doctor`` shows it)."""

    v2: Path | None  # where bots' v2 cgroups are made
    v1: dict[str, Path]  # controller -> where its v1 cgroups are made

    @property
    def any(self) -> bool:
        return self.v2 is not None or bool(self.v1)

    def source(self, controller: str) -> str | None:
        """Where ``controller`` comes from: ``v2``, ``v1`` or None (not here)."""
        if self.v2 is not None and controller in _subtree_control(self.v2):
            return "v2"
        if controller == "freezer" and self.v2 is not None:
            return "v2"  # cgroup.freeze is in every v2 cgroup (Linux 5.2)
        if controller == "cpuacct" and self.v2 is not None:
            return "v2"  # cpu.stat likewise
        return "v1" if controller in self.v1 else None


@functools.cache
def setup() -> Setup:
    """Probe (once) what cgroups this process may give its bots."""
    return Setup(usable_parent(), v1_parents())
