"""A visitor's board page answered ahead of the middleware stack: the page readers ask for
most (a class's projector, a script polling the ladder) costs the server its bytes and
little else.

The board page a visitor without an account gets is the same for every visitor and kept
by the host (``Host.cached``: made once per change, at most once a second). Going
through the whole stack for it (error pages, limits, same-origin, who is asking, CSRF,
Starlette's router) was most of its CPU. ``VisitorBoards`` answers it first when nothing
about the request could change the answer:

- a GET of ``/boards/VARIANT/PLAYERS`` with no query;
- no API token and no session cookie (a participant's board shows their challenge
  form), and the visitor's CSRF seed cookie already set (a first visit goes the whole
  way, which sets it);
- the page is kept (otherwise the full path makes it).

It answers with the headers the full path adds (``HEADERS``) and is timed under the
board route's label, as the full path would be. Anything else goes down the stack.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING

from starlette.types import ASGIApp, Receive, Scope, Send

from arena.server.ids import IdConvertor
from arena.server.web import HEADERS, SEED_COOKIE, SESSION_COOKIE, cookie_name

if TYPE_CHECKING:
    from arena.server.host import Host

BOARD_ROUTE = "/boards/{variant}/{players:id}"  # the route's pattern: the metrics label
BOARD_PATH = re.compile(rf"/boards/([^/]+)/({IdConvertor.regex})")


class VisitorBoards:
    def __init__(self, app: ASGIApp, host: Host, secure: bool) -> None:
        self.app, self.host = app, host
        self.session = cookie_name(SESSION_COOKIE, secure).encode() + b"="
        self.seed = cookie_name(SEED_COOKIE, secure).encode() + b"="

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        page = self.kept_page(scope) if scope["type"] == "http" else None
        if page is None:
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        headers = [
            (b"content-type", b"text/html; charset=utf-8"),
            (b"content-length", str(len(page)).encode()),
            *HEADERS,
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": page})
        if self.host.metrics is not None:
            latency = self.host.metrics.latency.labels(BOARD_ROUTE, "GET")
            latency.observe(time.perf_counter() - started)

    def kept_page(self, scope: Scope) -> bytes | None:
        """The kept board page this request may have as it is, or None (the full path)."""
        if scope["method"] != "GET" or scope.get("query_string"):
            return None
        found = BOARD_PATH.fullmatch(scope["path"])
        if found is None:
            return None
        cookie = b""
        for name, value in scope.get("headers", []):
            if name == b"authorization":
                return None
            if name == b"cookie":
                cookie += b"; " + value
        if self.seed not in cookie or self.session in cookie:
            return None
        page = self.host.cached(("board-page", found[1], int(found[2])))
        return page if isinstance(page, bytes) else None
