"""``arena serve``: the site over HTTP on localhost, live, with a seat for a person.

Pages are the static site's pages (``leaderboards.site.Site``), rendered on
demand from the results store. ``/events`` is a server-sent-events stream
that says ``change`` whenever the store's files change (a match landed); the
pages' ``live.js`` then fetches the page again and swaps it in. The server
never polls SQLite for that: it watches the database and WAL files' sizes and
times, and reads the store only when a page is asked for.

``/play`` starts a game of a person against bots (``arena.human``); its page
long-polls ``/play/ID/state`` and posts clicks to ``/play/ID/action``.

Every POST (it starts bot commands, or acts for a person) must carry the server's
token, which only its own pages hold (a hidden form field, the play page's
``X-Arena-Token`` header): a page of another site cannot read them, and a request
that leaves out ``Origin`` (a local process, a browser extension) has no token either.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import secrets
import sys
import threading
import time
import uuid
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from arena.escape import escaped
from arena.human import HumanGame
from arena.referee.keys import MatchKey
from arena.referee.process import ProcessLimits
from arena.tournament.bots import resolve
from arena.tournament.names import check_name
from arena.tournament.results import MatchResult
from arena.tournament.store import FILE_NAME, ResultsStore, StoreError
from arena.variants import all_variants, get_variant
from leaderboards.data import stored_matches
from leaderboards.replay import board_drawing
from leaderboards.site import CONTENT_TYPES, Site, environment, safe_json

HUMAN_TOURNAMENT = "human-play"
EVENT_POLL_SECONDS = 0.5
LONG_POLL_SECONDS = 20.0
MAX_BODY = 64 * 1024
MAX_GAMES = 8  # games of people at once on one server
TOKEN_HEADER = "X-Arena-Token"  # how the play page's scripts send the token
TOKEN_FIELD = "token"  # how the play form sends it


class ArenaServer(ThreadingHTTPServer):
    """The live site and the play pages of one data folder, on loopback only."""

    daemon_threads = True

    def __init__(
        self,
        data_dir: Path,
        port: int = 8765,
        max_replays: int | None = None,
        limits: ProcessLimits | None = None,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.limits = limits or ProcessLimits()
        self.stopping = threading.Event()
        self.render_lock = threading.Lock()
        self.games: dict[str, HumanGame] = {}
        self.token = secrets.token_urlsafe(32)  # what a POST must carry: only our pages hold it
        # Created on first use; an existing one is only read (also an archived, read-only one).
        store = self.open_store()
        self.site = Site(store, max_replays, live=True)
        store.close()
        self.seen = self.signature()
        super().__init__(("127.0.0.1", port), Handler)

    def open_store(self) -> ResultsStore:
        """The store read-only (created first if there is none): pages never write."""
        if not (self.data_dir / FILE_NAME).exists():
            ResultsStore(self.data_dir).close()
        return ResultsStore.reader(self.data_dir)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/"

    def signature(self) -> tuple:
        """Changes whenever a transaction is committed to the store (database or WAL file)."""
        marks = []
        for suffix in ("", "-wal"):
            path = self.data_dir / f"results.sqlite{suffix}"
            with contextlib.suppress(OSError):
                stat = path.stat()
                marks.append((suffix, stat.st_mtime_ns, stat.st_size))
        return tuple(marks)

    def render(self, path: str) -> bytes | None:
        """A page of the site, from a fresh read of the store when it has changed."""
        with self.render_lock:
            store = self.open_store()
            try:
                self.site.store = store
                now = self.signature()
                if now != self.seen:
                    self.seen = now
                    self.site.refresh()
                return self.site.render(path)
            finally:
                store.close()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A browser that goes away mid-answer is normal; anything else is one line on
        stderr, never a traceback."""
        error = sys.exc_info()[1]
        if isinstance(error, ConnectionError | TimeoutError):
            return
        problem = escaped(f"{type(error).__name__}: {error}")
        print(f"arena serve: a request failed: {problem}", file=sys.stderr)

    def shutdown(self) -> None:
        self.stopping.set()
        super().shutdown()

    def close(self) -> None:
        """Stop: every running person's game is resigned (the bots finish it and are reaped)."""
        self.stopping.set()
        for game in list(self.games.values()):
            if not game.done.is_set() and game.bridge is not None:
                game.bridge.resign()
        for game in list(self.games.values()):
            game.done.wait(60)
        self.server_close()

    # ---------------------------------------------------------------- people's games

    def new_game(
        self,
        variant: str,
        bots: list[str],
        human_seat: int,
        seed: int,
        person: str = "you",
        key: MatchKey | None = None,
    ) -> HumanGame:
        """Start a game of a person against ``bots`` (names as on the command line); with
        ``key``, the bots are told what they were told the last time (the same game)."""
        running = [g for g in self.games.values() if not g.done.is_set()]
        if len(running) >= MAX_GAMES:
            raise ValueError(f"{MAX_GAMES} games are already being played here; finish one first")
        chosen = get_variant(variant)
        if not chosen.playable:
            raise ValueError(f"{variant} cannot be played: {'; '.join(chosen.missing)}")
        person = check_name(person.strip() or "you", "your name")
        store = self.open_store()
        try:
            # A person's games are stored under the person's name: a bot's name would put
            # them on that bot's record.
            if person in installed_bots() or store.bot(person) is not None:
                raise ValueError(f"'{person}' is a bot's name: choose another name for yourself")
            entries = [resolve(name, store) for name in bots]
        finally:
            store.close()
        for entry in entries:
            spec = entry.spec
            if spec is not None and not spec.supports(chosen.name):
                raise ValueError(f"bot '{entry.name}' does not play {chosen.name}")
        game = HumanGame(
            chosen,
            entries,
            human_seat,
            seed,
            person=person,
            log_dir=self.data_dir / "bot-logs",
            limits=self.limits,
            on_finish=self.store_game,
            key=key,
        )
        self.games[game.game_id] = game
        game.start()
        if game.error:
            raise ValueError(game.error)
        return game

    def store_game(self, game: HumanGame) -> int | None:
        """Store a finished person-vs-bots game as the next match of ``human-play``."""
        outcome = game.outcome
        store = ResultsStore(self.data_dir)
        try:
            tid = store.tournament(HUMAN_TOURNAMENT, HUMAN_TOURNAMENT, {"kind": "person vs bots"})
            index = max(store.done_indices(tid), default=-1) + 1
            bots = tuple(entry.name for entry in game.entries)
            store.record(
                tid, MatchResult.from_outcome(outcome, index, game.variant.name, bots, "person")
            )
            found = [
                m.match_id
                for m in stored_matches(store, game.variant.name)
                if m.tournament == HUMAN_TOURNAMENT and m.idx == index
            ]
            return found[0] if found else None
        finally:
            store.close()


