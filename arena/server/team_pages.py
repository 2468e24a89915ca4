"""A participant's team, from the forms on ``/me``: make one (and own it), make an invite
code (its owner), join with a code, leave, remove a member (its owner). Each change, and
each refusal, is one line in ``server.log``; the rules are ``accounts_teams``'s."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from arena.server.accounts import AccountError, User
from arena.server.accounts_pages import own_page
from arena.server.host import Host, log, needs_user
from arena.server.web import form_of


def _refused(request: Request, host: Host, user: User, what: str, error: AccountError) -> Response:
    log.info("team %s refused to %s: %s", what, user.name, error)
    return host.refuse(request, 400, f"refused: {error}")


@needs_user
def team_create(request: Request, host: Host, user: User) -> Response:
    name = str(form_of(request).get("name", ""))[:64]
    try:
        team = host.accounts.create_team(user, name, host.competition.teams.max_size)
    except AccountError as error:
        return _refused(request, host, user, "creation", error)
    log.info("team %s created by %s, its owner", team.name, user.name)
    return RedirectResponse("/me", status_code=303)


@needs_user
def team_invite(request: Request, host: Host, user: User) -> Response:
    """A one-time invite code, shown once on the owner's page."""
    try:
        team, code = host.accounts.new_team_invite(user, host.competition.teams.max_size)
    except AccountError as error:
        return _refused(request, host, user, "invite", error)
    log.info("team %s: invite code made by %s", team.name, user.name)
    return own_page(request, host, user, invite=code)


@needs_user
def team_join(request: Request, host: Host, user: User) -> Response:
    code = str(form_of(request).get("code", ""))[:64]
    try:
        team = host.accounts.join_team(
            user, code, host.competition.teams.max_size, host.competition.limits.active_bots
        )
    except AccountError as error:
        return _refused(request, host, user, "join", error)
    log.info("team %s: %s joined with an invite code", team.name, user.name)
    return RedirectResponse("/me", status_code=303)


@needs_user
def team_leave(request: Request, host: Host, user: User) -> Response:
    try:
        left = host.accounts.leave_team(user)
    except AccountError as error:
        return _refused(request, host, user, "leave", error)
    after = f"its owner is {left.owner}" if left.owner else "it had no other member: it is gone"
    log.info("team %s: %s left; %s", left.team, user.name, after)
    return RedirectResponse("/me", status_code=303)


@needs_user
def team_remove(request: Request, host: Host, user: User) -> Response:
    member = str(form_of(request).get("member", ""))[:64]
    try:
        team = host.accounts.remove_member(user, member)
    except AccountError as error:
        return _refused(request, host, user, "removal", error)
    log.info("team %s: %s removed by %s, its owner", team.name, member, user.name)
    return RedirectResponse("/me", status_code=303)
