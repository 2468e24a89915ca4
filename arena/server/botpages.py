"""A bot's page (every match it played, paged and filtered; win rates and margins with their
intervals; its rating over time; its faults in words) and a participant's dashboard (each of
their bots at a glance). Who sees what is ``arena.server.access``: a fault's error line is
its owner's; a match is linked only for those who may open it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import Response

from arena.referee.faults import FAULT_CODES
from arena.server import access
from arena.server.accounts import User
from arena.server.botstats import Sums
from arena.server.charts import rating_chart
from arena.server.finals import ladder_rows
from arena.server.host import Host, host_of, signed_in
from arena.server.seatlogs import fault_reason
from arena.tournament.store import BotFilter

PER_PAGE = 20  # matches a page lists unless ``per`` says otherwise
MAX_PER_PAGE = 100
MAX_PAGE = 10_000_000
RESULTS = {"won": True, "lost": False}  # won: ranked first (alone or tied)


@dataclass(frozen=True)
class Board:
    """A ladder or a final of the competition, as the bot page names and filters it."""

    slug: str  # in the URL: usa-2p, final-usa-2p
    title: str
    tournament: str


def competition_boards(host: Host) -> list[Board]:
    found = []
    for variant, players in host.competition.boards:
        slug = f"{variant}-{players}p"
        ladder = host.competition.ladder_name(variant, players)
        final = host.competition.final_name(variant, players)
        found.append(Board(slug, f"{variant} {players}p", ladder))
        found.append(Board(f"final-{slug}", f"final {variant} {players}p", final))
    return found


class BadQuery(ValueError):
    """A query parameter out of range; the message says which and what it may be."""


@dataclass(frozen=True)
class Listing:
    """Which page of which of a bot's matches to show."""

    page: int = 1
    per: int = PER_PAGE
    board: Board | None = None
    opponent: str | None = None  # a bot's key
    result: str | None = None
    fault: str | None = None

    def link(self, **change: Any) -> str:
        """This listing's query string with ``change`` applied (None: left out)."""
        fields = {
            "board": self.board.slug if self.board else None,
            "opponent": self.opponent,
            "result": self.result,
            "fault": self.fault,
            "per": self.per if self.per != PER_PAGE else None,
            "page": self.page,
        }
        fields.update(change)
        shown = {k: v for k, v in fields.items() if v is not None and not (k == "page" and v == 1)}
        return "?" + str(QueryParams(shown)) if shown else "?"


def listing(params: QueryParams, boards: list[Board], keys: set[str]) -> Listing:
    """The listing a query asks for; BadQuery for a value out of range."""
    page = _number(params.get("page"), "page", 1, MAX_PAGE, 1)
    per = _number(params.get("per"), "per", 1, MAX_PER_PAGE, PER_PAGE)
    board = None
    if params.get("board"):
        board = next((b for b in boards if b.slug == params["board"]), None)
        if board is None:
            raise BadQuery(f"board: one of {', '.join(b.slug for b in boards)}")
    opponent = params.get("opponent") or None
    if opponent is not None and opponent not in keys:
        raise BadQuery("opponent: no bot of that name plays here")
    result = params.get("result") or None
    if result is not None and result not in RESULTS:
        raise BadQuery("result: won or lost")
    fault = params.get("fault") or None
    if fault is not None and fault not in ("yes", "no", *FAULT_CODES):
        raise BadQuery(f"fault: yes, no or a code ({', '.join(FAULT_CODES)})")
    return Listing(page, per, board, opponent, result, fault)


def _number(text: str | None, name: str, low: int, high: int, default: int) -> int:
    if text is None or text == "":
        return default
    if not text.isdigit() or not low <= int(text) <= high:
        raise BadQuery(f"{name}: a whole number from {low} to {high:,}")
    return int(text)


