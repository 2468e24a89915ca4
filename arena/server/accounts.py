"""The competition's own store: accounts, sessions, API tokens, sign-in failures,
submissions and voided matches, in ``accounts.sqlite`` beside the results store.

Durability is the results store's: WAL journal, ``synchronous=FULL``, one short
transaction per change, so a ``kill -9`` at any moment keeps every committed
account, session, upload record and void. Secrets are stored hashed: passwords
with argon2id (memory-hard, argon2-cffi), session ids and tokens with SHA-256
(they are long random values, so a fast hash is enough).
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from arena.server.schema import migrate
from arena.server.throttle import Throttle, keys_for

FILE_NAME = "accounts.sqlite"
SESSION_SECONDS = 14 * 86400
TOKEN_SECONDS = 90 * 86400
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}")  # no '.': bots are stored as USER.BOT
MIN_PASSWORD = 8
MAX_PASSWORD = 256
# What an API token may be allowed, chosen when it is made (``arena.server.api`` says
# which route needs which): upload a bot; read one's own submissions; an admin's export.
SCOPES = ("submit", "read", "admin")
DEFAULT_SCOPES = ("submit", "read")
MAX_LIVE_TOKENS = 10  # unrevoked, unexpired tokens per account
RESET_SECONDS = 2 * 86400  # a password-reset code an admin hands over works this long


class AccountError(ValueError):
    """What was asked cannot be done; the message is one line for the person."""


@dataclass(frozen=True)
class User:
    id: int
    name: str
    role: str
    disabled: bool

    @property
    def admin(self) -> bool:
        return self.role == "admin"


@dataclass(frozen=True)
class Grant:
    """What a presented API token grants: whose it is, which token, which scopes."""

    user: User
    token_id: int
    scopes: frozenset[str]


def checked_scopes(user: User, scopes: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The scopes asked for, in ``SCOPES`` order; refused if none, unknown, or ``admin``
    for an account that is not an admin's."""
    unknown = sorted(set(scopes) - set(SCOPES))
    if unknown:
        raise AccountError(
            f"unknown scope {unknown[0][:32]!r}: a token's scopes are {', '.join(SCOPES)}"
        )
    if not scopes:
        raise AccountError("choose at least one scope for the token")
    if "admin" in scopes and not user.admin:
        raise AccountError("only an admin can make a token with the admin scope")
    return tuple(scope for scope in SCOPES if scope in scopes)


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def bot_key(user: str, bot: str) -> str:
    """The name a participant's bot is registered under in the results store."""
    return f"{user}.{bot}"


def check_account_name(name: str, what: str = "name") -> None:
    if not NAME.fullmatch(name):
        raise AccountError(
            f"a {what} is 1-32 letters, digits, '-' and '_', starting with a letter or digit"
        )


