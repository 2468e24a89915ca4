"""How the referee reaches a seat: a trusted Python bot in process, or a remote bot process.

Both answer the same three calls, so one referee loop serves both paths and
a deterministic bot plays the same game, action for action, on either.
"""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from time import perf_counter

from arena.engine.actions import Action
from arena.engine.observation import Observation
from arena.referee.hub import Hub, Reply
from arena.referee.process import BotProcess
from bots.sdk import Bot
from protocols.messages import Act, Bye, Error, GameOver, GameStart


class InProcessSeat:
    """A trusted Python bot called directly: no sockets, no clocks."""

    person = False  # see RemoteSeat.person
    logs: dict[str, str] = {}  # noqa: RUF012 - no process, no log files

    def __init__(self, bot: Bot, name: str, version: str = "1") -> None:
        self.bot = bot
        self.name = name
        self.version = version
        self.observes = getattr(bot, "observes", True)  # else it is handed no observation

    def start_game(self, start: GameStart) -> Reply | None:
        try:
            self.bot.start_game(start.seed, start.observation, start.board)
        except Exception:
            return Reply(fault="crash", detail=traceback.format_exc(limit=5))
        return None

    def decide(
        self, observation: Observation | None, legal: Sequence[Action]
    ) -> tuple[Reply | None, Action | str, str | None, float]:
        """The bot's choice: ``(fault, choice, note, seconds)``. The choice is one of the
        ``legal`` objects themselves, or else its text (the referee reads it as it reads a
        remote seat's answer); the fault, if any, is a crash (the choice then means nothing)."""
        bot = self.bot
        start = perf_counter()
        try:
            choice: Action | str = bot.choose(observation, legal)  # type: ignore[arg-type]
            note = bot.take_note()
            for action in legal:  # a plain loop: 3x faster than any(map(is_, ...)) here
                if action is choice:
                    break
            else:
                choice = str(choice)
        except Exception:
            crash = Reply(fault="crash", detail=traceback.format_exc(limit=5))
            return crash, "", None, perf_counter() - start
        return None, choice, note, perf_counter() - start

    def ask(self, act: Act, legal: Sequence[Action], deadline: float) -> Reply:
        """The protocol's view of ``decide`` (the referee calls ``decide`` itself)."""
        fault, choice, note, seconds = self.decide(act.observation, legal)
        if fault is not None:
            fault.elapsed = seconds
            return fault
        return Reply(action=str(choice), note=note, elapsed=seconds)

    def tell(self, message: Error | GameOver) -> None:
        if isinstance(message, GameOver):
            self.bot.on_game_over(message.observation, message.result())

    def new_stderr(self) -> list[str]:
        return []  # an in-process bot's output is the caller's own

    def pause(self) -> None:
        pass  # no process: it runs only when called

    def alive(self) -> bool:
        return True

    def isolation(self) -> dict[str, object]:
        return {"processes": "in-process"}

    def close(self, message: Bye | None = None, grace: float = 2.0) -> None:
        pass


class RemoteSeat:
    """A bot process on the other end of its own endpoint of the hub."""

    person = False  # a person's seat (arena.human): no clock, illegal actions never forfeit

    def __init__(self, hub: Hub, seat: int, process: BotProcess | None, name: str) -> None:
        self.hub = hub
        self.seat = seat
        self.process = process
        self.name = name
        self.version = "?"
        self.logs: dict[str, str] = {}  # "stdout"/"stderr" -> the process's log files
        self._stderr_seen = 0  # bytes of the bot's stderr already attached to a decision

    def new_stderr(self, max_bytes: int = 2000, max_lines: int = 20) -> list[str]:
        """What the bot wrote to stderr since the last call, for the replay's step (capped;
        the whole stream stays in the bot's log file)."""
        if self.process is None:
            return []
        size = self.process.stderr_logged()
        if size <= self._stderr_seen:
            return []
        path = self.process.stderr_path
        try:
            stream = path.open("rb")
        except OSError:
            return []
        with stream:
            stream.seek(self._stderr_seen)
            data = stream.read(min(size - self._stderr_seen, max_bytes))
        self._stderr_seen = size
        return data.decode("utf-8", "replace").splitlines()[:max_lines]

    def alive(self) -> bool:
        return self.process is None or self.process.exited() is None

    def isolation(self) -> dict[str, object]:
        """How this seat's bot is isolated (recorded in the match log's header)."""
        if self.process is None:
            return {"processes": "external"}
        return self.process.isolation()

    def start_game(self, start: GameStart) -> Reply | None:
        self.hub.new_game(self.seat)
        self.hub.send(self.seat, start)
        return None

    def ask(self, act: Act, legal: Sequence[Action], deadline: float) -> Reply:
        """Thaw the bot and ask: it computes only on its own clock (``pause`` freezes it when
        its turn is over)."""
        if self.process is not None:
            self.process.thaw()
        self.hub.ask(self.seat, act.seq, act)
        reply = self.hub.wait_action(self.seat, act.seq, deadline)
        if reply.fault == "timeout" and self.process is not None:
            reply.detail += f" ({self.process.state_now()})"
        return reply

    def pause(self) -> None:
        """Its turn is over (the next decision is another seat's, or the game is over): freeze
        it. Not waited for: from the moment the kernel is asked, none of its processes runs
        another instruction of its own (each is trapped on its way back to user mode);
        reaching the frozen state takes only the kernel's own time."""
        if self.process is not None:
            self.process.freeze(wait=False)

    def tell(self, message: Error | GameOver) -> None:
        self.hub.send(self.seat, message)

    def close(self, message: Bye | None = None, grace: float = 2.0) -> None:
        """Say ``message`` (if any), then stop the process: after ``grace`` seconds for it
        to exit by itself, or at once (a forfeited bot has nothing left to say)."""
        if message is not None:
            self.hub.send(self.seat, message)
        self.hub.unwatch(self.seat)  # its exit is expected from now on
        if grace == 0:
            self.hub.close_seat(self.seat)
        if self.process is not None:
            self.process.stop(grace)
        self.hub.close_seat(self.seat)
