"""What every command shares: the consoles, the one-line error, the data folder, tables
that fit the terminal.

Errors go to stderr as one line (``error: what is wrong and what to do``) with exit
status 2 for input that cannot be used and 1 for a failure while running.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from arena.escape import escaped
from arena.tournament.lookup import existing_store
from arena.tournament.store import ResultsStore

# No console markup: names, reasons and paths come from users and bots, and a '[x]' in
# them is text (styles are given as Text styles instead).
console = Console(markup=False)
errors = Console(stderr=True, markup=False)
DATA_DIR = Path("arena-data")
USAGE, RUNTIME = 2, 1

DataDir = Annotated[Path, typer.Option(help="the data folder: results store, bots, logs")]
# The options of every command that runs matches (tournament run, test): one wording.
MoveMs = Annotated[int, typer.Option(help="free time per decision (ms)", min=1)]
BankMs = Annotated[int, typer.Option(help="time bank per bot and game (ms)", min=0)]
Workers = Annotated[int, typer.Option(help="local worker processes", min=1)]
Ray = Annotated[
    str | None, typer.Option(help="run on Ray: 'local' starts one, an ADDRESS joins a cluster")
]
LogsDir = Annotated[
    Path | None,
    typer.Option(help="where bots' stdout and stderr go", show_default="DATA_DIR/bot-logs"),
]
InProcess = Annotated[
    bool, typer.Option("--in-process", help="trusted plugin bots called directly, no processes")
]


def unwind_on_sigterm() -> None:
    """SIGTERM unwinds like Ctrl-C (exit status 143), so what a command started is reaped
    and what it half-wrote is removed on the way out, instead of the process just ending."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


def fail(message: str, code: int = USAGE) -> typer.Exit:
    """Print ``error: message`` (one line, never wrapped; what users and bots typed in it
    is shown with its control characters escaped) and return the Exit to raise."""
    errors.print(Text.assemble(("error:", "bold red"), " ", escaped(message)), soft_wrap=True)
    return typer.Exit(code=code)


def warn(message: str) -> None:
    errors.print(Text.assemble(("warning:", "yellow"), " ", escaped(message)), soft_wrap=True)


def writable(path: Path | None, option: str) -> None:
    """Refuse, before playing, an output file that could not be written afterwards."""
    if path is None:
        return
    if path.is_dir():
        raise fail(f"{option} {path}: is a folder; give a file name")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise fail(f"{option} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise fail(f"{option} {path}: the folder {folder} is not writable")


def reading_store(data_dir: Path) -> ResultsStore:
    store = existing_store(data_dir)
    if store is None:
        raise fail(f"no results store in {data_dir}: run a tournament first", RUNTIME)
    return store


@contextlib.contextmanager
def writing_store(data_dir: Path, check: bool = False) -> Iterator[ResultsStore]:
    """The store in ``data_dir``, created if needed (``check``: its integrity checked on
    open). If this command created it and fails before storing anything, the empty store
    goes again: bad input leaves no trace."""
    folder = Path(data_dir)
    new_folder = not folder.exists()
    new_store = not (folder / "results.sqlite").exists()
    store = ResultsStore(folder, check=check)
    try:
        yield store
    except BaseException as error:
        failed = not (isinstance(error, typer.Exit) and error.exit_code == 0)
        if failed and new_store and not store.tournaments() and not store.registered_bots():
            store.close()
            for suffix in ("", "-wal", "-shm"):
                (folder / f"results.sqlite{suffix}").unlink(missing_ok=True)
            if new_folder:
                with contextlib.suppress(OSError):
                    folder.rmdir()  # only if nothing else (logs worth reading) is in it
        raise
    finally:
        store.close()


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """``1 game``, ``2 games``: a count with its noun agreeing (never "1 games")."""
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"


def fitted_table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    shrink: int,
    right: Sequence[int] = (),
    width: int | None = None,
    **options,
) -> Table:
    """A table no wider than the terminal: column ``shrink`` (names) is cut with an
    ellipsis as far as needed, every other column (numbers) keeps its full width."""
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True, **options)
    for i, header in enumerate(headers):
        table.add_column(header, justify="right" if i in right else "left", no_wrap=True)
    for row in rows:
        table.add_row(*row)
    return shrink_to_fit(table, shrink, width)


def shrink_to_fit(table: Table, shrink: int, width: int | None = None) -> Table:
    """Narrow column ``shrink`` (names) as far as the terminal's width needs, its names
    folded onto more lines rather than cut (a name is what a user types next, whole);
    every other column keeps its full width (rich would wrap or cut numbers instead)."""
    width = width or console.width
    column = table.columns[shrink]
    column.no_wrap, column.overflow, column.max_width = True, "fold", None
    lines = console.render_lines(table, console.options.update_width(10_000), pad=False)
    excess = max(Segment.get_line_length(line) for line in lines) - width
    if excess > 0:
        natural = max([cell_len(str(column.header)), *map(cell_len, map(str, column.cells))])
        column.no_wrap = False
        column.max_width = max(8, natural - excess)
    return table
