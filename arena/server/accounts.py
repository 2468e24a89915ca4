"""The competition's own store: accounts, sessions, API tokens, sign-in failures,
submissions and voided matches, in ``accounts.sqlite`` beside the results store.

Durability is the results store's: WAL journal, ``synchronous=FULL``, one short
transaction per change, so a ``kill -9`` at any moment keeps every committed
account, session, upload record and void. Secrets are stored hashed: passwords
with argon2id (memory-hard, argon2-cffi), session ids and tokens with SHA-256
(they are long random values, so a fast hash is enough).

``Accounts`` is made of one part per concern over the one connection per thread
(``accounts_db.AccountsBase``): ``accounts_users`` (accounts, sign-in, sessions),
``accounts_tokens`` (API tokens), ``accounts_submissions`` (uploads, validation, which
versions play), ``accounts_teams`` (teams and their invite codes) and
``accounts_competition`` (challenges, voids, finals, settings). Every name is importable
from here.
"""

from __future__ import annotations

from arena.server.accounts_competition import AccountCompetition, FinalRound
from arena.server.accounts_db import (
    FILE_NAME,
    NAME,
    AccountError,
    AccountsBase,
    User,
    check_account_name,
    digest,
)
from arena.server.accounts_submissions import AccountSubmissions, bot_key
from arena.server.accounts_teams import INVITE_SECONDS, AccountTeams, Left, Team
from arena.server.accounts_tokens import (
    DEFAULT_SCOPES,
    MAX_LIVE_TOKENS,
    SCOPES,
    TOKEN_SECONDS,
    AccountTokens,
    Grant,
    checked_scopes,
)
from arena.server.accounts_users import (
    MAX_PASSWORD,
    MIN_PASSWORD,
    RESET_SECONDS,
    SESSION_SECONDS,
    AccountUsers,
)

__all__ = [
    "DEFAULT_SCOPES",
    "FILE_NAME",
    "INVITE_SECONDS",
    "MAX_LIVE_TOKENS",
    "MAX_PASSWORD",
    "MIN_PASSWORD",
    "NAME",
    "RESET_SECONDS",
    "SCOPES",
    "SESSION_SECONDS",
    "TOKEN_SECONDS",
    "AccountError",
    "Accounts",
    "AccountsBase",
    "FinalRound",
    "Grant",
    "Left",
    "Team",
    "User",
    "bot_key",
    "check_account_name",
    "checked_scopes",
    "digest",
]


class Accounts(AccountUsers, AccountTokens, AccountSubmissions, AccountTeams, AccountCompetition):
    """``accounts.sqlite`` in ``data_dir``; one connection per thread (web handlers run in
    a thread pool, the validator and the ladder in threads of their own)."""
