"""Challenges: a participant's games against opponents of their choice on a board.

A challenge is a tournament of its own (``COMPETITION-challenge-ID``), never a board's:
its games move no rating. It is played on duplicate deals (each deal in every seat
rotation, ``arena.tournament.schedule``), or, when a verdict is asked for, as a
sequential test (the ``sprt`` format of ``arena test``: NEW is the challenger's bot,
BASE its first opponent). What it tells is head-to-head: the challenger's bot against
each opponent, its win rate and mean margin with 95% intervals over the deals.

Quotas come from the competition file's ``[challenges]`` table: games asked for per
participant over the last hour and per pair of participants (or a participant and a
built-in bot) over the last day; ``next_allowed`` says when the next is allowed.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena.server.competition import Competition
from arena.tournament import sprt
from arena.tournament.results import MatchResult
from arena.tournament.spec import TournamentSpec

HOUR = 3600.0
DAY = 86400.0


def board_name(variant: str, players: int) -> str:
    return f"{variant}-{players}p"


def deals_for(games: int, players: int) -> int:
    """Deals to play for ``games`` games: each deal is played once per seat rotation."""
    return max(1, math.ceil(games / players))


def challenge_spec(competition: Competition, record: dict[str, Any]) -> TournamentSpec:
    """The tournament a challenge plays: duplicate deals, or a sequential test."""
    variant, _, count = record["board"].rpartition("-")
    players = int(count.rstrip("p"))
    deals = deals_for(record["games"], players)
    common = {
        "name": competition.challenge_name(record["id"]),
        "variant": variant,
        "bots": tuple(record["bots"]),
        "players": (players,),
        "seed": sprt_seed(competition.seed, record["id"]),
        "time_control": competition.time_control,
    }
    if record["elo1"] is not None:
        hypotheses = sprt.Hypotheses(elo0=0.0, elo1=float(record["elo1"]))
        return TournamentSpec(format="sprt", games=deals * players, sprt=hypotheses, **common)
    return TournamentSpec(format="duplicate", games=deals, **common)


def sprt_seed(seed: int, challenge_id: int) -> int:
    """Each challenge its own deals (the competition's seed and the challenge's id)."""
    from arena.tournament.schedule import derive_seed

    return derive_seed(seed, "challenge", challenge_id)


# ---------------------------------------------------------------- quotas


def next_allowed(
    asked: Sequence[tuple[float, int]], games: int, limit: int, window: float, now: float
) -> float | None:
    """When ``games`` more games fit under ``limit`` games per ``window`` seconds, given
    the games ``asked`` (time, games) so far: None if now, else the time."""
    recent = sorted((at, n) for at, n in asked if at > now - window)
    used = sum(n for _, n in recent)
    if used + games <= limit:
        return None
    for at, n in recent:  # the oldest leave the window first
        used -= n
        if used + games <= limit:
            return at + window
    return now + window  # not reached: games <= limit is checked before


def opponents_of(user: str, challenge: dict[str, Any]) -> set[str]:
    """Whom ``user`` met in a challenge: its other participants and built-in bots
    (``builtin:NAME``), whoever made it."""
    sides = {
        owner or f"builtin:{bot}"
        for bot, owner in zip(challenge["bots"], challenge["owners"], strict=True)
    }
    return sides - {user} if user in sides else set()


@dataclass(frozen=True)
class Refusal:
    """A quota that refuses a challenge now: the message, and when the next is allowed."""

    message: str
    at: float


def quota(
    competition: Competition,
    user: str,
    recent: list[dict[str, Any]],
    opponents: set[str],
    games: int,
    now: float,
) -> Refusal | None:
    """Whether the quotas of ``[challenges]`` refuse ``games`` more games now (``recent``:
    the challenges of the last day that ``user`` made or met)."""
    table = competition.challenges
    mine = [(c["created_at"], c["games"]) for c in recent if c["owner"] == user]
    at = next_allowed(mine, games, table.games_per_hour, HOUR, now)
    if at is not None:
        return Refusal(f"at most {table.games_per_hour} challenge games an hour", at)
    for other in sorted(opponents):
        pair = [(c["created_at"], c["games"]) for c in recent if other in opponents_of(user, c)]
        at = next_allowed(pair, games, table.pair_games_per_day, DAY, now)
        if at is not None:
            who = other.removeprefix("builtin:")
            return Refusal(
                f"at most {table.pair_games_per_day} challenge games a day against {who}", at
            )
    return None


# ---------------------------------------------------------------- results


@dataclass(frozen=True)
class HeadToHead:
    """The challenger's bot against one opponent over the games played so far."""

    opponent: str
    games: int
    deals: int  # complete deals (every rotation played): what the intervals are over
    wins: int
    draws: int
    losses: int
    rate: float  # win rate, a draw counting half
    rate_low: float
    rate_high: float
    margin: float  # mean score difference, the challenger's minus the opponent's
    margin_low: float
    margin_high: float


