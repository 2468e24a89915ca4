"""A bot's operating-system process: started clean and contained, logged with caps, reaped.

- **Clean environment**: a bot sees only what the arena gives it
  (``bot_environment``), never the organiser's variables (secrets included)
  unless the organiser lists them.
- **Contained**: its own PID namespace where the system allows it
  (``containment.py``), so everything it starts dies with it; and its own cgroup
  where the referee may make one (``cgroup.py``), killed whole (where there is no
  PID namespace, that is what contains it), else its own process group. Limits:
  address space, CPU time, open files (which also bounds how many connections it
  can open to the referee) per process; CPU share, memory and processes for the
  whole cgroup.
- **Frozen while not asked** (``freeze``/``thaw``): its cgroup frozen, or, where
  there is none, every process of its PID namespace (or process group) stopped
  with ``SIGSTOP``, so that it computes only on its own clock.
- **Nothing shared, nothing left**: its own ``/dev/shm`` and scratch folder,
  private size-limited tmpfs in a mount namespace of its own where the system
  allows it; else no ``/dev/shm`` at all, and its scratch folder checked against
  its quota after each game (``scratch_over``).
- **Sandboxed** (``sandbox.py``) and, where possible, in a network namespace
  of its own.
- **Logged as it writes**: stdout and stderr go through pipes to capped files,
  written chunk by chunk (``logdrain.py``), so a log is complete up to the moment it
  is read.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import os
import resource
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.procfs import process_tree, signal_group, stat_fields
from arena.referee.cgroup import BotCgroup, setup
from arena.referee.containment import (
    CGROUP,
    PROCESS_GROUP,
    containment_prefix,
    pid_namespace,
    private_mounts,
)
from arena.referee.logdrain import LogDrain
from arena.referee.sandbox import (
    SYSTEM_ROOTS,
    Mount,
    SandboxPolicy,
    command_grants,
    confine_command,
    enter_network_namespace,
    landlock_abi,
    restrict_self,
)
from arena.referee.view import SCRATCH, View, beneath, moved, neutral_names

PR_SET_PDEATHSIG = 1
# The variables a bot gets besides the arena's own (ARENA_CONNECT, ARENA_TOKEN), HOME and
# TMPDIR (its scratch folder) and PATH (the organiser's, to find interpreters).
FIXED_ENV = {"LANG": "C.UTF-8", "PYTHONHASHSEED": "0"}


@dataclass(frozen=True)
class ProcessLimits:
    memory_mb: int = 4096  # address space (RLIMIT_AS); 0 for none
    cpu_seconds: int = 600  # CPU time (RLIMIT_CPU); 0 for none
    # Open files (RLIMIT_NOFILE); 0 for none. Each connection a bot opens takes one.
    open_files: int = 256
    log_bytes: int = 1024 * 1024  # per stream; the rest is counted and dropped
    sandbox: bool = True  # Landlock where the kernel has it (arena/referee/sandbox.py)
    protected: tuple[str, ...] = ()  # folders no bot may read, whatever its command line says
    # Its own empty network namespace where the system allows it (with the sandbox on); the
    # bot then reaches the referee over a Unix socket.
    network_namespace: bool = True
    # Its own PID namespace where the system allows it (arena/referee/containment.py);
    # without one, its own cgroup v2 where the referee may make one (cgroup.py).
    pid_namespace: bool = True
    cgroup: bool = True
    # For the whole cgroup: processes and threads (pids.max); memory_mb above is its
    # memory.max too (every process, and the pages of its memory-backed files).
    pids: int = 512
    # Frozen whenever it is not being asked to act (its cgroup, else SIGSTOP).
    freeze: bool = True
    # Its own /dev/shm and scratch folder: private tmpfs of these sizes (MiB) and file
    # counts in a mount namespace of its own; where none can be had, no /dev/shm and the
    # scratch folder's size and files are checked after each game.
    private_mounts: bool = True
    shm_mb: int = 64
    scratch_mb: int = 64
    scratch_files: int = 4096
    # The organiser's additions to a bot's environment: "NAME" passes the organiser's
    # value on (if set), "NAME=VALUE" sets one.
    env: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProcessUsage:
    """What a bot used: CPU time (s) and memory (MiB), of its whole cgroup where it has one
    (else the largest of any one process: CPU time and address space)."""

    cpu_seconds: float
    memory_mb: float


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def bot_environment(
    arena: Mapping[str, str], scratch: Path | str, extra: Sequence[str] = ()
) -> dict[str, str]:
    """Everything a bot process sees in its environment: the arena's variables, its scratch
    folder as ``HOME`` and ``TMPDIR`` (a ``str``: as the bot sees it, in its own mount
    namespace), ``PATH``, ``LANG``, ``PYTHONHASHSEED`` and exactly the organiser's ``extra``
    list; nothing else of the organiser's environment."""
    folder = scratch if isinstance(scratch, str) else str(scratch.resolve())
    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": folder, "TMPDIR": folder}
    env.update(FIXED_ENV)
    for item in extra:
        name, sep, value = item.partition("=")
        if sep:
            env[name] = value
        elif name in os.environ:
            env[name] = os.environ[name]
    env.update(arena)
    return env


