"""The ``arena`` command line: the command tree, built from the groups in arena/commands/
(one module each), and the entry point.

Every failure a user can cause or meet ends in one line on stderr (``error: ...``)
and a non-zero status: 2 when what was given cannot be used, 1 when something
failed while running (arena/commands/failures.py). ``--debug`` shows the traceback of
an unexpected error.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Collection
from typing import Annotated, Any

import typer

from arena import deferred_exit
from arena.commands import failures

HELP = "ttr-arena: AI tournaments for the Ticket to Ride family."
# The commands, in the order of `arena --help`: name, where it is (module:attribute), and
# whether it is a group of commands (a Typer) or one command (a function).
COMMANDS: tuple[tuple[str, str, bool], ...] = (
    ("variants", "arena.commands.variants:variants", False),
    ("bots", "arena.commands.bots:app", True),
    ("play", "arena.commands.play:play", False),
    ("bot", "arena.commands.bot:app", True),
    ("replay", "arena.commands.replay:replay_command", False),
    ("tournament", "arena.commands.tournaments:app", True),
    ("results", "arena.commands.results:results", False),
    ("submit", "arena.commands.submit:submit", False),
    ("leaderboard", "arena.commands.leaderboard:leaderboard", False),
    ("site", "arena.commands.site:site", False),
    ("test", "arena.commands.test:test", False),
    ("serve", "arena.commands.serve:serve", False),
    ("view", "arena.commands.serve:view", False),
    ("doctor", "arena.commands.doctor:doctor", False),
    ("host", "arena.commands.host:host", False),
    ("admin", "arena.commands.host:admin_app", True),
    ("store", "arena.commands.store:app", True),
)


def root(
    debug: Annotated[
        bool, typer.Option("--debug", help="show the traceback of an unexpected error")
    ] = False,
) -> None:
    """ttr-arena: AI tournaments for the Ticket to Ride family."""


def build(names: Collection[str] | None = None) -> typer.Typer:
    """The command tree: every command, or only those in ``names``. A command line that
    names its command gets a tree of that one alone: only its module is imported and only
    its options are read (every command's would cost each ``arena`` start a tenth of a
    second of CPU)."""
    tree = typer.Typer(help=HELP, no_args_is_help=True, pretty_exceptions_enable=False)
    tree.callback()(root)
    for name, where, group in COMMANDS:
        if names is not None and name not in names:
            continue
        module, attribute = where.split(":")
        target = getattr(importlib.import_module(module), attribute)
        if group:
            tree.add_typer(target, name=name)
        else:
            tree.command(name)(target)
    return tree


def named(args: list[str]) -> set[str] | None:
    """The one command ``args`` names, if it names an existing one before any option; else
    None (``arena --help``, a misspelt command: the whole tree answers)."""
    if args and args[0] in {name for name, _, _ in COMMANDS}:
        return {args[0]}
    return None


def __getattr__(name: str) -> Any:
    """``arena.cli.app``: the whole command tree, built when asked for."""
    if name == "app":
        return build()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    return failures.run(build(named(args)), args, debug)


if __name__ == "__main__":
    main()
