"""pandas views of the results store: one row per match, one row per seat."""

from __future__ import annotations

import json

import pandas as pd

from arena.tournament.store import ResultsStore


def matches_frame(store: ResultsStore, tournament: str | None = None) -> pd.DataFrame:
    """Matches: tournament, idx, variant, seed, players, status, timings, worker."""
    query = (
        "SELECT m.id AS match_id, t.name AS tournament, m.idx, m.variant, m.seed, m.players,"
        " m.status, m.decisions, m.seconds, m.attempts, m.worker, m.finished_at"
        " FROM matches m JOIN tournaments t ON t.id = m.tournament_id"
    )
    params: tuple = ()
    if tournament is not None:
        query += " WHERE t.name = ?"
        params = (tournament,)
    return pd.read_sql_query(query + " ORDER BY t.id, m.idx", store.db, params=params)


def seats_frame(store: ResultsStore, tournament: str | None = None) -> pd.DataFrame:
    """Seats: one row per bot per match, with score, rank, fault and the score breakdown."""
    query = (
        "SELECT m.id AS match_id, t.name AS tournament, m.idx, m.variant, m.players, s.seat,"
        " s.bot, s.score, s.rank, s.engine_rank, s.fault, s.breakdown"
        " FROM seats s JOIN matches m ON m.id = s.match_id"
        " JOIN tournaments t ON t.id = m.tournament_id"
    )
    params: tuple = ()
    if tournament is not None:
        query += " WHERE t.name = ?"
        params = (tournament,)
    frame = pd.read_sql_query(query + " ORDER BY t.id, m.idx, s.seat", store.db, params=params)
    breakdown = pd.json_normalize([json.loads(b) for b in frame.pop("breakdown")])
    return pd.concat([frame, breakdown.add_prefix("score_")], axis=1)
