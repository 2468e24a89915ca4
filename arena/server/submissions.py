"""Submissions: uploads from the page and the command line, their pages, code and versions."""

from __future__ import annotations

import secrets
import shutil
from pathlib import Path
from typing import Any

from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response

from arena.server import access
from arena.server.accounts import AccountError, User, check_account_name
from arena.server.diskspace import DISK_FULL, is_full_error, space
from arena.server.host import Host, host_of, log, need_user, needs_user
from arena.server.uploads import UploadRefused, kind_of, unpack
from arena.server.web import form_of


@needs_user
def upload(request: Request, host: Host, user: User) -> Response:
    """A bot from the page (form) or the command line (token): unpacked safely now, so a
    refusal is immediate and stores nothing; validated in the background."""
    form = form_of(request)
    api = request.url.path.startswith("/api/")
    bot = str(form.get("bot", ""))
    file = form.get("file")
    try:
        check_account_name(bot, "bot name")
        if host.deadline.closed():
            raise UploadRefused("submissions are closed: the deadline has passed")
        if not isinstance(file, UploadFile) or not file.filename:
            raise UploadRefused("choose a file to upload")
        limit = host.competition.limits.submissions_per_day
        if host.accounts.submissions_today(user) >= limit:
            raise UploadRefused(f"at most {limit} submissions a day: try again tomorrow")
        if not _room_for_upload(host):
            return _disk_full(request, host, user, api)
        where = _keep(host, file)
    except (UploadRefused, AccountError) as error:
        log.info("upload by %s refused: %s", user.name, error)
        if api:
            return JSONResponse({"error": str(error)}, status_code=400)
        return host.refuse(request, 400, f"refused: {error}")
    except Exception as error:
        if not is_full_error(error):
            raise
        return _disk_full(request, host, user, api)
    try:
        sid = host.accounts.add_submission(user, bot, where)
    except Exception as error:
        shutil.rmtree(host.data_dir.joinpath(*Path(where).parts[:2]), ignore_errors=True)
        if not is_full_error(error):
            raise
        return _disk_full(request, host, user, api)
    log.info("upload %d by %s: %s (%r)", sid, user.name, bot, file.filename)
    if api:
        return JSONResponse({"id": sid, "status": "queued", "url": f"/api/submissions/{sid}"})
    return RedirectResponse(f"/submissions/{sid}", status_code=303)


def _room_for_upload(host: Host) -> bool:
    """Room on the disk for the largest upload this competition takes (the file and its
    unpacking) above the reserve kept for the ladder."""
    limits = host.competition.limits
    found = space(host.data_dir)
    return found.free >= found.reserve + limits.upload_bytes + limits.unpacked_bytes


def _disk_full(request: Request, host: Host, user: User, api: bool) -> Response:
    log.warning("upload by %s refused: the disk holding %s is full", user.name, host.data_dir)
    if api:
        return JSONResponse({"error": DISK_FULL}, status_code=503)
    return host.refuse(request, 503, DISK_FULL)


def _keep(host: Host, file: UploadFile) -> str:
    """Unpack the upload into its own folder under uploads/; the path to submit, relative
    to the data folder. The original is kept beside it (the owner may download it)."""
    kind = kind_of(file.filename or "")
    folder = host.data_dir / "uploads" / secrets.token_hex(8)
    folder.mkdir(parents=True)
    try:
        original = folder / f"upload.{kind}"
        with original.open("wb") as out:
            shutil.copyfileobj(file.file, out)
        root = unpack(original, file.filename or "", folder / "bot", host.competition.limits)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return str(root.relative_to(host.data_dir))


def _own_submission(request: Request) -> tuple[Host, User, dict[str, Any]] | Response:
    host = host_of(request)
    user = need_user(request)
    if isinstance(user, Response):
        return user
    record = host.accounts.submission(request.path_params["sid"])
    if record is None or not access.sees_submission(user, record):
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": "no such submission"}, status_code=404)
        return host.refuse(request, 404, "no such submission")
    return host, user, record


def submission(request: Request) -> Response:
    found = _own_submission(request)
    if isinstance(found, Response):
        return found
    host, _, record = found
    return host.page(
        request, "submission.html", s=record, validation=host.accounts.board_results(record["id"]),
        live=record["status"] in ("queued", "validating"),
    )  # fmt: skip


API_KEYS = ("id", "bot", "status", "reason", "label", "active")  # what the API tells of one


def submission_api(request: Request) -> Response:
    found = _own_submission(request)
    if isinstance(found, Response):
        return found
    host, _, record = found
    boards = [
        {key: board[key] for key in ("board", "passed", "reason")}
        for board in host.accounts.board_results(record["id"])
    ]  # each ranked board's validation: a version plays only the boards it passed
    return JSONResponse({**{key: record[key] for key in API_KEYS}, "boards": boards})


@needs_user
def submissions_api(request: Request, host: Host, user: User) -> Response:
    """One's own submissions, oldest first (the API's list of what ``/me`` shows)."""
    records = host.accounts.submissions(user)
    return JSONResponse({"submissions": [{key: r[key] for key in API_KEYS} for r in records]})


def submission_code(request: Request) -> Response:
    found = _own_submission(request)
    if isinstance(found, Response):
        return found
    host, _, record = found
    kept = Path(record["upload"]).parts[:2]  # uploads/ID: the original beside its unpacking
    originals = list(host.data_dir.joinpath(*kept).glob("upload.*")) if len(kept) == 2 else []
    if not originals:
        return host.refuse(request, 404, "the upload is no longer kept")
    return FileResponse(
        originals[0], filename=f"{record['bot']}-{record['id']}.{originals[0].name[7:]}"
    )


def choose(request: Request) -> Response:
    found = _own_submission(request)
    if isinstance(found, Response):
        return found
    host, user, record = found
    play = form_of(request).get("play") == "1"
    try:
        host.accounts.set_active(record["id"], play, host.competition.limits.active_bots)
    except AccountError as error:
        return host.refuse(request, 400, f"refused: {error}")
    log.info("%s sets submission %d to %s", user.name, record["id"], "play" if play else "rest")
    return RedirectResponse("/me", status_code=303)