class Accounts:
    """``accounts.sqlite`` in ``data_dir``; one connection per thread (web handlers run in
    a thread pool, the validator and the ladder in threads of their own)."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.path = self.data_dir / FILE_NAME
        self.local = threading.local()
        self.hasher = PasswordHasher()
        migrate(self.db, self.path)
        self.throttle = Throttle(lambda: self.db, self.transaction)
        # A dummy hash: a sign-in for an unknown name costs what a known one does.
        self.dummy = self.hasher.hash(secrets.token_hex(16))

    @property
    def db(self) -> sqlite3.Connection:
        db = getattr(self.local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA foreign_keys=ON")
            self.local.db = db
        return db

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    # ---------------------------------------------------------------- users

    def create_user(self, name: str, password: str, role: str = "participant") -> User:
        check_account_name(name)
        if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
            raise AccountError(f"a password is {MIN_PASSWORD}-{MAX_PASSWORD} characters")
        hashed = self.hasher.hash(password)
        try:
            with self.transaction() as db:
                cursor = db.execute(
                    "INSERT INTO users (name, password, role, created_at) VALUES (?, ?, ?, ?)",
                    (name, hashed, role, time.time()),
                )
        except sqlite3.IntegrityError:
            raise AccountError(f"the name '{name}' is taken: choose another") from None
        assert cursor.lastrowid is not None
        return User(cursor.lastrowid, name, role, False)

    def user(self, user_id: int) -> User | None:
        row = self.db.execute(
            "SELECT id, name, role, disabled FROM users WHERE id = ?", (user_id,)
        ).fetchone()
        return User(row[0], row[1], row[2], bool(row[3])) if row else None

    def user_named(self, name: str) -> User | None:
        row = self.db.execute(
            "SELECT id, name, role, disabled FROM users WHERE name = ?", (name,)
        ).fetchone()
        return User(row[0], row[1], row[2], bool(row[3])) if row else None

    def users(self) -> list[User]:
        rows = self.db.execute("SELECT id, name, role, disabled FROM users ORDER BY id")
        return [User(r[0], r[1], r[2], bool(r[3])) for r in rows]

    def set_role(self, name: str, role: str) -> None:
        """Make ``name`` an admin or a participant; the last enabled admin stays one (else
        nobody could reach ``/admin`` again but from the host's command line)."""
        with self.transaction() as db:
            if role != "admin":
                others = db.execute(
                    "SELECT COUNT(*) FROM users WHERE role = 'admin' AND disabled = 0"
                    " AND name != ?",
                    (name,),
                ).fetchone()[0]
                if not others:
                    raise AccountError(f"{name} is the last admin: promote another first")
            db.execute("UPDATE users SET role = ? WHERE name = ?", (role, name))

    def disable_user(self, user_id: int) -> None:
        """A disabled account cannot sign in, its sessions and tokens end, its bots stop."""
        with self.transaction() as db:
            db.execute("UPDATE users SET disabled = 1 WHERE id = ?", (user_id,))
            db.execute("DELETE FROM sessions WHERE user_id = ?", (user_id,))
            db.execute("UPDATE tokens SET revoked = 1 WHERE user_id = ?", (user_id,))
            db.execute("UPDATE submissions SET active = 0 WHERE user_id = ?", (user_id,))

    def enable_user(self, user_id: int) -> None:
        """The account signs in again (a new session; its old tokens stay revoked). Its bots
        rest until the participant chooses which play."""
        with self.transaction() as db:
            db.execute("UPDATE users SET disabled = 0 WHERE id = ?", (user_id,))

    def new_reset_code(self, user: User, by: User | None, seconds: float = RESET_SECONDS) -> str:
        """A one-time code to set ``user``'s password, for an admin to hand over: only its
        hash is kept; it expires after ``seconds`` and works once. A new code replaces the
        codes not yet used."""
        code = "-".join(secrets.token_hex(3) for _ in range(4))
        with self.transaction() as db:
            db.execute(
                "DELETE FROM password_resets WHERE user_id = ? AND used_at IS NULL", (user.id,)
            )
            db.execute(
                "INSERT INTO password_resets (code_hash, user_id, by_user, expires_at)"
                " VALUES (?, ?, ?, ?)",
                (digest(code), user.id, by.id if by else 0, time.time() + seconds),
            )
        return code

    def reset_password(self, code: str, password: str) -> User:
        """Set a new password with a reset code: used once, before it expires; every
        session of the account ends (wherever it was signed in, it is signed out)."""
        if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
            raise AccountError(f"a password is {MIN_PASSWORD}-{MAX_PASSWORD} characters")
        hashed = self.hasher.hash(password)
        with self.transaction() as db:
            row = db.execute(
                "SELECT user_id, expires_at, used_at FROM password_resets WHERE code_hash = ?",
                (digest(code.strip().lower()),),
            ).fetchone()
            if row is None or row[2] is not None or row[1] < time.time():
                raise AccountError(
                    "that reset code is not valid (used, expired or mistyped): ask an admin "
                    "for a new one"
                )
            db.execute(
                "UPDATE password_resets SET used_at = ? WHERE code_hash = ?",
                (time.time(), digest(code.strip().lower())),
            )
            db.execute("UPDATE users SET password = ? WHERE id = ?", (hashed, row[0]))
            db.execute("DELETE FROM sessions WHERE user_id = ?", (row[0],))
        user = self.user(row[0])
        assert user is not None
        self.throttle.clear_account(user.name)
        return user

    # ---------------------------------------------------------------- signing in

    def clear_signin_delays(self, name: str) -> int:
        """An admin's word: forget ``name``'s failed sign-ins everywhere; how many."""
        return self.throttle.clear_account(name)

    def signin_wait(self, name: str, address: str, device: str | None) -> int:
        """Seconds before a sign-in of ``name`` from ``address`` (and ``device``, the id of
        the browser's valid device cookie for that name, if any) may be tried; 0: now."""
        return self.throttle.wait(keys_for(name, address, device))

    def sign_in(
        self, name: str, password: str, address: str, device: str | None = None
    ) -> User | None:
        """The user if the password is right and the account enabled, else None; a failure
        is counted against the device if the browser has one for this name, else against
        the name from this address and against the address."""
        row = self.db.execute(
            "SELECT id, password, disabled FROM users WHERE name = ?", (name,)
        ).fetchone()
        ok: bool
        try:
            ok = self.hasher.verify(row[1] if row else self.dummy, password[:MAX_PASSWORD])
        except (VerificationError, InvalidHashError):
            ok = False
        keys = keys_for(name, address, device)
        if row is None or not ok or row[2]:
            self.throttle.fail(keys)
            return None
        self.throttle.clear(keys[:1])  # the name's own failures here; the address's stay
        return self.user(row[0])

    def new_session(self, user: User) -> str:
        """A new session id (the cookie's value): a fresh one at every sign-in, so an id
        planted before it (session fixation) never becomes signed in."""
        session = secrets.token_urlsafe(32)
        with self.transaction() as db:
            db.execute(
                "INSERT INTO sessions (id_hash, user_id, csrf, expires_at) VALUES (?, ?, ?, ?)",
                (
                    digest(session),
                    user.id,
                    secrets.token_urlsafe(24),
                    time.time() + SESSION_SECONDS,
                ),
            )
            db.execute("DELETE FROM sessions WHERE expires_at < ?", (time.time(),))
        return session

    def session(self, session: str) -> tuple[User, str] | None:
        """(user, CSRF token) of a live session of an enabled account, or None."""
        row = self.db.execute(
            "SELECT user_id, csrf, expires_at FROM sessions WHERE id_hash = ?", (digest(session),)
        ).fetchone()
        if row is None or row[2] < time.time():
            return None
        user = self.user(row[0])
        if user is None or user.disabled:
            return None
        return user, row[1]

    def end_session(self, session: str) -> None:
        with self.transaction() as db:
            db.execute("DELETE FROM sessions WHERE id_hash = ?", (digest(session),))

    # ---------------------------------------------------------------- API tokens

    def new_token(
        self,
        user: User,
        label: str = "cli",
        scopes: tuple[str, ...] = DEFAULT_SCOPES,
        seconds: float = TOKEN_SECONDS,
    ) -> str:
        """A token for the command line with the scopes asked for, shown once (only its
        hash is kept). Refused when a scope is unknown, ``admin`` is asked by a
        participant, or the account already has ``MAX_LIVE_TOKENS`` live tokens."""
        chosen = checked_scopes(user, scopes)
        token = "arena_" + secrets.token_urlsafe(32)
        now = time.time()
        with self.transaction() as db:
            live = db.execute(
                "SELECT COUNT(*) FROM tokens WHERE user_id = ? AND revoked = 0 AND expires_at > ?",
                (user.id, now),
            ).fetchone()[0]
            if live >= MAX_LIVE_TOKENS:
                raise AccountError(
                    f"at most {MAX_LIVE_TOKENS} live API tokens per account: revoke one first"
                )
            db.execute(
                "INSERT INTO tokens (user_id, token_hash, label, created_at, expires_at, scopes)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (user.id, digest(token), label[:64], now, now + seconds, ",".join(chosen)),
            )
        return token

    def token_grant(self, token: str) -> Grant | None:
        """What a presented token grants, or None if it is unknown, revoked, expired or
        its account is disabled."""
        row = self.db.execute(
            "SELECT id, user_id, expires_at, revoked, scopes FROM tokens WHERE token_hash = ?",
            (digest(token),),
        ).fetchone()
        if row is None or row[3] or row[2] < time.time():
            return None
        user = self.user(row[1])
        if user is None or user.disabled:
            return None
        return Grant(user, row[0], frozenset(row[4].split(",")))

    def tokens(self, user: User) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT id, label, created_at, expires_at, revoked, scopes FROM tokens"
            " WHERE user_id = ? ORDER BY id",
            (user.id,),
        )
        keys = ("id", "label", "created_at", "expires_at", "revoked", "scopes")
        found = [dict(zip(keys, row, strict=True)) for row in rows]
        for token in found:
            token["scopes"] = token["scopes"].split(",")
            token["live"] = not token["revoked"] and token["expires_at"] > time.time()
        return found

    def revoke_token(self, user: User, token_id: int) -> None:
        with self.transaction() as db:
            db.execute(
                "UPDATE tokens SET revoked = 1 WHERE id = ? AND user_id = ?", (token_id, user.id)
            )

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
        participant has fewer than ``active_limit`` active versions."""
        with self.transaction() as db:
            user_id, bot = db.execute(
                "SELECT user_id, bot FROM submissions WHERE id = ?", (submission_id,)
            ).fetchone()
            db.execute(
                "UPDATE submissions SET active = 0 WHERE user_id = ? AND bot = ?", (user_id, bot)
            )
            active = db.execute(
                "SELECT COUNT(*) FROM submissions WHERE user_id = ? AND active = 1", (user_id,)
            ).fetchone()[0]
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
                count = db.execute(
                    "SELECT COUNT(*) FROM submissions WHERE user_id = ? AND active = 1 AND id != ?",
                    (row[0], submission_id),
                ).fetchone()[0]
                if count >= active_limit:
                    raise AccountError(
                        f"at most {active_limit} versions play at once: stop one first"
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

    # ---------------------------------------------------------------- challenges

    def add_challenge(
        self,
        user: User,
        board: str,
        bots: list[str],
        owners: list[str],
        games: int,
        elo1: float | None,
    ) -> int:
        with self.transaction() as db:
            cursor = db.execute(
                "INSERT INTO challenges (user_id, board, bots, owners, games, elo1, status,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?, 'queued', ?)",
                (user.id, board, json.dumps(bots), json.dumps(owners), games, elo1, time.time()),
            )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def challenge(self, challenge_id: int) -> dict[str, Any] | None:
        found = self._challenges("WHERE c.id = ?", (challenge_id,))
        return found[0] if found else None

    def challenges(self, user: User | None = None, since: float = 0.0) -> list[dict[str, Any]]:
        """Challenges made since ``since``; with a ``user``, those they made or whose
        opponents include one of their bots."""
        found = self._challenges("WHERE c.created_at > ?", (since,))
        if user is None:
            return found
        return [c for c in found if c["owner"] == user.name or user.name in c["owners"]]

    def open_challenges(self) -> list[dict[str, Any]]:
        return self._challenges("WHERE c.status = 'queued'", ())

    def _challenges(self, where: str, args: tuple) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT c.id, u.name, c.board, c.bots, c.owners, c.games, c.elo1, c.status,"
            " c.reason, c.created_at, c.finished_at FROM challenges c"
            f" JOIN users u ON u.id = c.user_id {where} ORDER BY c.id",
            args,
        )
        keys: tuple[str, ...] = ("id", "owner", "board", "bots", "owners", "games", "elo1")
        keys += ("status", "reason")
        keys += ("created_at", "finished_at")
        found = [dict(zip(keys, row, strict=True)) for row in rows]
        for row in found:
            row["bots"], row["owners"] = json.loads(row["bots"]), json.loads(row["owners"])
        return found

    def finish_challenge(self, challenge_id: int, reason: str = "") -> None:
        with self.transaction() as db:
            db.execute(
                "UPDATE challenges SET status = 'done', reason = ?, finished_at = ? WHERE id = ?",
                (reason[:2000], time.time(), challenge_id),
            )

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
            "SELECT round, deadline, bots, finished FROM final_rounds WHERE board = ?"
            " ORDER BY round",
            (board,),
        )
        return [FinalRound(board, r[0], r[1] or "", json.loads(r[2]), bool(r[3])) for r in rows]

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

    def fix_final(self, board: str, deadline: str, bots: list[str]) -> FinalRound:
        """Who plays a board's final at ``deadline``, fixed once (a restart plays the same
        final); a deadline with no final yet starts the board's next round."""
        with self.transaction() as db:
            found = db.execute(
                "SELECT 1 FROM final_rounds WHERE board = ? AND deadline = ?", (board, deadline)
            ).fetchone()
            if found is None:
                last = db.execute(
                    "SELECT COALESCE(MAX(round), 0) FROM final_rounds WHERE board = ?", (board,)
                ).fetchone()[0]
                db.execute(
                    "INSERT INTO final_rounds (board, round, deadline, bots) VALUES (?, ?, ?, ?)",
                    (board, last + 1, deadline, json.dumps(bots)),
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


@dataclass(frozen=True)
class FinalRound:
    """One final of one board: its round (1, 2, ... as the deadline moved), the deadline
    it was played at, who plays it and whether it has finished."""

    board: str
    number: int
    deadline: str
    bots: list[str]
    finished: bool
