"""Places in a final, and which of them the games could not tell apart.

Two adjacent places are apart when the one above is the stronger with probability at
least 95%: each bot's skill is known to within its TrueSkill σ, so the difference of
two skills is normal with mean μ₁ − μ₂ and variance σ₁² + σ₂². Places closer than
that are shown tied (one rank for the group, chained: if 3 is within the noise of 2,
and 2 of 1, the three share place 1). ``benchmarks/ratings.py --final-games`` measures
how many games a round robin needs for adjacent places of a given spread to be apart.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

APART_Z = 1.645  # one-sided 95%: P(the bot above is stronger) >= 0.95


def apart(upper: tuple[float, float], lower: tuple[float, float]) -> bool:
    """Whether ``upper`` (μ, σ) is stronger than ``lower`` with probability ≥ 95%."""
    spread = math.sqrt(upper[1] ** 2 + lower[1] ** 2)
    return upper[0] - lower[0] >= APART_Z * spread


def placed(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` (in rank order, each with ``mu`` and ``sigma``) with ``rank`` set, tied
    places sharing the rank of the first of their group, and ``tied`` (bool) marking
    every row that shares its rank."""
    out = [dict(row) for row in rows]
    rank = 1
    for index, row in enumerate(out):
        if index and not apart(
            (out[index - 1]["mu"], out[index - 1]["sigma"]), (row["mu"], row["sigma"])
        ):
            row["rank"] = out[index - 1]["rank"]
        else:
            row["rank"] = rank
        rank += 1
    sharing = Counter(row["rank"] for row in out)
    for row in out:
        row["tied"] = sharing[row["rank"]] > 1
    return out
