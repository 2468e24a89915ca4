"""A board's final: who plays it, and its table.

At the deadline every version that plays on the board's ladder plays the final (or,
with ``[final] top``, the ladder's top N among the validated versions an admin did not
disable), a round robin of ``games`` rounds. Its table is TrueSkill with τ = 0 (no
drift between its games), ranked by μ − 3σ, adjacent places within the noise shown
tied (``arena.server.places``); with ``[final] with_ladder`` the ratings start from
the board's ladder games, so the final refines what the ladder found instead of
deciding alone on a few games.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import trueskill

from arena.server.boards import FINAL_ENV
from arena.server.competition import Competition
from arena.server.places import placed
from arena.tournament.ratings import rate
from arena.tournament.results import MatchResult
from arena.tournament.spec import MAX_PLANNED_MATCHES
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


def rounds_that_fit(bots: int, players: int, games: int) -> int:
    """The final's rounds: ``games``, or fewer when a round robin of that many would plan
    more matches than a tournament may (a large field at a many-player board)."""
    per_round = math.comb(bots, players) * players
    return max(0, min(games, MAX_PLANNED_MATCHES // max(per_round, 1)))


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
