"""What the user reads after games and tournaments: standings, and why bots forfeited."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from rich import box
from rich.table import Table
from rich.text import Text

from arena.commands.common import console, fitted_table, shrink_to_fit
from arena.engine.result import GameResult, ScoreLabel
from arena.escape import escaped
from arena.referee.matchlog import MatchLog
from arena.tournament.forfeits import read_tail, reason
from arena.tournament.store import ResultsStore

if TYPE_CHECKING:  # annotations only (``arena`` starts without the executors)
    from arena.tournament.runner import TournamentRunner


def seat_stderr(header: dict, seat: int, data_dir: Path) -> Path | None:
    """The stderr log of ``seat`` named in a match log's header (relative to ``data_dir``)."""
    name = header["seats"][seat].get("stderr")
    return Path(data_dir) / name if name else None


def print_faults(outcome, names: list[str], data_dir: Path) -> None:
    """One line per forfeit of a game: seat, bot, the reason, its stderr log."""
    for fault in outcome.faults:
        log = seat_stderr(outcome.log.header, fault.seat, data_dir)
        why = escaped(reason(fault.code, fault.detail, read_tail(log)))
        where = f" (stderr: {log})" if log else ""
        console.print(
            Text.assemble(
                (f"seat {fault.seat} ({escaped(names[fault.seat])}) forfeited:", "yellow"),
                f" {why}{where}",
            ),
            soft_wrap=True,
            highlight=False,
        )


def standings_table(runner: TournamentRunner) -> Table:
    """The final standings, once, fitted to the terminal. A fixed-entry tournament (round
    robin, duplicate) is ranked by its own matches' rating under the tournament's ``rating``
    model (docs/RATINGS.md); a ladder or a test by win rate."""
    standings = runner.standings
    order = sorted(standings.games, key=lambda b: (-standings.wins[b] / standings.games[b], b))
    estimates: dict[str, tuple[float, float]] = {}
    if runner.spec.format in ("round-robin", "duplicate"):
        from leaderboards.standings import Board

        board = Board(runner.spec.rating)
        for match in runner.store.results(runner.spec.name, details=False):
            board.add(match)
        estimates = board.estimates()
        unrated = [b for b in order if b not in estimates]
        order = sorted(estimates, key=lambda b: (-estimates[b][0], b)) + unrated
    rows = [
        [
            bot,
            *([f"{estimates[bot][0]:.1f} ± {estimates[bot][1]:.1f}"] if bot in estimates else []),
            *(["-"] if estimates and bot not in estimates else []),
            str(standings.games[bot]),
            str(standings.wins[bot]),
            f"{100 * standings.wins[bot] / standings.games[bot]:.0f}",
            f"{standings.rank_sum[bot] / standings.games[bot]:.2f}",
            str(standings.forfeits[bot]),
        ]
        for bot in order
    ]
    rated = ("rating",) if estimates else ()
    headers = ("bot", *rated, "games", "wins", "win %", "mean rank", "forfeits")
    title = f"{runner.spec.name}: standings"
    if estimates:
        title += f" ({runner.spec.rating})"
    return fitted_table(headers, rows, shrink=0, right=range(1, len(headers)), title=title)


def print_forfeits(store: ResultsStore, tournament: str, data_dir: Path) -> None:
    """Per bot: how many forfeits, of which kinds, and why the last one happened."""
    by_bot: dict[str, list[dict]] = {}
    for forfeit in store.forfeits(tournament):
        by_bot.setdefault(forfeit["bot"], []).append(forfeit)
    for bot, forfeits in by_bot.items():
        last = forfeits[-1]
        header = MatchLog.from_jsonl(store.match_log(last["match_id"])).header
        log = seat_stderr(header, last["seat"], data_dir)
        kinds = Counter(f["code"] for f in forfeits)
        counted = ", ".join(f"{code} ×{n}" for code, n in kinds.most_common())
        games = f"{len(forfeits)} game{'s' if len(forfeits) > 1 else ''}"
        summary = f"{games} ({counted}); the last" if len(kinds) > 1 else games
        why = escaped(reason(last["code"], last["detail"] or "", read_tail(log)))
        where = f" — stderr: {log}" if log and log.exists() else ""
        console.print(
            Text.assemble((f"{escaped(bot)} forfeited {summary}:", "yellow"), f" {why}{where}"),
            soft_wrap=True,
        )


def result_table(
    result: GameResult,
    seats: list[str],
    title: str,
    ranks: list[int] | None = None,
    *,
    labels: dict[str, ScoreLabel] | None = None,
) -> Table:
    """The result as a table, its columns headed by the variant's score ``labels``
    (``variant.score_labels``); ``ranks`` overrides the engine's ranks (after forfeits)."""
    ranks = list(ranks) if ranks is not None else list(result.ranks)
    has_path = "longest_path" in result.breakdown[0]
    labels = labels or {}
    heading = {c: labels[c].heading if c in labels else c for c in result.categories}
    legend = [
        f"{heading[c]} {labels[c].legend}"
        for c in result.categories
        if c in labels and heading[c] != c
    ]
    legend.append("done tickets completed/failed")
    if has_path:
        legend.append("path longest path")
    table = Table(title=title, box=box.SIMPLE_HEAD, caption=", ".join(legend), pad_edge=False)
    table.add_column("#", justify="right")
    table.add_column("seat", justify="right")
    table.add_column("bot")  # a long name is cut with an ellipsis (shrink_to_fit)
    for category in result.categories:
        table.add_column(heading[category], justify="right")
    table.add_column("total", justify="right", style="bold")
    table.add_column("done", justify="right")
    if has_path:
        table.add_column("path", justify="right")
    for seat in sorted(range(len(seats)), key=lambda s: (ranks[s], s)):
        row = result.breakdown[seat]
        table.add_row(
            str(ranks[seat]),
            str(seat),
            seats[seat],
            *(str(row[c]) for c in result.categories),
            str(row["total"]),
            f"{row.get('completed_tickets', 0)}/{row.get('failed_tickets', 0)}",
            *([str(row["longest_path"])] if has_path else []),
        )
    return shrink_to_fit(table, 2)


def _print_outcome(
    outcome, names: list[str], title: str, data_dir: Path, labels: dict[str, ScoreLabel]
) -> None:
    console.print(result_table(outcome.result, names, title, outcome.ranks, labels=labels))
    print_faults(outcome, names, data_dir)
