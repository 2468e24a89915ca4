"""Starting the bots of a match: plugin bots and any-language command-line bots.

``--bot random`` names an installed plugin; ``--bot "cmd:node bot.js"`` is any
program that speaks the protocol. Every remote bot gets its own endpoint and
its one-time token in ``ARENA_CONNECT`` and ``ARENA_TOKEN``, and the installed
plugins' modules in ``ARENA_PLUGINS``.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from arena.engine.variant import Variant
from arena.plugins import PLUGINS_ENV, plugin_modules
from arena.referee.faults import CRASH, NO_SHOW, Budget, Fault, TimeControl
from arena.referee.hub import Hub, ProcessWatch, describe
from arena.referee.keys import MatchKey
from arena.referee.pool import BotPool, WarmBot, pool_key
from arena.referee.process import BotProcess, ProcessLimits
from arena.referee.referee import Referee
from arena.referee.sandbox import network_namespace_available
from arena.referee.seats import InProcessSeat, RemoteSeat
from bots import get_bot
from bots.sdk import BotSpec


def split_label(text: str) -> tuple[str | None, str | None]:
    """``LABEL=cmd:LINE`` -> (LABEL, LINE); ``cmd:LINE`` -> (None, LINE); else (None, None)."""
    label, sep, rest = text.partition("=cmd:")
    if sep and label and " " not in label and not label.startswith("cmd:"):
        return label, rest
    if text.startswith("cmd:"):
        return None, text[4:]
    return None, None


def shown_name(said: str, limit: int = 64) -> str:
    """The name a bot gave itself in its hello, safe to print and store: control and format
    characters (terminal escapes, NUL, newlines) removed, spaces collapsed, at most
    ``limit`` characters; empty if nothing printable is left. A bot's hello is untrusted
    text that ``arena play`` prints to the organiser's terminal."""
    printable = "".join(ch if ch.isprintable() else " " for ch in said)
    return " ".join(printable.split())[:limit]


PYTHON = "{python}"  # stands for the Python running the referee, resolved where it runs


@dataclass(frozen=True)
class BotEntry:
    """A bot as named on the command line or in a tournament: plain, picklable data.

    ``command`` is the process to start; ``plugin`` names an installed bot
    plugin (which may also run in process).
    """

    name: str
    command: tuple[str, ...]
    plugin: str | None = None
    version: str = "1"
    labelled: bool = False  # named by whoever listed it, not by the bot's hello
    # Files the sandbox lets it read even inside a protected folder: a registered bot's
    # own stored code (named by the arena, never by a command line).
    own_files: tuple[str, ...] = ()
    # A new process for every match, never a warm one (arena/referee/pool.py).
    fresh_process: bool = False

    @classmethod
    def parse(cls, text: str) -> BotEntry:
        """``NAME`` of an installed plugin, or ``[LABEL=]cmd:COMMAND LINE`` for any program."""
        label, command_text = split_label(text)
        if command_text is not None:
            command = tuple(shlex.split(command_text))
            if not command:
                raise ValueError("'cmd:' needs a command line")
            name = label or Path(command[-1]).stem or command[0]
            return cls(name=name, command=command, labelled=label is not None)
        return cls.for_plugin(get_bot(text))

    @classmethod
    def for_plugin(cls, spec: BotSpec, name: str | None = None) -> BotEntry:
        command = (PYTHON, "-P", "-m", "bots", spec.name)  # -P: never a folder of the cwd
        return cls(
            name=name or spec.name,
            command=command,
            plugin=spec.name,
            version=spec.version,
            fresh_process=spec.fresh_process,
        )

    @property
    def spec(self) -> BotSpec | None:
        return get_bot(self.plugin) if self.plugin else None

    def argv(self) -> list[str]:
        return [sys.executable if part == PYTHON else part for part in self.command]


def in_process_referee(
    variant: Variant, entries: list[BotEntry], tc: TimeControl, key: MatchKey | None = None
) -> Referee:
    seats = []
    for entry in entries:
        if entry.spec is None:
            raise ValueError(f"'{entry.name}' is a command-line bot; it cannot run in process")
        seats.append(InProcessSeat(entry.spec.factory(0), entry.name, entry.version))
    return Referee(variant, seats, tc, key=key)


