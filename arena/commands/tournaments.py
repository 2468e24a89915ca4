"""``arena tournament list``, ``show``, ``delete`` and ``bundle``: what is stored, how far a
tournament got (who runs it, which matches the arena could not play), getting rid of a
tournament (a broken test run) so the leaderboards forget it, and a match's bundle (to
reproduce it: ``arena replay --reproduce``)."""

from __future__ import annotations

import datetime
import shutil
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.commands.bots import confirm
from arena.commands.common import (
    DATA_DIR,
    RUNTIME,
    DataDir,
    console,
    counted,
    existing_store,
    fail,
    fitted_table,
    reading_store,
    writable,
)
from arena.commands.tournament_run import tournament_run
from arena.escape import escaped
from arena.tournament.names import BadName, check_name
from arena.tournament.spec import SpecError, TournamentSpec
from arena.tournament.store import TournamentBusy, TournamentInfo
from arena.tournament.views import kind_of


def _planned(spec: dict[str, Any]) -> str:
    """How many matches the tournament has in all ('?' if its description no longer loads:
    a variant or plugin uninstalled since)."""
    if spec.get("format") in ("ladder", "sprt"):  # a test: at most this many
        return str(spec.get("games", "?"))
    try:
        return str(TournamentSpec.from_json(spec).planned_matches())
    except (SpecError, TypeError, KeyError, ValueError):
        return "?"


def _matches(info: TournamentInfo) -> str:
    """Matches stored of planned; a hosted competition's ladder (it ends at the deadline,
    not at a count): the matches stored alone, so the names keep the width."""
    from arena.server.ladder import ENDLESS

    if info.spec.get("format") == "ladder" and info.spec.get("games") == ENDLESS:
        return str(info.played)
    return f"{info.played}/{_planned(info.spec)}"


def _state(info: TournamentInfo) -> str:
    if info.driver is not None and not info.driver.is_gone():
        return "running"
    if info.failed:
        return f"{info.failed} failed"
    return "finished" if info.finished_at else "unfinished"


def _when(stamp: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(stamp)) if stamp else "-"


def list_tournaments(data_dir: DataDir = DATA_DIR) -> None:
    """List the stored tournaments: variant, format, bots, matches stored of planned."""
    store = existing_store(data_dir)
    everything = store.tournaments() if store is not None else []
    # A person's games (arena play --human, /play) are stored like a tournament's, but are
    # none: said apart, as what they are.
    people = [t for t in everything if kind_of(t.spec) == "person"]
    stored = [t for t in everything if kind_of(t.spec) != "person"]
    if not stored:
        console.print(f"no tournaments stored in {data_dir} yet")
    else:
        list_table(stored)
    for t in people:
        console.print(
            f"{t.name}: {counted(t.played, 'game')} played by a person ('arena play --human'),"
            " not on the leaderboards",
            soft_wrap=True,
        )


def list_table(stored: list[TournamentInfo]) -> None:
    rows = [
        [
            t.name,
            t.spec.get("variant", "?"),
            t.spec.get("format", "?"),
            str(len(t.spec.get("bots", []))),
            _matches(t),
            _state(t),
            datetime.datetime.fromtimestamp(t.created_at).strftime("%Y-%m-%d %H:%M"),
        ]
        for t in stored
    ]
    # "name", not "tournament": at 80 columns every other column (counts, dates) stays whole.
    headers = ("name", "variant", "format", "bots", "matches", "state", "created")
    tests = any(kind_of(t.spec) == "test" for t in stored)
    caption = "sprt: a test ('arena test'), not on the leaderboards" if tests else None
    console.print(fitted_table(headers, rows, shrink=0, right=(3, 4), caption=caption))


def unambiguous(given: str, names: list[str], data_dir: Path) -> str:
    """The tournament named ``given``, or the one name that starts with it (a test's long
    generated name need not be typed whole); else one line saying what there is."""
    if given in names:
        return given
    matching = sorted(name for name in names if name.startswith(given))
    if len(matching) == 1:
        return matching[0]
    if matching:
        shown = ", ".join(matching[:5]) + (", ..." if len(matching) > 5 else "")
        raise fail(f"'{given}' starts {len(matching)} tournaments' names ({shown}): give more")
    raise fail(f"no tournament named '{given}' in {data_dir}; see 'arena tournament list'")


