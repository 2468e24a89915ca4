"""Games played outside a tournament (``arena play``): the key and seed of the run, the
games themselves through the referee, and the text log of the last one.

The command calls these with plain arguments; the referee's modules (ZeroMQ, processes)
load only when games are played, not when ``arena`` starts."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from arena.referee.faults import TimeControl
from arena.referee.gamelog import GameLog
from arena.referee.keys import MatchKey, play_seed

if TYPE_CHECKING:
    from arena.engine.variant import Variant
    from arena.referee.launch import BotEntry
    from arena.referee.referee import GameOutcome


def play_key(seed: int | None) -> tuple[MatchKey, int]:
    """The key that derives what the bots are told (SECURITY.md) and the game's seed: from
    the seed when one is given, so that the same seed is the same game every run; else a
    fresh key, and the seed drawn from it."""
    if seed is None:
        key = MatchKey.fresh("play")
        return key, play_seed(key)
    return MatchKey.for_seed("play", seed), seed


def play_games(
    variant: Variant,
    entries: list[BotEntry],
    key: MatchKey,
    seed: int,
    games: int,
    *,
    move_ms: int,
    bank_ms: int,
    retries: int,
    in_process: bool,
    memory_mb: int,
    cpu_seconds: int,
    log_dir: Path,
    data_dir: Path,
) -> list[GameOutcome]:
    """Play ``games`` games in a row (seeds ``seed``, ``seed + 1``, ...) on the same bots:
    each bot its own sandboxed process with the data folder's limits, or (``in_process``)
    trusted plugin bots called directly. ``ValueError`` (and ``VariantUnavailableError``)
    say what cannot be played."""
    from arena.referee.launch import ProcessMatch, in_process_referee
    from arena.referee.process import ProcessLimits
    from arena.tournament.bots import bot_limits

    variant.check_playable()  # before any bot is started
    tc = TimeControl(move_ms=move_ms, bank_ms=bank_ms, retries=retries)
    if in_process:
        referee = in_process_referee(variant, entries, tc, key)
        return [referee.play(seed + g) for g in range(games)]
    limits = bot_limits(data_dir, ProcessLimits(memory_mb=memory_mb, cpu_seconds=cpu_seconds))
    with ProcessMatch(
        variant, entries, tc, limits, log_dir=log_dir, key=key, logs_relative_to=data_dir
    ) as match:
        return [match.play(seed + g) for g in range(games)]


def text_log(variant: str, names: list[str], seed: int, outcome: GameOutcome) -> str:
    """The text game log (docs/NOTATION.md) of the game played with ``seed``."""
    log = GameLog(variant, len(names), seed, names)
    log.actions = [line["action"] for line in outcome.log.actions]
    log.record_result(outcome.result)
    return log.to_text()
