"""Rewards: how a finished (or running) game is scored for learning.

Three schemes, all zero-sum-free and per seat:

- ``score``: own final score minus the best final score among the other seats (positive only
  for a clear win);
- ``rank``: from +1 (first) to -1 (last), linear in the rank; tied seats share the mean of the
  places they occupy;
- ``win``: +1 for each winner (rank 1, after the engine's tie-breaks; shared if tied), -1 for
  the others.

By default a reward is paid only when the game ends. ``dense=True`` (``score`` only) pays the
change of "own points minus the best other seat's points", as every player sees the points
during the game (``state.scored_points``), after every move; the rewards of a game then add up
to exactly the terminal ``score`` reward.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from arena.engine import GameResult

SCHEMES = ("score", "rank", "win")


def margin(points: Sequence[int], seat: int) -> float:
    """Own points minus the best among the other seats."""
    others = [p for s, p in enumerate(points) if s != seat]
    return float(points[seat] - max(others))


def score_reward(result: GameResult, seat: int) -> float:
    return margin(result.scores, seat)


def rank_reward(result: GameResult, seat: int) -> float:
    players = len(result.ranks)
    rank = result.ranks[seat]  # competition ranks: 1, 1, 3 ...
    tied = result.ranks.count(rank)
    place = rank - 1 + (tied - 1) / 2  # the mean of the 0-based places the tied seats fill
    return 1.0 - 2.0 * place / (players - 1)


def win_reward(result: GameResult, seat: int) -> float:
    return 1.0 if result.ranks[seat] == 1 else -1.0


TERMINAL: dict[str, Callable[[GameResult, int], float]] = {
    "score": score_reward,
    "rank": rank_reward,
    "win": win_reward,
}


def check(reward: str, dense: bool) -> Callable[[GameResult, int], float]:
    """The terminal reward function of ``reward``; ``ValueError`` for a bad choice."""
    if reward not in TERMINAL:
        raise ValueError(f"reward must be one of {', '.join(SCHEMES)}, not {reward!r}")
    if dense and reward != "score":
        raise ValueError("dense=True pays points as they are scored: it needs reward='score'")
    return TERMINAL[reward]
