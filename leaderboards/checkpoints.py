"""Rating checkpoints: the leaderboards of a variant saved after a prefix of its matches,
so a new match costs one TrueSkill update instead of a pass over every match.

The store keeps, per variant, the newest checkpoint and one every ``SPACING``
matches (the newest ``RECENT`` of those, older ones every ``SPARSE``-th). To
answer, the newest checkpoint that is sound is taken and the matches stored
after it are folded in, in rating order (``leaderboards.standings``); then the
result (and any milestone passed on the way) is saved for next time.

Checkpoints hold the default view of the boards: rankings, without tests (``arena
test``) and people's games (``arena.tournament.views``); the view that includes
tests (``--include-tests``) is a full recompute each time, so no checkpoint is ever
read for a view it was not made for.

Sound means: made with the same rating model and state format, its bytes match
their digest, it decodes, and the store still holds exactly as many of the view's
matches of the variant up to its position as it says (a checkpoint that counted
tests or people's games does not: their matches are not in that count). The store's triggers drop
every checkpoint at or after a match that is added, removed or changed
(``arena.tournament.store``), so a resumed tournament filling an earlier gap
falls back to the checkpoint before the gap, and a deleted tournament to the one
before its first match. A damaged or unusable checkpoint is skipped (and dropped
when the store can be written); with none left, it is a full recompute. A store
that cannot be written (archived, read-only, an older schema read as it is)
answers the same way and keeps what it has. In every case the boards are those
of a full recompute, bit for bit.
"""

from __future__ import annotations

import copy
import hashlib
from bisect import bisect_right
from collections.abc import Iterable, Sequence

from arena.tournament.ratings import DEFAULT_MODEL
from arena.tournament.results import MatchResult
from arena.tournament.store import ResultsStore, StoredCheckpoint
from leaderboards.standings import Standings, model_key

SPACING = 1_000  # a milestone checkpoint every SPACING matches of a variant
RECENT = 20  # milestones kept at full density
SPARSE = 10  # older milestones: every SPARSE-th


def digest(state: bytes) -> str:
    return hashlib.sha256(state).hexdigest()


def to_checkpoint(standings: Standings) -> StoredCheckpoint:
    state = standings.to_bytes()
    return StoredCheckpoint(
        standings.variant,
        standings.position,
        standings.matches,
        model_key(),
        state,
        digest(state),
    )


def from_checkpoint(checkpoint: StoredCheckpoint) -> Standings | None:
    """The standings a stored checkpoint holds, or None if it is not sound by itself."""
    if checkpoint.model != model_key() or digest(checkpoint.state) != checkpoint.digest:
        return None
    try:
        standings = Standings.from_bytes(checkpoint.state)
    except ValueError:
        return None
    held = (standings.variant, standings.position, standings.matches)
    if held != (checkpoint.variant, checkpoint.position, checkpoint.matches):
        return None
    return standings


def newest_sound(
    store: ResultsStore,
    variant: str,
    stored: Sequence[tuple[int, int]],
    leave_out: Sequence[int],
) -> tuple[Standings, list[tuple[str, int]]]:
    """The newest sound one of the ``stored`` checkpoints of ``variant`` (``(position,
    matches)``, newest first; empty standings if none is), and the ``(variant, position)``
    of the unsound ones met on the way. ``leave_out``: the tournaments the default view
    leaves out (``store.left_out()``). Call inside ``store.read_snapshot()``."""
    unsound: list[tuple[str, int]] = []
    for position, count in stored:
        if store.matches_up_to(variant, position, leave_out) == count:
            found = store.rating_checkpoint(variant, position)
            standings = from_checkpoint(found) if found is not None else None
            if standings is not None:
                return standings, unsound
        unsound.append((variant, position))
    return Standings(variant), unsound


def fold(standings: Standings, matches: Iterable[MatchResult]) -> list[StoredCheckpoint]:
    """Fold ``matches`` into ``standings``; the checkpoints worth saving on the way (each
    milestone passed, and the end; none when there was nothing to fold)."""
    saved = []
    start = standings.position
    for match in matches:
        standings.add(match)
        if standings.matches % SPACING == 0:
            saved.append(to_checkpoint(standings))
    moved = standings.position != start
    if moved and (not saved or saved[-1].position != standings.position):
        saved.append(to_checkpoint(standings))
    return saved


def kept(count: int, milestones_after: int) -> bool:
    """Whether a milestone at ``count`` matches stays when ``milestones_after`` newer ones
    exist: dense for the newest RECENT, then every SPARSE-th."""
    return milestones_after < RECENT or count % (SPACING * SPARSE) == 0


def to_drop(
    variant: str,
    stored: Sequence[tuple[int, int]],
    new: Sequence[StoredCheckpoint],
    newest: int,
) -> list[tuple[str, int]]:
    """The stored checkpoints (``(position, matches)``) that saving ``new`` makes surplus:
    every one that is not a milestone, and milestones thinned out by age; never the one
    at ``newest`` (the state just computed)."""
    everything = sorted({*stored, *((c.position, c.matches) for c in new)}, reverse=True)
    drop, milestones = [], 0
    for position, count in everything:
        if position == newest:
            continue
        if count % SPACING == 0:
            if not kept(count, milestones):
                drop.append((variant, position))
            milestones += 1
        else:
            drop.append((variant, position))
    return drop


def current_standings(
    store: ResultsStore, variant: str, model: str = DEFAULT_MODEL, include_tests: bool = False
) -> Standings:
    """The variant's standings over its stored rankings (and tests, with ``include_tests``):
    the newest sound checkpoint plus the matches after it; what that computed is saved for
    next time where the store allows.

    Checkpoints are kept for the default rating model and view only: another model
    (``arena leaderboard --rating``) or the view with tests is a full recompute each time,
    the same boards by definition."""
    if model != DEFAULT_MODEL or include_tests:
        with store.read_snapshot():
            leave_out = store.left_out(include_tests)
            matches = store.results(variant=variant, details=False, leave_out=leave_out)
        standings = Standings(variant, model)
        standings.add_all(matches)
        return standings
    with store.read_snapshot():
        epoch = store.ratings_epoch()
        leave_out = store.left_out()
        stored = store.rating_checkpoints(variant)
        standings, unsound = newest_sound(store, variant, stored, leave_out)
        new = store.results_after(variant, standings.position, leave_out)
    saved = fold(standings, new)
    if epoch is not None and (saved or unsound):
        surplus = set(to_drop(variant, stored, saved, standings.position))
        keep = [c for c in saved if (variant, c.position) not in surplus]
        store.save_rating_checkpoints(keep, epoch, sorted(surplus.union(unsound)))
    return standings


def resumed(variant: str, matches: Sequence[MatchResult], starts: Iterable[Standings]) -> Standings:
    """Standings over ``matches`` (the variant's, in rating order, as read), resumed from
    the furthest of ``starts`` that holds exactly the listed matches up to its position
    (a stored checkpoint read with them, or the standings of an earlier read)."""
    ids = [m.match_id for m in matches]
    best = None
    for start in starts:
        holds_them = start.matches and bisect_right(ids, start.position) == start.matches
        if holds_them and (best is None or start.position > best.position):
            best = start
    standings = copy.deepcopy(best) if best is not None else Standings(variant)
    standings.add_all(matches[bisect_right(ids, standings.position) :])
    return standings
