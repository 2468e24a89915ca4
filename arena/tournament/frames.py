"""pandas views of the results store: one row per match, one row per seat."""

from __future__ import annotations

import pandas as pd

from arena.tournament.store import ResultsStore

MATCH_COLUMNS = [
    "match_id",
    "tournament",
    "idx",
    "variant",
    "seed",
    "players",
    "status",
    "decisions",
    "seconds",
    "attempts",
    "worker",
    "finished_at",
]
SEAT_COLUMNS = [
    "match_id",
    "tournament",
    "idx",
    "variant",
    "players",
    "seat",
    "bot",
    "score",
    "rank",
    "engine_rank",
    "fault",
]


def matches_frame(store: ResultsStore, tournament: str | None = None) -> pd.DataFrame:
    """Matches: tournament, idx, variant, seed, players, status, timings, worker."""
    rows = [
        (
            m.match_id,
            m.tournament,
            m.idx,
            m.variant,
            m.seed,
            m.players,
            "done",
            m.decisions,
            m.seconds,
            m.attempts,
            m.worker,
            m.finished_at,
        )
        for m in store.results(tournament, details=False)
    ]
    return pd.DataFrame(rows, columns=MATCH_COLUMNS)


def seats_frame(store: ResultsStore, tournament: str | None = None) -> pd.DataFrame:
    """Seats: one row per bot per match, with score, rank, fault and the score breakdown."""
    rows, breakdowns = [], []
    for m in store.results(tournament):
        for seat, bot in enumerate(m.bots):
            rows.append(
                (
                    m.match_id,
                    m.tournament,
                    m.idx,
                    m.variant,
                    m.players,
                    seat,
                    bot,
                    m.scores[seat],
                    m.ranks[seat],
                    m.engine_ranks[seat],
                    m.faults[seat],
                )
            )
            breakdowns.append(m.breakdown[seat])
    frame = pd.DataFrame(rows, columns=SEAT_COLUMNS)
    breakdown = pd.json_normalize(breakdowns) if breakdowns else pd.DataFrame()
    return pd.concat([frame, breakdown.add_prefix("score_")], axis=1)
