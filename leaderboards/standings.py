"""The leaderboards of one variant as a state that matches fold into, one at a time.

A ``Board`` is one leaderboard being built: each bot's TrueSkill rating (rated
with ``arena.tournament.ratings.rate``, the one rating rule) and its tallies
(games, wins, score, ranks, forfeits, last played). ``Standings`` holds every
board of a variant: all player counts (``None``) and each count on its own.
Folding the variant's matches in rating order into empty standings is the full
recompute; folding only the new ones into a checkpoint (``leaderboards.checkpoints``)
gives the same boards, bit for bit: the state keeps each rating's exact
precision and precision-mean (TrueSkill's own numbers), not a rounded mu and
sigma. No pandas here: ``arena leaderboard`` prints a table without loading it.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Iterable
from typing import Any

import trueskill

from arena.tournament.ratings import (
    DEFAULT_MODEL,
    bradley_terry,
    check_model,
    environment,
    pairwise,
    rate,
)
from arena.tournament.results import MatchResult

FORMAT = 1  # of the serialized state; part of every checkpoint's model key
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
GAMES, WINS, SCORE, RANK_SUM, FORFEITS, LAST = range(6)


def model_key(model: str = DEFAULT_MODEL) -> str:
    """What a checkpoint's numbers depend on besides the matches: the rating environment,
    the TrueSkill release, the state format. A checkpoint made under another is not used."""
    if model == "bradley-terry":
        return f"bradley-terry format={FORMAT}"
    env = environment(model)
    return (
        f"trueskill {trueskill.__version__} mu={env.mu!r} sigma={env.sigma!r} beta={env.beta!r}"
        f" tau={env.tau!r} draw={env.draw_probability!r} backend={env.backend} format={FORMAT}"
    )


def exact_rating(pi: float, tau: float) -> trueskill.Rating:
    """A Rating with exactly this precision and precision-mean (``Rating(mu, sigma)`` would
    recompute them from rounded values)."""
    rating = trueskill.Rating.__new__(trueskill.Rating)
    rating.pi, rating.tau = pi, tau
    return rating


class Board:
    """One leaderboard being built from the matches folded into it, in rating order.

    Rated by ``model`` (``arena.tournament.ratings.MODELS``): TrueSkill keeps each bot's
    rating; Bradley–Terry keeps the table of pairwise results and fits it when read."""

    def __init__(self, model: str = DEFAULT_MODEL) -> None:
        self.model = check_model(model)
        self.ratings: dict[str, trueskill.Rating] = {}
        self.pairs: dict[tuple[str, str], list[float]] = {}  # bradley-terry: [score, games]
        self.tallies: dict[str, list[Any]] = {}

    def add(self, match: MatchResult) -> None:
        if self.model == "bradley-terry":
            for a, b, score in pairwise(match.bots, match.ranks):
                pair = self.pairs.setdefault((a, b), [0.0, 0.0])
                pair[0] += score
                pair[1] += 1.0
        else:
            rate([(match.bots, match.ranks)], environment(self.model), self.ratings)
        for bot, points, rank, fault in zip(
            match.bots, match.scores, match.ranks, match.faults, strict=True
        ):
            tally = self.tallies.get(bot)
            if tally is None:
                tally = self.tallies[bot] = [0, 0, 0, 0, 0, 0.0]
            tally[GAMES] += 1
            tally[WINS] += rank == 1
            tally[SCORE] += points
            tally[RANK_SUM] += rank
            tally[FORFEITS] += fault is not None
            tally[LAST] = max(tally[LAST], match.finished_at)

    def rows(self) -> list[dict[str, Any]]:
        """The leaderboard: rated bots by rating (mu - 3 sigma) then name; ``last_played`` in
        seconds since the epoch. A bot never rated (only in matches against itself) is not
        on it."""
        rows = []
        for bot, (mu, sigma) in self.estimates().items():
            games, wins, score, rank_sum, forfeits, last = self.tallies[bot]
            rows.append(
                {
                    "bot": bot,
                    "rating": mu - 3 * sigma,
                    "mu": mu,
                    "sigma": sigma,
                    "games": games,
                    "wins": wins,
                    "win_rate": wins / games,
                    "mean_score": score / games,
                    "mean_rank": rank_sum / games,
                    "forfeits": forfeits,
                    "last_played": last,
                }
            )
        rows.sort(key=lambda row: (-row["rating"], row["bot"]))
        return [{"rank": rank, **row} for rank, row in enumerate(rows, start=1)]

    def estimates(self) -> dict[str, tuple[float, float]]:
        """Each rated bot's (mu, sigma): TrueSkill's, or the Bradley–Terry fit's (Elo, its
        standard error); a bot never rated (only in matches against itself) has none."""
        if self.model == "bradley-terry":
            return bradley_terry(self.pairs)
        return {bot: (r.mu, r.sigma) for bot, r in self.ratings.items()}

    def to_json(self) -> dict[str, list[Any]]:
        return {bot: [*tally, *self._exact(bot)] for bot, tally in self.tallies.items()}

    def _exact(self, bot: str) -> list[float]:
        rating = self.ratings.get(bot)
        return [] if rating is None else [rating.pi, rating.tau]

    @classmethod
    def from_json(cls, data: dict[str, list[Any]]) -> Board:
        board = cls()
        for bot, values in data.items():
            if not isinstance(bot, str) or len(values) not in (6, 8):
                raise ValueError(f"bad entry for {bot!r}")
            counts, last = [int(v) for v in values[:5]], float(values[5])
            if min(counts) < 0 or counts[WINS] > counts[GAMES] or counts[GAMES] == 0:
                raise ValueError(f"bad tallies for {bot!r}")
            board.tallies[bot] = [*counts, last]
            if len(values) == 8:
                pi, tau = float(values[6]), float(values[7])
                if not (pi > 0 and math.isfinite(pi) and math.isfinite(tau)):
                    raise ValueError(f"bad rating for {bot!r}")
                board.ratings[bot] = exact_rating(pi, tau)
        return board


class Standings:
    """Every leaderboard of one variant after its matches up to ``position`` (a match id;
    ids sort in rating order), ``matches`` of them.

    While the variant has been played at one player count only, the all-counts board is
    that count's board (the same matches in the same order): it is rated once, and split
    off when a second count appears. A full recompute therefore rates each match once
    when a variant has one count, twice when it has several (two boards to fill)."""

    def __init__(self, variant: str, model: str = DEFAULT_MODEL) -> None:
        self.variant = variant
        self.model = check_model(model)
        self.position = 0
        self.matches = 0
        self.by_count: dict[int, Board] = {}
        self._all: Board | None = None  # None: the one count's board stands for it

    def add(self, match: MatchResult) -> None:
        if match.match_id <= self.position:
            raise ValueError(f"match {match.match_id} is not after {self.position}")
        count = len(match.bots)
        if self._all is None and self.by_count and count not in self.by_count:
            (only,) = self.by_count.values()
            self._all = copy.deepcopy(only)
        self.by_count.setdefault(count, Board(self.model)).add(match)
        if self._all is not None:
            self._all.add(match)
        self.position = match.match_id
        self.matches += 1

    def add_all(self, matches: Iterable[MatchResult]) -> None:
        for match in matches:
            self.add(match)

    def board(self, players: int | None = None) -> Board:
        """The board of ``players``-player games, or of all counts (None); empty if none."""
        if players is not None:
            return self.by_count.get(players, Board(self.model))
        if self._all is not None:
            return self._all
        return next(iter(self.by_count.values()), Board(self.model))

    def boards(self, players: int | None = None) -> dict[int | None, Board]:
        """The board of all counts (key None) then each count's (only ``players`` if given:
        then its board is also the whole board)."""
        if players is not None:
            return {None: self.board(players), players: self.board(players)}
        return {None: self.board(), **{n: self.by_count[n] for n in sorted(self.by_count)}}

    # ---------------------------------------------------------------- saving

    def to_bytes(self) -> bytes:
        data = {
            "variant": self.variant,
            "position": self.position,
            "matches": self.matches,
            "by_count": {str(n): board.to_json() for n, board in self.by_count.items()},
            "all": None if self._all is None else self._all.to_json(),
        }
        return json.dumps(data, separators=(",", ":")).encode()  # floats round-trip exactly

    @classmethod
    def from_bytes(cls, state: bytes) -> Standings:
        """Standings saved by ``to_bytes``; ValueError if the state is not one."""
        try:
            data = json.loads(state)
            standings = cls(str(data["variant"]))
            standings.position = int(data["position"])
            standings.matches = int(data["matches"])
            standings.by_count = {
                int(n): Board.from_json(board) for n, board in data["by_count"].items()
            }
            if data["all"] is not None:
                standings._all = Board.from_json(data["all"])
        except (KeyError, TypeError, AttributeError, ValueError, RecursionError) as error:
            raise ValueError(f"not a saved standings state ({error})") from None
        if len(standings.by_count) > 1 and standings._all is None:
            raise ValueError("several player counts but no all-counts board")
        return standings
