"""The API (``/api/...``): the only routes an API token reaches, each declaring the scope
a token needs to use it.

A token is a credential for scripts (``arena submit --server``), not a login: ``Identify``
refuses it on every route outside ``/api/`` (pages, forms, the token pages, ``/admin``),
so it can never make a token, change an account or act as an admin's session. Here each
route names its scope next to its path (``ApiRoute``), checked before the handler runs; a
token without it gets 403 naming the scope. Every request of a token that carries the
``admin`` scope is written to ``server.log``. A signed-in browser may read the API too:
its session has every scope its account has (``admin`` only for admins, as on the pages).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from arena.server.accounts import SCOPES, Grant
from arena.server.host import log
from arena.server.web import API_PREFIX, client


def needs_scope(scope: str, handler: Callable[[Request], Response]) -> Callable[..., Response]:
    """``handler``, refused (403, one line) to a token that lacks ``scope``."""
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}")

    @functools.wraps(handler)
    def endpoint(request: Request) -> Response:
        grant: Grant | None = request.state.grant
        if grant is None:  # a session, or nobody: the handler decides as on the pages
            return handler(request)
        who = f"token {grant.token_id} of {grant.user.name}"
        where = f"{request.method} {request.url.path!r} from {client(request.scope)}"
        if "admin" in grant.scopes:
            log.info("admin-scope %s used: %s", who, where)
        if scope not in grant.scopes:
            log.info("%s lacks scope %s: %s", who, scope, where)
            has = ", ".join(s for s in SCOPES if s in grant.scopes)
            return JSONResponse(
                {"error": f"this token lacks the '{scope}' scope (it has: {has}): make a token "
                 f"with '{scope}' on your account page"},
                status_code=403,
            )  # fmt: skip
        if scope == "admin" and not grant.user.admin:
            return JSONResponse(
                {"error": "the admin scope needs an admin's account: this one is not"},
                status_code=403,
            )
        return handler(request)

    return endpoint


class ApiRoute(Route):
    """A route of the API and the scope a token needs to use it."""

    def __init__(
        self,
        path: str,
        endpoint: Callable[[Request], Response],
        scope: str,
        methods: list[str] | None = None,
    ) -> None:
        if not path.startswith(API_PREFIX):
            raise ValueError(f"an API route is under {API_PREFIX}: {path}")
        self.scope = scope
        super().__init__(path, needs_scope(scope, endpoint), methods=methods)


def check_routes(routes: Sequence[BaseRoute]) -> None:
    """Every route under ``/api/`` declares its scope (an ``ApiRoute``), so no route a
    token reaches is unguarded; checked when the application is built."""
    for route in routes:
        path = getattr(route, "path", "")
        if path.startswith(API_PREFIX) and not isinstance(route, ApiRoute):
            raise ValueError(f"{path} is under {API_PREFIX} but declares no scope: use ApiRoute")
