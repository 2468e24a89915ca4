"""Signing up, in and out, and a participant's own page with its API tokens."""

from __future__ import annotations

import time

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from arena.server.accounts import (
    FAILURE_WINDOW,
    MAX_LIVE_TOKENS,
    AccountError,
    User,
    checked_scopes,
)
from arena.server.host import Host, host_of, log, needs_user
from arena.server.web import SESSION_COOKIE, client, cookie_header, form_of, session_cookie


def signup_form(request: Request) -> Response:
    return host_of(request).page(request, "signup.html")


def signup(request: Request) -> Response:
    host = host_of(request)
    form = form_of(request)
    registration = host.competition.registration
    if registration.mode == "closed":
        return host.refuse(request, 403, "registration is closed")
    name, password = str(form.get("name", "")), str(form.get("password", ""))
    if (
        registration.mode == "invite"
        and str(form.get("invite", "")) not in registration.invite_codes
    ):
        return host.page(request, "signup.html", status=400, error="that invite code is not valid")
    address = client(request.scope)
    if (
        host.accounts.throttled("", address)
        or _signups(host, address) >= host.competition.limits.signups_per_address
    ):
        return host.refuse(request, 429, "too many sign-ups from this address: try again later")
    try:
        user = host.accounts.create_user(name, password)
    except AccountError as error:
        return host.page(request, "signup.html", status=400, error=str(error))
    with host.accounts.transaction() as db:
        db.execute(
            "INSERT INTO failures (key, at) VALUES (?, ?)", (f"signup:{address}", time.time())
        )
    log.info("sign-up %s from %s", user.name, address)
    return _signed_in(host, request, user)


def _signups(host: Host, address: str) -> int:
    query = "SELECT COUNT(*) FROM failures WHERE key = ? AND at > ?"
    since = time.time() - FAILURE_WINDOW
    return int(host.accounts.db.execute(query, (f"signup:{address}", since)).fetchone()[0])


def _signed_in(host: Host, request: Request, user: User) -> Response:
    """A new session (never the one the browser came with: no fixation)."""
    if request.state.session:
        host.accounts.end_session(request.state.session)
    session = host.accounts.new_session(user)
    response = RedirectResponse("/me", status_code=303)
    value = session_cookie(host.secret, session)
    response.raw_headers.append((b"set-cookie", cookie_header(SESSION_COOKIE, value, host.secure)))
    return response


def signin_form(request: Request) -> Response:
    return host_of(request).page(request, "signin.html")


def signin(request: Request) -> Response:
    host = host_of(request)
    form = form_of(request)
    name, password = str(form.get("name", ""))[:64], str(form.get("password", ""))
    address = client(request.scope)
    if host.accounts.throttled(name, address):
        log.info("sign-in throttled for %r from %s", name, address)
        return host.refuse(request, 429, "too many failed sign-ins: try again in 15 minutes")
    user = host.accounts.sign_in(name, password, address)
    if user is None:
        log.info("sign-in failed for %r from %s", name, address)
        return host.page(request, "signin.html", status=401, error="wrong name or password")
    log.info("sign-in %s from %s", user.name, address)
    return _signed_in(host, request, user)


def signout(request: Request) -> Response:
    host = host_of(request)
    if request.state.session:
        host.accounts.end_session(request.state.session)
    response = RedirectResponse("/", status_code=303)
    response.raw_headers.append((b"set-cookie", cookie_header(SESSION_COOKIE, "", host.secure, 0)))
    return response


def own_page(request: Request, host: Host, user: User, token: str | None = None) -> Response:
    """The participant's page: uploads, submissions and versions, API tokens (a new one
    shown once)."""
    return host.page(
        request, "me.html", submissions=host.accounts.submissions(user)[::-1],
        tokens=host.accounts.tokens(user), new_token=token, max_tokens=MAX_LIVE_TOKENS,
        challenges=host.accounts.challenges(user)[::-1],
    )  # fmt: skip


@needs_user
def me(request: Request, host: Host, user: User) -> Response:
    return own_page(request, host, user)


@needs_user
def new_token(request: Request, host: Host, user: User) -> Response:
    """A token with the scopes ticked on the page (a session only: a token never reaches
    this page, so a token cannot make a token)."""
    form = form_of(request)
    label = str(form.get("label", "cli")) or "cli"
    scopes = [str(scope) for scope in form.getlist("scope")]
    try:
        token = host.accounts.new_token(user, label, tuple(scopes))
    except AccountError as error:
        log.info("token refused to %s: %s", user.name, error)
        return host.refuse(request, 400, f"refused: {error}")
    log.info("token made by %s with scopes %s", user.name, ",".join(checked_scopes(user, scopes)))
    return own_page(request, host, user, token)


@needs_user
def revoke_token(request: Request, host: Host, user: User) -> Response:
    host.accounts.revoke_token(user, request.path_params["token_id"])
    log.info("token %d revoked by %s", request.path_params["token_id"], user.name)
    return RedirectResponse("/me", status_code=303)
