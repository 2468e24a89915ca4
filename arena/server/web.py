"""The web stack's middleware: error pages, request limits, who is asking, CSRF.

Each is a plain ASGI middleware, so no handler has to remember them:

- ``ErrorPages``: no traceback reaches a page. An unexpected error answers a short
  page with an id; the traceback goes to the server's log under that id. Security
  headers (CSP without inline script, nosniff, no framing) go on every answer.
- ``Limits``: a body larger than allowed is refused (413) by its Content-Length or
  as soon as it grows past it; a body that trickles is cut off (408) after
  ``BODY_SECONDS``, so a slow client holds a connection for a bounded time.
- ``SameOrigin``: a state-changing request whose ``Origin`` (or, without one, ``Referer``)
  is not this server's own origin (``Host`` with the scheme, the proxy's
  ``X-Forwarded-Proto`` behind ``--behind-proxy``) is refused (403) before anything reads
  it: a page of another site cannot post a form here, whatever cookies it planted.
- ``Identify``: the user of a Bearer token (the command line: cookies are then
  ignored), on ``/api/`` only: a token on any other route is refused (403), never taken
  as a session; or of a signed session cookie. Visitors without a session get a CSRF
  seed cookie, from which their forms' token is derived (sign-up, sign-in), bound to
  the visitor's address. Cookies are ``__Host-`` prefixed when ``Secure``.
- ``CsrfForms``: every unsafe request made with cookies must carry the form field
  ``csrf`` matching the session's (or seed's) token; the parsed form is handed on.

The local mode (``arena serve``: loopback, no accounts) has no sessions; in their place:

- ``LoopbackOnly``: a ``Host`` that is not this server (DNS rebinding) or a POST from
  another origin (a page elsewhere posting the play form) is refused (403).
- ``PageToken``: every POST must carry the server's token, which only its own pages
  hold (form field ``token`` or header ``X-Arena-Token``); the parsed body is handed on.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import html
import json
import logging
import os
import secrets
import time
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs, urlsplit

from starlette.datastructures import FormData
from starlette.formparsers import MultiPartException
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena.server.accounts import Accounts
from arena.server.diskspace import DISK_FULL, is_full_error

log = logging.getLogger("arena.host")
SESSION_COOKIE = "arena_session"
SEED_COOKIE = "arena_csrf"
API_PREFIX = "/api/"  # the only routes an API token reaches (``arena.server.api``)
# A request body must arrive within this (ARENA_HOST_BODY_SECONDS: shorter, for tests).
BODY_SECONDS = float(os.environ.get("ARENA_HOST_BODY_SECONDS", "30"))
FORM_BYTES = 64 * 1024  # a form without a file
SAFE = ("GET", "HEAD", "OPTIONS")
HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; "
        b"base-uri 'none'; form-action 'self'; object-src 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"cache-control", b"no-store"),  # private pages (code, logs) never kept by a proxy
]


def sign(secret: bytes, value: str) -> str:
    return hmac.new(secret, value.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:32]


def same(given: str, expected: str) -> bool:
    """Whether a token a client sent is the expected one, in constant time. Compared as
    bytes: ``compare_digest`` on two ``str`` refuses non-ASCII with a TypeError, and a
    JSON string may hold a lone surrogate (``surrogatepass`` encodes it)."""
    return hmac.compare_digest(
        given.encode("utf-8", "surrogatepass"), expected.encode("utf-8", "surrogatepass")
    )


def session_cookie(secret: bytes, session: str) -> str:
    return f"{session}.{sign(secret, 'session:' + session)}"


def unsigned(secret: bytes, cookie: str) -> str | None:
    """The session id of a cookie value whose signature holds, else None."""
    session, _, mac = cookie.rpartition(".")
    if session and same(mac, sign(secret, "session:" + session)):
        return session
    return None


def cookie_name(name: str, secure: bool) -> str:
    """A ``Secure`` cookie's name takes the ``__Host-`` prefix: a browser then accepts it
    only from this host over HTTPS, with ``Path=/`` and no ``Domain``, so a sibling
    subdomain cannot plant one (plain HTTP has no such prefix)."""
    return f"__Host-{name}" if secure else name


def cookie_header(name: str, value: str, secure: bool, max_age: int | None = None) -> bytes:
    """A ``Set-Cookie`` value: HttpOnly, SameSite=Lax, Path=/ and no Domain; with
    ``secure``, Secure and the ``__Host-`` prefix on ``name``."""
    parts = [f"{cookie_name(name, secure)}={value}", "Path=/", "HttpOnly", "SameSite=Lax"]
    if secure:
        parts.append("Secure")
    if max_age is not None:
        parts.append(f"Max-Age={max_age}")
    return "; ".join(parts).encode()


def cookies(scope: Scope) -> dict[str, str]:
    """The request's cookies; a name sent twice is dropped (one of the two was planted
    with a narrower path or a parent domain: neither is trusted)."""
    found: dict[str, str] = {}
    twice: set[str] = set()
    for key, value in scope.get("headers", []):
        if key != b"cookie":
            continue
        for piece in value.decode("latin-1").split(";"):
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(piece)
            except Exception:
                continue
            for name, morsel in jar.items():
                if name in found:
                    twice.add(name)
                found[name] = morsel.value
    return {name: value for name, value in found.items() if name not in twice}


async def plain(send: Send, status: int, text: str, headers: list | None = None) -> None:
    """A short answer in one line (html-escaped: it may hold what a client sent)."""
    body = f"<!doctype html><title>{status}</title><p>{html.escape(text)}</p>\n".encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"text/html; charset=utf-8"), *HEADERS, *(headers or [])],
        }
    )
    await send({"type": "http.response.body", "body": body})


class ErrorPages:
    def __init__(self, app: ASGIApp, logger: logging.Logger = log) -> None:
        self.app, self.log = app, logger

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def guarded(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                message["headers"] = [*message.get("headers", []), *HEADERS]
            await send(message)

        try:
            await self.app(scope, receive, guarded)
        except Exception as error:
            if is_full_error(error):  # a state of the server, not a bug: said as it is
                self.log.warning("%s %s: %s", scope.get("method"), scope.get("path"), error)
                if not started:
                    await plain(send, 503, DISK_FULL[0].upper() + DISK_FULL[1:] + ".")
                return
            error_id = secrets.token_hex(6)
            self.log.exception(
                "error %s on %s %r", error_id, scope.get("method"), scope.get("path")
            )
            if not started:
                await plain(send, 500, f"Something went wrong on our side (error id {error_id}).")


class BodyTooLarge(Exception):
    pass


class BodyTooSlow(Exception):
    pass


class Limits:
    def __init__(self, app: ASGIApp, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_body):
            await plain(send, 413, f"refused: a request body is at most {self.max_body:,} bytes")
            return
        deadline = time.monotonic() + BODY_SECONDS
        seen = 0
        done = False

        async def bounded() -> Message:
            """The body within its deadline and size; after it, waiting for the client to
            go (a live page's event stream) is not bounded here."""
            nonlocal seen, done
            if done:
                return await receive()
            left = deadline - time.monotonic()
            try:
                message = await asyncio.wait_for(receive(), timeout=max(left, 0.001))
            except TimeoutError:
                raise BodyTooSlow from None
            seen += len(message.get("body", b""))
            if seen > self.max_body:
                raise BodyTooLarge
            done = message["type"] != "http.request" or not message.get("more_body", False)
            return message

        started = False

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, bounded, watched)
        except (BodyTooLarge, BodyTooSlow) as error:
            if started:
                raise
            if isinstance(error, BodyTooLarge):
                await plain(
                    send, 413, f"refused: a request body is at most {self.max_body:,} bytes"
                )
            else:
                await plain(send, 408, "refused: the request body came too slowly")


