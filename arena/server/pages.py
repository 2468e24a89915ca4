"""Pages for everyone: the boards, the final, bot and match pages (a seat's stderr for its
owner), and the live pages' event stream."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    PlainTextResponse,
    Response,
    StreamingResponse,
)

from arena.server import access
from arena.server.accounts import FinalRound, User
from arena.server.deadline import stamp
from arena.server.finals import final_rows, ladder_rows
from arena.server.host import (
    EVENT_SECONDS,
    MAX_STREAMS,
    STATIC,
    STREAM_SECONDS,
    Host,
    Watched,
    host_of,
    needs_user,
    signature,
    signed_in,
)
from arena.tournament.forfeits import read_tail


def home(request: Request) -> Response:
    host = host_of(request)
    voided, hidden = host.accounts.voided(), host.accounts.hidden()
    tables = []
    for (variant, players), live in host.boards.items():
        rows = ladder_rows(live.rows(host.store, voided), hidden)
        tables.append({"variant": variant, "players": players, "rows": rows[:10]})
    # The home page shows the final only while it is the result: the deadline in force
    # has passed. A final of an earlier deadline is history, on /final.
    return host.page(
        request, "home.html", tables=tables, live=True, finals=_finals(host, history=False)
    )


def board(request: Request) -> Response:
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
    voided, hidden = host.accounts.voided(), host.accounts.hidden()
    ratings = []
    for (variant, players), live in host.boards.items():
        for row in ladder_rows(live.rows(host.store, voided), hidden):
            if row["bot"] in labels:
                ratings.append({"variant": variant, "players": players, **row})
    return host.page(
        request, "bot.html", key=key, owner=versions[0]["owner"], versions=versions,
        ratings=ratings, live=True,
    )  # fmt: skip


def match_page(request: Request) -> Response:
    host = host_of(request)
    user = signed_in(request)
    found = competition_match(host, request.path_params["match_id"])
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


def competition_match(host: Host, match_id: int) -> tuple[Any, list[str | None]] | None:
    """A match of this competition and each seat's owner (None: not a participant's)."""
    result = host.store.match_result(match_id)
    names = {host.competition.ladder_name(*b) for b in host.competition.boards}
    for variant, players in host.competition.boards:
        rounds = host.accounts.final_rounds(f"{variant}-{players}p")
        names |= {host.competition.final_name(variant, players, r.number) for r in rounds}
        names.add(host.competition.final_name(variant, players))
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
    found = competition_match(host, request.path_params["match_id"])
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


async def events(request: Request) -> Response:
    """Server-sent events: ``change`` when the stores' files change (a match landed, a
    validation finished); bounded in time and in number of streams. The same stream for
    the competition and for the local mode (``arena serve``): both watch a data folder."""
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
            while time.monotonic() < deadline and not host.stopping.is_set():
                now = signature(host.data_dir)
                if now != seen:
                    seen = now
                    yield f"id: {now}\nevent: change\ndata: 1\n\n"
                await asyncio.sleep(EVENT_SECONDS)
        finally:
            host.streams -= 1

    # The type alone: an event stream is UTF-8 by definition (no charset parameter).
    return StreamingResponse(stream(), headers={"content-type": "text/event-stream"})


def static(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in ("style.css", "live.js", "host.css"):
        return PlainTextResponse("not found", status_code=404)
    return FileResponse(STATIC / name)


async def not_found(request: Request, exc: Exception) -> Response:
    return PlainTextResponse("not found", status_code=404)
