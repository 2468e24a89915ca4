"""A game log or match log read back and played again by the engine (``arena replay``):
the recorded result must be the one the rules give."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.referee.gamelog import GameLog, LogError, replay
from arena.referee.matchlog import MatchLog
from arena.referee.matchlog import verify as verify_match
from arena.tournament.compact import unpack_log


@dataclass(frozen=True)
class Replayed:
    """A log played again: the final state, the seats' names, how many actions it holds,
    and the ranks it records (after forfeits; None: the engine's)."""

    state: Any
    names: list[str]
    actions: int
    ranks: list[int] | None


def replay_log(data: bytes) -> Replayed:
    """Play ``data`` again: a JSON-lines match log (checked against its recorded result)
    or a text game log, either as written or as the results store keeps it (compressed).
    ``ValueError``, ``KeyError`` or ``UnicodeDecodeError`` say what is wrong with it."""
    data = unpack_log(data)
    if data.lstrip().startswith(b"{"):
        match = MatchLog.from_jsonl(data)
        state = verify_match(match)
        names = [seat["bot"] for seat in match.header["seats"]]
        ranks = match.result["ranks"] if match.result else None
        return Replayed(state, names, len(match.actions), ranks)
    game_log = GameLog.from_text(data.decode())
    state = replay(game_log)
    if game_log.scores is None:
        raise LogError("the log has no result line to verify")
    return Replayed(state, game_log.seats, len(game_log.actions), None)
