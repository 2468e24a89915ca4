"""A competition's leaderboards: one per ranked variant and player count, each rated from
its own ladder's matches only, less the matches an admin voided.

A board folds in only the matches stored since its last read (match ids sort in
rating order), so a page costs the new matches' TrueSkill updates, not a pass
over every match; a void starts it again from nothing (the board is then that
of a full recompute without the voided match). The final's table
(``arena.server.finals``) is rated with ``FINAL_ENV``, τ = 0: no dynamics, so the
order its matches are rated in barely matters.
"""

from __future__ import annotations

import threading
from typing import Any

import trueskill

from arena.tournament.ratings import DRAW_PROBABILITY
from arena.tournament.store import ResultsStore
from leaderboards.standings import Board

FINAL_ENV = trueskill.TrueSkill(draw_probability=DRAW_PROBABILITY, tau=0, backend=None)


class LiveBoard:
    """The board of one tournament, brought up to date on each read."""

    def __init__(self, tournament: str) -> None:
        self.tournament = tournament
        self.lock = threading.Lock()
        self.board = Board()
        self.position = 0
        self.voided: frozenset[int] = frozenset()
        self.matches = 0
        self.shown: list[dict[str, Any]] = []
        self.complete = False  # whether ``shown`` holds every stored match (not mid-fold)

    def update(self, store: ResultsStore, voided: set[int]) -> Board:
        """The board with every stored match not in ``voided``."""
        with self.lock:
            return self._update(store, voided)

    def _update(self, store: ResultsStore, voided: set[int]) -> Board:
        if not voided >= self.voided or any(v <= self.position for v in voided - self.voided):
            self.board, self.position, self.matches = Board(), 0, 0  # a void: recompute
        self.voided = frozenset(voided)
        for match in store.tournament_results_after(self.tournament, self.position):
            if match.match_id not in voided:
                self.board.add(match)
                self.matches += 1
            self.position = match.match_id
        return self.board

    def rows(self, store: ResultsStore, voided: set[int]) -> list[dict[str, Any]]:
        """The board's rows; while another thread is folding matches in (a long ladder read
        for the first time after a start), the rows of the last fold, without waiting."""
        if not self.lock.acquire(blocking=False):
            self.complete = False
            return self.shown
        try:
            self.shown = self._update(store, voided).rows()
            self.complete = True
        finally:
            self.lock.release()
        return self.shown
