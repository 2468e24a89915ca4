"""Registered bots, and one bot's matches: pages of them filtered, and the sums its win
rates and score margins are made of, read by the index on seats' bots."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena.tournament.results import MATCH_ID_STRIDE
from arena.tournament.storebase import StoreBase, translated


@dataclass(frozen=True)
class BotFilter:
    """Which of a bot's matches to list: one tournament, won (ranked first) or not, a fault
    (``yes``, ``no`` or a code), against any of ``opponents`` (labels); None: any."""

    tournament: str | None = None
    won: bool | None = None
    fault: str | None = None
    opponents: tuple[str, ...] | None = None


class StoreBots(StoreBase):
    """The bots' registry and each bot's stored matches."""

    # ---------------------------------------------------------------- registry

    @translated
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

    @translated
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

    @translated
    def bots(self) -> list[dict[str, Any]]:
        rows = self.db.execute("SELECT name, MAX(version) FROM bots GROUP BY name ORDER BY name")
        found = (self.bot(name, version) for name, version in rows.fetchall())
        return [bot for bot in found if bot is not None]

    @translated
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

    @translated
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

    # ---------------------------------------------------------------- one bot's matches

    @translated
    def bot_matches(
        self,
        bots: Sequence[str],
        tournaments: Sequence[str],
        where: BotFilter,
        limit: int,
        offset: int,
    ) -> tuple[int, list[dict[str, Any]]]:
        """How many matches of ``bots`` (the labels of one bot's versions) in ``tournaments``
        pass ``where``, and one page of them, newest first (last stored first: seat rows
        grow as matches are stored), each with every seat of its table. Read by the index on
        seats' bots (it holds the row), then one page of rows."""
        clause, params = self._bot_clause(bots, tournaments, where)
        with self.read_snapshot():  # the count and the page from one state of the store
            total = self.db.execute(f"SELECT COUNT(*) FROM seats s{clause}", params).fetchone()[0]
            rows = self.db.execute(
                "SELECT s.match_id, s.seat, t.name, m.idx, m.variant, m.players, m.finished_at"
                " FROM seats s JOIN matches m ON m.id = s.match_id"
                f" JOIN tournaments t ON t.id = m.tournament_id{clause}"
                " ORDER BY s.rowid DESC LIMIT ? OFFSET ?",
                (*params, limit, offset),
            ).fetchall()
            tables = self._tables([row[0] for row in rows])
        keys = ("match_id", "seat", "tournament", "idx", "variant", "players", "finished_at")
        found = [dict(zip(keys, row, strict=True)) for row in rows]
        for match in found:
            match["seats"] = tables[match["match_id"]]
        return int(total), found

    def _tables(self, match_ids: list[int]) -> dict[int, list[dict[str, Any]]]:
        """Every seat of each of a page of matches (by the seats' primary key)."""
        tables: dict[int, list[dict[str, Any]]] = {m: [] for m in match_ids}
        if not match_ids:
            return tables
        marks = ",".join("?" * len(match_ids))
        keys = ("seat", "bot", "score", "rank", "fault", "fault_detail")
        for match, *row in self.db.execute(
            "SELECT match_id, seat, bot, score, rank, fault, fault_detail FROM seats"
            f" WHERE match_id IN ({marks}) ORDER BY match_id, seat",
            match_ids,
        ):
            tables[match].append(dict(zip(keys, row, strict=True)))
        return tables

    def _bot_clause(
        self, bots: Sequence[str], tournaments: Sequence[str], where: BotFilter
    ) -> tuple[str, list[Any]]:
        """The WHERE clause of a bot's seats in some tournaments (each a range of match ids:
        a tournament's id times the stride, plus its index), filtered."""
        spans = self._spans(tournaments if where.tournament is None else [where.tournament])
        if not bots or not spans:
            return " WHERE 0", []
        parts = [f"s.bot IN ({','.join('?' * len(bots))})"]
        params: list[Any] = list(bots)
        parts.append("(" + " OR ".join("s.match_id BETWEEN ? AND ?" for _ in spans) + ")")
        params += [bound for span in spans for bound in span]
        if where.won is not None:
            parts.append("s.rank = 1" if where.won else "s.rank > 1")
        if where.fault == "yes":
            parts.append("s.fault IS NOT NULL")
        elif where.fault == "no":
            parts.append("s.fault IS NULL")
        elif where.fault is not None:
            parts.append("s.fault = ?")
            params.append(where.fault)
        if where.opponents is not None:
            marks = ",".join("?" * len(where.opponents)) or "NULL"
            parts.append(
                "EXISTS (SELECT 1 FROM seats o WHERE o.match_id = s.match_id"
                f" AND o.seat != s.seat AND o.bot IN ({marks}))"
            )
            params += list(where.opponents)
        return " WHERE " + " AND ".join(parts), params

    def _spans(self, tournaments: Sequence[str]) -> list[tuple[int, int]]:
        if not tournaments:
            return []
        marks = ",".join("?" * len(tournaments))
        ids = self.db.execute(
            f"SELECT id FROM tournaments WHERE name IN ({marks}) ORDER BY id", list(tournaments)
        ).fetchall()
        return [(i * MATCH_ID_STRIDE, (i + 1) * MATCH_ID_STRIDE - 1) for (i,) in ids]

    @translated
    def bot_tallies(
        self,
        bots: Sequence[str],
        tournaments: Sequence[str],
        after: int = 0,
        matches: Sequence[int] | None = None,
    ) -> tuple[list[tuple], list[tuple], int]:
        """Sums for the win rates and score margins of ``bots`` (one bot's versions) in
        ``tournaments``, over the seats stored after seat row ``after`` (rows grow as matches
        are stored: a caller keeps the sums and adds only what is new), or over ``matches``
        only (voided ones, to take them out). Returns the rows per tournament id
        ``(tournament_id, n, wins, margin, square)`` (a win: ranking first; the margin: the
        score less the best other seat's), per tournament id and opponent label
        ``(tournament_id, opponent, n, wins, margin, square)`` (a win: ranking above that
        opponent; the margin: the score less theirs), and the last seat row read."""
        clause, params = self._bot_clause(bots, tournaments, BotFilter())
        clause += " AND s.rowid > ?"
        params.append(after)
        if matches is not None:
            clause += f" AND s.match_id IN ({','.join('?' * len(matches)) or 'NULL'})"
            params += list(matches)
        pairs = (
            "SELECT s.rowid AS row, s.match_id AS match_id, s.rank AS rank, o.bot AS opponent,"
            " s.score - o.score AS margin, s.rank < o.rank AS beat FROM seats s"
            f" JOIN seats o ON o.match_id = s.match_id AND o.seat != s.seat{clause}"
        )
        with self.read_snapshot():  # both sums from one state of the store
            per_board = self.db.execute(
                "SELECT match_id / ?, COUNT(*), SUM(rank = 1), SUM(margin), SUM(margin * margin)"
                " FROM (SELECT match_id, MIN(rank) AS rank, MIN(margin) AS margin FROM"
                f" ({pairs}) GROUP BY match_id) GROUP BY 1",
                (MATCH_ID_STRIDE, *params),
            ).fetchall()
            per_pair = self.db.execute(
                "SELECT match_id / ?, opponent, COUNT(*), SUM(beat), SUM(margin),"
                f" SUM(margin * margin) FROM ({pairs}) GROUP BY 1, 2",
                (MATCH_ID_STRIDE, *params),
            ).fetchall()
            last = self.db.execute(f"SELECT MAX(row) FROM ({pairs})", params).fetchone()[0]
        return per_board, per_pair, max(int(last or 0), after)
