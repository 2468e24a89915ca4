"""Playing challenges in the competition's worker, beside the ladder and under a cap.

The worker plays in rounds: one wave of each board's ladder. ``Share`` lets
challenges take at most ``share`` of the matches the worker plays (the competition
file's ``[challenges] share``): every ladder match earns share / (1 − share) of a
challenge match, and the challenge matches earned go into the same executor run as
the next wave (``Together``), so they fill the workers a wave's last, longest
matches leave idle. When no board's ladder can play, challenges have the workers.

``ChallengeQueue`` keeps a runner per open challenge (``ChallengeRun``: a tournament
runner that hands out its matches a few at a time) and takes matches from each in
turn, so one long challenge does not hold the others back. A challenge is done when
its schedule is played (or its test decided); a restart resumes it as a tournament
resumes, from what is stored.

A ranked challenge (``RankedRun``) is no tournament of its own: its duplicate deals are
reserved in its board's ladder (``BoardLadder.reserve``, the first index kept with the
challenge), handed out the same way, and stored and rated by the ladder, so the board,
its checkpoints, voids, the export and ``arena leaderboard`` count them as ladder matches.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.server.accounts import Accounts
from arena.server.challenges import challenge_spec
from arena.server.competition import Competition
from arena.server.ladder import BoardLadder
from arena.tournament.matchrun import MatchTask
from arena.tournament.results import MatchResult
from arena.tournament.runner import TournamentRunner
from arena.tournament.schedule import MatchSpec, fixed_schedule, sprt_groups
from arena.tournament.store import ResultsStore, StoreError

log = logging.getLogger("arena.host")


class Share:
    """How many challenge matches the worker may add to its next run: at most ``share``
    of every match it plays, ``idle`` at a time when the ladder has nothing to play."""

    def __init__(self, share: float, idle: int) -> None:
        self.share = share
        self.idle = idle
        self.credit = 0.0  # challenge matches earned and not yet played

    def ladder_played(self, matches: int) -> None:
        earned = matches * self.share / (1 - self.share)
        self.credit = min(self.credit + earned, float(max(self.idle, 1)))

    def allowed(self) -> int:
        return int(self.credit)

    def challenges_played(self, matches: int) -> None:
        self.credit = max(0.0, self.credit - matches)


class ChallengeRun(TournamentRunner):
    """One challenge's tournament, its matches handed out ``next_tasks`` at a time."""

    def __init__(
        self,
        record: dict[str, Any],
        competition: Competition,
        store: ResultsStore,
        executor,
        data_dir: Path,
        should_stop: Callable[[], bool],
    ) -> None:
        self.challenge_id = record["id"]
        spec = challenge_spec(competition, record)
        super().__init__(
            spec, store, executor, data_dir, show_progress=False, should_stop=should_stop
        )
        self.holder = store.take_lease(self.tournament_id, spec.name)
        self.renewed = time.monotonic()
        self.tried: set[int] = set()  # handed out by this run: not handed out again in it
        for result in store.results(self.tournament_id, details=False):
            self._count(result)
        if spec.format != "sprt" and not store.planned(self.tournament_id):
            store.plan(self.tournament_id, fixed_schedule(spec))

    def _todo(self) -> list[MatchSpec]:
        done = self.store.done_indices(self.tournament_id)
        return [
            m
            for m in self.store.planned(self.tournament_id)
            if m.index not in done and m.index not in self.tried
        ]

    def _can_plan(self) -> int:
        """The next deal group a sequential test may plan, or -1: decided, every group
        planned, or a gap (a match the arena could not play) before it."""
        if self.spec.format != "sprt" or self._decide().accepted is not None:
            return -1
        (players,) = self.spec.players
        first = len(self.store.planned(self.tournament_id)) // players
        if first >= self.spec.games // players or any(i not in self.pairs for i in self.tried):
            return -1
        return first

    def next_tasks(self, limit: int) -> list[MatchTask]:
        """Up to ``limit`` matches not played yet (a test plans its next deal group)."""
        if self.spec.format == "sprt" and self._decide().accepted is not None:
            return []
        todo = self._todo()
        if not todo and (first := self._can_plan()) >= 0:
            self.store.plan(self.tournament_id, sprt_groups(self.spec, first, 1))
            todo = self._todo()
        todo = todo[:limit]
        self.tried.update(m.index for m in todo)
        return [self._task(m) for m in todo]

    def done(self) -> bool:
        """Nothing left to hand out (call between runs: no match of it in flight)."""
        if self.spec.format == "sprt" and self._decide().accepted is not None:
            return True
        return not self._todo() and self._can_plan() < 0

    def result(self, result: MatchResult) -> None:
        if self.store.record(self.tournament_id, result):
            self.stored += 1
            self._count(result)

    def failed(self, task: MatchTask, attempts: int, reason: str) -> None:
        self.store.record_failure(self.tournament_id, task.match.index, attempts, reason)
        self.failed_count += 1

    def finish(self) -> str:
        """Mark the tournament finished and let it go; what the challenge's page says of
        games the arena could not play ('' when none)."""
        failures = self.store.failures(self.tournament_id)
        if not failures:
            self.store.finish_tournament(self.tournament_id)
        self.release()
        if failures:
            return f"{len(failures)} of its games could not be played by the arena"
        return ""

    def release(self) -> None:
        if self.holder is not None:
            self.store.release_lease(self.tournament_id, self.holder)
            self.holder = None


