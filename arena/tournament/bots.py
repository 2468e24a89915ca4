"""Turning the names in a tournament into bots to start: registered, plugin or command line.

One function builds the bot of a registration (``entry_for_record``) and one the
limits bots run under (``bot_limits``), so a submission is validated exactly as
it will later play: same command, same sandbox, same protected data folder.
"""

from __future__ import annotations

import os
import shlex
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

from arena.referee.launch import PYTHON, BotEntry, split_label
from arena.referee.process import ProcessLimits
from arena.tournament.names import check_name, split_ref
from arena.tournament.store import ResultsStore
from bots import all_bots, get_bot


class UnknownBot(KeyError):
    """A name that is neither registered nor an installed plugin; the message says so."""


def bot_limits(data_dir: Path, limits: ProcessLimits | None = None) -> ProcessLimits:
    """The limits of every bot started for the store in ``data_dir``: whatever its
    command line names, no bot may read the data folder (results, logs, others' code)."""
    limits = limits or ProcessLimits()
    protected = str(Path(data_dir).resolve())
    if protected in limits.protected:
        return limits
    return replace(limits, protected=(*limits.protected, protected))


def entry_for_record(record: dict[str, Any], data_dir: Path) -> BotEntry:
    """The bot of a registration (a row of ``ResultsStore.bot``), named ``name@version``
    (whatever name its hello gives).

    A file bot's stored copy lives in the protected data folder (``target`` is
    relative to it): its own version folder, and only that, is granted to its sandbox."""
    label = f"{record['name']}@{record['version']}"
    kind, target, version = record["kind"], record["target"], str(record["version"])
    if kind == "plugin":
        return BotEntry.for_plugin(get_bot(target), name=label)
    if kind == "file":
        code = (Path(data_dir) / target).resolve()  # an absolute target stays as it is
        if not code.exists() and Path(target).exists():
            code = Path(target).resolve()  # registered before targets were data-relative
        return file_entry(label, code, version)
    return BotEntry(label, tuple(shlex.split(target)), version=version, labelled=True)


def file_entry(label: str, code: Path, version: str = "1") -> BotEntry:
    """The bot of a Python file or folder (``bot.py``), run as a submitted one runs: by
    ``bots.filebot``, its own folder granted to its sandbox (for a stored copy,
    data/bots/NAME/HASH: that version's copy alone)."""
    command = (PYTHON, "-P", "-m", "bots.filebot", str(code))  # -P: never the cwd's bots/
    return BotEntry(label, command, version=version, labelled=True, own_files=(str(code.parent),))


def resolve(text: str, store: ResultsStore | None) -> BotEntry:
    """``name`` or ``name@version`` of a registered bot, an installed plugin, or ``cmd:...``.

    A registered name wins over a plugin of the same name (it was registered on
    purpose); ``store`` may be None where no store exists yet."""
    label, command = split_label(text)
    if command is not None:
        if label is not None:
            check_name(label, "bot label")  # it names the bot's log files
        return BotEntry.parse(text)
    name, version = split_ref(text)
    record = store.bot(name, version) if store is not None else None
    if store is not None and record is not None:
        return entry_for_record(record, store.data_dir)
    if version is not None:
        raise UnknownBot(f"no registered bot '{name}' version {version} (see 'arena bots')")
    if name in all_bots():
        return BotEntry.for_plugin(get_bot(name))
    raise UnknownBot(
        f"no bot named '{name}': neither registered nor an installed plugin (see 'arena bots'; "
        "a command line is written 'cmd:COMMAND')"
    )


def result_label(text: str, entry: BotEntry) -> str:
    """The name results are stored under: ``name@version`` for registered bots, the
    label of ``LABEL=cmd:...``, else the text as written in the tournament."""
    if "@" in entry.name or split_label(text)[0]:
        return entry.name
    return text


def cannot_start(entry: BotEntry) -> str | None:
    """Why ``entry``'s program cannot be started here, or None if it can.

    Checked before anything is played, so a mistyped command line is a one-line
    error instead of a game of forfeits."""
    program = entry.argv()[0]
    if os.sep in program:
        path = Path(program)
        if not path.exists():
            return f"{program}: no such file"
        if path.is_dir():
            return f"{program}: is a folder, not a program"
        if not os.access(path, os.X_OK):
            return f"{program}: not executable (chmod +x, or start it with its interpreter)"
        return None
    if shutil.which(program) is None:
        return f"{program}: command not found on PATH"
    return None
