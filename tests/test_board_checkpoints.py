"""A competition's boards resume from checkpoints: a start folds only the matches after
the newest one, a wave landing out of order, a void and its undoing all give the board
of a full recompute (real SQLite, the server's own LiveBoard and ladder code)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from arena.server import boardstate
from arena.server.boards import SAVE_EVERY, LiveBoard
from arena.tournament.results import MatchResult
from arena.tournament.store import ResultsStore
from leaderboards.standings import Board
from tests.store_helpers import two_player_match

NAME = "cup-usa-2p"
BOTS = [f"p{i}.b@1" for i in range(12)]


def match(idx: int) -> MatchResult:
    return two_player_match(idx, BOTS)


def stored(tmp_path: Path, indices) -> tuple[ResultsStore, int]:
    store = ResultsStore(tmp_path)
    tid = store.tournament(NAME, "f", {})
    store.record_many(tid, [match(i) for i in indices])
    return store, tid


def full(store: ResultsStore, voided: set[int] = frozenset()) -> list[dict]:  # type: ignore[assignment]
    board = Board()
    for result in store.results(NAME, details=False):
        if result.match_id not in voided:
            board.add(result)
    return board.rows()


def checkpoints(store: ResultsStore, tid: int) -> list[tuple[int, int, list[int]]]:
    return store.board_checkpoints(tid)


def test_a_start_folds_only_the_matches_after_the_newest_checkpoint(tmp_path: Path) -> None:
    store, tid = stored(tmp_path, range(1000))
    first = LiveBoard(NAME)
    assert first.rows(store, set()) == full(store)
    assert first.folds == 1000
    saved = checkpoints(store, tid)
    assert saved, "a board that grew by SAVE_EVERY matches saves a checkpoint"
    newest = saved[0][1]
    assert 1000 - SAVE_EVERY - 64 <= newest < 1000
    store.record_many(tid, [match(i) for i in range(1000, 1010)])
    again = LiveBoard(NAME)  # a restart
    assert again.rows(store, set()) == full(store)
    assert again.folds == 1010 - newest, "only what follows the checkpoint is rated"
    folded, count = boardstate.resume(store, tid, set())  # the ladder's start: the same
    assert count == 1010 - newest and folded.board.rows() == full(store)


def test_a_wave_landing_out_of_order_and_a_match_below_a_checkpoint(tmp_path: Path) -> None:
    store, tid = stored(tmp_path, [i for i in range(600) if i not in (590, 595)])
    live = LiveBoard(NAME)
    live.rows(store, set())
    store.record_many(tid, [match(595)])  # lands below what the board holds
    assert live.rows(store, set()) == full(store)
    assert live.folds < 598 + 30, "refolded from a recent mark, not from nothing"
    before = checkpoints(store, tid)
    assert before
    store.record_many(tid, [match(590)])
    assert live.rows(store, set()) == full(store)
    # A match stored below a checkpoint drops it (the store's trigger), so a restart
    # resumes from one that holds it.
    low = checkpoints(store, tid)
    assert all(position < tid * 10**9 + 590 for position, _, _ in low)
    assert LiveBoard(NAME).rows(store, set()) == full(store)


def test_a_void_refolds_from_the_checkpoint_before_it_and_its_undoing_back(tmp_path) -> None:
    store, tid = stored(tmp_path, [])
    live = LiveBoard(NAME)
    for start in range(0, 2000, 250):  # as a server reads while the ladder plays
        store.record_many(tid, [match(i) for i in range(start, start + 250)])
        live.rows(store, set())
    positions = [p for p, _, _ in checkpoints(store, tid)]
    assert len(positions) >= 2
    victim = tid * 10**9 + 1500
    folds = live.folds
    assert live.rows(store, {victim}) == full(store, {victim})
    refold = live.folds - folds
    assert refold < 2000 - 1000, "from the checkpoint before the voided match, not from nothing"
    restart = LiveBoard(NAME)
    assert restart.rows(store, {victim}) == full(store, {victim})
    assert restart.folds < 2000
    assert live.rows(store, set()) == full(store), "undone: the match counts again"
    # The worker's ladder pairs by the same ratings.
    folded, _ = boardstate.resume(store, tid, {victim})
    assert folded.board.rows() == full(store, {victim}) and folded.rated == 1999


def test_a_damaged_checkpoint_is_skipped(tmp_path: Path) -> None:
    store, _ = stored(tmp_path, range(500))
    LiveBoard(NAME).rows(store, set())
    db = sqlite3.connect(tmp_path / "results.sqlite")
    with db:
        db.execute("UPDATE board_checkpoints SET state = X'00'")
    db.close()
    live = LiveBoard(NAME)
    assert live.rows(store, set()) == full(store)
    assert live.folds == 500
