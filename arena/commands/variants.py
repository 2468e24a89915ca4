"""``arena variants``: the installed variants, one line each, and whether each can be played."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich import box
from rich.table import Table
from rich.text import Text

from arena.commands.common import console, fail, fitted_table
from arena.variants import all_variants


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
