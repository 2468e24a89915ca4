"""``arena replay``: a game log or match log played again by the engine and checked
against its recorded result; with ``--reproduce``, a stored match played again through
the referee and compared decision by decision."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.commands.common import DATA_DIR, DataDir, console, fail
from arena.commands.report import result_table
from arena.tournament.verify import replay_log


def replay_command(
    path: Annotated[
        Path | None, typer.Argument(help="a text game log or a JSON-lines match log")
    ] = None,
    reproduce: Annotated[
        Path | None,
        typer.Option(
            help="a match bundle (arena tournament bundle, a match page's download): play the "
            "match again with its bots and compare it decision by decision",
            show_default=False,
        ),
    ] = None,
    bot: Annotated[
        list[str] | None,
        typer.Option(
            help="with --reproduce: NAME=PATH, your copy of a seat's bot (a .py file or a "
            "folder with bot.py; or NAME=cmd:LINE), repeatable",
            show_default=False,
        ),
    ] = None,
    chart: Annotated[
        Path | None,
        typer.Option(help="with --reproduce: draw the faulting seat's clock into this PNG"),
    ] = None,
    data_dir: DataDir = DATA_DIR,
) -> None:
    """Re-simulate a game log or match log and verify its recorded result; or, with
    --reproduce, play a stored match again through the referee and compare."""
    if reproduce is not None:
        if path is not None:
            raise fail("give a log to verify or --reproduce BUNDLE, not both")
        from arena.commands.reproduce import reproduce as reproduce_bundle

        raise typer.Exit(reproduce_bundle(reproduce, bot or [], chart, data_dir))
    if path is None:
        raise fail("give a game log or match log file, or --reproduce BUNDLE")
    if bot or chart:
        raise fail("--bot and --chart go with --reproduce BUNDLE")
    try:
        data = path.read_bytes()
    except OSError as error:  # missing, a folder, unreadable: the file named, the cause said
        why = f"{path}: cannot be read ({error.strerror}): give a game or match log file"
        raise fail(why) from None
    try:
        replayed = replay_log(data)
    except (OSError, ValueError, KeyError, UnicodeDecodeError) as error:
        raise fail(str(error)) from None
    state, names, count = replayed.state, replayed.names, replayed.actions
    if not state.is_over:
        raise fail(f"the log replays {count} actions but the game is not over")
    labels = state.variant.score_labels
    title = f"replay of {path}"
    console.print(result_table(state.result(), names, title, replayed.ranks, labels=labels))
    console.print(f"replayed {count} actions: verified against the recorded result")
