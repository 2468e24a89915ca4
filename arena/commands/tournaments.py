"""``arena tournament list`` and ``arena tournament delete``: what is stored, and
getting rid of a tournament (a broken test run) so the leaderboards forget it."""

from __future__ import annotations

import datetime
import shutil
from typing import Annotated, Any

import typer

from arena.commands.bots import confirm
from arena.commands.common import DATA_DIR, DataDir, console, existing_store, fail, fitted_table
from arena.tournament.names import BadName, check_name
from arena.tournament.schedule import fixed_schedule
from arena.tournament.spec import SpecError, TournamentSpec


def _planned(spec: dict[str, Any]) -> str:
    """How many matches the tournament has in all ('?' if its description no longer loads:
    a variant or plugin uninstalled since)."""
    if spec.get("format") == "ladder":
        return str(spec.get("games", "?"))
    try:
        return str(len(fixed_schedule(TournamentSpec.from_json(spec))))
    except (SpecError, TypeError, KeyError, ValueError):
        return "?"


def list_tournaments(data_dir: DataDir = DATA_DIR) -> None:
    """List the stored tournaments: variant, format, bots, matches stored of planned."""
    store = existing_store(data_dir)
    stored = store.tournaments() if store is not None else []
    if not stored:
        console.print(f"no tournaments stored in {data_dir} yet")
        return
    rows = [
        [
            t["name"],
            t["spec"].get("variant", "?"),
            t["spec"].get("format", "?"),
            str(len(t["spec"].get("bots", []))),
            f"{t['matches']}/{_planned(t['spec'])}",
            "finished" if t["finished_at"] else "unfinished",
            datetime.datetime.fromtimestamp(t["created_at"]).strftime("%Y-%m-%d %H:%M"),
        ]
        for t in stored
    ]
    headers = ("tournament", "variant", "format", "bots", "matches", "state", "created")
    console.print(fitted_table(headers, rows, shrink=0, right=(3, 4)))


def delete_tournament(
    name: Annotated[
        str, typer.Argument(help="the tournament's name (see 'arena tournament list')")
    ],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="do not ask for confirmation")] = False,
    data_dir: DataDir = DATA_DIR,
) -> None:
    """Delete a tournament: its matches, logs and bot logs; the leaderboards are then
    computed without it."""
    try:
        check_name(name, "tournament name")
    except BadName as error:
        raise fail(str(error)) from None
    store = existing_store(data_dir)
    found = [t for t in store.tournaments() if t["name"] == name] if store is not None else []
    if not found:
        raise fail(f"no tournament named '{name}' in {data_dir}; see 'arena tournament list'")
    confirm(f"Delete tournament '{name}' and its {found[0]['matches']} stored matches?", yes)
    count = store.delete_tournament(name)
    store.close()
    shutil.rmtree(data_dir / "bot-logs" / name, ignore_errors=True)
    console.print(
        f"deleted tournament '{name}' ({count} matches); the leaderboards no longer count them"
    )
