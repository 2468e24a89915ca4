"""The ``arena`` command line: the command tree, built from the groups in arena/commands/
(one module each), and the entry point.

Every failure a user can cause or meet ends in one line on stderr (``error: ...``)
and a non-zero status: 2 when what was given cannot be used, 1 when something
failed while running (arena/commands/failures.py). ``--debug`` shows the traceback of
an unexpected error.
"""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from arena import deferred_exit
from arena.commands import bot, bots, failures, host, store, tournaments
from arena.commands.doctor import doctor
from arena.commands.leaderboard import leaderboard
from arena.commands.play import play
from arena.commands.replay import replay_command
from arena.commands.results import results
from arena.commands.serve import serve, view
from arena.commands.site import site
from arena.commands.submit import submit
from arena.commands.test import test
from arena.commands.variants import variants

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


# The order of the commands is the order of `arena --help`.
app.command()(variants)
app.add_typer(bots.app, name="bots")
app.command()(play)
app.add_typer(bot.app, name="bot")
app.command(name="replay")(replay_command)
app.add_typer(tournaments.app, name="tournament")
app.command()(results)
app.command()(submit)
app.command()(leaderboard)
app.command()(site)
app.command("test")(test)
app.command()(serve)
app.command()(view)
app.command()(doctor)
app.command()(host.host)
app.add_typer(host.admin_app, name="admin")
app.add_typer(store.app, name="store")


def main(argv: list[str] | None = None) -> None:
    """Console entry point: one-line errors, ``--debug`` for tracebacks; ``--ray`` with
    no address means a local Ray."""
    deferred_exit.install()  # a Ctrl-C or SIGTERM that lands in an at-fork hook still stops it
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
    return failures.run(app, args, debug)


if __name__ == "__main__":
    main()
