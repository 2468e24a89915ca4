"""Running matches for a command (``tournament run``, ``test``): one way to start the run
and one way to end it early (a line, an exit status), whatever the command."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.text import Text

from arena.commands.common import console, errors, fail
from arena.engine.errors import VariantUnavailableError
from arena.escape import escaped
from arena.tournament.store import ResultsStore

if TYPE_CHECKING:  # the executors load when a command runs matches (``arena`` starts fast)
    from arena.tournament.drive import RunError, RunOutcome
    from arena.tournament.spec import TournamentSpec


def stopped(error: RunError) -> typer.Exit:
    """A run that ended early: its one line on stderr, its status (1, or 130/143 on a signal)."""
    from arena.tournament.drive import RunStopped

    if isinstance(error, RunStopped):
        errors.print(Text(escaped(str(error)), style="yellow"), soft_wrap=True)
        return typer.Exit(code=error.exit_code)
    return fail(str(error), error.exit_code)


def run_or_exit(
    spec: TournamentSpec,
    store: ResultsStore,
    *,
    workers: int,
    ray: str | None,
    logs_dir: Path | None,
    progress: bool,
    in_process: bool,
) -> RunOutcome:
    """Run or resume ``spec``; whatever stops it early is a typer.Exit with its line."""
    from arena.tournament.drive import RunError, RunStopped, run_tournament

    try:
        return run_tournament(
            spec,
            store,
            workers=workers,
            ray=ray,
            logs_dir=logs_dir,
            show_progress=progress and console.is_terminal,
            in_process=in_process,
            console=console,
        )
    except RunError as error:
        raise stopped(error) from None
    except KeyboardInterrupt:  # a second Ctrl-C: stopped at once, after cleaning up
        raise stopped(RunStopped("stopped at once; run the same command to resume", 130)) from None
    except (ValueError, KeyError, VariantUnavailableError) as error:
        raise fail(str(error.args[0] if error.args else error)) from None