def check_runnable(program: str, path: str) -> None:
    """Raise what ``Popen`` would if ``program`` cannot be run: a bot started through
    ``unshare`` would otherwise only exit with a status, and a program that cannot start
    is told apart from one that crashes (its seat's fault says "could not start")."""
    if shutil.which(program, path=path) is None:
        if os.path.exists(program) and "/" in program:
            raise PermissionError(errno.EACCES, "not an executable file", program)
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), program)


def _child_setup(
    limits: ProcessLimits,
    policy: SandboxPolicy | None,
    abi: int,
    own_network: bool,
    parent: int,
    cgroup: BotCgroup | None,
) -> None:  # runs in the child, before exec
    if cgroup is not None:
        cgroup.enter()  # fails closed: a bot that cannot be contained never runs
    if limits.memory_mb:
        size = limits.memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (size, size))
    if limits.cpu_seconds:
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 5))
    if limits.open_files:
        resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files))
    die_with_parent(parent)  # if the referee dies (even by SIGKILL), the kernel kills the bot
    if own_network:
        enter_network_namespace()  # fails closed, like the sandbox
    if policy is not None and abi:
        restrict_self(policy, abi)  # fails closed: a bot that cannot be sandboxed never runs


def _is_path(arg: str) -> bool:
    """Whether a command-line word is a path relative to the organiser's folder (it exists
    there; a word after ``-m`` is a module's name)."""
    return bool(arg) and not os.path.isabs(arg) and os.path.exists(arg)


def _has_relative(command: Sequence[str]) -> bool:
    """Whether ``command`` names a path relative to the organiser's folder (not counting
    the module name after ``-m``)."""
    return any(
        _is_path(arg) and (i == 0 or command[i - 1] != "-m") for i, arg in enumerate(command)
    )


def _new_cgroup(limits: ProcessLimits, cpus: float) -> BotCgroup | None:
    """A new cgroup for a bot, capped by ``limits`` and ``cpus``, if ``limits`` allow one
    and the system lets the referee make it (else None)."""
    given = setup()
    if not limits.cgroup or not given.any:
        return None
    try:
        made = BotCgroup.create(given.v2, given.v1)
    except OSError:
        return None
    made.limit(cpus, limits.memory_mb * 1024 * 1024, limits.pids)
    return made


def scratch_use(folder: Path) -> tuple[int, int]:
    """Bytes and files (and folders) under ``folder``, not following links."""
    size = files = 0
    for root, dirs, names in os.walk(folder):
        for name in names + dirs:
            files += 1
            with contextlib.suppress(OSError):
                size += os.lstat(os.path.join(root, name)).st_blocks * 512
    return size, files


