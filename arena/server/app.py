"""The competition's web application: routes as a table, pages from Jinja2 templates.

Handlers are small and synchronous (they run in Starlette's thread pool, each
thread with its own SQLite connections); who is asking, CSRF, body limits and
error pages are middleware (``arena.server.web``), who may see what is
``arena.server.access``. Every string a participant controls reaches a page
through Jinja2's autoescaping (or ``html.escape``), never raw.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import logging
import os
import secrets
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import jinja2
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.datastructures import UploadFile
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route

from arena.server import access
from arena.server.accounts import (
    FAILURE_WINDOW,
    AccountError,
    Accounts,
    User,
    check_account_name,
)
from arena.server.boards import LiveBoard, final_rows
from arena.server.competition import Competition
from arena.server.uploads import UploadRefused, kind_of, unpack
from arena.server.web import (
    SESSION_COOKIE,
    CsrfForms,
    ErrorPages,
    Identify,
    Limits,
    client,
    cookie_header,
    form_of,
    session_cookie,
)
from arena.tournament.forfeits import read_tail
from arena.tournament.store import ResultsStore

log = logging.getLogger("arena.host")
T = TypeVar("T")
TEMPLATES = Path(__file__).resolve().parents[2] / "leaderboards" / "templates"
STATIC = Path(__file__).resolve().parents[2] / "leaderboards" / "static"
EVENT_SECONDS = 0.5
STREAM_SECONDS = 300.0  # an event stream ends after this; the browser opens a new one
MAX_STREAMS = 64


class Host:
    """What the handlers share: the competition, the data folder, the stores."""

    def __init__(self, competition: Competition, data_dir: Path, secret: bytes, secure: bool):
        self.competition = competition
        self.data_dir = Path(data_dir)
        self.accounts = Accounts(self.data_dir)
        self.secret = secret
        self.secure = secure
        self.local = threading.local()
        self.boards = {
            board: LiveBoard(competition.ladder_name(*board)) for board in competition.boards
        }
        self.streams = 0
        self.cache: dict[tuple, tuple[str, Any]] = {}
        self.cache_lock = threading.Lock()
        self.making: set[tuple] = set()  # keys a thread is making anew (one at a time)
        self.stopping = asyncio.Event()
        self.sweep_uploads()
        threading.Thread(target=self.warm, name="warm-boards", daemon=True).start()
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(TEMPLATES / "host")),
            autoescape=True,
        )

    def shared(self, key: tuple, make: Callable[[], tuple[T, bool]]) -> T:
        """What ``make`` gives, made once per state of the stores (their files' signature)
        and shared by every request until a match lands or an account changes: twenty
        readers of one big board cost one rendering, and while one thread makes the new
        one the others answer with the last (a page at most one change behind). ``make``
        says whether its value is whole (a board still folding in after a start is not kept)."""
        now = signature(self.data_dir)
        with self.cache_lock:
            found = self.cache.get(key)
            if found is not None and (found[0] == now or key in self.making):
                return found[1]  # current, or the last one while another thread makes anew
            self.making.add(key)
        try:
            value, whole = make()
        finally:
            with self.cache_lock:
                self.making.discard(key)
        if whole:
            with self.cache_lock:
                self.cache[key] = (now, value)
        return value

    def sweep_uploads(self) -> None:
        """Remove what a kill left under uploads/ between unpacking an upload and recording
        it (at start, when no upload is in flight): an upload no submission names."""
        kept = {Path(s["upload"]).parts[1] for s in self.accounts.submissions() if s["upload"]}
        for folder in (self.data_dir / "uploads").glob("*"):
            if folder.name not in kept:
                shutil.rmtree(folder, ignore_errors=True)

    def warm(self) -> None:
        """Fold every board's stored matches in once at start (a long ladder takes a while:
        pages show the rows so far meanwhile instead of waiting)."""
        for live in self.boards.values():
            live.update(self.store, self.accounts.voided())

    @property
    def store(self) -> ResultsStore:
        store = getattr(self.local, "store", None)
        if store is None:
            store = self.local.store = ResultsStore.reader(self.data_dir)
        return store

    def page(self, request: Request, template: str, status: int = 200, **context: Any) -> Response:
        closed = self.competition.closed()
        body = self.env.get_template(template).render(
            competition=self.competition,
            user=request.state.user,
            csrf=request.state.csrf,
            boards=self.competition.boards,
            closed=closed,
            live=f"/events?since={signature(self.data_dir)}" if context.pop("live", False) else "",
            **context,
        )
        return HTMLResponse(body, status_code=status)

    def refuse(self, request: Request, status: int, message: str) -> Response:
        return self.page(request, "message.html", status=status, message=message)


def host_of(request: Request) -> Host:
    return request.app.state.host


def signed_in(request: Request) -> User | None:
    return request.state.user


def need_user(request: Request) -> User | Response:
    """The signed-in user, or where to go instead (sign-in page; 401 for the API)."""
    user = signed_in(request)
    if user is not None:
        return user
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": "sign in: an API token is required"}, status_code=401)
    return RedirectResponse("/signin", status_code=303)


def needs_user(handler: Callable[[Request, Host, User], Response]) -> Callable[..., Response]:
    """A handler for signed-in users only; others go to the sign-in page (the API: 401)."""

    @functools.wraps(handler)
    def endpoint(request: Request) -> Response:
        user = need_user(request)
        if isinstance(user, Response):
            return user
        return handler(request, host_of(request), user)

    return endpoint


def admin_only(handler: Callable[[Request, Host, User], Response]) -> Callable[..., Response]:
    """A handler for admins only; to anyone else the page does not exist."""

    @functools.wraps(handler)
    def endpoint(request: Request) -> Response:
        found = _admin(request)
        if isinstance(found, Response):
            return found
        return handler(request, *found)

    return endpoint


# ---------------------------------------------------------------- pages for everyone


def home(request: Request) -> Response:
    host = host_of(request)
    voided = host.accounts.voided()
    tables = []
    for (variant, players), live in host.boards.items():
        rows = live.rows(host.store, voided)
        tables.append({"variant": variant, "players": players, "rows": rows[:10]})
    return host.page(request, "home.html", tables=tables, live=True, finals=_finals(host))


def board(request: Request) -> Response:
    host = host_of(request)
    variant = request.path_params["variant"]
    players = request.path_params["players"]
    live = host.boards.get((variant, players))
    if live is None:
        return host.refuse(request, 404, "no such board")

    def content() -> tuple[Markup, bool]:
        voided = host.accounts.voided()
        rows = live.rows(host.store, voided)
        recent = host.store.latest_results(live.tournament, 20)
        html = host.env.get_template("_board_body.html").render(
            variant=variant, players=players, rows=rows, recent=recent, voided=voided,
            rated=live.matches,
        )  # fmt: skip
        return Markup(html), live.complete

    def page() -> tuple[bytes, bool]:
        body, whole = content()
        made = host.page(
            request, "board.html", variant=variant, players=players, content=body, live=True
        )
        return bytes(made.body), whole

    if signed_in(request) is None:  # every visitor's page is the same: made once per change
        return HTMLResponse(host.shared(("board-page", variant, players), page))
    body = host.shared(("board", variant, players), content)
    return host.page(
        request, "board.html", variant=variant, players=players, content=body, live=True
    )


def _finals(host: Host) -> list[dict[str, Any]]:
    """The final's tables (once a final is being played): the competition's result."""
    finals = []
    voided = host.accounts.voided()
    for variant, players in host.competition.boards:
        name = host.competition.final_name(variant, players)
        matches = host.store.results(name, details=False)
        board = f"{variant}-{players}p"
        if not matches and host.accounts.final_bots(board) is None:
            continue
        finals.append(
            {
                "variant": variant,
                "players": players,
                "rows": final_rows(matches, voided),
                "finished": host.accounts.final_finished(board),
                "played": len(matches),
            }
        )
    return finals


def final(request: Request) -> Response:
    host = host_of(request)
    return host.page(request, "final.html", finals=_finals(host), live=True)


def bot_page(request: Request) -> Response:
    host = host_of(request)
    user = signed_in(request)
    if not access.sees_bot_pages(user, host.competition):
        return host.refuse(request, 404, "no such bot")
    key = request.path_params["key"]
    versions = [s for s in host.accounts.submissions() if s["key"] == key and s["version"]]
    if not versions:
        return host.refuse(request, 404, "no such bot")
    labels = {s["label"] for s in versions}
    voided = host.accounts.voided()
    ratings = []
    for (variant, players), live in host.boards.items():
        for row in live.rows(host.store, voided):
            if row["bot"] in labels:
                ratings.append({"variant": variant, "players": players, **row})
    return host.page(
        request, "bot.html", key=key, owner=versions[0]["owner"], versions=versions,
        ratings=ratings, live=True,
    )  # fmt: skip


def match_page(request: Request) -> Response:
    host = host_of(request)
    user = signed_in(request)
    found = _match(host, request.path_params["match_id"])
    if found is None:
        return host.refuse(request, 404, "no such match")
    result, owners = found
    if not access.sees_replays(user, host.competition) or (
        host.competition.visibility.replays == "owners" and not access.plays_in(user, owners)
    ):
        return host.refuse(request, 404, "no such match")
    log_lines = _log(host, result.match_id)
    actions = [line for line in log_lines if line.get("type") == "action"]
    seats = []
    for seat, bot in enumerate(result.bots):
        mine = access.owns(user, owners[seat] or "")
        seats.append(
            {
                "seat": seat,
                "bot": bot,
                "key": bot.rpartition("@")[0],
                "score": result.scores[seat],
                "rank": result.ranks[seat],
                "fault": result.faults[seat],
                "detail": result.fault_details[seat] if mine and result.fault_details else None,
                "mine": mine,
            }
        )
    voided = result.match_id in host.accounts.voided()
    return host.page(
        request, "match.html", result=result, seats=seats, actions=actions, voided=voided
    )


def _match(host: Host, match_id: int) -> tuple[Any, list[str | None]] | None:
    """A match of this competition and each seat's owner (None: not a participant's)."""
    result = host.store.match_result(match_id)
    names = {host.competition.ladder_name(*b) for b in host.competition.boards}
    names |= {host.competition.final_name(*b) for b in host.competition.boards}
    if result is None or result.tournament not in names:
        return None
    owners = host.accounts.owners()
    return result, [owners.get(bot) for bot in result.bots]


def _log(host: Host, match_id: int) -> list[dict[str, Any]]:
    lines = []
    for raw in host.store.match_log(match_id).splitlines():
        try:
            lines.append(json.loads(raw))
        except ValueError:
            continue
    return lines


@needs_user
def match_stderr(request: Request, host: Host, user: User) -> Response:
    """One seat's stderr of one match: its owner's and admins' only."""
    found = _match(host, request.path_params["match_id"])
    seat = request.path_params["seat"]
    if (
        found is None
        or not 0 <= seat < len(found[1])
        or not access.owns(user, found[1][seat] or "")
    ):
        return host.refuse(request, 404, "no such log")
    header = next(
        (line for line in _log(host, found[0].match_id) if line.get("type") == "header"), {}
    )
    seats = header.get("seats", [])
    path = seats[seat].get("stderr") if seat < len(seats) else None
    file = (host.data_dir / path).resolve() if path else None
    inside = file is not None and host.data_dir.resolve() in file.parents  # never elsewhere
    text = read_tail(file) if inside else ""
    return PlainTextResponse(text or "(no stderr)")


