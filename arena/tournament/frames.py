"""pandas views of the results store: one row per match, one row per seat."""

from __future__ import annotations

import json

import pandas as pd

from arena.tournament.store import ResultsStore

MATCH_COLUMNS = (
    "m.id AS match_id, t.name AS tournament, m.idx, m.variant, m.seed, m.players, m.status,"
    " m.decisions, m.seconds, m.attempts, m.worker, m.finished_at"
)
SEAT_COLUMNS = (
    "m.id AS match_id, t.name AS tournament, m.idx, m.variant, m.players, s.seat, s.bot,"
    " s.score, s.rank, s.engine_rank, s.fault, s.breakdown"
)


def _query(store: ResultsStore, columns: str, joins: str, order: str, tournament: str | None):
    query = f"SELECT {columns} FROM matches m JOIN tournaments t ON t.id = m.tournament_id {joins}"
    params: tuple = ()
    if tournament is not None:
        query += " WHERE t.name = ?"
        params = (tournament,)
    return pd.read_sql_query(f"{query} ORDER BY {order}", store.db, params=params)


def matches_frame(store: ResultsStore, tournament: str | None = None) -> pd.DataFrame:
    """Matches: tournament, idx, variant, seed, players, status, timings, worker."""
    return _query(store, MATCH_COLUMNS, "", "t.id, m.idx", tournament)


def seats_frame(store: ResultsStore, tournament: str | None = None) -> pd.DataFrame:
    """Seats: one row per bot per match, with score, rank, fault and the score breakdown."""
    frame = _query(
        store, SEAT_COLUMNS, "JOIN seats s ON s.match_id = m.id", "t.id, m.idx, s.seat", tournament
    )
    breakdown = pd.json_normalize([json.loads(b) for b in frame.pop("breakdown")])
    return pd.concat([frame, breakdown.add_prefix("score_")], axis=1)
