"""What the competition keeps besides its people and their bots: challenges, voided
matches, each board's finals, and the settings an admin changes while it runs."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from arena.server.accounts_db import AccountsBase, User


@dataclass(frozen=True)
class FinalRound:
    """One final of one board: its round (1, 2, ... as the deadline moved), the deadline
    it was played at, who plays it, whether it has finished, and each bot's side (its
    team or owner: no two of one side at a table; empty for a final fixed before sides
    were kept)."""

    board: str
    number: int
    deadline: str
    bots: list[str]
    finished: bool
    sides: dict[str, str] = field(default_factory=dict)

    def apart(self) -> tuple[tuple[str, ...], ...]:
        """The bots that never meet, as groups: each side's bots (in the final's order)."""
        groups: dict[str, list[str]] = {}
        for bot in self.bots:
            if bot in self.sides:
                groups.setdefault(self.sides[bot], []).append(bot)
        return tuple(tuple(group) for group in groups.values())


class AccountCompetition(AccountsBase):
    """Challenges, voids, finals and settings."""

    # ---------------------------------------------------------------- challenges

    def add_challenge(
        self,
        user: User,
        board: str,
        bots: list[str],
        owners: list[str],
        games: int,
        elo1: float | None,
        ranked: bool = False,
    ) -> int:
        with self.transaction() as db:
            cursor = db.execute(
                "INSERT INTO challenges (user_id, board, bots, owners, games, elo1, ranked,"
                " status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'queued', ?)",
                (
                    user.id, board, json.dumps(bots), json.dumps(owners), games, elo1,
                    int(ranked), time.time(),
                ),
            )  # fmt: skip
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def challenge(self, challenge_id: int) -> dict[str, Any] | None:
        found = self._challenges("WHERE c.id = ?", (challenge_id,))
        return found[0] if found else None

    def challenges(self, user: User | None = None, since: float = 0.0) -> list[dict[str, Any]]:
        """Challenges made since ``since``; with a ``user``, those they (or their team)
        made or whose opponents include one of their (or their team's) bots."""
        found = self._challenges("WHERE c.created_at > ?", (since,))
        if user is None:
            return found
        return [c for c in found if any(map(user.speaks_for, [c["owner"], *c["owners"]]))]

    def open_challenges(self) -> list[dict[str, Any]]:
        return self._challenges("WHERE c.status = 'queued'", ())

    def _challenges(self, where: str, args: tuple) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT c.id, u.name, c.board, c.bots, c.owners, c.games, c.elo1, c.status,"
            " c.reason, c.created_at, c.finished_at, c.ranked, c.ladder_start FROM challenges c"
            f" JOIN users u ON u.id = c.user_id {where} ORDER BY c.id",
            args,
        )
        keys: tuple[str, ...] = ("id", "owner", "board", "bots", "owners", "games", "elo1")
        keys += ("status", "reason")
        keys += ("created_at", "finished_at", "ranked", "ladder_start")
        found = [dict(zip(keys, row, strict=True)) for row in rows]
        for row in found:
            row["bots"], row["owners"] = json.loads(row["bots"]), json.loads(row["owners"])
            row["ranked"] = bool(row["ranked"])
        return found

    def place_ranked_challenge(self, challenge_id: int, ladder_start: int) -> None:
        """Where a ranked challenge's games are in its board's ladder: from this index on."""
        with self.transaction() as db:
            db.execute(
                "UPDATE challenges SET ladder_start = ? WHERE id = ?", (ladder_start, challenge_id)
            )

    def finish_challenge(self, challenge_id: int, reason: str = "") -> None:
        with self.transaction() as db:
            db.execute(
                "UPDATE challenges SET status = 'done', reason = ?, finished_at = ? WHERE id = ?",
                (reason[:2000], time.time(), challenge_id),
            )

    # ---------------------------------------------------------------- voided matches

    def void(self, match_id: int, by: User) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT OR IGNORE INTO voided (match_id, by_user, at) VALUES (?, ?, ?)",
                (match_id, by.id, time.time()),
            )

    def voided(self) -> set[int]:
        return {row[0] for row in self.db.execute("SELECT match_id FROM voided")}

    # ---------------------------------------------------------------- the final

    def final_rounds(self, board: str) -> list[FinalRound]:
        """A board's finals, oldest first: one per deadline a final was played at."""
        rows = self.db.execute(
            "SELECT round, deadline, bots, finished, sides FROM final_rounds WHERE board = ?"
            " ORDER BY round",
            (board,),
        )
        return [
            FinalRound(
                board,
                number,
                deadline or "",
                json.loads(bots),
                bool(done),
                json.loads(sides or "{}"),
            )
            for number, deadline, bots, done, sides in rows
        ]

    def final_round(self, board: str, deadline: str) -> FinalRound | None:
        """The board's final played at ``deadline`` (ISO 8601), if one was fixed."""
        found = [r for r in self.final_rounds(board) if r.deadline == deadline]
        return found[-1] if found else None

    def settle_old_finals(self, deadline: str, closed: bool) -> None:
        """Finals fixed before rounds were kept carry no deadline: they belong to the
        deadline in force if it has passed, else they are history (an earlier deadline)."""
        with self.transaction() as db:
            db.execute(
                "UPDATE final_rounds SET deadline = ? WHERE deadline IS NULL",
                (deadline if closed else "earlier",),
            )

    def fix_final(
        self, board: str, deadline: str, bots: list[str], sides: dict[str, str]
    ) -> FinalRound:
        """Who plays a board's final at ``deadline`` and their sides, fixed once (a restart
        plays the same final); a deadline with no final yet starts the board's next round."""
        with self.transaction() as db:
            found = db.execute(
                "SELECT 1 FROM final_rounds WHERE board = ? AND deadline = ?", (board, deadline)
            ).fetchone()
            if found is None:
                last = db.execute(
                    "SELECT COALESCE(MAX(round), 0) FROM final_rounds WHERE board = ?", (board,)
                ).fetchone()[0]
                db.execute(
                    "INSERT INTO final_rounds (board, round, deadline, bots, sides)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (board, last + 1, deadline, json.dumps(bots), json.dumps(sides)),
                )
        fixed = self.final_round(board, deadline)
        assert fixed is not None
        return fixed

    def finish_final(self, board: str, number: int) -> None:
        with self.transaction() as db:
            db.execute(
                "UPDATE final_rounds SET finished = 1 WHERE board = ? AND round = ?",
                (board, number),
            )

    # ---------------------------------------------------------------- settings

    def setting(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_setting(self, key: str, value: str | None) -> None:
        """Set (or, with None, forget) a setting."""
        with self.transaction() as db:
            if value is None:
                db.execute("DELETE FROM settings WHERE key = ?", (key,))
            else:
                db.execute(
                    "INSERT INTO settings (key, value, at) VALUES (?, ?, ?) ON CONFLICT(key)"
                    " DO UPDATE SET value = excluded.value, at = excluded.at",
                    (key, value, time.time()),
                )
