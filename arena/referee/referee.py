"""The referee: runs one game on the engine, asking each seat for its decisions.

It never trusts a bot: clocks are the referee's own, every action is
checked against the engine, and a bot that crashes, goes silent, breaks the
protocol, floods it or keeps sending illegal actions forfeits. A forfeited
seat is ranked last and its remaining turns are played by a fixed fallback
policy, so the other seats' game stays well-formed. What a bot is told
that could identify the game (its seed, the game id, request numbers) is
derived under the match's secret key (``keys.py``), never from the seed
alone. An in-process seat is sent nothing, so nothing is written or derived
for it but what its bot is handed: no legal-action text, no request number
(``Referee._decide_in_process``).
"""

from __future__ import annotations

import functools
import itertools
import math
import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from importlib.metadata import version as package_version

from arena import ENGINE_BUILD
from arena.engine.actions import Action, ClaimRoute, parse_action
from arena.engine.errors import IllegalActionError, NotationError
from arena.engine.game import GameState
from arena.engine.result import GameResult
from arena.engine.variant import Variant
from arena.referee.faults import DISK, ILLEGAL, Fault, TimeControl, ranks_with_forfeits
from arena.referee.hub import Hub, Reply
from arena.referee.keys import MatchKey
from arena.referee.matchlog import MatchLog, memory_figures
from arena.referee.seats import InProcessSeat, RemoteSeat
from protocols.messages import VERSION, Act, Bye, Error, GameOver, GameStart

Seat = InProcessSeat | RemoteSeat
ENGINE_VERSION = package_version("ttr-arena")  # read once: each read parses the metadata
TEXTS_KEPT = 4096  # action texts remembered (the engine's actions are interned per map)


class ActionTexts:
    """Each action's notation, written once per action object: the engine interns its
    actions (a claim, a draw, a ticket choice is the same object game after game), so the
    referee's legal list is mostly looked up, not formatted. Keyed by identity, with the
    action kept alive beside its text so that an id is never reused while remembered."""

    def __init__(self) -> None:
        self._known: dict[int, tuple[Action, str]] = {}

    def __call__(self, actions: Sequence[Action]) -> list[str]:
        known = self._known
        if len(known) > TEXTS_KEPT:
            known.clear()
        texts = []
        for action in actions:
            entry = known.get(id(action))
            if entry is None or entry[0] is not action:
                entry = known[id(action)] = (action, str(action))
            texts.append(entry[1])
        return texts

    def one(self, action: Action) -> str:
        """The notation of one action (the match log's line)."""
        entry = self._known.get(id(action))
        if entry is None or entry[0] is not action:
            if len(self._known) > TEXTS_KEPT:
                self._known.clear()
            entry = self._known[id(action)] = (action, str(action))
        return entry[1]


def fallback_action(legal: Sequence[Action]) -> Action:
    """The fixed policy of a forfeited seat: its first legal claim, else its first action."""
    for action in legal:
        if type(action) is ClaimRoute:
            return action
    return legal[0]


def explain_illegal(state: GameState, text: str | None) -> str:
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


@dataclass
class _Game:
    """One game in progress: what the helpers of ``play`` share."""

    state: GameState
    game_id: str
    log: MatchLog
    forfeits: dict[int, Fault]
    banks: list[float]
    requests: int = 0
    note: str | None = None  # the note of the action just chosen, for its log line


