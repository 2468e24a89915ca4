"""The competition's own store, opened: ``accounts.sqlite`` (its schema and migrations in
``arena.server.schema``), one connection per thread, the account a row names, and what
every part of ``Accounts`` (``arena.server.accounts``) shares."""

from __future__ import annotations

import hashlib
import re
import secrets
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from argon2 import PasswordHasher

from arena.server.schema import migrate
from arena.server.throttle import Throttle

FILE_NAME = "accounts.sqlite"
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}")  # no '.': bots are stored as USER.BOT


class AccountError(ValueError):
    """What was asked cannot be done; the message is one line for the person."""


@dataclass(frozen=True)
class User:
    id: int
    name: str
    role: str
    disabled: bool
    team: str | None = None  # the team's name, if the account is in one
    mates: frozenset[str] = frozenset()  # the team's members (the account too)

    @property
    def admin(self) -> bool:
        return self.role == "admin"

    def speaks_for(self, owner: str | None) -> bool:
        """Whether what ``owner`` sees of their own bots (code, logs, their seats' hands
        and stderr), this account sees too: it is ``owner``, or in ``owner``'s team.
        Admins see more, but not by this: each check adds ``admin`` where it applies."""
        return owner is not None and (owner == self.name or owner in self.mates)


# An account as ``User`` reads it: with its team and the team's members, if any.
USER_QUERY = (
    "SELECT u.id, u.name, u.role, u.disabled, t.name, (SELECT group_concat(o.name, ',')"
    " FROM team_members n JOIN users o ON o.id = n.user_id WHERE n.team_id = m.team_id)"
    " FROM users u LEFT JOIN team_members m ON m.user_id = u.id"
    " LEFT JOIN teams t ON t.id = m.team_id"
)


def user_of(row: tuple) -> User:
    mates = frozenset(row[5].split(",")) if row[5] else frozenset()
    return User(row[0], row[1], row[2], bool(row[3]), row[4], mates)


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def one_time_code() -> str:
    """A code a person hands over (a password reset, a team invite): 96 random bits in
    four groups, kept only as its hash, typed back in any case."""
    return "-".join(secrets.token_hex(3) for _ in range(4))


def code_digest(code: str) -> str:
    return digest(code.strip().lower())


def check_account_name(name: str, what: str = "name") -> None:
    if not NAME.fullmatch(name):
        raise AccountError(
            f"a {what} is 1-32 letters, digits, '-' and '_', starting with a letter or digit"
        )


class AccountsBase:
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

    @cached_property
    def dummy(self) -> str:
        """A hash of no one's password: a sign-in for an unknown name is checked against it,
        so that it costs what a known one does. Made on first use (an argon2 hash, a third
        of a second of CPU: the worker and the commands, which check no password, never
        make one); the host makes it at start, so that no sign-in ever waits for it."""
        return self.hasher.hash(secrets.token_hex(16))

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

    def user(self, user_id: int) -> User | None:
        row = self.db.execute(USER_QUERY + " WHERE u.id = ?", (user_id,)).fetchone()
        return user_of(row) if row else None
