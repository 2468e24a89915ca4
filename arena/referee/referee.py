"""The referee: runs one game on the engine, asking each seat for its decisions.

It never trusts a bot: clocks are the referee's own, every action is
checked against the engine, and a bot that crashes, goes silent, breaks the
protocol or keeps sending illegal actions forfeits. A forfeited seat is
ranked last and its remaining turns are played by a fixed fallback policy,
so the other seats' game stays well-formed.
"""

from __future__ import annotations

import itertools
import math
import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from importlib.metadata import version as package_version
from typing import Any

from arena.engine.actions import Action, ClaimRoute, parse_action
from arena.engine.errors import IllegalActionError, NotationError
from arena.engine.result import GameResult
from arena.engine.variant import Variant
from arena.referee.faults import ILLEGAL, Fault, TimeControl, ranks_with_forfeits
from arena.referee.matchlog import MatchLog
from arena.referee.seats import InProcessSeat, RemoteSeat
from bots.sdk import bot_seed
from protocols.messages import VERSION, Act, Bye, Error, GameOver, GameStart

Seat = InProcessSeat | RemoteSeat


def fallback_action(legal: Sequence[Action]) -> Action:
    """The fixed policy of a forfeited seat: its first legal claim, else its first action."""
    for action in legal:
        if type(action) is ClaimRoute:
            return action
    return legal[0]


def explain_illegal(state: Any, text: str | None) -> str:
    """Why ``text`` is not a legal action here, in the engine's words."""
    if text is None:
        return "no action"
    try:
        action = parse_action(text)
        state.copy().apply(action)
    except (NotationError, IllegalActionError) as error:
        return str(error)
    return f"'{text}' is not among the legal actions"


@dataclass
class GameOutcome:
    result: GameResult
    ranks: list[int]  # after forfeits
    faults: list[Fault]
    log: MatchLog
    seconds: float
    decisions: int = 0
    think_seconds: list[float] = field(default_factory=list)


