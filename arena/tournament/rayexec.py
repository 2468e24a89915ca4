"""Matches on Ray: on a local Ray the arena starts, or on a cluster (``--ray ADDRESS``).

Each match is played by one of the run's long-lived workers (Ray actors, one per
CPU of the cluster), which keep their bot processes warm between matches as local
workers do (``raypool.py``). What the arena adds to Ray, and why:

- **Fails fast on a wrong address.** ``ray.init`` waits for ever for a cluster
  that is not there; the address is tried first (a TCP connection, then the
  HTTP/2 greeting a Ray head's gRPC server answers), so nothing listening, or
  something else listening, gives one line naming the address within seconds.
- **Imports the arena's own packages.** Ray puts the driver's working folder
  first on every worker's ``sys.path``; a user's folder holding ``bots/`` or
  ``arena/`` would then shadow ours. The driver joins Ray from the folder that
  holds the arena's packages instead, and each task returns to the user's
  folder before starting bots (so relative paths in bot commands still work).
- **Notices a lost cluster.** A watchdog probes the head (GCS) every two
  seconds; when it stops answering, the run ends with one line, every finished
  match stored, well before Ray itself would end the process without a word
  (it does after 60 s without its head, from inside a blocked call). When this
  machine's Ray node stops under the driver (``ray stop``), Ray's core may end
  the driver at once, from C++ and without a word: a small watcher process
  (``DriverWatch``) then says so in the driver's place.
- **Cleans up the Ray it started**, also after its own crash: a local Ray lives
  in a temporary folder recorded under the data folder, and the next driver
  ends every process still using the folder of a driver that is gone.
- **Stops at once** when asked (Ctrl-C): the workers playing a match are
  killed, and their bots with them (the kernel's parent-death signal); the idle
  ones close their pools, then go.
- **Keeps Ray's own messages out of the user's output.** Ray's driver prints
  what its cluster reports ("A worker died...", "Task failed... retried") on
  standard output whatever ``log_to_driver`` says, and its C++ core writes
  its own lines straight to file descriptor 2 (when its node is stopped under
  it, say); the arena reports those faults itself (``arena tournament show``,
  one line for a lost cluster), so Ray's lines go to ``ray-messages.log`` in
  the data folder instead.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, deque
from collections.abc import Iterator, Sequence
from pathlib import Path

import msgspec

import arena
from arena import chaos
from arena.procfs import process_start
from arena.tournament.executors import (
    MAX_ATTEMPTS,
    TICK_SECONDS,
    ExecutorError,
    Sink,
)
from arena.tournament.matchrun import MatchTask
from arena.tournament.raypool import Players, Slot, WarmPlayer

PACKAGES_HOME = Path(arena.__file__).resolve().parent.parent  # holds arena/, bots/, ...
CONNECT_TIMEOUT = 5.0
INIT_TIMEOUT = 60.0
PROBE_EVERY = 2.0
LOST_GRACE_SECONDS = 5.0  # for the driver's loop to notice a lost cluster itself
SESSIONS = "ray-sessions"  # under the data folder: one record per local Ray the arena started
RAY_MESSAGES = "ray-messages.log"  # under the data folder: what Ray's driver would have printed


class ClusterUnreachable(ExecutorError):
    """Nothing answers at the cluster address."""


class ClusterLost(ExecutorError):
    """The cluster stopped answering during the run."""


def split_address(address: str) -> tuple[str, int]:
    """``HOST:PORT`` (optionally ``ray://``) -> (host, port); ExecutorError if malformed."""
    text = address.removeprefix("ray://")
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit():
        raise ClusterUnreachable(
            f"--ray {address}: a cluster address is HOST:PORT (e.g. 127.0.0.1:6379); "
            "give --ray alone for a local Ray"
        )
    return host, int(port)


def answers(host: str, port: int, timeout: float = CONNECT_TIMEOUT) -> str | None:
    """None if a TCP connection to host:port succeeds, else why not."""
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as error:
        return error.strerror or type(error).__name__
    return None


# An HTTP/2 client's greeting (its preface and an empty SETTINGS frame): a Ray head's GCS,
# a gRPC server, answers with its own SETTINGS frame (frame type 4) at once.
HTTP2_GREETING = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])