def _interval(values: Sequence[float], low: float, high: float) -> tuple[float, float]:
    """A normal 95% interval on the mean of ``values`` (one per deal), kept in [low, high];
    with no spread yet, the widest a mean of that many values can honestly claim."""
    n = len(values)
    if n == 0:
        return low, high
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    if var == 0.0:
        var = ((high - low) / 2) ** 2  # as wide as one value could be: no false certainty
    half = sprt.Z95 * math.sqrt(var / n)
    return max(low, mean - half), min(high, mean + half)


def head_to_head(results: list[MatchResult], bots: Sequence[str], players: int) -> list[HeadToHead]:
    """The challenger's bot (``bots[0]``) against each other of ``bots``, from the
    challenge's results (a deal is ``idx // players``: its games, one per rotation)."""
    me, rows = bots[0], []
    for other in bots[1:]:
        per_deal: dict[int, list[tuple[float, float]]] = defaultdict(list)
        for result in results:
            a, b = result.bots.index(me), result.bots.index(other)
            outcome = sprt.head_to_head(result.ranks[a], result.ranks[b])
            per_deal[result.idx // players].append(
                (outcome, float(result.scores[a] - result.scores[b]))
            )
        games = [game for deal in per_deal.values() for game in deal]
        whole = [deal for deal in per_deal.values() if len(deal) == players]
        rates = [sum(o for o, _ in deal) / players for deal in whole]
        margins = [sum(m for _, m in deal) / players for deal in whole]
        rate_low, rate_high = _interval(rates, 0.0, 1.0)
        spread = max((abs(m) for _, m in games), default=1.0) or 1.0
        margin_low, margin_high = _interval(margins, -spread, spread)
        outcomes = [o for o, _ in games]
        rows.append(
            HeadToHead(
                opponent=other,
                games=len(games),
                deals=len(whole),
                wins=outcomes.count(1.0),
                draws=outcomes.count(0.5),
                losses=outcomes.count(0.0),
                rate=sum(outcomes) / len(outcomes) if outcomes else 0.0,
                rate_low=rate_low,
                rate_high=rate_high,
                margin=sum(m for _, m in games) / len(games) if games else 0.0,
                margin_low=margin_low,
                margin_high=margin_high,
            )
        )
    return rows


def verdict(
    results: list[MatchResult], bots: Sequence[str], players: int, elo1: float
) -> sprt.Verdict:
    """The sequential test's verdict (H0: 0 Elo, H1: ``elo1``) from the complete deals in
    order, NEW the challenger's bot (``bots[0]``) and BASE its first opponent, as
    ``arena test`` reads it (later deals, played ahead by a wave, do not change it)."""
    by_index = {r.idx: r for r in results}
    scores = []
    for deal in range(max(by_index, default=-1) // players + 1):
        games = [by_index.get(deal * players + turn) for turn in range(players)]
        if any(game is None for game in games):
            break
        scores.append(
            sprt.group_score(
                [(g.ranks[g.bots.index(bots[0])], g.ranks[g.bots.index(bots[1])])
                 for g in games if g is not None]
            )
        )  # fmt: skip
    return sprt.sequential(scores, sprt.Hypotheses(0.0, elo1), players)
