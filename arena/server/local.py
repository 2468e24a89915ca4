"""The local mode of the web application (``arena serve``, ``arena play --human``): the
person's own data folder on loopback, no accounts.

Pages are the static site's pages (``leaderboards.site.Site``), rendered on demand
from the results store. ``/events`` (the same stream as a hosted competition's) says
``change`` whenever the store's files change (a match landed); the pages' ``live.js``
then fetches the page again and swaps it in. Nothing polls SQLite for that: the stream
watches the database and WAL files' sizes and times, and the store is read only when a
page is asked for. The leaderboards and bot pages work without JavaScript (the live swap
is the extra); the replay viewer needs it.

``/play`` starts a game of a person against bots (``arena.human``); its page long-polls
``/play/ID/state`` (in a thread of its own, never blocking the event loop) and posts
clicks to ``/play/ID/action``. Without JavaScript, the page lists the legal actions in
a form that posts to the same address.

Every POST (it starts bot commands, or acts for a person) must carry the server's token,
which only its own pages hold; a request from another origin or for another host name
is refused (``arena.server.web``: ``PageToken``, ``LoopbackOnly``).
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import sys
import threading
import time
import uuid
from functools import partial
from pathlib import Path
from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)

from arena.escape import escaped
from arena.human import HumanGame
from arena.referee.keys import MatchKey
from arena.referee.process import ProcessLimits
from arena.server.host import signature
from arena.tournament.bots import resolve
from arena.tournament.names import check_name
from arena.tournament.results import MatchResult
from arena.tournament.store import FILE_NAME, ResultsStore, StoreError
from arena.variants import all_variants, get_variant
from leaderboards.data import stored_matches
from leaderboards.ids import MAX_ID, parse_id, parse_signed
from leaderboards.replay import BoardFacts, board_drawing, describe
from leaderboards.site import CONTENT_TYPES, Site, environment, safe_json

HUMAN_TOURNAMENT = "human-play"
LONG_POLL_SECONDS = 20.0
SETTLE_SECONDS = 10.0  # a click without JavaScript: how long its answer may wait for the bots
MAX_BODY = 64 * 1024
MAX_GAMES = 8  # games of people at once on one server
MAX_SEAT = 63  # the seat a person may ask for (the game itself checks it fits its players)
# Long polls wait in threads of their own: a few open play pages never starve the pages.
LONG_POLLS = anyio.CapacityLimiter(32)


class OneLine(logging.Handler):
    """A request that failed is one line on stderr (its error id and the error), never a
    traceback: ``arena serve`` runs in the person's terminal."""

    def emit(self, record: logging.LogRecord) -> None:
        error = record.exc_info[1] if record.exc_info else None
        said = record.getMessage() + (f": {type(error).__name__}: {error}" if error else "")
        print(f"arena serve: {escaped(said)}", file=sys.stderr, flush=True)


log = logging.getLogger("arena.serve")
if not log.handlers:
    log.addHandler(OneLine())
    log.setLevel(logging.WARNING)
    log.propagate = False


class LocalSite:
    """What the local mode's handlers share: the data folder, its live site, the games of
    people being played, and the token its pages post with."""

    def __init__(
        self, data_dir: Path, max_replays: int | None = None, limits: ProcessLimits | None = None
    ) -> None:
        self.data_dir = Path(data_dir)
        self.limits = limits or ProcessLimits()
        self.token = secrets.token_urlsafe(32)  # what a POST must carry: only our pages hold it
        self.stopping = threading.Event()
        self.streams = 0
        self.render_lock = threading.Lock()
        self.games: dict[str, HumanGame] = {}
        # Created on first use; an existing one is only read (also an archived, read-only one).
        store = self.open_store()
        self.site = Site(store, max_replays, live=True)
        store.close()
        self.seen = signature(self.data_dir)

    def open_store(self) -> ResultsStore:
        """The store read-only (created first if there is none): pages never write."""
        if not (self.data_dir / FILE_NAME).exists():
            ResultsStore(self.data_dir).close()
        return ResultsStore.reader(self.data_dir)

    def render(self, path: str) -> bytes | None:
        """A page of the site, from a fresh read of the store when it has changed."""
        with self.render_lock:
            store = self.open_store()
            try:
                self.site.store = store
                now = signature(self.data_dir)
                if now != self.seen:
                    self.seen = now
                    self.site.refresh()
                self.site.live_since = now  # the page is made from this state of the store
                return self.site.render(path)
            finally:
                store.close()

    def stop(self) -> None:
        """Stopping: event streams end, every running person's game is resigned (the bots
        finish it; its page's long poll wakes)."""
        self.stopping.set()
        for game in list(self.games.values()):
            if not game.done.is_set() and game.bridge is not None:
                game.bridge.resign()

    def close(self) -> None:
        """Stop, and wait for the games to be finished and stored (their bots reaped)."""
        self.stop()
        for game in list(self.games.values()):
            game.done.wait(60)

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

    def page(self, template: str, status: int = 200, **context: Any) -> HTMLResponse:
        body = (
            environment()
            .get_template(template)
            .render(
                root="/",
                live=False,
                served=True,
                nav_variants=list(self.site.snapshot.by_variant),
                generated=time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
                token=self.token,
                **context,
            )
        )
        return HTMLResponse(body, status_code=status)


