"""The play pages of a hosted competition (``/play``): a signed-in participant plays a game
against their own bot or a built-in one, on the map, in the browser.

The worker plays the game (``arena.server.play``); this process speaks for the person
only: a ``HumanBridge`` per game connects to the referee's endpoint with the seat's token.
The page is the local mode's (``play.js`` on ``board.js``); its data is a JSON block
(the CSP allows no inline script) and its clicks are forms with the session's CSRF token.
"""

from __future__ import annotations

import threading
import time
from functools import partial
from typing import Any

import anyio
from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from arena.human import HumanBridge
from arena.server.accounts import User
from arena.server.host import Host, host_of, needs_user
from arena.server.play import Game, Games, PlayRefused
from arena.server.replays import embedded_json
from arena.server.web import form_of
from arena.variants import get_variant
from bots import all_bots

CONNECT_SECONDS = 20.0  # how long starting a game waits for the worker to open its seat
LONG_POLL_SECONDS = 20.0
STORED_SECONDS = 30.0  # how long a finished game's page waits for its result to be stored
LONG_POLLS = anyio.CapacityLimiter(32)


class Desk:
    """This web process's side of the people's games: the store and each game's bridge."""

    def __init__(self, host: Host) -> None:
        self.games = Games(host.data_dir)
        self.games.resign_live()  # a bridge of the last web process is gone with it
        self.bridges: dict[str, HumanBridge] = {}
        self.lock = threading.Lock()

    def connect(self, game_id: str, wait: float = 0.0) -> HumanBridge | None:
        """The game's bridge, started once the worker has opened the person's seat
        (waiting up to ``wait`` seconds for it)."""
        deadline = time.monotonic() + wait
        while True:
            with self.lock:
                bridge = self.bridges.get(game_id)
                if bridge is not None:
                    return bridge
                game = self.games.get(game_id)
                if game is not None and game.status == "ready" and game.endpoint and game.token:
                    bridge = HumanBridge(game.endpoint, game.token, game.user)
                    bridge.start()
                    self.bridges[game_id] = bridge
                    return bridge
            if game is None or not game.live or time.monotonic() >= deadline:
                return None
            time.sleep(0.2)


DESKS: dict[int, Desk] = {}
DESKS_LOCK = threading.Lock()


def desk_of(host: Host) -> Desk:
    with DESKS_LOCK:
        desk = DESKS.get(id(host))
        if desk is None:
            desk = DESKS[id(host)] = Desk(host)
        return desk


def opponents(host: Host, user: User) -> list[str]:
    """What a participant may play against: their own (and their team's) validated bots,
    the built-in ones."""
    own = [
        s["label"]
        for s in host.accounts.submissions()
        if user.speaks_for(s["owner"]) and s["status"] == "ok" and s["label"] and not s["disabled"]
    ]
    return sorted(set(own)) + sorted(all_bots())


def _form(
    request: Request, host: Host, user: User, error: str | None = None, status: int = 200
) -> Response:
    desk = desk_of(host)
    players = max(p for _, p in host.competition.boards)
    return host.page(
        request, "play_new.html", status=status, error=error, opponents=opponents(host, user),
        seats=players, live_game=desk.games.live_of(user.name), limit=host.competition.play.games,
    )  # fmt: skip


@needs_user
def play_form(request: Request, host: Host, user: User) -> Response:
    if not host.competition.play.games:
        return host.refuse(request, 404, "no games in the browser on this server")
    return _form(request, host, user)


@needs_user
def start_play(request: Request, host: Host, user: User) -> Response:
    if not host.competition.play.games:
        return host.refuse(request, 404, "no games in the browser on this server")
    form = form_of(request)
    desk = desk_of(host)
    try:
        variant, _, count = str(form.get("board", "")).rpartition("-")
        if (variant, int(count or 0)) not in host.competition.boards:
            raise ValueError("choose one of the competition's boards")
        players = int(count)
        chosen = [str(b).strip() for b in form.getlist("bot") if str(b).strip()]
        allowed = set(opponents(host, user))
        if len(chosen) != players - 1:
            raise ValueError(f"{variant} with {players} players: choose {players - 1} opponents")
        for name in chosen:
            if name not in allowed:
                raise ValueError(f"'{name}' is neither one of your validated bots nor built in")
            if "@" not in name and not all_bots()[name].supports(get_variant(variant).name):
                raise ValueError(f"the built-in bot '{name}' does not play {variant}")
        seat = str(form.get("seat", "0"))
        if not seat.isdigit() or int(seat) >= players:
            raise ValueError(f"your seat is a number from 0 to {players - 1}")
        game = desk.games.open(
            user.name, variant, players, int(seat), chosen, host.competition.play.games
        )
    except PlayRefused as error:
        return _form(request, host, user, str(error), status=429)
    except ValueError as error:
        return _form(request, host, user, str(error), status=400)
    desk.connect(game.id, wait=CONNECT_SECONDS)
    return RedirectResponse(f"/play/{game.id}", status_code=303)