class RankedRun:
    """A ranked challenge: its duplicate deals reserved in its board's ladder (once: the
    first index is kept with the challenge) and handed out a few at a time; the ladder
    stores and rates its games (their tasks are the ladder tournament's)."""

    def __init__(self, record: dict[str, Any], competition: Competition, accounts: Accounts,
                 ladder: BoardLadder) -> None:  # fmt: skip
        self.challenge_id = record["id"]
        spec = challenge_spec(competition, record)
        if spec.format != "duplicate":
            raise ValueError("a ranked challenge plays every deal (no sequential test)")
        self.ladder = ladder
        schedule = fixed_schedule(spec)
        start = record["ladder_start"]
        if start is None or not ladder.holds(start, schedule):
            start = ladder.reserve(schedule)
            accounts.place_ranked_challenge(self.challenge_id, start)
        self.indices = [start + m.index for m in schedule]
        self.tried: set[int] = set()  # handed out by this run: not handed out again in it
        self.stored = 0

    def _todo(self) -> list[int]:
        done = self._done()
        return [i for i in self.indices if i not in done and i not in self.tried]

    def _done(self) -> set[int]:
        """Which of its games the ladder's tournament holds (asked for its span alone)."""
        if not self.indices:
            return set()
        return self.ladder.store.done_indices(
            self.ladder.tournament_id, start=self.indices[0], stop=self.indices[-1] + 1
        )

    def next_tasks(self, limit: int) -> list[MatchTask]:
        todo = self._todo()[:limit]
        self.tried.update(todo)
        return [self.ladder.task_at(index) for index in todo]

    def done(self) -> bool:
        """Nothing left to hand out (call between runs: no match of it in flight)."""
        return not self._todo()

    def finish(self) -> str:
        """What the challenge's page says of games the arena could not play ('' when none)."""
        mine = set(self.indices)
        failures = [f for f in self.ladder.store.failures(self.ladder.tournament_id)
                    if f.idx in mine]  # fmt: skip
        self.stored = len(mine & self._done())
        if failures:
            return f"{len(failures)} of its games could not be played by the arena"
        return ""

    def release(self) -> None:
        """Nothing to let go: the ladder holds its tournament's lease."""


class ChallengeQueue:
    """The open challenges' runners; matches taken from each in turn. ``ladder_of``
    gives a board's ladder (made if need be): where a ranked challenge is played."""

    def __init__(
        self,
        accounts: Accounts,
        competition: Competition,
        store: ResultsStore,
        executor,
        data_dir: Path,
        should_stop: Callable[[], bool],
        ladder_of: Callable[[str], BoardLadder] | None = None,
    ) -> None:
        self.accounts = accounts
        self.competition = competition
        self.store = store
        self.executor = executor
        self.data_dir = data_dir
        self.should_stop = should_stop
        self.ladder_of = ladder_of
        self.runs: dict[int, ChallengeRun | RankedRun] = {}
        self.turn = 0

    def _runner(self, record: dict[str, Any]) -> ChallengeRun | RankedRun:
        if record["ranked"]:
            if self.ladder_of is None:
                raise ValueError("ranked challenges are played by the competition's worker")
            ladder = self.ladder_of(record["board"])
            return RankedRun(record, self.competition, self.accounts, ladder)
        return ChallengeRun(
            record, self.competition, self.store, self.executor, self.data_dir, self.should_stop
        )

    def refresh(self) -> None:
        """Runners for new challenges; the done ones finished (between runs only)."""
        for record in self.accounts.open_challenges():
            if record["id"] not in self.runs:
                try:
                    self.runs[record["id"]] = self._runner(record)
                except (ValueError, StoreError) as error:  # e.g. a bot no longer registered
                    log.info("challenge %d cannot be played: %s", record["id"], error)
                    self.accounts.finish_challenge(record["id"], f"it cannot be played: {error}")
        for challenge_id, run in list(self.runs.items()):
            if run.done():
                reason = run.finish()
                self.accounts.finish_challenge(challenge_id, reason)
                del self.runs[challenge_id]
                log.info("challenge %d finished (%d games)", challenge_id, run.stored)

    def tasks(self, limit: int) -> list[MatchTask]:
        """Up to ``limit`` matches, one from each open challenge in turn."""
        if limit <= 0:
            return []
        self.refresh()
        taken: list[MatchTask] = []
        runs = list(self.runs.values())
        idle = 0
        while runs and len(taken) < limit and idle < len(runs):
            run = runs[self.turn % len(runs)]
            self.turn += 1
            got = run.next_tasks(1)
            taken += got
            idle = 0 if got else idle + 1
        return taken

    def sink(self, name: str) -> TournamentRunner | None:
        """The runner that stores tournament ``name``'s results: a challenge's, or the
        ladder a ranked challenge is played in."""
        for run in self.runs.values():
            runner = run.ladder if isinstance(run, RankedRun) else run
            if runner.spec.name == name:
                return runner
        return None

    def close(self, reason: str) -> None:
        """At the deadline: open challenges end where they are."""
        for challenge_id, run in list(self.runs.items()):
            run.release()
            del self.runs[challenge_id]
        for record in self.accounts.open_challenges():
            self.accounts.finish_challenge(record["id"], reason)

    def release(self) -> None:
        for run in self.runs.values():
            run.release()


class Together:
    """One executor run's sink for a ladder's wave and challenge matches: each result to
    the runner of its tournament; ``tick`` renews every lease and stops on ``stop``."""

    def __init__(self, runners: list[TournamentRunner], stop: Callable[[], bool]) -> None:
        self.runners = {runner.spec.name: runner for runner in runners}
        self.stop = stop

    def result(self, result: MatchResult) -> None:
        self.runners[result.tournament].result(result)

    def failed(self, task: MatchTask, attempts: int, reason: str) -> None:
        self.runners[task.tournament].failed(task, attempts, reason)

    def tick(self) -> bool:
        for runner in self.runners.values():
            runner.tick()  # renews its lease (a decided test's False is not a stop here)
        return not self.stop()
