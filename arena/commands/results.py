"""``arena results``: the results store exported as CSV or Parquet."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.commands.common import (
    DATA_DIR,
    RUNTIME,
    DataDir,
    console,
    fail,
    reading_store,
    writable,
)


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