class Referee:
    """Plays games of ``variant`` between ``seats`` (one game after another on the same seats).

    ``hub`` is the transport of the remote seats (None when every seat is in
    process): the referee collects from it the faults of seats that were not
    being asked and what each seat sent that was ignored.
    """

    def __init__(
        self,
        variant: Variant,
        seats: Sequence[Seat],
        time_control: TimeControl | None = None,
        match_id: str | None = None,
        key: MatchKey | None = None,
        hub: Hub | None = None,
    ) -> None:
        self.variant = variant
        self.seats = list(seats)
        self.time_control = time_control or TimeControl()
        self.match_id = match_id or uuid.uuid4().hex[:12]
        self.key = key or MatchKey.fresh("play")
        self.hub = hub
        self.dead: dict[int, Fault] = {}  # seats whose connection is gone for good
        self._games = 0
        self._texts = ActionTexts()

    def play(self, seed: int, game_id: str | None = None) -> GameOutcome:
        started = time.perf_counter()
        variant, tc = self.variant, self.time_control
        n = len(self.seats)
        self._games += 1
        game_id = game_id or self.key.game_id(seed, self._games)
        state = variant.new_game(n, seed)
        log = MatchLog(
            header={
                "protocol": VERSION,
                "engine": ENGINE_VERSION,
                "build": ENGINE_BUILD,
                "match_id": self.match_id,
                "game_id": game_id,
                "variant": variant.name,
                "rules": variant.rules_version,
                "players": n,
                "seed": seed,
                "seats": [
                    {
                        "seat": s,
                        "bot": seat.name,
                        "version": seat.version,
                        "isolation": seat.isolation(),
                        **seat.logs,
                    }
                    for s, seat in enumerate(self.seats)
                ],
                "time_control": asdict(tc),
            }
        )
        game = _Game(state, game_id, log, {}, [tc.bank_ms / 1000.0] * n)
        for seat, fault in self.dead.items():
            game.forfeits[seat] = Fault(seat, fault.code, fault.detail, 0, fault.counts)
            log.faults.append(asdict(game.forfeits[seat]))
        self._sweep(game)
        board = state.board.public_json()
        for number, player in enumerate(self.seats):
            if number in game.forfeits:
                continue
            start = GameStart(
                board=board,
                game_id=game_id,
                variant=variant.name,
                seat=number,
                players=n,
                seed=self.key.bot_seed(seed, number, game_id),
                move_ms=tc.move_ms,
                bank_ms=tc.bank_ms,
                observation=state.observation(number),
            )
            reply = player.start_game(start)
            if reply is not None and reply.fault:
                self._forfeit(game, number, reply)
        think = [0.0] * n
        decisions = 0
        seats, forfeits, actions, text = self.seats, game.forfeits, log.actions, self._texts.one
        # Only a remote seat has a process to freeze, stderr to read and a hub to sweep.
        remote = [isinstance(seat, RemoteSeat) for seat in seats]
        decide = [  # looked up once: a decision in process costs a few microseconds
            functools.partial(self._decide_in_process, seat)
            if isinstance(seat, InProcessSeat)
            else self._decide_remote
            for seat in seats
        ]
        hub = self.hub
        while not state.is_over:
            s = state.to_move
            assert s is not None  # the game is not over
            legal = state.legal_actions()
            if s in forfeits:
                action, seconds, by = fallback_action(legal), 0.0, "fallback"
            else:
                action, seconds = decide[s](game, s, legal)
                by = "bot" if s not in forfeits else "fallback"
                think[s] += seconds
            state.apply(action)
            is_remote = remote[s]
            if is_remote and s not in forfeits and state.to_move != s:
                seats[s].pause()  # its turn is over: it computes no more meanwhile
            decisions += 1
            line = {
                "n": decisions,
                "seat": s,
                "action": text(action),
                "ms": round(seconds * 1e6) / 1000,  # 3 decimals; round(x, 3) costs 3.6x more
                "by": by,
            }
            note = game.note
            if note is not None:
                if by == "bot":
                    line["note"] = note  # shown at this step by the replay viewer
                game.note = None
            if is_remote and by == "bot":
                stderr = seats[s].new_stderr()
                if stderr:
                    line["stderr"] = stderr  # shown at this step by the replay viewer
            actions.append(line)
            if hub is not None:
                self._sweep(game)
        if hub is not None:
            hub.pump(0)  # a process that exited during the last decision is a crash
            self._sweep(game)
        self._check_scratch(game)
        return self._finish(game, started, decisions, think)

    def _check_scratch(self, game: _Game) -> None:
        """Charge ``disk`` to a bot whose scratch folder is over its quota (only where it is
        on the disk: no private mount could be had), emptied on the way."""
        for s, seat in enumerate(self.seats):
            process = seat.process if isinstance(seat, RemoteSeat) else None
            if process is None or s in game.forfeits:
                continue
            over = process.scratch_over()
            if over is not None:
                self._forfeit(game, s, Reply(fault=DISK, detail=over))

    def _finish(self, game: _Game, started: float, decisions: int, think: list[float]):
        state, log, forfeits = game.state, game.log, game.forfeits
        result = state.result()
        ranks = ranks_with_forfeits(result.ranks, list(forfeits))
        forfeit_codes = {str(s): f.code for s, f in sorted(forfeits.items())}
        log.result = {
            "scores": list(result.scores),
            "ranks": ranks,
            "engine_ranks": list(result.ranks),
            "breakdown": [dict(row) for row in result.breakdown],
            "forfeits": forfeit_codes,
            "referee": memory_figures(),
        }
        for s, seat in enumerate(self.seats):
            if s not in forfeits:
                seat.tell(
                    GameOver(
                        game_id=game.game_id,
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

    def _sweep(self, game: _Game) -> None:
        """Forfeit the seats the hub charged meanwhile; log what each seat had ignored."""
        hub = self.hub
        if hub is None:
            return
        if hub.faults:
            for s, reply in sorted(hub.take_faults().items()):
                if s not in game.forfeits:
                    self._forfeit(game, s, reply)
        for s in sorted(hub.noisy):
            self._log_ignored(game, s)

    def _log_ignored(self, game: _Game, s: int) -> None:
        if self.hub is None:
            return
        counts, size = self.hub.take_ignored(s)
        if counts:
            game.log.events.append(
                {
                    "seat": s,
                    "decision": len(game.log.actions),
                    "kind": "ignored",
                    "counts": counts,
                    "bytes": size,
                }
            )

    def _decide_in_process(
        self, seat: InProcessSeat, game: _Game, s: int, legal: Sequence[Action]
    ) -> tuple[Action, float]:
        """A decision of a trusted Python bot called directly: nothing is sent, so nothing is
        written for it (no legal-action text, no keyed request number, no ``error`` message,
        which an in-process seat ignores); the bot's choice is checked by identity against the
        engine's own legal actions (``InProcessSeat.decide``), and anything else (a text, an
        equal action built by the bot, an illegal one) by its notation, exactly as a remote
        seat's answer is. The requests are counted all the same, so that remote seats of the
        same game get the same request numbers either way."""
        tc, state = self.time_control, game.state
        observation = state.observation(s) if seat.observes else None  # Bot.observes
        game.requests += 1
        fault, choice, note, seconds = seat.decide(observation, legal)
        if fault is None and not isinstance(choice, str):  # the rule: a legal object itself
            game.note = note
            return choice, seconds
        by_text: dict[str, Action] | None = None
        reason, elapsed = "", seconds
        for attempt in range(tc.retries + 1):
            if attempt:
                game.requests += 1
                fault, choice, note, seconds = seat.decide(observation, legal)
                elapsed += seconds
            if fault is not None:
                self._forfeit(game, s, fault)
                return fallback_action(legal), elapsed
            if not isinstance(choice, str):  # one of the legal objects themselves
                game.note = note
                return choice, seconds
            text = choice
            if by_text is None:
                by_text = dict(zip(self._texts(legal), legal, strict=True))
            action = by_text.get(text)
            if action is not None:
                game.note = note
                return action, seconds
            reason = explain_illegal(state, text)
            if attempt < tc.retries:
                game.log.events.append(
                    {
                        "seat": s,
                        "decision": len(game.log.actions),
                        "kind": "illegal",
                        "action": text[:200],
                        "detail": reason[:500],
                        "retries_left": tc.retries - attempt - 1,
                    }
                )
        detail = f"after {tc.retries} retries: {reason}"
        self._forfeit(game, s, Reply(fault=ILLEGAL, detail=detail))
        return fallback_action(legal), elapsed

    def _decide_remote(self, game: _Game, s: int, legal: Sequence[Action]) -> tuple[Action, float]:
        """A decision asked of a seat through the protocol (a bot process, or a person's
        page): keyed request numbers, legal actions as text, the clock."""
        seat = self.seats[s]
        tc = self.time_control
        state, banks = game.state, game.banks
        legal_text = self._texts(legal)
        by_text = dict(zip(legal_text, legal, strict=True))
        observation = state.observation(s)
        move = tc.move_ms / 1000.0
        start = time.monotonic()
        # A person (arena play --human) has no clock, and an illegal click never forfeits.
        clocked = isinstance(seat, RemoteSeat) and not seat.person
        deadline = start + move + banks[s] if clocked else math.inf
        reason = ""
        for attempt in itertools.count() if seat.person else range(tc.retries + 1):
            game.requests += 1
            seq = self.key.seq(game.game_id, game.requests)
            now = time.monotonic()
            act = Act(
                game_id=game.game_id,
                seq=seq,
                observation=observation,
                legal=legal_text,
                deadline_ms=max(0, int((start + move - now) * 1000)),
                bank_ms=int(banks[s] * 1000),
            )
            reply = seat.ask(act, legal, deadline)
            elapsed = time.monotonic() - start
            if reply.fault:
                seat.tell(Error(code=reply.fault, message=reply.detail, retry=False, seq=seq))
                self._forfeit(game, s, reply)
                return fallback_action(legal), elapsed
            action = by_text.get(reply.action)  # type: ignore[arg-type]
            if action is not None:
                game.note = reply.note
                if elapsed > move and isinstance(seat, RemoteSeat):
                    banks[s] = max(0.0, banks[s] - (elapsed - move))
                return action, elapsed
            reason = explain_illegal(state, reply.action)
            retry = seat.person or attempt < tc.retries
            seat.tell(Error(code=ILLEGAL, message=reason, retry=retry, seq=seq))
            if retry:
                game.log.events.append(
                    {
                        "seat": s,
                        "decision": len(game.log.actions),
                        "kind": "illegal",
                        "action": (reply.action or "")[:200],
                        "detail": reason[:500],
                        "retries_left": None if seat.person else tc.retries - attempt - 1,
                    }
                )
        detail = f"after {tc.retries} retries: {reason}"
        self._forfeit(game, s, Reply(fault=ILLEGAL, detail=detail))
        return fallback_action(legal), time.monotonic() - start

    def _forfeit(self, game: _Game, s: int, reply: Reply) -> None:
        self._log_ignored(game, s)
        code = reply.fault or "crash"
        fault = Fault(s, code, reply.detail[:2000], len(game.log.actions), reply.counts)
        game.forfeits[s] = fault
        self.dead[s] = fault
        game.log.faults.append(asdict(fault))
        # The connection is not reused: stop the bot now (it may be hung or flooding).
        self.seats[s].close(Bye(reason=f"forfeit: {code}"), grace=0)

    def close(self, keep: set[int] | frozenset[int] = frozenset()) -> None:
        """Say ``bye`` and stop every seat's bot but those in ``keep`` (warm processes that
        go on to a next match: ``pool.py``)."""
        for s, seat in enumerate(self.seats):
            if s not in keep:
                seat.close(None if s in self.dead else Bye())
