"""A bot's win rates and score margins with their 95% intervals, per board and per opponent.

The sums come from the results store (``ResultsStore.bot_tallies``) and are kept per bot:
each read adds only the seats stored since the last one (a bot with 100,000 matches costs
one full pass, then the new matches only); a removed or changed match (the store's ratings
epoch moves) starts the sums again. Voided matches are taken out at each read.

Win rate: the Wilson score interval (right also near 0% and 100%, where the normal one
leaves [0, 1]). Mean margin: Student's t interval (the normal one from 30 games on).
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from typing import Any

from arena.tournament.store import ResultsStore

Z95 = 1.959963984540054
# Student's t, two-sided 95%, by degrees of freedom 1..29 (from 30 on, the normal's z).
T95 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045,
)  # fmt: skip


def wilson(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``wins / n`` (n ≥ 1)."""
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(total: float, square: float, n: int) -> tuple[float, float, float] | None:
    """The mean of n values given their sum and sum of squares, with its 95% t interval;
    None for fewer than two values (no spread to measure)."""
    if n < 2:
        return None
    mean = total / n
    variance = max(0.0, (square - n * mean * mean) / (n - 1))
    quantile = T95[n - 2] if n - 1 <= len(T95) else Z95
    half = quantile * math.sqrt(variance / n)
    return mean, mean - half, mean + half


@dataclass
class Sums:
    n: int = 0
    wins: int = 0
    margin: int = 0
    square: int = 0

    def add(self, n: int, wins: int, margin: int, square: int, sign: int = 1) -> None:
        self.n += sign * n
        self.wins += sign * (wins or 0)
        self.margin += sign * (margin or 0)
        self.square += sign * (square or 0)

    def shown(self) -> dict[str, Any]:
        """What a page shows: games, wins, win rate and mean margin with their intervals."""
        if self.n <= 0:
            return {"n": 0}
        low, high = wilson(self.wins, self.n)
        found = mean_interval(self.margin, self.square, self.n)
        return {
            "n": self.n,
            "wins": self.wins,
            "rate": self.wins / self.n,
            "rate_low": low,
            "rate_high": high,
            "margin": self.margin / self.n,
            "margin_low": found[1] if found else None,
            "margin_high": found[2] if found else None,
        }


Tallies = tuple[dict[int, Sums], dict[tuple[int, str], Sums]]


@dataclass
class Kept:
    """One bot's sums so far: up to seat row ``last``, at ratings epoch ``epoch``."""

    epoch: int | None
    last: int
    boards: dict[int, Sums]
    pairs: dict[tuple[int, str], Sums]


class TallyCache:
    """Each bot's sums, brought up to date on each read (one lock: a read is short)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.kept: dict[tuple, Kept] = {}

    def tallies(
        self,
        store: ResultsStore,
        labels: list[str],
        tournaments: list[str],
        voided: set[int],
    ) -> Tallies:
        """Per tournament id, and per tournament id and opponent label, the sums of the
        bot's matches (its versions ``labels``) in ``tournaments``, less the voided ones."""
        key = (tuple(sorted(labels)), tuple(sorted(tournaments)))
        with self.lock:
            epoch = store.ratings_epoch()
            kept = self.kept.get(key)
            if kept is None or kept.epoch != epoch or epoch is None:
                kept = Kept(epoch, 0, {}, {})
            boards, pairs, kept.last = store.bot_tallies(labels, tournaments, after=kept.last)
            _fold(kept.boards, kept.pairs, boards, pairs, 1)
            self.kept[key] = kept
            result_boards = {k: Sums(**vars(v)) for k, v in kept.boards.items()}
            result_pairs = {k: Sums(**vars(v)) for k, v in kept.pairs.items()}
        if voided:
            boards, pairs, _ = store.bot_tallies(labels, tournaments, matches=sorted(voided))
            _fold(result_boards, result_pairs, boards, pairs, -1)
        return result_boards, result_pairs


def _fold(
    into_boards: dict[int, Sums],
    into_pairs: dict[tuple[int, str], Sums],
    boards: list[tuple],
    pairs: list[tuple],
    sign: int,
) -> None:
    for tournament, n, wins, margin, square in boards:
        into_boards.setdefault(tournament, Sums()).add(n, wins, margin, square, sign)
    for tournament, opponent, n, wins, margin, square in pairs:
        into_pairs.setdefault((tournament, opponent), Sums()).add(n, wins, margin, square, sign)
