"""``arena bot run``: an installed bot as a process that connects to a referee."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from arena.commands.common import fail
from bots import get_bot

app = typer.Typer(help="Run a bot process.", no_args_is_help=True)


@app.command("run")
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
