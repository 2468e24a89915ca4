"""What every handler shares: the competition, its data folder and stores (``Host``), who
is asking (``needs_user``, ``admin_only``), what a live page compares (``signature``)."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import logging
import os
import secrets
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import jinja2
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from arena.referee.faults import FAULT_WORDS, FORFEIT_RANK_RULE
from arena.server.accounts import Accounts, User
from arena.server.boards import LiveBoard
from arena.server.botstats import TallyCache
from arena.server.competition import Competition
from arena.server.deadline import Deadline
from arena.server.export import describe
from arena.server.ladderfaults import FaultWatch
from arena.server.replays import Replays
from arena.tournament.store import ResultsStore

if TYPE_CHECKING:
    from arena.server.metrics import Metrics
    from arena.server.supervisor import Supervisor

log = logging.getLogger("arena.host")
T = TypeVar("T")
TEMPLATES = Path(__file__).resolve().parents[2] / "leaderboards" / "templates"
STATIC = Path(__file__).resolve().parents[2] / "leaderboards" / "static"
EVENT_SECONDS = 0.5
KEEP_SECONDS = 0.25  # how often the boards' thread looks for a change
# Kept values made at most once in so many seconds, whatever lands meanwhile: the page
# a visitor without an account reads of a board (an unpaced ladder lands dozens of
# matches a second; each would be a new rendering; its live stream says when to reload).
SETTLE = {"board-page": 1.0}
# An event stream says ``change`` again this long after the last change of a burst: a
# page fetched at that change may have been up to ``SETTLE`` behind it.
TRAILING = max(SETTLE.values()) + 0.5
STREAM_SECONDS = 300.0  # an event stream ends after this; the browser opens a new one
MAX_STREAMS = 64


class Flag(Protocol):
    def is_set(self) -> bool: ...


class Watched(Protocol):
    """What the live pages' event stream needs of an application (``Host``, or the local
    mode's ``LocalSite``): the data folder it watches, when to stop, how many streams."""

    data_dir: Path
    streams: int

    @property
    def stopping(self) -> Flag: ...


