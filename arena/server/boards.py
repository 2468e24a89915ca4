"""A competition's leaderboards: one per ranked variant and player count, each rated from
its own ladder's matches only, less the matches an admin voided.

A board folds in only the matches stored since its last read (match ids sort in
rating order), so a change costs the new matches' TrueSkill updates, not a pass over
every match; at start it resumes from the board's newest checkpoint in the store
(``arena.server.boardstate``) and saves one as it grows. Matches of a wave land in
any order: when one lands below what the board holds, or a void changes what it must
leave out, the board falls back to the newest of its recent in-memory marks that is
still sound (else the stored checkpoints, else nothing) and folds on from there, so
it is always the board of a full recompute. The final's table (``arena.server.finals``)
is rated with ``FINAL_ENV``, τ = 0: no dynamics, so the order its matches are rated in
barely matters.
"""

from __future__ import annotations

import threading
from array import array
from bisect import bisect_right
from typing import Any

import trueskill

from arena.server import boardstate
from arena.server.boardstate import Folded
from arena.tournament.ratings import DRAW_PROBABILITY
from arena.tournament.results import MatchResult
from arena.tournament.store import ResultsStore
from leaderboards.standings import Board

FINAL_ENV = trueskill.TrueSkill(draw_probability=DRAW_PROBABILITY, tau=0, backend=None)
MARK_EVERY = 8  # matches between in-memory marks (a wave landing out of order refolds few)
MARKS = 16  # marks kept: 128 matches back
SAVE_EVERY = 200  # matches between stored checkpoints
TRAIL = 4  # a checkpoint is saved from the mark this many back: its wave has landed


class LiveBoard:
    """The board of one tournament, brought up to date on each read."""

    def __init__(self, tournament: str, save: bool = True) -> None:
        self.tournament = tournament
        self.save = save  # checkpoints saved as it grows (the server's boards)
        self.lock = threading.Lock()
        self.state = Folded()
        self.marks: list[Folded] = []
        self.started = False  # whether it has looked for a stored checkpoint
        self.saved = 0  # ``seen`` of the last checkpoint saved or resumed from
        self.folds = 0  # matches folded in since this object was made (a restart's cost)
        self.shown: list[dict[str, Any]] = []
        self.complete = False  # whether ``shown`` holds every stored match (not mid-fold)
        # Each bot's (μ, σ) after each of its rated matches, in rating order, with the
        # match's id: its rating over time (float32 pairs: a few bytes a game, also on a long
        # ladder). A board resumed from a checkpoint has the games folded since.
        self.history: dict[str, tuple[array, array]] = {}

    @property
    def board(self) -> Board:
        return self.state.board

    @property
    def matches(self) -> int:
        """How many matches the board rates."""
        return self.state.rated

    def update(self, store: ResultsStore, voided: set[int]) -> Board:
        """The board with every stored match not in ``voided``."""
        with self.lock:
            return self._update(store, voided)

    def _update(self, store: ResultsStore, voided: set[int]) -> Board:
        tid = store.tournament_id_of(self.tournament)
        if tid is None:
            return self.state.board
        with store.read_snapshot():
            total = store.tournament_count(tid)
            if not self.started:  # a start: from the newest stored checkpoint
                self.state = self._fallback(store, tid, total, voided)
                self.started = True
            new = store.tournament_results_after_id(tid, self.state.position)
            if total - len(new) != self.state.seen or not self.state.holds(voided):
                self.state = self._fallback(store, tid, total, voided)
                new = store.tournament_results_after_id(tid, self.state.position)
        for match in new:
            self.state.add(match, voided)
            self.folds += 1
            if match.match_id not in voided:
                self._record(match)
            if self.state.seen % MARK_EVERY == 0:
                self.marks = [*self.marks[-(MARKS - 1) :], self.state.copy()]
                if self.state.seen - self.saved >= boardstate.MILESTONE:
                    self._checkpoint(store, tid)  # a long first fold: kept on the way
        self._checkpoint(store, tid)
        return self.state.board

    def _record(self, match: MatchResult) -> None:
        """Each of the match's bots' rating after it (the bot page's chart)."""
        for bot in set(match.bots):
            rating = self.state.board.ratings.get(bot)
            if rating is not None:
                ids, values = self.history.setdefault(bot, (array("q"), array("f")))
                ids.append(match.match_id)
                values.extend((rating.mu, rating.sigma))

    def _forget_after(self, position: int) -> None:
        """Drop the ratings recorded after ``position`` (a refold records them again)."""
        for ids, values in self.history.values():
            keep = bisect_right(ids, position)
            del ids[keep:]
            del values[2 * keep :]

    def _fallback(self, store: ResultsStore, tid: int, total: int, voided: set[int]) -> Folded:
        """The newest in-memory mark still sound, else the stored checkpoints' newest (the
        ratings recorded after it are dropped: they are folded again)."""
        folded = self._sound_start(store, tid, total, voided)
        self._forget_after(folded.position)
        return folded

    def _sound_start(self, store: ResultsStore, tid: int, total: int, voided: set[int]) -> Folded:
        while self.marks:
            mark = self.marks[-1]
            if mark.holds(voided) and total - store.matches_after(tid, mark.position) == mark.seen:
                return mark.copy()
            self.marks.pop()
        folded = boardstate.stored_start(store, tid, total, voided)
        self.saved = folded.seen
        return folded

    def _checkpoint(self, store: ResultsStore, tid: int) -> None:
        if not self.save or len(self.marks) < TRAIL:
            return
        mark = self.marks[-TRAIL]
        if mark.seen - self.saved >= SAVE_EVERY and boardstate.save(store, tid, mark):
            self.saved = mark.seen

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

    def rating_history(self, bot: str) -> list[tuple[float, float]]:
        """``bot``'s (μ, σ) after each of its rated matches on this board, oldest first (as
        of the last fold; read without waiting for a fold: copying the array is atomic)."""
        found = self.history.get(bot)
        values = list(found[1]) if found is not None else []
        return list(zip(values[::2], values[1::2], strict=True))
