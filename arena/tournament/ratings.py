"""Ratings from finished matches: free-for-all, ties stay ties, forfeits last.

``ENV`` is the project's default TrueSkill environment (leaderboards, the
ladder's matchmaking, histories); each variant is rated separately with it.
Matches are rated in a fixed order (the order the caller gives, normally
tournament then schedule index), so the same results always give the same
ratings.

Other rating models (``MODELS``; chosen with ``arena leaderboard --rating`` and a
tournament file's ``rating``), measured by ``benchmarks/ratings.py``:

- ``trueskill-static``: TrueSkill with no drift (τ = 0). A bot is a fixed
  program, so its skill does not wander between matches; the default τ keeps
  adding uncertainty as if it did, which makes the ratings chase recent results.
- ``bradley-terry``: a global maximum a posteriori fit of Bradley–Terry strengths
  on the pairwise results of every match (each pair of bots in a match: 1 to the
  one ahead, ½ each for a tie). Its state is the table of pairwise counts, sums of
  halves (exact in floating point, the same in any order), and the fit reads the
  table in sorted order: so its board does not depend on the order of the matches
  at all, and folding matches into a checkpoint's table equals a full recompute.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import trueskill

# TrueSkill's defaults (mu 25, sigma 25/3); a small draw probability because
# ties on points, tickets and longest path do happen.
DRAW_PROBABILITY = 0.02
ENV = trueskill.TrueSkill(draw_probability=DRAW_PROBABILITY, backend=None)
STATIC_ENV = trueskill.TrueSkill(draw_probability=DRAW_PROBABILITY, tau=0.0, backend=None)
DEFAULT_MODEL = "trueskill"  # the leaderboards' (incremental, with checkpoints)
FINALS_MODEL = "bradley-terry"  # a fixed-entry tournament's final standings (benchmark: best)
MODELS = ("trueskill", "trueskill-static", "bradley-terry")
# Bradley–Terry: strengths in Elo (400 per decade of odds) around 1500, with a Gaussian
# prior of BT_PRIOR_ELO on each (so a bot that won every game has a finite rating).
BT_SCALE = 400.0 / math.log(10.0)
BT_CENTRE = 1500.0
BT_PRIOR_ELO = 400.0


def environment(model: str = DEFAULT_MODEL) -> trueskill.TrueSkill:
    """The TrueSkill environment of ``model`` (``ENV`` by default)."""
    if model == "trueskill-static":
        return STATIC_ENV
    return ENV


def check_model(model: str) -> str:
    """``model`` if it is one of ``MODELS``; ValueError naming them otherwise."""
    if model not in MODELS:
        raise ValueError(f"rating '{model}' is not one of {', '.join(MODELS)}")
    return model


def pairwise(bots: Sequence[str], ranks: Sequence[int]) -> list[tuple[str, str, float]]:
    """A match's pairwise results ``(a, b, a's score)`` with a < b, each bot at its best
    rank (a bot seated twice is one player)."""
    best: dict[str, int] = {}
    for bot, rank in zip(bots, ranks, strict=True):
        best[bot] = min(rank, best.get(bot, rank))
    names = sorted(best)
    return [
        (a, b, 1.0 if best[a] < best[b] else 0.5 if best[a] == best[b] else 0.0)
        for i, a in enumerate(names)
        for b in names[i + 1 :]
    ]


def bradley_terry(
    table: Mapping[tuple[str, str], Sequence[float]], iterations: int = 100
) -> dict[str, tuple[float, float]]:
    """Bradley–Terry strengths from pairwise ``table[(a, b)] = [a's score, games]`` (a < b):
    each bot's ``(rating, standard error)`` in Elo. Newton's method on the log posterior
    (a Gaussian prior of BT_PRIOR_ELO per bot), every sum taken in sorted order, so the same
    table always gives the same numbers, bit for bit."""
    bots = sorted({bot for pair in table for bot in pair})
    if not bots:
        return {}
    index = {bot: i for i, bot in enumerate(bots)}
    pairs = sorted(table.items())
    prior = (BT_SCALE / BT_PRIOR_ELO) ** 2  # precision of the prior, in natural units
    theta = [0.0] * len(bots)
    hessian: list[list[float]] = []
    for _ in range(iterations):
        grad = [-prior * t for t in theta]
        hessian = [[0.0] * len(bots) for _ in bots]
        for i in range(len(bots)):
            hessian[i][i] = prior
        for (a, b), (score, games) in pairs:
            i, j = index[a], index[b]
            p = 1.0 / (1.0 + math.exp(theta[j] - theta[i]))
            grad[i] += score - games * p
            grad[j] -= score - games * p
            w = games * p * (1.0 - p)
            hessian[i][i] += w
            hessian[j][j] += w
            hessian[i][j] -= w
            hessian[j][i] -= w
        step = _solve(hessian, grad)
        theta = [t + d for t, d in zip(theta, step, strict=True)]
        if max(abs(d) for d in step) < 1e-12:
            break
    inverse = _inverse(hessian)
    return {
        bot: (BT_CENTRE + BT_SCALE * theta[i], BT_SCALE * math.sqrt(inverse[i][i]))
        for bot, i in index.items()
    }


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (a few dozen bots: no numpy needed)."""
    n = len(vector)
    rows = [[*row, value] for row, value in zip(matrix, vector, strict=True)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(col + 1, n):
            factor = rows[r][col] / rows[col][col]
            for c in range(col, n + 1):
                rows[r][c] -= factor * rows[col][c]
    out = [0.0] * n
    for r in range(n - 1, -1, -1):
        out[r] = (rows[r][n] - sum(rows[r][c] * out[c] for c in range(r + 1, n))) / rows[r][r]
    return out


def _inverse(matrix: list[list[float]]) -> list[list[float]]:
    n = len(matrix)
    columns = [_solve(matrix, [1.0 if r == c else 0.0 for r in range(n)]) for c in range(n)]
    return [[columns[c][r] for c in range(n)] for r in range(n)]


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
