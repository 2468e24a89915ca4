"""The ``arena`` command line."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.console import Console
from rich.table import Table

from arena.engine.errors import VariantUnavailableError
from arena.engine.result import GameResult
from arena.referee.gamelog import GameLog, LogError, replay
from arena.referee.inprocess import play_game
from arena.variants import all_variants, get_variant
from bots import all_bots, get_bot
from bots.sdk import bot_seed

app = typer.Typer(
    help="ttr-arena: AI tournaments for the Ticket to Ride family.", no_args_is_help=True
)
console = Console()


def fail(message: str) -> typer.Exit:
    console.print(f"[bold red]error:[/] {message}", soft_wrap=True)
    return typer.Exit(code=2)


@app.command()
def variants() -> None:
    """List the installed variants and whether each can be played."""
    table = Table(title="Variants")
    for column in ("name", "title", "players", "status", "notes"):
        table.add_column(column)
    for name, variant in all_variants().items():
        notes = (
            variant.description if variant.playable else "missing: " + "; ".join(variant.missing)
        )
        status = "[green]playable[/]" if variant.playable else "[yellow]incomplete data[/]"
        table.add_row(
            name, variant.title, f"{variant.min_players}-{variant.max_players}", status, notes
        )
    console.print(table)


@app.command()
def bots() -> None:
    """List the installed bots."""
    table = Table(title="Bots")
    for column in ("name", "version", "variants", "description"):
        table.add_column(column)
    for name, spec in all_bots().items():
        table.add_row(name, spec.version, ", ".join(spec.variants), spec.description)
    console.print(table)


# Short column headings, so a result fits an 80-column terminal.
HEADINGS = {
    "routes": "routes",
    "tickets_completed": "tix+",
    "tickets_failed": "tix-",
    "longest_path_bonus": "path+",
}


def result_table(result: GameResult, seats: list[str], title: str) -> Table:
    table = Table(
        title=title,
        box=box.SIMPLE_HEAD,
        caption="tix+/tix- tickets completed/failed, path+ longest-path bonus, "
        "done tickets completed/failed, path longest path",
    )
    table.add_column("#", justify="right")
    table.add_column("seat", justify="right")
    table.add_column("bot")
    for category in result.categories:
        table.add_column(HEADINGS.get(category, category.replace("_", " ")), justify="right")
    table.add_column("total", justify="right", style="bold")
    table.add_column("done", justify="right")
    table.add_column("path", justify="right")
    for seat in sorted(range(len(seats)), key=lambda s: (result.ranks[s], s)):
        row = result.breakdown[seat]
        table.add_row(
            str(result.ranks[seat]),
            str(seat),
            seats[seat],
            *(str(row[c]) for c in result.categories),
            str(row["total"]),
            f"{row.get('completed_tickets', 0)}/{row.get('failed_tickets', 0)}",
            str(row.get("longest_path", "")),
        )
    return table


@app.command()
def play(
    variant: Annotated[str, typer.Option(help="variant name (see 'arena variants')")] = "usa",
    players: Annotated[int, typer.Option(help="number of players (ignored with --bot)")] = 4,
    seed: Annotated[int, typer.Option(help="fixes every shuffle of the game")] = 0,
    bot: Annotated[
        list[str] | None, typer.Option(help="a bot per seat, in seat order (default: random)")
    ] = None,
    log: Annotated[Path | None, typer.Option(help="write the game log to this file")] = None,
) -> None:
    """Play one game and print the result table."""
    try:
        chosen = get_variant(variant)
        names = list(bot) if bot else ["random"] * players
        specs = [get_bot(name) for name in names]
    except KeyError as error:
        raise fail(str(error.args[0])) from None
    for spec in specs:
        if not spec.supports(chosen.name):
            raise fail(f"bot '{spec.name}' does not support variant '{chosen.name}'")
    instances = [spec.factory(bot_seed(seed, seat)) for seat, spec in enumerate(specs)]
    try:
        result, game_log = play_game(chosen, instances, seed, names)
    except (VariantUnavailableError, ValueError) as error:
        raise fail(str(error)) from None
    console.print(result_table(result, names, f"{chosen.title} — seed {seed}"))
    console.print(f"{len(game_log.actions)} actions")
    if log:
        log.write_text(game_log.to_text())
        console.print(f"game log written to {log}")


@app.command(name="replay")
def replay_command(
    path: Annotated[Path, typer.Argument(help="a game log written by 'arena play --log'")],
) -> None:
    """Re-simulate a game log and verify its recorded result."""
    try:
        game_log = GameLog.from_text(path.read_text())
        state = replay(game_log)
    except (OSError, LogError, KeyError) as error:
        raise fail(str(error)) from None
    if not state.is_over:
        raise fail(f"the log replays {len(game_log.actions)} actions but the game is not over")
    console.print(result_table(state.result(), game_log.seats, f"replay of {path}"))
    verified = "verified against the recorded result" if game_log.scores else "no recorded result"
    console.print(f"replayed {len(game_log.actions)} actions: {verified}")


if __name__ == "__main__":
    app()
