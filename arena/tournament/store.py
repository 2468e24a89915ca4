"""The results store: SQLite in WAL mode, one transaction per finished match.

Tables: ``bots`` (registered submissions), ``tournaments``, ``matches`` (one
row per finished game, unique per tournament and schedule index), ``seats``
(per-seat results) and ``logs`` (the JSON-lines match logs). A match is
written with its seats and log in one transaction, so a kill at any moment
leaves either the whole match or nothing; the unique key means a match that
is delivered twice (a retried task) is stored once.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS bots (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    version INTEGER NOT NULL,
    kind TEXT NOT NULL,            -- plugin | file | command
    target TEXT NOT NULL,          -- plugin name, stored path, or command line
    variants TEXT NOT NULL,        -- JSON list
    content_hash TEXT NOT NULL,
    created_at REAL NOT NULL,
    UNIQUE (name, version)
);
CREATE TABLE IF NOT EXISTS tournaments (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    fingerprint TEXT NOT NULL,
    spec TEXT NOT NULL,            -- JSON
    created_at REAL NOT NULL,
    finished_at REAL
);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    idx INTEGER NOT NULL,
    variant TEXT NOT NULL,
    seed INTEGER NOT NULL,
    players INTEGER NOT NULL,
    status TEXT NOT NULL,          -- done
    decisions INTEGER NOT NULL,
    seconds REAL NOT NULL,
    attempts INTEGER NOT NULL,
    worker TEXT NOT NULL,
    finished_at REAL NOT NULL,
    UNIQUE (tournament_id, idx)
);
CREATE TABLE IF NOT EXISTS seats (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seat INTEGER NOT NULL,
    bot TEXT NOT NULL,
    score INTEGER NOT NULL,
    rank INTEGER NOT NULL,
    engine_rank INTEGER NOT NULL,
    breakdown TEXT NOT NULL,       -- JSON
    fault TEXT,
    fault_detail TEXT,
    PRIMARY KEY (match_id, seat)
);
CREATE TABLE IF NOT EXISTS logs (
    match_id INTEGER PRIMARY KEY REFERENCES matches(id),
    jsonl BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS seats_bot ON seats(bot);
CREATE TABLE IF NOT EXISTS tournament_keys (
    tournament_id INTEGER PRIMARY KEY,  -- tournaments(id); the secret its games are keyed with
    secret BLOB NOT NULL
);
"""


@dataclass(frozen=True)
class MatchRecord:
    """A finished match as it travels from a worker to the store (plain data, picklable)."""

    index: int
    variant: str
    seed: int
    bots: tuple[str, ...]
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    engine_ranks: tuple[int, ...]
    breakdown: tuple[dict[str, int], ...]
    faults: dict[int, tuple[str, str]]  # seat -> (code, detail)
    decisions: int
    seconds: float
    log: bytes
    worker: str = ""
    attempts: int = 1


CHAOS_STALL = "ARENA_CHAOS_STALL_IN_TRANSACTION"


def _chaos_stall() -> None:
    """Fault injection for the chaos test: with ``ARENA_CHAOS_STALL_IN_TRANSACTION=PATH``
    set, the writer creates PATH and stalls in the middle of a match's transaction, so
    the test can kill it there. Unset (always, outside that test) it does nothing."""
    marker = os.environ.get(CHAOS_STALL)
    if marker:
        Path(marker).touch()
        time.sleep(600)


