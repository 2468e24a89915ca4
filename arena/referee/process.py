"""A bot's operating-system process: started with limits, logged with caps, always reaped."""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import resource
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.referee.sandbox import (
    SandboxPolicy,
    enter_network_namespace,
    landlock_abi,
    restrict_self,
)

PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class ProcessLimits:
    memory_mb: int = 4096  # address space (RLIMIT_AS); 0 for none
    cpu_seconds: int = 600  # CPU time (RLIMIT_CPU); 0 for none
    log_bytes: int = 1024 * 1024  # per stream; the rest is counted and dropped
    sandbox: bool = True  # Landlock where the kernel has it (arena/referee/sandbox.py)
    protected: tuple[str, ...] = ()  # folders no bot may read, whatever its command line says
    # Its own empty network namespace where the system allows it (with the sandbox on); the
    # bot then reaches the referee over a Unix socket.
    network_namespace: bool = True


def _child_setup(
    limits: ProcessLimits, policy: SandboxPolicy | None, abi: int, own_network: bool, parent: int
) -> None:  # runs in the child, before exec
    if limits.memory_mb:
        size = limits.memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (size, size))
    if limits.cpu_seconds:
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 5))
    die_with_parent(parent)  # if the referee dies (even by SIGKILL), the kernel kills the bot
    if own_network:
        enter_network_namespace()  # fails closed, like the sandbox
    if policy is not None and abi:
        restrict_self(policy, abi)  # fails closed: a bot that cannot be sandboxed never runs


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


def _drain(stream, path: Path, cap: int) -> None:
    """Copy a pipe to a file up to ``cap`` bytes; keep reading so the bot never blocks."""
    dropped = 0
    with stream, path.open("wb") as out:
        for chunk in iter(lambda: stream.read1(65536), b""):
            room = cap - out.tell()
            if room > 0:
                out.write(chunk[:room])
                out.flush()  # the referee attaches new stderr lines to each decision
            dropped += max(0, len(chunk) - max(room, 0))
        if dropped:
            out.write(
                f"\n[ttr-arena: {dropped} more bytes dropped at the {cap}-byte cap]\n".encode()
            )


class BotProcess:
    """One bot process in its own process group (so its children are reaped with it)."""

    def __init__(
        self,
        command: Sequence[str],
        env: dict[str, str],
        log_prefix: Path,
        limits: ProcessLimits,
        endpoint: str | None = None,
        own_network: bool = False,
        own_files: Sequence[str] = (),
    ) -> None:
        """Start ``command``; with ``limits.sandbox`` and an ``endpoint`` (the referee's), in a
        Landlock sandbox whose scratch folder is ``<log_prefix>.tmp`` (its ``TMPDIR``); with
        ``own_network``, in a new network namespace (``endpoint`` is then a Unix socket);
        ``own_files`` are readable in the sandbox even inside a protected folder."""
        self.command = list(command)
        log_prefix.parent.mkdir(parents=True, exist_ok=True)
        policy, abi = None, 0
        if limits.sandbox and endpoint is not None:
            abi = landlock_abi()
            scratch = log_prefix.with_suffix(".tmp")
            scratch.mkdir(exist_ok=True)
            env = {**env, "TMPDIR": str(scratch.resolve())}
            policy = (
                SandboxPolicy.for_bot(self.command, scratch, endpoint, limits.protected, own_files)
                if abi
                else None
            )
        self.sandboxed = policy is not None
        self.own_network = own_network
        self.landlock_abi = abi
        self.stdout_path = log_prefix.with_suffix(".stdout")
        self.stderr_path = log_prefix.with_suffix(".stderr")
        self.popen = subprocess.Popen(
            self.command,
            env={**os.environ, **env},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            process_group=0,
            preexec_fn=functools.partial(
                _child_setup, limits, policy, abi, own_network, os.getpid()
            ),
            close_fds=True,
        )
        self.pid = self.popen.pid
        self._drains = [
            threading.Thread(
                target=_drain,
                args=(self.popen.stdout, self.stdout_path, limits.log_bytes),
                daemon=True,
            ),
            threading.Thread(
                target=_drain,
                args=(self.popen.stderr, self.stderr_path, limits.log_bytes),
                daemon=True,
            ),
        ]
        for thread in self._drains:
            thread.start()

    def exited(self) -> int | None:
        """The exit status if the process has ended, else None."""
        return self.popen.poll()

    def stop(self, grace: float = 2.0) -> None:
        """Wait ``grace`` seconds for a clean exit, then kill the whole process group."""
        deadline = time.monotonic() + grace
        while self.popen.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        for sig in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, sig)
            if sig == signal.SIGTERM and self.popen.poll() is None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.popen.wait(0.5)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(5)
        for thread in self._drains:
            thread.join(timeout=2)

    def tail(self, stream: str = "stderr", size: int = 2000) -> str:
        """The end of the bot's captured output, for error reports."""
        path = self.stderr_path if stream == "stderr" else self.stdout_path
        try:
            data = path.read_bytes()
        except OSError:
            return ""
        return data[-size:].decode("utf-8", "replace")
