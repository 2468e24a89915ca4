"""Admins: the server's state (worker, disk); account care (promote, demote, reset a
password, clear sign-in delays, disable, enable); bots (disable with a reason, enable);
the deadline; void a match; export the results for grading.

Every change but clearing sign-in delays asks first: the form posts to a page that
says what will happen and posts again with ``confirm=yes`` (no script: the CSP allows
none). Each change is written to ``server.log`` with the admin's name.
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from arena.server import announcements, ladderfaults
from arena.server.accounts import AccountError, User
from arena.server.competition import parse_deadline
from arena.server.export import FORMATS, as_csv, as_json, described, standings
from arena.server.health import status
from arena.server.host import Host, admin_only, log
from arena.server.pages import competition_match
from arena.server.web import form_of


@admin_only
def admin(request: Request, host: Host, user: User) -> Response:
    return host.page(
        request, "admin.html", users=host.accounts.users(), submissions=host.accounts.submissions(),
        teams=host.accounts.teams(),
        voided=sorted(host.accounts.voided()), server=status(host),
        failed=host.accounts.throttle.failed_signins(),
        announcements=announcements.newest(host.accounts), faults=host.faults.report(host),
        fault_recent=ladderfaults.RECENT, fault_window=ladderfaults.WINDOW,
        fault_at_least=ladderfaults.AT_LEAST,
    )  # fmt: skip


def confirmed(
    request: Request, host: Host, question: str, verb: str, fields: dict[str, str] | None = None
) -> Response | None:
    """None once the admin confirmed (``confirm=yes``); else the page that asks."""
    if form_of(request).get("confirm") == "yes":
        return None
    return host.page(
        request, "confirm.html", question=question, verb=verb, action=request.url.path,
        fields=fields or {},
    )  # fmt: skip


USER_ACTIONS: dict[str, tuple[str, str]] = {  # action: (question, verb)
    "promote": ("make {name} an admin? They will see /admin and every bot's code.", "promote"),
    "demote": ("make {name} a participant again? They lose /admin.", "demote"),
    "disable": (
        "disable {name}? They are signed out everywhere, their tokens end and their bots "
        "stop playing and leave the boards.",
        "disable",
    ),
    "enable": ("enable {name} again? They can sign in; their bots rest until chosen.", "enable"),
    "reset-password": (
        "make a one-time code for {name} to set a new password? Hand it to them yourself; "
        "it works once, within 48 hours, and signs them out everywhere.",
        "make the code",
    ),
}


@admin_only
def admin_user_action(request: Request, host: Host, user: User) -> Response:
    """One of ``USER_ACTIONS`` on an account, once confirmed."""
    action = request.path_params["action"]
    target = host.accounts.user(request.path_params["user_id"])
    if target is None or action not in USER_ACTIONS:
        return host.refuse(request, 404, "no such account or action")
    if action in ("demote", "disable") and target.id == user.id:
        return host.refuse(request, 400, f"refused: you cannot {action} your own account")
    question, verb = USER_ACTIONS[action]
    asking = confirmed(request, host, question.format(name=target.name), verb)
    if asking is not None:
        return asking
    try:
        done = _user_action(request, host, action, target, user)
    except AccountError as error:
        return host.refuse(request, 400, f"refused: {error}")
    log.info("admin %s: %s %s", user.name, action, target.name)
    return done if done is not None else RedirectResponse("/admin", status_code=303)


def _user_action(
    request: Request, host: Host, action: str, target: User, by: User
) -> Response | None:
    accounts = host.accounts
    actions: dict[str, Callable[[], None]] = {
        "promote": lambda: accounts.set_role(target.name, "admin"),
        "demote": lambda: accounts.set_role(target.name, "participant"),
        "disable": lambda: accounts.disable_user(target.id),
        "enable": lambda: accounts.enable_user(target.id),
    }
    if action in actions:
        actions[action]()
        return None
    code = accounts.new_reset_code(target, by)
    return host.page(request, "reset_code.html", name=target.name, code=code)


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
def admin_submission_action(request: Request, host: Host, user: User) -> Response:
    """Disable a submission (with the reason its owner will read) or enable it again."""
    action = request.path_params["action"]
    record = host.accounts.submission(request.path_params["sid"])
    if record is None or action not in ("disable", "enable"):
        return host.refuse(request, 404, "no such submission or action")
    what = record["label"] or f"submission {record['id']} ({record['owner']}.{record['bot']})"
    reason = str(form_of(request).get("reason", ""))[:500]
    if action == "disable":
        question = (
            f"disable {what}? It stops playing and leaves the boards; {record['owner']} "
            f"sees the reason: “{reason or 'none given'}”."
        )
    else:
        question = f"enable {what} again? It is back on the boards; its owner chooses if it plays."
    asking = confirmed(request, host, question, action, {"reason": reason})
    if asking is not None:
        return asking
    if action == "disable":
        host.accounts.disable_submission(record["id"], reason)
        log.info("admin %s disabled submission %d (%s): %s", user.name, record["id"], what, reason)
    else:
        host.accounts.enable_submission(record["id"])
        log.info("admin %s enabled submission %d (%s) again", user.name, record["id"], what)
    return RedirectResponse("/admin", status_code=303)


@admin_only
def admin_deadline(request: Request, host: Host, user: User) -> Response:
    """Move the deadline (empty: none, the ladder runs on). After a final, a later one
    reopens submissions and the ladder; a new final plays at it, the old one kept."""
    given = str(form_of(request).get("deadline", "")).strip()
    try:
        deadline = parse_deadline(given) if given else None
    except ValueError as error:
        return host.refuse(request, 400, f"refused: {error}")
    shown = deadline.strftime("%Y-%m-%d %H:%M:%S UTC") if deadline else "none"
    asking = confirmed(
        request, host, f"move the deadline to {shown}? Everyone sees it at once.", "move it",
        {"deadline": given},
    )  # fmt: skip
    if asking is not None:
        return asking
    host.deadline.move(deadline)
    log.info("admin %s moved the deadline to %s", user.name, shown)
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
    """The standings for grading as a file: ``?format=json`` (the default) or ``csv``."""
    chosen = request.query_params.get("format", "json")
    if chosen not in FORMATS:
        message = f"format is one of {', '.join(FORMATS)}"
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": message}, status_code=400)
        return host.refuse(request, 400, message)
    what = described(host.accounts)
    assert what is not None  # recorded by arena host at start
    rows = standings(host.store, host.accounts, what)
    body = as_csv(rows) if chosen == "csv" else as_json(what.name, rows)
    log.info("admin %s exported the standings (%d rows, %s)", user.name, len(rows), chosen)
    kind = "text/csv; charset=utf-8" if chosen == "csv" else "application/json"
    filename = f"{host.competition.name}-standings.{chosen}"
    return Response(
        body, media_type=kind,
        headers={"content-disposition": f'attachment; filename="{filename}"'},
    )  # fmt: skip