class Referee:
    """Plays games of ``variant`` between ``seats`` (one game after another on the same seats)."""

    def __init__(
        self,
        variant: Variant,
        seats: Sequence[Seat],
        time_control: TimeControl | None = None,
        match_id: str | None = None,
    ) -> None:
        self.variant = variant
        self.seats = list(seats)
        self.time_control = time_control or TimeControl()
        self.match_id = match_id or uuid.uuid4().hex[:12]
        self.dead: dict[int, Fault] = {}  # seats whose connection is gone for good
        self._seq = 0

    def play(self, seed: int, game_id: str | None = None) -> GameOutcome:
        started = time.perf_counter()
        variant, tc = self.variant, self.time_control
        n = len(self.seats)
        game_id = game_id or f"{self.match_id}-{seed}"
        state = variant.new_game(n, seed)
        log = MatchLog(
            header={
                "protocol": VERSION,
                "engine": package_version("ttr-arena"),
                "match_id": self.match_id,
                "game_id": game_id,
                "variant": variant.name,
                "rules": variant.rules_version,
                "players": n,
                "seed": seed,
                "seats": [
                    {"seat": s, "bot": seat.name, "version": seat.version, **seat.logs}
                    for s, seat in enumerate(self.seats)
                ],
                "time_control": asdict(tc),
            }
        )
        forfeits: dict[int, Fault] = {}
        for seat, fault in self.dead.items():
            forfeits[seat] = Fault(seat, fault.code, fault.detail, 0)
            log.faults.append(asdict(forfeits[seat]))
        board = state.board.public_json()
        for s, seat in enumerate(self.seats):
            if s in forfeits:
                continue
            start = GameStart(
                board=board,
                game_id=game_id,
                variant=variant.name,
                seat=s,
                players=n,
                seed=bot_seed(seed, s),
                move_ms=tc.move_ms,
                bank_ms=tc.bank_ms,
                observation=state.observation(s),
            )
            reply = seat.start_game(start)
            if reply is not None and reply.fault:
                self._forfeit(s, reply.fault, reply.detail, 0, forfeits, log)
        banks = [tc.bank_ms / 1000.0] * n
        think = [0.0] * n
        decisions = 0
        while not state.is_over:
            s = state.to_move
            legal = state.legal_actions()
            if s in forfeits:
                action, seconds, by = fallback_action(legal), 0.0, "fallback"
            else:
                action, seconds = self._decide(state, s, legal, banks, game_id, forfeits, log)
                by = "bot" if s not in forfeits else "fallback"
                think[s] += seconds
            state.apply(action)
            decisions += 1
            line = {
                "n": decisions,
                "seat": s,
                "action": str(action),
                "ms": round(seconds * 1000, 3),
                "by": by,
            }
            stderr = self.seats[s].new_stderr() if by == "bot" else []
            if stderr:
                line["stderr"] = stderr  # shown at this step by the replay viewer
            log.actions.append(line)
        result = state.result()
        ranks = ranks_with_forfeits(result.ranks, list(forfeits))
        forfeit_codes = {str(s): f.code for s, f in sorted(forfeits.items())}
        log.result = {
            "scores": list(result.scores),
            "ranks": ranks,
            "engine_ranks": list(result.ranks),
            "breakdown": [dict(row) for row in result.breakdown],
            "forfeits": forfeit_codes,
        }
        for s, seat in enumerate(self.seats):
            if s not in forfeits:
                seat.tell(
                    GameOver(
                        game_id=game_id,
                        scores=list(result.scores),
                        ranks=ranks,
                        breakdown=[dict(row) for row in result.breakdown],
                        forfeits=forfeit_codes,
                        observation=state.observation(s),
                    )
                )
        return GameOutcome(
            result=result,
            ranks=ranks,
            faults=list(forfeits.values()),
            log=log,
            seconds=time.perf_counter() - started,
            decisions=decisions,
            think_seconds=think,
        )

    def _decide(self, state, s, legal, banks, game_id, forfeits, log) -> tuple[Action, float]:
        seat = self.seats[s]
        tc = self.time_control
        legal_text = [str(a) for a in legal]
        by_text = dict(zip(legal_text, legal, strict=True))
        observation = state.observation(s)
        move = tc.move_ms / 1000.0
        start = time.monotonic()
        # A person (arena play --human) has no clock, and an illegal click never forfeits.
        clocked = isinstance(seat, RemoteSeat) and not seat.person
        deadline = start + move + banks[s] if clocked else math.inf
        reason = ""
        for attempt in itertools.count() if seat.person else range(tc.retries + 1):
            self._seq += 1
            now = time.monotonic()
            act = Act(
                game_id=game_id,
                seq=self._seq,
                observation=observation,
                legal=legal_text,
                deadline_ms=max(0, int((start + move - now) * 1000)),
                bank_ms=int(banks[s] * 1000),
            )
            reply = seat.ask(act, legal, deadline)
            elapsed = time.monotonic() - start
            if reply.fault:
                seat.tell(Error(code=reply.fault, message=reply.detail, retry=False, seq=self._seq))
                self._forfeit(s, reply.fault, reply.detail, len(log.actions), forfeits, log)
                return fallback_action(legal), elapsed
            action = by_text.get(reply.action)
            if action is not None:
                if elapsed > move and isinstance(seat, RemoteSeat):
                    banks[s] = max(0.0, banks[s] - (elapsed - move))
                return action, reply.elapsed if isinstance(seat, InProcessSeat) else elapsed
            reason = explain_illegal(state, reply.action)
            seat.tell(
                Error(
                    code=ILLEGAL,
                    message=reason,
                    retry=seat.person or attempt < tc.retries,
                    seq=self._seq,
                )
            )
        self._forfeit(
            s, ILLEGAL, f"after {tc.retries} retries: {reason}", len(log.actions), forfeits, log
        )
        return fallback_action(legal), time.monotonic() - start

    def _forfeit(self, s, code, detail, decision, forfeits, log) -> None:
        fault = Fault(s, code, detail[:2000], decision)
        forfeits[s] = fault
        self.dead[s] = fault
        log.faults.append(asdict(fault))
        # The connection is not reused: stop the bot now (it may be hung).
        self.seats[s].close(Bye(reason=f"forfeit: {code}"))

    def close(self) -> None:
        for s, seat in enumerate(self.seats):
            seat.close(None if s in self.dead else Bye())
