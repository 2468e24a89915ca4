"""``arena bots``: the bots there are to play (installed plugins and registered
submissions), one line each, and ``arena bots remove`` to unregister one."""

from __future__ import annotations

import contextlib
import datetime
import json
import shutil
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.padding import Padding
from rich.text import Text

from arena.commands.common import (
    DATA_DIR,
    RUNTIME,
    DataDir,
    console,
    errors,
    existing_store,
    fail,
    fitted_table,
)
from arena.tournament.names import BadName, split_ref
from arena.tournament.store import ResultsStore
from bots import all_bots

app = typer.Typer(
    help="List the bots (installed and registered); remove a registered one.",
    invoke_without_command=True,
)


def _versions(numbers: list[int]) -> str:
    """``@1``, ``@1-@3``, or ``@1,@4`` for the registered versions of one name."""
    if len(numbers) > 1 and numbers == list(range(numbers[0], numbers[-1] + 1)):
        return f"@{numbers[0]}-@{numbers[-1]}"
    return ",".join(f"@{n}" for n in numbers)


def _listing(data_dir: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(installed plugins, registrations) as plain rows."""
    plugins = [
        {
            "name": name,
            "source": "plugin",
            "version": spec.version,
            "variants": list(spec.variants),
            "description": spec.description,
        }
        for name, spec in all_bots().items()
    ]
    store = existing_store(data_dir)
    registered = store.registered_bots() if store is not None else []
    if store is not None:
        store.close()
    return plugins, registered


@app.callback()
def bots(
    ctx: typer.Context,
    long: Annotated[
        bool, typer.Option("--long", help="every version, its source and description")
    ] = False,
    format: Annotated[str, typer.Option(help="table or json")] = "table",
    data_dir: DataDir = DATA_DIR,
) -> None:
    """List installed bot plugins and registered bots, one line each (--long: details)."""
    if ctx.invoked_subcommand is not None:
        return
    if format not in ("table", "json"):
        raise fail("--format is table or json")
    plugins, registered = _listing(data_dir)
    if format == "json":
        for record in registered:
            record["created_at"] = _when(record["created_at"])
        print(json.dumps({"installed": plugins, "registered": registered}, indent=1))
        return
    if long:
        _print_long(plugins, registered)
        return
    rows = [[p["name"], "plugin", p["version"], _variants(p["variants"])] for p in plugins]
    by_name: dict[str, list[dict[str, Any]]] = {}
    for record in registered:
        by_name.setdefault(record["name"], []).append(record)
    for name, records in by_name.items():
        newest = records[-1]
        versions = _versions([r["version"] for r in records])
        rows.append(
            [name, f"registered ({newest['kind']})", versions, ", ".join(newest["variants"])]
        )
    console.print(fitted_table(("bot", "source", "version", "variants"), rows, shrink=3))
    if not registered:
        console.print("no registered bots yet: 'arena submit NAME --file PATH' registers one")


def _variants(names: list[str]) -> str:
    """What a bot plays, in words: ``*`` is every board variant, ``any`` every variant."""
    words = {"*": "every board variant", "any": "every variant"}
    return ", ".join(words.get(name, name) for name in names)


def _when(stamp: float) -> str:
    return datetime.datetime.fromtimestamp(stamp).strftime("%Y-%m-%d %H:%M")


def _print_long(plugins: list[dict], registered: list[dict]) -> None:
    """One block per bot: name, version, source kind and variants on one line, then its
    details indented below, wrapped between words at the terminal's width (a table of
    five columns broke words at 80 columns)."""
    blocks = [
        (p["name"], f"{p['version']}", "plugin", p["variants"], [p["description"]]) for p in plugins
    ]
    blocks += [
        (
            r["name"],
            f"@{r['version']}",
            r["kind"],
            r["variants"],
            [r["target"], f"registered {_when(r['created_at'])}, content {r['content_hash'][:12]}"],
        )
        for r in registered
    ]
    for name, version, source, variants, details in blocks:
        console.print(
            Text.assemble((name, "bold"), f"  {version}  {source}  ·  ", _variants(variants))
        )
        for detail in details:
            console.print(Padding(Text(detail), (0, 0, 0, 4)))


@app.command()
def remove(
    bot: Annotated[str, typer.Argument(help="NAME (every version) or NAME@N (one version)")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="do not ask for confirmation")] = False,
    data_dir: DataDir = DATA_DIR,
) -> None:
    """Unregister a bot (one version or all) and delete its stored code.

    Matches it already played stay in their tournaments (and on the leaderboards);
    'arena tournament delete' removes those."""
    try:
        name, version = split_ref(bot)
    except BadName as error:
        raise fail(str(error)) from None
    store = existing_store(data_dir, write=True)
    records = [] if store is None else store.registered_bots()
    chosen = [r for r in records if r["name"] == name and version in (None, r["version"])]
    if not chosen:
        hint = " (an installed plugin: uninstall its package)" if name in all_bots() else ""
        raise fail(f"no registered bot '{bot}'{hint}; see 'arena bots'")
    assert store is not None
    for running in store.tournaments():
        driver = running.driver
        if driver and not driver.is_gone() and _plays_in(name, running.spec.get("bots", [])):
            raise fail(
                f"tournament '{running.name}' is being run by {driver.describe()} with {name}: "
                "stop it first, then remove the bot",
                RUNTIME,
            )
    labels = ", ".join(f"{r['name']}@{r['version']}" for r in chosen)
    confirm(f"Remove {labels} and its stored code?", yes)
    store.remove_bot(name, version)
    _delete_code(store, chosen)
    store.close()
    console.print(f"removed {labels}")


def _plays_in(name: str, bots: list[str]) -> bool:
    """Whether registered bot ``name`` is among a tournament's bots (by name, any version,
    or in an open pool '*'); command-line bots are never registered ones."""
    for text in bots:
        with contextlib.suppress(BadName):
            if text == "*" or split_ref(text)[0] == name:
                return True
    return False


def confirm(question: str, yes: bool) -> None:
    """Ask on the terminal; without one, only ``--yes`` proceeds."""
    if yes:
        return
    if not sys.stdin.isatty():
        raise fail(f"{question.rstrip('?')}: confirm with --yes (no terminal to ask on)")
    if not typer.confirm(question, default=False):
        errors.print("nothing changed")
        raise typer.Exit(RUNTIME)


def _delete_code(store: ResultsStore, removed: list[dict[str, Any]]) -> None:
    """Delete the stored copies no remaining registration uses (file bots only)."""
    still_used = {r["target"] for r in store.registered_bots() if r["kind"] == "file"}
    root = (store.data_dir / "bots").resolve()
    for record in removed:
        if record["kind"] != "file" or record["target"] in still_used:
            continue
        folder = (store.data_dir / record["target"]).resolve().parent
        if root in folder.parents:  # never outside the data folder's bots/
            shutil.rmtree(folder, ignore_errors=True)
            with contextlib.suppress(OSError):
                folder.parent.rmdir()  # the name's folder, once no version is left
