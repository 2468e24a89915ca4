"""A competition board as a state that matches fold into, saved as it grows, so that a
server started on a million stored matches rates the few after its newest checkpoint,
not every one.

A ``Folded`` is one ladder's board after its stored matches up to ``position`` (match
ids sort in rating order), ``seen`` of them, less the ``voided`` ones up to there. It is
sound for the store as long as the tournament still holds exactly ``seen`` matches up to
``position`` (none landed below it since: a wave's matches land in any order) and the
admin's voids up to ``position`` are still ``voided``. ``resume`` starts from the newest
stored checkpoint that is sound (a void falls back to the one before the voided match;
none: an empty board) and folds in what follows; the result is the board of a full
recompute, bit for bit (``leaderboards.standings`` keeps TrueSkill's exact numbers).

Kept in the store (``board_checkpoints``): the newest ``RECENT`` and, further back, the
first of every ``MILESTONE`` matches, so a void of an old match refolds from near it.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field

from arena.tournament.results import MatchResult
from arena.tournament.store import ResultsStore
from leaderboards.standings import Board, model_key

RECENT = 5  # newest checkpoints kept per board
MILESTONE = 10_000  # further back: one per this many matches


@dataclass
class Folded:
    """A board after the tournament's stored matches up to ``position``."""

    board: Board = field(default_factory=Board)
    position: int = 0
    seen: int = 0  # stored matches up to position, voided ones included
    rated: int = 0  # of which folded in (not voided)
    voided: frozenset[int] = frozenset()  # voided ids up to position, left out

    def add(self, match: MatchResult, voided: set[int] | frozenset[int]) -> None:
        if match.match_id in voided:
            self.voided = self.voided | {match.match_id}
        else:
            self.board.add(match)
            self.rated += 1
        self.position = match.match_id
        self.seen += 1

    def copy(self) -> Folded:
        """An independent copy (cheap: ratings are immutable, tallies are short lists)."""
        board = Board(self.board.model)
        board.ratings = dict(self.board.ratings)
        board.tallies = {bot: list(tally) for bot, tally in self.board.tallies.items()}
        return Folded(board, self.position, self.seen, self.rated, self.voided)

    def holds(self, voided: Iterable[int]) -> bool:
        """Whether the voids up to its position are still the ones it left out."""
        return self.voided == frozenset(v for v in voided if v <= self.position)


def to_state(folded: Folded) -> bytes:
    data = {"board": folded.board.to_json(), "rated": folded.rated}
    return zlib.compress(json.dumps(data, separators=(",", ":")).encode())


def from_state(state: bytes) -> tuple[Board, int]:
    """The board and rated count a state holds; ValueError if it is not one."""
    try:
        data = json.loads(zlib.decompress(state))
        board = Board.from_json(data["board"])
        rated = int(data["rated"])
    except (zlib.error, KeyError, TypeError, AttributeError, ValueError) as error:
        raise ValueError(f"not a board state ({error})") from None
    return board, rated


def digest(state: bytes) -> str:
    return hashlib.sha256(state).hexdigest()


def stored_start(store: ResultsStore, tournament_id: int, total: int, voided: set[int]) -> Folded:
    """The newest stored checkpoint of the board that is sound now (see the module's
    docstring), or an empty board. Call inside ``store.read_snapshot()``."""
    for position, seen, left_out in store.board_checkpoints(tournament_id):
        if frozenset(left_out) != frozenset(v for v in voided if v <= position):
            continue  # a void (or its undoing) since: an earlier one
        if total - store.matches_after(tournament_id, position) != seen:
            continue
        found = store.board_checkpoint(tournament_id, position)
        if found is None or found[0] != model_key() or digest(found[1]) != found[2]:
            continue
        try:
            board, rated = from_state(found[1])
        except ValueError:
            continue
        return Folded(board, position, seen, rated, frozenset(left_out))
    return Folded()


def resume(store: ResultsStore, tournament_id: int, voided: set[int]) -> tuple[Folded, int]:
    """The board of every stored match of the tournament but the voided ones, from its
    newest sound checkpoint; and how many matches were folded in to get it."""
    with store.read_snapshot():
        total = store.tournament_count(tournament_id)
        folded = stored_start(store, tournament_id, total, voided)
        new = store.tournament_results_after_id(tournament_id, folded.position)
    for match in new:
        folded.add(match, voided)
    return folded, len(new)


def kept(stored: list[tuple[int, int]]) -> list[int]:
    """Of the stored ``(position, matches)``, newest first: the positions to keep."""
    keep = [position for position, _ in stored[:RECENT]]
    buckets: dict[int, int] = {}
    for position, count in stored[RECENT:]:
        buckets[count // MILESTONE] = position  # the oldest of its bucket (last seen)
    return keep + list(buckets.values())


def save(store: ResultsStore, tournament_id: int, folded: Folded) -> bool:
    """Keep ``folded`` as the board's newest checkpoint (if still sound), thinning older ones."""
    state = to_state(folded)
    return store.save_board_checkpoint(
        tournament_id, folded.position, folded.seen, sorted(folded.voided), model_key(),
        state, digest(state), kept,
    )  # fmt: skip
