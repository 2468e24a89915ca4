"""``arena tournament run``: run (or resume) a tournament described by a file or by flags;
every finished match is stored as it arrives."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated

import typer

from arena.commands.botargs import bot_entries, check_startable
from arena.commands.common import (
    DATA_DIR,
    RUNTIME,
    BankMs,
    DataDir,
    InProcess,
    LogsDir,
    MoveMs,
    Ray,
    Workers,
    console,
    counted,
    fail,
    unwind_on_sigterm,
    writing_store,
)
from arena.commands.report import print_forfeits, standings_table
from arena.commands.running import run_or_exit
from arena.tournament.spec import DEFAULT_MATCHES_PER_PROCESS, SpecError, TournamentSpec

# Flags that describe a tournament: with a tournament file, the file describes it.
SPEC_FLAGS = ("name", "variant", "players", "bot", "format", "games", "seed", "move_ms", "bank_ms")


def tournament_run(
    ctx: typer.Context,
    spec_file: Annotated[
        Path | None, typer.Argument(help="a tournament TOML file (or describe it with flags)")
    ] = None,
    name: Annotated[
        str | None,
        typer.Option(help="tournament name (resume key)", show_default="VARIANT-FORMAT-SEED"),
    ] = None,
    variant: Annotated[str, typer.Option(help="variant name")] = "usa",
    players: Annotated[
        list[int] | None,
        typer.Option(help="player count(s), repeatable", show_default="4"),
    ] = None,
    bot: Annotated[
        list[str] | None,
        typer.Option(help="a bot, repeatable: registered name\\[@N], plugin, [LABEL=]cmd:..."),
    ] = None,
    format: Annotated[str, typer.Option(help="round-robin, duplicate or ladder")] = "round-robin",
    games: Annotated[int, typer.Option(help="rounds, deals, or ladder matches", min=1)] = 1,
    seed: Annotated[int, typer.Option(help="fixes the schedule and every game")] = 0,
    move_ms: MoveMs = 1000,
    bank_ms: BankMs = 30000,
    workers: Workers = 1,
    ray: Ray = None,
    data_dir: DataDir = DATA_DIR,
    logs_dir: LogsDir = None,
    progress: Annotated[
        bool, typer.Option(help="show a progress bar and live standings (on a terminal)")
    ] = True,
    in_process: InProcess = False,
    matches_per_process: Annotated[
        int | None,
        typer.Option(
            help="matches a warm bot process plays before a fresh one replaces it (1: a new "
            "process every match)",
            min=1,
            show_default=f"the file's, else {DEFAULT_MATCHES_PER_PROCESS}",
        ),
    ] = None,
) -> None:
    """Run (or resume) a tournament; every finished match is stored as it arrives."""
    try:
        if spec_file is not None:
            given = [
                f"--{flag.replace('_', '-')}"
                for flag in SPEC_FLAGS
                if getattr(ctx.get_parameter_source(flag), "name", None) == "COMMANDLINE"
            ]
            if given:
                raise SpecError(
                    f"{spec_file} describes the tournament: drop {', '.join(given)} "
                    "(or edit the file)"
                )
            spec = TournamentSpec.from_toml(spec_file)
        else:
            spec = TournamentSpec.with_clock(
                move_ms,
                bank_ms,
                name=name or f"{variant}-{format}-{seed}",
                variant=variant,
                bots=tuple(bot or ()),
                players=tuple(players or [4]),
                format=format,
                games=games,
                seed=seed,
            )
    except SpecError as error:
        raise fail(str(error)) from None
    if matches_per_process is not None:  # how it runs: the flag wins over the file
        spec = dataclasses.replace(spec, matches_per_process=matches_per_process)
    # Every check that needs no game runs before anything is stored.
    named = [b for b in spec.bots if b != "*"]
    check_startable(spec, named, bot_entries(named, data_dir, check_start=False), in_process)
    unwind_on_sigterm()  # until the run takes it over
    with writing_store(data_dir, check=True) as store:
        done = run_or_exit(
            spec,
            store,
            workers=workers,
            ray=ray,
            logs_dir=logs_dir,
            progress=progress,
            in_process=in_process,
        )
        console.print(standings_table(done.runner))
        print_forfeits(store, spec.name, data_dir)
        console.print(
            f"tournament '{spec.name}': {counted(done.stored, 'match', 'matches')} played now"
        )
        console.print(f"results in {store.path}")
    if done.failures:
        raise fail(
            f"{counted(len(done.failures), 'match', 'matches')} could not be played (arena "
            "faults, not rated): "
            f"see 'arena tournament show {spec.name}'; the same command retries them",
            RUNTIME,
        )
