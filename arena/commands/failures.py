"""The exit of every ``arena`` command: a failure a user can cause or meet ends in one line
on stderr (``error: ...``) and a non-zero status: 2 when what was given cannot be used, 1
when something failed while running, 130 when interrupted."""

from __future__ import annotations

import sqlite3

import typer

from arena.commands.common import RUNTIME, USAGE, errors, fail
from arena.tournament.names import BadName
from arena.tournament.spec import SpecError
from arena.tournament.store import StoreError


def run(app: typer.Typer, args: list[str], debug: bool = False) -> int:
    """Run the command line ``args`` on ``app``; returns the exit status: every failure ends
    in one line on stderr (``--debug``: the traceback of an unexpected one)."""
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
