"""Rating and board checkpoints: the leaderboards' state after a prefix of a variant's
matches (``leaderboards.checkpoints``) and a competition's board after a prefix of its
tournament (``arena.server.boardstate``), so a reader rates only what came after. Both are
caches, written through a short connection of their own and kept only if they still hold
exactly the matches stored up to their position."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from arena.tournament import views
from arena.tournament.results import MATCH_ID_STRIDE, MatchResult, match_id
from arena.tournament.storebase import StoreBase, translated
from arena.tournament.storeschema import SCHEMA_VERSION

# How many of a variant's matches sort at or before a position (a checkpoint's count): with
# the kept count (version 4), the count less the matches after it (the index's range after
# the position: what was stored since the checkpoint); without it (an older store read as
# it is), the range before it.
MATCHES_AFTER = "SELECT COUNT(*) FROM matches WHERE variant = ? AND id > ?"
VARIANT_COUNT = "SELECT matches FROM variant_counts WHERE variant = ?"
MATCHES_UP_TO = "SELECT COUNT(*) FROM matches WHERE variant = ? AND id <= ?"


# How many of a variant's matches of one tournament (an id range) sort at or before a position.
MATCHES_OF_UP_TO = "SELECT COUNT(*) FROM matches WHERE variant = ? AND id BETWEEN ? AND ?"


def count_up_to(
    db: sqlite3.Connection, variant: str, position: int, leave_out: Iterable[int] = ()
) -> int:
    """How many of ``variant``'s matches sort at or before ``position`` in ``db``, not
    counting those of the tournaments ``leave_out`` (ids: each a range of match ids)."""
    has_counts = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'variant_counts'"
    ).fetchone()
    if has_counts is None:
        count = int(db.execute(MATCHES_UP_TO, (variant, position)).fetchone()[0])
    else:
        row = db.execute(VARIANT_COUNT, (variant,)).fetchone()
        total = int(row[0]) if row is not None else 0
        count = total - int(db.execute(MATCHES_AFTER, (variant, position)).fetchone()[0])
    for tournament_id in leave_out:
        first = match_id(tournament_id, 0)
        last = min(position, match_id(tournament_id + 1, 0) - 1)
        if last >= first:
            count -= int(db.execute(MATCHES_OF_UP_TO, (variant, first, last)).fetchone()[0])
    return count


def left_out_ids(db: sqlite3.Connection, include_tests: bool = False) -> tuple[int, ...]:
    """The tournaments whose matches the leaderboards leave out (``arena.tournament.views``:
    people's games, and tests unless ``include_tests``), by id."""
    rows = db.execute("SELECT id, spec FROM tournaments ORDER BY id").fetchall()
    return tuple(
        int(tid) for tid, spec in rows if not views.on_boards(json.loads(spec), include_tests)
    )


def ids_after(tournament_id: int, position: int) -> tuple[int, int]:
    """The bounds (both excluded) of the tournament's match ids after ``position``: a range
    of the table's own key, read without a scan of the tournament's other matches."""
    return max(position, tournament_id * MATCH_ID_STRIDE - 1), (tournament_id + 1) * MATCH_ID_STRIDE


CHECKPOINT_WAIT_SECONDS = 1.0  # a checkpoint is not worth waiting longer for a busy writer


@dataclass(frozen=True)
class StoredCheckpoint:
    """A rating checkpoint as stored; ``leaderboards.checkpoints`` reads and checks it."""

    variant: str
    position: int
    matches: int
    model: str
    state: bytes
    digest: str


class StoreCheckpoints(StoreBase):
    """Reading and saving rating and board checkpoints, and the counts they are checked by."""

    # ---------------------------------------------------------------- rating checkpoints

    @translated
    def ratings_epoch(self) -> int | None:
        """How many times stored matches were removed or changed; None when this store (an
        older schema, read as it is) keeps no rating checkpoints."""
        if not self._keeps_checkpoints():
            return None
        return int(self.db.execute("SELECT epoch FROM ratings_epoch").fetchone()[0])

    def _keeps_checkpoints(self) -> bool:
        query = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ratings_epoch'"
        return self.db.execute(query).fetchone() is not None

    @translated
    def rating_checkpoints(self, variant: str) -> list[tuple[int, int]]:
        """The ``(position, matches)`` of the variant's stored checkpoints, newest first."""
        if not self._keeps_checkpoints():
            return []
        rows = self.db.execute(
            "SELECT position, matches FROM rating_checkpoints WHERE variant = ?"
            " ORDER BY position DESC",
            (variant,),
        )
        return [(int(position), int(count)) for position, count in rows]

    @translated
    def rating_checkpoint(self, variant: str, position: int) -> StoredCheckpoint | None:
        row = self.db.execute(
            "SELECT position, matches, model, state, digest FROM rating_checkpoints"
            " WHERE variant = ? AND position = ?",
            (variant, position),
        ).fetchone()
        if row is None:
            return None
        return StoredCheckpoint(variant, int(row[0]), int(row[1]), str(row[2]), *row[3:])

    @translated
    def left_out(self, include_tests: bool = False) -> tuple[int, ...]:
        """The ids of the tournaments the leaderboards leave out (``arena.tournament.views``):
        people's games, and tests unless ``include_tests``."""
        return left_out_ids(self.db, include_tests)

    @translated
    def matches_up_to(self, variant: str, position: int, leave_out: Sequence[int] = ()) -> int:
        """How many of the variant's matches sort at or before ``position`` (not counting
        the tournaments ``leave_out``)."""
        return count_up_to(self.db, variant, position, leave_out)

    @translated
    def results_after(
        self, variant: str, position: int, leave_out: Sequence[int] = ()
    ) -> list[MatchResult]:
        """The variant's matches that sort after ``position`` (but those of the tournaments
        ``leave_out``), in rating order (no details)."""
        where, params = " WHERE m.variant = ? AND m.id > ?", [variant, position]
        if leave_out:
            where += f" AND m.tournament_id NOT IN ({', '.join('?' * len(leave_out))})"
            params.extend(leave_out)
        return self._results_query(where, params, False)

    def _write_cache(self, write: Callable[[sqlite3.Connection], bool]) -> bool:
        """Run ``write`` in an immediate transaction of a short connection of its own, for a
        cache (rating or board checkpoints): committed if it returns True, else rolled back.
        A store that cannot be written that way (read-only, an older schema, busy for over a
        second) keeps what it has; False then."""
        try:
            db = sqlite3.connect(self.path, timeout=CHECKPOINT_WAIT_SECONDS, isolation_level=None)
        except sqlite3.Error:
            return False
        try:
            if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                return False  # an older store is migrated by a writer, never by a reader
            db.execute("PRAGMA synchronous=NORMAL")  # a checkpoint is a cache: no fsync wait
            db.execute("BEGIN IMMEDIATE")
            if not write(db):
                db.execute("ROLLBACK")
                return False
            db.execute("COMMIT")
            return True
        except sqlite3.Error:
            return False
        finally:
            db.close()

    def save_rating_checkpoints(
        self,
        checkpoints: Sequence[StoredCheckpoint],
        epoch: int,
        drop: Iterable[tuple[str, int]] = (),
    ) -> bool:
        """Keep ``checkpoints`` (computed from a read at ratings epoch ``epoch``) and drop the
        ``(variant, position)`` ones in ``drop``, if each still holds exactly the matches now
        stored up to its position: no match removed or changed since (the epoch), none added
        at or before it (the count). A checkpoint holds the leaderboards' default view (tests
        and people's games left out: ``arena.tournament.views``), and its count is of those.
        Any command may call this, readers too: it writes through its own short connection,
        and a store it cannot write (read-only, an older schema, busy for over a second)
        keeps what it has. Returns whether they were kept."""

        def write(db: sqlite3.Connection) -> bool:
            if db.execute("SELECT epoch FROM ratings_epoch").fetchone()[0] != epoch:
                return False
            leave_out = left_out_ids(db)
            for checkpoint in checkpoints:
                found = count_up_to(db, checkpoint.variant, checkpoint.position, leave_out)
                if found != checkpoint.matches:
                    return False
            db.executemany(
                "DELETE FROM rating_checkpoints WHERE variant = ? AND position = ?", list(drop)
            )
            now = time.time()
            db.executemany(
                "INSERT OR REPLACE INTO rating_checkpoints (variant, position, matches, model,"
                " state, digest, saved_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (c.variant, c.position, c.matches, c.model, c.state, c.digest, now)
                    for c in checkpoints
                ],
            )
            return True

        return self._write_cache(write)

    # ---------------------------------------------------------------- board checkpoints

    @translated
    def tournament_count(self, tournament_id: int) -> int:
        """How many matches of the tournament are stored (the kept count: no scan)."""
        if self._has_table("tournament_counts"):
            query = "SELECT matches FROM tournament_counts WHERE tournament_id = ?"
            row = self.db.execute(query, (tournament_id,)).fetchone()
            return 0 if row is None else int(row[0])
        query = "SELECT COUNT(*) FROM matches WHERE tournament_id = ?"  # an older store
        return int(self.db.execute(query, (tournament_id,)).fetchone()[0])

    @translated
    def matches_after(self, tournament_id: int, position: int) -> int:
        """How many of the tournament's matches sort after ``position`` (an index range)."""
        query = "SELECT COUNT(*) FROM matches WHERE id > ? AND id < ?"  # a range of ids
        return int(self.db.execute(query, ids_after(tournament_id, position)).fetchone()[0])

    @translated
    def tournament_results_after_id(self, tournament_id: int, position: int) -> list[MatchResult]:
        """A tournament's matches after ``position``, in rating order (no details)."""
        where = " WHERE m.id > ? AND m.id < ?"  # a range of ids: the tournament's, after it
        return self._results_query(where, ids_after(tournament_id, position), False)

    @translated
    def board_checkpoints(self, tournament_id: int) -> list[tuple[int, int, list[int]]]:
        """The ``(position, matches, voided)`` of a tournament's board checkpoints, newest
        first (none in a store older than them)."""
        if not self._has_table("board_checkpoints"):
            return []
        rows = self.db.execute(
            "SELECT position, matches, voided FROM board_checkpoints WHERE tournament_id = ?"
            " ORDER BY position DESC",
            (tournament_id,),
        )
        return [(int(p), int(m), [int(v) for v in json.loads(voided)]) for p, m, voided in rows]

    @translated
    def board_checkpoint(self, tournament_id: int, position: int) -> tuple[str, bytes, str] | None:
        """A board checkpoint's ``(model, state, digest)``, or None."""
        row = self.db.execute(
            "SELECT model, state, digest FROM board_checkpoints"
            " WHERE tournament_id = ? AND position = ?",
            (tournament_id, position),
        ).fetchone()
        return None if row is None else (str(row[0]), bytes(row[1]), str(row[2]))

    def save_board_checkpoint(
        self,
        tournament_id: int,
        position: int,
        matches: int,
        voided: Sequence[int],
        model: str,
        state: bytes,
        digest: str,
        keep: Callable[[list[tuple[int, int]]], list[int]],
    ) -> bool:
        """Keep a board checkpoint if the tournament still holds exactly ``matches`` stored
        matches up to ``position`` (none landed below it since it was computed), then drop
        the older ones ``keep`` does not name (it gets ``(position, matches)``, newest
        first). Readers call this too: it writes through its own short connection, and a
        store it cannot write (read-only, older, busy for over a second) keeps what it has.
        Returns whether it was kept."""

        def write(db: sqlite3.Connection) -> bool:
            total = db.execute(
                "SELECT matches FROM tournament_counts WHERE tournament_id = ?", (tournament_id,)
            ).fetchone()
            after = db.execute(
                "SELECT COUNT(*) FROM matches WHERE id > ? AND id < ?",
                ids_after(tournament_id, position),
            ).fetchone()[0]
            if total is None or int(total[0]) - int(after) != matches:
                return False
            db.execute(
                "INSERT OR REPLACE INTO board_checkpoints (tournament_id, position, matches,"
                " voided, model, state, digest, saved_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (tournament_id, position, matches, json.dumps(sorted(voided)), model, state,
                 digest, time.time()),
            )  # fmt: skip
            stored = db.execute(
                "SELECT position, matches FROM board_checkpoints WHERE tournament_id = ?"
                " ORDER BY position DESC",
                (tournament_id,),
            ).fetchall()
            kept = set(keep([(int(p), int(m)) for p, m in stored]))
            db.executemany(
                "DELETE FROM board_checkpoints WHERE tournament_id = ? AND position = ?",
                [(tournament_id, p) for p, _ in stored if p not in kept],
            )
            return True

        return self._write_cache(write)