def playable_variants() -> list[dict[str, Any]]:
    return [
        {"name": name, "title": v.title, "min": v.min_players, "max": v.max_players}
        for name, v in all_variants().items()
        if v.playable
    ]


def installed_bots() -> list[str]:
    from bots import all_bots

    return sorted(all_bots())


def local_of(request: Request) -> LocalSite:
    return request.app.state.host


def form_of(request: Request) -> dict[str, Any] | None:
    """A POST's body, read and checked by ``PageToken`` (None: not a form or JSON object)."""
    return request.state.form


def wants_page(request: Request) -> bool:
    """A form posted by a page without JavaScript (answered with a page), not a script's
    JSON request (answered with JSON)."""
    return not request.headers.get("content-type", "").startswith("application/json")


# -------------------------------------------------------------------- the site's pages


def site_page(request: Request) -> Response:
    relative = request.path_params["path"].lstrip("/") or "index.html"
    if relative.endswith("/"):
        relative += "index.html"
    try:
        data = local_of(request).render(relative)
    except StoreError as error:  # damaged, say: the line on stderr and on the page
        print(f"arena serve: {escaped(str(error))}", file=sys.stderr, flush=True)
        return PlainTextResponse(f"{error}\n", status_code=500)
    if data is None:
        return not_found_page()
    kind = CONTENT_TYPES.get(Path(relative).suffix, "application/octet-stream")
    return Response(data, media_type=kind)


def not_found_page() -> HTMLResponse:
    return HTMLResponse(
        "<!doctype html><title>Not found</title><h1>Not found</h1>"
        "<p><a href='/'>leaderboards</a></p>",
        status_code=404,
    )


async def not_found(request: Request, exc: Exception) -> Response:
    return not_found_page()


# -------------------------------------------------------------------- playing


def play_form(request: Request) -> Response:
    return _form(local_of(request))


def _form(local: LocalSite, error: str | None = None, form: dict[str, Any] | None = None):
    return local.page(
        "play_new.html",
        status=400 if error else 200,
        variants=playable_variants(),
        bots=installed_bots(),
        error=error,
        form=form or {},
    )


def start_game(request: Request) -> Response:
    local, form = local_of(request), form_of(request)
    if form is None:
        return JSONResponse({"error": "the request body is not valid"}, status_code=400)
    bots = form.get("bot") or []
    bots = [bots] if isinstance(bots, str) else list(bots)
    bots = [str(b).strip() for b in bots if str(b).strip()]
    try:
        given = form.get("seed")
        seat = parse_id(str(form.get("seat") or "0"), high=MAX_SEAT)
        seed = parse_signed(str(given)) if given else uuid.uuid4().int % 10**6
        if seat is None or seed is None:
            raise ValueError(
                f"the seat and the seed are whole numbers (the seat at most {MAX_SEAT}, the"
                f" seed at most {len(str(MAX_ID))} digits)"
            )
        if not bots:
            raise ValueError("choose at least one bot to play against")
        # A seed given is the same game every time, the bots' play included (keyed from it).
        key = MatchKey.for_seed("play", seed) if given else None
        game = local.new_game(
            str(form.get("variant", "usa")), bots, seat, seed, str(form.get("name") or "you"), key
        )
    except (ValueError, KeyError) as error:
        message = str(error.args[0]) if error.args else str(error)
        return _form(local, message, form)
    return RedirectResponse(f"/play/{game.game_id}", status_code=303)