class ResultsStore:
    """The SQLite results store in ``data_dir`` (created if needed)."""

    def __init__(self, data_dir: Path | str) -> None:
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.path = self.data_dir / "results.sqlite"
        self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # ---------------------------------------------------------------- tournaments

    def tournament(self, name: str, fingerprint: str, spec: dict[str, Any]) -> int:
        """The id of tournament ``name``, created if new; refuses a changed spec under one name."""
        row = self.db.execute(
            "SELECT id, fingerprint FROM tournaments WHERE name = ?", (name,)
        ).fetchone()
        if row is not None:
            if row[1] != fingerprint:
                raise ValueError(
                    f"a tournament named '{name}' exists with a different description; "
                    "choose another name to run a new one"
                )
            return int(row[0])
        with self.transaction() as db:
            cursor = db.execute(
                "INSERT INTO tournaments (name, fingerprint, spec, created_at) VALUES (?, ?, ?, ?)",
                (name, fingerprint, json.dumps(spec), time.time()),
            )
            return int(cursor.lastrowid)

    def finish_tournament(self, tournament_id: int) -> None:
        self.db.execute(
            "UPDATE tournaments SET finished_at = ? WHERE id = ?", (time.time(), tournament_id)
        )

    def done_indices(self, tournament_id: int) -> set[int]:
        rows = self.db.execute("SELECT idx FROM matches WHERE tournament_id = ?", (tournament_id,))
        return {int(r[0]) for r in rows}

    # ---------------------------------------------------------------- matches

    def record(self, tournament_id: int, match: MatchRecord) -> bool:
        """Store a finished match with its seats and log in one transaction.

        Returns False (and stores nothing) when that match is already stored.
        """
        with self.transaction() as db:
            cursor = db.execute(
                "INSERT OR IGNORE INTO matches (tournament_id, idx, variant, seed, players, status,"
                " decisions, seconds, attempts, worker, finished_at)"
                " VALUES (?, ?, ?, ?, ?, 'done', ?, ?, ?, ?, ?)",
                (
                    tournament_id,
                    match.index,
                    match.variant,
                    match.seed,
                    len(match.bots),
                    match.decisions,
                    match.seconds,
                    match.attempts,
                    match.worker,
                    time.time(),
                ),
            )
            if cursor.rowcount == 0:
                return False
            _chaos_stall()
            match_id = cursor.lastrowid
            db.executemany(
                "INSERT INTO seats (match_id, seat, bot, score, rank, engine_rank, breakdown,"
                " fault, fault_detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        match_id,
                        seat,
                        bot,
                        match.scores[seat],
                        match.ranks[seat],
                        match.engine_ranks[seat],
                        json.dumps(match.breakdown[seat]),
                        match.faults.get(seat, (None, None))[0],
                        match.faults.get(seat, (None, None))[1],
                    )
                    for seat, bot in enumerate(match.bots)
                ],
            )
            db.execute("INSERT INTO logs (match_id, jsonl) VALUES (?, ?)", (match_id, match.log))
        return True

    def match_log(self, match_id: int) -> bytes:
        row = self.db.execute("SELECT jsonl FROM logs WHERE match_id = ?", (match_id,)).fetchone()
        if row is None:
            raise KeyError(f"no match {match_id}")
        return bytes(row[0])

    # ---------------------------------------------------------------- bots

    def register_bot(
        self, name: str, kind: str, target: str, variants: list[str], content_hash: str
    ) -> int:
        """Register a new version of bot ``name``; returns the version number."""
        with self.transaction() as db:
            row = db.execute("SELECT MAX(version) FROM bots WHERE name = ?", (name,)).fetchone()
            version = (row[0] or 0) + 1
            db.execute(
                "INSERT INTO bots (name, version, kind, target, variants, content_hash, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (name, version, kind, target, json.dumps(variants), content_hash, time.time()),
            )
        return version

    def bot(self, name: str, version: int | None = None) -> dict[str, Any] | None:
        """A registered bot (the newest version unless one is given), or None."""
        query = (
            "SELECT name, version, kind, target, variants, content_hash FROM bots WHERE name = ?"
        )
        args: tuple = (name,)
        if version is not None:
            query += " AND version = ?"
            args += (version,)
        row = self.db.execute(query + " ORDER BY version DESC LIMIT 1", args).fetchone()
        if row is None:
            return None
        keys = ("name", "version", "kind", "target", "variants", "content_hash")
        record = dict(zip(keys, row, strict=True))
        record["variants"] = json.loads(record["variants"])
        return record

    def bots(self) -> list[dict[str, Any]]:
        rows = self.db.execute("SELECT name, MAX(version) FROM bots GROUP BY name ORDER BY name")
        return [self.bot(name, version) for name, version in rows.fetchall()]

    # ---------------------------------------------------------------- keys

    def tournament_secret(self, tournament_id: int, fresh: bytes) -> bytes:
        """The secret a tournament's games are keyed with (arena/referee/keys.py): ``fresh``
        is kept the first time, the kept one returned ever after, so a resumed tournament
        plays the same games. Bots cannot read the store."""
        with self.transaction() as db:
            db.execute(
                "INSERT OR IGNORE INTO tournament_keys (tournament_id, secret) VALUES (?, ?)",
                (tournament_id, fresh),
            )
            row = db.execute(
                "SELECT secret FROM tournament_keys WHERE tournament_id = ?", (tournament_id,)
            ).fetchone()
        return bytes(row[0])

    # ---------------------------------------------------------------- managing what is stored

    def registered_bots(self) -> list[dict[str, Any]]:
        """Every registered version of every bot, by name then version."""
        rows = self.db.execute(
            "SELECT name, version, kind, target, variants, content_hash, created_at FROM bots"
            " ORDER BY name, version"
        ).fetchall()
        keys = ("name", "version", "kind", "target", "variants", "content_hash", "created_at")
        records = [dict(zip(keys, row, strict=True)) for row in rows]
        for record in records:
            record["variants"] = json.loads(record["variants"])
        return records

    def remove_bot(self, name: str, version: int | None = None) -> list[dict[str, Any]]:
        """Unregister ``name`` (one version, or all); returns the removed registrations.

        Results it already played stay: they belong to their tournaments."""
        removed = [
            r
            for r in self.registered_bots()
            if r["name"] == name and version in (None, r["version"])
        ]
        if not removed:
            raise KeyError(name if version is None else f"{name}@{version}")
        with self.transaction() as db:
            db.executemany(
                "DELETE FROM bots WHERE name = ? AND version = ?",
                [(r["name"], r["version"]) for r in removed],
            )
        return removed

    def tournaments(self) -> list[dict[str, Any]]:
        """Every tournament with how many of its matches are stored, oldest first."""
        rows = self.db.execute(
            "SELECT t.name, t.spec, t.created_at, t.finished_at, COUNT(m.id) FROM tournaments t"
            " LEFT JOIN matches m ON m.tournament_id = t.id GROUP BY t.id ORDER BY t.id"
        ).fetchall()
        return [
            {
                "name": name,
                "spec": json.loads(spec),
                "created_at": created,
                "finished_at": finished,
                "matches": count,
            }
            for name, spec, created, finished, count in rows
        ]

    def delete_tournament(self, name: str) -> int:
        """Delete tournament ``name`` with its matches, seats and logs in one transaction;
        returns how many matches went. Ratings are recomputed from what remains."""
        with self.transaction() as db:
            row = db.execute("SELECT id FROM tournaments WHERE name = ?", (name,)).fetchone()
            if row is None:
                raise KeyError(name)
            matches = "SELECT id FROM matches WHERE tournament_id = ?"
            db.execute(f"DELETE FROM logs WHERE match_id IN ({matches})", row)
            db.execute(f"DELETE FROM seats WHERE match_id IN ({matches})", row)
            count = db.execute("DELETE FROM matches WHERE tournament_id = ?", row).rowcount
            db.execute("DELETE FROM tournament_keys WHERE tournament_id = ?", row)
            db.execute("DELETE FROM tournaments WHERE id = ?", row)
        return count

    def forfeits(self, tournament: str) -> list[dict[str, Any]]:
        """Every forfeit of a tournament's stored matches, in schedule order."""
        rows = self.db.execute(
            "SELECT m.id, m.idx, s.seat, s.bot, s.fault, s.fault_detail FROM matches m"
            " JOIN tournaments t ON t.id = m.tournament_id JOIN seats s ON s.match_id = m.id"
            " WHERE t.name = ? AND s.fault IS NOT NULL ORDER BY m.idx, s.seat",
            (tournament,),
        ).fetchall()
        keys = ("match_id", "idx", "seat", "bot", "code", "detail")
        return [dict(zip(keys, row, strict=True)) for row in rows]
