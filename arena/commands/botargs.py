"""The bots named on the command line (``--bot``, a tournament's ``bots``): resolved,
and checked before anything is played or stored."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from arena.commands.common import RUNTIME, existing_store, fail, warn
from arena.tournament.names import BadName

if TYPE_CHECKING:  # the referee's modules load when a command plays (``arena`` starts fast)
    from arena.referee.launch import BotEntry
    from arena.tournament.spec import TournamentSpec


def bot_entries(texts: list[str], data_dir: Path, check_start: bool = True) -> list[BotEntry]:
    """The bots named on the command line: registered, plugin or ``cmd:``; each startable."""
    from arena.tournament.bots import UnknownBot, cannot_start, resolve

    store = existing_store(data_dir)
    try:
        entries = [resolve(text, store) for text in texts]
    except (UnknownBot, KeyError, BadName, ValueError) as error:
        raise fail(str(error.args[0])) from None
    finally:
        if store is not None:
            store.close()
    for text, entry in zip(texts, entries, strict=True):
        if check_start and (problem := cannot_start(entry)):
            raise fail(f"bot '{text}' cannot be started: {problem}")
    return entries


def check_startable(
    spec: TournamentSpec, texts: list[str], entries: list[BotEntry], in_process: bool
) -> None:
    """Bots whose program cannot start forfeit every game (said now, once); with too few
    left to fill a game, nothing is played."""
    from arena.tournament.bots import cannot_start

    broken = {}
    for text, entry in zip(texts, entries, strict=True):
        if in_process and entry.plugin is None:
            raise fail(f"'{text}' is a command-line bot: --in-process plays only plugin bots")
        if not in_process and (problem := cannot_start(entry)):
            broken[text] = problem
    able = len(entries) - len(broken)
    if broken and "*" not in spec.bots and able < min(spec.players):
        reasons = "; ".join(f"'{text}': {problem}" for text, problem in broken.items())
        raise fail(
            f"nothing can be played: only {able} of {len(entries)} bots can be started ({reasons})",
            RUNTIME,
        )
    for text, problem in broken.items():
        warn(f"bot '{text}' cannot be started ({problem}): it forfeits every game")