def _game(request: Request) -> HumanGame | None:
    return local_of(request).games.get(request.path_params["game_id"])


def play_page(request: Request) -> Response:
    local, game = local_of(request), _game(request)
    if game is None:
        return not_found_page()
    bridge = game.bridge
    state = bridge.snapshot() if bridge is not None else {"status": "error", "legal": []}
    return local.page(
        "play.html",
        title=f"{game.variant.title}: you against {len(game.bots)} bot"
        + ("s" if len(game.bots) > 1 else ""),
        game=game.game_id,
        state=state,
        moves=moves_in_words(game, state) if state["status"] == "to-move" else [],
        error=game.error,
        match_id=game.match_id,
    )


def moves_in_words(game: HumanGame, state: dict[str, Any]) -> list[tuple[str, str]]:
    """The person's legal actions, each with its words (the page without JavaScript)."""
    view = state.get("observation") or {}
    try:
        facts = BoardFacts(board_drawing(game.variant.name))
    except (KeyError, TypeError, ValueError):
        facts = None
    moves = []
    for action in state.get("legal", []):
        words = action
        if facts is not None:
            with contextlib.suppress(Exception):  # words are a help: the notation always works
                words = f"{describe(action, game.human_seat, 'you', facts, view, view, view)}"
                words += f" ({action})"
        moves.append((action, words))
    return moves


def play_script(request: Request) -> Response:
    """The play page's data as a script of its own: the pages run no inline script."""
    local, game = local_of(request), _game(request)
    if game is None:
        return not_found_page()
    info = {
        "game": game.game_id,
        "seat": game.human_seat,
        "names": [entry.name for entry in game.entries],
        "variant": game.variant.name,
        "token": local.token,
    }
    script = f"window.BOARD = {safe_json(board_drawing(game.variant.name))};\n"
    script += f"window.GAME = {safe_json(info)};\n"
    return Response(script, media_type="text/javascript")


async def play_state(request: Request) -> Response:
    """The game's state once it differs from the page's ``version`` (a long poll, waited
    in a thread so that the event loop serves the other pages meanwhile)."""
    game = _game(request)
    if game is None:
        return not_found_page()
    given = request.query_params.get("version", "-1")
    version = parse_signed(given)
    version = -1 if version is None else version
    state = await anyio.to_thread.run_sync(
        partial(game_state, game, version), limiter=LONG_POLLS, abandon_on_cancel=True
    )
    return JSONResponse(state)


def game_state(game: HumanGame, version: int, wait: float = LONG_POLL_SECONDS) -> dict[str, Any]:
    bridge = game.bridge
    if bridge is None:
        return {"status": "error", "message": game.error or "not started"}
    state = bridge.wait_change(version, wait)
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
    return state


def play_action(request: Request) -> Response:
    game, form = _game(request), form_of(request)
    if form is None:
        return JSONResponse({"error": "the request body is not valid"}, status_code=400)
    if game is None or game.bridge is None:
        return JSONResponse({"error": "no such game"}, status_code=404)
    problem = game.bridge.submit(str(form.get("action", "")))
    if wants_page(request):  # the page without JavaScript: back to it, the answer shown there
        if problem is None:
            settle(game, SETTLE_SECONDS)
        return RedirectResponse(f"/play/{game.game_id}", status_code=303)
    if problem:
        return JSONResponse({"error": problem}, status_code=409)
    return JSONResponse({"ok": True})


def settle(game: HumanGame, seconds: float) -> None:
    """Wait (a bounded time) until the person is to move again or the game is over: what the
    page without JavaScript shows next (the bots' moves played meanwhile)."""
    bridge = game.bridge
    deadline = time.monotonic() + seconds
    while bridge is not None and not game.done.is_set():
        state = bridge.snapshot()
        left = deadline - time.monotonic()
        if state["status"] in ("to-move", "over") or left <= 0:
            return
        bridge.wait_change(state["version"], left)


def play_resign(request: Request) -> Response:
    game = _game(request)
    if form_of(request) is None:
        return JSONResponse({"error": "the request body is not valid"}, status_code=400)
    if game is None or game.bridge is None:
        return JSONResponse({"error": "no such game"}, status_code=404)
    game.bridge.resign()
    if wants_page(request):
        return RedirectResponse(f"/play/{game.game_id}", status_code=303)
    return JSONResponse({"ok": True})
