"""Participants' submissions: each upload, its validation (on every board), which versions
play, which an admin took off the boards, and who owns each."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from arena.server.accounts_db import AccountError, AccountsBase, User
from arena.server.accounts_teams import playing_count, side_ids


def bot_key(user: str, bot: str) -> str:
    """The name a participant's bot is registered under in the results store."""
    return f"{user}.{bot}"


class AccountSubmissions(AccountsBase):
    """Submissions and their versions."""

    # ---------------------------------------------------------------- submissions

    def submissions_today(self, user: User) -> int:
        query = "SELECT COUNT(*) FROM submissions WHERE user_id = ? AND created_at > ?"
        return int(self.db.execute(query, (user.id, time.time() - 86400)).fetchone()[0])

    def add_submission(self, user: User, bot: str, upload: str) -> int:
        with self.transaction() as db:
            cursor = db.execute(
                "INSERT INTO submissions (user_id, bot, upload, status, created_at)"
                " VALUES (?, ?, ?, 'queued', ?)",
                (user.id, bot, upload, time.time()),
            )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def submission(self, submission_id: int) -> dict[str, Any] | None:
        rows = self._submissions("WHERE s.id = ?", (submission_id,))
        return rows[0] if rows else None

    def submissions(self, user: User | None = None) -> list[dict[str, Any]]:
        if user is None:
            return self._submissions("", ())
        return self._submissions("WHERE s.user_id = ?", (user.id,))

    def _submissions(self, where: str, args: tuple) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT s.id, s.user_id, u.name, s.bot, s.upload, s.status, s.reason, s.stderr,"
            " s.version, s.active, s.disabled, s.created_at, s.disabled_reason FROM submissions s"
            f" JOIN users u ON u.id = s.user_id {where} ORDER BY s.id",
            args,
        )
        keys: tuple[str, ...] = ("id", "user_id", "owner", "bot", "upload", "status", "reason")
        keys += ("stderr", "version", "active", "disabled", "created_at", "disabled_reason")
        found = [dict(zip(keys, row, strict=True)) for row in rows]
        for row in found:
            row["key"] = bot_key(row["owner"], row["bot"])
            row["label"] = f"{row['key']}@{row['version']}" if row["version"] else None
        return found

    def pending(self) -> list[int]:
        """Submissions whose validation has not finished (also those a kill interrupted)."""
        rows = self.db.execute(
            "SELECT id FROM submissions WHERE status IN ('queued', 'validating') ORDER BY id"
        )
        return [row[0] for row in rows]

    def set_status(
        self, submission_id: int, status: str, reason: str = "", stderr: str = ""
    ) -> None:
        with self.transaction() as db:
            db.execute(
                "UPDATE submissions SET status = ?, reason = ?, stderr = ? WHERE id = ?",
                (status, reason[:2000], stderr[-65536:], submission_id),
            )

    def passed(self, submission_id: int, version: int, active_limit: int) -> None:
        """A validated version: it replaces its bot's active version, and plays if the
        participant (with their team, if in one) has fewer than ``active_limit`` active
        versions."""
        with self.transaction() as db:
            user_id, bot = db.execute(
                "SELECT user_id, bot FROM submissions WHERE id = ?", (submission_id,)
            ).fetchone()
            db.execute(
                "UPDATE submissions SET active = 0 WHERE user_id = ? AND bot = ?", (user_id, bot)
            )
            active = playing_count(db, side_ids(db, user_id))
            db.execute(
                "UPDATE submissions SET status = 'ok', version = ?, active = ? WHERE id = ?",
                (version, int(active < active_limit), submission_id),
            )

    def set_active(self, submission_id: int, active: bool, active_limit: int) -> None:
        with self.transaction() as db:
            row = db.execute(
                "SELECT user_id, status, disabled FROM submissions WHERE id = ?", (submission_id,)
            ).fetchone()
            if active:
                if row[1] != "ok" or row[2]:
                    raise AccountError("only a validated, enabled version can play")
                count = playing_count(db, side_ids(db, row[0]), but=submission_id)
                if count >= active_limit:
                    raise AccountError(
                        f"at most {active_limit} versions play at once (a team's together):"
                        " stop one first"
                    )
            db.execute(
                "UPDATE submissions SET active = ? WHERE id = ?", (int(active), submission_id)
            )

    def disable_submission(self, submission_id: int, reason: str = "") -> None:
        """The version stops playing and leaves the boards; its owner sees ``reason``."""
        with self.transaction() as db:
            db.execute(
                "UPDATE submissions SET disabled = 1, active = 0, disabled_reason = ? WHERE id = ?",
                (reason.strip()[:500], submission_id),
            )

    def enable_submission(self, submission_id: int) -> None:
        """The version is back on the boards and may play again (it rests until its owner
        chooses it: the owner's other versions may fill ``active_bots``)."""
        with self.transaction() as db:
            db.execute(
                "UPDATE submissions SET disabled = 0, disabled_reason = '' WHERE id = ?",
                (submission_id,),
            )

    def hidden(self) -> dict[str, str]:
        """Versions kept off the boards, each with why: disabled by an admin (the reason
        given), or of a disabled account."""
        rows = self.db.execute(
            "SELECT u.name, s.bot, s.version, s.disabled, s.disabled_reason"
            " FROM submissions s JOIN users u ON u.id = s.user_id"
            " WHERE s.version IS NOT NULL AND (s.disabled = 1 OR u.disabled = 1)"
        )
        found = {}
        for user, bot, version, disabled, reason in rows:
            why = "disabled by an admin" + (f": {reason}" if reason else "")
            found[f"{bot_key(user, bot)}@{version}"] = why if disabled else "account disabled"
        return found

    def playing(self, board: str | None = None) -> dict[str, str]:
        """The versions that play (``USER.BOT@N``), each with its owner's name; with a
        ``board`` (VARIANT-PLAYERSp), those that did not fail its validation."""
        failed = (
            " AND NOT EXISTS (SELECT 1 FROM board_results b WHERE b.submission_id = s.id"
            " AND b.board = ? AND b.passed = 0)"
        )
        rows = self.db.execute(
            "SELECT u.name, s.bot, s.version FROM submissions s JOIN users u ON u.id = s.user_id"
            " WHERE s.active = 1 AND s.disabled = 0 AND s.status = 'ok' AND u.disabled = 0"
            + (failed if board is not None else ""),
            (board,) if board is not None else (),
        )
        return {f"{bot_key(user, bot)}@{version}": user for user, bot, version in rows}

    def sides(self, board: str | None = None) -> dict[str, str]:
        """The versions that play (as ``playing``), each with its side: ``team:ID`` for a
        member of a team, else its owner's name (never two bots of one side at a table)."""
        return self._sided(self.playing(board))

    def sides_of(self, labels: Iterable[str]) -> dict[str, str]:
        """Validated versions (playing or not: a final's ``top`` may hold a resting one),
        each with its side as ``sides`` gives it."""
        owners = self.owners()
        return self._sided({label: owners[label] for label in labels if label in owners})

    def _sided(self, owners: dict[str, str]) -> dict[str, str]:
        teams = dict(
            self.db.execute(
                "SELECT u.name, m.team_id FROM team_members m JOIN users u ON u.id = m.user_id"
            ).fetchall()
        )
        return {
            label: f"team:{teams[owner]}" if owner in teams else owner
            for label, owner in owners.items()
        }

    def eligible(self) -> set[str]:
        """Validated versions an admin did not disable, of enabled accounts (the final's
        pool: a version resting from the ladder may still be among the best)."""
        rows = self.db.execute(
            "SELECT u.name, s.bot, s.version FROM submissions s JOIN users u ON u.id = s.user_id"
            " WHERE s.version IS NOT NULL AND s.disabled = 0 AND u.disabled = 0"
        )
        return {f"{bot_key(user, bot)}@{version}" for user, bot, version in rows}

    def owners(self) -> dict[str, str]:
        """Every validated version's label, with its owner (for who sees which logs)."""
        rows = self.db.execute(
            "SELECT u.name, s.bot, s.version FROM submissions s JOIN users u ON u.id = s.user_id"
            " WHERE s.version IS NOT NULL"
        )
        return {f"{bot_key(user, bot)}@{version}": user for user, bot, version in rows}

    # ---------------------------------------------------------------- validation per board

    def set_board_results(self, submission_id: int, results: list[dict[str, Any]]) -> None:
        """A submission's validation on each board: ``board``, ``passed``, ``reason``,
        ``stderr`` (what its owner is told of a failure)."""
        with self.transaction() as db:
            db.execute("DELETE FROM board_results WHERE submission_id = ?", (submission_id,))
            db.executemany(
                "INSERT INTO board_results (submission_id, board, passed, reason, stderr)"
                " VALUES (?, ?, ?, ?, ?)",
                [
                    (submission_id, r["board"], int(r["passed"]), r["reason"][:2000],
                     r["stderr"][-65536:])
                    for r in results
                ],
            )  # fmt: skip

    def board_results(self, submission_id: int) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT board, passed, reason, stderr FROM board_results WHERE submission_id = ?"
            " ORDER BY rowid",
            (submission_id,),
        )
        return [{"board": b, "passed": bool(p), "reason": r, "stderr": e} for b, p, r, e in rows]
