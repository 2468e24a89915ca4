"""Starting the bots of a match: plugin bots and any-language command-line bots.

``--bot random`` names an installed plugin; ``--bot "cmd:node bot.js"`` is any
program that speaks the protocol. Every remote bot gets the endpoint and its
one-time token in ``ARENA_CONNECT`` and ``ARENA_TOKEN``.
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
from arena.referee.faults import CRASH, NO_SHOW, Fault, TimeControl
from arena.referee.hub import Hub
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
        command = (PYTHON, "-m", "bots", spec.name)
        return cls(name=name or spec.name, command=command, plugin=spec.name, version=spec.version)

    @property
    def spec(self) -> BotSpec | None:
        return get_bot(self.plugin) if self.plugin else None

    def argv(self) -> list[str]:
        return [sys.executable if part == PYTHON else part for part in self.command]


def in_process_referee(variant: Variant, entries: list[BotEntry], tc: TimeControl) -> Referee:
    seats = []
    for entry in entries:
        if entry.spec is None:
            raise ValueError(f"'{entry.name}' is a command-line bot; it cannot run in process")
        seats.append(InProcessSeat(entry.spec.factory(0), entry.name, entry.version))
    return Referee(variant, seats, tc)


class ProcessMatch:
    """A referee with one process per seat. Use as a context manager: it always reaps."""

    def __init__(
        self,
        variant: Variant,
        entries: list[BotEntry],
        time_control: TimeControl | None = None,
        limits: ProcessLimits | None = None,
        log_dir: Path | None = None,
        endpoint: str = "tcp://127.0.0.1:*",
        logs_relative_to: Path | None = None,
    ) -> None:
        """``logs_relative_to`` (the data folder): the match log names each seat's stdout
        and stderr files relative to it, so they are found again wherever it is moved."""
        self.variant = variant
        self.logs_relative_to = logs_relative_to
        self.entries = entries
        self.time_control = time_control or TimeControl()
        self.limits = limits or ProcessLimits()
        self.log_dir = log_dir or Path("arena-data") / "bot-logs"
        self.endpoint = endpoint
        self.hub: Hub | None = None
        self.referee: Referee | None = None

    def __enter__(self) -> Referee:
        try:
            return self._start()
        except BaseException:
            self.__exit__(None, None, None)
            raise

    def _start(self) -> Referee:
        match_id = uuid.uuid4().hex[:12]
        hub = self.hub = Hub(self.endpoint, match_id)
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
        self.referee = Referee(self.variant, seats, self.time_control, match_id)
        for s, detail in unstartable.items():
            self.referee.dead[s] = Fault(s, CRASH, detail, 0)
        deadline = time.monotonic() + self.time_control.handshake_ms / 1000
        waiting = set(range(len(seats))) - set(unstartable)
        hub.handshake(waiting, deadline, lambda s: seats[s].alive())
        for s, seat in enumerate(seats):
            if s in unstartable:
                continue
            if s in hub.identity:
                hello_name, seat.version = hub.names[s]
                entry = self.entries[s]
                if entry.plugin is None and hello_name and not entry.labelled:
                    seat.name = hello_name[:64]  # a command-line bot names itself
                continue
            alive = seat.alive()
            code = NO_SHOW if alive else CRASH
            if alive:
                detail = (
                    f"no hello before the handshake deadline; {len(hub.rejected)} "
                    "connection(s) ignored: wrong or used token"
                )
            else:
                detail = (
                    f"exited with status {seat.process.exited()} before the handshake: "
                    f"{seat.process.tail()[-500:]}"
                )
            self.referee.dead[s] = Fault(s, code, detail, 0)
            seat.close()
        return self.referee

    def _seat(self, hub: Hub, s: int, entry: BotEntry, folder: Path) -> RemoteSeat:
        """Start seat ``s``'s bot process; ``arena.human`` seats a person instead."""
        own_network = (
            self.limits.sandbox and self.limits.network_namespace and network_namespace_available()
        )
        endpoint = hub.ipc_endpoint() if own_network else hub.endpoint
        env = {"ARENA_CONNECT": endpoint, "ARENA_TOKEN": hub.issue_token(s)}
        process = BotProcess(
            entry.argv(),
            env,
            folder / f"seat{s}-{entry.name}",
            self.limits,
            endpoint,
            own_network,
            entry.own_files,
        )
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

    def __exit__(self, *exc: object) -> None:
        try:
            if self.referee is not None:
                self.referee.close()
        finally:
            if self.hub is not None:
                self.hub.close()
