"""The ``arena`` command line.

Every failure a user can cause or meet ends in one line on stderr (``error: ...``)
and a non-zero status: 2 when what was given cannot be used, 1 when something
failed while running. ``--debug`` shows the traceback of an unexpected error.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich import box
from rich.table import Table
from rich.text import Text

from arena.commands import bots as bots_commands
from arena.commands import host as host_commands
from arena.commands import store as store_commands
from arena.commands import tournaments as tournament_commands
from arena.commands.botargs import bot_entries, check_startable
from arena.commands.common import (
    DATA_DIR,
    RUNTIME,
    USAGE,
    BankMs,
    DataDir,
    InProcess,
    LogsDir,
    MoveMs,
    Ray,
    Workers,
    console,
    counted,
    errors,
    existing_store,
    fail,
    fitted_table,
    reading_store,
    shrink_to_fit,
    unwind_on_sigterm,
    writable,
    writing_store,
)
from arena.commands.doctor import doctor
from arena.commands.report import print_faults, print_forfeits, standings_table
from arena.commands.running import run_or_exit
from arena.commands.serve import serve, view
from arena.commands.test import test as test_command
from arena.engine.errors import VariantUnavailableError
from arena.engine.result import GameResult, ScoreLabel
from arena.referee.faults import DEFAULT_MATCHES_PER_PROCESS, TimeControl
from arena.referee.gamelog import GameLog, LogError, replay
from arena.referee.keys import MatchKey, play_seed
from arena.referee.matchlog import MatchLog
from arena.referee.matchlog import verify as verify_match
from arena.tournament.compact import unpack_log
from arena.tournament.names import BadName, check_name
from arena.tournament.ratings import check_model
from arena.tournament.spec import SpecError, TournamentSpec
from arena.tournament.store import StoreError
from arena.variants import all_variants, get_variant
from bots import get_bot

MODEL_TITLES = {
    "trueskill": "TrueSkill",
    "trueskill-static": "TrueSkill τ=0",
    "bradley-terry": "Bradley–Terry, Elo",
}

app = typer.Typer(
    help="ttr-arena: AI tournaments for the Ticket to Ride family.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


@app.callback()
def root(
    debug: Annotated[
        bool, typer.Option("--debug", help="show the traceback of an unexpected error")
    ] = False,
) -> None:
    """ttr-arena: AI tournaments for the Ticket to Ride family."""


@app.command()
def variants(
    long: Annotated[bool, typer.Option("--long", help="descriptions and missing data")] = False,
    format: Annotated[str, typer.Option(help="table or json")] = "table",
) -> None:
    """List the installed variants (one line each), whether each can be played."""
    if format not in ("table", "json"):
        raise fail("--format is table or json")
    rows: list[dict[str, Any]] = [
        {
            "name": name,
            "title": variant.title,
            "players": f"{variant.min_players}-{variant.max_players}",
            "status": variant.status,
            "description": variant.description,
            "missing": list(variant.missing),
        }
        for name, variant in all_variants().items()
    ]
    if format == "json":
        print(json.dumps(rows, indent=1, ensure_ascii=False))
        return
    status = {True: "playable", False: "incomplete data"}
    if not long:
        lines = [[r["name"], r["players"], status[not r["missing"]], r["title"]] for r in rows]
        console.print(fitted_table(("variant", "players", "status", "title"), lines, shrink=3))
        return
    table = Table(title="Variants", box=box.SIMPLE_HEAD)
    for column in ("name", "title", "players", "status", "notes"):
        table.add_column(column, no_wrap=column in ("name", "players", "status"))
    for row in rows:
        playable = not row["missing"]
        notes = row["description"] if playable else "missing: " + "; ".join(row["missing"])
        shown = Text(status[playable], style="green" if playable else "yellow")
        table.add_row(row["name"], row["title"], row["players"], shown, notes)
    console.print(table)


app.add_typer(bots_commands.app, name="bots")


def result_table(
    result: GameResult,
    seats: list[str],
    title: str,
    ranks: list[int] | None = None,
    *,
    labels: dict[str, ScoreLabel] | None = None,
) -> Table:
    """The result as a table, its columns headed by the variant's score ``labels``
    (``variant.score_labels``); ``ranks`` overrides the engine's ranks (after forfeits)."""
    ranks = list(ranks) if ranks is not None else list(result.ranks)
    has_path = "longest_path" in result.breakdown[0]
    labels = labels or {}
    heading = {c: labels[c].heading if c in labels else c for c in result.categories}
    legend = [
        f"{heading[c]} {labels[c].legend}"
        for c in result.categories
        if c in labels and heading[c] != c
    ]
    legend.append("done tickets completed/failed")
    if has_path:
        legend.append("path longest path")
    table = Table(title=title, box=box.SIMPLE_HEAD, caption=", ".join(legend), pad_edge=False)
    table.add_column("#", justify="right")
    table.add_column("seat", justify="right")
    table.add_column("bot")  # a long name is cut with an ellipsis (shrink_to_fit)
    for category in result.categories:
        table.add_column(heading[category], justify="right")
    table.add_column("total", justify="right", style="bold")
    table.add_column("done", justify="right")
    if has_path:
        table.add_column("path", justify="right")
    for seat in sorted(range(len(seats)), key=lambda s: (ranks[s], s)):
        row = result.breakdown[seat]
        table.add_row(
            str(ranks[seat]),
            str(seat),
            seats[seat],
            *(str(row[c]) for c in result.categories),
            str(row["total"]),
            f"{row.get('completed_tickets', 0)}/{row.get('failed_tickets', 0)}",
            *([str(row["longest_path"])] if has_path else []),
        )
    return shrink_to_fit(table, 2)