class Host:
    """What the handlers share: the competition, the data folder, the stores."""

    def __init__(
        self,
        competition: Competition,
        data_dir: Path,
        secret: bytes,
        secure: bool,
        worker: Supervisor | None = None,
    ):
        self.competition = competition
        self.worker = worker  # the worker process's supervisor (its deaths and restarts)
        self.metrics: Metrics | None = None  # /metrics' registry, set by create_app
        self.data_dir = Path(data_dir)
        self.accounts = Accounts(self.data_dir)
        self.accounts.dummy  # noqa: B018 (made now: an unknown name's sign-in costs no more)
        self.deadline = Deadline(competition, self.accounts)  # the file's, or moved on /admin
        describe(competition, self.accounts)  # for arena admin export, which has no file
        self.secret = secret
        self.secure = secure
        self.local = threading.local()
        self.boards = {
            board: LiveBoard(competition.ladder_name(*board)) for board in competition.boards
        }
        self.tallies = TallyCache()  # each bot's win and margin sums (its bot page)
        self.streams = 0
        self.cache: dict[tuple, tuple[str, Any, float]] = {}  # signature, value, made at
        self.cache_lock = threading.Lock()
        self.making: set[tuple] = set()  # keys a thread is making anew (one at a time)
        # Bumped by the boards' thread after each change it folds in (``keep_boards``): a
        # kept value made before then may have been made from the stores before that
        # change was visible, so it is made anew.
        self.generation = 0
        self.replays = Replays()  # the viewer's data of the matches last asked for
        self.stopping = asyncio.Event()
        self.sweep_uploads()
        threading.Thread(target=self.keep_boards, name="boards", daemon=True).start()
        self.faults = FaultWatch()  # bots forfeiting most of their games (``ladderfaults``)
        threading.Thread(
            target=self.faults.watch, args=(self,), name="ladder-faults", daemon=True
        ).start()
        self.env = jinja2.Environment(
            # The host's pages, then the layout they share with the static site.
            loader=jinja2.ChoiceLoader(
                [
                    jinja2.FileSystemLoader(str(TEMPLATES / "host")),
                    jinja2.FileSystemLoader(str(TEMPLATES)),
                ]
            ),
            autoescape=True,
        )
        self.env.globals.update(fault_words=FAULT_WORDS, rank_rule=FORFEIT_RANK_RULE)

    def shared(self, key: tuple, make: Callable[[], tuple[T, bool]]) -> T:
        """What ``make`` gives, made once per state of the stores (their files' signature)
        and shared by every request until a match lands or an account changes: twenty
        readers of one big board cost one rendering, and while one thread makes the new
        one the others answer with the last (a page at most one change behind). A key in
        ``SETTLE`` is made at most once in its seconds (a page that many seconds behind at
        most), however fast matches land. ``make`` says whether its value is whole (a
        board still folding in after a start is not kept)."""
        now = self.state()
        with self.cache_lock:
            found = self.cache.get(key)
            if found is not None and self.still_good(key, found, now):
                return found[1]  # current, or the last one while another thread makes anew
            self.making.add(key)
        try:
            value, whole = make()
        finally:
            with self.cache_lock:
                self.making.discard(key)
        if whole:
            with self.cache_lock:
                self.cache[key] = (now, value, time.monotonic())
        return value

    def cached(self, key: tuple) -> Any | None:
        """What ``shared`` would answer for ``key`` without making anything (None: it must
        be made): cheap enough for the event loop (four stat calls, no SQLite)."""
        now = self.state()
        with self.cache_lock:
            found = self.cache.get(key)
            if found is not None and self.still_good(key, found, now):
                return found[1]
        return None

    def still_good(self, key: tuple, found: tuple[str, Any, float], now: str) -> bool:
        """Whether a kept value may be answered: made from the stores as they are, being
        made anew by another thread, or younger than its key's ``SETTLE`` seconds."""
        made_from, _, made_at = found
        return (
            made_from == now
            or key in self.making
            or time.monotonic() - made_at < SETTLE.get(key[0], 0.0)
        )

    def sweep_uploads(self) -> None:
        """Remove what a kill left under uploads/ between unpacking an upload and recording
        it (at start, when no upload is in flight): an upload no submission names."""
        kept = {Path(s["upload"]).parts[1] for s in self.accounts.submissions() if s["upload"]}
        for folder in (self.data_dir / "uploads").glob("*"):
            if folder.name not in kept:
                shutil.rmtree(folder, ignore_errors=True)

    def keep_boards(self) -> None:
        """Fold the boards in at start (from their checkpoints) and again as soon as the
        stores change (a match lands, a void), in this one thread: a page never waits for
        a fold, and the boards are checkpointed as matches land, read or not.

        A change is the files' signature or SQLite's own count of commits (``PRAGMA
        data_version``): a writer appends to the log (the signature moves) a moment
        before its commit is visible to readers, and a fold in that moment reads nothing
        new; the count moves once the commit is visible, so that fold is made again."""
        seen = None
        while not self.stopping.is_set():
            now = (signature(self.data_dir), self.commits())
            if now != seen:
                seen = now
                try:
                    voided = self.accounts.voided()
                    for live in self.boards.values():
                        live.update(self.store, voided)
                except Exception:  # once per change: the next change tries again
                    log.exception("folding the boards failed")
                self.generation += 1
            time.sleep(KEEP_SECONDS)

    def commits(self) -> tuple[int, int] | None:
        """The stores' commits this thread's connections have seen (``PRAGMA
        data_version``: it changes when another connection's commit becomes visible);
        None when a store cannot say (the fold is made anyway)."""
        try:
            return (
                self.store.db.execute("PRAGMA data_version").fetchone()[0],
                self.accounts.db.execute("PRAGMA data_version").fetchone()[0],
            )
        except Exception:
            return None

    def state(self) -> str:
        """What a kept value was made from: the stores' files and the boards' thread's
        count of changes folded in (cheap enough for the event loop: no SQLite)."""
        return f"{signature(self.data_dir)}.{self.generation}"

    @property
    def store(self) -> ResultsStore:
        store = getattr(self.local, "store", None)
        if store is None:
            store = self.local.store = ResultsStore.reader(self.data_dir)
        return store

    def page(self, request: Request, template: str, status: int = 200, **context: Any) -> Response:
        deadline = self.deadline.current()
        closed = self.deadline.closed()
        body = self.env.get_template(template).render(
            deadline=deadline,
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


def _admin(request: Request) -> tuple[Host, User] | Response:
    host = host_of(request)
    user = need_user(request)
    if isinstance(user, Response):
        return user
    if not user.admin:
        return host.refuse(request, 404, "no such page")
    return host, user


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
