"""The ladder: continuous, rating-driven matchmaking over an open pool of bots.

Matches are scheduled in waves of ``spec.ladder_wave``: the wave starting at
index ``start`` is chosen from the ratings of the matches before ``start``
(rated in schedule order), with a generator seeded by the tournament seed and
``start``. So a wave's pairings are a function of the seed and of the earlier
waves' results only, never of timing or of what happened to be stored when;
the runner stores each wave's plan before playing it, so a resumed ladder
replays the same plan.

- Who plays: a "focus" bot is drawn with weight sigma² / (1 + games), so
  new and uncertain bots play more.
- Against whom: each opponent is drawn with weight
  exp(-|Δmu| / spread) + floor: mostly bots of similar rating, but the
  floor keeps every pairing possible, so a newcomer can meet the leader.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import trueskill

from arena.tournament.ratings import ENV
from arena.tournament.schedule import MatchSpec, derive_seed
from arena.tournament.spec import TournamentSpec

SPREAD = 4.0  # mu difference at which an opponent's weight falls by e
FLOOR = 0.05  # the least weight any opponent keeps


def next_wave(
    spec: TournamentSpec,
    pool: Sequence[str],
    ratings: dict[str, trueskill.Rating],
    games: dict[str, int],
    start: int,
    count: int,
) -> list[MatchSpec]:
    """The next ``count`` matches, from index ``start``."""
    rng = random.Random(derive_seed(spec.seed, "ladder-wave", start))
    planned = dict(games)
    wave = []
    for index in range(start, start + count):
        players = spec.players[index % len(spec.players)]
        rating = {bot: ratings.get(bot, ENV.create_rating()) for bot in pool}
        focus_weights = [rating[b].sigma ** 2 / (1 + planned.get(b, 0)) for b in pool]
        focus = rng.choices(pool, weights=focus_weights)[0]
        chosen = [focus]
        while len(chosen) < players:
            others = [b for b in pool if b not in chosen]
            weights = [
                math.exp(-abs(rating[b].mu - rating[focus].mu) / SPREAD) + FLOOR for b in others
            ]
            chosen.append(rng.choices(others, weights=weights)[0])
        rng.shuffle(chosen)
        for bot in chosen:
            planned[bot] = planned.get(bot, 0) + 1
        wave.append(MatchSpec(index, derive_seed(spec.seed, "ladder", index), tuple(chosen)))
    return wave