def greets_like_grpc(host: str, port: int, timeout: float = CONNECT_TIMEOUT) -> bool:
    """Whether host:port answers an HTTP/2 greeting as a gRPC server (a Ray head) does;
    something else there (a web server, a silent port) would keep ``ray.init`` trying for a
    minute, printing Ray's warnings."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as connection:
            connection.sendall(HTTP2_GREETING)
            reply = connection.recv(9)
    except OSError:
        return False
    return len(reply) >= 4 and reply[3] == 4


@contextlib.contextmanager
def working_folder(path: Path) -> Iterator[None]:
    previous = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(previous)


def processes_using(folder: str) -> list[int]:
    """Processes (other than this one) whose command line or open files are under ``folder``:
    the processes of a Ray session kept there (its agents rename themselves, but keep their
    log files open)."""
    return [
        int(entry)
        for entry in os.listdir("/proc")
        if entry.isdigit() and int(entry) != os.getpid() and uses(int(entry), folder)
    ]


def uses(pid: int, folder: str) -> bool:
    """Whether process ``pid`` has ``folder`` in its command line or a file open under it."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            if folder.encode() in file.read():
                return True
        for fd in os.listdir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                if os.readlink(f"/proc/{pid}/fd/{fd}").startswith(folder):
                    return True
    except OSError:
        return False
    return False


def kill_if_using(pid: int, folder: str) -> None:
    """SIGKILL ``pid`` if it still uses ``folder``: held by a pidfd first, then checked, so
    that a number another process took meanwhile is never signalled."""
    try:
        pidfd = os.pidfd_open(pid)
    except ProcessLookupError:  # gone already
        return
    except (OSError, AttributeError):  # a kernel without pidfds: by number, as before
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
        return
    try:
        if uses(pid, folder):
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
    finally:
        os.close(pidfd)


def end_session(folder: str) -> None:
    """Kill every process of a local Ray session and remove its folder."""
    for _ in range(3):  # a dying raylet may still start a worker: sweep until none is left
        pids = processes_using(folder)
        if not pids:
            break
        for pid in pids:
            kill_if_using(pid, folder)
        time.sleep(0.2)
    shutil.rmtree(folder, ignore_errors=True)


def sweep_sessions(data_dir: Path) -> int:
    """End the local Rays started by drivers (of this data folder) that are gone; returns
    how many were ended."""
    ended = 0
    for record in (data_dir / SESSIONS).glob("*.json"):
        try:
            session = json.loads(record.read_text())
        except (OSError, ValueError):
            continue
        if process_start(session["pid"]) == session["started"]:
            continue  # its driver still runs
        end_session(session["folder"])
        with contextlib.suppress(OSError):
            record.unlink()
        ended += 1
    return ended


class LocalSession:
    """The record of a local Ray this driver starts, so that it can be cleaned up by a later
    driver if this one dies without doing it."""

    def __init__(self, data_dir: Path) -> None:
        # Short, because Ray's socket paths live below it (at most 107 bytes).
        self.folder = os.path.join(tempfile.gettempdir(), f"arena-ray-{uuid.uuid4().hex[:8]}")
        self.record = data_dir / SESSIONS / f"{os.getpid()}.json"
        self.record.parent.mkdir(parents=True, exist_ok=True)
        self.record.write_text(
            json.dumps(
                {"pid": os.getpid(), "started": process_start(os.getpid()), "folder": self.folder}
            )
        )

    def end(self) -> None:
        end_session(self.folder)
        with contextlib.suppress(OSError):
            self.record.unlink()


