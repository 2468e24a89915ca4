"""The result of a finished game: scores, their breakdown, ranks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena.engine.scoring import competition_ranks


@dataclass(frozen=True)
class GameResult:
    """Final scores, ranks (1 = first; tied seats share a rank) and per-seat breakdowns.

    ``categories`` names the breakdown entries that add up to the total; the
    other breakdown entries are statistics (counts, path lengths) used by
    tie-breaks and tables.
    """

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    breakdown: tuple[dict[str, int], ...]
    categories: tuple[str, ...]
    tie_breaks: tuple[str, ...]

    @classmethod
    def from_breakdown(
        cls,
        rows: Sequence[dict[str, int]],
        categories: Sequence[str],
        tie_breaks: Sequence[str],
    ) -> GameResult:
        for row in rows:
            row["total"] = sum(row[c] for c in categories)
        keys = [(row["total"], *(row[k] for k in tie_breaks)) for row in rows]
        return cls(
            scores=tuple(row["total"] for row in rows),
            ranks=tuple(competition_ranks(keys)),
            breakdown=tuple(rows),
            categories=tuple(categories),
            tie_breaks=tuple(tie_breaks),
        )

    @property
    def winners(self) -> tuple[int, ...]:
        return tuple(seat for seat, rank in enumerate(self.ranks) if rank == 1)

    def to_json(self) -> dict[str, Any]:
        return {
            "scores": list(self.scores),
            "ranks": list(self.ranks),
            "breakdown": [dict(row) for row in self.breakdown],
            "categories": list(self.categories),
            "tie_breaks": list(self.tie_breaks),
        }


@dataclass(frozen=True)
class ScoreLabel:
    """How tables show a score category: a short column heading and its meaning in words."""

    heading: str
    legend: str