def _print_outcome(
    outcome, names: list[str], title: str, data_dir: Path, labels: dict[str, ScoreLabel]
) -> None:
    console.print(result_table(outcome.result, names, title, outcome.ranks, labels=labels))
    print_faults(outcome, names, data_dir)


@app.command()
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
    key = MatchKey.fresh("play") if seed is None else MatchKey.for_seed("play", seed)
    if seed is None:
        seed = play_seed(key)
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
    tc = TimeControl(move_ms=move_ms, bank_ms=bank_ms, retries=retries)
    # The referee's modules (ZeroMQ, processes) load here, not when ``arena`` starts.
    from arena.referee.launch import ProcessMatch, in_process_referee
    from arena.referee.process import ProcessLimits
    from arena.tournament.bots import bot_limits

    try:
        if in_process:
            referee = in_process_referee(chosen, entries, tc, key)
            outcomes = [referee.play(seed + g) for g in range(games)]
        else:
            limits = bot_limits(
                data_dir, ProcessLimits(memory_mb=memory_mb, cpu_seconds=cpu_seconds)
            )
            logs = bot_logs or data_dir / "bot-logs"
            with ProcessMatch(
                chosen, entries, tc, limits, log_dir=logs, key=key, logs_relative_to=data_dir
            ) as referee:
                outcomes = [referee.play(seed + g) for g in range(games)]
    except (VariantUnavailableError, ValueError) as error:
        raise fail(str(error)) from None
    names = [
        seat["bot"] for seat in outcomes[-1].log.header["seats"]
    ]  # as the bots named themselves
    for g, outcome in enumerate(outcomes):
        _print_outcome(
            outcome, names, f"{chosen.title} — seed {seed + g}", data_dir, chosen.score_labels
        )
        console.print(f"{outcome.decisions} actions in {outcome.seconds:.2f} s")
    last = outcomes[-1]
    if log:
        text_log = GameLog(chosen.name, len(names), seed + games - 1, names)
        text_log.actions = [line["action"] for line in last.log.actions]
        text_log.record_result(last.result)
        log.write_text(text_log.to_text())
        console.print(f"game log written to {log}")
    if match_log:
        match_log.write_bytes(last.log.to_jsonl())
        console.print(f"match log written to {match_log}")


bot_app = typer.Typer(help="Run a bot process.", no_args_is_help=True)
app.add_typer(bot_app, name="bot")


