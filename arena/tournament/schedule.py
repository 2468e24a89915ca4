"""Which matches a tournament plays, fixed entirely by its spec and seed.

Round robin: every group of bots of each player count (but those of two bots the spec
keeps ``apart``: one team's in a hosted final), in every cyclic seat
rotation (so each bot sits in each seat equally often), ``games`` times, each
game with its own seed. Duplicate: the same, but all rotations of a group
share one deal (seed), so the luck of the draw cancels out. The ladder is
scheduled in waves from the ratings so far (``ladder.py``); a sequential test
(``sprt``) in deal groups, as many as its stopping rule asks for
(``sprt_groups``).
"""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the store reads MatchSpec without the spec's imports
    from arena.tournament.spec import TournamentSpec


@dataclass(frozen=True)
class MatchSpec:
    """One game to play: its place in the schedule, its seed and who sits where."""

    index: int
    seed: int
    bots: tuple[str, ...]  # by seat

    @property
    def players(self) -> int:
        return len(self.bots)


def derive_seed(tournament_seed: int, *parts: object) -> int:
    """A 63-bit game seed from the tournament seed and a label: stable everywhere."""
    text = ":".join(str(p) for p in (tournament_seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def rotations(group: tuple[str, ...]) -> list[tuple[str, ...]]:
    return [group[i:] + group[:i] for i in range(len(group))]


def fixed_schedule(spec: TournamentSpec) -> list[MatchSpec]:
    """The complete list of matches of a round robin or duplicate tournament (no group
    with two bots of one ``apart`` group)."""
    matches: list[MatchSpec] = []
    side = spec.sides()
    for count in spec.players:
        for group in itertools.combinations(spec.bots, count):
            if len({side[bot] for bot in group}) < count:
                continue
            for game in range(spec.games):
                deal = derive_seed(spec.seed, count, "|".join(group), game)
                for turn, seating in enumerate(rotations(group)):
                    seed = deal if spec.format == "duplicate" else derive_seed(deal, turn)
                    matches.append(MatchSpec(len(matches), seed, seating))
    return matches


def sprt_groups(spec: TournamentSpec, first: int, count: int) -> list[MatchSpec]:
    """Deal groups ``first`` .. ``first + count - 1`` of a sequential test: group ``g`` is
    one deal played in each seat rotation of (NEW, BASE, opponents...), at indices
    ``g * players + rotation``."""
    (players,) = spec.players
    matches = []
    for group in range(first, first + count):
        deal = derive_seed(spec.seed, "sprt", group)
        for turn, seating in enumerate(rotations(spec.bots)):
            matches.append(MatchSpec(group * players + turn, deal, seating))
    return matches


def sprt_roles(index: int, players: int) -> tuple[int, ...]:
    """Who sits where in match ``index`` of a sequential test, by role (0 NEW, 1 BASE, then
    the opponents): rotation ``index % players`` of the roles."""
    turn = index % players
    return tuple((seat + turn) % players for seat in range(players))
