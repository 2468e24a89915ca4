"""TrueSkill ratings from finished matches: free-for-all, ties stay ties, forfeits last.

``ENV`` is the one TrueSkill environment of the whole project (leaderboards,
the ladder's matchmaking, histories); each variant is rated separately with
it. Matches are rated in a fixed order (the order the caller gives, normally
tournament then schedule index), so the same results always give the same
ratings.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import trueskill

# TrueSkill's defaults (mu 25, sigma 25/3); a small draw probability because
# ties on points, tickets and longest path do happen.
DRAW_PROBABILITY = 0.02
ENV = trueskill.TrueSkill(draw_probability=DRAW_PROBABILITY, backend=None)


def environment() -> trueskill.TrueSkill:
    """The project's TrueSkill environment (``ENV``)."""
    return ENV


def rate(
    matches: Iterable[tuple[Sequence[str], Sequence[int]]],
    env: trueskill.TrueSkill | None = None,
    ratings: dict[str, trueskill.Rating] | None = None,
) -> dict[str, trueskill.Rating]:
    """Rate ``(bots by seat, ranks by seat)`` matches in order; return each bot's rating.

    A bot that sits twice in one match (duplicate seats) is rated once, at its
    best rank.
    """
    env = env or environment()
    ratings = ratings if ratings is not None else {}
    for bots, ranks in matches:
        best: dict[str, int] = {}
        for bot, rank in zip(bots, ranks, strict=True):
            best[bot] = min(rank, best.get(bot, rank))
        if len(best) < 2:
            continue
        names = list(best)
        groups = [(ratings.get(name, env.create_rating()),) for name in names]
        rated = env.rate(groups, ranks=[best[name] for name in names])
        for name, (rating,) in zip(names, rated, strict=True):
            ratings[name] = rating
    return ratings


def conservative(rating: trueskill.Rating) -> float:
    """The leaderboard key: mu - 3 sigma."""
    return rating.mu - 3 * rating.sigma