@bot_app.command("run")
def bot_run(
    name: Annotated[str, typer.Argument(help="an installed bot plugin")],
    connect: Annotated[
        str | None, typer.Option(help="the referee's endpoint (default: $ARENA_CONNECT)")
    ] = None,
    token: Annotated[
        str | None, typer.Option(help="this seat's one-time token (default: $ARENA_TOKEN)")
    ] = None,
) -> None:
    """Run an installed bot as a process that connects to a referee."""
    endpoint = connect or os.environ.get("ARENA_CONNECT")
    secret = token or os.environ.get("ARENA_TOKEN")
    if not endpoint or not secret:
        raise fail("give --connect and --token (or ARENA_CONNECT and ARENA_TOKEN)")
    try:
        spec = get_bot(name)
    except KeyError as error:
        raise fail(str(error.args[0])) from None
    bot = spec.factory(0)
    from bots.runner import run_bot  # ZeroMQ: only when a bot runs

    raise typer.Exit(run_bot(bot, endpoint, secret, spec.name, spec.version, by_hand=True))


@app.command(name="replay")
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
        data = unpack_log(data)  # a log as the results store keeps it (compressed) reads too
        if data.lstrip().startswith(b"{"):
            match = MatchLog.from_jsonl(data)
            state = verify_match(match)
            names = [seat["bot"] for seat in match.header["seats"]]
            count = len(match.actions)
            ranks = match.result["ranks"] if match.result else None
        else:
            game_log = GameLog.from_text(data.decode())
            state = replay(game_log)
            names, count, ranks = game_log.seats, len(game_log.actions), None
            if game_log.scores is None:
                raise LogError("the log has no result line to verify")
    except (OSError, ValueError, KeyError, UnicodeDecodeError) as error:
        raise fail(str(error)) from None
    if not state.is_over:
        raise fail(f"the log replays {count} actions but the game is not over")
    labels = state.variant.score_labels
    console.print(result_table(state.result(), names, f"replay of {path}", ranks, labels=labels))
    console.print(f"replayed {count} actions: verified against the recorded result")


tournament_app = typer.Typer(help="Run, list and delete tournaments.", no_args_is_help=True)
app.add_typer(tournament_app, name="tournament")
tournament_app.command("list")(tournament_commands.list_tournaments)
tournament_app.command("show")(tournament_commands.show_tournament)
tournament_app.command("delete")(tournament_commands.delete_tournament)
tournament_app.command("bundle")(tournament_commands.bundle_match)
# Flags that describe a tournament: with a tournament file, the file describes it.
SPEC_FLAGS = ("name", "variant", "players", "bot", "format", "games", "seed", "move_ms", "bank_ms")


