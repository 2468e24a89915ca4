"""People's accounts: making them, roles, disabling and enabling, password resets an admin
hands over, signing in (with its throttle against guessing) and sessions."""

from __future__ import annotations

import secrets
import sqlite3
import time

from argon2.exceptions import InvalidHashError, VerificationError

from arena.server.accounts_db import (
    USER_QUERY,
    AccountError,
    AccountsBase,
    User,
    check_account_name,
    code_digest,
    digest,
    one_time_code,
    user_of,
)
from arena.server.throttle import keys_for

SESSION_SECONDS = 14 * 86400
MIN_PASSWORD = 8
MAX_PASSWORD = 256
RESET_SECONDS = 2 * 86400  # a password-reset code an admin hands over works this long


class AccountUsers(AccountsBase):
    """Accounts, passwords, sign-in and sessions."""

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

    def user_named(self, name: str) -> User | None:
        row = self.db.execute(USER_QUERY + " WHERE u.name = ?", (name,)).fetchone()
        return user_of(row) if row else None

    def users(self) -> list[User]:
        return [user_of(row) for row in self.db.execute(USER_QUERY + " ORDER BY u.id")]

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
        code = one_time_code()
        with self.transaction() as db:
            db.execute(
                "DELETE FROM password_resets WHERE user_id = ? AND used_at IS NULL", (user.id,)
            )
            db.execute(
                "INSERT INTO password_resets (code_hash, user_id, by_user, expires_at)"
                " VALUES (?, ?, ?, ?)",
                (code_digest(code), user.id, by.id if by else 0, time.time() + seconds),
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
                (code_digest(code),),
            ).fetchone()
            if row is None or row[2] is not None or row[1] < time.time():
                raise AccountError(
                    "that reset code is not valid (used, expired or mistyped): ask an admin "
                    "for a new one"
                )
            db.execute(
                "UPDATE password_resets SET used_at = ? WHERE code_hash = ?",
                (time.time(), code_digest(code)),
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
