"""The worker's job: play one scheduled match with its own referee and bot processes."""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

import msgspec

from arena import chaos
from arena.referee.faults import TimeControl
from arena.referee.keys import MatchKey, RoleKey
from arena.referee.launch import BotEntry, ProcessMatch, in_process_referee
from arena.referee.pool import DEFAULT_MATCHES_PER_PROCESS, BotPool
from arena.referee.process import ProcessLimits
from arena.tournament.results import MatchResult
from arena.tournament.schedule import MatchSpec
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
    log_dir: str  # bot logs of this tournament: one folder per match index below it
    in_process: bool = False  # trusted plugin bots called directly: same games, no processes
    workdir: str = ""  # the driver's working folder: relative paths in bot commands start here
    data_dir: str | None = None  # the match log names the bots' log files relative to it
    secret: bytes = b""  # the tournament's key: the game's seed and all a bot is told
    # A bot process plays up to this many matches (a worker's BotPool keeps it warm between
    # them); 1: a new process for every match.
    matches_per_process: int = DEFAULT_MATCHES_PER_PROCESS
    # A sequential test's role of each seat (0 NEW, 1 BASE, ...): bot seeds depend on it
    # (keys.RoleKey); empty for every other format, whose derivations stay as they were.
    roles: tuple[int, ...] = ()


def tournament_folder(name: str) -> str:
    """A folder name for a tournament's bot logs (a name may hold any character)."""
    return re.sub(r"[^A-Za-z0-9_.@-]+", "_", name).strip("._") or "tournament"


def writable_log_dir(wanted: Path) -> Path:
    """``wanted`` if bot logs can be written there, else a fresh temporary folder: a log
    that cannot be written (read-only or full log folder) must never cost a match."""
    try:
        wanted.mkdir(parents=True, exist_ok=True)
        probe = wanted / f".probe-{os.getpid()}"
        probe.write_bytes(b"x")
        probe.unlink()
        return wanted
    except OSError:
        return Path(tempfile.mkdtemp(prefix="arena-bot-logs-"))


def play_match(task: MatchTask, pool: BotPool | None = None) -> MatchResult:
    """Run the match and return its result. The same task always gives the same game,
    whether its bots' processes are fresh or warm ones from ``pool``."""
    if task.workdir and os.path.isdir(task.workdir):
        os.chdir(task.workdir)  # a Ray worker starts elsewhere; bots see the driver's folder
    variant = get_variant(task.variant)
    key = MatchKey(task.secret) if task.secret else MatchKey.fresh(f"tournament:{task.tournament}")
    if task.roles:
        key = RoleKey(key.secret, task.roles)
    seed = key.game_seed(task.match.seed)  # the schedule's seeds are public; this one is not
    if task.in_process:
        referee = in_process_referee(variant, list(task.entries), task.time_control, key)
        outcome = referee.play(seed)
    else:
        log_dir = writable_log_dir(Path(task.log_dir) / str(task.match.index))
        if pool is not None:
            pool.matches_per_process = task.matches_per_process
        with ProcessMatch(
            variant,
            list(task.entries),
            task.time_control,
            task.limits,
            log_dir,
            key,
            logs_relative_to=Path(task.data_dir) if task.data_dir else None,
            pool=pool,
        ) as referee:
            chaos.stall_in_match(task.match.index)
            chaos.kill_in_match(task.match.index)
            outcome = referee.play(seed)
    result = MatchResult.from_outcome(outcome, task.match.index, task.variant, task.labels)
    # Named with its tournament: a driver that plays several in one run (the competition's
    # worker, a wave and challenges) hands each result to its own.
    return msgspec.structs.replace(result, tournament=task.tournament)
