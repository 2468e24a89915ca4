"""The match log: JSON lines that record a game completely enough to re-simulate it.

    {"type": "header", "protocol": 1, "variant": "usa", "players": 4, "seed": 7,
     "seats": [{"seat": 0, "bot": "x", "version": "1", "stdout": "bot-logs/...",
                "stderr": "bot-logs/.../seat0-x.stderr"}, ...], ...}
    {"type": "action", "n": 1, "seat": 2, "action": "keep 0 1", "ms": 3.1, "by": "bot"}
                                                   (+ "note": the bot's, "stderr": its lines)
    {"type": "event", "seat": 1, "decision": 12, "kind": "illegal", "action": "claim 99 red", ...}
    {"type": "event", "seat": 3, "decision": 40, "kind": "ignored", "counts": {"stale": 2}, ...}
    {"type": "fault", "seat": 1, "code": "timeout", "detail": "...", "decision": 57}
    {"type": "result", "scores": [...], "ranks": [...], "engine_ranks": [...], ...}

Events are the protocol events that affected a seat without ending its game
(forgiven illegal actions, ignored messages by kind and count);
protocols/PROTOCOL.md describes every line.

A seat run as a process names its stdout and stderr files (relative to the data
folder when it has one, else absolute); a seat played in process, or whose program
could not start, has none.

``replay`` is the one loop that walks a log on the engine: ``verify`` (which
checks the recorded result), the text game log and the site's replay viewer
all use it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from arena.engine.errors import RulesVersionError
from arena.engine.game import GameState
from arena.referee.faults import ranks_with_forfeits
from arena.variants import get_variant


class LogError(ValueError):
    """A game log that cannot be read or does not replay to its recorded result."""


@dataclass
class MatchLog:
    header: dict[str, Any]
    actions: list[dict[str, Any]] = field(default_factory=list)
    faults: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] | None = None
    events: list[dict[str, Any]] = field(default_factory=list)

    def lines(self) -> list[dict[str, Any]]:
        body = [{"type": "header", **self.header}]
        body += [{"type": "action", **a} for a in self.actions]
        body += [{"type": "event", **e} for e in self.events]
        body += [
            {"type": "fault", **{k: v for k, v in f.items() if v is not None}} for f in self.faults
        ]
        if self.result is not None:
            body.append({"type": "result", **self.result})
        return body

    def to_jsonl(self) -> bytes:
        encoder = msgspec.json.Encoder()
        return b"".join(encoder.encode(line) + b"\n" for line in self.lines())

    def write(self, path: Path) -> None:
        path.write_bytes(self.to_jsonl())

    @classmethod
    def from_jsonl(cls, data: bytes | str) -> MatchLog:
        if isinstance(data, str):
            data = data.encode()
        log: MatchLog | None = None
        for number, raw in enumerate(data.splitlines(), start=1):
            if not raw.strip():
                continue
            try:
                line = msgspec.json.decode(raw)
            except (msgspec.DecodeError, UnicodeDecodeError) as error:
                raise LogError(f"line {number}: not JSON ({error})") from None
            if not isinstance(line, dict) or "type" not in line:
                raise LogError(f"line {number}: every line is an object with a 'type'")
            kind = line.pop("type")
            if kind == "header":
                log = cls(header=line)
            elif log is None:
                raise LogError("the first line must be the header")
            elif kind == "action":
                log.actions.append(line)
            elif kind == "fault":
                log.faults.append(line)
            elif kind == "event":
                log.events.append(line)
            elif kind == "result":
                log.result = line
            else:
                raise LogError(f"line {number}: unknown line type '{kind}'")
        if log is None:
            raise LogError("empty match log")
        return log


def check_rules(header: dict[str, Any]) -> None:
    """Raise ``LogError`` (one line) unless the log was recorded under the installed rules
    of its variant (a log without the field was written under version 1)."""
    try:
        get_variant(header["variant"]).check_rules(header.get("rules", 1))
    except KeyError as error:
        raise cannot_start(error) from None
    except RulesVersionError as error:
        raise LogError(str(error)) from None


def cannot_start(error: Exception) -> LogError:
    """Why a log's header starts no game, in one line (a missing key, an unknown variant, a
    player count or seed the variant refuses)."""
    what = str(error.args[0]) if error.args else type(error).__name__
    if isinstance(error, KeyError) and what in ("variant", "players", "seed"):
        what = f"the header has no '{what}'"
    return LogError(f"cannot start the game: {what}")


def memory_figures() -> dict[str, float]:
    """This process's resident memory now and at its peak, in MiB (Linux; else empty)."""
    figures = {}
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(("VmRSS:", "VmHWM:")):
                    key = "rss_mb" if line.startswith("VmRSS") else "peak_rss_mb"
                    figures[key] = round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return figures


def replay(log: MatchLog) -> Iterator[tuple[dict[str, Any] | None, GameState]]:
    """Walk ``log`` on the engine: yield ``(None, state)`` at the deal, then
    ``(line, state)`` after each action line is applied.

    The state is the engine's own and is changed in place by the next step:
    read what you need from it before asking for the next one. Raises
    ``LogError`` naming the first line that does not replay (a seat acting out
    of turn, an action the engine refuses).
    """
    header = log.header
    check_rules(header)
    try:
        state = get_variant(header["variant"]).new_game(header["players"], header["seed"])
    except (KeyError, ValueError, TypeError) as error:  # a header the game cannot start from
        raise cannot_start(error) from None
    yield None, state
    for number, line in enumerate(log.actions, start=1):
        n = line.get("n", number)
        if "seat" in line and state.to_move != line["seat"]:
            raise LogError(
                f"action {n}: seat {line['seat']} acts, but seat {state.to_move} is to move"
            )
        try:
            state.apply(line["action"])
        except (ValueError, KeyError, TypeError) as error:
            raise LogError(
                f"action {n} ('{line.get('action')}') does not replay: {error}"
            ) from None
        yield line, state


def final_state(log: MatchLog) -> GameState:
    """The state after every action of ``log`` (see ``replay``)."""
    steps = replay(log)
    _, state = next(steps)
    for _ in steps:
        pass  # the state changes in place
    return state


def verify(log: MatchLog) -> GameState:
    """Re-simulate ``log``; raise ``LogError`` on any difference. Returns the final state."""
    state = final_state(log)
    if log.result is None:
        raise LogError("the log has no result line")
    if not state.is_over:
        raise LogError("the replayed game is not over")
    result = state.result()
    recorded = log.result
    forfeited = [int(seat) for seat in recorded.get("forfeits", {})]
    expected = {
        "scores": list(result.scores),
        "engine_ranks": list(result.ranks),
        "ranks": ranks_with_forfeits(result.ranks, forfeited),
    }
    for key, value in expected.items():
        if recorded.get(key) != value:
            raise LogError(f"replayed {key} {value} differ from the recorded {recorded.get(key)}")
    return state
