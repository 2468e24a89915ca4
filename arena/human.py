"""A seat for a person: the bridge between a web page and the referee.

A person plays through the same referee and the same ZeroMQ protocol as any
bot. The bridge is the person's "bot process", run as a thread: it connects a
DEALER to the referee's hub with the seat's one-time token, says hello, and
then turns each ``act`` into a state the page shows (observation, legal
actions), and each click the page posts into an ``action`` message. The
referee's answers (an illegal click's ``error`` with the rule's message, the
``game_over``) go back to the page the same way. The person's seat has no
clock, and illegal clicks never forfeit (``RemoteSeat.person``); the bots keep
their clocks.

``HumanGame`` plays one whole game in a background thread (bots as sandboxed
processes, the person through the bridge) and stores its result in the
results store (its ``on_finish``: ``arena.server.local`` stores it as a match
of the tournament ``human-play``).
"""

from __future__ import annotations

import queue
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zmq

from arena.engine.variant import Variant
from arena.referee.faults import TimeControl
from arena.referee.hub import Hub, ProcessWatch, Reply
from arena.referee.keys import MatchKey
from arena.referee.launch import BotEntry, ProcessMatch
from arena.referee.process import ProcessLimits
from arena.referee.seats import RemoteSeat
from protocols import messages as wire

POLL_MS = 50


class HumanBridge(threading.Thread):
    """The person's end of the protocol: one thread owns the socket; the page reads
    ``snapshot()`` (or waits on ``wait_change``) and posts clicks with ``submit``."""

    def __init__(self, endpoint: str, token: str, name: str) -> None:
        super().__init__(name=f"human-bridge-{name}", daemon=True)
        self.endpoint, self.token, self.person = endpoint, token, name
        self.outbox: queue.Queue[str] = queue.Queue()
        self.changed = threading.Condition()
        self.version = 0
        self.resigned = threading.Event()
        self.closed = threading.Event()
        self.state: dict[str, Any] = {
            "status": "connecting",
            "seat": None,
            "observation": None,
            "legal": [],
            "message": None,
            "result": None,
        }
        self._seq: int | None = None

    # ------------------------------------------------------------ the page's side

    def snapshot(self) -> dict[str, Any]:
        with self.changed:
            return dict(self.state, version=self.version)

    def wait_change(self, version: int, timeout: float) -> dict[str, Any]:
        """The state once its version differs from ``version`` (or after ``timeout``)."""
        with self.changed:
            self.changed.wait_for(lambda: self.version != version, timeout)
            return dict(self.state, version=self.version)

    def submit(self, action: str) -> str | None:
        """Queue the person's click; returns why it cannot be sent, if it cannot."""
        action = " ".join(str(action).split())[:200]
        if not action:
            return "empty action"
        with self.changed:
            if self.state["status"] != "to-move":
                return "it is not your turn"
            self.state["status"] = "sending"  # a second click before the answer is refused
        self.outbox.put(action)
        return None

    def resign(self) -> None:
        self.resigned.set()
        self._update(status="resigned", message="you resigned: the bots finish the game")

    def ended(self) -> None:
        """The game is over and stored: wake the page. A resigned seat is sent neither the
        game's end nor a bye (the referee dropped it), so without this its page would wait
        on "resigned" for ever."""
        self._update(status="over")

    # ------------------------------------------------------------ the protocol's side

    def _update(self, **changes: Any) -> None:
        with self.changed:
            self.state.update(changes)
            self.version += 1
            self.changed.notify_all()

    def run(self) -> None:
        context = zmq.Context()
        socket = context.socket(zmq.DEALER)
        socket.setsockopt(zmq.LINGER, 0)
        socket.setsockopt(zmq.MAXMSGSIZE, wire.MAX_REFEREE_MESSAGE)
        socket.connect(self.endpoint)
        socket.send(
            wire.encode(wire.Hello(token=self.token, name=self.person, bot_version="person"))
        )
        poller = zmq.Poller()
        poller.register(socket, zmq.POLLIN)
        try:
            while not self.closed.is_set():
                ready = dict(poller.poll(POLL_MS)).get(socket)
                if ready and not self._handle(socket.recv()):
                    return
                while self._seq is not None and not self.resigned.is_set():
                    try:
                        action = self.outbox.get_nowait()
                    except queue.Empty:
                        break
                    socket.send(wire.encode(wire.Action(seq=self._seq, action=action)))
                    self._seq = None
                    self._update(status="waiting", message=None, sent=action)
        finally:
            socket.close()
            context.term()
            self.closed.set()

    def _handle(self, data: bytes) -> bool:
        """React to one message from the referee; False once the connection is over."""
        try:
            message = wire.decode_from_referee(data)
        except wire.ProtocolError as error:
            self._update(message=f"ignored a bad message from the referee: {error}")
            return True
        if isinstance(message, wire.Welcome):
            self._update(status="waiting", seat=message.seat)
        elif isinstance(message, wire.GameStart):
            self._update(
                status="waiting",
                seat=message.seat,
                variant=message.variant,
                players=message.players,
                observation=message.observation,
                board=message.board,
            )
        elif isinstance(message, wire.Act):
            self._seq = message.seq
            self._update(status="to-move", observation=message.observation, legal=message.legal)
        elif isinstance(message, wire.Error):
            # An illegal click: the referee's message says which rule; a new act follows.
            self._update(message=message.message, error_code=message.code)
        elif isinstance(message, wire.GameOver):
            self._update(
                status="over", observation=message.observation, legal=[], result=message.result()
            )
        elif isinstance(message, wire.Bye):
            if self.state["status"] != "over":
                self._update(status="over", message=f"the referee ended the game: {message.reason}")
            return False
        return True


