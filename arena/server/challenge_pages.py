"""Challenge pages: the form on a board's page, making a challenge (its quotas), and a
challenge's result (head-to-head with 95% intervals, and a sequential verdict when
asked for). Who sees a challenge is ``access.sees_challenge``."""

from __future__ import annotations

import datetime
import math
import time
from dataclasses import dataclass
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from arena.server import access
from arena.server.accounts import User
from arena.server.challenges import board_name, deals_for, head_to_head, quota, verdict
from arena.server.host import Host, host_of, log, needs_user, signed_in
from arena.server.web import form_of
from arena.tournament.results import MatchResult
from arena.tournament.sprt import Hypotheses

MAX_ELO1 = 1000.0


def choices(host: Host, user: User, variant: str, players: int) -> dict[str, Any]:
    """What the challenge form on a board's page offers ``user``: their versions that
    play the board, and every opponent they may choose (others' versions, built-in bots)."""
    pool = host.accounts.playing(board_name(variant, players))
    return {
        "mine": sorted(bot for bot, owner in pool.items() if user.speaks_for(owner)),
        "theirs": sorted(bot for bot, owner in pool.items() if not user.speaks_for(owner)),
        "builtin": list(host.competition.challenges.builtin),
        "max_games": host.competition.challenges.max_games,
        "opponents": players - 1,
        "ranked": host.competition.challenges.ranked,
    }


class Refused(ValueError):
    """A challenge that cannot be made as asked; the message says what to change."""


@dataclass(frozen=True)
class Asked:
    """A challenge form, checked: the board, the bots (the challenger's first), their
    owners ('' for a built-in bot), the games, H1 of a sequential test, whether ranked."""

    board: str
    bots: list[str]
    owners: list[str]
    games: int
    elo1: float | None
    ranked: bool


def _checked(host: Host, user: User, form: Any) -> Asked:
    """A challenge form's request, each part checked; ``Refused`` in one line otherwise."""
    if host.deadline.closed():
        raise Refused("challenges are closed: the final is being played")
    board = str(form.get("board", ""))
    found = next((b for b in host.competition.boards if board_name(*b) == board), None)
    if found is None:
        raise Refused("no such board")
    variant, players = found
    pool = host.accounts.playing(board)
    mine = str(form.get("bot", ""))
    if not user.speaks_for(pool.get(mine)):
        raise Refused(f"choose one of your bots that plays the {variant} {players}p board")
    opponents = [str(o) for o in form.getlist("opponent") if str(o)]
    if len(opponents) != players - 1:
        raise Refused(f"choose {players - 1} opponent{'s' if players > 2 else ''}")
    if len(set(opponents)) != len(opponents) or mine in opponents:
        raise Refused("choose each opponent once, and none of them your own bot")
    owners = [user.name]
    builtin = host.competition.challenges.builtin
    for bot in opponents:
        if bot in builtin:
            owners.append("")
        elif bot in pool and not user.speaks_for(pool[bot]):
            owners.append(pool[bot])
        else:
            raise Refused(
                f"{bot[:64]} is not an opponent on this board: choose another participant's "
                f"bot that plays it, or a built-in bot ({', '.join(builtin)})"
            )
    most = host.competition.challenges.max_games
    try:
        games = int(str(form.get("games", "")))
    except ValueError:
        raise Refused(f"games: a whole number from 1 to {most}") from None
    if not 1 <= games <= most:
        raise Refused(f"games: a whole number from 1 to {most}")
    games = deals_for(games, players) * players  # whole deals: every seat rotation
    if games > most:
        games -= players
    if games < players:
        raise Refused(f"games: at least {players} (one deal in each seat rotation)")
    elo1 = None
    if form.get("verdict") == "1":
        try:
            elo1 = float(str(form.get("elo1", "")))
        except ValueError:
            raise Refused("elo1: a number of Elo, e.g. 50") from None
        if not (math.isfinite(elo1) and 0 < elo1 <= MAX_ELO1):
            raise Refused(f"elo1: more than 0 and at most {MAX_ELO1:g} Elo")
    ranked = str(form.get("ranked", "")) not in ("", "0")  # the box sends 1
    if ranked:
        _check_ranked(host, owners, elo1)
    return Asked(board, [mine, *opponents], owners, games, elo1, ranked)


