"""The worker's job: play one scheduled match with its own referee and bot processes."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from pathlib import Path

from arena.referee.faults import TimeControl
from arena.referee.keys import MatchKey
from arena.referee.launch import BotEntry, ProcessMatch, in_process_referee
from arena.referee.process import ProcessLimits
from arena.referee.referee import GameOutcome
from arena.tournament.schedule import MatchSpec
from arena.tournament.store import MatchRecord
from arena.variants import get_variant


@dataclass(frozen=True)
class MatchTask:
    """Everything a worker needs to play a match (plain, picklable data)."""

    tournament: str
    variant: str
    match: MatchSpec
    entries: tuple[BotEntry, ...]  # by seat
    labels: tuple[str, ...]  # by seat: the names results are stored under
    time_control: TimeControl
    limits: ProcessLimits
    log_dir: str
    in_process: bool = False  # trusted plugin bots called directly: same games, no processes
    data_dir: str | None = None  # the match log names the bots' log files relative to it
    secret: bytes = b""  # the tournament's key: the game's seed and all a bot is told


def play_match(task: MatchTask) -> MatchRecord:
    """Run the match and return its record. The same task always gives the same game."""
    variant = get_variant(task.variant)
    key = MatchKey(task.secret) if task.secret else MatchKey.fresh(f"tournament:{task.tournament}")
    seed = key.game_seed(task.match.seed)  # the schedule's seeds are public; this one is not
    if task.in_process:
        referee = in_process_referee(variant, list(task.entries), task.time_control, key)
        outcome = referee.play(seed)
    else:
        with ProcessMatch(
            variant,
            list(task.entries),
            task.time_control,
            task.limits,
            Path(task.log_dir),
            key,
            logs_relative_to=Path(task.data_dir) if task.data_dir else None,
        ) as referee:
            outcome = referee.play(seed)
    worker = f"{socket.gethostname()}:{os.getpid()}"
    return match_record(outcome, task.match.index, task.variant, task.labels, worker)


def match_record(
    outcome: GameOutcome, index: int, variant: str, bots: tuple[str, ...], worker: str
) -> MatchRecord:
    """A referee's outcome as the store's record (a tournament's match, a person's game)."""
    result = outcome.result
    return MatchRecord(
        index=index,
        variant=variant,
        seed=outcome.log.header["seed"],
        bots=bots,
        scores=tuple(result.scores),
        ranks=tuple(outcome.ranks),
        engine_ranks=tuple(result.ranks),
        breakdown=tuple(dict(row) for row in result.breakdown),
        faults={f.seat: (f.code, f.detail) for f in outcome.faults},
        decisions=outcome.decisions,
        seconds=outcome.seconds,
        log=outcome.log.to_jsonl(),
        worker=worker,
    )