class HumanSeat(RemoteSeat):
    """The referee's view of the person's seat: a remote seat whose "process" is the bridge."""

    person = True

    def __init__(self, hub: Hub, seat: int, bridge: HumanBridge, name: str) -> None:
        super().__init__(hub, seat, None, name)
        self.bridge = bridge

    def alive(self) -> bool:
        return not self.bridge.resigned.is_set() and not self.bridge.closed.is_set()

    def ask(self, act: wire.Act, legal, deadline: float) -> Reply:
        reply = super().ask(act, legal, deadline)
        if reply.fault and self.bridge.resigned.is_set():
            reply = Reply(fault="resigned", detail="the person resigned", elapsed=reply.elapsed)
        return reply

    def close(self, message: wire.Bye | None = None, grace: float = 2.0) -> None:
        if message is not None:
            self.hub.send(self.seat, message)
            # The page learns the result through the bridge: let it read up to the bye
            # before the endpoint closes (a closed endpoint drops what it has not sent).
            self.bridge.closed.wait(grace)
        super().close(None, grace)
        self.bridge.closed.set()


class HumanMatch(ProcessMatch):
    """A ``ProcessMatch`` where seat ``human_seat`` is a person behind a ``HumanBridge``."""

    def __init__(self, *args: Any, human_seat: int, person: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.human_seat = human_seat
        self.person = person
        self.bridge: HumanBridge | None = None

    def _seat(self, hub: Hub, s: int, entry: BotEntry, folder: Path) -> RemoteSeat:
        if s != self.human_seat:
            return super()._seat(hub, s, entry, folder)
        endpoint, token = hub.add_seat(s)
        self.bridge = HumanBridge(endpoint, token, self.person)
        self.bridge.start()
        seat = HumanSeat(hub, s, self.bridge, self.person)
        # No process: the hub polls whether the person is still there (a resignation).
        hub.watch(s, ProcessWatch(None, seat.alive, lambda: "left the game"))
        return seat


def person_entry(name: str) -> BotEntry:
    """The seat list's entry for a person (never started as a process)."""
    return BotEntry(name=name, command=(), labelled=True, version="person")


@dataclass
class HumanGame:
    """One game of a person against bots, played in a background thread."""

    variant: Variant
    bots: list[BotEntry]
    human_seat: int
    seed: int
    person: str = "you"
    on_finish: Callable[[HumanGame], int | None] | None = None  # stores it; returns its id
    log_dir: Path = Path("arena-data/bot-logs")
    limits: ProcessLimits = field(default_factory=ProcessLimits)
    move_ms: int = 1000
    bank_ms: int = 30000
    game_id: str = field(default_factory=lambda: uuid.uuid4().hex[:10])
    # What the bots are told is keyed with it: the same key and seed, the same game (bots
    # included); by default a fresh one (keys.py).
    key: MatchKey | None = None
    outcome: Any = None
    error: str | None = None
    match_id: int | None = None

    def __post_init__(self) -> None:
        if not 0 <= self.human_seat <= len(self.bots):
            raise ValueError(f"--human-seat must be 0 to {len(self.bots)}")
        players = len(self.bots) + 1
        if not self.variant.min_players <= players <= self.variant.max_players:
            raise ValueError(
                f"{self.variant.name} is for {self.variant.min_players}-"
                f"{self.variant.max_players} players, not {players}"
            )
        self.entries = list(self.bots)
        self.entries.insert(self.human_seat, person_entry(self.person))
        self.ready = threading.Event()
        self.done = threading.Event()
        self.match: HumanMatch | None = None
        self.thread = threading.Thread(target=self._play, name=f"human-game-{self.game_id}")

    @property
    def bridge(self) -> HumanBridge | None:
        return self.match.bridge if self.match else None

    def start(self) -> HumanGame:
        self.thread.start()
        self.ready.wait(60)
        return self

    def _play(self) -> None:
        tc = TimeControl(move_ms=self.move_ms, bank_ms=self.bank_ms)
        try:
            self.match = HumanMatch(
                self.variant,
                self.entries,
                tc,
                self.limits,
                self.log_dir,
                human_seat=self.human_seat,
                person=self.person,
                key=self.key,
            )
            with self.match as referee:
                self.ready.set()
                # Keyed, the game's id (which the bots' seeds are drawn with) comes from the
                # key too: the same key and seed, the same bots' seeds.
                game_id = None if self.key else f"human-{self.game_id}"
                self.outcome = referee.play(self.seed, game_id=game_id)
            if self.on_finish is not None:
                self.match_id = self.on_finish(self)
        except Exception as error:  # shown to the person on the page, never a traceback
            self.error = f"{type(error).__name__}: {error}"
        finally:
            self.ready.set()
            self.done.set()
            if self.bridge is not None:
                self.bridge.ended()