def bot_page(request: Request) -> Response:
    host = host_of(request)
    user = signed_in(request)
    if not access.sees_bot_pages(user, host.competition):
        return host.refuse(request, 404, "no such bot")
    key = request.path_params["key"]
    submissions = host.accounts.submissions()
    versions = [s for s in submissions if s["key"] == key and s["version"]]
    if not versions:
        return host.refuse(request, 404, "no such bot")
    labels = [s["label"] for s in versions]
    owner = versions[0]["owner"]
    keys = {s["key"] for s in submissions if s["version"]}
    boards = competition_boards(host)
    try:
        chosen = listing(request.query_params, boards, keys - {key})
    except BadQuery as error:
        return host.refuse(request, 400, f"refused: {error}")
    opponents = None
    if chosen.opponent is not None:
        opponents = tuple(s["label"] for s in submissions if s["key"] == chosen.opponent)
    where = BotFilter(
        tournament=chosen.board.tournament if chosen.board else None,
        won=RESULTS.get(chosen.result or ""),
        fault=chosen.fault,
        opponents=opponents,
    )
    tournaments = [b.tournament for b in boards]
    total, found = host.store.bot_matches(
        labels, tournaments, where, chosen.per, (chosen.page - 1) * chosen.per
    )
    pages = max(1, -(-total // chosen.per))
    if chosen.page > pages:
        return host.refuse(request, 404, f"no such page: this list has {pages}")
    voided = host.accounts.voided()
    matches = shown_matches(host, user, found, boards, voided)
    ratings, charts = ratings_of(host, set(labels))
    per_board, per_opponent = statistics(host, labels, boards, voided)
    return host.page(
        request, "bot.html", key=key, owner=owner, versions=versions, ratings=ratings,
        charts=charts, matches=matches, total=total, pages=pages, chosen=chosen,
        board_list=boards, opponents=sorted(keys - {key}), fault_codes=FAULT_CODES,
        per_board=per_board, per_opponent=per_opponent, is_owner=access.owns(user, owner),
        flags=host.faults.flags_of(host, owner, key) if user and user.speaks_for(owner) else [],
    )  # fmt: skip


def shown_matches(
    host: Host,
    user: User | None,
    found: list[dict[str, Any]],
    boards: list[Board],
    voided: set[int],
) -> list[dict[str, Any]]:
    """A page of a bot's matches as shown: its seat, result, opponents, fault (with the error
    line for its owner), and a link when the visitor may open the match."""
    owners = host.accounts.owners()
    titles = {b.tournament: b.title for b in boards}
    shown = []
    for match in found:
        seats = match["seats"]
        mine = seats[match["seat"]]
        seat_owners = [owners.get(s["bot"]) for s in seats]
        fault = mine["fault"]
        detail = None
        if fault and access.sees_fault_reason(user, seat_owners[match["seat"]]):
            detail = fault_reason(
                host, match["match_id"], match["seat"], fault, mine["fault_detail"]
            )
        shown.append(
            {
                "match_id": match["match_id"],
                "board": titles.get(match["tournament"], match["tournament"]),
                "idx": match["idx"],
                "seat": match["seat"],
                "bot": mine["bot"],
                "score": mine["score"],
                "rank": mine["rank"],
                "players": match["players"],
                "result": "won" if mine["rank"] == 1 else "lost",
                "fault": fault,
                "detail": detail,
                "opponents": [s for s in seats if s["seat"] != match["seat"]],
                "link": access.sees_match(user, host.competition, seat_owners),
                "voided": match["match_id"] in voided,
            }
        )
    return shown


def ratings_of(host: Host, labels: set[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The bot's versions' rows on each ladder board, and the chart of each one's rating."""
    voided, hidden = host.accounts.voided(), host.accounts.hidden()
    ratings, charts = [], []
    for (variant, players), live in host.boards.items():
        for row in ladder_rows(live.rows(host.store, voided), hidden):
            if row["bot"] in labels:
                ratings.append({"variant": variant, "players": players, **row})
                history = live.rating_history(row["bot"])
                charts.append(
                    {
                        "variant": variant,
                        "players": players,
                        "bot": row["bot"],
                        "svg": rating_chart(history, row["bot"]),
                    }
                )
    return ratings, charts


def statistics(
    host: Host, labels: list[str], boards: list[Board], voided: set[int]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Win rate and mean margin with 95% intervals, per board and per board and opponent."""
    ids = host.store.tournament_ids([b.tournament for b in boards])
    per_id, per_pair = host.tallies.tallies(host.store, labels, list(ids.values()), voided)
    titles = {b.tournament: b for b in boards}
    per_board = []
    for tournament_id, sums in sorted(per_id.items()):
        board = titles.get(ids.get(tournament_id, ""))
        if board is not None and sums.n > 0:
            per_board.append({"board": board, **sums.shown()})
    merged: dict[tuple[int, str], Sums] = {}
    for (tournament_id, opponent), sums in per_pair.items():
        total = merged.setdefault((tournament_id, opponent.rpartition("@")[0]), Sums())
        total.add(sums.n, sums.wins, sums.margin, sums.square)
    per_opponent = []
    for (tournament_id, opponent), sums in sorted(merged.items()):
        board = titles.get(ids.get(tournament_id, ""))
        if board is not None and sums.n > 0:
            per_opponent.append({"board": board, "opponent": opponent, **sums.shown()})
    return per_board, per_opponent


DASHBOARD_MATCHES = 5
DASHBOARD_FAULTS = 3


def dashboard(host: Host, user: User) -> list[dict[str, Any]]:
    """Each of the participant's bots: its boards with rank and rating, its last matches
    and its recent faults (with their error lines: they are the owner's)."""
    versions: dict[str, list[dict[str, Any]]] = {}
    for s in host.accounts.submissions(user):
        if s["version"]:
            versions.setdefault(s["key"], []).append(s)
    boards = competition_boards(host)
    tournaments = [b.tournament for b in boards]
    voided = host.accounts.voided()
    bots = []
    for key, mine in versions.items():
        labels = [s["label"] for s in mine]
        ratings, _ = ratings_of(host, set(labels))
        _, last = host.store.bot_matches(labels, tournaments, BotFilter(), DASHBOARD_MATCHES, 0)
        _, faults = host.store.bot_matches(
            labels, tournaments, BotFilter(fault="yes"), DASHBOARD_FAULTS, 0
        )
        bots.append(
            {
                "key": key,
                "playing": [s["label"] for s in mine if s["active"] and not s["disabled"]],
                "ratings": ratings,
                "last": shown_matches(host, user, last, boards, voided),
                "faults": shown_matches(host, user, faults, boards, voided),
            }
        )
    return bots
