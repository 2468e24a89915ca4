"""Connections a slow or greedy client cannot hold: uvicorn's httptools protocol (llhttp,
in C: a third less CPU a page than the pure-Python h11) with a deadline and a
size for each request's head and a cap on open connections per client address.

uvicorn bounds the idle time between two requests (``timeout_keep_alive``) and this
project's ``Limits`` bounds a body, but nothing bounds the head: a client that sends
its request line and headers one byte a second keeps the connection (and a file
descriptor) as long as it likes, and a few hundred such clients hold them all; and
httptools takes headers of any length.

- A head must arrive whole within ``head_seconds`` of its first byte (of the
  connection's opening, for the first request); else the client is answered 408 and
  the connection closed. On a keep-alive connection the deadline starts again with the
  next request's first byte. Once the head is in, the deadline is gone: a body is
  bounded by ``Limits``, an event stream by its own length.
- A head (its target and header lines) holds at most ``MAX_HEAD`` bytes; a longer one
  is answered 431 and the connection closed.
- One address holds at most ``per_address`` connections at once; one more is closed
  as soon as it opens, while other addresses are served. Behind a reverse proxy (every
  connection from the proxy's address) the proxy's addresses are not capped: the proxy
  is where that limit belongs.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections import Counter
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

log = logging.getLogger("arena.host")

# A request head must arrive within this (ARENA_HOST_HEAD_SECONDS: shorter, for tests).
HEAD_SECONDS = float(os.environ.get("ARENA_HOST_HEAD_SECONDS", "10"))
# Connections open at once from one address, unless told otherwise (``arena host``: the
# competition file's limits.connections_per_address).
PER_ADDRESS = 32
MAX_HEAD = 16 * 1024  # bytes of a request's target and header lines

TOO_SLOW = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"connection: close\r\ncontent-length: 41\r\n\r\n"
    b"refused: the request head came too slowly"
)
TOO_LARGE = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain; "
    b"charset=utf-8\r\nconnection: close\r\ncontent-length: 38\r\n\r\n"
    b"refused: the request head is too large"
)


class HeadTooLarge(Exception):
    """Raised from the parser's callbacks; the parser then fails the request (400), which
    ``send_400_response`` turns into a 431."""


class GuardedHttp(HttpToolsProtocol):
    """uvicorn's httptools protocol with a deadline and a size for request heads and a
    cap per address. Made for one server by ``guarded_protocol`` (its own count of
    connections)."""

    head_seconds: float = HEAD_SECONDS
    per_address: int = PER_ADDRESS
    uncapped: frozenset[str] = frozenset()  # a reverse proxy's addresses
    open_by_address: Counter[str]  # set by ``guarded_protocol``: one count per server

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.head_timer: asyncio.TimerHandle | None = None
        self.counted: str | None = None  # the address this connection is counted under
        self.head_bytes = 0  # of the head coming in
        self.in_head = True  # a head is awaited or coming in (not yet whole)
        self.too_large = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        address = self.client[0] if self.client else None
        if address is not None and address not in self.uncapped:
            if self.open_by_address[address] >= self.per_address:
                log.info("connection from %s refused: %d already open", address, self.per_address)
                transport.abort()  # at once: no bytes read, nothing queued for it
                return
            self.open_by_address[address] += 1
            self.counted = address
        self.start_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self.cancel_head_timer()
        if self.counted is not None:
            self.open_by_address[self.counted] -= 1
            if self.open_by_address[self.counted] <= 0:
                del self.open_by_address[self.counted]
            self.counted = None
        super().connection_lost(exc)

    # The parser's callbacks, in the order a request's head arrives.
    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.head_bytes = 0
        self.in_head = True
        if self.head_timer is None:
            self.start_head_timer()  # the first byte of a keep-alive connection's next head

    def on_url(self, url: bytes) -> None:
        self.count_head(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self.count_head(len(name) + len(value) + 4)
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self.in_head = False
        self.cancel_head_timer()
        super().on_headers_complete()

    def count_head(self, size: int) -> None:
        self.head_bytes += size
        if self.head_bytes > MAX_HEAD:
            self.too_large = True
            raise HeadTooLarge

    def send_400_response(self, msg: str) -> None:
        if not self.too_large:
            super().send_400_response(msg)
            return
        log.info("request from %s refused: its head is over %d bytes", self.client, MAX_HEAD)
        self.transport.write(TOO_LARGE)
        self.transport.close()

    def start_head_timer(self) -> None:
        self.cancel_head_timer()
        self.head_timer = self.loop.call_later(self.head_seconds, self.head_too_slow)

    def cancel_head_timer(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    def head_too_slow(self) -> None:
        """The deadline passed with the head not in: 408, and the connection closed."""
        self.head_timer = None
        if self.transport.is_closing() or not self.in_head:
            return
        if self.cycle is None or self.cycle.response_complete:  # room for a 408
            self.transport.write(TOO_SLOW)
        self.transport.close()


def guarded_protocol(
    head_seconds: float = HEAD_SECONDS,
    per_address: int = PER_ADDRESS,
    uncapped: frozenset[str] = frozenset(),
) -> type[GuardedHttp]:
    """The protocol class for one server (uvicorn's ``http=``): its limits and its own
    count of open connections per address."""
    return type(
        "GuardedHttp",
        (GuardedHttp,),
        {
            "head_seconds": head_seconds,
            "per_address": per_address,
            "uncapped": uncapped,
            "open_by_address": Counter(),
        },
    )