class Identify:
    def __init__(self, app: ASGIApp, accounts: Accounts, secret: bytes, secure: bool) -> None:
        self.app, self.accounts, self.secret, self.secure = app, accounts, secret, secure

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state: dict[str, Any] = scope.setdefault("state", {})
        state.update(user=None, csrf=None, via="none", session=None, grant=None)
        headers = dict(scope.get("headers", []))
        bearer = headers.get(b"authorization", b"").decode("latin-1")
        extra: list[tuple[bytes, bytes]] = []
        if bearer:
            if not scope["path"].startswith(API_PREFIX):
                log.info(
                    "an API token refused on %s %r from %s: tokens reach /api/ only",
                    scope["method"], scope["path"], client(scope),
                )  # fmt: skip
                await plain(send, 403, "refused: an API token reaches /api/ only: sign in here")
                return
            scheme, _, token = bearer.partition(" ")
            grant = None
            if scheme.lower() == "bearer" and token:
                grant = await asyncio.to_thread(self.accounts.token_grant, token.strip())
            if grant is None:
                await plain(send, 401, "refused: the API token is unknown, revoked or expired")
                return
            state.update(user=grant.user, via="token", grant=grant)
        else:
            jar = cookies(scope)
            session = unsigned(self.secret, jar.get(cookie_name(SESSION_COOKIE, self.secure), ""))
            found = await asyncio.to_thread(self.accounts.session, session) if session else None
            if found is not None:
                state.update(user=found[0], csrf=found[1], via="session", session=session)
            else:
                seed = jar.get(cookie_name(SEED_COOKIE, self.secure), "")
                if len(seed) != 32 or not seed.isascii() or not seed.isalnum():
                    seed = secrets.token_hex(16)
                    extra.append((b"set-cookie", cookie_header(SEED_COOKIE, seed, self.secure)))
                state.update(csrf=presession_token(self.secret, seed, client(scope)))

        async def with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start" and extra:
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, with_cookie)


def presession_token(secret: bytes, seed: str, address: str) -> str:
    """The CSRF token of a visitor without a session (the sign-up and sign-in forms):
    bound to their seed cookie and to their address, so a seed and token fetched from
    elsewhere and planted in a victim's browser are refused from the victim's address."""
    return sign(secret, f"csrf:{seed}:{address}")


