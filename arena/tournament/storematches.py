"""Finished matches: each stored whole (row, seats, log) in one transaction, and read back
in the one order ratings use, whole or by tournament, variant or id."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Sequence
from typing import Any

from arena import chaos
from arena.tournament.compact import pack_log, unpack_log
from arena.tournament.results import MATCH_ID_STRIDE, MatchResult, match_id
from arena.tournament.storebase import StoreBase, translated
from arena.tournament.storefile import CHECK_HINT, StoreDamaged


class StoreMatches(StoreBase):
    """Storing finished matches and reading them back."""

    # ---------------------------------------------------------------- storing

    @translated
    def record(self, tournament_id: int, result: MatchResult) -> bool:
        """Store a finished match with its seats and log in one transaction.

        Returns False (and stores nothing) when that match is already stored.
        """
        with self.transaction() as db:
            return self._insert(db, tournament_id, result)

    @translated
    def record_many(self, tournament_id: int, results: Iterable[MatchResult]) -> int:
        """Store many matches in one transaction (bulk loads); returns how many were new."""
        with self.transaction() as db:
            return sum(self._insert(db, tournament_id, r) for r in results)

    def _insert(self, db: sqlite3.Connection, tournament_id: int, result: MatchResult) -> bool:
        key = match_id(tournament_id, result.idx)
        cursor = db.execute(
            "INSERT OR IGNORE INTO matches (id, tournament_id, idx, variant, seed, players,"
            " status, decisions, seconds, attempts, worker, finished_at)"
            " VALUES (?, ?, ?, ?, ?, ?, 'done', ?, ?, ?, ?, ?)",
            (
                key,
                tournament_id,
                result.idx,
                result.variant,
                result.seed,
                result.players,
                result.decisions,
                result.seconds,
                result.attempts,
                result.worker,
                time.time(),
            ),
        )
        if cursor.rowcount == 0:
            return False
        chaos.stall_in_transaction()
        details = result.details_by_seat
        breakdown = result.breakdown or ({},) * result.players
        db.executemany(
            "INSERT INTO seats (match_id, seat, bot, score, rank, engine_rank, breakdown,"
            " fault, fault_detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    key,
                    seat,
                    bot,
                    result.scores[seat],
                    result.ranks[seat],
                    result.engine_ranks[seat],
                    json.dumps(breakdown[seat]),
                    result.faults[seat],
                    details[seat],
                )
                for seat, bot in enumerate(result.bots)
            ],
        )
        db.execute("INSERT INTO logs (match_id, jsonl) VALUES (?, ?)", (key, pack_log(result.log)))
        db.execute(
            "DELETE FROM failures WHERE tournament_id = ? AND idx = ?", (tournament_id, result.idx)
        )
        return True

    # ---------------------------------------------------------------- reading

    @translated
    def results(
        self,
        tournament: str | int | None = None,
        *,
        variant: str | None = None,
        players: int | None = None,
        details: bool = True,
        leave_out: Sequence[int] = (),
    ) -> list[MatchResult]:
        """Finished matches (of a tournament, a variant, a player count; not those of the
        tournaments ``leave_out``), in the one fixed order ratings use: tournament (by
        creation), then schedule index. It does not depend on when or where a match
        finished. ``details=False`` leaves out score breakdowns and fault details (faster,
        for ratings); logs come from ``match_log``."""
        where: list[str] = []
        params: list[int | str] = []
        if isinstance(tournament, int):
            where.append("m.tournament_id = ?")
            params.append(tournament)
        elif tournament is not None:
            where.append("t.name = ?")
            params.append(tournament)
        if variant is not None:
            where.append("m.variant = ?")
            params.append(variant)
        if players is not None:
            where.append("m.players = ?")
            params.append(players)
        if leave_out:
            where.append(f"m.tournament_id NOT IN ({', '.join('?' * len(leave_out))})")
            params.extend(leave_out)
        clause = (" WHERE " + " AND ".join(where)) if where else ""
        return self._results_query(clause, tuple(params), details)

    @translated
    def match_result(self, match_id: int) -> MatchResult | None:
        """One stored match with its details, or None."""
        found = self._results_query(" WHERE m.id = ?", (match_id,))
        return found[0] if found else None

    @translated
    def latest_results(self, tournament: str, count: int) -> list[MatchResult]:
        """A tournament's ``count`` newest matches by schedule index, newest first (no
        details): a page of recent matches without reading them all."""
        where = (
            " WHERE m.id IN (SELECT m2.id FROM matches m2 JOIN tournaments t2"
            " ON t2.id = m2.tournament_id WHERE t2.name = ? ORDER BY m2.idx DESC LIMIT ?)"
        )
        return self._results_query(where, (tournament, count), False)[::-1]

    @translated
    def tournament_results_after(self, tournament: str, position: int) -> list[MatchResult]:
        """A tournament's matches whose id is after ``position``, in rating order (no
        details): a competition's boards fold in only what is new since their last read."""
        where = " WHERE t.name = ? AND m.id > ?"
        return self._results_query(where, (tournament, position), False)

    @translated
    def tournament_range(self, tournament: str, first: int, count: int) -> list[MatchResult]:
        """A tournament's matches with indices ``first`` to ``first + count - 1``, in index
        order (no details): a ranked challenge's games among its board's ladder matches."""
        where = " WHERE t.name = ? AND m.idx >= ? AND m.idx < ?"
        return self._results_query(where, (tournament, first, first + count), False)

    @translated
    def latest_finishes(self, tournament_id: int, count: int) -> list[float]:
        """When a tournament's ``count`` newest matches (by schedule index) finished: what a
        paced ladder counts against its last hour after a restart."""
        rows = self.db.execute(
            "SELECT finished_at FROM matches WHERE tournament_id = ? ORDER BY idx DESC LIMIT ?",
            (tournament_id, count),
        )
        return [float(row[0]) for row in rows]

    @translated
    def match_facts(self, ids: Sequence[int]) -> dict[int, tuple[float, tuple[str, ...], bool]]:
        """For each of the stored matches ``ids``: when it was stored, its bots by seat and
        whether one faulted (what keeping its bots' log files depends on)."""
        facts: dict[int, tuple[float, tuple[str, ...], bool]] = {}
        for start in range(0, len(ids), 500):
            chunk = list(ids[start : start + 500])
            rows = self.db.execute(
                "SELECT m.id, m.finished_at, s.bot, s.fault FROM matches m JOIN seats s"
                f" ON s.match_id = m.id WHERE m.id IN ({', '.join('?' * len(chunk))})"
                " ORDER BY m.id, s.seat",
                chunk,
            )
            for key, finished, bot, fault in rows:
                _, bots, faulted = facts.get(key, (finished, (), False))
                facts[key] = (float(finished), (*bots, bot), faulted or fault is not None)
        return facts

    @translated
    def tally(self, tournament: str) -> tuple[int, dict[str, int]]:
        """How many matches of ``tournament`` are stored, and their faults by code (read
        from one state of the store, by a range of the ids' index)."""
        row = self.db.execute("SELECT id FROM tournaments WHERE name = ?", (tournament,))
        found = row.fetchone()
        if found is None:
            return 0, {}
        span = (found[0] * MATCH_ID_STRIDE, (found[0] + 1) * MATCH_ID_STRIDE)
        with self.read_snapshot():
            count = self.db.execute(
                "SELECT COUNT(*) FROM matches WHERE id >= ? AND id < ?", span
            ).fetchone()[0]
            faults = self.db.execute(
                "SELECT fault, COUNT(*) FROM seats WHERE match_id >= ? AND match_id < ?"
                " AND fault IS NOT NULL GROUP BY fault",
                span,
            ).fetchall()
        return count, dict(faults)

    @translated
    def stored_since(self, tournament: str, since: float, newest: int = 10_000) -> int:
        """How many of the ``newest`` matches of ``tournament`` finished after ``since``."""
        return self.db.execute(
            "SELECT COUNT(*) FROM (SELECT m.finished_at FROM matches m"
            " JOIN tournaments t ON t.id = m.tournament_id WHERE t.name = ?"
            " ORDER BY m.idx DESC LIMIT ?) WHERE finished_at > ?",
            (tournament, newest, since),
        ).fetchone()[0]

    @translated
    def match_log(self, match_id: int) -> bytes:
        row = self.db.execute("SELECT jsonl FROM logs WHERE match_id = ?", (match_id,)).fetchone()
        if row is None:
            raise KeyError(f"no match {match_id}")
        try:
            return unpack_log(bytes(row[0]))  # compressed, or plain as older releases stored it
        except ValueError as error:
            raise StoreDamaged(f"{self.path}: match {match_id}: {error}: {CHECK_HINT}") from None

    @translated
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
