"""``arena play``: games through the referee (each bot its own process, or trusted plugin
bots in this process), their results printed; ``--human`` seats you in the browser."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.commands.botargs import bot_entries
from arena.commands.common import (
    DATA_DIR,
    DataDir,
    console,
    fail,
    unwind_on_sigterm,
    writable,
)
from arena.commands.report import print_faults, result_table
from arena.engine.errors import VariantUnavailableError
from arena.engine.result import ScoreLabel
from arena.tournament.play import play_games, play_key, text_log
from arena.variants import get_variant


def print_outcome(
    outcome, names: list[str], title: str, data_dir: Path, labels: dict[str, ScoreLabel]
) -> None:
    console.print(result_table(outcome.result, names, title, outcome.ranks, labels=labels))
    print_faults(outcome, names, data_dir)


def play(
    variant: Annotated[str, typer.Option(help="variant name (see 'arena variants')")] = "usa",
    players: Annotated[
        int, typer.Option(help="number of random players, when no --bot", min=1)
    ] = 4,
    seed: Annotated[
        int | None,
        typer.Option(
            help="the same game every run: every shuffle and the bots' seeds (a bot may guess a "
            "small one; ARENA_SECRET keys it)",
            show_default="a fresh unguessable seed, printed",
        ),
    ] = None,
    bot: Annotated[
        list[str] | None,
        typer.Option(
            help="a bot per seat, in seat order: a registered name\\[@N], a plugin, or "
            "'cmd:COMMAND LINE'",
            show_default="--players random bots",
        ),
    ] = None,
    games: Annotated[int, typer.Option(help="games in a row on the same bot processes", min=1)] = 1,
    in_process: Annotated[
        bool, typer.Option("--in-process", help="call trusted Python bots directly, no processes")
    ] = False,
    move_ms: Annotated[int, typer.Option(help="free time per decision (ms)", min=1)] = 1000,
    bank_ms: Annotated[int, typer.Option(help="time bank per bot and game (ms)", min=0)] = 30000,
    retries: Annotated[
        int, typer.Option(help="illegal actions forgiven before a forfeit", min=0)
    ] = 2,
    memory_mb: Annotated[
        int, typer.Option(help="address-space limit per bot (0: none)", min=0)
    ] = 4096,
    cpu_seconds: Annotated[int, typer.Option(help="CPU-time limit per bot (0: none)", min=0)] = 600,
    log: Annotated[Path | None, typer.Option(help="write the text game log here")] = None,
    match_log: Annotated[
        Path | None, typer.Option(help="write the JSON-lines match log(s) here")
    ] = None,
    bot_logs: Annotated[
        Path | None,
        typer.Option(
            help="where bots' stdout and stderr are kept", show_default="DATA_DIR/bot-logs"
        ),
    ] = None,
    data_dir: DataDir = DATA_DIR,
    human: Annotated[
        bool, typer.Option("--human", help="take a seat yourself, in the browser (--bot: rivals)")
    ] = False,
    human_seat: Annotated[int, typer.Option(help="your seat, with --human")] = 0,
    port: Annotated[int, typer.Option(help="the play page's port, with --human (0: any)")] = 8765,
    open_browser: Annotated[
        bool, typer.Option("--open/--no-open", help="open the browser, with --human")
    ] = True,
) -> None:
    """Play games through the referee (each bot its own process) and print the results."""
    try:
        chosen = get_variant(variant)
    except KeyError as error:
        raise fail(str(error.args[0])) from None
    count = (len(bot) + human if bot else players) if bot or not human else players
    if not chosen.min_players <= count <= chosen.max_players:
        raise fail(
            f"{chosen.name} is played by {chosen.min_players}-{chosen.max_players} players, "
            f"not {count}"
        )
    writable(log, "--log")
    writable(match_log, "--match-log")
    # What bots are told is keyed with it (SECURITY.md): from the seed when one is given, so
    # the same seed is the same game every run; else fresh, and the seed drawn from it.
    key, seed = play_key(seed)
    if human:
        from arena.commands.human import play_as_person

        rivals = bot or ["random"] * (players - 1)
        return play_as_person(chosen, rivals, seed, human_seat, port, open_browser, match_log, key)
    entries = bot_entries(bot or ["random"] * players, data_dir)
    for entry in entries:
        if entry.spec is not None and not entry.spec.supports(chosen.name):
            raise fail(f"bot '{entry.name}' does not support variant '{chosen.name}'")
    names = [entry.name for entry in entries]
    unwind_on_sigterm()
    try:
        outcomes = play_games(
            chosen,
            entries,
            key,
            seed,
            games,
            move_ms=move_ms,
            bank_ms=bank_ms,
            retries=retries,
            in_process=in_process,
            memory_mb=memory_mb,
            cpu_seconds=cpu_seconds,
            log_dir=bot_logs or data_dir / "bot-logs",
            data_dir=data_dir,
        )
    except (VariantUnavailableError, ValueError) as error:
        raise fail(str(error)) from None
    names = [
        seat["bot"] for seat in outcomes[-1].log.header["seats"]
    ]  # as the bots named themselves
    for g, outcome in enumerate(outcomes):
        print_outcome(
            outcome, names, f"{chosen.title} — seed {seed + g}", data_dir, chosen.score_labels
        )
        console.print(f"{outcome.decisions} actions in {outcome.seconds:.2f} s")
    last = outcomes[-1]
    if log:
        log.write_text(text_log(chosen.name, names, seed + games - 1, last))
        console.print(f"game log written to {log}")
    if match_log:
        match_log.write_bytes(last.log.to_jsonl())
        console.print(f"match log written to {match_log}")
