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

    @property
    def admin(self) -> bool:
        return self.role == "admin"


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


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

    def user(self, user_id: int) -> User | None:
        row = self.db.execute(
            "SELECT id, name, role, disabled FROM users WHERE id = ?", (user_id,)
        ).fetchone()
        return User(row[0], row[1], row[2], bool(row[3])) if row else None
