"""``arena site``: the static HTML site (leaderboards, head-to-head, bot pages, replays)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.commands.common import DATA_DIR, DataDir, console, fail, reading_store


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