def route_ray_messages(ray: object, data_dir: Path | None) -> None:
    """Send the lines Ray's driver prints about its cluster (its error listener calls
    ``print_to_stdstream``) to ``ray-messages.log`` under ``data_dir`` (nowhere without
    one). Ray offers no switch for these; if its internals move, its lines show again and
    nothing else changes."""
    worker_module = getattr(getattr(ray, "_private", None), "worker", None)
    if worker_module is None or not hasattr(worker_module, "print_to_stdstream"):
        return
    log = data_dir / RAY_MESSAGES if data_dir is not None else None

    def print_to_log(data: dict, ignore_prefix: bool = False) -> None:
        if log is None:
            return
        lines = [str(line) for line in data.get("lines", ())]
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        with contextlib.suppress(OSError), open(log, "a", encoding="utf-8") as out:
            out.writelines(f"{stamp} ({data.get('pid', '?')}) {line}\n" for line in lines)

    worker_module.print_to_stdstream = print_to_log


class NativeStderr:
    """While Ray runs in this process, file descriptor 2 (where Ray's C++ core writes) goes
    to ``log``, and Python's ``sys.stderr`` (the arena's own one-line errors) keeps the
    terminal. ``restore`` puts both back."""

    def __init__(self, log: Path) -> None:
        self.previous = sys.stderr
        self.saved: int | None = None
        try:
            target = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError:  # no log can be written there: Ray's lines stay where they were
            return
        sys.stderr.flush()
        self.saved = os.dup(2)
        os.dup2(target, 2)
        os.close(target)
        encoding = getattr(self.previous, "encoding", None) or "utf-8"
        sys.stderr = open(  # noqa: SIM115 (closed by restore)
            self.saved, "w", buffering=1, encoding=encoding, errors="backslashreplace",
            closefd=False,
        )  # fmt: skip

    def restore(self) -> None:
        if self.saved is None:
            return
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.flush()
        os.dup2(self.saved, 2)
        os.close(self.saved)
        self.saved = None
        sys.stderr = self.previous


WATCH_LOGS = "ARENA_RAY_DRIVER_LOGS"
WATCH_SCRIPT = r"""
import glob, os, sys
if os.fork():  # not a child of the driver: Ray's core ends the driver's children with it
    os._exit(0)
pipe, pid, message, logs = int(sys.argv[1]), sys.argv[2], sys.argv[3], os.environ[sys.argv[4]]
while (chunk := os.read(pipe, 1)) not in (b"", b"x"):
    pass
if chunk == b"":  # the driver ended without saying it ended in order
    said = ""
    for path in glob.glob(os.path.join(logs, f"python-core-driver-*_{pid}.log")):
        with open(path, errors="replace") as log:
            said += log.read()[-65536:]
    if "Raylet is dead" in said:  # Ray's core ended it, its node gone
        if sys.stdout.isatty():
            sys.stdout.write("\x1b[?25h\n")  # the progress display hid the cursor
            sys.stdout.flush()
        sys.stderr.write(f"error: {message}\n")
"""


class DriverWatch:
    """A watcher process that outlives this driver for one reason: Ray's core ends the driver
    at once, from C++ and without a word, when this machine's Ray node dies (``ray stop``);
    the watcher then prints the driver's one line. ``ended`` (at the driver's exit, once its
    own last line is out) tells it the driver ended in order: it then exits silently, as it
    does after a kill -9 of the driver."""

    def __init__(self, logs_dir: str, message: str) -> None:
        read, self.pipe = os.pipe()  # (not inherited by anything else this driver starts)
        try:
            # The session's folder is not on its command line: ending the session ends every
            # process naming it (end_session), and the watcher must outlive that.
            subprocess.run(  # returns at once: the watcher goes on in a process of its own
                [sys.executable, "-c", WATCH_SCRIPT, str(read), str(os.getpid()), message,
                 WATCH_LOGS],
                pass_fds=(read,), stdin=subprocess.DEVNULL, stderr=sys.stderr,
                env={**os.environ, WATCH_LOGS: logs_dir}, start_new_session=True, check=False,
            )  # fmt: skip
        finally:
            os.close(read)
        atexit.register(self.ended)

    def ended(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self.pipe, b"x")
            os.close(self.pipe)


