"""The referee's end of the transport: a private ZeroMQ ROUTER for every seat.

Each seat has its own ROUTER on its own endpoint (a loopback TCP port, or a
Unix socket for a bot in its own network namespace) and a one-time token.
The sandbox lets a bot connect to its own endpoint only, so everything that
arrives there is that bot's doing: the connection that said hello, and any
other socket it opened. Nothing a bot sends is kept beyond the message being
decided on; every message is counted against the seat's ``Budget`` for the
current decision, and whatever is ignored (messages before the hello, hellos
again, other connections, duplicate, stale or unknown answers) is counted by
kind for the match log. A seat over its budget is charged ``flood`` at once
and its endpoint closed, which frees whatever ZeroMQ had queued for it.

Faults are seen as they happen, not when the seat is next asked: one poller
watches every endpoint, each bot's process (a pidfd: readable when the
launched process exits, whatever its children do) and each endpoint's
connections (a socket monitor: ZeroMQ silently drops a connection that sends
a frame over ``MAX_BOT_MESSAGE``, so a dropped connection whose process lives
on is charged ``oversize``). While one seat thinks, the referee blocks on that
seat's endpoint alone (the hot path) and runs the whole poller every
``FULL_POLL_S``. Faults of seats other than the one being waited on are kept
in ``faults`` for the referee to collect.
"""

from __future__ import annotations

import contextlib
import math
import secrets
import shutil
import struct
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import cast

import msgspec
import zmq

from arena.referee.faults import CRASH, FLOOD, MALFORMED, OVERSIZE, Budget
from protocols.messages import (
    MAX_BOT_MESSAGE,
    Action,
    Hello,
    Message,
    ProtocolError,
    Welcome,
    decode_from_bot,
    encode,
)

RECEIVE_QUEUE = 16  # messages ZeroMQ may queue per connection before it stops reading it
SEND_QUEUE = 64  # messages queued for a bot that does not read them
DRAIN_BATCH = 64  # messages handled per endpoint per poll, so no endpoint starves the others
LOST_GRACE_S = 5.0  # a dropped connection whose process exits within this is a crash
# (a Python bot that raises closes its socket, then prints its traceback and shuts its
# interpreter down: on a machine with both cores busy, one that had filled its 4 GiB took
# over 2 s from that close to its exit)
NO_PROCESS_SLICE_MS = 20  # poll slice for a seat whose process cannot be watched by a pidfd
# (and while a seat that lost its connection is given its grace: see ``_lost``)
FULL_POLL_S = 0.005  # while waiting for one seat, how often everything else is looked at too
MONITORED = zmq.EVENT_ACCEPTED | zmq.EVENT_DISCONNECTED
# Plain integers on the hot path (pyzmq's flag enums cost a call each time they combine).
POLLIN, NOBLOCK, EVENTS = int(zmq.POLLIN), int(zmq.NOBLOCK), int(zmq.EVENTS)
SNDMORE, RCVMORE = int(zmq.SNDMORE), int(zmq.RCVMORE)


@dataclass
class Reply:
    """What came back for one request: an action text, or a fault code with its detail."""

    action: str | None = None
    note: str | None = None  # the bot's note on its action (protocol ``action.note``)
    fault: str | None = None
    detail: str = ""
    elapsed: float = 0.0
    counts: dict[str, int] | None = None


def describe(counts: Counter[str] | dict[str, int]) -> str:
    """``3 stale, 1 duplicate`` (largest first), or ``nothing``."""
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return ", ".join(f"{n} {kind}" for kind, n in ranked if n) or "nothing"


@dataclass
class ProcessWatch:
    """How the hub learns that a seat's launched process exited."""

    pidfd: int | None  # readable once the process has exited
    alive: Callable[[], bool]
    status: Callable[[], str]  # "exited with status 3", for the fault's detail
    exit_code: Callable[[], int | None] = lambda: None  # 0: it left of its own accord