# ---------------------------------------------------------------- accounts


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


@needs_user
def me(request: Request, host: Host, user: User) -> Response:
    return host.page(
        request, "me.html", submissions=host.accounts.submissions(user)[::-1],
        tokens=host.accounts.tokens(user), new_token=None,
    )  # fmt: skip


@needs_user
def new_token(request: Request, host: Host, user: User) -> Response:
    token = host.accounts.new_token(user, str(form_of(request).get("label", "cli")) or "cli")
    log.info("token made by %s", user.name)
    return host.page(
        request, "me.html", submissions=host.accounts.submissions(user)[::-1],
        tokens=host.accounts.tokens(user), new_token=token,
    )  # fmt: skip


@needs_user
def revoke_token(request: Request, host: Host, user: User) -> Response:
    host.accounts.revoke_token(user, request.path_params["token_id"])
    return RedirectResponse("/me", status_code=303)


# ---------------------------------------------------------------- submissions


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
        if host.competition.closed():
            raise UploadRefused("submissions are closed: the deadline has passed")
        if not isinstance(file, UploadFile) or not file.filename:
            raise UploadRefused("choose a file to upload")
        limit = host.competition.limits.submissions_per_day
        if host.accounts.submissions_today(user) >= limit:
            raise UploadRefused(f"at most {limit} submissions a day: try again tomorrow")
        where = _keep(host, file)
    except (UploadRefused, AccountError) as error:
        log.info("upload by %s refused: %s", user.name, error)
        if api:
            return JSONResponse({"error": str(error)}, status_code=400)
        return host.refuse(request, 400, f"refused: {error}")
    sid = host.accounts.add_submission(user, bot, where)
    log.info("upload %d by %s: %s (%s)", sid, user.name, bot, file.filename)
    if api:
        return JSONResponse({"id": sid, "status": "queued", "url": f"/api/submissions/{sid}"})
    return RedirectResponse(f"/submissions/{sid}", status_code=303)


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
        request, "submission.html", s=record, live=record["status"] in ("queued", "validating")
    )