def die_with_parent(parent: int | None = None) -> None:
    """Ask the kernel to SIGKILL this process when its parent dies (referee, pool driver).

    The request covers only deaths after it is made: if ``parent`` (the pid that
    started this process) died in between, this process has been handed to
    another parent already, and it exits at once instead of living on orphaned.
    """
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if parent is not None and os.getppid() != parent:
        os._exit(1)


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM back while a bot process is forked, then deliver them.

    A handler that raises (``SystemExit``) while ``fork`` runs Python's at-fork hooks is
    swallowed there ("Exception ignored"): the signal was lost and the command went on (a
    SIGTERM to ``arena submit`` left it validating). Signals are handled in the main
    thread only, so elsewhere nothing needs holding back."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    # (a handler installed from C is None here: it cannot be put back, so it is left alone)
    signals = [n for n in (signal.SIGINT, signal.SIGTERM) if signal.getsignal(n) is not None]
    previous = {number: signal.signal(number, lambda n, _: held.append(n)) for number in signals}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        for pending in held:
            signal.raise_signal(pending)


class BotProcess:
    """One bot process: contained, sandboxed, with limits, a clean environment and logs."""

    def __init__(
        self,
        command: Sequence[str],
        env: Mapping[str, str],
        log_prefix: Path,
        limits: ProcessLimits,
        endpoint: str | None = None,
        own_network: bool = False,
        own_files: Sequence[str] = (),
        cpus: float = 1.0,
    ) -> None:
        """Start ``command`` with the arena's variables ``env``; with ``limits.sandbox`` and an
        ``endpoint`` (the referee's), in a Landlock sandbox whose scratch folder is
        ``<log_prefix>.tmp`` (its ``TMPDIR`` and ``HOME``); with ``own_network``, in a new
        network namespace (``endpoint`` is then a Unix socket); ``own_files`` are readable
        in the sandbox even inside a protected folder; ``cpus``: its cgroup's CPU share
        (0: no cap)."""
        self.command = list(command)
        log_prefix.parent.mkdir(parents=True, exist_ok=True)
        self.scratch = scratch = log_prefix.with_suffix(".tmp")
        scratch.mkdir(exist_ok=True)
        prefix = containment_prefix(limits.pid_namespace, limits.private_mounts)
        self.private_mounts = bool(prefix) and prefix == private_mounts()
        abi = landlock_abi() if limits.sandbox and endpoint is not None else 0
        policy = (
            SandboxPolicy.for_bot(
                self.command,
                scratch,
                endpoint or "",
                limits.protected,
                own_files,
                shm=self.private_mounts,
            )
            if limits.sandbox
            else None
        )
        # Where it starts: the organiser's folder only if its command line names a path
        # relative to it, else its scratch folder (nothing of the organiser's to see there).
        relative = _has_relative(self.command)
        if self.private_mounts:  # its own layout (view.py): its code and scratch under /tmp
            renamed = neutral_names([str(Path(p).resolve()) for p in own_files])
            told = [moved(arg, renamed) for arg in self.command]
            # Without the sandbox nothing is hidden, but the cover on /tmp still hides
            # what lives there (a checkout or a venv under /tmp): what a sandboxed bot
            # would be granted (its runtime, the arena, its files) is bound back.
            runtime = policy or SandboxPolicy.for_bot(
                self.command, scratch, endpoint or "", (), own_files, shm=self.private_mounts
            )
            view = self._view(policy, limits, renamed, endpoint, relative, runtime)
            seen_scratch = view.scratch or SCRATCH
            workdir = None  # PID 1 changes folder once its mounts are made
        else:
            renamed, view, seen_scratch = {}, None, str(scratch.resolve())
            told = list(self.command)
            workdir = None if relative else seen_scratch
        if policy is not None and self.private_mounts:
            policy = policy.moved(renamed, seen_scratch)
        if not abi:
            policy = None
        self.cgroup = _new_cgroup(limits, cpus)
        self.containment = (
            pid_namespace()[0] if prefix else CGROUP if self.cgroup else PROCESS_GROUP
        )
        argv = told
        mounts = self._mounts(limits, seen_scratch) if self.private_mounts else []
        if prefix and (policy is not None or mounts):
            # PID 1 of the new namespace mounts, confines itself, then becomes the bot.
            argv = [*confine_command(policy, abi, mounts, view), *argv]
        argv = [*prefix, *argv]
        self.sandboxed = policy is not None
        self.contained = bool(prefix)
        self.own_network = own_network
        self.landlock_abi = abi
        self._name_logs(log_prefix)
        in_child = None if prefix else policy
        environment = bot_environment(env, seen_scratch, limits.env)
        try:
            check_runnable(self.command[0], environment["PATH"])
            with signals_deferred():
                self.popen = subprocess.Popen(
                    argv,
                    env=environment,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    process_group=0,
                    cwd=workdir,
                    preexec_fn=functools.partial(
                        _child_setup, limits, in_child, abi, own_network, os.getpid(), self.cgroup
                    ),
                    close_fds=True,
                )
        except BaseException:
            if self.cgroup is not None:
                self.cgroup.remove()
            raise
        self.pid = self.popen.pid
        self.pidfd: int | None = None
        with contextlib.suppress(OSError, AttributeError):
            self.pidfd = os.pidfd_open(self.pid)
        assert self.popen.stdout is not None and self.popen.stderr is not None
        self._stderr_fd = self.popen.stderr.fileno()
        self.limits = limits
        self.frozen = False
        # The cgroup that freezes it (looked up once: freezing is on the referee's hot path).
        self._freezer = self.cgroup if self.cgroup and self.cgroup.can_freeze() else None
        self._drain = LogDrain(self._log_streams(), limits.log_bytes)
        self._drain.start()

    def _mounts(self, limits: ProcessLimits, scratch: str) -> list[Mount]:
        """Its private ``/dev/shm`` and scratch folder (``/tmp/scratch``, in its own mount
        namespace)."""
        mib = 1024 * 1024
        return [
            Mount("/dev/shm", limits.shm_mb * mib, limits.scratch_files),
            Mount(scratch, limits.scratch_mb * mib, limits.scratch_files, "1777"),
        ]

    def _view(
        self,
        policy: SandboxPolicy | None,
        limits: ProcessLimits,
        renamed: Mapping[str, str],
        endpoint: str | None,
        stays: bool,
        runtime: SandboxPolicy | None = None,
    ) -> View:
        """Its mount namespace's layout (``view.py``): with the sandbox on, the protected
        folders and the organiser's folder (unless its command line names it) covered,
        and what it may read beneath them bound back; its own code at its neutral name;
        its working folder the organiser's if it ``stays`` there (entered again after the
        mounts, so that it is the covered one), else its scratch folder."""
        hidden: list[str] = []
        granted: list[str] = []
        if policy is not None:
            here = os.path.realpath(os.getcwd())
            hidden = [os.path.realpath(p) for p in limits.protected]
            if not any(beneath(here, g) for g in command_grants(self.command, limits.protected)):
                hidden.append(here)
            granted = [*policy.read, *policy.list_only]
        elif runtime is not None:  # no sandbox: hide nothing but /tmp, keep what lives there
            granted = [*runtime.read, *runtime.list_only]
        if endpoint is not None and endpoint.startswith("ipc://"):
            granted.append(os.path.realpath(endpoint[len("ipc://") :]))
        workdir = os.path.realpath(os.getcwd()) if stays else None
        return View.plan(hidden, granted, renamed, workdir, SYSTEM_ROOTS)

    def set_cpus(self, cpus: float) -> None:
        """Cap its cgroup at ``cpus`` CPUs' worth of time (a warm process's next match may
        have another time control)."""
        if self.cgroup is not None:
            self.cgroup.limit(cpus, self.limits.memory_mb * 1024 * 1024, self.limits.pids)

    # ---------------------------------------------------------------- its clock

    def freeze_method(self) -> str:
        """How it is kept from computing while not asked: ``cgroup v2``, ``cgroup v1``,
        ``SIGSTOP`` (every process of its PID namespace or process group), or ``off``."""
        if not self.limits.freeze:
            return "off"
        if self._freezer is not None:
            return "cgroup v2" if self._freezer.path is not None else "cgroup v1"
        return "SIGSTOP"

    def freeze(self, wait: bool = True) -> None:
        """Stop it computing until ``thaw``: it is not being asked to act. Without ``wait``
        a cgroup's freeze is only asked for (no instruction of the bot's own runs after
        that: ``RemoteSeat.pause``), not waited for until the kernel reports it done."""
        if not self.frozen and self.limits.freeze:
            self._hold(True, wait)

    def thaw(self) -> None:
        """Let it compute again (its turn, or its end: it must be able to exit)."""
        if self.frozen:
            self._hold(False)

    def _hold(self, frozen: bool, wait: bool = True) -> None:
        """Freeze (``frozen``) or thaw it: its cgroup, else every process with a signal."""
        self.frozen = frozen
        if self._freezer is None:
            self._signal_all(signal.SIGSTOP if frozen else signal.SIGCONT)
            return
        with contextlib.suppress(OSError):  # its cgroup is gone: so is the bot
            if frozen:
                self._freezer.freeze(wait=wait)
            else:
                self._freezer.thaw()

    def state_now(self) -> str:
        """What its processes are doing (each one's state letter from ``/proc``, ``T`` for
        stopped) and its cgroup's ``frozen`` flag: written into a timeout's detail, so that a
        bot that never answered can be told apart from one that could not run."""
        states = []
        for pid in self._tree()[:8]:
            fields = stat_fields(pid)
            if fields is not None:
                states.append(fields[0])
        said = f"its processes: {''.join(states) or 'none'}"
        if self._freezer is not None and self._freezer.path is not None:
            with contextlib.suppress(OSError):
                events = (self._freezer.path / "cgroup.events").read_text().split()
                flags = dict(zip(events[::2], events[1::2], strict=False))
                said += f"; frozen {flags.get('frozen', '?')}, asked {int(self.frozen)}"
        return said

    def _tree(self) -> list[int]:
        """Its processes: in a PID namespace, all below ``unshare`` (orphans are adopted by
        its PID 1); else the launched process and its descendants."""
        tree = process_tree(self.pid)
        return tree[1:] if self.contained else tree

    def _signal_all(self, sig: int) -> None:
        """``SIGSTOP`` (until every one of its processes is stopped: one could fork or be
        continued by a sibling meanwhile) or ``SIGCONT`` every process of the bot."""
        for _ in range(100):
            pids = self._tree()
            if not self.contained:
                with contextlib.suppress(OSError):
                    signal_group(self.pidfd, self.pid, sig)
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, sig)
            if sig != signal.SIGSTOP:
                return
            states = [stat_fields(pid) for pid in self._tree()]
            if all(f is None or f[0] in "TtZX" for f in states):
                return

    def scratch_over(self) -> str | None:
        """What is over its scratch folder's quota, or None (a folder on the disk: where there
        is no private mount); a bot over it has its folder emptied."""
        if self.private_mounts:
            return None
        size, files = scratch_use(self.scratch)
        limits = self.limits
        if size <= limits.scratch_mb * 1024 * 1024 and files <= limits.scratch_files:
            return None
        self._empty_scratch()
        return (
            f"its scratch folder held {size // 1024} KiB in {files} files; the quota is "
            f"{limits.scratch_mb} MiB and {limits.scratch_files} files (emptied)"
        )

    def _empty_scratch(self) -> None:
        """Remove everything in its scratch folder (one on the disk: a private one vanishes
        with the bot by itself)."""
        with contextlib.suppress(OSError):
            for entry in list(self.scratch.iterdir()):
                with contextlib.suppress(OSError):
                    if entry.is_dir() and not entry.is_symlink():
                        shutil.rmtree(entry)
                    else:
                        entry.unlink()

    def relog(self, log_prefix: Path) -> None:
        """Send stdout and stderr to ``<log_prefix>.stdout``/``.stderr`` from now on (a warm
        process's next match); its scratch folder stays where it was started."""
        log_prefix.parent.mkdir(parents=True, exist_ok=True)
        self._name_logs(log_prefix)
        self._drain.switch(self._log_streams())

    def _name_logs(self, log_prefix: Path) -> None:
        self.stdout_path = log_prefix.with_suffix(".stdout")
        self.stderr_path = log_prefix.with_suffix(".stderr")

    def _log_streams(self) -> dict[int, Path]:
        """The bot's output pipes, each with the file it is copied into."""
        assert self.popen.stdout is not None and self.popen.stderr is not None
        return {
            self.popen.stdout.fileno(): self.stdout_path,
            self.popen.stderr.fileno(): self.stderr_path,
        }

    def usage(self) -> ProcessUsage:
        """What this bot has used so far: its cgroup's CPU time and memory where it has one,
        else the most CPU time and address space of any of its processes (the limits apply
        per process): a warm process near them is replaced before a match."""
        if self.cgroup is not None:
            cpu_total, memory = self.cgroup.cpu_seconds(), self.cgroup.memory_bytes()
            if cpu_total is not None and memory is not None:
                return ProcessUsage(cpu_total, memory / (1024 * 1024))
        cpu, space = 0.0, 0
        for pid in process_tree(self.pid):
            fields = stat_fields(pid)
            if fields is None:
                continue
            cpu = max(cpu, (int(fields[11]) + int(fields[12])) / CLOCK_TICKS)
            space = max(space, int(fields[20]))
        return ProcessUsage(cpu, space / (1024 * 1024))

    def isolation(self) -> dict[str, object]:
        """What isolates this bot: its processes' containment, its Landlock ABI (0: none),
        whether it has a network namespace of its own."""
        return {
            "processes": self.containment,
            "landlock": self.landlock_abi if self.sandboxed else 0,
            "own_network": self.own_network,
            "cgroup": self.cgroup is not None,
            "frozen_between_turns": self.freeze_method(),
            "private_mounts": self.private_mounts,
        }

    def stderr_logged(self) -> int:
        """Bytes of the bot's stderr in ``stderr_path`` so far, with all it wrote before now
        (the referee asks every decision, so no ``stat``)."""
        self._drain.catch_up(self._stderr_fd)
        return self._drain.written(self._stderr_fd)

    def exited(self) -> int | None:
        """The exit status if the process has ended, else None."""
        return self.popen.poll()

    def alive(self) -> bool:
        return self.popen.poll() is None

    def status(self) -> str:
        """How the launched process ended, in words (for a fault's detail)."""
        code = self.popen.poll()
        if code is None:
            return "is still running"
        if code < 0:
            with contextlib.suppress(ValueError):
                return f"was killed by {signal.Signals(-code).name}"
        return f"exited with status {code}"

    def stop(self, grace: float = 2.0) -> None:
        """Wait ``grace`` seconds for a clean exit, then kill it and everything it started
        (its PID namespace, or its cgroup, or its process group where there is neither)."""
        self.thaw()  # a frozen process could neither exit nor die of SIGTERM
        deadline = time.monotonic() + grace
        while self.popen.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        signals = (signal.SIGTERM, signal.SIGKILL) if grace > 0 else (signal.SIGKILL,)
        for sig in signals:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                signal_group(self.pidfd, self.pid, sig)
            if sig == signal.SIGTERM and self.popen.poll() is None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.popen.wait(0.5)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(5)
        if self.cgroup is not None:  # whatever left the process group (setsid) goes too
            self.cgroup.kill()
            self.cgroup.remove()
        if not self.private_mounts:  # nothing it wrote outlives it but its logs
            self._empty_scratch()
        self._drain.finish(timeout=1.0)
        for stream in (self.popen.stdout, self.popen.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None

    def tail(self, stream: str = "stderr", size: int = 2000) -> str:
        """The end of the bot's captured output, for error reports."""
        path = self.stderr_path if stream == "stderr" else self.stdout_path
        try:
            data = path.read_bytes()
        except OSError:
            return ""
        return data[-size:].decode("utf-8", "replace")
