"""Reading finished matches from the results store, in the one fixed order ratings use.

The order is: tournament (by creation), then the match's index in that
tournament's schedule. It does not depend on when or where a match finished,
so the same results always give the same ratings.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.tournament.store import ResultsStore


@dataclass(frozen=True)
class StoredMatch:
    match_id: int
    tournament: str
    idx: int
    variant: str
    finished_at: float
    bots: tuple[str, ...]  # by seat
    scores: tuple[int, ...]
    ranks: tuple[int, ...]  # after forfeits
    faults: tuple[str | None, ...]


def stored_matches(
    store: ResultsStore, variant: str | None = None, players: int | None = None
) -> list[StoredMatch]:
    """Every stored match (of ``variant`` / ``players`` if given), in rating order."""
    query = (
        "SELECT m.id, t.name, m.idx, m.variant, m.finished_at, s.bot, s.score, s.rank, s.fault"
        " FROM matches m JOIN tournaments t ON t.id = m.tournament_id"
        " JOIN seats s ON s.match_id = m.id"
    )
    where, params = [], []
    if variant is not None:
        where.append("m.variant = ?")
        params.append(variant)
    if players is not None:
        where.append("m.players = ?")
        params.append(players)
    if where:
        query += " WHERE " + " AND ".join(where)
    query += " ORDER BY t.id, m.idx, s.seat"
    matches: list[StoredMatch] = []
    current: list = []
    for row in store.db.execute(query, params):
        if current and row[0] != current[0][0]:
            matches.append(_match(current))
            current = []
        current.append(row)
    if current:
        matches.append(_match(current))
    return matches


def _match(rows: list) -> StoredMatch:
    first = rows[0]
    return StoredMatch(
        match_id=first[0],
        tournament=first[1],
        idx=first[2],
        variant=first[3],
        finished_at=first[4],
        bots=tuple(r[5] for r in rows),
        scores=tuple(r[6] for r in rows),
        ranks=tuple(r[7] for r in rows),
        faults=tuple(r[8] for r in rows),
    )