def _check_ranked(host: Host, owners: list[str], elo1: float | None) -> None:
    """A ranked challenge: allowed by the competition file, against participants' bots
    (the board rates theirs only), every deal played (a test's early stop would choose
    which games the board rates)."""
    if not host.competition.challenges.ranked:
        raise Refused(
            "ranked: this competition plays challenges unranked only (its file does not set "
            "[challenges] ranked = true): untick ranked"
        )
    if "" in owners[1:]:
        raise Refused(
            "ranked: a ranked challenge is against other participants' bots only (built-in "
            "bots are on no board): choose participants' bots, or untick ranked"
        )
    if elo1 is not None:
        raise Refused(
            "ranked: a ranked challenge plays every deal, without a sequential verdict: "
            "untick one of them"
        )


@needs_user
def challenge_new(request: Request, host: Host, user: User) -> Response:
    """Make a challenge from the form; 429 with when the next is allowed over a quota."""
    try:
        asked = _checked(host, user, form_of(request))
    except Refused as error:
        log.info("challenge by %s refused: %s", user.name, error)
        return host.refuse(request, 400, f"refused: {error}")
    board, bots, owners, games = asked.board, asked.bots, asked.owners, asked.games
    now = time.time()
    recent = host.accounts.challenges(user, since=now - 86400)
    sides = {owner or f"builtin:{bot}" for bot, owner in zip(bots[1:], owners[1:], strict=True)}
    refusal = quota(host.competition, user.name, recent, sides - {user.name}, games, now)
    if refusal is not None:
        when = datetime.datetime.fromtimestamp(refusal.at, datetime.UTC)
        wait = max(1, math.ceil(refusal.at - now))
        message = (
            f"refused: {refusal.message}: your next challenge of {games} games is allowed at "
            f"{when:%Y-%m-%d %H:%M:%S} UTC (in {_duration(wait)})"
        )
        log.info("challenge by %s refused: %s", user.name, refusal.message)
        answer = host.refuse(request, 429, message)
        answer.headers["Retry-After"] = str(wait)
        return answer
    challenge_id = host.accounts.add_challenge(
        user, board, bots, owners, games, asked.elo1, asked.ranked
    )
    log.info(
        "challenge %d by %s: %s, %d games, %s", challenge_id, user.name, " v ".join(bots), games,
        "ranked" if asked.ranked else "unranked",
    )  # fmt: skip
    return RedirectResponse(f"/challenges/{challenge_id}", status_code=303)


def _duration(seconds: int) -> str:
    if seconds < 120:
        return f"{seconds} seconds"
    if seconds < 7200:
        return f"{seconds // 60} minutes"
    return f"{seconds // 3600} hours {seconds % 3600 // 60} minutes"


def _played(host: Host, record: dict[str, Any], variant: str, players: int) -> list[MatchResult]:
    """A challenge's games so far, indexed from 0: its own tournament's, or a ranked
    one's among its board's ladder matches."""
    if not record["ranked"]:
        return host.store.results(host.competition.challenge_name(record["id"]), details=False)
    start = record["ladder_start"]
    if start is None:  # not planned yet
        return []
    ladder = host.competition.ladder_name(variant, players)
    found = host.store.tournament_range(ladder, start, record["games"])
    return [msgspec.structs.replace(r, idx=r.idx - start) for r in found]


def challenge_page(request: Request) -> Response:
    host = host_of(request)
    user = signed_in(request)
    record = host.accounts.challenge(request.path_params["challenge_id"])
    if record is None or not access.sees_challenge(user, record):
        return host.refuse(request, 404, "no such challenge")
    variant, _, count = record["board"].rpartition("-")
    players = int(count.rstrip("p"))
    results = _played(host, record, variant, players)
    rows = head_to_head(results, record["bots"], players)
    decided, bounds = None, (0.0, 0.0)
    if record["elo1"] is not None:
        decided = verdict(results, record["bots"], players, record["elo1"])
        hypotheses = Hypotheses(0.0, record["elo1"])
        bounds = (hypotheses.lower, hypotheses.upper)
    return host.page(
        request, "challenge.html", c=record, variant=variant, players=players, rows=rows,
        verdict=decided, bounds=bounds, results=sorted(results, key=lambda r: r.idx),
        live=record["status"] == "queued",
    )  # fmt: skip
