"""Leaderboards, head-to-head records and rating histories as pandas DataFrames.

Each variant is rated on its own, with the project's one TrueSkill environment
(``arena.tournament.ratings.ENV``); every match is a free-for-all rated from its
final ranks (ties stay ties, a forfeit ranks last), in the fixed order of the
store's ``results`` (``leaderboards.data``). Bots are ranked by the conservative rating
mu - 3 sigma. The boards themselves are built by ``leaderboards.standings`` (from
nothing, or resumed from a rating checkpoint: ``leaderboards.checkpoints``).
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Sequence

import pandas as pd

from arena.tournament.ratings import DEFAULT_MODEL, conservative, environment, rate
from arena.tournament.store import ResultsStore
from leaderboards.checkpoints import current_standings
from leaderboards.data import StoredMatch, stored_matches
from leaderboards.standings import LEADERBOARD_COLUMNS, Board, Standings


class RatingHistory:
    """Each bot's rating after each of its matches, extended match by match (``arena serve``
    extends the one of its last read when new matches land)."""

    def __init__(self) -> None:
        self.ratings: dict = {}
        self.rows: list[tuple] = []
        self.position = 0  # the id of the last match in it
        self.steps = 0  # how many matches it holds

    def extend(self, matches: Sequence[StoredMatch]) -> RatingHistory:
        env = environment()
        for match in matches:
            self.steps += 1
            rate([(match.bots, match.ranks)], env, self.ratings)
            for name in dict.fromkeys(match.bots):
                if name in self.ratings:
                    r = self.ratings[name]
                    self.rows.append((self.steps, name, r.mu, r.sigma, conservative(r)))
            self.position = match.match_id
        return self

    def copy(self) -> RatingHistory:
        twin = RatingHistory()
        twin.ratings, twin.rows = dict(self.ratings), list(self.rows)  # (ratings are immutable)
        twin.position, twin.steps = self.position, self.steps
        return twin

    def frame(self) -> pd.DataFrame:
        """``step`` counts the variant's matches."""
        return pd.DataFrame(self.rows, columns=["step", "bot", "mu", "sigma", "rating"])


def rate_with_history(matches: Sequence[StoredMatch]) -> tuple[dict, pd.DataFrame]:
    """One TrueSkill pass over the matches: the final ratings, and each bot's rating after
    each of its matches (``step`` counts the variant's matches)."""
    history = RatingHistory().extend(matches)
    return history.ratings, history.frame()


def leaderboard_frame(board: Board) -> pd.DataFrame:
    """A board as a DataFrame (``last_played`` as UTC timestamps)."""
    frame = pd.DataFrame(board.rows(), columns=LEADERBOARD_COLUMNS)
    frame["last_played"] = pd.to_datetime(frame["last_played"], unit="s", utc=True)
    return frame


def leaderboard_from(matches: Sequence[StoredMatch], model: str = DEFAULT_MODEL) -> pd.DataFrame:
    """The leaderboard of these matches (all of one variant, in rating order), rated from
    nothing (by ``model``)."""
    board = Board(model)
    for match in matches:
        board.add(match)
    return leaderboard_frame(board)


def frames(standings: Standings, players: int | None = None) -> dict[int | None, pd.DataFrame]:
    """The boards of ``standings`` as DataFrames (``Standings.boards``)."""
    return {count: leaderboard_frame(board) for count, board in standings.boards(players).items()}


def leaderboard(
    store: ResultsStore,
    variant: str,
    players: int | None = None,
    model: str = DEFAULT_MODEL,
    include_tests: bool = False,
) -> pd.DataFrame:
    """The leaderboard of ``variant`` (optionally only ``players``-player games), from the
    store's rating checkpoints and the matches after them (by ``model``; tests counted
    with ``include_tests``, people's games never: ``arena.tournament.views``)."""
    return frames(current_standings(store, variant, model, include_tests), players)[None]


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
    return head_to_head_from(stored_matches(store, variant, leave_out=store.left_out()))


def rating_history_from(matches: Sequence[StoredMatch]) -> pd.DataFrame:
    """Each bot's rating after each of its matches."""
    return rate_with_history(matches)[1]


def rating_history(store: ResultsStore, variant: str) -> pd.DataFrame:
    return rating_history_from(stored_matches(store, variant, leave_out=store.left_out()))
