"""Turning the names in a tournament into bots to start: registered, plugin or command line."""

from __future__ import annotations

import shlex

from arena.referee.launch import PYTHON, BotEntry, split_label
from arena.tournament.store import ResultsStore
from bots import get_bot


def resolve(text: str, store: ResultsStore) -> BotEntry:
    """``name`` or ``name@version`` of a registered bot, an installed plugin, or ``cmd:...``."""
    if split_label(text)[1] is not None:
        return BotEntry.parse(text)
    name, _, version = text.partition("@")
    record = store.bot(name, int(version) if version else None)
    if record is None:
        if version:
            raise KeyError(f"no registered bot '{name}' version {version}")
        return BotEntry.parse(name)
    label = f"{record['name']}@{record['version']}"
    kind, target = record["kind"], record["target"]
    if kind == "plugin":
        return BotEntry.for_plugin(get_bot(target), name=label)
    if kind == "file":
        return BotEntry(
            label, (PYTHON, "-P", "-m", "bots.filebot", target), version=str(record["version"])
        )
    return BotEntry(label, tuple(shlex.split(target)), version=str(record["version"]))


def result_label(text: str, entry: BotEntry) -> str:
    """The name results are stored under: ``name@version`` for registered bots, the
    label of ``LABEL=cmd:...``, else the text as written in the tournament."""
    if "@" in entry.name or split_label(text)[0]:
        return entry.name
    return text