class ProcessMatch:
    """A referee with one process per seat. Use as a context manager: it always reaps.

    ``key`` derives what the bots are told (``keys.py``); by default a fresh one.
    With a ``pool`` (``pool.py``), seats take warm processes from it, and the
    processes that finish the match cleanly go back to it instead of being stopped.
    """

    def __init__(
        self,
        variant: Variant,
        entries: list[BotEntry],
        time_control: TimeControl | None = None,
        limits: ProcessLimits | None = None,
        log_dir: Path | None = None,
        key: MatchKey | None = None,
        budget: Budget | None = None,
        logs_relative_to: Path | None = None,
        pool: BotPool | None = None,
    ) -> None:
        """``logs_relative_to`` (the data folder): the match log names each seat's stdout
        and stderr files relative to it, so they are found again wherever it is moved."""
        self.variant = variant
        self.logs_relative_to = logs_relative_to
        self.entries = entries
        self.time_control = time_control or TimeControl()
        self.limits = limits or ProcessLimits()
        self.log_dir = log_dir or Path("arena-data") / "bot-logs"
        self.key = key or MatchKey.fresh("play")
        self.budget = budget
        self.hub: Hub | None = None
        self.referee: Referee | None = None
        self.pool = pool
        self.warm: dict[int, WarmBot] = {}  # seats given a warm process

    def __enter__(self) -> Referee:
        try:
            return self._start()
        except BaseException:
            self.__exit__(*sys.exc_info())
            raise

    def _start(self) -> Referee:
        match_id = uuid.uuid4().hex[:12]
        pool = self.pool
        if pool is None:
            hub = self.hub = Hub(match_id, self.budget)
        else:
            hub = self.hub = Hub(match_id, self.budget, pool.context, pool.ipc_dir)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        seats: list[RemoteSeat] = []
        unstartable: dict[int, str] = {}
        folder = self.log_dir / f"{stamp}-{match_id}"
        self.bot_log_dir = folder
        for s, entry in enumerate(self.entries):
            try:
                seats.append(self._seat(hub, s, entry, folder))
            except (OSError, subprocess.SubprocessError) as error:
                # A program that cannot be started forfeits its seat; the others play.
                unstartable[s] = f"could not start {entry.command[0]!r}: {error}"
                seats.append(RemoteSeat(hub, s, None, entry.name))
                hub.close_seat(s)
        self.referee = Referee(self.variant, seats, self.time_control, match_id, self.key, hub)
        for s, detail in unstartable.items():
            self.referee.dead[s] = Fault(s, CRASH, detail, 0)
        deadline = time.monotonic() + self.time_control.handshake_ms / 1000
        hub.handshake(set(range(len(seats))) - set(unstartable), deadline)
        for seat in seats:  # from now on, each computes only while it is asked to act
            if seat.process is not None:
                seat.process.freeze()
        early = hub.take_faults()
        for s, seat in enumerate(seats):
            if s in unstartable:
                continue
            link = hub.links[s]
            if s not in early and hub.connected(s):
                seat.version = shown_name(link.bot_version) or "?"
                entry = self.entries[s]
                said = shown_name(link.name)
                if entry.plugin is None and said and not entry.labelled:
                    seat.name = said  # a command-line bot names itself
                continue
            if s in early:
                code, detail = early[s].fault or CRASH, early[s].detail
                if code == CRASH and seat.process is not None:
                    detail += f" before the handshake: {seat.process.tail()[-500:]}"
            else:
                code = NO_SHOW
                detail = (
                    "no hello with its token before the handshake deadline; ignored: "
                    f"{describe(link.ignored)}"
                )
            self.referee.dead[s] = Fault(
                s, code, detail, 0, early[s].counts if s in early else None
            )
            seat.close(grace=0)
        return self.referee

    def _seat(self, hub: Hub, s: int, entry: BotEntry, folder: Path) -> RemoteSeat:
        """Open seat ``s``'s endpoint and start its bot process (watched by the hub, so its
        exit is a crash at once); ``arena.human`` seats a person instead."""
        log_prefix = folder / f"seat{s}-{entry.name}"
        warm = self.pool.take(pool_key(entry, self.limits)) if self.pool is not None else None
        if warm is not None:
            self.warm[s] = warm
            process = warm.process
            process.relog(log_prefix)
            process.set_cpus(self.time_control.cpus)
            hub.adopt(s, warm.link)
        else:
            own_network = (
                self.limits.sandbox
                and self.limits.network_namespace
                and network_namespace_available()
            )
            endpoint, token = hub.add_seat(s, private_network=own_network)
            env = {"ARENA_CONNECT": endpoint, "ARENA_TOKEN": token}
            plugins = plugin_modules()
            if plugins:  # spares a Python bot finding them itself (arena/plugins.py)
                env[PLUGINS_ENV] = plugins
            process = BotProcess(
                entry.argv(),
                env,
                log_prefix,
                self.limits,
                endpoint,
                own_network,
                entry.own_files,
                self.time_control.cpus,
            )
        hub.watch(s, ProcessWatch(process.pidfd, process.alive, process.status, process.exited))
        seat = RemoteSeat(hub, s, process, entry.name)
        seat.logs = {
            "stdout": self._log_name(process.stdout_path),
            "stderr": self._log_name(process.stderr_path),
        }
        return seat

    def _log_name(self, path: Path) -> str:
        if self.logs_relative_to is not None:
            try:
                return str(path.resolve().relative_to(self.logs_relative_to.resolve()))
            except ValueError:
                pass
        return str(path.resolve())

    def __exit__(self, kind: object, *exc: object) -> None:
        kept: set[int] = set()
        try:
            if kind is None:
                kept = self._keep()
        finally:
            try:
                if self.referee is not None:
                    self.referee.close(keep=kept)
            finally:
                if self.hub is not None:
                    self.hub.close()

    def _keep(self) -> set[int]:
        """Give back to the pool the processes that finished the match cleanly: no fault,
        still running, still connected (the pool retires those that are due)."""
        pool, referee, hub = self.pool, self.referee, self.hub
        if pool is None or referee is None or hub is None:
            return set()
        hub.pump(0)  # a fault or exit that happened after the last decision
        kept = set()
        for s, seat in enumerate(referee.seats):
            entry = self.entries[s]
            process = seat.process if isinstance(seat, RemoteSeat) else None
            if (
                process is None
                or s in referee.dead
                or s in hub.faults
                or not hub.connected(s)
                or not process.alive()
                or not pool.keeps(entry.fresh_process)
            ):
                continue
            matches = self.warm[s].matches if s in self.warm else 0
            pool.give(pool_key(entry, self.limits), WarmBot(process, hub.release(s), matches))
            kept.add(s)
        return kept
