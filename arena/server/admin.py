"""Admins: the server's state (worker, disk), disable a bot or an account, clear an
account's sign-in delays, void a match,
export every result."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from arena.server import announcements, ladderfaults
from arena.server.accounts import User
from arena.server.health import status
from arena.server.host import Host, admin_only, log
from arena.server.pages import competition_match


@admin_only
def admin(request: Request, host: Host, user: User) -> Response:
    return host.page(
        request, "admin.html", users=host.accounts.users(), submissions=host.accounts.submissions(),
        voided=sorted(host.accounts.voided()), server=status(host),
        failed=host.accounts.throttle.failed_signins(),
        announcements=announcements.newest(host.accounts), faults=host.faults.report(host),
        fault_recent=ladderfaults.RECENT, fault_window=ladderfaults.WINDOW,
        fault_at_least=ladderfaults.AT_LEAST,
    )  # fmt: skip


@admin_only
def admin_disable_submission(request: Request, host: Host, user: User) -> Response:
    host.accounts.disable_submission(request.path_params["sid"])
    log.info("admin %s disabled submission %d", user.name, request.path_params["sid"])
    return RedirectResponse("/admin", status_code=303)


@admin_only
def admin_disable_user(request: Request, host: Host, user: User) -> Response:
    host.accounts.disable_user(request.path_params["user_id"])
    log.info("admin %s disabled account %d", user.name, request.path_params["user_id"])
    return RedirectResponse("/admin", status_code=303)


@admin_only
def admin_unthrottle(request: Request, host: Host, user: User) -> Response:
    """Forget an account's failed sign-ins, from every address and device: its next
    sign-in is not delayed (a participant slowed by someone else's guesses)."""
    target = host.accounts.user(request.path_params["user_id"])
    if target is None:
        return host.refuse(request, 404, "no such account")
    cleared = host.accounts.clear_signin_delays(target.name)
    log.info(
        "admin %s cleared the sign-in delays of %s (%d failures)", user.name, target.name, cleared
    )
    return RedirectResponse("/admin", status_code=303)


@admin_only
def admin_void(request: Request, host: Host, user: User) -> Response:
    match_id = request.path_params["match_id"]
    if competition_match(host, match_id) is None:
        return host.refuse(request, 404, "no such match")
    host.accounts.void(match_id, user)
    log.info("admin %s voided match %d", user.name, match_id)
    return RedirectResponse(f"/matches/{match_id}", status_code=303)


@admin_only
def admin_export(request: Request, host: Host, user: User) -> Response:
    names = [host.competition.ladder_name(*b) for b in host.competition.boards]
    names += [host.competition.final_name(*b) for b in host.competition.boards]
    voided = host.accounts.voided()
    matches = []
    for name in names:
        for result in host.store.results(name, details=False):
            matches.append(
                {
                    "match_id": result.match_id,
                    "tournament": name,
                    "variant": result.variant,
                    "bots": list(result.bots),
                    "scores": list(result.scores),
                    "ranks": list(result.ranks),
                    "faults": list(result.faults),
                    "voided": result.match_id in voided,
                }
            )
    log.info("admin %s exported %d matches", user.name, len(matches))
    return JSONResponse({"competition": host.competition.name, "matches": matches})
