"""The results store stays sound while other processes open and close it at will: a
writer records matches while a server-like process opens a reader per thread (as the web
server's request threads do) and another process checkpoints and closes through its own
connections (as `arena` commands and benchmarks do beside a running server). Real
processes, real SQLite; no time in the assertions: the writer stores a fixed number of
matches and the others work until it is done."""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
from pathlib import Path

from arena.tournament.results import MatchResult
from arena.tournament.store import ResultsStore, StoreError

MATCHES = 1500
ERRORS = "errors"


def _result(idx: int) -> MatchResult:
    ranks = (1, 2) if idx % 2 else (2, 1)
    return MatchResult(
        idx=idx, variant="usa", seed=idx, bots=("a@1", "b@1"), scores=(90, 80), ranks=ranks,
        engine_ranks=ranks, faults=(None, None), breakdown=({}, {}), decisions=300,
        seconds=0.1, worker="w",
    )  # fmt: skip


def _report(data: Path, who: str, error: BaseException) -> None:
    with (data / ERRORS).open("a") as file:
        file.write(f"{who}: {type(error).__name__}: {error}\n")


def _writer(data: Path, done: multiprocessing.synchronize.Event) -> None:
    """Records MATCHES matches; meanwhile a thread of its own opens and closes readers."""
    stop = threading.Event()

    def reopen() -> None:
        while not stop.is_set():
            try:
                ResultsStore.reader(data).close()
            except (StoreError, sqlite3.Error) as error:
                _report(data, "writer's reader", error)

    thread = threading.Thread(target=reopen)
    thread.start()
    try:
        with ResultsStore(data) as store:
            tid = store.tournament("locks", "f" * 16, "{}")
            for idx in range(MATCHES):
                store.record(tid, _result(idx))
    except (StoreError, sqlite3.Error) as error:
        _report(data, "writer", error)
    finally:
        stop.set()
        thread.join()
        done.set()


def _server(data: Path, done: multiprocessing.synchronize.Event) -> None:
    """A long-lived reader, and threads each opening a reader and writing a cache through a
    short connection of its own, as the web server's threads do."""

    def work() -> None:
        while not done.is_set():
            try:
                with ResultsStore.reader(data) as store:
                    store.tournaments()
                db = sqlite3.connect(data / "results.sqlite", timeout=30, isolation_level=None)
                try:
                    db.execute("BEGIN IMMEDIATE")
                    db.execute("SELECT COUNT(*) FROM matches").fetchone()
                    db.execute("COMMIT")
                finally:
                    db.close()
            except (StoreError, sqlite3.Error) as error:
                _report(data, "server", error)

    with ResultsStore.reader(data):
        threads = [threading.Thread(target=work) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()


def _bystander(data: Path, done: multiprocessing.synchronize.Event) -> None:
    """Another program's connection, opened, checkpointed and closed again and again."""
    while not done.is_set():
        try:
            db = sqlite3.connect(data / "results.sqlite", timeout=30, isolation_level=None)
            try:
                db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            finally:
                db.close()
        except sqlite3.Error as error:
            _report(data, "bystander", error)


def test_readers_opened_beside_live_connections_never_damage_the_store(tmp_path: Path) -> None:
    ResultsStore(tmp_path).close()
    context = multiprocessing.get_context("spawn")
    done = context.Event()
    processes = [
        context.Process(target=target, args=(tmp_path, done))
        for target in (_writer, _server, _bystander)
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(600)
    errors = (tmp_path / ERRORS).read_text() if (tmp_path / ERRORS).exists() else ""
    assert errors == ""
    assert [process.exitcode for process in processes] == [0, 0, 0]
    with ResultsStore(tmp_path, check=True) as store:
        info = store.tournament_info("locks")
        assert info is not None
        assert len(store.done_indices(info.id)) == MATCHES