def delete_tournament(
    name: Annotated[
        str,
        typer.Argument(
            help="the tournament's name, or a start of it that only one name has "
            "(see 'arena tournament list')"
        ),
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
    store = existing_store(data_dir, write=True)
    if store is None:
        raise fail(f"no tournament named '{name}' in {data_dir}; see 'arena tournament list'")
    name = unambiguous(name, [t.name for t in store.tournaments()], data_dir)
    found = store.tournament_info(name)
    assert found is not None
    confirm(f"Delete tournament '{name}' and its {found.played} stored matches?", yes)
    try:
        count = store.delete_tournament(name)
    except TournamentBusy as error:
        raise fail(str(error), RUNTIME) from None
    finally:
        store.close()
    from arena.tournament.matchrun import tournament_folder  # the referee's: only when needed

    shutil.rmtree(data_dir / "bot-logs" / tournament_folder(name), ignore_errors=True)
    console.print(
        f"deleted tournament '{name}' ({counted(count, 'match', 'matches')}); the leaderboards "
        "no longer count them"
    )


def show_tournament(
    name: Annotated[
        str,
        typer.Argument(
            help="the tournament's name, or a start of it that only one name has "
            "(see 'arena tournament list')"
        ),
    ],
    data_dir: DataDir = DATA_DIR,
) -> None:
    """A tournament's description, progress, driver and the matches the arena could not play."""
    store = existing_store(data_dir)
    try:
        info = store.tournament_info(name) if store is not None else None
        failures = store.failures(info.id) if store is not None and info is not None else []
    finally:
        if store is not None:
            store.close()
    if info is None:
        raise fail(f"no tournament named '{name}' in {data_dir}; see 'arena tournament list'")
    spec = info.spec
    if kind_of(spec) == "person":
        console.print(
            f"{info.name}: {counted(info.played, 'game')} played by a person ('arena play "
            "--human'), not a tournament; not on the leaderboards",
            soft_wrap=True,
        )
        return
    players = "/".join(str(p) for p in spec.get("players", []))
    console.print(
        f"{info.name}: {spec.get('format')} of {spec.get('variant')}, {players} players, "
        f"{counted(spec.get('games', 0), 'game')}, seed {spec.get('seed')}"
    )
    console.print(f"bots: {escaped(', '.join(spec.get('bots', [])))}")
    if isinstance(test := spec.get("sprt"), dict):  # arena test: NEW, BASE, opponents
        console.print(
            f"test: H0 {test.get('elo0')} Elo, H1 {test.get('elo1')} Elo, alpha "
            f"{test.get('alpha')}, beta {test.get('beta')}; at most {spec.get('games')} games",
        )
    state = "finished " + _when(info.finished_at) if info.finished_at else "not finished"
    if info.driver is not None and info.driver.is_gone():
        state = f"interrupted ({info.driver.describe()} is gone): the same command resumes it"
    elif info.driver is not None:
        state = f"being run by {info.driver.describe()}"
    console.print(
        f"created {_when(info.created_at)}; {info.played} of {info.planned} planned matches "
        f"played, {info.failed} failed"
    )
    console.print(state)  # a line of its own: the driver's host may be long
    if failures:
        console.print("failed matches (arena faults: not rated; running it again retries them):")
    for failure in failures:
        console.print(
            f"  match {failure.idx} ({', '.join(failure.bots)}), {_when(failure.failed_at)}: "
            f"{failure.error}"
        )


def bundle_match(
    name: Annotated[
        str, typer.Argument(help="the tournament's name (see 'arena tournament list')")
    ],
    index: Annotated[int, typer.Argument(help="the match's index in the tournament", min=0)],
    out: Annotated[Path, typer.Option("--out", "-o", help="the bundle file to write")],
    data_dir: DataDir = DATA_DIR,
) -> None:
    """Write a finished match's bundle: what 'arena replay --reproduce' needs to play it again
    exactly (its seeds and keys for that match alone, never the tournament's secret)."""
    from arena.tournament.bundle import BundleError, bundle_of, encode

    writable(out, "--out")
    store = reading_store(data_dir)
    try:
        bundle = bundle_of(store, name, index)
    except BundleError as error:
        raise fail(str(error)) from None
    finally:
        store.close()
    out.write_bytes(encode(bundle))
    console.print(
        f"match {index} of '{name}' ({len(bundle.moves)} decisions) bundled in {out}; "
        f"reproduce it with: arena replay --reproduce {out}",
        soft_wrap=True,
    )


app = typer.Typer(help="Run, list and delete tournaments.", no_args_is_help=True)
app.command("list")(list_tournaments)
app.command("show")(show_tournament)
app.command("delete")(delete_tournament)
app.command("bundle")(bundle_match)
app.command("run")(tournament_run)