def submission_api(request: Request) -> Response:
    found = _own_submission(request)
    if isinstance(found, Response):
        return found
    _, _, record = found
    keys = ("id", "bot", "status", "reason", "label", "active")
    return JSONResponse({key: record[key] for key in keys})


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


# ---------------------------------------------------------------- admin


def _admin(request: Request) -> tuple[Host, User] | Response:
    host = host_of(request)
    user = need_user(request)
    if isinstance(user, Response):
        return user
    if not user.admin:
        return host.refuse(request, 404, "no such page")
    return host, user


@admin_only
def admin(request: Request, host: Host, user: User) -> Response:
    return host.page(
        request, "admin.html", users=host.accounts.users(), submissions=host.accounts.submissions(),
        voided=sorted(host.accounts.voided()),
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
def admin_void(request: Request, host: Host, user: User) -> Response:
    match_id = request.path_params["match_id"]
    if _match(host, match_id) is None:
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


# ---------------------------------------------------------------- live updates


def signature(data_dir: Path) -> str:
    """What the stores' files look like now (sizes and times): it changes when a match
    lands or an account, upload or validation changes; no SQLite read."""
    found: list[tuple[int, int] | None] = []
    for name in ("results.sqlite", "results.sqlite-wal", "accounts.sqlite", "accounts.sqlite-wal"):
        try:
            stat = (data_dir / name).stat()
            found.append((stat.st_size, stat.st_mtime_ns))
        except OSError:
            found.append(None)
    return hashlib.sha256(repr(found).encode()).hexdigest()[:16]


async def events(request: Request) -> Response:
    """Server-sent events: ``change`` when the stores' files change (a match landed, a
    validation finished); bounded in time and in number of streams."""
    host = host_of(request)
    if host.streams >= MAX_STREAMS:
        return PlainTextResponse("too many live pages open", status_code=503)

    # What the page was made from (its URL), or the last event's id (a reconnect): a
    # change in between is told at once, never lost between page and stream.
    since = request.headers.get("last-event-id") or request.query_params.get("since", "")

    async def stream():
        host.streams += 1
        try:
            seen = since or signature(host.data_dir)
            yield "retry: 2000\n\n"
            deadline = time.monotonic() + STREAM_SECONDS
            while time.monotonic() < deadline and not host.stopping.is_set():
                now = signature(host.data_dir)
                if now != seen:
                    seen = now
                    yield f"id: {now}\nevent: change\ndata: 1\n\n"
                await asyncio.sleep(EVENT_SECONDS)
        finally:
            host.streams -= 1

    return StreamingResponse(stream(), media_type="text/event-stream")


def static(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in ("style.css", "live.js", "host.css"):
        return PlainTextResponse("not found", status_code=404)
    return FileResponse(STATIC / name)


async def not_found(request: Request, exc: Exception) -> Response:
    return PlainTextResponse("not found", status_code=404)


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


def server_secret(data_dir: Path) -> bytes:
    """The key cookies are signed with, made once and kept in the data folder (0600)."""
    path = Path(data_dir) / "server-secret"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "wb") as out:
            out.write(secrets.token_bytes(32))
            out.flush()
            os.fsync(out.fileno())
    secret = path.read_bytes()
    if len(secret) < 32:
        raise ValueError(f"{path} is damaged (shorter than 32 bytes): remove it to make a new one")
    return secret
