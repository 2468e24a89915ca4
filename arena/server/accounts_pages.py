"""Signing up, in and out, and a participant's own page with its API tokens."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from arena.server.accounts import (
    MAX_LIVE_TOKENS,
    AccountError,
    User,
    checked_scopes,
)
from arena.server.botpages import dashboard
from arena.server.devices import DEVICE_SECONDS, device_cookie_name, device_of, new_device
from arena.server.host import Host, host_of, log, needs_user
from arena.server.throttle import SIGNUP_WINDOW, keys_for, signup_key
from arena.server.web import (
    SESSION_COOKIE,
    client,
    cookie_header,
    cookies,
    form_of,
    session_cookie,
)


def signup_form(request: Request) -> Response:
    return host_of(request).page(request, "signup.html")


def signup(request: Request) -> Response:
    host = host_of(request)
    form = form_of(request)
    registration = host.competition.registration
    name, password = str(form.get("name", "")), str(form.get("password", ""))
    address = client(request.scope)
    if registration.mode == "closed":
        log.info("sign-up refused for %r from %s: registration is closed", name[:64], address)
        return host.refuse(request, 403, "registration is closed")
    invite = str(form.get("invite", ""))
    invited = invite in registration.invite_codes
    if (invite or registration.mode == "invite") and not invited:
        log.info("sign-up refused for %r from %s: invite code not valid", name[:64], address)
        return host.page(request, "signup.html", status=400, error="that invite code is not valid")
    capped = not (invited and registration.unlimited_invites)
    limit = host.competition.limits.signups_per_address
    if capped and host.accounts.throttle.count(signup_key(address), SIGNUP_WINDOW) >= limit:
        log.info(
            "sign-up refused for %r from %s: %d sign-ups from this address in 15 minutes"
            " (limits.signups_per_address)", name[:64], address, limit,
        )  # fmt: skip
        return host.refuse(
            request, 429, "too many sign-ups from this address: try again in 15 minutes, "
            "or ask the organiser for an invite code",
        )  # fmt: skip
    try:
        user = host.accounts.create_user(name, password)
    except AccountError as error:
        return host.page(request, "signup.html", status=400, error=str(error))
    if capped:
        host.accounts.throttle.record(signup_key(address))
    log.info("sign-up %s from %s%s", user.name, address, " (invited)" if invited else "")
    return _signed_in(host, request, user)


def _signed_in(host: Host, request: Request, user: User) -> Response:
    """A new session (never the one the browser came with: no fixation), and a new device
    cookie for the account: this browser knew the password."""
    if request.state.session:
        host.accounts.end_session(request.state.session)
    session = host.accounts.new_session(user)
    response = RedirectResponse("/me", status_code=303)
    value = session_cookie(host.secret, session)
    response.raw_headers.append((b"set-cookie", cookie_header(SESSION_COOKIE, value, host.secure)))
    _, device = new_device(host.secret, user.name)
    response.raw_headers.append(
        (
            b"set-cookie",
            cookie_header(device_cookie_name(user.name), device, host.secure, DEVICE_SECONDS),
        )
    )
    return response


def signin_form(request: Request) -> Response:
    return host_of(request).page(request, "signin.html")


def signin(request: Request) -> Response:
    """A sign-in, unless this browser must wait (``arena.server.throttle``): answered at
    once with 429 and the wait, never by holding the request."""
    host = host_of(request)
    form = form_of(request)
    name, password = str(form.get("name", ""))[:64], str(form.get("password", ""))
    address = client(request.scope)
    device = device_of(host.secret, name, cookies(request.scope)) if name else None
    known = " (a known device)" if device else ""
    wait = host.accounts.signin_wait(name, address, device)
    if wait:
        log.info("sign-in delayed for %r from %s%s: try again in %d s", name, address, known, wait)
        refused = host.refuse(
            request, 429, f"too many failed sign-ins: try again in {wait} seconds"
        )
        refused.headers["Retry-After"] = str(wait)
        return refused
    user = host.accounts.sign_in(name, password, address, device)
    if user is None:
        wait = host.accounts.throttle.penalty(keys_for(name, address, device))
        log.info("sign-in failed for %r from %s%s: next try in %d s", name, address, known, wait)
        error = "wrong name or password" + (f": try again in {wait} seconds" if wait else "")
        return host.page(request, "signin.html", status=401, error=error)
    log.info("sign-in %s from %s%s", user.name, address, known)
    return _signed_in(host, request, user)


def reset_form(request: Request) -> Response:
    return host_of(request).page(request, "reset.html")


def reset(request: Request) -> Response:
    """A new password with the one-time code an admin handed over: the code works once,
    every session of the account ends, and this browser is signed in anew."""
    host = host_of(request)
    form = form_of(request)
    code, password = str(form.get("code", ""))[:64], str(form.get("password", ""))
    address = client(request.scope)
    try:
        user = host.accounts.reset_password(code, password)
    except AccountError as error:
        log.info("password reset refused from %s: %s", address, error)
        return host.page(request, "reset.html", status=400, error=str(error))
    log.info("password of %s reset with a one-time code, from %s", user.name, address)
    return _signed_in(host, request, user)


def signout(request: Request) -> Response:
    host = host_of(request)
    if request.state.session:
        host.accounts.end_session(request.state.session)
    response = RedirectResponse("/", status_code=303)
    response.raw_headers.append((b"set-cookie", cookie_header(SESSION_COOKIE, "", host.secure, 0)))
    return response


def own_page(
    request: Request, host: Host, user: User, token: str | None = None, invite: str | None = None
) -> Response:
    """The participant's page: their bots at a glance, uploads, submissions and versions, API
    tokens (a new one shown once), their team (a new invite code shown once) and its
    members' submissions."""
    mates = user.mates - {user.name}
    return host.page(
        request, "me.html", bots=dashboard(host, user),
        submissions=host.accounts.submissions(user)[::-1],
        tokens=host.accounts.tokens(user), new_token=token, max_tokens=MAX_LIVE_TOKENS,
        challenges=host.accounts.challenges(user)[::-1],
        flags=host.faults.flags_of(host, user.name),
        team=host.accounts.team_of(user), new_invite=invite,
        team_submissions=[s for s in host.accounts.submissions() if s["owner"] in mates][::-1],
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