def origin_of(url: str) -> str | None:
    """``scheme://host[:port]`` of a URL (an ``Origin`` or a ``Referer``), lower-cased and
    without its scheme's default port; None if it has none (``null``, garbage)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    host = parts.hostname
    if parts.scheme not in ("http", "https") or not host:
        return None
    if ":" in host:
        host = f"[{host}]"
    shown = "" if port is None or port == {"http": 80, "https": 443}[parts.scheme] else f":{port}"
    return f"{parts.scheme}://{host}{shown}"


class SameOrigin:
    """Refuse a state-changing request that a page of another origin made the browser
    send. The server's own origin is the request's ``Host`` with its scheme (behind
    ``--behind-proxy``, the scheme the trusted proxy gives in ``X-Forwarded-Proto``:
    uvicorn sets it), compared with ``Origin``, else with ``Referer``. A request with
    neither is not a browser's cross-origin request (browsers send ``Origin`` on every
    cross-origin POST, ``null`` when they hide it): it goes on to the token checks (a
    form's CSRF token, the API's Bearer token)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in SAFE:
            await self.app(scope, receive, send)
            return
        origin = header(scope, b"origin")
        source = origin if origin is not None else header(scope, b"referer")
        if source is None:
            await self.app(scope, receive, send)
            return
        own = origin_of(f"{scope.get('scheme', 'http')}://{header(scope, b'host') or ''}")
        if own is None or origin_of(source) != own:
            log.info(
                "cross-origin %s %r refused: %s %r, this server is %r, from %s",
                scope["method"], scope["path"][:200], "Origin" if origin is not None
                else "Referer", source[:200], own, client(scope),
            )  # fmt: skip
            await plain(send, 403, "refused: this form was sent from another site; "
                        "open the page on this server and send it again")  # fmt: skip
            return
        await self.app(scope, receive, send)


class CsrfForms:
    def __init__(self, app: ASGIApp, max_upload: int) -> None:
        self.app, self.max_upload = app, max_upload

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in SAFE:
            await self.app(scope, receive, send)
            return
        state = scope["state"]
        request = Request(scope, receive)
        try:
            form = await request.form(max_files=1, max_fields=16, max_part_size=FORM_BYTES)
        except MultiPartException as error:
            await plain(send, 400, f"refused: {error.message}")
            return
        except (BodyTooLarge, BodyTooSlow):
            raise
        except Exception:
            await plain(send, 400, "refused: the form could not be read")
            return
        try:
            if state["via"] != "token":
                given = form.get("csrf")
                if not isinstance(given, str) or not same(given, state["csrf"] or ""):
                    log.info("csrf refused on %r from %s", scope["path"][:2000], client(scope))
                    await plain(
                        send, 403, "refused: the form's CSRF token is missing or wrong "
                        "(reload the page and send the form again)",
                    )  # fmt: skip
                    return
            state["form"] = form
            await self.app(scope, receive, send)
        finally:
            await form.close()


def client(scope: Scope) -> str:
    found = scope.get("client")
    return str(found[0]) if found else "?"


def form_of(request: Request) -> FormData:
    return request.state.form


# ---------------------------------------------------------------- the local mode

TOKEN_HEADER = "X-Arena-Token"  # how the play page's scripts send the local token
TOKEN_FIELD = "token"  # how the play form sends it


def header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return value.decode("latin-1")
    return None


class LoopbackOnly:
    """Refuse what another site asks through the person's browser: a ``Host`` that is not
    this server (a name rebound to 127.0.0.1), or a POST from another origin (a page
    elsewhere submitting the play form, which starts bot commands here)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        port = (scope.get("server") or ("", 0))[1]
        hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
        origin = header(scope, b"origin")
        if header(scope, b"host") in hosts and (
            scope["method"] in SAFE or origin is None or origin in {f"http://{h}" for h in hosts}
        ):
            await self.app(scope, receive, send)
            return
        await plain(send, 403, "Forbidden: open the page from this server.")


class PageToken:
    """Every POST carries ``token`` (the form field, or the ``X-Arena-Token`` header): the
    proof that it comes from one of this server's own pages, since a page of another site
    cannot read them and a request that leaves out ``Origin`` (a local process, a browser
    extension) has no token either. The body (a form or a JSON object) is read once and
    handed on as ``state["form"]``: a dict, or None when it is not valid."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app, self.token = app, token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in SAFE:
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        raw = await request.body()
        form = parsed(raw, header(scope, b"content-type") or "")
        given = header(scope, TOKEN_HEADER.lower().encode()) or (form or {}).get(TOKEN_FIELD)
        if not isinstance(given, str) or not same(given, self.token):
            log.info("a POST to %r without this server's token refused", scope["path"])
            await plain(send, 403, "Forbidden: open the page from this server.")
            return
        scope.setdefault("state", {})["form"] = form
        await self.app(scope, request.receive, send)


def parsed(raw: bytes, kind: str) -> dict[str, Any] | None:
    """A JSON object or a form (a field given twice: a list of its values), else None."""
    try:
        if kind.startswith("application/json"):
            data = json.loads(raw or b"{}")
            return data if isinstance(data, dict) else None
        return {k: v if len(v) > 1 else v[0] for k, v in parse_qs(raw.decode()).items()}
    except (ValueError, UnicodeDecodeError):
        return None
