"""The referee's end of the transport: one ZeroMQ ROUTER, one DEALER per bot.

The hub binds on loopback (an ephemeral TCP port by default, or an ipc path),
hands out one-time tokens, matches each ``hello`` to its seat, and receives
with deadlines enforced by its own poller, never by trusting a bot.
"""

from __future__ import annotations

import contextlib
import secrets
import shutil
import tempfile
import time
from dataclasses import dataclass, field

import zmq

from protocols.messages import (
    HARD_MESSAGE_CAP,
    Action,
    Hello,
    Message,
    ProtocolError,
    Welcome,
    encode,
)
from protocols.messages import decode_from_bot as decode

POLL_SLICE_MS = 20  # how often a wait also checks whether the bot's process is alive


@dataclass
class Reply:
    """What came back for one request: an action text, or a fault code with its detail."""

    action: str | None = None
    fault: str | None = None
    detail: str = ""
    elapsed: float = 0.0


@dataclass
class Hub:
    endpoint: str = "tcp://127.0.0.1:*"
    match_id: str = ""
    rejected: list[str] = field(default_factory=list)  # log of ignored connections

    def __post_init__(self) -> None:
        self.context = zmq.Context()
        self.socket = self.context.socket(zmq.ROUTER)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.setsockopt(zmq.MAXMSGSIZE, HARD_MESSAGE_CAP)
        self.socket.setsockopt(zmq.SNDHWM, 1000)
        self.socket.bind(self.endpoint)
        self.endpoint = self.socket.getsockopt_string(zmq.LAST_ENDPOINT)
        self._timeout = -1
        self._tokens: dict[str, int] = {}
        self.identity: dict[int, bytes] = {}
        self.seat_of: dict[bytes, int] = {}
        self.names: dict[int, tuple[str, str]] = {}
        self._ipc_dir: str | None = None

    def ipc_endpoint(self) -> str:
        """A Unix-socket endpoint of the same ROUTER, for bots in their own network
        namespace (loopback TCP does not reach them there). Bound on first use."""
        if self._ipc_dir is None:
            self._ipc_dir = tempfile.mkdtemp(prefix="ttr-arena-hub-")
            self.socket.bind(f"ipc://{self._ipc_dir}/hub")
        return f"ipc://{self._ipc_dir}/hub"

    def issue_token(self, seat: int) -> str:
        token = secrets.token_hex(16)
        self._tokens[token] = seat
        return token

    def close(self) -> None:
        """Close the socket and the context at once (idempotent). ``destroy`` closes any
        socket still open, so the context can never block a later garbage collection."""
        if not self.context.closed:
            self.context.destroy(linger=0)
        if self._ipc_dir is not None:
            shutil.rmtree(self._ipc_dir, ignore_errors=True)

    def send(self, seat: int, message: Message) -> None:
        identity = self.identity.get(seat)
        if identity is not None:
            # A bot that does not read its messages fills its queue and times out instead.
            with contextlib.suppress(zmq.Again):
                self.socket.send_multipart([identity, encode(message)], flags=zmq.NOBLOCK)

    def _receive(self, timeout_ms: float) -> tuple[bytes, list[bytes]] | None:
        """The next message, or None after ``timeout_ms`` (a blocking receive with a timeout:
        one system call fewer than poll-then-receive on the hot path)."""
        timeout = max(1, int(timeout_ms))
        if timeout != self._timeout:
            self.socket.setsockopt(zmq.RCVTIMEO, timeout)
            self._timeout = timeout
        try:
            frames = self.socket.recv_multipart(copy=True)
        except zmq.Again:
            return None
        return frames[0], frames[1:]

    def handshake(self, pending: set[int], deadline: float, alive) -> None:
        """Accept hellos until every seat in ``pending`` is connected or the deadline passes.

        ``alive(seat)`` tells whether a seat's process still runs; a dead seat
        is dropped from ``pending``. A hello with an unknown or used token is
        ignored and recorded in ``rejected``.
        """
        while pending:
            now = time.monotonic()
            if now >= deadline:
                return
            for seat in list(pending):
                if not alive(seat):
                    pending.discard(seat)
            got = self._receive(min(POLL_SLICE_MS, (deadline - now) * 1000))
            if got is None:
                continue
            identity, frames = got
            if identity in self.seat_of:
                continue  # a registered bot talking early: ignore
            try:
                if len(frames) != 1:
                    raise ProtocolError("malformed", "expected one frame")
                message = decode(frames[0])
            except ProtocolError as error:
                self.rejected.append(f"{identity.hex()}: {error}")
                continue
            if not isinstance(message, Hello) or message.token not in self._tokens:
                self.rejected.append(f"{identity.hex()}: wrong or used token, ignored")
                continue
            seat = self._tokens.pop(message.token)
            self.identity[seat] = identity
            self.seat_of[identity] = seat
            self.names[seat] = (message.name, message.bot_version)
            pending.discard(seat)
            self.send(seat, Welcome(seat=seat, match_id=self.match_id))

    def wait_action(self, seat: int, seq: int, deadline: float, alive) -> Reply:
        """Wait for ``seat``'s action answering request ``seq`` until ``deadline``."""
        identity = self.identity.get(seat)
        start = time.monotonic()
        while True:
            now = time.monotonic()
            if now >= deadline:
                return Reply(
                    fault="timeout", detail="no action before the deadline", elapsed=now - start
                )
            got = self._receive(min(POLL_SLICE_MS, (deadline - now) * 1000))
            if got is None:
                if not alive(seat):
                    return Reply(
                        fault="crash", detail="the bot process exited", elapsed=now - start
                    )
                continue
            sender, frames = got
            if sender != identity:
                if sender not in self.seat_of:
                    self.rejected.append(f"{sender.hex()}: message from an unknown peer, ignored")
                continue  # another seat speaking out of turn: ignored
            elapsed = time.monotonic() - start
            try:
                if len(frames) != 1:
                    raise ProtocolError("malformed", f"expected one frame, got {len(frames)}")
                message = decode(frames[0])
            except ProtocolError as error:
                return Reply(fault=error.code, detail=error.detail, elapsed=elapsed)
            if isinstance(message, Action) and message.seq == seq:
                return Reply(action=message.action, elapsed=elapsed)
            # A hello again, or an answer to an older request: ignored.
