"""Pages for everyone: the boards, the final, match pages (a seat's stderr for its owner),
and the live pages' event stream (bot pages: ``arena.server.botpages``)."""

from __future__ import annotations

import asyncio
import functools
import re
import time
from typing import Any

from markupsafe import Markup
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
    StreamingResponse,
)

from arena.referee.matchlog import LogError, MatchLog, check_rules
from arena.server import access, announcements, replays
from arena.server.accounts import FinalRound, User
from arena.server.challenge_pages import choices
from arena.server.deadline import stamp
from arena.server.finals import final_rows, ladder_rows
from arena.server.host import (
    EVENT_SECONDS,
    MAX_STREAMS,
    STATIC,
    STREAM_SECONDS,
    TRAILING,
    Host,
    Watched,
    host_of,
    needs_user,
    signature,
    signed_in,
)
from arena.server.play import play_tournament
from arena.server.play_pages import desk_of
from arena.server.seatlogs import fault_reason, seat_stderr
from arena.server.shown import bot_folder, forms, shown
from arena.tournament.bundle import BundleError, bundle_json
from arena.variants import all_variants
from leaderboards.ids import parse_id
from leaderboards.replay import board_drawing
from leaderboards.site import safe_json


def home(request: Request) -> Response:
    host = host_of(request)
    voided, hidden = host.accounts.voided(), host.accounts.hidden()
    tables = []
    for (variant, players), live in host.boards.items():
        rows = ladder_rows(live.rows(host.store, voided), hidden)
        tables.append(
            {"variant": variant, "players": players, "rows": rows[:10],
             "so_far": participants(host, variant, players)}
        )  # fmt: skip
    # The home page shows the final only while it is the result: the deadline in force
    # has passed. A final of an earlier deadline is history, on /final.
    return host.page(
        request, "home.html", tables=tables, live=True, finals=_finals(host, history=False),
        announcements=announcements.newest(host.accounts),
    )  # fmt: skip


async def board(request: Request) -> Response:
    """A board's page: a visitor without an account gets the page made once per change
    straight from the event loop (no thread, no SQLite), so readers cost the ladder little."""
    if signed_in(request) is None:
        key = ("board-page", request.path_params["variant"], request.path_params["players"])
        page = host_of(request).cached(key)
        if page is not None:
            return HTMLResponse(page)
    return await run_in_threadpool(board_page, request)


def board_page(request: Request) -> Response:
    host = host_of(request)
    variant = request.path_params["variant"]
    players = request.path_params["players"]
    live = host.boards.get((variant, players))
    if live is None:
        return host.refuse(request, 404, "no such board")

    def content() -> tuple[Markup, bool]:
        voided = host.accounts.voided()
        rows = ladder_rows(live.rows(host.store, voided), host.accounts.hidden())
        recent = host.store.latest_results(live.tournament, 20)
        html = host.env.get_template("_board_body.html").render(
            variant=variant, players=players, rows=rows, recent=recent, voided=voided,
            rated=live.matches, so_far=participants(host, variant, players),
        )  # fmt: skip
        return Markup(html), live.complete

    def page() -> tuple[bytes, bool]:
        body, whole = content()
        made = host.page(
            request, "board.html", variant=variant, players=players, content=body, live=True
        )
        return bytes(made.body), whole

    user = signed_in(request)
    if user is None:  # every visitor's page is the same: made once per change
        return HTMLResponse(host.shared(("board-page", variant, players), page))
    body = host.shared(("board", variant, players), content)
    offer = None if host.deadline.closed() else choices(host, user, variant, players)
    return host.page(
        request, "board.html", variant=variant, players=players, content=body, live=True,
        offer=offer,
    )  # fmt: skip


def participants(host: Host, variant: str, players: int) -> int:
    """Participants (a team counts once) with a version that plays the board (passed its
    validation): its ladder starts once there are ``players`` of them."""
    return len(set(host.accounts.sides(f"{variant}-{players}p").values()))


def _finals(host: Host, history: bool) -> list[dict[str, Any]]:
    """The finals' tables: those of the deadline in force once it has passed (the
    competition's result), then, with ``history``, those of earlier deadlines."""
    deadline, closed = stamp(host.deadline.current()), host.deadline.closed()
    current: list[dict[str, Any]] = []
    earlier: list[dict[str, Any]] = []
    for variant, players in host.competition.boards:
        for fixed in reversed(host.accounts.final_rounds(f"{variant}-{players}p")):
            now = closed and fixed.deadline == deadline
            if now or history:
                table = final_table(host, variant, players, fixed)
                (current if now else earlier).append({**table, "current": now})
    return current + earlier


