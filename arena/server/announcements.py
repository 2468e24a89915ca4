"""Announcements: what the organisers tell every participant (a deadline moved, a rule
made clear), posted and deleted by admins on ``/admin`` and shown newest first on the
home page. Plain text only: a page shows it escaped, its line breaks kept."""

from __future__ import annotations

import time
from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from arena.server.accounts import Accounts, User
from arena.server.host import Host, admin_only, log
from arena.server.web import form_of

MAX_TITLE = 200
MAX_BODY = 5000  # characters: a few paragraphs
SHOWN = 20  # the newest shown on the home page


class AnnouncementError(ValueError):
    """An announcement that cannot be posted; the message says what to change."""


def checked(title: str, body: str) -> tuple[str, str]:
    """The title and text as kept (line breaks made ``\\n``), or why they cannot be."""
    title = title.strip()
    body = body.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not title:
        raise AnnouncementError("give the announcement a title")
    if len(title) > MAX_TITLE:
        raise AnnouncementError(f"a title is at most {MAX_TITLE} characters")
    if len(body) > MAX_BODY:
        raise AnnouncementError(f"an announcement's text is at most {MAX_BODY:,} characters")
    return title, body


def post(accounts: Accounts, by: User, title: str, body: str) -> int:
    title, body = checked(title, body)
    with accounts.transaction() as db:
        cursor = db.execute(
            "INSERT INTO announcements (user_id, title, body, created_at) VALUES (?, ?, ?, ?)",
            (by.id, title, body, time.time()),
        )
    return int(cursor.lastrowid or 0)


def delete(accounts: Accounts, announcement_id: int) -> bool:
    """Whether there was such an announcement (it is gone now)."""
    with accounts.transaction() as db:
        cursor = db.execute("DELETE FROM announcements WHERE id = ?", (announcement_id,))
    return cursor.rowcount > 0


def newest(accounts: Accounts, count: int = SHOWN) -> list[dict[str, Any]]:
    rows = accounts.db.execute(
        "SELECT a.id, a.title, a.body, a.created_at, u.name FROM announcements a"
        " JOIN users u ON u.id = a.user_id ORDER BY a.created_at DESC, a.id DESC LIMIT ?",
        (count,),
    )
    keys = ("id", "title", "body", "created_at", "by")
    return [
        {
            **dict(zip(keys, row, strict=True)),
            "lines": row[2].split("\n") if row[2] else [],
            "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(row[3])),
        }
        for row in rows
    ]


@admin_only
def admin_announce(request: Request, host: Host, user: User) -> Response:
    form = form_of(request)
    try:
        found = post(host.accounts, user, str(form.get("title", "")), str(form.get("body", "")))
    except AnnouncementError as error:
        return host.refuse(request, 400, f"refused: {error}")
    log.info("admin %s posted announcement %d", user.name, found)
    return RedirectResponse("/admin#announcements", status_code=303)


@admin_only
def admin_unannounce(request: Request, host: Host, user: User) -> Response:
    found = request.path_params["announcement_id"]
    if not delete(host.accounts, found):
        return host.refuse(request, 404, "no such announcement")
    log.info("admin %s deleted announcement %d", user.name, found)
    return RedirectResponse("/admin#announcements", status_code=303)
