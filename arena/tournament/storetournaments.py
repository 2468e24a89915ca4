"""Tournaments as the store keeps them: their rows, the one driver's lease, the planned
schedule, the matches that could not be played, and each tournament's secret key."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from arena.tournament.lease import Holder
from arena.tournament.schedule import MatchSpec
from arena.tournament.storebase import StoreBase, translated
from arena.tournament.storefile import TournamentBusy


@dataclass(frozen=True)
class Failure:
    """A match the arena could not play (its worker kept dying, or the arena failed)."""

    idx: int
    bots: tuple[str, ...]
    attempts: int
    error: str
    failed_at: float


@dataclass(frozen=True)
class TournamentInfo:
    """A tournament as stored: its description and how far it got."""

    id: int
    name: str
    spec: dict[str, Any]
    created_at: float
    finished_at: float | None
    planned: int
    played: int
    failed: int
    driver: Holder | None


class StoreTournaments(StoreBase):
    """Tournaments, their drivers' leases, their schedules, failures and keys."""

    # ---------------------------------------------------------------- tournaments

    @translated
    def tournament(self, name: str, fingerprint: str, spec: dict[str, Any]) -> int:
        """The id of tournament ``name``, created if new (idempotent: two drivers creating it
        at once get the same one); refuses a changed description under one name. An
        existing tournament is only read (no write lock: a busy driver does not block it)."""
        query = "SELECT id, fingerprint FROM tournaments WHERE name = ?"
        row = self.db.execute(query, (name,)).fetchone()
        if row is None:
            with self.transaction() as db:
                db.execute(
                    "INSERT OR IGNORE INTO tournaments (name, fingerprint, spec, created_at)"
                    " VALUES (?, ?, ?, ?)",
                    (name, fingerprint, json.dumps(spec), time.time()),
                )
                row = db.execute(query, (name,)).fetchone()
        tournament_id, stored = row
        if stored != fingerprint:
            raise ValueError(
                f"a tournament named '{name}' exists with a different description; "
                "choose another name to run a new one"
            )
        return int(tournament_id)

    @translated
    def finish_tournament(self, tournament_id: int) -> None:
        with self.transaction() as db:
            db.execute(
                "UPDATE tournaments SET finished_at = ? WHERE id = ?", (time.time(), tournament_id)
            )

    @translated
    def tournaments(self) -> list[TournamentInfo]:
        """Every stored tournament, oldest first, with its progress and current driver."""
        rows = self.db.execute(
            "SELECT t.id, t.name, t.spec, t.created_at, t.finished_at,"
            " (SELECT COUNT(*) FROM schedule s WHERE s.tournament_id = t.id),"
            " (SELECT COUNT(*) FROM matches m WHERE m.tournament_id = t.id),"
            " (SELECT COUNT(*) FROM failures f WHERE f.tournament_id = t.id),"
            " l.host, l.pid, l.started, l.since, l.heartbeat"
            " FROM tournaments t LEFT JOIN leases l ON l.tournament_id = t.id ORDER BY t.id"
        ).fetchall()
        return [
            TournamentInfo(
                id=row[0],
                name=row[1],
                spec=json.loads(row[2]),
                created_at=row[3],
                finished_at=row[4],
                planned=row[5],
                played=row[6],
                failed=row[7],
                driver=Holder(*row[8:]) if row[8] is not None else None,
            )
            for row in rows
        ]

    def tournament_info(self, name: str) -> TournamentInfo | None:
        return next((t for t in self.tournaments() if t.name == name), None)

    @translated
    def tournament_id_of(self, name: str) -> int | None:
        row = self.db.execute("SELECT id FROM tournaments WHERE name = ?", (name,)).fetchone()
        return None if row is None else int(row[0])

    @translated
    def tournament_ids(self, names: Sequence[str]) -> dict[int, str]:
        marks = ",".join("?" * len(names)) or "NULL"
        query = f"SELECT id, name FROM tournaments WHERE name IN ({marks})"
        return dict(self.db.execute(query, list(names)).fetchall())

    @translated
    def delete_tournament(self, name: str) -> int:
        """Delete tournament ``name`` with its matches, seats, logs, plan and failures in one
        transaction; returns how many matches went. Ratings are recomputed from what
        remains. TournamentBusy while a live driver runs it."""
        with self.transaction() as db:
            row = db.execute("SELECT id FROM tournaments WHERE name = ?", (name,)).fetchone()
            if row is None:
                raise KeyError(name)
            lease = db.execute(
                "SELECT host, pid, started, since, heartbeat FROM leases WHERE tournament_id = ?",
                row,
            ).fetchone()
            if lease is not None and not Holder(*lease).is_gone():
                raise TournamentBusy(
                    f"tournament '{name}' is being run by {Holder(*lease).describe()}; "
                    "stop it first, then delete it"
                )
            matches = "SELECT id FROM matches WHERE tournament_id = ?"
            db.execute(f"DELETE FROM logs WHERE match_id IN ({matches})", row)
            db.execute(f"DELETE FROM seats WHERE match_id IN ({matches})", row)
            count = db.execute("DELETE FROM matches WHERE tournament_id = ?", row).rowcount
            for table in ("schedule", "failures", "leases", "tournament_keys"):
                db.execute(f"DELETE FROM {table} WHERE tournament_id = ?", row)
            db.execute("DELETE FROM tournaments WHERE id = ?", row)
        return count

    # ---------------------------------------------------------------- leases

    @translated
    def take_lease(self, tournament_id: int, name: str) -> Holder:
        """Become the one driver of a tournament; TournamentBusy names the running one (found
        by a read first, so a driver stopped in the middle of a write is named at once)."""
        me = Holder.me()
        query = "SELECT host, pid, started, since, heartbeat FROM leases WHERE tournament_id = ?"
        self._refuse_if_held(self.db.execute(query, (tournament_id,)).fetchone(), me, name)
        with self.transaction() as db:
            self._refuse_if_held(db.execute(query, (tournament_id,)).fetchone(), me, name)
            db.execute(
                "INSERT OR REPLACE INTO leases (tournament_id, host, pid, started, since,"
                " heartbeat) VALUES (?, ?, ?, ?, ?, ?)",
                (tournament_id, me.host, me.pid, me.started, me.since, me.heartbeat),
            )
        return me

    @staticmethod
    def _refuse_if_held(row: tuple | None, me: Holder, name: str) -> None:
        if row is None:
            return
        holder = Holder(*row)
        if not holder.same_process(me) and not holder.is_gone():
            raise TournamentBusy(
                f"tournament '{name}' is already being run by {holder.describe()}; "
                "wait for it to finish (or stop it), then run this command again"
            )

    @translated
    def renew_lease(self, tournament_id: int, holder: Holder) -> bool:
        """Renew our lease; False if another driver has taken it over meanwhile."""
        with self.transaction() as db:
            cursor = db.execute(
                "UPDATE leases SET heartbeat = ? WHERE tournament_id = ? AND host = ?"
                " AND pid = ? AND started = ?",
                (time.time(), tournament_id, holder.host, holder.pid, holder.started),
            )
        return cursor.rowcount == 1

    @translated
    def release_lease(self, tournament_id: int, holder: Holder) -> None:
        with self.transaction() as db:
            db.execute(
                "DELETE FROM leases WHERE tournament_id = ? AND host = ? AND pid = ?"
                " AND started = ?",
                (tournament_id, holder.host, holder.pid, holder.started),
            )

    @translated
    def leases(self) -> dict[str, Holder]:
        """Each tournament that has a driver now (or had one that died): its holder."""
        rows = self.db.execute(
            "SELECT t.name, l.host, l.pid, l.started, l.since, l.heartbeat"
            " FROM leases l JOIN tournaments t ON t.id = l.tournament_id"
        )
        return {row[0]: Holder(*row[1:]) for row in rows}

    # ---------------------------------------------------------------- the schedule

    @translated
    def plan(self, tournament_id: int, matches: Iterable[MatchSpec]) -> None:
        """Store planned matches (before they are played); a planned index keeps its plan."""
        now = time.time()
        with self.transaction() as db:
            db.executemany(
                "INSERT OR IGNORE INTO schedule (tournament_id, idx, seed, bots, planned_at)"
                " VALUES (?, ?, ?, ?, ?)",
                [(tournament_id, m.index, m.seed, json.dumps(m.bots), now) for m in matches],
            )

    @translated
    def planned(self, tournament_id: int, start: int = 0) -> list[MatchSpec]:
        """The stored plan from index ``start`` on, in schedule order (a competition's
        ladder asks only for what it may still play: its tournament holds millions)."""
        rows = self.db.execute(
            "SELECT idx, seed, bots FROM schedule WHERE tournament_id = ? AND idx >= ?"
            " ORDER BY idx",
            (tournament_id, start),
        )
        return [MatchSpec(idx, seed, tuple(json.loads(bots))) for idx, seed, bots in rows]

    @translated
    def planned_match(self, tournament_id: int, idx: int) -> MatchSpec | None:
        """Match ``idx`` of the stored plan, or None."""
        row = self.db.execute(
            "SELECT seed, bots FROM schedule WHERE tournament_id = ? AND idx = ?",
            (tournament_id, idx),
        ).fetchone()
        return MatchSpec(idx, row[0], tuple(json.loads(row[1]))) if row else None

    @translated
    def done_indices(self, tournament_id: int, start: int = 0, stop: int | None = None) -> set[int]:
        """Indices of the stored matches in ``[start, stop)`` (all by default)."""
        query = "SELECT idx FROM matches WHERE tournament_id = ? AND idx >= ?"
        if stop is None:
            rows = self.db.execute(query, (tournament_id, start))
        else:
            rows = self.db.execute(query + " AND idx < ?", (tournament_id, start, stop))
        return {int(r[0]) for r in rows}

    @translated
    def next_index(self, tournament_id: int) -> int:
        """The index after every planned or stored match (two index look-ups)."""
        row = self.db.execute(
            "SELECT MAX(IFNULL((SELECT MAX(idx) FROM schedule WHERE tournament_id = ?), -1),"
            " IFNULL((SELECT MAX(idx) FROM matches WHERE tournament_id = ?), -1))",
            (tournament_id, tournament_id),
        ).fetchone()
        return int(row[0]) + 1

    @translated
    def record_failure(self, tournament_id: int, idx: int, attempts: int, error: str) -> None:
        """Note that match ``idx`` could not be played (an arena fault: no rating change)."""
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO failures (tournament_id, idx, attempts, error, failed_at)"
                " SELECT ?, ?, ?, ?, ? WHERE NOT EXISTS"
                " (SELECT 1 FROM matches WHERE tournament_id = ? AND idx = ?)",
                (tournament_id, idx, attempts, error[:2000], time.time(), tournament_id, idx),
            )

    @translated
    def failures(self, tournament_id: int) -> list[Failure]:
        rows = self.db.execute(
            "SELECT f.idx, s.bots, f.attempts, f.error, f.failed_at FROM failures f"
            " JOIN schedule s ON s.tournament_id = f.tournament_id AND s.idx = f.idx"
            " WHERE f.tournament_id = ? ORDER BY f.idx",
            (tournament_id,),
        )
        return [
            Failure(idx, tuple(json.loads(bots)), attempts, error, at)
            for idx, bots, attempts, error, at in rows
        ]

    # ---------------------------------------------------------------- keys

    @translated
    def tournament_secret(self, tournament_id: int, fresh: bytes) -> bytes:
        """The secret a tournament's games are keyed with (arena/referee/keys.py): ``fresh``
        is kept the first time, the kept one returned ever after (read without a write lock),
        so a resumed tournament plays the same games. Bots cannot read the store."""
        query = "SELECT secret FROM tournament_keys WHERE tournament_id = ?"
        row = self.db.execute(query, (tournament_id,)).fetchone()
        if row is None:
            with self.transaction() as db:
                db.execute(
                    "INSERT OR IGNORE INTO tournament_keys (tournament_id, secret) VALUES (?, ?)",
                    (tournament_id, fresh),
                )
                row = db.execute(query, (tournament_id,)).fetchone()
        return bytes(row[0])

    @translated
    def kept_secret(self, tournament_id: int) -> bytes | None:
        """The tournament's secret if the store keeps one; never writes (a reader's call)."""
        query = "SELECT secret FROM tournament_keys WHERE tournament_id = ?"
        row = self.db.execute(query, (tournament_id,)).fetchone()
        return bytes(row[0]) if row else None