@dataclass
class SeatLink:
    """One seat's private endpoint and everything counted about it."""

    seat: int
    token: str
    socket: zmq.Socket
    monitor: zmq.Socket
    endpoint: str
    identity: bytes | None = None  # the connection that said hello with the token
    fd: int | None = None  # that connection's file descriptor (for the monitor's events)
    name: str = ""
    bot_version: str = "1"
    connections: int = 0  # every connection ever made to this endpoint (budgeted per match)
    # The current decision's window (from the seat's last act): what the budget limits.
    window_messages: int = 0
    window_bytes: int = 0
    # Ignored traffic since the referee last collected it (for the match log).
    ignored: Counter[str] = field(default_factory=Counter)
    ignored_bytes: int = 0
    # Requests: the one awaited now, the latest sent, all sent this game.
    waiting: int | None = None
    latest: int | None = None
    issued: set[int] = field(default_factory=set)
    answer: str | None = None
    note: str | None = None  # the answer's note
    closed: bool = False
    timeout: int = -1  # the receive timeout set on the socket (ms)
    lost_at: float | None = None  # when the connection that said hello was dropped


class Hub:
    """Every seat's endpoint, and one poller over them, their monitors and their processes."""

    def __init__(
        self,
        match_id: str = "",
        budget: Budget | None = None,
        context: zmq.Context | None = None,
        ipc_dir: str | None = None,
    ) -> None:
        """``context`` and ``ipc_dir`` (where Unix-socket endpoints are made): a pool's,
        whose endpoints outlive this match (``adopt``/``release``); the hub then leaves
        both in place when it closes."""
        self.match_id = match_id
        self.budget = budget or Budget()
        self._own_context = context is None
        self.context = context or zmq.Context()
        self.links: dict[int, SeatLink] = {}
        self._items: list[tuple[zmq.Socket | int, int]] | None = None
        self._next_full = 0.0
        self._unwatchable = False  # a watched process without a pidfd: polled in slices
        self._by_socket: dict[zmq.Socket, SeatLink] = {}
        self._by_monitor: dict[zmq.Socket, SeatLink] = {}
        self._watches: dict[int, ProcessWatch] = {}
        self._by_pidfd: dict[int, int] = {}
        self.faults: dict[int, Reply] = {}  # seats charged while the referee waited on another
        self.noisy: set[int] = set()  # seats with ignored traffic not yet collected
        self._lost_seats: set[int] = set()  # connection dropped, process given its grace
        self._ipc_dir: str | None = ipc_dir
        self._own_ipc_dir = ipc_dir is None

    # ---------------------------------------------------------------- set-up

    def add_seat(self, seat: int, private_network: bool = False) -> tuple[str, str]:
        """Open ``seat``'s endpoint; returns (endpoint, one-time token). With
        ``private_network`` the endpoint is a Unix socket (a bot in its own network
        namespace cannot reach loopback TCP), else an ephemeral loopback TCP port."""
        socket = self.context.socket(zmq.ROUTER)
        socket.setsockopt(zmq.LINGER, 0)
        socket.setsockopt(zmq.MAXMSGSIZE, MAX_BOT_MESSAGE)
        socket.setsockopt(zmq.RCVHWM, RECEIVE_QUEUE)
        socket.setsockopt(zmq.SNDHWM, SEND_QUEUE)
        if private_network:
            if self._ipc_dir is None:
                self._ipc_dir = tempfile.mkdtemp(prefix="ttr-arena-hub-")
            socket.bind(f"ipc://{self._ipc_dir}/{secrets.token_hex(8)}")
        else:
            socket.bind("tcp://127.0.0.1:*")
        endpoint = socket.getsockopt_string(zmq.LAST_ENDPOINT)
        monitor = socket.get_monitor_socket(MONITORED)
        link = SeatLink(seat, secrets.token_hex(16), socket, monitor, endpoint)
        self.links[seat] = link
        self._by_socket[socket] = link
        self._by_monitor[monitor] = link
        self._changed()
        return endpoint, link.token

    def adopt(self, seat: int, link: SeatLink) -> None:
        """Seat a warm bot: ``link`` (released by an earlier match, still connected) becomes
        ``seat``'s, with nothing of its earlier matches counted, and is told its new seat
        (a ``welcome`` opens each match; it says no new hello)."""
        link.seat = seat
        link.connections = 1  # the connection that said hello, long ago
        link.window_messages = link.window_bytes = link.ignored_bytes = 0
        link.ignored.clear()
        link.waiting = link.latest = link.answer = None
        link.issued.clear()
        self.links[seat] = link
        self._by_socket[link.socket] = link
        self._by_monitor[link.monitor] = link
        self._changed()
        self.send(seat, Welcome(seat=seat, match_id=self.match_id))

    def release(self, seat: int) -> SeatLink:
        """Hand ``seat``'s endpoint, still open, to whoever keeps its bot for a next match."""
        self.unwatch(seat)
        link = self.links.pop(seat)
        del self._by_socket[link.socket], self._by_monitor[link.monitor]
        self._changed()
        return link

    def watch(self, seat: int, watch: ProcessWatch) -> None:
        """Charge ``seat`` with ``crash`` as soon as its launched process exits."""
        self._watches[seat] = watch
        if watch.pidfd is not None:
            self._by_pidfd[watch.pidfd] = seat
        self._unwatchable = any(w.pidfd is None for w in self._watches.values())
        self._changed()

    def connected(self, seat: int) -> bool:
        link = self.links.get(seat)
        return (
            link is not None
            and link.identity is not None
            and not link.closed
            and link.lost_at is None
        )

    def close_seat(self, seat: int) -> None:
        """Close a seat's endpoint (its connections and queues go with it) and stop watching
        its process. Idempotent."""
        link = self.links.get(seat)
        if link is not None and not link.closed:
            close_link(link)
            self._changed()
        self.unwatch(seat)

    def unwatch(self, seat: int) -> None:
        watch = self._watches.pop(seat, None)
        if watch is not None and watch.pidfd is not None:
            self._by_pidfd.pop(watch.pidfd, None)
        self._unwatchable = any(w.pidfd is None for w in self._watches.values())
        self._changed()

    def close(self) -> None:
        """Close every endpoint and the context at once (idempotent)."""
        for seat in list(self.links):
            self.close_seat(seat)
        if self._own_context and not self.context.closed:
            self.context.destroy(linger=0)
        if self._own_ipc_dir and self._ipc_dir is not None:
            shutil.rmtree(self._ipc_dir, ignore_errors=True)

    # ---------------------------------------------------------------- the conversation

    def send(self, seat: int, message: Message) -> None:
        link = self.links.get(seat)
        if link is None or link.closed or link.identity is None:
            return
        # A bot that does not read its messages fills its queue and times out instead.
        socket, data = link.socket, encode(message)
        with contextlib.suppress(zmq.Again, zmq.ZMQError):
            socket.send(link.identity, NOBLOCK | SNDMORE)
            socket.send(data, NOBLOCK)

    def new_window(self, seat: int) -> None:
        """Start a new decision window for ``seat`` (a new game, a new request)."""
        link = self.links.get(seat)
        if link is not None:
            link.window_messages = link.window_bytes = 0

    def new_game(self, seat: int) -> None:
        link = self.links.get(seat)
        if link is not None:
            link.issued.clear()
            link.latest = link.waiting = None
            link.answer = None
        self.new_window(seat)

    def ask(self, seat: int, seq: int, message: Message) -> None:
        """Send request ``seq`` to ``seat`` and start waiting for its answer."""
        link = self.links[seat]
        link.waiting = link.latest = seq
        link.issued.add(seq)
        link.answer = None
        self.new_window(seat)
        self.send(seat, message)

    def take_ignored(self, seat: int) -> tuple[dict[str, int], int]:
        """What ``seat`` sent that was ignored since the last call: counts by kind, bytes."""
        self.noisy.discard(seat)
        link = self.links.get(seat)
        if link is None or not link.ignored:
            return {}, 0
        counts, size = dict(link.ignored), link.ignored_bytes
        link.ignored.clear()
        link.ignored_bytes = 0
        return counts, size

    def take_faults(self) -> dict[int, Reply]:
        faults, self.faults = self.faults, {}
        return faults

    def handshake(self, pending: set[int], deadline: float) -> None:
        """Accept hellos until every seat in ``pending`` is connected or the deadline passes.
        A seat whose process exits, or that floods, leaves ``pending`` (see ``faults``)."""
        while True:
            pending -= {s for s in pending if self.connected(s) or s in self.faults}
            now = time.monotonic()
            if not pending or now >= deadline:
                return
            self.pump(deadline - now)

    def wait_action(self, seat: int, seq: int, deadline: float) -> Reply:
        """Wait for ``seat``'s action answering request ``seq`` until ``deadline``."""
        link = self.links[seat]
        start = time.monotonic()
        while True:
            fault = self.faults.pop(seat, None)
            if fault is not None:
                fault.elapsed = time.monotonic() - start
                return fault
            if link.answer is not None and link.latest == seq:
                action, link.answer = link.answer, None
                return Reply(action=action, note=link.note, elapsed=time.monotonic() - start)
            now = time.monotonic()
            if now >= deadline and seat in self._lost_seats:
                self.pump(LOST_GRACE_S)  # its connection is gone: the grace says crash or oversize
                continue
            if now >= deadline:
                ignored = dict(link.ignored)
                extra = f" (ignored meanwhile: {describe(ignored)})" if ignored else ""
                return Reply(
                    fault="timeout",
                    detail=f"no action before the deadline{extra}",
                    elapsed=now - start,
                )
            if now >= self._next_full:
                # Everything else (other seats' endpoints, every monitor) every FULL_POLL_S.
                self._next_full = now + FULL_POLL_S
                self.pump(0)
                continue
            self._receive(link, min(deadline, self._next_full) - now)

    # ---------------------------------------------------------------- the poller

    def _all_items(self) -> list[tuple[zmq.Socket | int, int]]:
        if self._items is None:
            self._items = [
                *((link.socket, zmq.POLLIN) for link in self.links.values() if not link.closed),
                *((link.monitor, zmq.POLLIN) for link in self.links.values() if not link.closed),
                *((fd, zmq.POLLIN) for fd in self._by_pidfd),
            ]
        return self._items

    def _receive(self, link: SeatLink, timeout_s: float) -> None:
        """The hot path: a blocking receive on the awaited seat's endpoint alone (everything
        else is looked at by the full poll every FULL_POLL_S)."""
        timeout = max(1, math.ceil(timeout_s * 1000))
        if timeout != link.timeout:
            link.socket.setsockopt(zmq.RCVTIMEO, timeout)
            link.timeout = timeout
        try:
            frames = _frames(link.socket, 0, link.identity is not None)
        except zmq.Again:
            return
        self._on_message(link, frames)
        self._drain(link)

    def _changed(self) -> None:
        self._items = None

    def pump(self, timeout_s: float) -> None:
        """Wait up to ``timeout_s`` for anything (0: only what is ready) on every endpoint,
        monitor and process, and handle it all."""
        timeout_ms = max(0, math.ceil(timeout_s * 1000))
        if self._unwatchable:
            timeout_ms = min(timeout_ms, NO_PROCESS_SLICE_MS)
            self._check_unwatchable()
        if self._lost_seats:
            timeout_ms = min(timeout_ms, NO_PROCESS_SLICE_MS)
            self._check_lost()
        ready = zmq.zmq_poll(self._all_items(), timeout_ms)
        if len(ready) > 1:  # exits first: an answer arriving with its process's exit is void
            ready.sort(key=lambda event: not isinstance(event[0], int))
        for item, _ in ready:
            if isinstance(item, int):
                seat = self._by_pidfd.get(item)
                if seat is not None:
                    self._exited(seat)
            elif item in self._by_socket:
                self._drain(self._by_socket[item])
            elif item in self._by_monitor:
                self._drain_monitor(self._by_monitor[item])

    def _check_unwatchable(self) -> None:
        for seat, watch in list(self._watches.items()):
            if watch.pidfd is None and not watch.alive():
                self._exited(seat)

    def _exited(self, seat: int) -> None:
        """The launched process is gone: ``crash``, unless its connection was dropped first
        and it then left cleanly (status 0), as PROTOCOL.md tells a bot whose connection
        closes: the first fault, the drop (an oversize frame), is the one charged. A
        process that dies of an error after its socket closed (a Python bot that raises
        closes its socket on the way out) is a crash."""
        watch, link = self._watches.get(seat), self.links.get(seat)
        if link is not None and not link.closed:
            self._drain_monitor(link)  # a drop seen with the exit came before it
        status = watch.status() if watch is not None else "exited"
        left = seat in self._lost_seats and watch is not None and watch.exit_code() == 0
        self._lost_seats.discard(seat)
        self.unwatch(seat)
        if left:
            self._charge_lost(seat, f"; then the bot process {status}")
            return
        self._charge(seat, CRASH, f"the bot process {status}", close=False)

    def _charge(
        self, seat: int, code: str, detail: str, counts: dict[str, int] | None = None, close=True
    ) -> None:
        """Record ``seat``'s fault (the first one counts); with ``close``, also close its
        endpoint now, so whatever it keeps sending costs nothing."""
        if seat not in self.faults and not self.links[seat].closed:
            self.faults[seat] = Reply(fault=code, detail=detail, counts=counts)
        if close:
            self.close_seat(seat)

    def _drain(self, link: SeatLink) -> None:
        socket = link.socket
        for _ in range(DRAIN_BATCH):
            if link.closed or not cast(int, socket.getsockopt(EVENTS)) & POLLIN:
                return
            # Frames (with their connection's descriptor) only until the hello is bound.
            frames = _frames(socket, NOBLOCK, link.identity is not None)
            self._on_message(link, frames)

    def _on_message(self, link: SeatLink, frames: list) -> None:
        body = frames[1:]
        size = sum(len(frame) for frame in body)
        link.window_messages += 1
        link.window_bytes += size
        if link.window_messages > self.budget.messages or link.window_bytes > self.budget.bytes:
            self._flood(link)
            return
        identity = _bytes(frames[0])
        if identity == link.identity:
            self._from_bot(link, body, size)
            return
        message = None
        if len(body) == 1:
            data = _bytes(body[0])
            try:
                message = decode_from_bot(data)
            except ProtocolError as error:
                if link.identity is None and _claims(data, link.token):
                    # A hello with the right token that is wrong otherwise: charge it now.
                    self._charge(link.seat, error.code, error.detail, close=False)
                    return
        if isinstance(message, Hello) and message.token == link.token:
            if link.identity is None:
                self._bind(link, identity, message, body[0])
            else:
                self._ignore(link, "hello-again", size)
        elif isinstance(message, Hello):
            self._ignore(link, "bad-token", size)
        elif link.identity is None:
            self._ignore(link, "before-hello", size)
        else:
            self._ignore(link, "other-connection", size)

    def _bind(self, link: SeatLink, identity: bytes, hello: Hello, frame: zmq.Frame) -> None:
        # Events about connections that closed before this one opened are still queued in
        # the monitor: handle them first, so that none is taken for this connection's.
        self._drain_monitor(link)
        link.identity = identity
        link.fd = frame.get(zmq.SRCFD)
        link.name, link.bot_version = hello.name, hello.bot_version
        self.send(link.seat, Welcome(seat=link.seat, match_id=self.match_id))

    def _from_bot(self, link: SeatLink, body: list, size: int) -> None:
        try:
            if len(body) != 1:
                raise ProtocolError(MALFORMED, f"expected one frame, got {len(body)}")
            message = decode_from_bot(_bytes(body[0]))
        except ProtocolError as error:
            self._charge(link.seat, error.code, error.detail, close=False)
            return
        if isinstance(message, Hello):
            self._ignore(link, "hello-again", size)
        elif isinstance(message, Action):
            if message.seq == link.waiting:
                note = message.note if isinstance(message.note, str) else None
                link.answer, link.note, link.waiting = message.action, note, None
            elif message.seq == link.latest:
                self._ignore(link, "duplicate", size)
            elif message.seq in link.issued:
                self._ignore(link, "stale", size)
            else:
                self._ignore(link, "wrong-seq", size)

    def _ignore(self, link: SeatLink, kind: str, size: int) -> None:
        link.ignored[kind] += 1
        link.ignored_bytes += size
        self.noisy.add(link.seat)

    def _flood(self, link: SeatLink) -> None:
        budget = self.budget
        counts = {
            "messages": link.window_messages,
            "bytes": link.window_bytes,
            "connections": max(0, link.connections - 1),
        }
        detail = (
            f"{link.window_messages} messages ({link.window_bytes} bytes) in one decision and "
            f"{max(0, link.connections - 1)} extra connection(s); the budget is "
            f"{budget.messages} messages and {budget.bytes} bytes a decision, {budget.connections}"
            f" extra connections a match (ignored: {describe(link.ignored)})"
        )
        self._charge(link.seat, FLOOD, detail, counts)

    def _drain_monitor(self, link: SeatLink) -> None:
        while not link.closed:
            try:
                event = link.monitor.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return
            kind, value = struct.unpack("=HI", event[0][:6])
            if kind == zmq.EVENT_ACCEPTED:
                link.connections += 1
                if link.connections > 1:
                    self._ignore(link, "extra-connection", 0)
                    if link.connections - 1 > self.budget.connections:
                        self._flood(link)
            elif kind == zmq.EVENT_DISCONNECTED:
                if link.identity is not None and value == link.fd:
                    self._lost(link)
                else:
                    self._ignore(link, "dropped-connection", 0)

    def _lost(self, link: SeatLink) -> None:
        """The connection that said hello is gone: ZeroMQ dropped it for an oversize frame,
        or the bot closed it; if the process exits too (within a short grace), a crash.
        The grace is not waited for here: the referee serves every other seat meanwhile
        (``_check_lost``), so that no seat's clock pays for another's drop."""
        if link.lost_at is not None:
            return
        link.lost_at = time.monotonic()
        if link.seat in self._watches:
            self._lost_seats.add(link.seat)
            return
        self._charge_lost(link.seat)  # nothing to wait for (a person's seat)

    def _check_lost(self) -> None:
        """Charge the seats whose connection was lost: ``crash`` if their process exits
        within the grace (the pidfd says so at once), else ``oversize`` after it."""
        now = time.monotonic()
        for seat in list(self._lost_seats):
            link, watch = self.links[seat], self._watches.get(seat)
            if seat in self.faults or link.closed or watch is None:
                self._lost_seats.discard(seat)
            elif watch.pidfd is None and not watch.alive():
                self._exited(seat)
            elif now - (link.lost_at or now) >= LOST_GRACE_S:
                self._lost_seats.discard(seat)
                self._charge_lost(seat)

    def _charge_lost(self, seat: int, then: str = "") -> None:
        self._charge(
            seat,
            OVERSIZE,
            f"its connection was dropped while its process ran: a message over "
            f"{MAX_BOT_MESSAGE} bytes (ZeroMQ closes a connection that sends one; a bot that "
            f"closes its own connection before 'bye' is charged the same){then}",
        )


def _frames(socket: zmq.Socket, flags: int, copy: bool) -> list:
    """``recv_multipart`` without its per-frame flag arithmetic (the referee's hot path)."""
    frames = [socket.recv(flags, copy=copy)]
    while socket.get(RCVMORE):
        frames.append(socket.recv(flags, copy=copy))
    return frames


def close_link(link: SeatLink) -> None:
    """Close an endpoint and its monitor (its connections and queues go with them)."""
    link.closed = True
    with contextlib.suppress(zmq.ZMQError):
        link.socket.disable_monitor()
    link.monitor.close(linger=0)
    link.socket.close(linger=0)


def _bytes(part: zmq.Frame | bytes) -> bytes:
    return part.bytes if isinstance(part, zmq.Frame) else part


def _claims(data: bytes, token: str) -> bool:
    """Whether ``data`` is a JSON object carrying ``token`` (a broken hello from the seat)."""
    try:
        value = msgspec.json.decode(data)
    except (msgspec.DecodeError, UnicodeDecodeError):
        return False
    return isinstance(value, dict) and value.get("token") == token
