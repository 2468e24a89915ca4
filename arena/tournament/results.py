"""The one result type of a tournament match, from the worker that played it to every reader.

A ``MatchResult`` is built once from the referee's ``GameOutcome`` (on the
worker), travels to the driver (pickled, so it is plain data), is written by
the store, and is what the store's queries give back to the runner, the
leaderboards, the pandas frames and the benchmarks. Fields the store fills in
when it writes (``tournament``, ``match_id``, ``finished_at``) are empty until
then; a query that does not need the log or the breakdown leaves them empty.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Sequence
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from arena.referee.referee import GameOutcome

# A match's id is a function of its tournament and its place in the schedule, so the
# same tournament gives the same ids (exports, site URLs) on any executor.
MATCH_ID_STRIDE = 1_000_000_000


def match_id(tournament_id: int, index: int) -> int:
    """The stable id of match ``index`` of tournament ``tournament_id``."""
    return tournament_id * MATCH_ID_STRIDE + index


class MatchResult(msgspec.Struct, frozen=True):
    """A finished match: who sat where, what they scored, how it ranked, what went wrong.

    A msgspec Struct: plain data that pickles (workers, Ray), and cheap to build by the
    hundred thousand when the leaderboards read the store."""

    idx: int  # the match's index in its tournament's schedule
    variant: str
    seed: int
    bots: tuple[str, ...]  # by seat: the names results are stored under
    scores: tuple[int, ...]
    ranks: tuple[int, ...]  # after forfeits (a forfeited seat ranks last)
    engine_ranks: tuple[int, ...]  # as the rules rank the final scores
    faults: tuple[str | None, ...]  # by seat: the forfeit code, or None
    fault_details: tuple[str | None, ...] = ()
    breakdown: tuple[dict[str, int], ...] = ()
    decisions: int = 0
    seconds: float = 0.0
    log: bytes = b""  # the JSON-lines match log
    worker: str = ""  # host:pid of the process that ran the referee
    attempts: int = 1  # 1 + the times a worker died while playing it
    tournament: str = ""
    match_id: int = 0
    finished_at: float = 0.0

    @property
    def players(self) -> int:
        return len(self.bots)

    @property
    def details_by_seat(self) -> tuple[str | None, ...]:
        """Each seat's fault detail, or None (results read without details have none)."""
        return self.fault_details or (None,) * self.players

    @property
    def faulted(self) -> set[int]:
        """The seats that forfeited."""
        return {seat for seat, code in enumerate(self.faults) if code is not None}

    @classmethod
    def from_outcome(
        cls,
        outcome: GameOutcome,
        idx: int,
        variant: str,
        bots: Sequence[str],
        worker: str | None = None,
    ) -> MatchResult:
        """The result of a game the referee played (a tournament's match, a person's game),
        with ``bots`` the stored names by seat and ``worker`` who played it (this process)."""
        result = outcome.result
        by_seat = {fault.seat: fault for fault in outcome.faults}
        seats = range(len(bots))
        return cls(
            idx=idx,
            variant=variant,
            seed=outcome.log.header["seed"],
            bots=tuple(bots),
            scores=tuple(result.scores),
            ranks=tuple(outcome.ranks),
            engine_ranks=tuple(result.ranks),
            faults=tuple(by_seat[s].code if s in by_seat else None for s in seats),
            fault_details=tuple(by_seat[s].detail if s in by_seat else None for s in seats),
            breakdown=tuple(dict(row) for row in result.breakdown),
            decisions=outcome.decisions,
            seconds=outcome.seconds,
            log=outcome.log.to_jsonl(),
            worker=worker or f"{socket.gethostname()}:{os.getpid()}",
        )
