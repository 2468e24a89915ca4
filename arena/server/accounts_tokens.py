"""API tokens for the command line: made with the scopes asked for, shown once, kept
hashed, limited in number per account, revoked by their owner."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any

from arena.server.accounts_db import AccountError, AccountsBase, User, digest

TOKEN_SECONDS = 90 * 86400
# What an API token may be allowed, chosen when it is made (``arena.server.api`` says
# which route needs which): upload a bot; read one's own submissions; an admin's export.
SCOPES = ("submit", "read", "admin")
DEFAULT_SCOPES = ("submit", "read")
MAX_LIVE_TOKENS = 10  # unrevoked, unexpired tokens per account


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


class AccountTokens(AccountsBase):
    """Making, checking, listing and revoking API tokens."""

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
