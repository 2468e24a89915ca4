"""The web application: routes as a table, pages from Jinja2 templates, in two modes.

- The competition (``arena host``, ``create_app``): accounts, uploads, a ladder.
- The local mode (``arena serve`` and ``arena play --human``, ``create_local_app``): the
  person's own data folder on loopback, no accounts: the live site and the play pages
  (``arena.server.local``).

Both are built by ``application``: the same error pages (no traceback on a page), the
same request limits and the same live event stream; what differs is who may ask (a
session and its CSRF token, or loopback and the server's own pages' token) and the pages.

Handlers are small and synchronous (they run in Starlette's thread pool, each
thread with its own SQLite connections); who is asking, CSRF, body limits and
error pages are middleware (``arena.server.web``), who may see what is
``arena.server.access``. Every string a participant controls reaches a page
through Jinja2's autoescaping (or ``html.escape``), never raw.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Route

from arena.server.accounts_pages import (
    me,
    new_token,
    reset,
    reset_form,
    revoke_token,
    signin,
    signin_form,
    signout,
    signup,
    signup_form,
)
from arena.server.admin import (
    admin,
    admin_deadline,
    admin_export,
    admin_submission_action,
    admin_unthrottle,
    admin_user_action,
    admin_void,
)
from arena.server.announcements import admin_announce, admin_unannounce
from arena.server.api import ApiRoute, check_routes
from arena.server.botpages import bot_page
from arena.server.challenge_pages import challenge_new, challenge_page
from arena.server.competition import Competition
from arena.server.health import healthz, readyz
from arena.server.host import Host, server_secret
from arena.server.ids import IdConvertor  # noqa: F401  (registers {name:id}: SQLite's range)
from arena.server.local import (
    MAX_BODY,
    LocalSite,
    play_action,
    play_form,
    play_page,
    play_resign,
    play_script,
    play_state,
    site_page,
    start_game,
)
from arena.server.local import log as local_log
from arena.server.local import not_found as local_not_found
from arena.server.metrics import Metrics, RequestTimer, metrics
from arena.server.pages import (
    board,
    events,
    final,
    home,
    match_bundle,
    match_log,
    match_page,
    match_replay,
    match_stderr,
    not_found,
    static,
)
from arena.server.play_pages import play_action as host_play_action
from arena.server.play_pages import play_form as host_play_form
from arena.server.play_pages import play_page as host_play_page
from arena.server.play_pages import play_resign as host_play_resign
from arena.server.play_pages import play_state as host_play_state
from arena.server.play_pages import start_play
from arena.server.rules import rules
from arena.server.submissions import (
    choose,
    submission,
    submission_api,
    submission_code,
    submissions_api,
    upload,
)
from arena.server.supervisor import Supervisor
from arena.server.team_pages import team_create, team_invite, team_join, team_leave, team_remove
from arena.server.visitors import VisitorBoards
from arena.server.web import (
    CsrfForms,
    ErrorPages,
    Identify,
    Limits,
    LoopbackOnly,
    PageToken,
    SameOrigin,
)

__all__ = ["create_app", "create_local_app", "server_secret"]

ROUTES = [
    Route("/", home),
    Route("/boards/{variant}/{players:id}", board),
    Route("/final", final),
    Route("/rules", rules),
    Route("/bots/{key}", bot_page),
    Route("/matches/{match_id:id}", match_page),
    Route("/matches/{match_id:id}/stderr/{seat:id}", match_stderr),
    Route("/matches/{match_id:id}/replay.json", match_replay),
    Route("/matches/{match_id:id}/log.jsonl", match_log),
    Route("/matches/{match_id:id}/bundle.json", match_bundle),
    Route("/signup", signup_form, methods=["GET"]),
    Route("/signup", signup, methods=["POST"]),
    Route("/signin", signin_form, methods=["GET"]),
    Route("/signin", signin, methods=["POST"]),
    Route("/signout", signout, methods=["POST"]),
    Route("/reset", reset_form, methods=["GET"]),
    Route("/reset", reset, methods=["POST"]),
    Route("/me", me),
    Route("/me/tokens", new_token, methods=["POST"]),
    Route("/me/tokens/{token_id:id}/revoke", revoke_token, methods=["POST"]),
    Route("/me/team", team_create, methods=["POST"]),
    Route("/me/team/invite", team_invite, methods=["POST"]),
    Route("/me/team/join", team_join, methods=["POST"]),
    Route("/me/team/leave", team_leave, methods=["POST"]),
    Route("/me/team/remove", team_remove, methods=["POST"]),
    Route("/upload", upload, methods=["POST"]),
    Route("/play", host_play_form, methods=["GET"]),
    Route("/play", start_play, methods=["POST"]),
    Route("/play/{game_id}", host_play_page),
    Route("/play/{game_id}/state", host_play_state),
    Route("/play/{game_id}/action", host_play_action, methods=["POST"]),
    Route("/play/{game_id}/resign", host_play_resign, methods=["POST"]),
    Route("/submissions/{sid:id}", submission),
    Route("/submissions/{sid:id}/code", submission_code),
    Route("/submissions/{sid:id}/play", choose, methods=["POST"]),
    Route("/challenges", challenge_new, methods=["POST"]),
    Route("/challenges/{challenge_id:id}", challenge_page),
    Route("/admin", admin),
    Route("/admin/submissions/{sid:id}/{action}", admin_submission_action, methods=["POST"]),
    Route("/admin/users/{user_id:id}/unthrottle", admin_unthrottle, methods=["POST"]),
    Route("/admin/users/{user_id:id}/{action}", admin_user_action, methods=["POST"]),
    Route("/admin/deadline", admin_deadline, methods=["POST"]),
    Route("/admin/matches/{match_id:id}/void", admin_void, methods=["POST"]),
    Route("/admin/export", admin_export),
    Route("/admin/announcements", admin_announce, methods=["POST"]),
    Route("/admin/announcements/{announcement_id:id}/delete", admin_unannounce, methods=["POST"]),
    # The API: the only routes a token reaches, each with the scope it needs.
    ApiRoute("/api/submissions", upload, "submit", methods=["POST"]),
    ApiRoute("/api/submissions", submissions_api, "read", methods=["GET"]),
    ApiRoute("/api/submissions/{sid:id}", submission_api, "read"),
    ApiRoute("/api/admin/export", admin_export, "admin"),
    Route("/events", events),
    Route("/static/{name}", static),
    Route("/healthz", healthz),
    Route("/readyz", readyz),
    Route("/metrics", metrics),
]


LOCAL_ROUTES = [
    Route("/events", events),
    Route("/play", play_form, methods=["GET"]),
    Route("/play/", play_form, methods=["GET"]),
    Route("/play", start_game, methods=["POST"]),
    Route("/play/{game_id}", play_page),
    Route("/play/{game_id}/game.js", play_script),
    Route("/play/{game_id}/state", play_state),
    Route("/play/{game_id}/action", play_action, methods=["POST"]),
    Route("/play/{game_id}/resign", play_resign, methods=["POST"]),
    Route("/{path:path}", site_page),  # the site's pages, rendered from the store
]


def application(
    routes: list[Route],
    shared: Any,
    max_body: int,
    who: list[Middleware],
    not_found: Any,
    logger: logging.Logger,
    front: tuple[Middleware, ...] = (),
) -> Starlette:
    """An application of either mode; its middleware runs outermost first: ``front``
    (answers that need none of the rest), error pages, request limits, then ``who`` (who
    may ask)."""
    app = Starlette(
        routes=routes,
        middleware=[
            *front,
            Middleware(ErrorPages, logger=logger),
            Middleware(Limits, max_body=max_body),
            *who,
        ],
        exception_handlers={404: not_found},
    )
    app.state.host = shared  # what the handlers share (``host_of``, ``local_of``)
    return app


def create_app(
    competition: Competition,
    data_dir: Path,
    secret: bytes,
    secure: bool = False,
    worker: Supervisor | None = None,
) -> Starlette:
    """The competition's application (``worker``: the supervisor of its worker process): a
    state-changing request from another origin is refused first, then who is asking is
    known, then forms need their CSRF token."""
    host = Host(competition, data_dir, secret, secure, worker)
    host.metrics = Metrics(host)
    limit = competition.limits.upload_bytes + 64 * 1024  # the file plus the form around it
    who = [
        Middleware(RequestTimer, metrics=host.metrics),
        Middleware(SameOrigin),
        Middleware(Identify, accounts=host.accounts, secret=secret, secure=secure),
        Middleware(CsrfForms, max_upload=limit),
    ]
    check_routes(ROUTES)
    front = (Middleware(VisitorBoards, host=host, secure=secure),)  # arena.server.visitors
    return application(ROUTES, host, limit, who, not_found, logging.getLogger("arena.host"), front)


def create_local_app(local: LocalSite) -> Starlette:
    """The local mode's application (``arena serve``): loopback only, no accounts; every
    POST carries the token of the server's own pages."""
    who = [Middleware(LoopbackOnly), Middleware(PageToken, token=local.token)]
    return application(LOCAL_ROUTES, local, MAX_BODY, who, local_not_found, local_log)
