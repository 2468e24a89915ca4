"""Reading finished matches from the results store, in the one fixed order ratings use.

The order is: tournament (by creation), then the match's index in that
tournament's schedule. It does not depend on when or where a match finished,
so the same results always give the same ratings. The matches are the
store's one result type, ``MatchResult`` (``StoredMatch`` is its name here).
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.tournament.results import MatchResult
from arena.tournament.store import ResultsStore

StoredMatch = MatchResult


def stored_matches(
    store: ResultsStore,
    variant: str | None = None,
    players: int | None = None,
    leave_out: Sequence[int] = (),
) -> list[StoredMatch]:
    """Every stored match (of ``variant`` / ``players`` if given; not of the tournaments
    ``leave_out``: ``store.left_out()`` for the leaderboards' matches), in rating order,
    without score breakdowns (the leaderboards do not need them)."""
    return store.results(variant=variant, players=players, details=False, leave_out=leave_out)