@tournament_app.command("run")
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
            spec = TournamentSpec(
                name=name or f"{variant}-{format}-{seed}",
                variant=variant,
                bots=tuple(bot or ()),
                players=tuple(players or [4]),
                format=format,
                games=games,
                seed=seed,
                time_control=TimeControl(move_ms=move_ms, bank_ms=bank_ms),
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


@app.command()
def results(
    out: Annotated[Path, typer.Option(help="file to write")],
    format: Annotated[str, typer.Option(help="csv or parquet")] = "csv",
    table: Annotated[str, typer.Option(help="seats (one row per bot per match) or matches")] = (
        "seats"
    ),
    tournament: Annotated[str | None, typer.Option(help="only this tournament")] = None,
    data_dir: DataDir = DATA_DIR,
) -> None:
    """Export results from the store as CSV or Parquet."""
    if format not in ("csv", "parquet") or table not in ("seats", "matches"):
        raise fail("--format is csv or parquet; --table is seats or matches")
    writable(out, "--out")
    if format == "parquet":
        try:
            import pyarrow  # noqa: F401 - pandas writes Parquet through it
        except ImportError:
            raise fail(
                "Parquet export needs pyarrow: pip install 'ttr-arena[parquet]' (or use CSV)",
                RUNTIME,
            ) from None
    store = reading_store(data_dir)
    if tournament is not None and store.tournament_info(tournament) is None:
        raise fail(f"no tournament named '{tournament}' (see 'arena tournament list')")
    from arena.tournament.frames import matches_frame, seats_frame  # pandas: only when needed

    frame = (seats_frame if table == "seats" else matches_frame)(store, tournament)
    if format == "csv":
        frame.to_csv(out, index=False)
    else:
        frame.to_parquet(out, index=False)
    console.print(f"{len(frame)} rows written to {out}")


@app.command()
def submit(
    name: Annotated[str, typer.Argument(help="the name to register the bot under")],
    plugin: Annotated[str | None, typer.Option(help="an installed bot plugin")] = None,
    file: Annotated[Path | None, typer.Option(help="a Python file or folder (bot.py)")] = None,
    cmd: Annotated[str | None, typer.Option(help="any command line speaking the protocol")] = None,
    variant: Annotated[
        list[str] | None,
        typer.Option(
            help="variants it plays, repeatable; '*': every playable board variant, 'any': "
            "the Card Game too",
            show_default="usa (a plugin: the variants it declares)",
        ),
    ] = None,
    games: Annotated[int, typer.Option(help="validation games per variant", min=1)] = 2,
    data_dir: DataDir = DATA_DIR,
    server: Annotated[
        str | None, typer.Option(help="a hosted competition's URL: upload --file there")
    ] = None,
    token: Annotated[
        str | None,
        typer.Option(
            help="your API token for --server (its account page makes one: scope submit, and "
            "read to follow the validation)",
            envvar="ARENA_TOKEN",
        ),
    ] = None,
) -> None:
    """Validate a bot against the random bot and register it (again: a new version).

    The validation games run exactly as a tournament will: the same sandbox, the
    data folder protected. Names: letters, digits, '-', '_', '.'. With --server, the
    bot is uploaded to a hosted competition and validated there."""
    if server is not None:
        submit_to_server(name, file, server, token, plugin or cmd)
        return
    try:
        check_name(name)  # before the data folder is touched
    except BadName as error:
        raise fail(str(error)) from None
    unwind_on_sigterm()  # a stopped submit keeps no copy of the bot
    from arena.tournament.submit import SubmissionRejected
    from arena.tournament.submit import submit as submit_bot

    with writing_store(data_dir) as store:
        try:
            done = submit_bot(
                store, name, plugin=plugin, path=file, command=cmd, variants=variant, games=games
            )
        except SubmissionRejected as error:
            raise fail(f"rejected: {error}") from None
        except (ValueError, KeyError) as error:
            raise fail(str(error.args[0] if error.args else error)) from None
    console.print(
        f"registered {done.name}@{done.version} ({done.kind}) for {', '.join(done.variants)} "
        f"after {counted(done.validation_games, 'validation game')} against random"
    )
    console.print(
        "validation checks that it plays without a forfeit, not that it plays well: try it "
        f"with 'arena play --bot {done.name} --bot random'"
    )


def submit_to_server(
    name: str, file: Path | None, server: str, token: str | None, other: str | None
) -> None:
    """``arena submit --server``: upload, wait for validation, one line either way."""
    from arena.server.client import ClientError, submit_remote

    if file is None or other is not None:
        raise fail("--server uploads a --file (a .py, a folder with bot.py, or an archive)")
    if not token:
        raise fail("--server needs --token (or ARENA_TOKEN): make one on your account page")
    try:
        status = submit_remote(server, token, name, file)
    except ClientError as error:
        raise fail(str(error), RUNTIME) from None
    if status["status"] != "ok":
        raise fail(f"rejected: {status.get('reason') or status['status']}")
    console.print(f"registered {status['label']} on {server} after validation")


@app.command()
def leaderboard(
    variant: Annotated[str, typer.Option(help="variant name")] = "usa",
    players: Annotated[int | None, typer.Option(help="only games with this many players")] = None,
    format: Annotated[str, typer.Option(help="table, csv, json or md")] = "table",
    out: Annotated[
        Path | None, typer.Option(help="write here instead of the terminal (csv, json, md)")
    ] = None,
    rating: Annotated[
        str, typer.Option(help="rating model: trueskill, trueskill-static or bradley-terry")
    ] = "trueskill",
    include_tests: Annotated[
        bool, typer.Option("--include-tests", help="count the games of 'arena test' runs too")
    ] = False,
    data_dir: DataDir = DATA_DIR,
) -> None:
    """The TrueSkill leaderboard of a variant, ranked by mu - 3 sigma: all player counts, then
    each count rated on its own (as a table; exports give one board, --players picks it).
    --rating picks another model (docs/RATINGS.md: how well each predicts). Games of
    'arena test' runs count only with --include-tests; a person's games never count."""
    if format not in ("table", "csv", "json", "md"):
        raise fail("--format is table, csv, json or md")
    if out is not None and format == "table":
        raise fail("--out writes csv, json or md: add --format csv (or json, md)")
    writable(out, "--out")
    try:
        chosen = get_variant(variant)
    except KeyError as error:
        raise fail(str(error.args[0])) from None
    if players is not None and not chosen.min_players <= players <= chosen.max_players:
        raise fail(
            f"{chosen.name} is played by {chosen.min_players}-{chosen.max_players} players, "
            f"not {players}"
        )
    try:
        check_model(rating)
    except ValueError as error:
        raise fail(str(error)) from None
    from leaderboards.checkpoints import current_standings  # only when needed
    from leaderboards.standings import Standings

    hosted = _hosted_boards(data_dir, chosen.name, players, rating)
    if hosted is not None:
        _print_hosted(hosted, chosen.name, format, out)
        return
    store = existing_store(data_dir)
    standings = (
        Standings(chosen.name, rating)
        if store is None
        else current_standings(store, chosen.name, rating, include_tests)
    )
    boards = standings.boards(players)
    if format == "table":
        if not boards[None].rows():
            console.print(f"no stored matches of '{chosen.name}' yet")
            return
        for count, board in boards.items():
            if count is None and (players is not None or len(boards) == 2):
                continue  # one count only: its own board is the whole board
            title = "all player counts" if count is None else f"{count} players"
            rows = [_leaderboard_cells(row) for row in board.rows()]
            console.print(
                fitted_table(
                    LEADERBOARD_HEADERS,
                    rows,
                    shrink=1,
                    right=(0, *range(2, 10)),
                    title=f"{chosen.name} leaderboard, {title} ({MODEL_TITLES[rating]}, μ − 3σ)",
                    caption="score: mean score · rank: mean rank · ff: forfeits",
                )
            )
        return
    from leaderboards.tables import leaderboard_frame  # pandas: only for exports

    frame = leaderboard_frame(boards[None])
    if not frame.empty:
        frame["last_played"] = frame["last_played"].dt.strftime("%Y-%m-%d %H:%M:%S")
    write_frame(frame, format, out)


def write_frame(frame, format: str, out: Path | None) -> None:
    """A leaderboard's table as CSV, JSON or Markdown, to ``out`` or to stdout."""
    text = {
        "csv": lambda: frame.to_csv(index=False),
        "json": lambda: frame.to_json(orient="records", indent=1),
        "md": lambda: frame.to_markdown(index=False, floatfmt=".2f") + "\n",
    }[format]()
    if out:
        out.write_text(text)
        console.print(f"leaderboard written to {out}")
    else:
        print(text, end="")


LEADERBOARD_HEADERS = ("#", "bot", "rating", "μ", "σ", "games", "win%", "score", "rank", "ff")


def _leaderboard_cells(row: dict) -> list[str]:
    return [
        ("=" if row.get("tied") else "") + str(row["rank"]),
        row["bot"],
        f"{row['rating']:.2f}",
        f"{row['mu']:.2f}",
        f"{row['sigma']:.2f}",
        str(row["games"]),
        f"{100 * row['win_rate']:.0f}",
        f"{row['mean_score']:.1f}",
        f"{row['mean_rank']:.2f}",
        str(row["forfeits"]),
    ]


def _hosted_boards(data_dir: Path, variant: str, players: int | None, rating: str):
    """A hosted competition's boards (``arena host``'s data folder): its ladders and finals
    apart, as its pages show them; None for any other data folder."""
    from arena.server.accounts import FILE_NAME, Accounts
    from arena.server.export import described, hosted_boards

    if not all((Path(data_dir) / name).is_file() for name in (FILE_NAME, "results.sqlite")):
        return None
    accounts = Accounts(data_dir)
    what = described(accounts)
    if what is None:
        return None
    if rating != "trueskill":
        raise fail("a hosted competition's boards are rated by trueskill, as on its pages")
    from arena.tournament.store import ResultsStore

    with ResultsStore.reader(data_dir) as store:
        return hosted_boards(store, accounts, what, variant, players)


def _print_hosted(boards: list, variant: str, format: str, out: Path | None) -> None:
    """Each ladder and final of a hosted competition as its own table (or rows with their
    board, for csv, json and md): voided matches left out, final and ladder never mixed."""
    if format == "table":
        if not any(rows for _, rows in boards):
            console.print(f"no stored matches of '{variant}' yet")
        for title, rows in boards:
            if rows:
                console.print(
                    fitted_table(
                        LEADERBOARD_HEADERS, [_leaderboard_cells(r) for r in rows], shrink=1,
                        right=(0, *range(2, 10)), title=f"{title} (TrueSkill, μ − 3σ)",
                        caption="= tied: within the noise · ff: forfeits",
                    )
                )  # fmt: skip
        return
    import pandas as pd

    frame = pd.DataFrame(
        [{"board": title, **row} for title, rows in boards for row in rows],
        columns=["board", "rank", "tied", "bot", "rating", "mu", "sigma", "games", "wins",
                 "win_rate", "mean_score", "mean_rank", "forfeits"],
    )  # fmt: skip
    write_frame(frame, format, out)


@app.command()
def site(
    out: Annotated[Path, typer.Argument(help="folder to write the site into")] = Path("site"),
    max_replays: Annotated[
        int | None,
        typer.Option(help="replay pages for only the newest N matches per variant", min=0),
    ] = None,
    include_tests: Annotated[
        bool, typer.Option("--include-tests", help="count the games of 'arena test' runs too")
    ] = False,
    data_dir: DataDir = DATA_DIR,
) -> None:
    """Write the static HTML site: leaderboards, head-to-head, bot pages, replays. Games of
    'arena test' runs count only with --include-tests; a person's games never count."""
    from leaderboards.site import build_site

    store = reading_store(data_dir)
    try:
        index = build_site(store, out, max_replays, include_tests)
    except ValueError as error:
        raise fail(str(error)) from None
    console.print(f"site written: {index.resolve()}")


app.command("test")(test_command)
app.command()(serve)
app.command()(view)
app.command()(doctor)
app.command()(host_commands.host)
app.add_typer(host_commands.admin_app, name="admin")
app.add_typer(store_commands.app, name="store")


def main(argv: list[str] | None = None) -> None:
    """Console entry point: one-line errors, ``--debug`` for tracebacks; ``--ray`` with
    no address means a local Ray."""
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args or os.environ.get("ARENA_DEBUG") == "1"
    args = [arg for arg in args if arg != "--debug"]
    for i, arg in enumerate(args):
        if arg == "--ray" and (i + 1 == len(args) or args[i + 1].startswith("-")):
            args.insert(i + 1, "local")
            break
    sys.exit(run(args, debug))


def run(args: list[str], debug: bool = False) -> int:
    """Run the command line ``args``; returns the exit status."""
    try:
        status = app(args, prog_name="arena", standalone_mode=False)
    except typer.TyperException as error:  # a usage error found by the parser
        where = getattr(getattr(error, "ctx", None), "command_path", "arena")
        fail(f"{error.format_message()} (see '{where} --help')", error.exit_code)
        return error.exit_code
    except typer.Abort:
        errors.print("aborted")
        return RUNTIME
    except KeyboardInterrupt:
        errors.print("interrupted")
        return 130
    except (SpecError, BadName) as error:
        fail(str(error))
        return USAGE
    except StoreError as error:  # a damaged, full or read-only store: says what to do
        if debug:
            raise
        fail(str(error), RUNTIME)
        return RUNTIME
    except sqlite3.Error as error:
        if debug:
            raise
        fail(f"the results store cannot be used: {error}", RUNTIME)
        return RUNTIME
    except OSError as error:
        if debug:
            raise
        fail(f"{error.strerror or error}: {error.filename or ''}".rstrip(": "), RUNTIME)
        return RUNTIME
    except Exception as error:
        if debug:
            raise
        fail(
            f"unexpected {type(error).__name__}: {error} (run again with --debug for the "
            "traceback, and please report it)",
            RUNTIME,
        )
        return RUNTIME
    return status if isinstance(status, int) else 0


if __name__ == "__main__":
    main()
