"""Who sees what, decided here and nowhere else.

A participant sees their own submissions (code, validation reason and stderr,
versions) and their own bots' per-match stderr logs, and the challenges they made or
whose opponents include one of their bots; a team's members see each other's as their
own (``User.speaks_for``: the one rule, used by every check here); everyone sees names,
ratings and what the competition file makes public (replays, bot pages); an
admin sees everything. A page refused for privacy answers 404, as if the thing
did not exist, so ids cannot be probed.
"""

from __future__ import annotations

from typing import Any

from arena.server.accounts import User
from arena.server.competition import Competition


def owns(user: User | None, owner: str | None) -> bool:
    """What ``owner`` sees of their own bots: theirs, their team's and admins'."""
    return user is not None and (user.admin or user.speaks_for(owner))


def sees_submission(user: User | None, submission: dict[str, Any]) -> bool:
    """Code, validation reason and stderr, versions: the owner's (and their team's) and
    admins' only."""
    return owns(user, submission["owner"])


def sees_replays(user: User | None, competition: Competition) -> bool:
    """Match pages (moves and results, never another's stderr) as the file allows;
    ``owners``: only matches the visitor's bots played (checked with ``plays_in``)."""
    return competition.visibility.replays == "public" or user is not None


def plays_in(user: User | None, owners: list[str | None]) -> bool:
    return user is not None and (user.admin or any(user.speaks_for(o) for o in owners))


def sees_match(
    user: User | None, competition: Competition, owners: list[str | None], practice: bool = False
) -> bool:
    """A match's page, replay and log (each filtered to what ``user`` may see of it:
    ``arena.server.replays``), as ``[visibility] replays`` allows; a person's game
    against bots (``practice``: ``/play``) is its player's and the admins' only."""
    if practice:
        return plays_in(user, owners)
    if not sees_replays(user, competition):
        return False
    return competition.visibility.replays != "owners" or plays_in(user, owners)


def sees_bundle(user: User | None, owners: list[str | None], practice: bool = False) -> bool:
    """A finished match's bundle (``arena replay --reproduce``): the owners of its seats'
    bots and admins only. It holds the game's seed, from which every hand and ticket of
    that game follows, so it tells more than the match page shows anyone but an admin;
    a participant needs it to play their bot's game again. Never a person's game
    (``practice``): a person is not a bot to replay."""
    return not practice and plays_in(user, owners)


def sees_bot_pages(user: User | None, competition: Competition) -> bool:
    return competition.visibility.bot_pages == "public" or user is not None


def sees_fault_reason(user: User | None, owner: str | None) -> bool:
    """The error line a forfeiting seat's stderr names (read from its log): the bot's owner's
    and admins' only, as its stderr is; others see the fault code and the referee's words."""
    return owns(user, owner)


def sees_challenge(user: User | None, challenge: dict[str, Any]) -> bool:
    """A challenge's page: its challenger's, the owners' of the bots it challenged, and
    admins'. Nobody else's: a challenge is a participant's practice (they may try a new
    bot against a chosen rival before ranking it), and its games move no rating, so the
    boards lose nothing by it staying private. A team's members see their team's."""
    return plays_in(user, [challenge["owner"], *challenge["owners"]])
