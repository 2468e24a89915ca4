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
        with self.transaction() as db:
            db.execute("UPDATE users SET role = ? WHERE name = ?", (role, name))

    def disable_user(self, user_id: int) -> None:
        """A disabled account cannot sign in, its sessions and tokens end, its bots stop."""
        with self.transaction() as db:
            db.execute("UPDATE users SET disabled = 1 WHERE id = ?", (user_id,))
            db.execute("DELETE FROM sessions WHERE user_id = ?", (user_id,))
            db.execute("UPDATE tokens SET revoked = 1 WHERE user_id = ?", (user_id,))
            db.execute("UPDATE submissions SET active = 0 WHERE user_id = ?", (user_id,))

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
            " s.version, s.active, s.disabled, s.created_at FROM submissions s"
            f" JOIN users u ON u.id = s.user_id {where} ORDER BY s.id",
            args,
        )
        keys: tuple[str, ...] = ("id", "user_id", "owner", "bot", "upload", "status", "reason")
        keys += ("stderr", "version", "active", "disabled", "created_at")
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

    def disable_submission(self, submission_id: int) -> None:
        with self.transaction() as db:
            db.execute(
                "UPDATE submissions SET disabled = 1, active = 0 WHERE id = ?", (submission_id,)
            )

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

    def final_bots(self, board: str) -> list[str] | None:
        row = self.db.execute("SELECT bots FROM finals WHERE board = ?", (board,)).fetchone()
        return json.loads(row[0]) if row else None

    def fix_final(self, board: str, bots: list[str]) -> list[str]:
        """Who plays a board's final, fixed once (a restart plays the same final)."""
        with self.transaction() as db:
            db.execute(
                "INSERT OR IGNORE INTO finals (board, bots) VALUES (?, ?)",
                (board, json.dumps(bots)),
            )
        found = self.final_bots(board)
        assert found is not None
        return found

    def finish_final(self, board: str) -> None:
        with self.transaction() as db:
            db.execute("UPDATE finals SET finished = 1 WHERE board = ?", (board,))

    def final_finished(self, board: str) -> bool:
        row = self.db.execute("SELECT finished FROM finals WHERE board = ?", (board,)).fetchone()
        return bool(row and row[0])
