"""The competition's web application: routes as a table, pages from Jinja2 templates.

Handlers are small and synchronous (they run in Starlette's thread pool, each
thread with its own SQLite connections); who is asking, CSRF, body limits and
error pages are middleware (``arena.server.web``), who may see what is
``arena.server.access``. Every string a participant controls reaches a page
through Jinja2's autoescaping (or ``html.escape``), never raw.
"""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Route

from arena.server.accounts_pages import (
    me,
    new_token,
    revoke_token,
    signin,
    signin_form,
    signout,
    signup,
    signup_form,
)
from arena.server.admin import (
    admin,
    admin_disable_submission,
    admin_disable_user,
    admin_export,
    admin_void,
)
from arena.server.competition import Competition
from arena.server.host import Host, server_secret
from arena.server.pages import (
    board,
    bot_page,
    events,
    final,
    home,
    match_page,
    match_stderr,
    not_found,
    static,
)
from arena.server.submissions import choose, submission, submission_api, submission_code, upload
from arena.server.web import CsrfForms, ErrorPages, Identify, Limits

__all__ = ["create_app", "server_secret"]

ROUTES = [
    Route("/", home),
    Route("/boards/{variant}/{players:int}", board),
    Route("/final", final),
    Route("/bots/{key}", bot_page),
    Route("/matches/{match_id:int}", match_page),
    Route("/matches/{match_id:int}/stderr/{seat:int}", match_stderr),
    Route("/signup", signup_form, methods=["GET"]),
    Route("/signup", signup, methods=["POST"]),
    Route("/signin", signin_form, methods=["GET"]),
    Route("/signin", signin, methods=["POST"]),
    Route("/signout", signout, methods=["POST"]),
    Route("/me", me),
    Route("/me/tokens", new_token, methods=["POST"]),
    Route("/me/tokens/{token_id:int}/revoke", revoke_token, methods=["POST"]),
    Route("/upload", upload, methods=["POST"]),
    Route("/submissions/{sid:int}", submission),
    Route("/submissions/{sid:int}/code", submission_code),
    Route("/submissions/{sid:int}/play", choose, methods=["POST"]),
    Route("/admin", admin),
    Route("/admin/submissions/{sid:int}/disable", admin_disable_submission, methods=["POST"]),
    Route("/admin/users/{user_id:int}/disable", admin_disable_user, methods=["POST"]),
    Route("/admin/matches/{match_id:int}/void", admin_void, methods=["POST"]),
    Route("/admin/export", admin_export),
    Route("/api/submissions", upload, methods=["POST"]),
    Route("/api/submissions/{sid:int}", submission_api),
    Route("/events", events),
    Route("/static/{name}", static),
]


def create_app(
    competition: Competition, data_dir: Path, secret: bytes, secure: bool = False
) -> Starlette:
    """The competition's application; its middleware runs outermost first."""
    host = Host(competition, data_dir, secret, secure)
    limit = competition.limits.upload_bytes + 64 * 1024  # the file plus the form around it
    app = Starlette(
        routes=ROUTES,
        middleware=[
            Middleware(ErrorPages),
            Middleware(Limits, max_body=limit),
            Middleware(Identify, accounts=host.accounts, secret=secret, secure=secure),
            Middleware(CsrfForms, max_upload=limit),
        ],
        exception_handlers={404: not_found},
    )
    app.state.host = host
    return app