def final_table(host: Host, variant: str, players: int, fixed: FinalRound) -> dict[str, Any]:
    """One final's table (made once per state of the stores: with the ladder's games
    counted, a rating of thousands of matches)."""
    name = host.competition.final_name(variant, players, fixed.number)

    def make() -> tuple[dict[str, Any], bool]:
        matches = host.store.results(name, details=False)
        ladder: list = []
        if host.competition.final.with_ladder:
            ladder = host.store.results(
                host.competition.ladder_name(variant, players), details=False
            )
        rows = final_rows(matches, host.accounts.voided(), host.accounts.hidden(), ladder)
        return {
            "variant": variant, "players": players, "round": fixed.number,
            "deadline": fixed.deadline, "finished": fixed.finished, "played": len(matches),
            "bots": len(fixed.bots), "rows": rows,
        }, True  # fmt: skip

    return host.shared(("final", name, fixed.finished), make)


def final(request: Request) -> Response:
    host = host_of(request)
    return host.page(request, "final.html", finals=_finals(host, history=True), live=True)


def match_page(request: Request) -> Response:
    """The seat table and the match played on the map (the static site's viewer), its data
    embedded as JSON filtered to what this visitor may see (``arena.server.replays``)."""
    host = host_of(request)
    user = signed_in(request)
    found = _visible_match(request, host, user)
    if found is None:
        return host.refuse(request, 404, "no such match")
    result, owners = found
    sight = replays.sight_of(user, owners)
    seats = []
    for seat, bot in enumerate(result.bots):
        mine = access.owns(user, owners[seat] or "")
        detail = None
        if result.faults[seat] and access.sees_fault_reason(user, owners[seat]):
            said = result.fault_details[seat] if result.fault_details else None
            detail = fault_reason(host, result.match_id, seat, result.faults[seat], said)
        seats.append(
            {
                "seat": seat,
                "bot": bot,
                "key": bot.rpartition("@")[0],
                "score": result.scores[seat],
                "rank": result.ranks[seat],
                "fault": result.faults[seat],
                "detail": shown_to_owner(host, bot, detail),
                "mine": mine,
            }
        )
    voided = result.match_id in host.accounts.voided()
    try:
        data, refused = _replay(host, result, owners, sight), None
    except LogError as error:  # recorded under rules this engine no longer plays
        data, refused = None, str(error)
    bundle = access.sees_bundle(user, owners, _practice(host, result))
    return host.page(
        request, "match.html", result=result, seats=seats, voided=voided, sight=sight,
        refused=refused, replay=Markup(replays.embedded_json(data)) if data else None,
        bundle=bundle,
    )  # fmt: skip


def match_replay(request: Request) -> Response:
    """The viewer's data of a match as JSON: what the page embeds, for scripts."""
    host = host_of(request)
    user = signed_in(request)
    found = _visible_match(request, host, user)
    if found is None:
        return JSONResponse({"error": "no such match"}, status_code=404)
    result, owners = found
    try:
        data = _replay(host, result, owners, replays.sight_of(user, owners))
    except LogError as error:
        return JSONResponse({"error": f"no replay: {error}"}, status_code=409)
    return JSONResponse(data)


def match_log(request: Request) -> Response:
    """The match log (JSON lines) as this visitor may read it: the organiser's exactly as
    stored, anyone else's without the seed and without the other seats' hidden lines."""
    host = host_of(request)
    user = signed_in(request)
    found = _visible_match(request, host, user)
    if found is None:
        return host.refuse(request, 404, "no such match")
    result, owners = found
    raw = host.store.match_log(result.match_id)
    body = replays.visible_log(raw, replays.sight_of(user, owners))
    name = f"match-{result.match_id}.jsonl"
    return Response(
        body,
        media_type="application/jsonl",
        headers={"content-disposition": f'attachment; filename="{name}"'},
    )


def match_bundle(request: Request) -> Response:
    """The match's bundle (``arena replay --reproduce``): its seats' owners' and admins'
    only (``access.sees_bundle``: it holds the game's seed), of a stored match, so a
    finished one: a match still playing has no stored result, hence no page and no bundle."""
    host = host_of(request)
    user = signed_in(request)
    found = _visible_match(request, host, user)
    if found is None or not access.sees_bundle(user, found[1], _practice(host, found[0])):
        return host.refuse(request, 404, "no such match bundle")
    result = found[0]
    try:
        body = bundle_json(host.store, result.match_id)
    except BundleError as error:  # an older store that kept no key or plan for it
        return host.refuse(request, 409, f"no bundle for this match: {error}")
    name = f"{result.tournament}-{result.idx}-bundle.json"
    return Response(
        body,
        media_type="application/json",
        headers={"content-disposition": f'attachment; filename="{name}"'},
    )


def _practice(host: Host, result: Any) -> bool:
    """A person's game against bots (``/play``), not a match between bots."""
    return bool(result.tournament == play_tournament(host.competition))


def _visible_match(
    request: Request, host: Host, user: User | None
) -> tuple[Any, list[str | None]] | None:
    """The match of the URL and its seats' owners, if ``user`` may see it."""
    found = competition_match(host, request.path_params["match_id"])
    if found is None:
        return None
    if not access.sees_match(user, host.competition, found[1], _practice(host, found[0])):
        return None
    return found