def playable_variants() -> list[dict[str, Any]]:
    return [
        {"name": name, "title": v.title, "min": v.min_players, "max": v.max_players}
        for name, v in all_variants().items()
        if v.playable
    ]


def installed_bots() -> list[str]:
    from bots import all_bots

    return sorted(all_bots())


class Handler(BaseHTTPRequestHandler):
    server: ArenaServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet: no line per request
        pass

    # ---------------------------------------------------------------- plumbing

    def send(self, status: int, body: bytes, content_type: str = "text/html; charset=utf-8"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_json(self, data: Any, status: int = 200) -> None:
        self.send(status, json.dumps(data).encode(), "application/json")

    def not_found(self) -> None:
        self.send(HTTPStatus.NOT_FOUND, b"<h1>Not found</h1><p><a href='/'>leaderboards</a></p>")

    def body(self) -> dict[str, Any] | None:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            return None
        raw = self.rfile.read(length)
        kind = self.headers.get("Content-Type", "")
        try:
            if kind.startswith("application/json"):
                data = json.loads(raw or b"{}")
                return data if isinstance(data, dict) else None
            return {k: v if len(v) > 1 else v[0] for k, v in parse_qs(raw.decode()).items()}
        except (ValueError, UnicodeDecodeError):
            return None

    def page(self, template: str, **context: Any) -> bytes:
        return (
            environment()
            .get_template(template)
            .render(
                root="/",
                live=False,
                served=True,
                nav_variants=list(self.server.site.snapshot.by_variant),
                generated=time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
                token=self.server.token,
                **context,
            )
            .encode()
        )

    # ---------------------------------------------------------------- routes

    def refused(self) -> bool:
        """Answer 403 to a request another site makes through the person's browser: a
        ``Host`` that is not this server (DNS rebinding), or a POST from another origin (a
        page elsewhere submitting the play form, which starts bot commands here)."""
        port = self.server.server_address[1]
        hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
        origin = self.headers.get("Origin")
        if self.headers.get("Host", "") in hosts and (
            self.command != "POST" or origin is None or origin in {f"http://{h}" for h in hosts}
        ):
            return False
        self.forbidden()
        return True

    def forbidden(self) -> None:
        self.close_connection = True  # a body left unread must not be taken for a request
        self.send(HTTPStatus.FORBIDDEN, b"<h1>Forbidden</h1><p>Open the page from this server.</p>")

    def tokened(self, form: dict[str, Any] | None) -> bool:
        """Whether a POST carries the server's token (header or form field): proof that it
        comes from one of this server's own pages."""
        given = self.headers.get(TOKEN_HEADER) or (form or {}).get(TOKEN_FIELD)
        return isinstance(given, str) and hmac.compare_digest(
            given.encode(), self.server.token.encode()
        )

    def do_HEAD(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        if self.refused():
            return
        url = urlsplit(self.path)
        path = url.path
        if path == "/events":
            return self.events()
        if path == "/play" or path == "/play/":
            return self.play_form()
        parts = path.strip("/").split("/")
        if parts[0] == "play" and len(parts) >= 2:
            game = self.server.games.get(parts[1])
            if game is None:
                return self.not_found()
            if len(parts) == 2:
                return self.play_page(game)
            if parts[2:] == ["state"]:
                version = parse_qs(url.query).get("version", ["-1"])[0]
                return self.play_state(game, int(version) if version.lstrip("-").isdigit() else -1)
            return self.not_found()
        relative = path.lstrip("/") or "index.html"
        if relative.endswith("/"):
            relative += "index.html"
        try:
            data = self.server.render(relative)
        except StoreError as error:  # damaged, say: the line on stderr and on the page
            print(f"arena serve: {escaped(str(error))}", file=sys.stderr)
            return self.send(500, f"{error}\n".encode(), "text/plain; charset=utf-8")
        if data is None:
            return self.not_found()
        suffix = Path(relative).suffix
        self.send(HTTPStatus.OK, data, CONTENT_TYPES.get(suffix, "application/octet-stream"))

    def do_POST(self) -> None:
        if self.refused():
            return
        parts = urlsplit(self.path).path.strip("/").split("/")
        form = self.body()
        if not self.tokened(form):
            return self.forbidden()
        if form is None:
            return self.send_json({"error": "the request body is not valid"}, 400)
        if parts == ["play"]:
            return self.start_game(form)
        if len(parts) == 3 and parts[0] == "play":
            game = self.server.games.get(parts[1])
            if game is None or game.bridge is None:
                return self.send_json({"error": "no such game"}, 404)
            if parts[2] == "action":
                problem = game.bridge.submit(str(form.get("action", "")))
                if problem:
                    return self.send_json({"error": problem}, 409)
                return self.send_json({"ok": True})
            if parts[2] == "resign":
                game.bridge.resign()
                return self.send_json({"ok": True})
        self.send_json({"error": "unknown request"}, 404)

    # ---------------------------------------------------------------- live events

    def events(self) -> None:
        """Server-sent events: ``change`` each time a match lands in the store."""
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        last = self.server.signature()
        quiet = 0.0
        try:
            self.wfile.write(b"retry: 2000\n\n")
            self.wfile.flush()
            while not self.server.stopping.is_set():
                time.sleep(EVENT_POLL_SECONDS)
                now = self.server.signature()
                if now != last:
                    last = now
                    self.wfile.write(f"event: change\ndata: {time.time():.3f}\n\n".encode())
                    self.wfile.flush()
                    quiet = 0.0
                else:
                    quiet += EVENT_POLL_SECONDS
                    if quiet >= 15:  # a comment keeps proxies and browsers from giving up
                        self.wfile.write(b": ping\n\n")
                        self.wfile.flush()
                        quiet = 0.0
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    # ---------------------------------------------------------------- playing

    def play_form(self, error: str | None = None, form: dict[str, Any] | None = None) -> None:
        body = self.page(
            "play_new.html",
            variants=playable_variants(),
            bots=installed_bots(),
            error=error,
            form=form or {},
        )
        self.send(HTTPStatus.BAD_REQUEST if error else HTTPStatus.OK, body)

    def start_game(self, form: dict[str, Any]) -> None:
        bots = form.get("bot") or []
        bots = [bots] if isinstance(bots, str) else list(bots)
        bots = [b.strip() for b in bots if b.strip()]
        try:
            given = form.get("seed")
            seat, seed = form.get("seat") or "0", given or uuid.uuid4().int % 10**6
            if not str(seat).isdigit() or not str(seed).lstrip("-").isdigit():
                raise ValueError("the seat and the seed are whole numbers")
            seat, seed = int(seat), int(seed)
            if not bots:
                raise ValueError("choose at least one bot to play against")
            # A seed given is the same game every time, the bots' play included (keyed from it).
            key = MatchKey.for_seed("play", seed) if given else None
            game = self.server.new_game(
                str(form.get("variant", "usa")),
                bots,
                seat,
                seed,
                str(form.get("name") or "you"),
                key,
            )
        except (ValueError, KeyError) as error:
            message = str(error.args[0]) if error.args else str(error)
            return self.play_form(message, form)
        self.send_response(HTTPStatus.SEE_OTHER)
        self.send_header("Location", f"/play/{game.game_id}")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def play_page(self, game: HumanGame) -> None:
        info = {
            "game": game.game_id,
            "seat": game.human_seat,
            "names": [entry.name for entry in game.entries],
            "variant": game.variant.name,
            "token": self.server.token,
        }
        body = self.page(
            "play.html",
            title=f"{game.variant.title}: you against {len(game.bots)} bot"
            + ("s" if len(game.bots) > 1 else ""),
            board_json=safe_json(board_drawing(game.variant.name)),
            game_json=safe_json(info),
        )
        self.send(HTTPStatus.OK, body)

    def play_state(self, game: HumanGame, version: int) -> None:
        bridge = game.bridge
        if bridge is None:
            return self.send_json({"status": "error", "message": game.error or "not started"})
        state = bridge.wait_change(version, LONG_POLL_SECONDS)
        state.pop("board", None)
        if state["status"] == "over" or game.error:
            game.done.wait(10)  # the result is being stored
            state["error"] = game.error
            state["match_id"] = game.match_id
            if game.outcome is not None:
                state["status"] = "over"
                state["final"] = {
                    "scores": list(game.outcome.result.scores),
                    "ranks": list(game.outcome.ranks),
                    "breakdown": [dict(r) for r in game.outcome.result.breakdown],
                    "categories": list(game.outcome.result.categories),
                    "faults": [f.__dict__ for f in game.outcome.faults],
                }
            if state.get("match_id") is not None or game.error:
                game.final_seen.set()
        self.send_json(state)