def without_grace(ray: object) -> None:
    """Make ``ray.shutdown`` kill the local Ray's processes at once instead of giving each
    in turn up to a second to leave: ``end_session`` kills whatever is left of the session
    right after, and the workers' pools are closed already. (Ray's internals: if they
    move, shutdown is only slower.)"""
    node = getattr(getattr(getattr(ray, "_private", None), "worker", None), "_global_node", None)
    kill = getattr(node, "kill_all_processes", None)
    if kill is None:
        return

    def kill_at_once(*args: object, **options: object) -> None:
        kill(*args, **{**options, "allow_graceful": False})

    node.kill_all_processes = kill_at_once  # type: ignore[union-attr]


def failure_reason(error: Exception) -> str:
    """One line on why a Ray call failed: the exception raised in the match, else Ray's
    first line (a worker that died, a node that was lost)."""
    cause = getattr(error, "cause", None)
    if isinstance(cause, Exception):
        return f"{type(cause).__name__}: {cause}"[:300]
    return str(error).strip().splitlines()[0][:300]


class RayExecutor:
    """Matches on Ray's warm workers: ``address=None`` starts a local Ray (``workers``
    CPUs), else joins the cluster at ``address``."""

    name = "ray"

    def __init__(
        self, address: str | None = None, workers: int | None = None, data_dir: Path | None = None
    ) -> None:
        os.environ.setdefault("RAY_AUTH_MODE", "disabled")
        self.address = address
        self.data_dir = data_dir
        self.lost = threading.Event()  # the head stopped answering
        self.closing = threading.Event()
        if address:
            host, port = split_address(address)
            why = answers(host, port)
            if why is not None:
                raise ClusterUnreachable(
                    f"no Ray cluster answers at {address} ({why}): start one there "
                    f"('ray start --head --port {port}') or check the address"
                )
            if not greets_like_grpc(host, port):
                raise ClusterUnreachable(
                    f"something answers at {address} but not as a Ray head: check the port "
                    "(the one 'ray start --head' printed; 6379 unless --port changed it)"
                )
        import ray

        self.ray = ray
        self.session: LocalSession | None = None
        self.stderr: NativeStderr | None = None
        self.watch: DriverWatch | None = None
        self.started_here = not ray.is_initialized()
        self.local = self.started_here and address is None  # a local Ray of this driver's
        if self.started_here:
            if address is None and data_dir is not None:
                sweep_sessions(data_dir)
                self.session = LocalSession(data_dir)
            if data_dir is not None:
                self.stderr = NativeStderr(data_dir / RAY_MESSAGES)
            self._init(workers)
        # One match at a time per actor, never restarted by Ray: a match whose actor died is
        # retried by run(), on another actor (raypool.py).
        # Ray starts its workers at niceness 15, their bots with them: on a shared machine
        # the bots' time controls would pay for it. A local Ray is told so when it starts
        # (_init); on a cluster the workers ask, as Ray's own job supervisor does (in a
        # runtime environment of their own, so not in the workers Ray starts in advance).
        # Tests also forward their fault hooks: the workers see the driver's.
        env_vars = chaos.forwarded()
        if not self.local:
            env_vars["RAY_worker_niceness"] = "0"
        options: dict = {
            "num_cpus": 1,
            "max_restarts": 0,
            "max_task_retries": 0,
            "scheduling_strategy": "SPREAD",
        }
        if env_vars:
            options["runtime_env"] = {"env_vars": env_vars}
        self.players = Players(ray, ray.remote(**options)(WarmPlayer), self._cpus)
        self.start_failures = 0  # actors in a row that died before answering
        if self.local:  # every CPU is the run's: its workers start while the driver plans
            self.players.start(self._cpus())
        self.gcs = split_address(ray.get_runtime_context().gcs_address)
        node = getattr(getattr(ray, "_private", None), "worker", None)
        logs_dir = getattr(getattr(node, "_global_node", None), "get_logs_dir_path", None)
        if self.started_here and logs_dir is not None:  # (Ray's own; if it moves, no watcher)
            self.watch = DriverWatch(
                logs_dir(),
                self.lost_message("this machine's Ray node stopped and Ray ended the driver"),
            )
        threading.Thread(target=self._watch, name="arena-ray-watchdog", daemon=True).start()

    def _init(self, workers: int | None) -> None:
        """``ray.init`` from the arena's own folder (see the module docstring). Joining a
        cluster is bounded in time (something that answers at the address but is not a Ray
        head must not hang us), so it runs in a helper thread; starting a local Ray runs in
        this thread, because Ray ties its processes' lives to the thread that starts them."""
        options: dict = {"log_to_driver": False, "logging_level": logging.ERROR}
        if self.address:
            options["address"] = self.address
        else:
            options.update(
                num_cpus=workers,
                include_dashboard=False,
                _system_config={"worker_niceness": 0},  # (see __init__)
            )
            if self.session is not None:
                options["_temp_dir"] = self.session.folder
        failure: list[BaseException] = []

        def init() -> None:
            try:
                self.ray.init(**options)
            except Exception as error:  # reported below
                failure.append(error)

        route_ray_messages(self.ray, self.data_dir)
        on_sigterm = signal.getsignal(signal.SIGTERM)  # ray.init installs its own
        with working_folder(PACKAGES_HOME):
            if self.address:
                thread = threading.Thread(target=init, daemon=True)
                thread.start()
                thread.join(INIT_TIMEOUT)
                failure += [TimeoutError("no answer")] if thread.is_alive() else []
            else:
                init()
        signal.signal(signal.SIGTERM, on_sigterm)
        if failure:
            why = f"{type(failure[0]).__name__}: {failure[0]}".splitlines()[0]
            self.close()
            raise ClusterUnreachable(
                f"could not join the Ray cluster at {self.address} ({why}): check that a Ray "
                "head of the same version runs there"
                if self.address
                else f"could not start a local Ray ({why})"
            )

    def alive(self) -> bool:
        """Whether the cluster's head still answers."""
        return answers(*self.gcs, timeout=2.0) is None

    def lost_message(self, why: str = "its head stopped answering") -> str:
        where = self.address or "the local Ray"
        return (
            f"lost {where} ({why}): every match finished before this is stored; run the "
            "same command again once the cluster is back"
        )

    def _check_alive(self, error: Exception) -> None:
        """Raise ClusterLost if ``error`` (a failed call) came from losing the cluster rather
        than from its match: this driver's own raylet died (``ray stop``, a dead node), Ray
        itself failed, or the head no longer answers."""
        exceptions = self.ray.exceptions
        if isinstance(error, exceptions.LocalRayletDiedError | exceptions.RaySystemError):
            self.lost.set()
            raise ClusterLost(self.lost_message("this machine's Ray node stopped"))
        if self.lost.is_set() or (not self.alive() and not self.alive()):
            self.lost.set()
            raise ClusterLost(self.lost_message())

    def _watch(self) -> None:
        """Probe the head every PROBE_EVERY seconds. Once it is gone the driver's loop raises
        ClusterLost at its next turn; if it cannot (stuck inside Ray, which ends the process
        silently after 60 s), this thread says so and ends the process itself: the store
        is safe at any instant, and the next driver takes the lease over."""
        misses = 0
        while not self.closing.wait(PROBE_EVERY):
            misses = 0 if self.alive() else misses + 1
            if misses < 3:
                continue
            self.lost.set()
            if self.closing.wait(LOST_GRACE_SECONDS):
                return
            if sys.stdout.isatty():
                sys.stdout.write("\x1b[?25h\n")  # the progress display hid the cursor
                sys.stdout.flush()
            sys.stderr.write(f"error: {self.lost_message()}\n")  # where every error goes
            sys.stderr.flush()
            if self.watch is not None:
                self.watch.ended()  # (said here already)
            if self.session is not None:
                self.session.end()
            os._exit(1)

    def _cpus(self) -> int:
        """The cluster's CPUs now (its live nodes'): one actor each."""
        try:
            return int(self.ray.cluster_resources().get("CPU", 0))
        except Exception:  # the cluster is going: no new actor (the watchdog tells)
            return 0

    def run(self, tasks: Sequence[MatchTask], sink: Sink) -> None:
        """Play every task on the warm actors (retrying a match whose actor died, or whose
        play failed, up to MAX_ATTEMPTS times); returns early if ``sink.tick()`` says stop."""
        queue = deque(tasks)
        failures: Counter[tuple[str, int]] = Counter()  # per match: deaths and arena errors
        try:
            while queue or self.players.busy():
                self.players.start(len(queue))
                self.players.hand(lambda: queue.popleft() if queue else None)
                for slot in self.players.wait(TICK_SECONDS):
                    self._collect(slot, queue, failures, sink)
                if self.lost.is_set():  # the watchdog's verdict
                    raise ClusterLost(self.lost_message())
                if not sink.tick():
                    break
        finally:
            if not self.lost.is_set():  # (a lost cluster's actors are gone with it)
                self.players.stop_busy()

    def _collect(
        self, slot: Slot, queue: deque[MatchTask], failures: Counter[tuple[str, int]], sink: Sink
    ) -> None:
        """What an actor's ended call says: it is ready, or a match's result or failure."""
        task, ref = slot.task, slot.ref
        slot.task = slot.ref = None
        try:
            value = self.ray.get(ref)
        except self.ray.exceptions.RayError as error:
            self._check_alive(error)  # a lost cluster fails calls: not the match's fault
            if isinstance(error, self.ray.exceptions.RayActorError):
                self.players.drop(slot)  # dead, with its pool; another may take its place
            if task is None:
                self._start_failed(error)
                return
            failures[task.tournament, task.match.index] += 1
            attempts = failures[task.tournament, task.match.index]
            if attempts < MAX_ATTEMPTS:
                queue.appendleft(task)
            else:
                reason = failure_reason(error)
                sink.failed(task, attempts, f"{attempts} attempts failed; the last: {reason}")
            return
        if task is None:
            slot.ready, slot.where = True, value
            self.start_failures = 0
            return
        sink.result(
            msgspec.structs.replace(value, attempts=failures[task.tournament, task.match.index] + 1)
        )

    def _start_failed(self, error: Exception) -> None:
        """An actor died before it could play (its node lost, or it cannot start there):
        others are started in its place, up to MAX_ATTEMPTS in a row with none ready."""
        self.start_failures += 1
        if self.start_failures >= MAX_ATTEMPTS and not any(s.ready for s in self.players.slots):
            raise ExecutorError(
                f"Ray could not start the arena's workers ({failure_reason(error)}): check "
                "that every node of the cluster runs the same arena and Ray"
            )

    def close(self) -> None:
        """Leave (or stop) Ray, bounded in time: a lost cluster must not hang the driver."""
        self.closing.set()
        if not self.lost.is_set() and hasattr(self, "players"):  # (none if ray.init failed)
            self.players.close()
        if self.session is not None:  # its processes are all killed below: no need to wait
            without_grace(self.ray)
        if self.started_here and not self.lost.is_set():
            thread = threading.Thread(target=self.ray.shutdown, daemon=True)
            thread.start()
            thread.join(10)
        if self.session is not None:
            self.session.end()
        if self.stderr is not None and not self.lost.is_set():  # (Ray's threads still write)
            self.stderr.restore()
