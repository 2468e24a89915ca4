"""Leaderboards, head-to-head records and rating histories as pandas DataFrames.

Each variant is rated on its own, with the project's one TrueSkill environment
(``arena.tournament.ratings.ENV``); every match is a free-for-all rated from its
final ranks (ties stay ties, a forfeit ranks last), in the fixed order of the
store's ``results`` (``leaderboards.data``). Bots are ranked by the conservative rating
mu - 3 sigma.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Sequence

import pandas as pd

from arena.tournament.ratings import conservative, environment, rate
from arena.tournament.store import ResultsStore
from leaderboards.data import StoredMatch, stored_matches

LEADERBOARD_COLUMNS = [
    "rank",
    "bot",
    "rating",
    "mu",
    "sigma",
    "games",
    "wins",
    "win_rate",
    "mean_score",
    "mean_rank",
    "forfeits",
    "last_played",
]


def rate_with_history(matches: Sequence[StoredMatch]) -> tuple[dict, pd.DataFrame]:
    """One TrueSkill pass over the matches: the final ratings, and each bot's rating after
    each of its matches (``step`` counts the variant's matches)."""
    env = environment()
    ratings: dict = {}
    rows: list[tuple] = []
    for step, match in enumerate(matches, start=1):
        rate([(match.bots, match.ranks)], env, ratings)
        for name in dict.fromkeys(match.bots):
            if name in ratings:
                r = ratings[name]
                rows.append((step, name, r.mu, r.sigma, conservative(r)))
    history = pd.DataFrame(rows, columns=["step", "bot", "mu", "sigma", "rating"])
    return ratings, history


def leaderboard_from(matches: Sequence[StoredMatch], ratings: dict | None = None) -> pd.DataFrame:
    """The leaderboard of these matches (all of one variant); ``ratings`` if already computed."""
    if ratings is None:
        ratings = rate(((m.bots, m.ranks) for m in matches), environment())
    games: dict[str, int] = defaultdict(int)
    wins: dict[str, int] = defaultdict(int)
    score: dict[str, int] = defaultdict(int)
    rank_sum: dict[str, int] = defaultdict(int)
    forfeits: dict[str, int] = defaultdict(int)
    last: dict[str, float] = {}
    for match in matches:
        for bot, points, rank, fault in zip(
            match.bots, match.scores, match.ranks, match.faults, strict=True
        ):
            games[bot] += 1
            wins[bot] += rank == 1
            score[bot] += points
            rank_sum[bot] += rank
            forfeits[bot] += fault is not None
            last[bot] = max(last.get(bot, 0.0), match.finished_at)
    rows = [
        {
            "bot": bot,
            "rating": conservative(r),
            "mu": r.mu,
            "sigma": r.sigma,
            "games": games[bot],
            "wins": wins[bot],
            "win_rate": wins[bot] / games[bot],
            "mean_score": score[bot] / games[bot],
            "mean_rank": rank_sum[bot] / games[bot],
            "forfeits": forfeits[bot],
            "last_played": pd.to_datetime(last[bot], unit="s", utc=True),
        }
        for bot, r in ratings.items()
    ]
    frame = pd.DataFrame(rows, columns=LEADERBOARD_COLUMNS[1:])
    frame = frame.sort_values(["rating", "bot"], ascending=[False, True], ignore_index=True)
    frame.insert(0, "rank", range(1, len(frame) + 1))
    return frame


def leaderboard(store: ResultsStore, variant: str, players: int | None = None) -> pd.DataFrame:
    """The leaderboard of ``variant`` (optionally only ``players``-player games)."""
    return leaderboard_from(stored_matches(store, variant, players))


def leaderboards_by_players(matches: Sequence[StoredMatch]) -> dict[int | None, pd.DataFrame]:
    """The leaderboard of all player counts (key ``None``) and of each count on its own:
    a rating earned in 2-player games says little about 4-player play, so each count's
    board is rated from that count's matches only."""
    by_count: dict[int, list[StoredMatch]] = defaultdict(list)
    for match in matches:
        by_count[len(match.bots)].append(match)
    boards: dict[int | None, pd.DataFrame] = {None: leaderboard_from(matches)}
    for count in sorted(by_count):
        boards[count] = leaderboard_from(by_count[count])
    return boards


def head_to_head_from(matches: Sequence[StoredMatch]) -> pd.DataFrame:
    """For every ordered pair of bots: games together, and how often each finished ahead."""
    together: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for match in matches:
        seats = list(zip(match.bots, match.ranks, strict=True))
        for (a, rank_a), (b, rank_b) in itertools.permutations(seats, 2):
            if a == b:
                continue
            counts = together[a, b]
            counts[0] += 1
            counts[1] += rank_a < rank_b
            counts[2] += rank_a == rank_b
    rows = [
        {
            "bot": a,
            "opponent": b,
            "games": n,
            "ahead": ahead,
            "tied": tied,
            "behind": n - ahead - tied,
            "ahead_rate": ahead / n,
        }
        for (a, b), (n, ahead, tied) in sorted(together.items())
    ]
    return pd.DataFrame(
        rows, columns=["bot", "opponent", "games", "ahead", "tied", "behind", "ahead_rate"]
    )


def head_to_head(store: ResultsStore, variant: str) -> pd.DataFrame:
    return head_to_head_from(stored_matches(store, variant))


def rating_history_from(matches: Sequence[StoredMatch]) -> pd.DataFrame:
    """Each bot's rating after each of its matches."""
    return rate_with_history(matches)[1]


def rating_history(store: ResultsStore, variant: str) -> pd.DataFrame:
    return rating_history_from(stored_matches(store, variant))
