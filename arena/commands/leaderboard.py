"""``arena leaderboard``: a variant's leaderboard from the results store (all player
counts, then each count), or a hosted competition's boards; as a table or an export."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.commands.common import (
    DATA_DIR,
    DataDir,
    console,
    existing_store,
    fail,
    fitted_table,
    writable,
)
from arena.tournament.ratings import check_model
from arena.variants import get_variant

MODEL_TITLES = {
    "trueskill": "TrueSkill",
    "trueskill-static": "TrueSkill τ=0",
    "bradley-terry": "Bradley–Terry, Elo",
}


def leaderboard(
    variant: Annotated[str, typer.Option(help="variant name")] = "usa",
    players: Annotated[int | None, typer.Option(help="only games with this many players")] = None,
    format: Annotated[str, typer.Option(help="table, csv, json or md")] = "table",
    out: Annotated[
        Path | None, typer.Option(help="write here instead of the terminal (csv, json, md)")
    ] = None,
    rating: Annotated[
        str, typer.Option(help="rating model: trueskill, trueskill-static or bradley-terry")
    ] = "trueskill",
    include_tests: Annotated[
        bool, typer.Option("--include-tests", help="count the games of 'arena test' runs too")
    ] = False,
    data_dir: DataDir = DATA_DIR,
) -> None:
    """The TrueSkill leaderboard of a variant, ranked by mu - 3 sigma: all player counts, then
    each count rated on its own (as a table; exports give one board, --players picks it).
    --rating picks another model (docs/RATINGS.md: how well each predicts). Games of
    'arena test' runs count only with --include-tests; a person's games never count."""
    if format not in ("table", "csv", "json", "md"):
        raise fail("--format is table, csv, json or md")
    if out is not None and format == "table":
        raise fail("--out writes csv, json or md: add --format csv (or json, md)")
    writable(out, "--out")
    try:
        chosen = get_variant(variant)
    except KeyError as error:
        raise fail(str(error.args[0])) from None
    if players is not None and not chosen.min_players <= players <= chosen.max_players:
        raise fail(
            f"{chosen.name} is played by {chosen.min_players}-{chosen.max_players} players, "
            f"not {players}"
        )
    try:
        check_model(rating)
    except ValueError as error:
        raise fail(str(error)) from None
    from leaderboards.checkpoints import current_standings  # only when needed
    from leaderboards.standings import Standings

    hosted = _hosted_boards(data_dir, chosen.name, players, rating)
    if hosted is not None:
        _print_hosted(hosted, chosen.name, format, out)
        return
    store = existing_store(data_dir)
    standings = (
        Standings(chosen.name, rating)
        if store is None
        else current_standings(store, chosen.name, rating, include_tests)
    )
    boards = standings.boards(players)
    if format == "table":
        if not boards[None].rows():
            console.print(f"no stored matches of '{chosen.name}' yet")
            return
        for count, board in boards.items():
            if count is None and (players is not None or len(boards) == 2):
                continue  # one count only: its own board is the whole board
            title = "all player counts" if count is None else f"{count} players"
            rows = [_leaderboard_cells(row) for row in board.rows()]
            console.print(
                fitted_table(
                    LEADERBOARD_HEADERS,
                    rows,
                    shrink=1,
                    right=(0, *range(2, 10)),
                    title=f"{chosen.name} leaderboard, {title} ({MODEL_TITLES[rating]}, μ − 3σ)",
                    caption="score: mean score · rank: mean rank · ff: forfeits",
                )
            )
        return
    from leaderboards.tables import leaderboard_frame  # pandas: only for exports

    frame = leaderboard_frame(boards[None])
    if not frame.empty:
        frame["last_played"] = frame["last_played"].dt.strftime("%Y-%m-%d %H:%M:%S")
    write_frame(frame, format, out)


def write_frame(frame, format: str, out: Path | None) -> None:
    """A leaderboard's table as CSV, JSON or Markdown, to ``out`` or to stdout."""
    text = {
        "csv": lambda: frame.to_csv(index=False),
        "json": lambda: frame.to_json(orient="records", indent=1),
        "md": lambda: frame.to_markdown(index=False, floatfmt=".2f") + "\n",
    }[format]()
    if out:
        out.write_text(text)
        console.print(f"leaderboard written to {out}")
    else:
        print(text, end="")


LEADERBOARD_HEADERS = ("#", "bot", "rating", "μ", "σ", "games", "win%", "score", "rank", "ff")


def _leaderboard_cells(row: dict) -> list[str]:
    return [
        ("=" if row.get("tied") else "") + str(row["rank"]),
        row["bot"],
        f"{row['rating']:.2f}",
        f"{row['mu']:.2f}",
        f"{row['sigma']:.2f}",
        str(row["games"]),
        f"{100 * row['win_rate']:.0f}",
        f"{row['mean_score']:.1f}",
        f"{row['mean_rank']:.2f}",
        str(row["forfeits"]),
    ]


def _hosted_boards(data_dir: Path, variant: str, players: int | None, rating: str):
    """A hosted competition's boards (``arena host``'s data folder): its ladders and finals
    apart, as its pages show them; None for any other data folder."""
    from arena.server.accounts import FILE_NAME, Accounts
    from arena.server.export import described, hosted_boards

    if not all((Path(data_dir) / name).is_file() for name in (FILE_NAME, "results.sqlite")):
        return None
    accounts = Accounts(data_dir)
    what = described(accounts)
    if what is None:
        return None
    if rating != "trueskill":
        raise fail("a hosted competition's boards are rated by trueskill, as on its pages")
    from arena.tournament.store import ResultsStore

    with ResultsStore.reader(data_dir) as store:
        return hosted_boards(store, accounts, what, variant, players)


def _print_hosted(boards: list, variant: str, format: str, out: Path | None) -> None:
    """Each ladder and final of a hosted competition as its own table (or rows with their
    board, for csv, json and md): voided matches left out, final and ladder never mixed."""
    if format == "table":
        if not any(rows for _, rows in boards):
            console.print(f"no stored matches of '{variant}' yet")
        for title, rows in boards:
            if rows:
                console.print(
                    fitted_table(
                        LEADERBOARD_HEADERS, [_leaderboard_cells(r) for r in rows], shrink=1,
                        right=(0, *range(2, 10)), title=f"{title} (TrueSkill, μ − 3σ)",
                        caption="= tied: within the noise · ff: forfeits",
                    )
                )  # fmt: skip
        return
    import pandas as pd

    frame = pd.DataFrame(
        [{"board": title, **row} for title, rows in boards for row in rows],
        columns=["board", "rank", "tied", "bot", "rating", "mu", "sigma", "games", "wins",
                 "win_rate", "mean_score", "mean_rank", "forfeits"],
    )  # fmt: skip
    write_frame(frame, format, out)
