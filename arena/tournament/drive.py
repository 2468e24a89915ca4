"""Running a tournament for the command line: from a parsed spec to an exit status.

Everything a user can meet on the way becomes one line and an exit status: a
damaged, full or read-only store, a second driver, an unreachable or lost Ray
cluster (1); Ctrl-C or SIGTERM, which stop the run within seconds, leave no
process behind and say how to resume (130, 143); matches the arena could not
play (1, after the rest of the tournament was played).
"""

from __future__ import annotations

import signal
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from rich.console import Console

from arena.referee.pool import sweep_folders
from arena.tournament.executors import ExecutorError, LocalExecutor
from arena.tournament.rayexec import sweep_sessions
from arena.tournament.runner import TournamentRunner
from arena.tournament.spec import TournamentSpec
from arena.tournament.store import Failure, ResultsStore, StoreError

SIGNALS: dict[int, tuple[str, int]] = {
    signal.SIGINT: ("Ctrl-C", 130),
    signal.SIGTERM: ("SIGTERM", 143),
}


class RunError(RuntimeError):
    """The run could not go on; the message is one line, ``exit_code`` the status to exit with."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class RunStopped(RunError):
    """Stopped by a signal; the same command resumes."""


class StopSignals:
    """SIGINT and SIGTERM, while active, ask the run to stop instead of killing it: the
    executor starts nothing more and ends what is in flight. A second signal stops at once."""

    def __init__(self) -> None:
        self.received: int | None = None
        self.previous: dict[int, Any] = {}  # whatever signal.signal returned

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.received is not None:
            raise KeyboardInterrupt  # a second Ctrl-C: unwind now (cleanup still runs)
        self.received = signum

    def requested(self) -> bool:
        return self.received is not None

    def __enter__(self) -> StopSignals:
        for signum in SIGNALS:
            self.previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)


@dataclass
class RunOutcome:
    stored: int  # matches stored by this run
    runner: TournamentRunner  # its standings, its spec
    failures: list[Failure] = field(default_factory=list)  # matches the arena could not play


def make_executor(ray: str | None, workers: int, data_dir: Path):
    """The local pool, or Ray (``ray`` is 'local' or a cluster address)."""
    if not ray:
        return LocalExecutor(workers)
    from arena.tournament.rayexec import RayExecutor

    return RayExecutor(None if ray == "local" else ray, workers, data_dir)


def run_tournament(
    spec: TournamentSpec,
    store: ResultsStore,
    *,
    workers: int = 1,
    ray: str | None = None,
    logs_dir: Path | None = None,
    show_progress: bool = True,
    in_process: bool = False,
    console: Console | None = None,
) -> RunOutcome:
    """Run or resume ``spec`` with results in ``store``; RunError (one line) for everything
    that stops it early."""
    data_dir = store.data_dir
    with StopSignals() as signals:
        sweep_sessions(data_dir)  # a local Ray left behind by a driver that died
        sweep_folders()  # pool folders left behind by workers that were killed
        try:
            executor = make_executor(ray, workers, data_dir)
            try:
                runner = TournamentRunner(
                    spec,
                    store,
                    executor,
                    data_dir,
                    console=console,
                    show_progress=show_progress,
                    in_process=in_process,
                    logs_dir=logs_dir,
                    should_stop=signals.requested,
                )
                runner.run()
            finally:
                executor.close()
            outcome = RunOutcome(runner.stored, runner, store.failures(runner.tournament_id))
            if signals.received is not None:
                name, status = SIGNALS[signals.received]
                played = len(store.done_indices(runner.tournament_id))
                raise RunStopped(
                    f"stopped by {name}: {played} of {runner.total} matches of '{spec.name}' "
                    "are stored; run the same command to resume",
                    status,
                )
        except (StoreError, ExecutorError) as error:
            raise RunError(str(error)) from None
    return outcome