def _replay(
    host: Host, result: Any, owners: list[str | None], sight: replays.Sight
) -> dict[str, Any]:
    raw = host.store.match_log(result.match_id)
    check_rules(MatchLog.from_jsonl(raw.split(b"\n", 1)[0]).header)
    data = replays.visible_replay(host.replays.full(result.match_id, raw), sight)
    data = dict(data, download=f"/matches/{result.match_id}/log.jsonl")
    data["bot_links"] = [f"/bots/{bot.rpartition('@')[0]}" for bot in result.bots]
    data["seat_logs"] = [
        {"stderr": f"/matches/{result.match_id}/stderr/{seat}"} if sight.sees(seat) else {}
        for seat in range(len(result.bots))
    ]
    return data


def competition_match(host: Host, match_id: int) -> tuple[Any, list[str | None]] | None:
    """A match of this competition and each seat's owner (None: not a participant's)."""
    result = host.store.match_result(match_id)
    names = {host.competition.ladder_name(*b) for b in host.competition.boards}
    for variant, players in host.competition.boards:
        rounds = host.accounts.final_rounds(f"{variant}-{players}p")
        names |= {host.competition.final_name(variant, players, r.number) for r in rounds}
        names.add(host.competition.final_name(variant, players))
    names.add(play_tournament(host.competition))
    if result is None or result.tournament not in names:
        return None
    owners = host.accounts.owners()
    seats: list[str | None] = [owners.get(bot) for bot in result.bots]
    if result.tournament == play_tournament(host.competition):
        game = desk_of(host).games.by_match(match_id)  # the person's seat is theirs
        if game is None:
            return None
        seats[game.seat] = game.user
    return result, seats


@needs_user
def match_stderr(request: Request, host: Host, user: User) -> Response:
    """One seat's stderr of one match: its owner's and admins' only."""
    found = competition_match(host, request.path_params["match_id"])
    seat = request.path_params["seat"]
    if (
        found is None
        or not 0 <= seat < len(found[1])
        or not access.owns(user, found[1][seat] or "")
    ):
        return host.refuse(request, 404, "no such log")
    text = shown_to_owner(host, found[0].bots[seat], seat_stderr(host, found[0].match_id, seat))
    return PlainTextResponse(text or "(no stderr)")


def shown_to_owner(host: Host, label: str, text: str | None) -> str | None:
    """A seat's output as its owner sees it: paths relative to the bot's folder, none of
    the server's (``arena.server.shown``)."""
    if not text:
        return text
    key, _, given = label.rpartition("@")
    version = parse_id(given)
    record = host.store.bot(key, version) if version is not None and key else None
    folders = []
    if record is not None and record["kind"] == "file":
        folders = [re.escape(f) for f in forms(bot_folder(host.data_dir, record["target"]))]
    return shown(text, host.data_dir, folders)


async def events(request: Request) -> Response:
    """Server-sent events: ``change`` when the stores' files change (a match landed, a
    validation finished), and once more ``TRAILING`` seconds after the last of a burst
    (a page made at most ``SETTLE`` seconds behind the stores, fetched at the last
    change, is fetched again when it is current); bounded in time and in number of
    streams. The same stream for the competition and for the local mode (``arena
    serve``): both watch a data folder."""
    host: Watched = request.app.state.host
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
            changed: float | None = None  # when the last change was told
            while time.monotonic() < deadline and not host.stopping.is_set():
                now = signature(host.data_dir)
                if now != seen:
                    seen, changed = now, time.monotonic()
                    yield f"id: {now}\nevent: change\ndata: 1\n\n"
                elif changed is not None and time.monotonic() - changed >= TRAILING:
                    changed = None
                    yield f"id: {now}\nevent: change\ndata: 2\n\n"
                await asyncio.sleep(EVENT_SECONDS)
        finally:
            host.streams -= 1

    # The type alone: an event stream is UTF-8 by definition (no charset parameter).
    return StreamingResponse(stream(), headers={"content-type": "text/event-stream"})


# The static site's files the host's pages use (the viewer's and the play page's scripts).
STATIC_FILES = ("style.css", "live.js", "host.css", "board.js", "replay.js", "play.js", "data.js")
BOARD_SCRIPT = re.compile(r"board-([a-z0-9-]+)\.js")


def static(request: Request) -> Response:
    name = request.path_params["name"]
    board = BOARD_SCRIPT.fullmatch(name)
    if board is not None:  # a variant's map, drawn once (the static site's board-VARIANT.js)
        return _board_script(board.group(1))
    if name not in STATIC_FILES:
        return PlainTextResponse("not found", status_code=404)
    return FileResponse(STATIC / name)


@functools.lru_cache(maxsize=16)
def _board_drawing_script(variant: str) -> bytes:
    return f"window.BOARD = {safe_json(board_drawing(variant))};\n".encode()


def _board_script(variant: str) -> Response:
    if variant not in all_variants():
        return PlainTextResponse("not found", status_code=404)
    return Response(_board_drawing_script(variant), media_type="text/javascript")


async def not_found(request: Request, exc: Exception) -> Response:
    return PlainTextResponse("not found", status_code=404)
