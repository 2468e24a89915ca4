"""``arena tournament show NAME``: what a tournament is, how far it got, who is running it, and
the matches the arena could not play."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from arena.tournament.store import ResultsStore, StoreError

console = Console()


def _when(stamp: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(stamp)) if stamp else "-"


def tournament_show(
    name: Annotated[str, typer.Argument(help="the tournament's name")],
    data_dir: Annotated[Path, typer.Option(help="where the results store lives")] = Path(
        "arena-data"
    ),
) -> None:
    """A tournament's description, progress, driver and failed matches."""
    try:
        store = ResultsStore.reader(data_dir)
        try:
            info = store.tournament_info(name)
            failures = store.failures(info.id) if info is not None else []
        finally:
            store.close()
    except StoreError as error:
        console.print(f"[bold red]error:[/] {escape(str(error))}", soft_wrap=True)
        raise typer.Exit(1) from None
    if info is None:
        console.print(f"[bold red]error:[/] no tournament named '{escape(name)}'", soft_wrap=True)
        raise typer.Exit(1)
    spec = info.spec
    players = "/".join(str(p) for p in spec.get("players", []))
    console.print(
        f"[bold]{escape(info.name)}[/]: {spec.get('format')} of {spec.get('variant')}, "
        f"{players} players, {spec.get('games')} games, seed {spec.get('seed')}",
        soft_wrap=True,
    )
    console.print(f"bots: {escape(', '.join(spec.get('bots', [])))}", soft_wrap=True)
    state = "finished " + _when(info.finished_at) if info.finished_at else "not finished"
    if info.driver is not None:
        state = f"being run by {info.driver.describe()}"
    console.print(
        f"created {_when(info.created_at)}; {info.played} of {info.planned} planned matches "
        f"played, {info.failed} failed; {state}",
        soft_wrap=True,
    )
    if failures:
        console.print("failed matches (arena faults: not rated; running it again retries them):")
    for failure in failures:
        console.print(
            f"  match {failure.idx} ({escape(', '.join(failure.bots))}), "
            f"{_when(failure.failed_at)}: {escape(failure.error)}",
            soft_wrap=True,
        )
