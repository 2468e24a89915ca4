"""Fault codes, time controls, and how forfeits change the ranks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.engine.scoring import competition_ranks

# Every way a bot can forfeit. The code is stored with the result and shown to people.
CRASH = "crash"  # the process exited (at start or mid-game), or the bot raised
NO_SHOW = "no-show"  # never completed the handshake in time
TIMEOUT = "timeout"  # no answer within the move time plus the bank
MALFORMED = "malformed"  # not JSON, or not a valid protocol message
OVERSIZE = "oversize"  # a message over the size limit
VERSION = "version"  # a protocol version the referee does not speak
ILLEGAL = "illegal"  # illegal actions, after every retry was used
FLOOD = "flood"  # more messages, bytes or connections in one decision than the budget allows
# Its scratch folder over its quota after a game (only where it is on the disk: no private
# memory-backed mount could be had; a private one simply fills up).
DISK = "disk"
FAULT_CODES = (CRASH, NO_SHOW, TIMEOUT, MALFORMED, OVERSIZE, VERSION, ILLEGAL, FLOOD, DISK)

# Each code in words, for people: one sentence that says what the bot did (the host's bot and
# match pages show them).
FAULT_WORDS = {
    CRASH: "The bot's process exited, or the bot raised an error, before the game was over.",
    NO_SHOW: "The bot never connected and said hello within the time allowed to start.",
    TIMEOUT: "The bot did not answer a decision within the move time plus what was left of its "
    "time bank.",
    MALFORMED: "The bot sent something that is not JSON or not a valid protocol message.",
    OVERSIZE: "The bot sent a message larger than the size limit.",
    VERSION: "The bot asked for a protocol version the referee does not speak.",
    ILLEGAL: "The bot kept choosing actions that are not legal, until every retry was used.",
    FLOOD: "The bot sent more messages, bytes or connections in one decision than its budget "
    "allows.",
    DISK: "The bot's scratch folder was over its quota after a game.",
}
# How forfeits rank (``ranks_with_forfeits``), in words.
FORFEIT_RANK_RULE = (
    "A seat that forfeits ranks last, whatever its score: below every seat that finished the "
    "game (forfeiting seats tie among themselves); the others keep the game's order (by score, "
    "then the rules' tie-breaks)."
)

# How many matches a warm bot process plays before a fresh one replaces it (``pool.py``);
# here, beside the time control, so that reading a tournament file needs no ZeroMQ.
DEFAULT_MATCHES_PER_PROCESS = 100


@dataclass(frozen=True)
class TimeControl:
    """Clocks: free time per decision, plus a bank spent when a decision takes longer."""

    move_ms: int = 1000
    bank_ms: int = 30000
    handshake_ms: int = 20000  # a bot process must connect and say hello within this
    retries: int = 2  # illegal actions answered with an error before the bot forfeits
    # CPUs' worth of time a bot's processes may use together while it thinks (its cgroup's
    # cpu.max; threads and children share it); 0 for no cap. Its clock runs only while it
    # is asked: it is frozen the rest of the time.
    cpus: float = 1.0


@dataclass(frozen=True)
class Budget:
    """What one seat may send: far more than a bot needs (one answer a decision, one
    connection), far less than would cost the referee memory or time. Messages and bytes are
    counted per decision (from one ``act`` to the seat's next), from any of the bot's
    connections; extra connections to its endpoint over the whole match."""

    messages: int = 32
    bytes: int = 256 * 1024
    connections: int = 4  # connections beyond the one that said hello


@dataclass(frozen=True)
class Fault:
    seat: int
    code: str
    detail: str
    decision: int  # how many actions the game had when it happened
    counts: dict[str, int] | None = None  # what was counted (a flood's messages and bytes)


def ranks_with_forfeits(engine_ranks: Sequence[int], forfeits: Sequence[int]) -> list[int]:
    """Forfeited seats rank last (tied with each other); the others keep their order."""
    forfeited = set(forfeits)
    keys = [(0,) if seat in forfeited else (1, -rank) for seat, rank in enumerate(engine_ranks)]
    return competition_ranks(keys)
