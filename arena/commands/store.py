"""``arena store``: check the results store, recover what is intact from a damaged one, back it
up (safe while tournaments run)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Annotated

import typer

from arena.commands.common import DATA_DIR, RUNTIME, DataDir, console, counted, fail
from arena.tournament.store import FILE_NAME, StoreError
from arena.tournament.storecare import (
    backup,
    check,
    recover,
    recover_in_place,
    refuse_if_running,
)

app = typer.Typer(help="Check, recover and back up the results store.", no_args_is_help=True)


def _error(message: str) -> typer.Exit:
    return fail(message, RUNTIME)


@app.command("check")
def check_command(data_dir: DataDir = DATA_DIR) -> None:
    """SQLite's full integrity check and the store's own consistency; exit 1 if damaged."""
    report = check(data_dir)
    if not report.ok:
        raise _error(report.summary())
    counts = report.counts
    console.print(
        f"{report.path}: healthy — {counted(counts['tournaments'], 'tournament')}, "
        f"{counted(counts['matches'], 'match', 'matches')}, {counts['failures']} failed, "
        f"{counted(counts['bots'], 'registered bot')}, {report.size / 1e6:.1f} MB"
    )


@app.command("recover")
def recover_command(
    data_dir: DataDir = DATA_DIR,
    replace: Annotated[
        bool,
        typer.Option(
            help=f"put the recovered store in place (the damaged one kept as {FILE_NAME}.damaged)"
        ),
    ] = False,
) -> None:
    """Copy every intact match of a damaged store into results.sqlite.recover."""
    try:
        if replace:
            refuse_if_running(data_dir)
        if replace and check(data_dir).ok:  # nothing damaged: a healthy store is never swapped
            console.print(
                f"{data_dir / FILE_NAME} is healthy ('arena store check'): nothing to "
                "recover, it stays in place"
            )
            return
        done, kept = recover_in_place(data_dir) if replace else (recover(data_dir), None)
    except StoreError as error:
        raise _error(str(error)) from None
    except (OSError, sqlite3.Error) as error:  # (the folder cannot be written)
        reason = error.strerror if isinstance(error, OSError) else str(error)
        raise _error(
            f"cannot write the recovered store in {data_dir}: {reason}; nothing was replaced"
        ) from None
    lost = done.seen - done.matches
    console.print(
        f"recovered {counted(done.matches, 'intact match', 'intact matches')} ({lost} "
        f"readable but incomplete, left out) of {counted(done.tournaments, 'tournament')}, "
        f"and {counted(done.bots, 'registered bot')}"
    )
    if kept is not None:
        console.print(
            f"the recovered store is now {data_dir / FILE_NAME}; the damaged one is kept as "
            f"{kept}. Run the same tournaments again to replay what was lost."
        )
    else:
        console.print(f"written to {done.path}; 'arena store recover --replace' puts it in place")


@app.command("backup")
def backup_command(
    target: Annotated[
        Path, typer.Argument(help="a new file, or a folder to put results.sqlite in")
    ],
    data_dir: DataDir = DATA_DIR,
) -> None:
    """Copy the store (SQLite's online backup: safe while a tournament writes to it)."""
    try:
        path, matches = backup(data_dir, target)
    except StoreError as error:
        raise _error(str(error)) from None
    console.print(f"backed up {counted(matches, 'match', 'matches')} to {path} (checked)")