def _mine(request: Request, host: Host, user: User) -> Game | None:
    game = desk_of(host).games.get(request.path_params["game_id"])
    return game if game is not None and game.user == user.name else None


@needs_user
def play_page(request: Request, host: Host, user: User) -> Response:
    desk = desk_of(host)
    game = _mine(request, host, user)
    if game is None:
        return host.refuse(request, 404, "no such game")
    desk.games.touch(game.id)
    desk.connect(game.id)
    info = {
        "game": game.id,
        "seat": game.seat,
        "names": game.names(),
        "variant": game.variant,
        "csrf": request.state.csrf,  # clicks are forms with the session's token
        "replay": "/matches/",
    }
    opponents_words = ", ".join(game.bots)
    return host.page(
        request, "play.html", game=game, title=f"{game.variant}: you against {opponents_words}",
        data=Markup(embedded_json(info)),
    )  # fmt: skip


async def play_state(request: Request) -> Response:
    """The game's state once it differs from the page's ``version`` (a long poll, in a
    thread of its own); each is a sign that the person is still there."""
    host = host_of(request)
    user = request.state.user
    game = _mine(request, host, user) if user is not None else None
    if game is None:
        return JSONResponse({"error": "no such game"}, status_code=404)
    given = request.query_params.get("version", "-1")
    version = int(given) if given.lstrip("-").isdigit() else -1
    state = await anyio.to_thread.run_sync(
        partial(game_state, host, game, version), limiter=LONG_POLLS, abandon_on_cancel=True
    )
    return JSONResponse(state)


def game_state(host: Host, game: Game, version: int) -> dict[str, Any]:
    desk = desk_of(host)
    desk.games.touch(game.id)
    bridge = desk.connect(game.id)
    if bridge is not None:
        state = bridge.wait_change(version, LONG_POLL_SECONDS)
        state.pop("board", None)
    else:
        state = {"status": "connecting", "legal": [], "version": version}
    finished = desk.games.get(game.id)
    if finished is not None and (state["status"] in ("over", "resigned") or not finished.live):
        deadline = time.monotonic() + STORED_SECONDS
        while finished is not None and finished.live and time.monotonic() < deadline:
            time.sleep(0.2)
            finished = desk.games.get(game.id)
        if finished is not None and not finished.live:
            state.update(status="over", match_id=finished.match_id, error=finished.error)
            result = host.store.match_result(finished.match_id) if finished.match_id else None
            if result is not None:
                state["final"] = {"scores": list(result.scores), "ranks": list(result.ranks)}
            state["version"] = -2  # the last state: differs from any the bridge gave
    return state


@needs_user
def play_action(request: Request, host: Host, user: User) -> Response:
    game = _mine(request, host, user)
    bridge = desk_of(host).connect(game.id) if game is not None else None
    if game is None or bridge is None:
        return JSONResponse({"error": "no such game being played"}, status_code=404)
    desk_of(host).games.touch(game.id)
    problem = bridge.submit(str(form_of(request).get("action", "")))
    if "application/json" not in request.headers.get("accept", ""):
        return RedirectResponse(f"/play/{game.id}", status_code=303)
    if problem:
        return JSONResponse({"error": problem}, status_code=409)
    return JSONResponse({"ok": True})


@needs_user
def play_resign(request: Request, host: Host, user: User) -> Response:
    game = _mine(request, host, user)
    if game is None:
        return JSONResponse({"error": "no such game"}, status_code=404)
    desk = desk_of(host)
    desk.games.resign(game.id)  # the worker's referee sees it even without a bridge
    bridge = desk.connect(game.id)
    if bridge is not None:
        bridge.resign()
    if "application/json" not in request.headers.get("accept", ""):
        return RedirectResponse(f"/play/{game.id}", status_code=303)
    return JSONResponse({"ok": True})
