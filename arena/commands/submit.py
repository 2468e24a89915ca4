"""``arena submit``: a bot validated against the random bot and registered (again: a new
version); with ``--server``, uploaded to a hosted competition and validated there."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.commands.common import (
    DATA_DIR,
    RUNTIME,
    DataDir,
    console,
    counted,
    fail,
    unwind_on_sigterm,
    writing_store,
)
from arena.tournament.names import BadName, check_name


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
