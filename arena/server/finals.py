"""A board's final: who plays it, and its table.

At the deadline every version that plays on the board's ladder plays the final (or,
with ``[final] top``, the ladder's top N among the validated versions an admin did not
disable), a round robin of ``games`` rounds in which no two bots of one side (a team,
or a participant without one: ``Accounts.sides``) share a table, as on the ladder. Its
table is TrueSkill with τ = 0 (no drift between its games), ranked by μ − 3σ, adjacent
places within the noise shown tied (``arena.server.places``); with ``[final]
with_ladder`` the ratings start from the board's ladder games, so the final refines
what the ladder found instead of deciding alone on a few games.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import trueskill

from arena.server.boards import FINAL_ENV
from arena.server.competition import Competition
from arena.server.places import placed
from arena.tournament.ratings import rate
from arena.tournament.results import MatchResult
from arena.tournament.spec import MAX_PLANNED_MATCHES, tables
from leaderboards.standings import Board


def finalists(
    competition: Competition,
    ladder_rows: Sequence[Mapping[str, Any]],
    playing: Iterable[str],
    eligible: set[str],
) -> list[str]:
    """Who plays a board's final, best on the ladder first: every version that plays now
    (those not yet on the ladder last), or the ladder's top ``[final] top`` of the
    validated versions not disabled."""
    top = competition.final.top
    if top is not None:
        return [row["bot"] for row in ladder_rows if row["bot"] in eligible][:top]
    playing = set(playing)
    ranked = [row["bot"] for row in ladder_rows if row["bot"] in playing]
    return ranked + sorted(playing - set(ranked))


def one_round(bots: Sequence[str], apart: Sequence[Sequence[str]], players: int) -> int:
    """The matches of one round of the final: each table of ``players`` bots with no two of
    one ``apart`` group (a team's or participant's bots), in each seat rotation."""
    grouped = {bot for group in apart for bot in group}
    sizes = [len(group) for group in apart] + [1] * len(set(bots) - grouped)
    return tables(sizes, players) * players


def rounds_that_fit(
    bots: Sequence[str], apart: Sequence[Sequence[str]], players: int, games: int
) -> int:
    """The final's rounds: ``games``, or fewer when a round robin of that many would plan
    more matches than a tournament may (a large field at a many-player board); none when
    no table can be set (fewer sides than seats)."""
    per_round = one_round(bots, apart, players)
    if not per_round:
        return 0
    return max(0, min(games, MAX_PLANNED_MATCHES // per_round))


def final_rows(
    matches: list[MatchResult],
    voided: set[int],
    hidden: Mapping[str, str] | None = None,
    ladder: Iterable[MatchResult] = (),
) -> list[dict[str, Any]]:
    """The final's table: games and wins of the final, ratings by TrueSkill with τ = 0
    (from ``ladder``'s games first, if given), ranked by μ − 3σ, ties marked; versions in
    ``hidden`` (disabled) left out."""
    hidden = hidden or {}
    kept = [m for m in matches if m.match_id not in voided]
    board = Board()
    for match in kept:
        board.add(match)
    ratings: dict[str, trueskill.Rating] = {}
    rate(((m.bots, m.ranks) for m in ladder if m.match_id not in voided), FINAL_ENV, ratings)
    rate(((m.bots, m.ranks) for m in kept), FINAL_ENV, ratings)
    rows = [row for row in board.rows() if row["bot"] not in hidden]
    for row in rows:
        rating = ratings[row["bot"]]
        row.update(rating=rating.mu - 3 * rating.sigma, mu=rating.mu, sigma=rating.sigma)
    rows.sort(key=lambda row: (-row["rating"], row["bot"]))
    return placed(rows)


def ladder_rows(rows: list[dict[str, Any]], hidden: Mapping[str, str]) -> list[dict[str, Any]]:
    """A ladder board's rows without the versions kept off the boards, ranked again."""
    kept = [row for row in rows if row["bot"] not in hidden]
    return [{**row, "rank": rank} for rank, row in enumerate(kept, start=1)]
